/*
 * grower - a test helper process with known memory behaviour.
 *
 *   grower [--base MIB] [--grow KIB --every MS] [--steps N]
 *          [--exit-after SEC] [--exit-code N] [--children N]
 *          [--ready FILE] [--tag TEXT] [--map FILE]
 *
 * --base: allocate and touch MIB at start (steady footprint).
 * --grow/--every: every MS milliseconds map and touch exactly KIB more
 *   (mmap, so the footprint grows by exactly that, whatever the malloc).
 * --steps: stop growing after N steps (then hold).
 * --children N: fork N children that behave the same (without --children).
 * --ready FILE: create FILE once set up (and children started).
 * --tag: ignored; makes the command line unique for --name tests.
 * --map: map FILE shared, read-only, and read every page of it at start:
 *   file-backed pages (RssFile), in the RSS but not in the footprint.
 * Exits after --exit-after seconds (default: never) with --exit-code, or
 * on SIGTERM (stopping its children first).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *touch_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("grower: mmap");
		exit(3);
	}
	memset(p, 0x5a, bytes);
	return p;
}

static void map_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		perror("grower: --map");
		exit(3);
	}
	volatile const char *p = mmap(NULL, (size_t)st.st_size, PROT_READ,
				      MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("grower: mmap --map");
		exit(3);
	}
	close(fd);
	unsigned sum = 0;
	long page = sysconf(_SC_PAGESIZE);
	for (off_t o = 0; o < st.st_size; o += page)
		sum += (unsigned char)p[o];
	(void)sum;
}

int main(int argc, char **argv)
{
	double base_mib = 0, grow_kib = 0, every_ms = 100, exit_after = -1;
	long steps = -1, children = 0;
	int exit_code = 0;
	const char *ready = NULL, *map = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		if (!strcmp(a, "--base")) base_mib = atof(v), i++;
		else if (!strcmp(a, "--grow")) grow_kib = atof(v), i++;
		else if (!strcmp(a, "--every")) every_ms = atof(v), i++;
		else if (!strcmp(a, "--steps")) steps = atol(v), i++;
		else if (!strcmp(a, "--exit-after")) exit_after = atof(v), i++;
		else if (!strcmp(a, "--exit-code")) exit_code = atoi(v), i++;
		else if (!strcmp(a, "--children")) children = atol(v), i++;
		else if (!strcmp(a, "--ready")) ready = v, i++;
		else if (!strcmp(a, "--tag")) i++;
		else if (!strcmp(a, "--map")) map = v, i++;
		else {
			fprintf(stderr, "grower: unknown option %s\n", a);
			return 2;
		}
	}
	if (base_mib > 0)
		touch_map((size_t)(base_mib * 1024 * 1024));
	if (map)
		map_file(map);
	pid_t kids[64];
	long nkids = 0;
	for (long c = 0; c < children && c < 64; c++) {
		pid_t p = fork();
		if (p == 0) {
			children = 0;
			ready = NULL;
			nkids = 0;
			break;
		}
		kids[nkids++] = p;
	}
	signal(SIGTERM, on_term);
	if (ready) {
		FILE *f = fopen(ready, "w");
		if (f)
			fclose(f);
	}
	double start = now(), next = start;
	long done = 0;
	for (;;) {
		double t = now();
		if (stop || (exit_after >= 0 && t - start >= exit_after))
			break;
		if (grow_kib > 0 && (steps < 0 || done < steps) && t >= next) {
			touch_map((size_t)(grow_kib * 1024));
			done++;
			next += every_ms / 1000.0;
		}
		usleep(5000);
	}
	for (long c = 0; c < nkids; c++) {
		kill(kids[c], SIGTERM);
		waitpid(kids[c], NULL, 0);
	}
	return exit_code;
}
