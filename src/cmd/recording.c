/*
 * recording.c - the one place a command runs the recorder (recording.h).
 */
#include "recording.h"

#include <assert.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
static volatile sig_atomic_t stop_value;
static volatile sig_atomic_t wake_fds[2] = {-1, -1};

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
	stop_value = value;
	poke(wake_fds[0]);
	poke(wake_fds[1]);
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
	stop_value = 0;
	wake_fds[0] = wake_a;
	wake_fds[1] = wake_b;
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
	wake_fds[0] = wake_fds[1] = -1;
}

int recording_stop(void)
{
	return stop_value;
}

int recording_should_stop(void *ctx)
{
	(void)ctx;
	return stop_value;
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
