/*
 * watch_all.c - every process's live series for `memtrend watch --all`
 * (watch_all.h). As the recorder's sink, its thread appends one small
 * event per target of each frame (and one per target that ends) to
 * `pending` under a mutex; the
 * view thread swaps the whole buffer out (a pointer swap, so the
 * recorder never waits for an analysis or a frame), feeds the events to
 * its live table, and analyses in turn what is due.
 *
 * Why the samples come through the sink and not a first target's: with
 * --all there is no first target when the recorder starts (the processes
 * are found by its first scan), and the first root is only the lowest
 * pid; watch used to wait for it and showed "waiting for samples" for the
 * whole run while the file filled with every process. The machine's
 * figures come with the frames too (when they were read).
 *
 * What it does not do: draw (render_watch_table.c), rank (rank.c through
 * live_table.c), or handle the terminal or signals (cmd_watch.c).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "live_table.h"
#include "watch_all.h"

struct all_ev {
	int64_t id;
	bool end;                  /* the target ended: no sample */
	bool group;                /* a --group-by sum */
	struct live_sample x;
	/* each NVML device's total and used memory (all processes), for
	 * the device's pool; NAN where the target has none on it */
	double gpu_total[SERIES_GPU_DEVICES], gpu_used[SERIES_GPU_DEVICES];
	int64_t pid;
	unsigned long long start_ticks;
	double start_time;
	char *name, *comm;         /* owned */
};

struct all_buf {
	struct all_ev *ev;
	size_t n, cap;
};

struct watch_all {
	pthread_mutex_t lock;
	struct all_buf pending;    /* under lock */
	bool sys_read;             /* under lock: sys is new */
	struct sys_mem sys;        /* under lock */
	/* The view thread's alone. */
	struct all_buf work;
	struct live_table *table;
	size_t analysed;
	struct live_table_row *rows;
	size_t rows_cap;
};

static void buf_clear(struct all_buf *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->ev[i].name);
		free(b->ev[i].comm);
	}
	b->n = 0;
}

struct watch_all *watch_all_new(void)
{
	struct watch_all *wa = xcalloc(1, sizeof(*wa));
	pthread_mutex_init(&wa->lock, NULL);
	wa->table = live_table_new(WATCH_ALL_POINTS,
				   (double)sysconf(_SC_PAGESIZE));
	return wa;
}

void watch_all_free(struct watch_all *wa)
{
	if (!wa)
		return;
	buf_clear(&wa->pending);
	free(wa->pending.ev);
	buf_clear(&wa->work);
	free(wa->work.ev);
	pthread_mutex_destroy(&wa->lock);
	live_table_free(wa->table);
	free(wa->rows);
	free(wa);
}

/* Add e to the pending buffer (the recorder thread). */
static void push(struct watch_all *wa, const struct all_ev *e)
{
	pthread_mutex_lock(&wa->lock);
	xgrow((void **)&wa->pending.ev, &wa->pending.cap, wa->pending.n + 1,
	      sizeof(*wa->pending.ev));
	wa->pending.ev[wa->pending.n++] = *e;
	pthread_mutex_unlock(&wa->lock);
}

void watch_sample_of_mem(struct live_sample *x, double t,
			 const struct proc_mem *m)
{
	x->t = t;
	/* As the store keeps it: whole bytes. */
	x->footprint = isnan(m->footprint) ? NAN :
		       (double)llround(m->footprint);
	for (int c = 0; c < COMP_COUNT; c++)
		x->comp[c] = NAN;
	x->comp[COMP_RSS] = m->rss;
	x->comp[COMP_ANON] = m->anon;
	x->comp[COMP_FILE] = m->file;
	x->comp[COMP_SHMEM] = m->shmem;
	x->comp[COMP_SWAP] = m->swap;
	x->comp[COMP_GPU] = m->gpu;
}

/* One target's sample of the frame, as an event for the view. */
static void sample_push(struct watch_all *wa, const struct sample_proc *s,
			double t)
{
	const struct proc_mem *m = s->mem;
	struct all_ev e = {.id = s->target, .pid = -1,
			   .start_time = NAN,
			   .group = s->kind && strcmp(s->kind, "group") == 0};
	watch_sample_of_mem(&e.x, t, m);
	/* Issue 28: GPU memory by device, each a pool with its own limit,
	 * as the exporter and the report see it */
	for (unsigned d = 0; d < SERIES_GPU_DEVICES; d++) {
		e.x.comp[COMP_GPU0 + d] = m->gpu_dev[d];
		e.gpu_total[d] = m->gpu_total[d];
		e.gpu_used[d] = m->gpu_used[d];
	}
	if (s->ident) {
		e.pid = s->ident->pid;
		e.start_ticks = s->ident->start_ticks;
		e.start_time = s->ident->start_time;
		e.comm = xstrdup(s->ident->comm);
	}
	e.name = xstrdup(s->name ? s->name : "");
	push(wa, &e);
}

static void sink_frame(void *ctx, const struct sample_frame *f)
{
	struct watch_all *wa = ctx;
	if (f->sys) {
		pthread_mutex_lock(&wa->lock);
		wa->sys = *f->sys;
		wa->sys_read = true;
		pthread_mutex_unlock(&wa->lock);
	}
	for (size_t i = 0; i < f->n_procs; i++)
		if (!f->procs[i].child)
			sample_push(ctx, &f->procs[i], f->t);
}

static void sink_target_end(void *ctx, int64_t target_id, double t,
			    bool final)
{
	(void)t;
	(void)final;
	struct all_ev e = {.id = target_id, .end = true};
	push(ctx, &e);
}

static const struct sink_ops watch_all_sink_ops = {
	.frame = sink_frame,
	.target_end = sink_target_end,
};

struct sink watch_all_sink(struct watch_all *wa)
{
	return (struct sink){&watch_all_sink_ops, wa};
}

uint64_t watch_all_refresh(struct watch_all *wa,
			   const struct analysis_options *o, double min_gap_s,
			   double budget_s)
{
	pthread_mutex_lock(&wa->lock);
	struct all_buf b = wa->pending;
	wa->pending = wa->work;    /* emptied: its capacity is reused */
	bool sys_read = wa->sys_read;
	struct sys_mem sys = wa->sys;
	wa->sys_read = false;
	pthread_mutex_unlock(&wa->lock);
	wa->work = b;
	if (sys_read)
		live_table_set_machine(wa->table, sys.mem_total,
				       sys.swap_total, sys.swap_free,
				       sys.mem_available);
	uint64_t n = 0;
	for (size_t i = 0; i < b.n; i++) {
		const struct all_ev *e = &b.ev[i];
		if (e->end) {
			live_table_end(wa->table, e->id);
			continue;
		}
		live_table_sample(wa->table, e->id, e->name, e->pid,
				  e->start_ticks, e->start_time, e->comm,
				  &e->x);
		if (e->group)
			live_table_mark_group(wa->table, e->id);
		for (unsigned d = 0; d < SERIES_GPU_DEVICES; d++)
			if (!isnan(e->x.comp[COMP_GPU0 + d]))
				live_table_gpu_limit(wa->table, e->id, d,
						     e->gpu_total[d],
						     e->gpu_used[d]);
		n++;
	}
	buf_clear(&wa->work);
	wa->analysed = live_table_analyse(wa->table, o, min_gap_s, budget_s);
	return n;
}

size_t watch_all_analysed(const struct watch_all *wa)
{
	return wa->analysed;
}

void watch_all_fill(struct watch_all *wa, struct watch_table_view *v,
		    size_t top)
{
	size_t n = live_table_count(wa->table);
	size_t want = top && top < n ? top : n;
	xgrow((void **)&wa->rows, &wa->rows_cap, want ? want : 1,
	      sizeof(*wa->rows));
	v->n_targets = n;
	v->samples = live_table_samples(wa->table);
	v->n_rows = live_table_ranked(wa->table, wa->rows, want);
	v->rows = wa->rows;
	v->analysed = wa->analysed;
}
