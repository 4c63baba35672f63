/*
 * probe_alloc.h - which allocator a process uses, and whether a file can
 * be one, for `memtrend probe` (docs/probe.md): the libraries a process
 * has mapped (/proc/PID/maps) name its allocator when it is not glibc's
 * (jemalloc, mimalloc, tcmalloc), /proc/PID/status its thread count; an
 * allocator given by path must be an ELF shared object to be preloaded.
 *
 * What it does not do: load anything, or tell a statically linked
 * allocator (one not in a library of its own) from glibc's.
 */
#ifndef MEMTREND_PROBE_ALLOC_H
#define MEMTREND_PROBE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum probe_allocator {
	PROBE_ALLOC_GLIBC,         /* none of the others mapped */
	PROBE_ALLOC_JEMALLOC,
	PROBE_ALLOC_MIMALLOC,
	PROBE_ALLOC_TCMALLOC,
};

struct probe_alloc_info {
	enum probe_allocator allocator;
	char path[4096];           /* the library mapped; "" for glibc */
	long threads;              /* Threads: of status; -1 when unknown */
};

/* "glibc", "jemalloc", "mimalloc", "tcmalloc". */
const char *probe_allocator_name(enum probe_allocator a);
/* The allocator a library's file name names (its basename starts with
 * libjemalloc, libmimalloc, libtcmalloc: tcmalloc_minimal too); glibc
 * for any other. */
enum probe_allocator probe_allocator_of_path(const char *path);
/* Parse a maps file (the format of /proc/PID/maps): the first mapped
 * library that is an allocator sets info->allocator and info->path
 * (glibc and "" when none). Leaves info->threads alone. 0, or -1 after a
 * message when the file cannot be read. Work: one pass, lines of any
 * length. */
int probe_alloc_parse_maps(const char *path, struct probe_alloc_info *info);
/* PROC_ROOT/PID/maps and PROC_ROOT/PID/status (proc_root NULL:
 * "/proc"). 0, or -1 after a message (no such process, not readable). */
int probe_alloc_detect(const char *proc_root, pid_t pid,
		       struct probe_alloc_info *info);
/* Whether path is a regular file holding an ELF shared object (e_type
 * ET_DYN): 0, or -1 after a message that says what it is instead. */
int probe_alloc_check_library(const char *path);

#endif
