/*
 * recording.h - the one place a command runs the recorder: its stop
 * signals and, for a command with a view of its own (watch, watch --all),
 * the thread it runs in. record, check, the demo and watch all go
 * through it, so that a stop means the same everywhere.
 *
 * Stops: SIGINT, SIGTERM and SIGHUP are caught (SA_SIGINFO, no
 * SA_RESTART: a stop must cut the recorder's sleep short) and kept as a
 * value for the recorder's should_stop(): the signal, with
 * RECORDER_STOP_SEEN or'ed in when the terminal sent it (SI_KERNEL: a
 * Ctrl-C or hang-up that reached a -- COMMAND in memtrend's foreground
 * group already; recorder.h). A handler also writes a byte to the wake
 * descriptors given (the recorder's, a view's), so a thread that waits
 * on them hears the stop at once. A view asks for a stop the same way
 * (recording_request_stop(): 'q').
 *
 * What it does not do: choose the sinks or the hooks (each command
 * does), draw, or decide the exit code.
 */
#ifndef MEMTREND_RECORDING_H
#define MEMTREND_RECORDING_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "recorder.h"

struct recording_signals {
	struct sigaction old[3];
};

/* Catch the stop signals until recording_signals_restore(); wake_a and
 * wake_b: descriptors to write a byte to on a stop (-1: none). The
 * value is reset to 0. */
void recording_signals_install(struct recording_signals *s, int wake_a,
			       int wake_b);
void recording_signals_restore(const struct recording_signals *s);
/* The stop asked for: 0 none, else a signal (| RECORDER_STOP_SEEN). */
int recording_stop(void);
/* Ask for a stop from the program (a view's 'q'): async-signal-safe. */
void recording_request_stop(int value);
/* recording_stop() as the recorder's should_stop hook (ctx unused). */
int recording_should_stop(void *ctx);

/* A recorder run: recorder_run_file(o, sinks, hooks) in this thread
 * (recording_run()) or in a thread of its own (recording_start(), then
 * recording_join()). */
struct recording {
	const struct recorder_options *o;
	const struct sink *sinks;
	size_t n_sinks;
	struct recorder_hooks hooks;
	int done_fd;               /* a byte is written once it is done;
				      -1: none */
	/* results */
	struct recorder_result res;
	int rc;
	atomic_bool done;
	pthread_t thread;
};

/* In this thread, with the stop signals caught (and restored after). */
int recording_run(struct recording *r);
/* In a thread born with blocked blocked (the signals a view takes);
 * 0, or an errno with a message printed. */
int recording_start(struct recording *r, const sigset_t *blocked);
/* Wait for the thread; r->rc and r->res are then its results. */
void recording_join(struct recording *r);

#endif
