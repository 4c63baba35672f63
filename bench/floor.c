/*
 * floor.c - the raw floor of one process sample: exactly the reads the
 * recorder does per tick, with nothing else (no parsing, no SQLite, no
 * clock reads beyond the sleep), so bench/run.sh can say how close the
 * recorder comes to it.
 *
 *   bench_floor [-m status|smaps|none] [-n ITERS] [-t TIGHT_ITERS] [-i SECONDS] PID
 *   bench_floor -m all|all-statm [-n ITERS] [-t TIGHT_ITERS] [-i SECONDS]
 *   bench_floor --hold MIB [--churn MS]
 *
 * Per iteration, through fds opened once before the loop and pread at
 * offset 0 (as src/probe_linux.c does):
 *   status mode: /proc/PID/status (into 8 KiB), /proc/meminfo,
 *                /proc/pressure/memory, and the process's memory cgroup
 *                files (v1: memory.usage_in_bytes, memory.limit_in_bytes,
 *                memory.max_usage_in_bytes under /sys/fs/cgroup/memory/PATH
 *                from the "memory" line of /proc/PID/cgroup, or the mount
 *                itself when PATH is not there; v2: memory.current, .max,
 *                .peak), each into 64 bytes;
 *   smaps mode:  the same plus /proc/PID/smaps_rollup;
 *   none mode:   no file at all: what the loop and (with -i) the wakeups
 *                alone cost;
 *   all-statm:   the same with /proc/PID/statm: the floor of a recorder
 *                that reads statm every tick and status only when statm
 *                moved (src/probe/probe_linux.c, since 2026-12-05);
 *   all mode:    /proc/PID/status of every process there is at the start
 *                (into 4 KiB, the recorder's buffer for --all), and
 *                /proc/meminfo: the floor of `record --all` (bench section
 *                h), a process that has ended read as the empty file it
 *                then is.
 * Files that do not exist (PSI hidden, no cgroup) are left out, and said so.
 *
 * Two loops, both timed with getrusage(RUSAGE_SELF) (user + system):
 *   tight: TIGHT_ITERS iterations back to back (default ITERS);
 *   sleep: ITERS iterations with clock_nanosleep(CLOCK_MONOTONIC,
 *          TIMER_ABSTIME) to the next deadline in between, at -i SECONDS
 *          (as the recorder schedules its ticks), so the cost of a wakeup
 *          is in it as it is in the recorder's. Skipped when -i is 0.
 * One line per loop on stdout:
 *   floor mode=status variant=tight iters=N files=F cpu_us=X wall_s=W
 *
 * --hold MIB: allocate MIB MiB, touch every 4 KiB page (with
 * MADV_NOHUGEPAGE: 4 KiB pages, the expensive case for smaps_rollup), print
 * "ready" and sleep until killed: the large target for the smaps costs.
 * With --churn MS it changes its footprint every MS ms instead of
 * sleeping (see hold()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 16

struct kept {
	int fd;
	size_t bufsize;
	int per_tick;           /* the process's own files: every iteration */
	char path[512];
};

static struct kept files[MAX_FILES];
static int n_files;
static char buf[8192];
/* -m all: every process's status, kept open (-m all-statm: statm). */
static int *all_fds;
static int n_all;

static void keep_all_status(const char *file)
{
	DIR *d = opendir("/proc");
	if (!d) {
		perror("bench_floor: /proc");
		exit(1);
	}
	int cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[300];
		snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name, file);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (n_all == cap) {
			cap = cap ? 2 * cap : 1024;
			all_fds = realloc(all_fds, (size_t)cap * sizeof(int));
			if (!all_fds)
				exit(1);
		}
		all_fds[n_all++] = fd;
	}
	closedir(d);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_floor [-m status|smaps|none|all|all-statm] [-n ITERS] "
		"[-t TIGHT_ITERS] [-i SECONDS] [-k EVERY] PID (all: no PID)\n"
		"       -k: read the system and cgroup files every EVERY-th "
		"iteration only\n"
		"       bench_floor --hold MIB [--churn MS]\n");
	exit(2);
}

/* Open and keep path; a missing optional file is reported and skipped. */
static void keep(const char *path, size_t bufsize, int required)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bench_floor: %s: %s%s\n", path,
			strerror(errno), required ? "" : " (left out)");
		if (required)
			exit(1);
		return;
	}
	if (n_files == MAX_FILES) {
		fprintf(stderr, "bench_floor: too many files\n");
		exit(1);
	}
	struct kept *k = &files[n_files++];
	k->fd = fd;
	k->bufsize = bufsize;
	k->per_tick = strncmp(path, "/proc/", 6) == 0 &&
		      path[6] >= '0' && path[6] <= '9';
	snprintf(k->path, sizeof(k->path), "%s", path);
}

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* The memory cgroup of pid, resolved as src/probe_linux.c does. */
static void keep_cgroup(int pid)
{
	char path[512], line[1024];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bench_floor: %s: %s (no cgroup files)\n",
			path, strerror(errno));
		return;
	}
	char v1[512] = "", v2[512] = "";
	int have_v1 = 0, have_v2 = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrls = c1 + 1, *cg = c2 + 1;
		if (c1 - line == 1 && line[0] == '0' && *ctrls == '\0') {
			if (!have_v2) {
				snprintf(v2, sizeof(v2), "%s", cg);
				have_v2 = 1;
			}
			continue;
		}
		/* Is "memory" one of the comma-separated controllers? */
		char tmp[256];
		snprintf(tmp, sizeof(tmp), "%s", ctrls);
		for (char *sv, *tok = strtok_r(tmp, ",", &sv); tok;
		     tok = strtok_r(NULL, ",", &sv))
			if (strcmp(tok, "memory") == 0 && !have_v1) {
				snprintf(v1, sizeof(v1), "%s", cg);
				have_v1 = 1;
			}
	}
	fclose(f);

	char dir[1024];
	static const char *const v1_files[] = {
		"memory.usage_in_bytes", "memory.limit_in_bytes",
		"memory.max_usage_in_bytes",
	};
	static const char *const v2_files[] = {
		"memory.current", "memory.max", "memory.peak",
	};
	const char *const *names = NULL;
	if (have_v1) {
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", v1);
		if (!is_dir(dir))
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory");
		names = v1_files;
	} else if (have_v2) {
		static const char *const bases[] = {
			"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
		};
		for (int i = 0; i < 2 && !names; i++) {
			char probe[1100];
			snprintf(dir, sizeof(dir), "%s%s", bases[i], v2);
			snprintf(probe, sizeof(probe), "%s/memory.current",
				 dir);
			if (exists(probe))
				names = v2_files;
		}
	}
	if (!names) {
		fprintf(stderr, "bench_floor: pid %d has no readable memory "
			"cgroup (left out)\n", pid);
		return;
	}
	for (int i = 0; i < 3; i++) {
		char p[1200];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		keep(p, 64, i == 0);
	}
}

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read the machine's files (meminfo, PSI, cgroup) only every
 * system_every-th iteration, as the recorder reads them at most once a
 * second (-k; 1 = every iteration). */
static long system_every = 1;

/* One sample's worth of reads for iteration it. Returns the bytes read
 * (so the compiler cannot drop anything). */
static long read_all(long it)
{
	long total = 0;
	for (int i = 0; i < n_files; i++) {
		if (!files[i].per_tick && it % system_every != 0)
			continue;
		ssize_t n;
		do
			n = pread(files[i].fd, buf, files[i].bufsize - 1, 0);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			fprintf(stderr, "bench_floor: %s: %s\n", files[i].path,
				strerror(errno));
			exit(1);
		}
		total += n;
	}
	for (int i = 0; i < n_all; i++) {
		ssize_t n = pread(all_fds[i], buf, 4096, 0);
		total += n > 0 ? n : 0;  /* ended: ESRCH, or empty */
	}
	return total;
}

static void report(const char *mode, const char *variant, long iters,
		   double interval, double cpu, double wall)
{
	printf("floor mode=%s variant=%s iters=%ld files=%d interval_s=%g "
	       "cpu_us=%.3f wall_s=%.3f\n", mode, variant, iters,
	       n_files + n_all,
	       interval, cpu / (double)iters * 1e6, wall);
	fflush(stdout);
}

/* --churn MS: every MS milliseconds map and touch 64 KiB more, or unmap
 * it again: the footprint alternates, so no two consecutive samples are
 * alike (the recorder's store then writes every sample as its own row,
 * its worst case). */
static int hold(long mib, long churn_ms)
{
	size_t len = (size_t)mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("bench_floor: mmap");
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	printf("ready\n");
	fflush(stdout);
	if (churn_ms <= 0)
		for (;;)
			pause();
	const size_t chunk = 64 << 10;
	char *q = NULL;
	struct timespec ts = {churn_ms / 1000, (churn_ms % 1000) * 1000000L};
	for (;;) {
		if (q) {
			munmap(q, chunk);
			q = NULL;
		} else {
			q = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (q == MAP_FAILED)
				q = NULL;
			for (size_t off = 0; q && off < chunk; off += 4096)
				q[off] = 1;
		}
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	const char *mode = "status";
	long iters = 2000, tight = -1;
	double interval = 0.01;
	int pid = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--hold") == 0 && i + 1 < argc) {
			long mib = atol(argv[++i]), churn = 0;
			if (i + 2 < argc && strcmp(argv[i + 1], "--churn") == 0)
				churn = atol(argv[i + 2]);
			return hold(mib, churn);
		}
		else if (strcmp(a, "-m") == 0 && i + 1 < argc)
			mode = argv[++i];
		else if (strcmp(a, "-n") == 0 && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (strcmp(a, "-t") == 0 && i + 1 < argc)
			tight = atol(argv[++i]);
		else if (strcmp(a, "-i") == 0 && i + 1 < argc)
			interval = atof(argv[++i]);
		else if (strcmp(a, "-k") == 0 && i + 1 < argc)
			system_every = atol(argv[++i]);
		else if (a[0] != '-' && !pid)
			pid = atoi(a);
		else
			usage();
	}
	int smaps = strcmp(mode, "smaps") == 0;
	int none = strcmp(mode, "none") == 0;
	int all_statm = strcmp(mode, "all-statm") == 0;
	int all = strcmp(mode, "all") == 0 || all_statm;
	if ((pid <= 0 && !all) || iters <= 0 || interval < 0 ||
	    (!smaps && !none && !all && strcmp(mode, "status")))
		usage();
	if (tight < 0)
		tight = iters;

	char path[256];
	if (all) {
		keep("/proc/meminfo", sizeof(buf), 1);
		keep_all_status(all_statm ? "statm" : "status");
	} else if (!none) {
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		keep(path, sizeof(buf), 1);
		keep("/proc/meminfo", sizeof(buf), 1);
		keep("/proc/pressure/memory", sizeof(buf), 0);
		keep_cgroup(pid);
	}
	if (smaps) {
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
		keep(path, sizeof(buf), 1);
	}
	fprintf(stderr, "bench_floor: %d files per iteration:",
		n_files + n_all);
	if (all)
		fprintf(stderr, " %d %s files,", n_all,
			all_statm ? "statm" : "status");
	for (int i = 0; i < n_files; i++)
		fprintf(stderr, " %s", files[i].path);
	fprintf(stderr, "\n");

	volatile long sink = read_all(0); /* warm: first reads allocate */

	if (tight > 0) {
		double c0 = cpu_now(), w0 = mono_now();
		for (long i = 0; i < tight; i++)
			sink += read_all(i);
		report(mode, "tight", tight, 0, cpu_now() - c0,
		       mono_now() - w0);
	}
	if (interval > 0) {
		double c0 = cpu_now(), w0 = mono_now();
		struct timespec next;
		clock_gettime(CLOCK_MONOTONIC, &next);
		long step_ns = (long)(interval * 1e9 + 0.5);
		for (long i = 0; i < iters; i++) {
			sink += read_all(i);
			next.tv_nsec += step_ns;
			while (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
			/* As the recorder: a missed deadline is skipped, not
			 * caught up with a burst. */
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > next.tv_sec ||
			    (now.tv_sec == next.tv_sec &&
			     now.tv_nsec > next.tv_nsec)) {
				next = now;
				next.tv_nsec += step_ns;
				while (next.tv_nsec >= 1000000000L) {
					next.tv_nsec -= 1000000000L;
					next.tv_sec++;
				}
			}
			if (i + 1 < iters)
				while (clock_nanosleep(CLOCK_MONOTONIC,
						       TIMER_ABSTIME, &next,
						       NULL) == EINTR)
					;
		}
		report(mode, "sleep", iters, interval, cpu_now() - c0,
		       mono_now() - w0);
	}
	(void)sink;
	return 0;
}
