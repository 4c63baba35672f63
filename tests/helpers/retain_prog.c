/*
 * retain_prog.c - a program whose live heap stays flat while glibc keeps
 * ever more of what it freed: the allocator's retention that record
 * --sites must tell from a leak (docs/sites.md, the split; e2e_sites_edges).
 *
 * Round k (one every INTERVAL_MS): a burst of 16 + k blocks of 64 KiB
 * (below glibc's mmap threshold: heap chunks), each page written; then a
 * 16-byte pin; the previous pin freed; the burst freed. Between rounds
 * only the pin and the program's own few blocks are live. The burst's
 * freed span lies below the new pin, so glibc cannot trim it from the
 * top, and the next, larger burst reuses it and extends the heap by one
 * more block: the footprint grows 64 KiB a round (RssAnon keeps the
 * touched pages; glibc returns none of a free chunk inside the heap)
 * while the live heap does not.
 *
 * Usage: retain_prog ROUNDS INTERVAL_MS. Prints "done" at the end.
 * Not sanitized: the shim runs in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK (64 * 1024)
#define BASE 16

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: retain_prog ROUNDS INTERVAL_MS\n");
		return 2;
	}
	int rounds = atoi(argv[1]);
	long ms = atol(argv[2]);
	char **burst = calloc((size_t)(BASE + rounds), sizeof(*burst));
	if (!burst)
		return 1;
	void *pin = NULL;
	struct timespec gap = {ms / 1000, (ms % 1000) * 1000000L};
	for (int k = 0; k < rounds; k++) {
		int n = BASE + k;
		for (int i = 0; i < n; i++) {
			burst[i] = malloc(BLOCK);
			if (!burst[i])
				return 1;
			memset(burst[i], k + 1, BLOCK);
		}
		void *next = malloc(16);
		if (!next)
			return 1;
		memset(next, 0, 16);
		free(pin);
		pin = next;
		for (int i = 0; i < n; i++)
			free(burst[i]);
		nanosleep(&gap, NULL);
	}
	free(pin);
	free(burst);
	puts("done");
	return 0;
}
