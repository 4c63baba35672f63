/*
 * source_command.h - one number from a shell command (--work-cmd CMD,
 * --gauge NAME=CMD): runs it once per reading, bounded by a timeout.
 *
 * What it does: runs /bin/sh -c CMD in a process group of its own under a
 * reaper (a child subreaper), reads what it prints, ends everything the
 * command started -- its group, and processes that left it (setsid, a
 * double fork), which are reparented to the reaper -- when it is done,
 * overdue or cancelled, also when memtrend itself is killed (the reaper's
 * parent-death signal), and turns its output into one number or one line
 * saying why not.
 *
 * What it does not do: keep state between runs, retry, or interpret the
 * number (a counter's resets are the analysis's business). It writes
 * nothing to stdout or stderr.
 */
#ifndef MEMTREND_SOURCE_COMMAND_H
#define MEMTREND_SOURCE_COMMAND_H

#include <stdatomic.h>
#include <stddef.h>

/* Most of the command's stdout kept; more than this is an error. */
#define SOURCE_COMMAND_MAX_OUTPUT (64u * 1024u)

/* Run /bin/sh -c cmd with stdin /dev/null, stdout captured (at most 64 KiB
 * kept), stderr captured (first line kept for the message), in its own
 * process group; after timeout_s kill the whole group (SIGKILL) and reap
 * it. Parse stdout: optional leading/trailing whitespace (incl. \r), one
 * number (integer, decimal or exponent, as strtod, but not inf/nan/hex) -
 * anything else is an error. Returns 0 with *value, or -1 with a one-line
 * reason in err: "timed out after 2 s", "exited with status 3: <first
 * stderr line>", "killed by signal 9", "printed no number: \"abc\"" (what
 * the command printed is escaped and trimmed: it is untrusted), "printed
 * nothing", "printed more than 64 KiB"; or SOURCE_COMMAND_DOWN (-2), the
 * same with a reason, when what it asks looks not up yet: it printed
 * nothing, or exited with a status other than 0, 126 and 127 (a CLI
 * that cannot connect: redis-cli, curl -f) -- source.h's startup grace
 * waits on those, and warns at once about the rest (garbage, a command
 * not found). Never exits, never leaves a
 * zombie, never leaks an fd. Must not disturb a caller that has SIGCHLD
 * handlers or other children: it waits only for its own pid.
 *
 * In detail:
 *   - when the shell exits, whatever is left of its group (a background
 *     job still holding the pipe) and what left the group is killed with
 *     SIGKILL before the reading returns: a reading never waits for, or
 *     leaves behind, such jobs;
 *   - a status other than 0 is an error even when a number was printed;
 *   - the number is read in the C locale ("1.5", never "1,5"); a value
 *     that overflows a double is an error;
 *   - safe to call from any thread; SIGCHLD handlers of the caller may run
 *     (poll and waitpid are restarted on EINTR). If the caller reaps the
 *     child itself (waitpid(-1), SIGCHLD ignored), the reading is the
 *     same: the shell's status comes through the reaper's socket.
 * cancel (may be NULL): another thread sets it to end the reading within
 * 100 ms ("cancelled: memtrend is stopping").
 * Cost: a fork of memtrend and a fork+exec of /bin/sh (a millisecond or
 * two) and at most timeout_s of waiting. */
#define SOURCE_COMMAND_DOWN (-2)
int source_command_run(const char *cmd, double timeout_s,
		       const atomic_bool *cancel, double *value, char *err,
		       size_t errlen);

#endif
