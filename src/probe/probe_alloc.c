/*
 * probe_alloc.c - a process's allocator from its mapped libraries, its
 * thread count, and the check that a file is an ELF shared object
 * (probe_alloc.h). Reads files only; loads nothing.
 */
#include "probe_alloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

const char *probe_allocator_name(enum probe_allocator a)
{
	switch (a) {
	case PROBE_ALLOC_GLIBC: return "glibc";
	case PROBE_ALLOC_JEMALLOC: return "jemalloc";
	case PROBE_ALLOC_MIMALLOC: return "mimalloc";
	case PROBE_ALLOC_TCMALLOC: return "tcmalloc";
	}
	return "?";
}

enum probe_allocator probe_allocator_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	static const struct {
		const char *prefix;
		enum probe_allocator a;
	} known[] = {
		{"libjemalloc", PROBE_ALLOC_JEMALLOC},
		{"libmimalloc", PROBE_ALLOC_MIMALLOC},
		{"libtcmalloc", PROBE_ALLOC_TCMALLOC},
	};
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strncmp(base, known[i].prefix, strlen(known[i].prefix)))
			return known[i].a;
	return PROBE_ALLOC_GLIBC;
}

int probe_alloc_parse_maps(const char *path, struct probe_alloc_info *info)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return error("cannot read '%s': %s", path, strerror(errno));
	info->allocator = PROBE_ALLOC_GLIBC;
	info->path[0] = '\0';
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* "start-end perms offset dev inode   path": the path is
		 * what follows the fifth field, and starts with '/'. */
		char *p = line;
		for (int field = 0; field < 5 && p; field++) {
			p = strchr(p, ' ');
			if (p)
				while (*p == ' ')
					p++;
		}
		if (!p || *p != '/')
			continue;
		enum probe_allocator a = probe_allocator_of_path(p);
		if (a != PROBE_ALLOC_GLIBC) {
			info->allocator = a;
			snprintf(info->path, sizeof(info->path), "%s", p);
			break;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* Threads: of a status file; -1 when absent. */
static long status_threads(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[256];
	long n = -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8)) {
			char *end;
			long v = strtol(line + 8, &end, 10);
			if (end != line + 8 && v > 0)
				n = v;
			break;
		}
	fclose(f);
	return n;
}

int probe_alloc_detect(const char *proc_root, pid_t pid,
		       struct probe_alloc_info *info)
{
	if (!proc_root)
		proc_root = "/proc";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid);
	if (access(path, F_OK))
		return error("no process with PID %d", (int)pid);
	info->threads = status_threads(path);
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid);
	return probe_alloc_parse_maps(path, info);
}

int probe_alloc_check_library(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("allocator '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return error("allocator '%s' is not a regular file", path);
	}
	/* e_ident, then e_type: the same offsets in ELF32 and ELF64. */
	Elf64_Ehdr h;
	ssize_t n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n < (ssize_t)(EI_NIDENT + sizeof(h.e_type)) ||
	    memcmp(h.e_ident, ELFMAG, SELFMAG))
		return error("allocator '%s' is not an ELF file (a shared "
			     "library such as libjemalloc.so.2 is needed)",
			     path);
	if (h.e_ident[EI_DATA] != ELFDATA2LSB &&
	    h.e_ident[EI_DATA] != ELFDATA2MSB)
		return error("allocator '%s': unknown ELF byte order", path);
	uint16_t type = h.e_type;
	bool swap = (h.e_ident[EI_DATA] == ELFDATA2MSB) !=
		    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (swap)
		type = (uint16_t)((type >> 8) | (type << 8));
	if (type != ET_DYN)
		return error("allocator '%s' is an ELF file but not a shared "
			     "object (e_type %u; ET_DYN needed)", path,
			     (unsigned)type);
	return 0;
}
