/*
 * cmd_watch.c - `memtrend watch`: record exactly as `memtrend record`
 * does (same options, same file) and show a live view of the first
 * target: footprint and components, recent samples, the slope so far, the
 * verdict so far and how much longer to watch (render_watch.c draws it).
 *
 * Shape: the recorder (recorder_run(), a library) runs in a second
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
 * Signals: this thread (the view) takes SIGINT, SIGTERM and SIGHUP: each
 * sets the stop the recorder's should_stop() hook returns and writes a
 * byte to the recorder's wake pipe, which cuts its sleep short. The
 * recorder thread, and the threads it starts (the source thread), are
 * born with those and SIGWINCH, SIGTSTP and SIGCONT blocked (its children
 * reset their masks), so every signal lands here. The recorder installs
 * no handler of its own (recorder.h).
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

/* A stop (SIGINT, SIGTERM, SIGHUP or 'q'): the recorder's should_stop()
 * returns it; the recorder's wake pipe cuts its sleep short. */
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t winch_flag, tstp_flag, cont_flag;
static int wake_wr = -1;          /* write end of the view's wake pipe */
static int rec_wake_wr = -1;      /* write end of the recorder's */
static atomic_bool rec_started;   /* the recorder's first tick is done */

static void poke(int fd)
{
	if (fd >= 0) {
		ssize_t w = write(fd, "w", 1);
		(void)w;  /* a full pipe already wakes its reader */
	}
}

/* Ask the recorder to stop (from a handler or the view). Async-signal-
 * safe: a store and two writes. */
static void request_stop(int sig)
{
	stop_sig = sig;
	poke(rec_wake_wr);
	poke(wake_wr);
}

static void on_stop_signal(int sig)
{
	int saved = errno;
	request_stop(sig);
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
	poke(wake_wr);
	errno = saved;
}

static int rec_should_stop(void *ctx)
{
	(void)ctx;
	return stop_sig;
}

static void rec_on_tick(void *ctx, const struct recorder_tick *tick)
{
	(void)ctx;
	(void)tick;
	if (!atomic_load(&rec_started)) {
		atomic_store(&rec_started, true);
		poke(wake_wr);
	}
}

/* ---- the recorder thread -------------------------------------------------- */

struct rec_thread {
	const struct recorder_options *o;
	struct recorder_hooks hooks;
	struct recorder_result res;
	int rc;
	atomic_bool done;
	int wake_fd;
};

static void *rec_main(void *arg)
{
	struct rec_thread *rt = arg;
	rt->rc = recorder_run(rt->o, &rt->hooks, &rt->res);
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
	v->stopping = stop_sig != 0;
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
		bool started = atomic_load(&rec_started);
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

	int recpipe[2];
	if (pipe2(recpipe, O_CLOEXEC | O_NONBLOCK)) {
		error("cannot create a pipe: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		wake_wr = -1;
		return EXIT_RUNTIME;
	}
	rec_wake_wr = recpipe[1];
	stop_sig = 0;
	atomic_store(&rec_started, false);

	/* Signals: the view takes the stops (they set stop_sig and wake the
	 * recorder through its pipe) and the terminal's signals; the
	 * recorder thread, and the threads it starts, block them all.
	 * SIGPIPE is blocked everywhere: a closed stdout is an error to
	 * handle, not a death. */
	static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction stop_sa = {.sa_handler = on_stop_signal};
	sigemptyset(&stop_sa.sa_mask);
	struct sigaction old_stop[ARRAY_SIZE(stop_sigs)];
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &stop_sa, &old_stop[i]);
	sigset_t pipe_set, rec_set, view_mask;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	sigemptyset(&rec_set);
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(&rec_set, stop_sigs[i]);
	sigaddset(&rec_set, SIGWINCH);
	sigaddset(&rec_set, SIGTSTP);
	sigaddset(&rec_set, SIGCONT);
	struct rec_thread rt = {
		.o = &cli->o,
		.hooks = {.should_stop = rec_should_stop,
			  .on_tick = rec_on_tick,
			  .wake_fd = recpipe[0]},
		.wake_fd = pipefd[1],
	};
	atomic_init(&rt.done, false);
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
	/* The recorder thread is born with rec_set blocked. */
	pthread_sigmask(SIG_BLOCK, &rec_set, &view_mask);
	int e = pthread_create(&th, NULL, rec_main, &rt);
	pthread_sigmask(SIG_SETMASK, &view_mask, NULL);
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
		if (atomic_load(&rec_started))
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
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &old_stop[i], NULL);
	wake_wr = -1;
	rec_wake_wr = -1;
	close(pipefd[0]);
	close(pipefd[1]);
	close(recpipe[0]);
	close(recpipe[1]);
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
