/*
 * recorder_command.c - the -- COMMAND of `record` and `check`: started under
 * a reaper (reaper.h) that ends all it started, its exit seen through the
 * reaper's socket (no SIGCHLD), its status kept for memtrend's own.
 *
 * What it does not do: decide when to stop it (recorder.c's loop does:
 * --duration, a stop, the grace) or sample it (it is a root like any).
 */
#include <assert.h>
#include <string.h>
#include <sys/wait.h>

#include "common.h"
#include "recorder_internal.h"

int recorder_command_spawn(struct recorder *rec)
{
	const struct recorder_options *o = rec->o;
	assert(o->command && !rec->command_running);
	/* Under a reaper: what the command starts is ended with it, also
	 * after a kill -9 of memtrend. In memtrend's process group, so that
	 * a terminal's Ctrl-C reaches it as before. */
	struct reaper_spec spec = {
		.argv = o->command, .stdin_fd = -1, .stdout_fd = -1,
		.stderr_fd = -1, .grace_s = RECORDER_KILL_GRACE_S,
		.hold = true, .envp = rec->command_env,
		.pass_fd = rec->command_pass_fd,
	};
	int e = reaper_spawn(&spec, &rec->command);
	if (e && rec->command.exec_errno) {
		error("cannot run '%s': %s", o->command[0], strerror(e));
		return EXIT_USAGE;
	}
	if (e) {
		error("cannot start '%s': %s", o->command[0], strerror(e));
		return EXIT_RUNTIME;
	}
	rec->command_running = true;
	return EXIT_OK;
}

/* memtrend's exit code for a wait status: the code, or 128 + the
 * signal; -1 when unknown. */
static int command_exit_code(int st)
{
	if (st < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) :
	       WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* Has the -- COMMAND ended (its reaper says so)? Its status is kept; the
 * reaper is then ending what it left, finished in recorder_command_finish(). */
void recorder_command_reap(struct recorder *rec)
{
	if (rec->command_running && !rec->command_go) {
		/* the first sample is taken: from now on its reaper may
		 * reap it (a zombie until then, however soon it exited) */
		reaper_go(&rec->command);
		rec->command_go = true;
	}
	assert(!rec->command_running || rec->command.fd >= 0);
	if (!rec->command_running || !reaper_poll(&rec->command))
		return;
	rec->command_running = false;
	rec->command_status = command_exit_code(rec->command.status);
	for (size_t i = 0; i < rec->n_roots; i++)
		if (rec->roots[i].kind == ROOT_COMMAND &&
		    !rec->roots[i].finished)
			rec->command_end_tick = true;
}

/* The end of the -- COMMAND's tree, on every way out of the recorder: its
 * reaper ends what the command left (SIGTERM, SIGKILL after
 * RECORDER_KILL_GRACE_S), at once when the command itself still runs
 * (now). Waits for that, bounded. */
void recorder_command_finish(struct recorder *rec, bool now)
{
	if (!rec->command.pid && rec->command.fd < 0)
		return;
	if (!rec->command_go)
		reaper_go(&rec->command);
	reaper_finish(&rec->command, now, RECORDER_KILL_GRACE_S + 3);
	if (rec->command_running || rec->command_status < 0)
		rec->command_status = command_exit_code(rec->command.status);
	rec->command_running = false;
}
