/*
 * smaps.h - read a live Linux process's /proc/PID/smaps (or any file in
 * that format) into a region breakdown (src/model/regions.h: the families,
 * their rules and figures, the cost of a read).
 */
#ifndef MEMTREND_SMAPS_H
#define MEMTREND_SMAPS_H

#include <sys/types.h>

#include "regions.h"

/*
 * Read PROC_ROOT/PID/smaps (proc_root NULL: $MEMTREND_PROC_ROOT or /proc;
 * pass probe_proc_root() to follow the probe) into *out (initialised
 * here). Returns
 *   PROBE_OK     figures filled; source_note says what was read;
 *   PROBE_DENIED no ptrace access (another user's process, or
 *                ptrace_scope): figures zero, source_note says so, no
 *                message printed -- the caller notes it and carries on;
 *   PROBE_GONE   no such process (or it exited while being read);
 *   PROBE_ERROR  unreadable or malformed (message printed, naming the
 *                line).
 * Always regions_release() *out afterwards.
 */
int smaps_read(const char *proc_root, pid_t pid,
	       struct region_breakdown *out);

/* The same on any smaps-format file (fixtures, a saved copy); PROBE_GONE
 * when it does not exist. */
int smaps_read_file(const char *path, struct region_breakdown *out);

#endif
