/*
 * target.h - choosing what to watch: matching processes by name, finding a
 * process's descendants, naming a command memtrend starts (reaper.h starts
 * it). Reads the machine only through the probe interface; knows nothing
 * of samples or stores.
 */
#ifndef MEMTREND_TARGET_H
#define MEMTREND_TARGET_H

#include <regex.h>
#include <stdbool.h>
#include <sys/types.h>

#include "probe.h"

/* Does the process match? The regex (POSIX ERE) is tried against comm and
 * against the full command line. */
bool target_matches(const regex_t *re, const struct proc_identity *id);

/* Is pid one of exclude[0..n_exclude)? */
bool target_excluded(pid_t pid, const pid_t *exclude, size_t n_exclude);
/* May a --name scan follow the process id: it matches re (comm or
 * command line), has a command line (not a kernel thread), and is
 * neither one of exclude (memtrend itself and its ancestors, whose
 * command lines contain the pattern) nor a child of exclude[0] when
 * there is one (memtrend's reapers, reaper.h: copies of memtrend, with
 * its command line; what they start is their child, not memtrend's).
 * Every direct child of a recording memtrend is a reaper; not told
 * apart by its name (memtrend-reaper), which a scan can miss in the
 * moment between its fork and its prctl. A new kind of direct child
 * must be told apart here. The recorder's process sampler follows the
 * oldest such process (sampler_proc.c). */
bool target_name_eligible(const regex_t *re, const struct proc_identity *id,
			  const pid_t *exclude, size_t n_exclude);

/* pid and its ancestors up to (not including) pid 0; *out allocated. */
int target_ancestors(struct probe *p, pid_t pid, pid_t **out, size_t *n);

/* All descendants of root (children, grandchildren, ...), ascending; *out
 * allocated. Scans the proc root's stat files: O(processes). */
int target_descendants(struct probe *p, pid_t root, pid_t **out, size_t *n);

/* The display name of a command memtrend starts: the base name of the
 * program that will run -- argv[0]'s, or, when argv[0] is env(1), that of
 * the first word after env's options and NAME=VALUE assignments
 * ("env MALLOC_ARENA_MAX=2 /usr/bin/python3 app.py" is "python3"), or,
 * when argv is a shell's "-c SCRIPT" whose script execs a program (the
 * process the shell becomes), that program's ("sh -c 'exec python3 -m
 * http.server 2>log'" is "python3"). A script that execs nothing keeps
 * the shell's name: the shell is the process measured. Into buf (n > 0),
 * truncated; returns buf. */
char *target_command_name(char *const argv[], char *buf, size_t n);
/* The SCRIPT of "sh|bash|dash|zsh|ksh|mksh|ash [options] -c SCRIPT ...",
 * else NULL. A pure look at argv, not a shell parser. */
const char *target_shell_script(char *const argv[]);
/* Whether script, as target_command_name() reads it, execs a program
 * (the shell's process becomes the service). */
bool target_script_execs(const char *script);

#endif
