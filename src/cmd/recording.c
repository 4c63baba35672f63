/*
 * recording.c - the one place a command runs the recorder (recording.h).
 */
#include "recording.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
/* Written by a signal handler or the view thread, read by the recorder
 * thread: atomics (lock-free, so safe in a handler), not volatile
 * sig_atomic_t, which is only safe within one thread (C11 5.1.2.3). */
static atomic_int stop_value;
static atomic_int wake_fds[2] = {-1, -1};
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a lock-free int for the handler");

static void poke(int fd)
{
	if (fd >= 0) {
		ssize_t w = write(fd, "w", 1);
		(void)w;  /* a full pipe already wakes its reader */
	}
}

void recording_request_stop(int value)
{
	int saved = errno;
	atomic_store(&stop_value, value);
	poke(atomic_load(&wake_fds[0]));
	poke(atomic_load(&wake_fds[1]));
	errno = saved;
}

static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	recording_request_stop(sig | (si && si->si_code == SI_KERNEL ?
				      RECORDER_STOP_SEEN : 0));
}

void recording_signals_install(struct recording_signals *s, int wake_a,
			       int wake_b)
{
	_Static_assert(ARRAY_SIZE(stop_sigs) == ARRAY_SIZE(s->old),
		       "one saved action per stop signal");
	atomic_store(&stop_value, 0);
	atomic_store(&wake_fds[0], wake_a);
	atomic_store(&wake_fds[1], wake_b);
	/* No SA_RESTART: a stop must cut the recorder's sleep short. */
	struct sigaction sa = {.sa_sigaction = on_stop_signal,
			       .sa_flags = SA_SIGINFO};
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &sa, &s->old[i]);
}

void recording_signals_restore(const struct recording_signals *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &s->old[i], NULL);
	atomic_store(&wake_fds[0], -1);
	atomic_store(&wake_fds[1], -1);
}

int recording_stop(void)
{
	return atomic_load(&stop_value);
}

int recording_should_stop(void *ctx)
{
	(void)ctx;
	return atomic_load(&stop_value);
}

static void run_here(struct recording *r)
{
	r->rc = recorder_run_file(r->o, r->sinks, r->n_sinks, &r->hooks,
				  &r->res);
	atomic_store(&r->done, true);
	poke(r->done_fd);
}

int recording_run(struct recording *r)
{
	assert(r->o);
	struct recording_signals s;
	recording_signals_install(&s, -1, -1);
	run_here(r);
	recording_signals_restore(&s);
	return r->rc;
}

static void *thread_main(void *arg)
{
	run_here(arg);
	return NULL;
}

int recording_start(struct recording *r, const sigset_t *blocked)
{
	assert(r->o && blocked);
	atomic_init(&r->done, false);
	sigset_t old;
	/* The thread is born with the view's signals blocked. */
	pthread_sigmask(SIG_BLOCK, blocked, &old);
	int e = pthread_create(&r->thread, NULL, thread_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		error("cannot start the recorder thread: %s", strerror(e));
	return e;
}

void recording_join(struct recording *r)
{
	pthread_join(r->thread, NULL);
}
