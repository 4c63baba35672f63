/*
 * static_prog.c - a statically linked program, out of reach of record
 * --sites' preloaded shim (the loader never runs, LD_PRELOAD is not
 * read): for tests/e2e/sites.sh, as the command itself (the region is
 * never claimed) and as what a wrapper execs (the wrapper's sites must
 * not stay live).
 *
 * Usage: static_prog MARKER SECONDS. Creates MARKER once it runs (the
 * test waits for it), then holds 4 MiB for SECONDS and exits 0. What it
 * does not do: anything the test must time (it only waits).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	char *keep = malloc(4 << 20);
	if (!keep)
		return 3;
	memset(keep, 1, 4 << 20);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return 3;
	close(fd);
	struct timespec ts = {atoi(argv[2]), 0};
	while (nanosleep(&ts, &ts) != 0)
		;
	free(keep);
	return 0;
}
