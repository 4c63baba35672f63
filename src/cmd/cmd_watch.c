/*
 * cmd_watch.c - `memtrend watch`: record exactly as `memtrend record`
 * does (same options, same file) and show a live view of the first
 * target: footprint and components, recent samples, the slope so far, the
 * verdict so far and how much longer to watch (render_watch.c draws it).
 *
 * Shape: the recorder (recorder_run(), a library) runs in a second
 * thread; this thread is the view. The view never reads the file while
 * recording: a sink of the recorder's (sink.h, feed_sink_ops) picks the
 * first root target's figures out of every frame (the sample, the
 * readings of the work counter, gauges and connections, the machine's
 * and the cgroup's limits), as watch --all's sink picks every target's,
 * and copies them into a buffer under a mutex; the view swaps it out
 * (a pointer swap under the mutex, so the recorder never waits for the
 * view) and appends them to its own live series (src/analysis/live.h).
 * Every refresh -- each interval, but at least every REFRESH_MAX_S and at
 * most every REFRESH_MIN_S -- drains the buffer, and when anything came
 * in, runs analysis_run() on a snapshot of the live series and draws.
 * With --append the file is read once, before the recorder starts, and
 * what it holds of the target is fed in first.
 *
 * Bounds on work: the live series keeps at most LIVE_POINTS points,
 * evenly thinned over the whole recording by stride doubling (one sample
 * in 1, 2, 4, ... is kept), plus the newest sample and the newest
 * LIVE_RECENT footprints (the sparkline). So memory is bounded whatever
 * the length, appending a sample is O(1) amortised, and one refresh is a
 * drain O(samples since the last), a snapshot O(LIVE_POINTS) and one
 * analysis of at most LIVE_POINTS + 1 points. Measured (bench_watch, a
 * 10^6-sample recording, best of 3, eight runs of debugoptimized and
 * release builds on a shared 2-core VM): old refresh (whole-file read +
 * analysis) 0.46-0.94 s, new 26-45 ms (the analysis's fixed costs
 * dominate: 20 ms at 1000 points); feeding a sample 16-30 ns. When a
 * refresh still takes more than 1/4 of the refresh interval, the view
 * refreshes less often (every 4 x the cost) and says so on screen.
 *
 * Honesty: the verdict shown is the real analysis (analysis_run()), of
 * the series so far; past LIVE_POINTS samples it is of the thinned
 * series, which spans the same time with fewer points, so its interval is
 * as wide or wider than the full recording's would be, and the refresh
 * line says "1 sample in N analysed". `memtrend report` reads every
 * sample. The title and plain lines count every sample.
 *
 * Signals: this thread (the view) takes SIGINT, SIGTERM and SIGHUP
 * (recording.c, as every command that records): each sets the stop the
 * recorder's should_stop() hook returns and writes a byte to the
 * recorder's wake pipe, which cuts its sleep short. The recorder thread
 * (recording_start()), and the threads it starts (the source thread), are
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
 * What it does not do: parse options (cli_record_parse(), shared with
 * record), sample or write the file (recorder.c: watch records exactly
 * what record would), compute figures of its own (analysis.c) or format
 * them (render_watch.c). Only the first target is shown -- but with
 * --all, whose first target is only the lowest pid, the view is a table
 * of every process instead: watch_all.c keeps their series (fed by the
 * recorder's sink, watch_all_sink()), render_watch_table.c draws it; the
 * terminal, the signals, the log and the refresh pacing stay here.
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
#include "recording.h"
#include "render.h"
#include "live.h"
#include "source.h"
#include "store.h"
#include "watch_all.h"

#define REFRESH_MIN_S 0.25        /* at most 4 refreshes a second */
#define REFRESH_MAX_S 2.0         /* at least one every 2 s */
#define STARTUP_POLL_S 0.02       /* until the recorder has started */
#define LOG_TAIL 4096             /* bytes looked at for the last line */
#define LOG_LINE 512

/* ---- signals ------------------------------------------------------------ */

/* A stop (SIGINT, SIGTERM, SIGHUP or 'q') is recording.c's: the
 * recorder's should_stop() returns it, the recorder's wake pipe cuts its
 * sleep short, the view's wakes the view. */
static volatile sig_atomic_t winch_flag, tstp_flag, cont_flag;
static int wake_wr = -1;          /* write end of the view's wake pipe */
static atomic_bool rec_started;   /* the recorder's first tick is done */

static void poke(int fd)
{
	if (fd >= 0) {
		ssize_t w = write(fd, "w", 1);
		(void)w;  /* a full pipe already wakes its reader */
	}
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

/* ---- the samples, from the recorder thread -------------------------------------
 *
 * The view's sink copies what the view needs of the first root target
 * (struct tick_ev) into `pending` under a mutex; the view swaps
 * the whole buffer out under the same mutex (O(1)) and works on it
 * unlocked. So the recorder waits at most for a pointer swap, never for
 * an analysis or a frame. The buffer holds what arrived since the last
 * refresh (REFRESH_MAX_S, or 4 x a slow refresh's cost): a few thousand
 * small entries at a 1 ms interval; its capacity is reused.
 */

/* A reading of the first target's for the view: a work counter or
 * gauge (source, its index in cli->o.sources) or, source -1, the
 * connection count. */
struct tick_reading {
	int source;
	double t, v;
};

struct tick_ev {
	double t;
	bool sampled;
	struct live_sample x;
	/* A new process (the first sample, a restart): owned strings. */
	bool new_inc;
	int64_t pid;
	unsigned long long start_ticks;
	double start_time;
	char *comm, *cmdline;
	struct tick_reading *readings; /* owned; NULL when none */
	size_t n_readings;
	bool sys_read;
	struct sys_mem sys;
	bool cgroup_read;
	double cgroup_limit;
	size_t target_rows;
};

struct ev_buf {
	struct tick_ev *ev;
	size_t n, cap;
};

static void ev_buf_clear(struct ev_buf *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->ev[i].comm);
		free(b->ev[i].cmdline);
		free(b->ev[i].readings);
	}
	b->n = 0;
}

/* What the recorder thread alone touches (the sink's state: the
 * recorder's ids of what the view follows), and the shared buffer. */
struct feed {
	pthread_mutex_t lock;
	struct ev_buf pending;     /* under lock */
	char *name;                /* under lock: the target's name, once */
	int64_t last_inc;          /* recorder thread only, from here */
	bool name_sent;
	int64_t target;            /* the first root target; 0 before */
	char *target_name;         /* its name, owned */
	size_t target_rows;        /* targets declared */
	int64_t conn_source;       /* its connection count's source id */
	int64_t cgroup;            /* its incarnation's memory cgroup */
	/* The work and gauge sources' ids, in cli->o.sources' order (the
	 * recorder declares them in that order). */
	int64_t *sources;
	size_t n_sources, cap_sources;
};

/* The recorder's events: the first root target, its sources and its
 * incarnations' cgroup, by the recorder's ids (sample.h). */
static void feed_event(void *ctx, const struct sample_event *e)
{
	struct feed *fd = ctx;
	switch (e->kind) {
	case SAMPLE_TARGET:
		fd->target_rows++;
		if (!fd->target && !e->u.target->parent) {
			fd->target = e->u.target->id;
			fd->target_name = xstrdup(e->u.target->name ?
						  e->u.target->name : "");
		}
		break;
	case SAMPLE_SOURCE:
		if (strcmp(e->u.source->role, "connections") == 0) {
			if (e->u.source->target == fd->target)
				fd->conn_source = e->u.source->id;
			break;
		}
		xgrow((void **)&fd->sources, &fd->cap_sources,
		      fd->n_sources + 1, sizeof(*fd->sources));
		fd->sources[fd->n_sources++] = e->u.source->id;
		break;
	case SAMPLE_INCARNATION:
		if (e->u.incarnation->target == fd->target)
			fd->cgroup = e->u.incarnation->cgroup;
		break;
	default:
		break;
	}
}

/* A tick's frame: what the view needs of the first root target, copied
 * into `pending` (the frame's pointers live for this call only). */
static void feed_frame(void *ctx, const struct sample_frame *f)
{
	struct feed *fd = ctx;
	if (f->last || !fd->target)
		return;
	struct tick_ev e = {.t = f->t, .target_rows = fd->target_rows};
	const struct sample_proc *p = NULL;
	for (size_t i = 0; i < f->n_procs && !p; i++)
		if (f->procs[i].target == fd->target)
			p = &f->procs[i];
	if (p) {
		const struct proc_mem *m = p->mem;
		e.sampled = true;
		watch_sample_of_mem(&e.x, f->t, m);
		e.x.comp[COMP_PAGETABLES] = m->pagetables;
		if (p->smaps) {
			e.x.comp[COMP_PSS] = p->smaps->pss;
			e.x.comp[COMP_PSS_ANON] = p->smaps->pss_anon;
			e.x.comp[COMP_PRIVATE_DIRTY] = p->smaps->private_dirty;
			e.x.comp[COMP_SWAP_PSS] = p->smaps->swap_pss;
		}
		/* As the store keeps them: whole bytes. */
		for (int c = 0; c < COMP_COUNT; c++)
			if (!isnan(e.x.comp[c]))
				e.x.comp[c] = (double)llround(e.x.comp[c]);
		if (p->inc != fd->last_inc && p->ident) {
			fd->last_inc = p->inc;
			e.new_inc = true;
			e.pid = p->ident->pid;
			e.start_ticks = p->ident->start_ticks;
			e.start_time = p->ident->start_time;
			e.comm = xstrdup(p->ident->comm);
			e.cmdline = p->ident->cmdline ?
				    xstrdup(p->ident->cmdline) : NULL;
		}
	}
	/* The readings of its sources, each with its own stamp (a source's
	 * reading belongs to the sample of that stamp, sample.h). */
	for (size_t i = 0; i < f->n_readings; i++) {
		const struct sample_reading *r = &f->readings[i];
		int k = -2;
		if (r->source == fd->conn_source)
			k = -1;
		for (size_t s = 0; k == -2 && s < fd->n_sources; s++)
			if (fd->sources[s] == r->source)
				k = (int)s;
		if (k == -2)
			continue;
		if (!e.readings)
			e.readings = xmalloc(f->n_readings *
					     sizeof(*e.readings));
		e.readings[e.n_readings++] = (struct tick_reading){
			k, r->t, r->value};
	}
	if (f->sys) {
		e.sys_read = true;
		e.sys = *f->sys;
	}
	for (size_t i = 0; i < f->n_cgroups; i++)
		if (fd->cgroup && f->cgroups[i].id == fd->cgroup) {
			e.cgroup_read = true;
			e.cgroup_limit = f->cgroups[i].mem.max;
		}
	char *name = !fd->name_sent ? xstrdup(fd->target_name) : NULL;
	fd->name_sent = true;
	pthread_mutex_lock(&fd->lock);
	if (name)
		fd->name = name;
	xgrow((void **)&fd->pending.ev, &fd->pending.cap,
	      fd->pending.n + 1, sizeof(*fd->pending.ev));
	fd->pending.ev[fd->pending.n++] = e;
	pthread_mutex_unlock(&fd->lock);
}

/* The view's sink (sink.h): never blocks (a mutex held for a copy). */
static const struct sink_ops feed_sink_ops = {
	.event = feed_event,
	.frame = feed_frame,
};

/* After every tick, either view: the first one wakes the view. */
static void rec_on_tick(void *ctx, const struct recorder_tick *tick)
{
	(void)ctx;
	(void)tick;
	if (!atomic_load(&rec_started)) {
		atomic_store(&rec_started, true);
		poke(wake_wr);
	}
}

/* ---- the series and the analysis so far ------------------------------------------ */

struct watch {
	const struct cli_record *cli;
	struct term term;
	bool screen;
	bool utf8;
	struct logcap log;
	double started;            /* monotonic */
	struct feed feed;
	struct ev_buf work;        /* the buffer being processed */
	/* Figures of sources i (cli->o.sources order): LIVE_REQUESTS or a
	 * gauge number; taken before the recorder owns the sources. */
	int *source_fig;
	size_t n_sources;
	bool conn_ports;
	struct live_series *live;  /* NULL before the first tick */
	uint64_t samples;          /* all samples of the target */
	size_t n_targets;
	/* --append: the file's target as it was at start, fed into the
	 * live series at the first tick (when its name is known). */
	struct dataset old;
	bool have_old;
	bool changed;              /* new samples or readings since the
				      last analysis */
	struct series an;          /* the snapshot analysed */
	bool have_an;
	struct target_findings f;
	bool have_f;
	double base_s, period_s, cost_s;
	bool stdin_keys;           /* read 'q' from stdin */
	bool out_failed;           /* the view's stream failed */
	/* --all: every process in a live table instead (watch_all.c). */
	struct watch_all *all;
};

/* --append: feed what the file holds of target s into the live series,
 * as the recorder would have; the figures as their readings. */
static void feed_old(struct watch *w, const struct series *s)
{
	struct live_series *l = w->live;
	size_t inc = SIZE_MAX;
	int *gauge = xcalloc(s->n_gauges ? s->n_gauges : 1, sizeof(int));
	for (size_t g = 0; g < s->n_gauges; g++) {
		gauge[g] = -1;
		for (size_t i = 0; i < w->n_sources; i++)
			if (w->source_fig[i] >= 0 &&
			    strcmp(s->gauges[g].name,
				   source_name(w->cli->o.sources[i])) == 0)
				gauge[g] = w->source_fig[i];
		if (gauge[g] < 0)
			gauge[g] = live_add_gauge(l, s->gauges[g].name);
	}
	if (s->requests)
		live_record_figure(l, LIVE_REQUESTS);
	if (s->connections)
		live_record_figure(l, LIVE_CONNECTIONS);
	for (size_t i = 0; i < s->n; i++) {
		while (inc == SIZE_MAX || inc < s->inc[i]) {
			inc = inc == SIZE_MAX ? 0 : inc + 1;
			const struct incarnation *in = &s->incs[inc];
			live_incarnation(l, in->pid, in->start_ticks,
					 in->start_time, in->comm,
					 in->cmdline);
		}
		struct live_sample x = {.t = s->t[i],
					.footprint = s->footprint[i]};
		for (int c = 0; c < COMP_COUNT; c++)
			x.comp[c] = s->comp[c] ? s->comp[c][i] : NAN;
		live_append(l, &x);
		if (s->requests)
			live_reading(l, LIVE_REQUESTS, s->t[i],
				     s->requests[i]);
		if (s->connections)
			live_reading(l, LIVE_CONNECTIONS, s->t[i],
				     s->connections[i]);
		for (size_t g = 0; g < s->n_gauges; g++)
			if (s->gauges[g].v)
				live_reading(l, gauge[g], s->t[i],
					     s->gauges[g].v[i]);
	}
	free(gauge);
	live_set_limits(l, s->cgroup_limit, s->mem_total, s->swap_total,
			s->swap_free_last, s->mem_available_last);
	w->samples = live_count(l);
}

static void live_start(struct watch *w, const char *name)
{
	w->live = live_new(name, LIVE_POINTS);
	live_set_quantum(w->live, (double)sysconf(_SC_PAGESIZE), true);
	for (size_t i = 0; i < w->n_sources; i++)
		if (w->source_fig[i] == LIVE_REQUESTS)
			live_record_figure(w->live, LIVE_REQUESTS);
		else
			w->source_fig[i] = live_add_gauge(w->live,
				source_name(w->cli->o.sources[i]));
	if (w->conn_ports)
		live_record_figure(w->live, LIVE_CONNECTIONS);
	if (!w->have_old)
		return;
	/* The recording's target of that name (not a child or a tree:
	 * theirs are decorated, store.h). */
	for (size_t i = 0; i < w->old.n_targets; i++)
		if (strcmp(w->old.targets[i].name, name) == 0) {
			feed_old(w, &w->old.targets[i]);
			break;
		}
	w->n_targets = w->old.n_targets;
	dataset_release(&w->old);
	w->have_old = false;
}

/* Take what the recorder sent since the last call into the live series.
 * Returns the number of new samples. */
static uint64_t watch_drain(struct watch *w)
{
	pthread_mutex_lock(&w->feed.lock);
	struct ev_buf b = w->feed.pending;
	w->feed.pending = w->work;  /* emptied: its capacity is reused */
	char *name = w->feed.name;
	pthread_mutex_unlock(&w->feed.lock);
	w->work = b;
	if (!w->live && name)
		live_start(w, name);
	uint64_t before = w->samples;
	for (size_t i = 0; w->live && i < b.n; i++) {
		const struct tick_ev *e = &b.ev[i];
		struct live_series *l = w->live;
		if (e->new_inc) {
			/* --append continues the file's last incarnation
			 * when it is the same process (store.h). */
			if (!live_last_incarnation_is(l, e->pid,
						      e->start_ticks))
				live_incarnation(l, e->pid, e->start_ticks,
						 e->start_time, e->comm,
						 e->cmdline);
		}
		if (e->sampled) {
			live_append(l, &e->x);
			w->samples++;
		}
		for (size_t k = 0; k < e->n_readings; k++) {
			const struct tick_reading *r = &e->readings[k];
			if (r->source < 0)
				live_reading(l, LIVE_CONNECTIONS, r->t, r->v);
			else if ((size_t)r->source < w->n_sources)
				live_reading(l, w->source_fig[r->source],
					     r->t, r->v);
		}
		if (e->sys_read)
			live_set_machine(l, e->sys.mem_total,
					 e->sys.swap_total, e->sys.swap_free,
					 e->sys.mem_available);
		if (e->cgroup_read)
			live_set_cgroup_limit(l, e->cgroup_limit);
		if (e->target_rows > w->n_targets)
			w->n_targets = e->target_rows;
		w->changed = true;
	}
	ev_buf_clear(&w->work);
	return w->samples - before;
}

/* Analyse the series so far when it changed (or when forced): a
 * snapshot of the live series (bounded: LIVE_POINTS) and analysis_run()
 * on it. */
static void watch_analyse(struct watch *w, bool force)
{
	if (!w->live || (!w->changed && !force && w->have_f))
		return;
	double t0 = now_monotonic();
	struct series an;
	live_snapshot(w->live, &an);
	struct target_findings f;
	struct analysis_options ao;
	analysis_options_init(&ao);
	ao.work_is_counter = w->cli->work_is_counter;
	analysis_run(&an, &ao, &f);
	if (w->have_f)
		analysis_release(&w->f);
	if (w->have_an)
		series_release(&w->an);
	w->an = an;
	w->have_an = true;
	w->f = f;
	w->f.series = &w->an;  /* the findings point into the copy kept */
	w->have_f = true;
	w->changed = false;
	w->cost_s = now_monotonic() - t0;
	/* Over a quarter of the refresh interval: refresh less often. */
	w->period_s = fmax(w->base_s, 4 * w->cost_s);
}

/* One refresh's work: the new samples, then the analysis. Returns the
 * number of new samples. */
static uint64_t watch_refresh(struct watch *w, bool force)
{
	double t0 = now_monotonic();
	if (w->all) {
		/* The targets in turn, a quarter of the refresh interval at
		 * most (one at least), each at most every 2 s or 2
		 * intervals, as the exporter does: with many processes a
		 * round spans several refreshes, the recorder never waits. */
		struct analysis_options ao;
		analysis_options_init(&ao);
		ao.work_is_counter = w->cli->work_is_counter;
		uint64_t n = watch_all_refresh(w->all, &ao,
			force ? 0 : fmax(2.0, 2 * w->cli->o.interval_s),
			force ? 2.0 : w->base_s / 4);
		w->samples += n;
		w->cost_s = now_monotonic() - t0;
		w->period_s = fmax(w->base_s, 4 * w->cost_s);
		return n;
	}
	uint64_t n = watch_drain(w);
	double drain = now_monotonic() - t0;
	bool analysed = w->changed || force || !w->have_f;
	watch_analyse(w, force);
	if (analysed && w->have_f)
		w->cost_s += drain;
	return n;
}

static void fill_view(struct watch *w, struct watch_view *v, bool ended)
{
	memset(v, 0, sizeof(*v));
	v->output = w->cli->o.output;
	v->interval_s = w->cli->o.interval_s;
	v->elapsed_s = now_monotonic() - w->started;
	if (w->have_an) {
		v->s = &w->an;
		v->n_targets = w->n_targets ? w->n_targets : 1;
		v->samples = w->samples;
		v->recent = live_recent(w->live, &v->n_recent);
		v->stride = live_stride(w->live);
	}
	v->f = w->have_f ? &w->f : NULL;
	v->components_read = true;
	v->stopping = recording_stop() != 0;
	v->ended = ended;
	v->refresh_s = w->period_s;
	v->refresh_cost_s = w->have_f ? w->cost_s : NAN;
	v->slowed = w->period_s > w->base_s * 1.001;
	v->utf8 = w->utf8;
	v->last_log = w->screen ? w->log.last : NULL;
}

/* --all: the table's frame. top: rows wanted (0: all). */
static void fill_table(struct watch *w, struct watch_table_view *v,
		       bool ended, size_t top)
{
	memset(v, 0, sizeof(*v));
	v->output = w->cli->o.output;
	v->interval_s = w->cli->o.interval_s;
	v->elapsed_s = now_monotonic() - w->started;
	v->stopping = recording_stop() != 0;
	v->ended = ended;
	v->refresh_s = w->period_s;
	v->refresh_cost_s = w->cost_s;
	v->utf8 = w->utf8;
	v->last_log = w->screen ? w->log.last : NULL;
	watch_all_fill(w->all, v, top);
}

/* Rows of the plain table: --top, else WATCH_PLAIN_TOP. */
#define WATCH_PLAIN_TOP 20

static void draw(struct watch *w)
{
	if (!w->screen || w->out_failed || !w->term.active)
		return;
	if (w->all) {
		struct watch_table_view v;
		log_last_line(&w->log);
		int cols, rows;
		term_size(&w->term, &cols, &rows);
		/* the rows that fit: the renderer cuts what does not */
		size_t fit = rows > 4 ? (size_t)rows - 4 : 1;
		fill_table(w, &v, false, w->cli->top && w->cli->top < fit ?
			   w->cli->top : fit);
		v.cols = cols;
		v.rows_term = rows;
		if (render_watch_table_screen(w->term.out, &v))
			w->out_failed = true;
		return;
	}
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
	if (w->all) {
		struct watch_table_view v;
		fill_table(w, &v, ended, w->cli->top ? w->cli->top :
			   WATCH_PLAIN_TOP);
		if (render_watch_table_lines(stdout, &v)) {
			w->out_failed = true;
			if (!ended)
				recording_request_stop(SIGTERM);
		}
		return;
	}
	struct watch_view v;
	fill_view(w, &v, ended);
	if (render_watch_line(stdout, &v)) {
		/* A closed pipe (| head): stop recording as SIGTERM would. */
		w->out_failed = true;
		if (!ended)
			recording_request_stop(SIGTERM);
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
			recording_request_stop(SIGTERM);
}

/* Ctrl-Z: give the terminal back, stop, take it again on fg. */
static void suspend(struct watch *w)
{
	term_leave(&w->term);
	fflush(w->term.out);
	kill(getpid(), SIGSTOP);
	term_enter(&w->term);
}

static void view_loop(struct watch *w, struct recording *rt, int wake_rd)
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
			uint64_t r = watch_refresh(w, false);
			if (r > 0 && !w->screen &&
			    ((w->have_f && w->samples > 0) || w->all))
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

static int watch_run(struct watch *w, struct cli_record *cli)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		error("cannot create a pipe: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	wake_wr = pipefd[1];

	int recpipe[2];
	if (pipe2(recpipe, O_CLOEXEC | O_NONBLOCK)) {
		error("cannot create a pipe: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		wake_wr = -1;
		return EXIT_RUNTIME;
	}
	atomic_store(&rec_started, false);

	/* Signals: the view takes the stops (recording.c: they set the stop
	 * and wake the recorder through its pipe, the view through its own)
	 * and the terminal's signals; the recorder thread, and the threads
	 * it starts, block them all. SIGPIPE is blocked everywhere: a closed
	 * stdout is an error to handle, not a death. */
	static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct recording_signals stops;
	recording_signals_install(&stops, recpipe[1], pipefd[1]);
	sigset_t pipe_set, rec_set;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	sigemptyset(&rec_set);
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(&rec_set, stop_sigs[i]);
	sigaddset(&rec_set, SIGWINCH);
	sigaddset(&rec_set, SIGTSTP);
	sigaddset(&rec_set, SIGCONT);
	struct sink sinks[1];
	size_t n_sinks = 0;
	if (w->all)
		sinks[n_sinks++] = watch_all_sink(w->all);
	else
		sinks[n_sinks++] = (struct sink){&feed_sink_ops, &w->feed};
	struct recording rt = {
		.o = &cli->o, .sinks = sinks, .n_sinks = n_sinks,
		.hooks = {.should_stop = recording_should_stop,
			  .on_tick = rec_on_tick,
			  .wake_fd = recpipe[0]},
		.done_fd = pipefd[1],
	};
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
	int rc;
	/* The recorder thread is born with rec_set blocked. */
	int e = recording_start(&rt, &rec_set);
	if (e) {
		rc = EXIT_RUNTIME;
	} else {
		view_loop(w, &rt, pipefd[0]);
		recording_join(&rt);
		cli_record_handed_over(cli);
		rc = rt.rc;
		if (rc == EXIT_OK && cli->o.command &&
		    rt.res.command_status >= 0 && !rt.res.duration_ended)
			rc = rt.res.command_status;
		/* The final state: everything the recorder sent. */
		if (atomic_load(&rec_started))
			watch_refresh(w, true);
	}

	if (w->screen) {
		term_leave(&w->term);
		fclose(w->term.out);
		log_stop(&w->log);
	}
	if (!e && w->all && !w->out_failed) {
		plain_line(w, true);
	} else if (!e && w->have_f && w->samples > 0 && !w->out_failed) {
		struct watch_view v;
		fill_view(w, &v, true);
		w->out_failed = render_watch_line(stdout, &v) != 0;
	}
	sigaction(SIGWINCH, &old_winch, NULL);
	sigaction(SIGCONT, &old_cont, NULL);
	if (tstp_installed)
		sigaction(SIGTSTP, &old_tstp, NULL);
	recording_signals_restore(&stops);
	wake_wr = -1;
	close(pipefd[0]);
	close(pipefd[1]);
	close(recpipe[0]);
	close(recpipe[1]);
	if (w->have_f)
		analysis_release(&w->f);
	if (w->have_an)
		series_release(&w->an);
	live_free(w->live);
	watch_all_free(w->all);
	if (w->have_old)
		dataset_release(&w->old);
	pthread_mutex_lock(&w->feed.lock);
	ev_buf_clear(&w->feed.pending);
	free(w->feed.pending.ev);
	free(w->feed.name);
	free(w->feed.target_name);
	free(w->feed.sources);
	pthread_mutex_unlock(&w->feed.lock);
	pthread_mutex_destroy(&w->feed.lock);
	ev_buf_clear(&w->work);
	free(w->work.ev);
	free(w->source_fig);
	return rc;
}

int cmd_watch(int argc, char **argv)
{
	struct cli_record cli;
	int rc = cli_record_parse(argc, argv, "watch", &cli);
	if (rc != EXIT_OK)
		return rc == CLI_RECORD_HELP ? EXIT_OK : rc;
	if (cli.listen) {
		error("watch: --listen serves a recording's figures; use "
		      "'memtrend record --listen' (watch shows them itself)");
		cli_record_release(&cli);
		return EXIT_USAGE;
	}
	struct watch w = {
		.cli = &cli,
		.screen = isatty(STDOUT_FILENO),
		.utf8 = cli_locale_utf8(),
		.log = {.fd = -1, .saved_out = -1, .saved_err = -1},
		.cost_s = NAN,
	};
	w.base_s = fmin(fmax(cli.o.interval_s, REFRESH_MIN_S),
			REFRESH_MAX_S);
	w.period_s = w.base_s;
	pthread_mutex_init(&w.feed.lock, NULL);
	w.feed.last_inc = -1;
	/* The sources' roles and names, before the recorder owns them. */
	w.n_sources = cli.o.n_sources;
	w.source_fig = xcalloc(w.n_sources ? w.n_sources : 1, sizeof(int));
	for (size_t i = 0; i < w.n_sources; i++)
		w.source_fig[i] = source_role(cli.o.sources[i]) ==
				  SOURCE_WORK ? LIVE_REQUESTS : 0;
	w.conn_ports = cli.o.n_conn_ports > 0;
	if (cli.o.all)
		w.all = watch_all_new();
	/* --append: what the file holds already, read once (the single
	 * target's view: the table of --all starts from what it sees). */
	if (!cli.o.all && cli.o.append &&
	    store_is_recording(cli.o.output)) {
		struct store_read_options ro = {.components = true};
		if (store_read_dataset(cli.o.output, &ro, &w.old) == 0)
			w.have_old = true;
	}
	rc = watch_run(&w, &cli);
	cli_record_release(&cli);
	return rc;
}
