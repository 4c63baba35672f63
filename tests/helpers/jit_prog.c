/*
 * jit_prog.c - a program with JIT-compiled code that allocates, for
 * record --sites' naming of JIT frames from /tmp/perf-PID.map
 * (tests/e2e/sites_edges.sh, sites_bpf.sh; docs/sites.md).
 *
 * At start it writes machine code into anonymous memory (no file, no
 * symbol, no unwind table: as a JIT does) -- a function that calls
 * malloc(4096) and returns the block -- makes it executable, and names
 * it in /tmp/perf-PID.map as "jit_leak_4k" (what node --perf-basic-prof
 * and the JVM's agents write). Then, for SECONDS, it calls it once a
 * millisecond, keeps every block (a leak of 4,096 bytes a call, whose
 * allocating frame is the JIT code) and appends "req" to LOG. Removes
 * its map at the end.
 *
 * With STUBS (a third argument), it also writes that many copies of the
 * function, each its own allocation site ("jit_stub_N" in the map), and
 * DELAY seconds into the run (default 1.5: a tracer of the running
 * process is in by then) calls each once: more sites than a site table
 * holds, the table fills.
 *
 * Usage: jit_prog SECONDS LOG [STUBS [DELAY]]. x86-64 only: elsewhere it
 * prints "skip" and exits 77 (the code is x86-64's).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: jit_prog SECONDS LOG\n");
		return 2;
	}
#if !defined(__x86_64__)
	puts("skip: the JIT code is x86-64's");
	return 77;
#else
	/* push rbx (the stack 16-aligned at the call); mov edi, 4096;
	 * movabs rax, malloc; call rax; pop rbx; ret */
	unsigned char code[] = {0x53, 0xbf, 0x00, 0x10, 0x00, 0x00, 0x48, 0xb8,
				0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xd0, 0x5b, 0xc3};
	void *(*target)(size_t) = malloc;
	uint64_t at = (uint64_t)(uintptr_t)target;
	memcpy(code + 8, &at, sizeof(at));
	size_t stubs = argc > 3 ? (size_t)atol(argv[3]) : 0;
	size_t len = ((stubs + 1) * 32 + 4095) & ~(size_t)4095;
	unsigned char *page = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 3;
	for (size_t i = 0; i <= stubs; i++)
		memcpy(page + 32 * i, code, sizeof(code));
	if (mprotect(page, len, PROT_READ | PROT_EXEC))
		return 3;
	void *(*jit)(void) = (void *(*)(void))(uintptr_t)page;
	char map[64];
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	FILE *m = fopen(map, "w");
	if (!m)
		return 3;
	fprintf(m, "%llx %zx jit_leak_4k\n", (unsigned long long)(uintptr_t)page,
		sizeof(code));
	for (size_t i = 1; i <= stubs; i++)
		fprintf(m, "%llx %zx jit_stub_%zu\n",
			(unsigned long long)(uintptr_t)(page + 32 * i),
			sizeof(code), i);
	fclose(m);

	int log = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		       0644);
	if (log < 0)
		return 3;
	double start = now(), end = start + atof(argv[1]);
	double delay = argc > 4 ? atof(argv[4]) : 1.5;
	bool stubbed = false;
	size_t n = 0, cap = 0;
	void **kept = NULL;
	while (now() < end) {
		if (stubs && !stubbed && now() > start + delay) {
			stubbed = true;
			for (size_t i = 1; i <= stubs; i++) {
				void *(*stub)(void) = (void *(*)(void))
					(uintptr_t)(page + 32 * i);
				memset(stub(), 2, 4096); /* kept */
			}
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			kept = realloc(kept, cap * sizeof(*kept));
		}
		char *p = jit();
		memset(p, 1, 4096);
		kept[n++] = p;
		if (write(log, "req\n", 4) != 4)
			return 3;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	unlink(map);
	printf("requests %zu\n", n);
	return 0;
#endif
}
