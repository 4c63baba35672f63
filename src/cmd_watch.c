/*
 * cmd_watch.c - `memtrend watch`: record exactly as `memtrend record`
 * does (same options, same file) and show a live view of the first
 * target: footprint and components, recent samples, the slope so far, the
 * verdict so far and how much longer to watch (render_watch.c draws it).
 *
 * Shape: the recorder (recorder_run(), untouched) runs in a second
 * thread; this thread is the view. Every refresh -- each interval, but at
 * least every REFRESH_MAX_S and at most every REFRESH_MIN_S -- it reads
 * the file as `report` would (store_read_dataset(): a consistent snapshot
 * of what the recorder committed), runs analysis_run() on the first
 * target and draws. A refresh whose file has not changed since the last
 * read redraws without reading.
 *
 * Bounds on work: one refresh costs a read of the whole recording and one
 * analysis. Measured (optimised build, one target): 10^5 samples 0.08 s
 * read + 0.18 s analysis, 10^6 samples 0.62 s + 0.30 s; reading the
 * component columns too costs 0.12 s and 1.46 s (the fast, parallel read
 * path skips them). So when a refresh takes more than 1/4 of the refresh
 * interval the view first stops reading the components, then refreshes
 * less often (every 4 x the cost), and says so on screen. A refresh that
 * finds the file unchanged (size and mtime of the file and its -wal)
 * reads nothing. The recorder never waits for the view.
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGCHLD are blocked in this thread
 * before the recorder thread starts and unblocked there, so the
 * recorder's handlers run in its thread and cut its sleep short. Threads
 * the recorder starts (the source thread) inherit that mask, so once the
 * recorder has installed its handlers they are wrapped: a signal that
 * lands in another thread is passed on to the recorder thread with its
 * siginfo (rt_tgsigqueueinfo), one that lands there calls the recorder's
 * handler. A stop that arrives before the recorder installed its
 * handlers is kept and passed on once it has. SIGWINCH, SIGTSTP and
 * SIGCONT are blocked in the recorder thread (its children reset their
 * masks) and only wake the view.
 *
 * Terminal: on a terminal, the alternate screen with the cursor hidden,
 * echo and line editing off (signals on), redrawn from the top-left
 * corner at each refresh, its size read at each frame; 'q' stops like
 * SIGTERM. Meanwhile memtrend's stdout and stderr (and so a -- COMMAND's,
 * which inherits them) go to an unlinked temporary file, whose last line
 * the view shows; the view writes to its own copy of the terminal's
 * descriptor. On every way out -- duration, targets gone, Ctrl-C,
 * SIGTERM, SIGHUP, 'q', a recorder error -- the terminal is restored
 * (screen, cursor, termios), stdout and stderr are put back, the whole
 * log is copied to stderr, and a final plain line says where things
 * stand. Ctrl-Z leaves the screen before stopping and comes back on
 * fg. When stdout is not a terminal there is no screen: one plain line
 * per refresh that read new samples, warnings straight to stderr.
 *
 * What it does not do: parse options (record_cli_parse(), shared with
 * record), sample or write the file (recorder.c, unchanged: watch records
 * exactly what record would), compute figures of its own (analysis.c) or
 * format them (render_watch.c). Only the first target is shown.
 *
 * Exit code: as `record` (0, the command's status for -- COMMAND, 2, 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "render.h"
#include "store.h"

#define REFRESH_MIN_S 0.25        /* at most 4 refreshes a second */
#define REFRESH_MAX_S 2.0         /* at least one every 2 s */
#define STARTUP_POLL_S 0.02       /* until the recorder has started */
#define LOG_TAIL 4096             /* bytes looked at for the last line */
#define LOG_LINE 512

/* ---- signals ------------------------------------------------------------ */

/* The recorder's signals (recorder.c installs handlers for all four;
 * SIGCHLD last). */
static const int rec_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
static struct sigaction rec_actions[ARRAY_SIZE(rec_sigs)];
static atomic_int captured;       /* rec_actions hold the recorder's */
static atomic_int rec_tid;        /* the recorder thread's kernel tid */
static volatile sig_atomic_t early_sig;   /* a stop before capture */
static volatile sig_atomic_t stop_seen;   /* any stop signal */
static volatile sig_atomic_t winch_flag, tstp_flag, cont_flag;
static int wake_wr = -1;          /* write end of the view's wake pipe */

static pid_t thread_id(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void wake_view(void)
{
	if (wake_wr >= 0) {
		ssize_t w = write(wake_wr, "w", 1);
		(void)w;  /* a full pipe already wakes the view */
	}
}

static int rec_index(int sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(rec_sigs); i++)
		if (rec_sigs[i] == sig)
			return (int)i;
	return -1;
}

/* The recorder's signals, before and after its handlers are installed
 * (see the top). Async-signal-safe: syscalls and atomics only. */
static void on_rec_signal(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;
	if (sig != SIGCHLD)
		stop_seen = 1;
	int i = rec_index(sig);
	if (!atomic_load(&captured)) {
		if (sig != SIGCHLD)
			early_sig = sig;
	} else if (thread_id() != atomic_load(&rec_tid)) {
		pid_t tid = atomic_load(&rec_tid);
		if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, info))
			syscall(SYS_tgkill, getpid(), tid, sig);
	} else if (i >= 0) {
		const struct sigaction *a = &rec_actions[i];
		if (a->sa_flags & SA_SIGINFO)
			a->sa_sigaction(sig, info, ctx);
		else if (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)
			a->sa_handler(sig);
	}
	if (sig != SIGCHLD)
		wake_view();
	errno = saved;
}

static void on_view_signal(int sig)
{
	int saved = errno;
	if (sig == SIGWINCH)
		winch_flag = 1;
	else if (sig == SIGTSTP)
		tstp_flag = 1;
	else
		cont_flag = 1;
	wake_view();
	errno = saved;
}

static void install(int sig, void (*h)(int, siginfo_t *, void *),
		    int flags, const sigset_t *mask)
{
	struct sigaction sa = {.sa_sigaction = h, .sa_flags = flags |
			       SA_SIGINFO};
	if (mask)
		sa.sa_mask = *mask;
	else
		sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Once the recorder has installed its handlers: keep them, and put the
 * forwarding wrapper in their place. True when done. */
static bool try_capture(void)
{
	if (atomic_load(&captured))
		return true;
	/* All four must be the recorder's: a handler of ours kept here
	 * would call itself. */
	for (size_t i = 0; i < ARRAY_SIZE(rec_sigs); i++) {
		struct sigaction *a = &rec_actions[i];
		if (sigaction(rec_sigs[i], NULL, a) ||
		    ((a->sa_flags & SA_SIGINFO) &&
		     a->sa_sigaction == on_rec_signal))
			return false;
	}
	atomic_store(&captured, 1);
	for (size_t i = 0; i < ARRAY_SIZE(rec_sigs); i++)
		install(rec_sigs[i], on_rec_signal,
			rec_actions[i].sa_flags & ~SA_RESETHAND,
			&rec_actions[i].sa_mask);
	return true;
}

/* Ask the recorder to stop as SIGTERM would. */
static void request_stop(int sig)
{
	stop_seen = 1;
	if (atomic_load(&captured))
		syscall(SYS_tgkill, getpid(), atomic_load(&rec_tid), sig);
	else
		early_sig = sig;
}

/* ---- the recorder thread -------------------------------------------------- */

struct rec_thread {
	const struct recorder_options *o;
	sigset_t mask;             /* its signal mask */
	struct recorder_result res;
	int rc;
	atomic_bool done;
	int wake_fd;
};

static void *rec_main(void *arg)
{
	struct rec_thread *rt = arg;
	atomic_store(&rec_tid, thread_id());
	pthread_sigmask(SIG_SETMASK, &rt->mask, NULL);
	rt->rc = recorder_run(rt->o, &rt->res);
	atomic_store(&rt->done, true);
	ssize_t w = write(rt->wake_fd, "d", 1);
	(void)w;
	return NULL;
}

/* ---- stdout and stderr into a log while the screen is up ------------------ */

struct logcap {
	int fd;                    /* the unlinked log, or -1 */
	int saved_out, saved_err;  /* the real stdout and stderr */
	off_t seen;                /* size when the last line was read */
	char last[LOG_LINE];
};

static int log_start(struct logcap *l)
{
	const char *dir = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/memtrend-watch.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	l->fd = mkostemp(path, O_APPEND | O_CLOEXEC);
	if (l->fd < 0) {
		snprintf(path, sizeof(path), "/tmp/memtrend-watch.XXXXXX");
		l->fd = mkostemp(path, O_APPEND | O_CLOEXEC);
	}
	if (l->fd < 0)
		return error("cannot create a temporary file for the log: %s",
			     strerror(errno));
	unlink(path);
	fflush(stdout);
	fflush(stderr);
	l->saved_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	l->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (l->saved_out < 0 || l->saved_err < 0 ||
	    dup2(l->fd, STDOUT_FILENO) < 0 || dup2(l->fd, STDERR_FILENO) < 0) {
		int e = errno;
		if (l->saved_out >= 0) {
			dup2(l->saved_out, STDOUT_FILENO);
			close(l->saved_out);
		}
		if (l->saved_err >= 0) {
			dup2(l->saved_err, STDERR_FILENO);
			close(l->saved_err);
		}
		close(l->fd);
		l->fd = -1;
		return error("cannot redirect stderr: %s", strerror(e));
	}
	return 0;
}

/* The log's last non-empty line (raw), or "" when nothing was written. */
static const char *log_last_line(struct logcap *l)
{
	struct stat sb;
	if (l->fd < 0 || fstat(l->fd, &sb) || sb.st_size == l->seen)
		return l->last;
	l->seen = sb.st_size;
	char buf[LOG_TAIL + 1];
	off_t from = sb.st_size > LOG_TAIL ? sb.st_size - LOG_TAIL : 0;
	ssize_t n = pread(l->fd, buf, (size_t)(sb.st_size - from), from);
	if (n <= 0)
		return l->last;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	char *start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	size_t len = strlen(start);
	if (len >= sizeof(l->last))
		len = sizeof(l->last) - 1;
	memcpy(l->last, start, len);
	l->last[len] = '\0';
	return l->last;
}

/* Put stdout and stderr back and copy the whole log to stderr. */
static void log_stop(struct logcap *l)
{
	if (l->fd < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(l->saved_out, STDOUT_FILENO);
	dup2(l->saved_err, STDERR_FILENO);
	close(l->saved_out);
	close(l->saved_err);
	char buf[65536];
	off_t at = 0;
	for (;;) {
		ssize_t n = pread(l->fd, buf, sizeof(buf), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(STDERR_FILENO, buf + w,
					  (size_t)(n - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				n = 0;
				break;
			}
			w += k;
		}
		if (n == 0)
			break;
		at += n;
	}
	close(l->fd);
	l->fd = -1;
}

/* ---- the terminal ----------------------------------------------------------- */

struct term {
	FILE *out;                 /* the view's stream */
	int fd;                    /* its descriptor */
	bool active;               /* the screen is up */
	bool have_termios;
	struct termios saved;
};

static void term_enter(struct term *t)
{
	if (t->have_termios) {
		struct termios raw = t->saved;
		raw.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(t->fd, TCSANOW, &raw);
	}
	render_watch_begin(t->out);
	t->active = true;
}

static void term_leave(struct term *t)
{
	if (!t->active)
		return;
	render_watch_end(t->out);
	if (t->have_termios)
		tcsetattr(t->fd, TCSANOW, &t->saved);
	t->active = false;
}

static void term_size(const struct term *t, int *cols, int *rows)
{
	struct winsize ws;
	*cols = 80;
	*rows = 24;
	if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/* UTF-8 when the locale says so (LC_ALL, else LC_CTYPE, else LANG). The
 * process's locale is left alone: the recorder's regexes must behave as
 * they do under `record`. */
bool cmd_locale_utf8(void)
{
	const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return false;
}

/* ---- reading and analysing ---------------------------------------------------- */

struct file_key {
	bool db, wal;
	struct stat db_st, wal_st;
};

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

struct watch {
	const struct record_cli *cli;
	struct term term;
	bool screen;
	bool utf8;
	struct logcap log;
	double started;            /* monotonic */
	char wal_path[4096];
	struct file_key key;       /* the file at the last read */
	bool have_data;
	struct dataset d;
	struct target_findings f;
	bool have_f;
	bool components;           /* read them next time */
	bool components_read;      /* the data in hand has them */
	double base_s, period_s, cost_s;
	bool stdin_keys;           /* read 'q' from stdin */
	bool out_failed;           /* the view's stream failed */
};

static void file_key_now(const struct watch *w, struct file_key *k)
{
	memset(k, 0, sizeof(*k));
	k->db = stat(w->cli->o.output, &k->db_st) == 0;
	k->wal = stat(w->wal_path, &k->wal_st) == 0;
}

/* Read and analyse when the file changed (or when forced). Returns 1
 * after a new read, 0 when nothing changed, -1 when the read failed (the
 * message went to stderr: the log, on the screen). */
static int watch_read(struct watch *w, bool force)
{
	struct file_key k;
	file_key_now(w, &k);
	if (!k.db)
		return 0;
	if (!force && w->have_data && k.db == w->key.db &&
	    k.wal == w->key.wal && same_stat(&k.db_st, &w->key.db_st) &&
	    (!k.wal || same_stat(&k.wal_st, &w->key.wal_st)))
		return 0;
	double t0 = now_monotonic();
	struct store_read_options ro = {.components = w->components};
	struct dataset nd;
	if (store_read_dataset(w->cli->o.output, &ro, &nd))
		return -1;
	struct target_findings nf;
	bool have_nf = nd.n_targets > 0;
	if (have_nf) {
		struct analysis_options ao;
		analysis_options_init(&ao);
		analysis_run(&nd.targets[0], &ao, &nf);
	}
	double cost = now_monotonic() - t0;
	if (w->have_f)
		analysis_release(&w->f);
	if (w->have_data)
		dataset_release(&w->d);
	w->d = nd;
	w->have_data = true;
	w->have_f = have_nf;
	if (have_nf) {
		w->f = nf;
		/* The findings point into the series: re-point at the copy
		 * of the dataset that stays. */
		w->f.series = &w->d.targets[0];
	}
	w->key = k;
	w->components_read = ro.components;
	w->cost_s = cost;
	/* Over a quarter of the refresh interval: shed the components
	 * first, then refresh less often. */
	if (cost > w->base_s / 4 && w->components)
		w->components = false;
	w->period_s = fmax(w->base_s, 4 * cost);
	return 1;
}

static void fill_view(const struct watch *w, struct watch_view *v,
		      bool ended)
{
	memset(v, 0, sizeof(*v));
	v->output = w->cli->o.output;
	v->interval_s = w->cli->o.interval_s;
	v->elapsed_s = now_monotonic() - w->started;
	if (w->have_data && w->d.n_targets) {
		v->s = &w->d.targets[0];
		v->n_targets = w->d.n_targets;
	}
	v->f = w->have_f ? &w->f : NULL;
	v->components_read = w->components_read;
	v->stopping = stop_seen;
	v->ended = ended;
	v->refresh_s = w->period_s;
	v->refresh_cost_s = w->have_data ? w->cost_s : NAN;
	v->slowed = w->period_s > w->base_s * 1.001;
	v->utf8 = w->utf8;
	v->last_log = w->screen ? w->log.last : NULL;
}

static void draw(struct watch *w)
{
	if (!w->screen || w->out_failed || !w->term.active)
		return;
	struct watch_view v;
	log_last_line(&w->log);
	fill_view(w, &v, false);
	term_size(&w->term, &v.cols, &v.rows);
	if (render_watch_screen(w->term.out, &v))
		w->out_failed = true;  /* the terminal went away */
}

static void plain_line(struct watch *w, bool ended)
{
	if (w->out_failed)
		return;
	struct watch_view v;
	fill_view(w, &v, ended);
	if (render_watch_line(stdout, &v)) {
		/* A closed pipe (| head): stop recording as SIGTERM would. */
		w->out_failed = true;
		if (!ended)
			request_stop(SIGTERM);
	}
}

/* Keys: 'q' stops. EOF or an error stops reading the keyboard. */
static void read_keys(struct watch *w)
{
	char buf[64];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			w->stdin_keys = false;
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 'q' || buf[i] == 'Q')
			request_stop(SIGTERM);
}

/* Ctrl-Z: give the terminal back, stop, take it again on fg. */
static void suspend(struct watch *w)
{
	term_leave(&w->term);
	fflush(w->term.out);
	kill(getpid(), SIGSTOP);
	term_enter(&w->term);
}

static void view_loop(struct watch *w, struct rec_thread *rt, int wake_rd)
{
	double next = now_monotonic();
	bool need_draw = true;
	while (!atomic_load(&rt->done)) {
		bool started = try_capture();
		if (started && early_sig) {
			int sig = early_sig;
			early_sig = 0;
			syscall(SYS_tgkill, getpid(), atomic_load(&rec_tid),
				sig);
		}
		if (tstp_flag) {
			tstp_flag = 0;
			if (w->screen)
				suspend(w);
			need_draw = true;
		}
		if (winch_flag || cont_flag) {
			winch_flag = cont_flag = 0;
			need_draw = true;
		}
		double now = now_monotonic();
		if (started && now >= next) {
			int r = watch_read(w, false);
			if (r > 0 && !w->screen && w->have_f &&
			    w->f.samples > 0)
				plain_line(w, false);
			need_draw = true;
			next = now_monotonic() + w->period_s;
		}
		if (need_draw && w->screen) {
			draw(w);
			need_draw = false;
		}
		double wait_s = started ? next - now_monotonic() :
				STARTUP_POLL_S;
		if (wait_s < 0)
			wait_s = 0;
		struct pollfd p[2] = {{wake_rd, POLLIN, 0},
				      {STDIN_FILENO, POLLIN, 0}};
		int np = w->stdin_keys ? 2 : 1;
		int pr = poll(p, (nfds_t)np, (int)ceil(wait_s * 1000));
		if (pr > 0 && (p[0].revents & POLLIN)) {
			char buf[64];
			while (read(wake_rd, buf, sizeof(buf)) > 0)
				;
			need_draw = true;  /* a stop shows "stopping" */
		}
		if (pr > 0 && np == 2 && p[1].revents)
			read_keys(w);
	}
}

/* ---- the command ---------------------------------------------------------------- */

static int watch_run(struct watch *w, struct record_cli *cli)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		error("cannot create a pipe: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	wake_wr = pipefd[1];
	snprintf(w->wal_path, sizeof(w->wal_path), "%s-wal", cli->o.output);

	/* The masks: the view blocks the recorder's signals (and SIGPIPE:
	 * a closed stdout is an error to handle, not a death); the
	 * recorder thread keeps the original mask but leaves the view's
	 * signals to the view. */
	sigset_t block, orig;
	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(rec_sigs); i++)
		sigaddset(&block, rec_sigs[i]);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &orig);
	struct rec_thread rt = {.o = &cli->o, .wake_fd = pipefd[1]};
	atomic_init(&rt.done, false);
	rt.mask = orig;
	sigaddset(&rt.mask, SIGWINCH);
	sigaddset(&rt.mask, SIGTSTP);
	sigaddset(&rt.mask, SIGCONT);
	for (size_t i = 0; i < ARRAY_SIZE(rec_sigs); i++)
		install(rec_sigs[i], on_rec_signal, 0, NULL);
	struct sigaction view_sa = {.sa_handler = on_view_signal,
				    .sa_flags = SA_RESTART};
	sigemptyset(&view_sa.sa_mask);
	struct sigaction old_winch, old_tstp, old_cont;
	sigaction(SIGWINCH, &view_sa, &old_winch);
	sigaction(SIGCONT, &view_sa, &old_cont);

	if (w->screen) {
		if (log_start(&w->log)) {
			w->screen = false;  /* plain lines rather than none */
		} else {
			int fd = fcntl(w->log.saved_out, F_DUPFD_CLOEXEC, 3);
			w->term.out = fd >= 0 ? fdopen(fd, "w") : NULL;
			if (!w->term.out) {
				if (fd >= 0)
					close(fd);
				log_stop(&w->log);
				w->screen = false;
			}
		}
	}
	bool tstp_installed = w->screen;
	if (tstp_installed)
		sigaction(SIGTSTP, &view_sa, &old_tstp);
	if (w->screen) {
		static char obuf[1 << 16];
		setvbuf(w->term.out, obuf, _IOFBF, sizeof(obuf));
		w->term.fd = fileno(w->term.out);
		w->term.have_termios = tcgetattr(w->term.fd,
						 &w->term.saved) == 0;
		w->stdin_keys = isatty(STDIN_FILENO);
		term_enter(&w->term);
	}

	w->started = now_monotonic();
	pthread_t th;
	int rc;
	int e = pthread_create(&th, NULL, rec_main, &rt);
	if (e) {
		error("cannot start the recorder thread: %s", strerror(e));
		rc = EXIT_RUNTIME;
	} else {
		view_loop(w, &rt, pipefd[0]);
		pthread_join(th, NULL);
		record_cli_handed_over(cli);
		rc = rt.rc;
		if (rc == EXIT_OK && cli->o.command &&
		    rt.res.command_status >= 0)
			rc = rt.res.command_status;
		/* The final state, as the recorder left the file. */
		if (atomic_load(&captured))
			watch_read(w, true);
	}

	if (w->screen) {
		term_leave(&w->term);
		fclose(w->term.out);
		log_stop(&w->log);
	}
	if (!e && w->have_f && w->f.samples > 0 && !w->out_failed) {
		struct watch_view v;
		fill_view(w, &v, true);
		w->out_failed = render_watch_line(stdout, &v) != 0;
	}
	sigaction(SIGWINCH, &old_winch, NULL);
	sigaction(SIGCONT, &old_cont, NULL);
	if (tstp_installed)
		sigaction(SIGTSTP, &old_tstp, NULL);
	wake_wr = -1;
	close(pipefd[0]);
	close(pipefd[1]);
	if (w->have_f)
		analysis_release(&w->f);
	if (w->have_data)
		dataset_release(&w->d);
	return rc;
}

int cmd_watch(int argc, char **argv)
{
	struct record_cli cli;
	int rc = record_cli_parse(argc, argv, "watch", &cli);
	if (rc != EXIT_OK)
		return rc == RECORD_CLI_HELP ? EXIT_OK : rc;
	/* The view replaces record's status line. */
	cli.o.status_line = false;
	struct watch w = {
		.cli = &cli,
		.screen = isatty(STDOUT_FILENO),
		.utf8 = cmd_locale_utf8(),
		.log = {.fd = -1, .saved_out = -1, .saved_err = -1},
		.components = true,
		.cost_s = NAN,
	};
	w.base_s = fmin(fmax(cli.o.interval_s, REFRESH_MIN_S),
			REFRESH_MAX_S);
	w.period_s = w.base_s;
	rc = watch_run(&w, &cli);
	record_cli_release(&cli);
	return rc;
}
