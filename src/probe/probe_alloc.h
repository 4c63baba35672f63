/*
 * probe_alloc.h - which allocator a process uses, and whether a file can
 * be one, for `memtrend probe` (docs/probe.md): the libraries a process
 * has mapped (/proc/PID/maps) name its allocator when it is not glibc's
 * (jemalloc, mimalloc, tcmalloc), /proc/PID/status its thread count; an
 * allocator given by path must be an ELF shared object of this machine
 * to be preloaded; and inside the process that preloaded it, whether the
 * loader really did and malloc is now the library's (the loader only
 * warns when it cannot preload, and the process goes on with glibc's).
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
/* Whether path is a regular file holding an ELF shared object that this
 * machine's loader can preload: e_type ET_DYN, this machine's class (32
 * or 64-bit), byte order and machine, a dynamic section, and not a
 * program (a PIE is ET_DYN too, marked DF_1_PIE: glibc refuses to
 * preload it). 0, or -1 after a message that says what it is instead.
 * Never blocks (a FIFO is refused, not opened for reading); reads the
 * header, the program headers (4,096 at most) and the dynamic section
 * (1 MiB at most). */
int probe_alloc_check_library(const char *path);
/* In the process that was started with LD_PRELOAD=path: 0 when the
 * loader loaded path (the same file: links followed) and malloc and free
 * in the global scope resolve into it; else -1 with why (n bytes, for
 * the arm's row: "the loader did not load it ...", "it was loaded but
 * malloc is /lib/.../libc.so.6's ..."). Prints nothing. Work: one walk of
 * the loaded objects and two symbol lookups. */
int probe_alloc_check_loaded(const char *path, char *why, size_t n);

#endif
