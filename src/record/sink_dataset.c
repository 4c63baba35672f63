/*
 * sink_dataset.c - a recording kept in memory as a dataset
 * (sink_dataset.h).
 *
 * The recorder's ids are dense (1 up), so its targets and incarnations
 * are found through arrays indexed by id: O(1) a sample. Readings are kept
 * per source as they come and attached once, at the end, by the file
 * reader's rules (model/readings.h), so that a judgement from memory and
 * one from the file agree. record --sites' sites are kept as the file
 * keeps them (store_read.c): a row when a site's value changes, the
 * shim's latest figures per target, so that `check` can name them.
 */
#include "sink_dataset.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "readings.h"
#include "sites_region.h"

/* A source's readings (model/readings.h: the file reader's rules) and
 * the target they belong to. */
struct kept_source {
	int64_t target;            /* the recorder's; 0: every target */
	struct readings r;
};

struct target_ref {
	size_t index;              /* in the dataset */
	int64_t parent;            /* the recorder's id of its parent; 0 */
};

struct inc_ref {
	size_t target;             /* index in the dataset */
	uint32_t inc;              /* index in its series */
};

/* A recorder site id's place: its series and its index there; target
 * SIZE_MAX: an incarnation never declared (not kept). */
struct site_ref {
	size_t target, index;
	double last;               /* the value last kept; NAN: none */
};

struct sink_dataset {
	struct dataset d;
	bool taken;
	struct target_ref *targets; /* [recorder id] */
	size_t n_ids, cap_targets; /* ids 1..n_ids declared */
	struct inc_ref *incs;      /* [recorder id] */
	size_t cap_incs;
	struct kept_source *sources; /* [recorder id - 1] */
	size_t n_sources, cap_sources;
	struct site_ref *sites;    /* [recorder id]; ids 1..n_sites */
	size_t n_sites, cap_sites;
};

/* SAMPLE_SITE: the frames copied into the incarnation's series. */
static void keep_site(struct sink_dataset *s, int64_t inc,
		      const struct sample_site *x)
{
	if (x->id <= 0)
		return;
	size_t id = (size_t)x->id;
	xgrow((void **)&s->sites, &s->cap_sites, id + 1, sizeof(*s->sites));
	for (size_t k = s->n_sites + 1; k <= id; k++)
		s->sites[k] = (struct site_ref){SIZE_MAX, 0, NAN};
	if (id > s->n_sites)
		s->n_sites = id;
	if (inc <= 0 || (size_t)inc >= s->cap_incs)
		return;
	const struct inc_ref *r = &s->incs[inc];
	struct series_site_frame fr[SITES_MAX_DEPTH];
	size_t n = x->n_frames < SITES_MAX_DEPTH ? x->n_frames :
		   SITES_MAX_DEPTH;
	for (size_t k = 0; k < n; k++) {
		const struct sample_site_frame *f = &x->frames[k];
		/* series_add_site() copies the strings */
		fr[k] = (struct series_site_frame){
			f->address, f->offset, (char *)f->module,
			(char *)f->build_id, (char *)f->function,
			(char *)f->file, f->line};
	}
	s->sites[id] = (struct site_ref){
		r->target, series_add_site(&s->d.targets[r->target], x->id,
					   r->inc, fr, n), NAN};
}

static int sd_begin(void *ctx, const struct sink_run *run)
{
	struct sink_dataset *s = ctx;
	s->d.interval_s = run->interval_s;
	return 0;
}

static void sd_event(void *ctx, const struct sample_event *e)
{
	struct sink_dataset *s = ctx;
	switch (e->kind) {
	case SAMPLE_TARGET: {
		const struct sample_target *x = e->u.target;
		char buf[512];
		const char *fmt = !strcmp(x->kind, "child") ? "%s (child)" :
				  !strcmp(x->kind, "tree") ?
				  "%s (with children)" :
				  !strcmp(x->kind, "group") ? "%s (group)" :
				  "%s";
		snprintf(buf, sizeof(buf), fmt, x->name ? x->name : "?");
		size_t id = (size_t)x->id;
		assert(id == s->n_ids + 1);  /* dense, in order (sample.h) */
		xgrow((void **)&s->targets, &s->cap_targets, id + 1,
		      sizeof(*s->targets));
		s->targets[id] = (struct target_ref){s->d.n_targets,
						     x->parent};
		s->n_ids = id;
		struct series *se = dataset_add_target(&s->d, buf);
		se->group = !strcmp(x->kind, "group");
		se->quantum = (double)sysconf(_SC_PAGESIZE);
		se->quantum_exact = se->quantum > 0;
		break;
	}
	case SAMPLE_INCARNATION: {
		const struct sample_incarnation *x = e->u.incarnation;
		const struct proc_identity *id = x->ident;
		assert(x->target > 0 && (size_t)x->target <= s->n_ids);
		size_t ti = s->targets[x->target].index;
		xgrow((void **)&s->incs, &s->cap_incs, (size_t)x->id + 1,
		      sizeof(*s->incs));
		s->incs[x->id] = (struct inc_ref){ti,
			series_add_incarnation(&s->d.targets[ti], id->pid,
					       id->start_ticks,
					       id->start_time, id->comm,
					       id->cmdline)};
		break;
	}
	case SAMPLE_SOURCE: {
		const struct sample_source *x = e->u.source;
		assert((size_t)x->id == s->n_sources + 1);
		xgrow((void **)&s->sources, &s->cap_sources,
		      s->n_sources + 1, sizeof(*s->sources));
		struct kept_source *k = &s->sources[s->n_sources++];
		readings_init(&k->r, x->role, x->name);
		k->target = x->target;
		break;
	}
	case SAMPLE_NOTE:
		dataset_add_note(&s->d, e->u.text);
		break;
	case SAMPLE_SITE:
		keep_site(s, e->inc, e->u.site);
		break;
	case SAMPLE_SITE_STATS: {
		if (e->inc <= 0 || (size_t)e->inc >= s->cap_incs)
			break;
		const struct inc_ref *r = &s->incs[e->inc];
		const struct sample_site_stats *x = e->u.site_stats;
		s->d.targets[r->target].site_stats = (struct series_site_stats){
			.recorded = true, .inc = r->inc, .rate = x->rate,
			.depth = x->depth, .sampled = x->sampled,
			.dropped_sites = x->dropped_sites,
			.dropped_live = x->dropped_live,
			.backtrace_s = x->backtrace_s};
		break;
	}
	default:
		break;
	}
}

static void sd_frame(void *ctx, const struct sample_frame *f)
{
	struct sink_dataset *s = ctx;
	for (size_t i = 0; i < f->n_procs; i++) {
		const struct sample_proc *p = &f->procs[i];
		assert(p->inc > 0 && (size_t)p->inc < s->cap_incs);
		const struct inc_ref *r = &s->incs[p->inc];
		struct series *se = &s->d.targets[r->target];
		if (se->n && f->t < se->t[se->n - 1])
			continue;  /* as the reader: time order kept */
		double fp = p->mem->footprint;
		/* as the store keeps it: whole bytes */
		series_append(se, f->t, isnan(fp) ? NAN : (double)llround(fp),
			      r->inc);
	}
	for (size_t i = 0; i < f->n_sites; i++) {
		const struct sample_site_value *v = &f->sites[i];
		if (v->site <= 0 || (size_t)v->site > s->n_sites)
			continue;
		struct site_ref *r = &s->sites[v->site];
		if (r->target == SIZE_MAX || r->last == v->live)
			continue;
		struct series_site *x = &s->d.targets[r->target].sites[r->index];
		if (x->n && f->t < x->t[x->n - 1])
			continue;  /* as the reader: time order kept */
		r->last = v->live;
		series_site_add_row(x, f->t, v->live, v->var);
	}
	for (size_t i = 0; i < f->n_readings; i++) {
		const struct sample_reading *x = &f->readings[i];
		assert(x->source > 0 && (size_t)x->source <= s->n_sources);
		readings_add(&s->sources[x->source - 1].r, x->t, x->value);
	}
}

void sink_dataset_take(struct sink_dataset *s, struct dataset *out)
{
	assert(!s->taken);
	s->taken = true;
	for (size_t k = 0; k < s->n_sources; k++) {
		struct kept_source *src = &s->sources[k];
		for (size_t id = 1; id <= s->n_ids; id++) {
			const struct target_ref *t = &s->targets[id];
			if (!src->target || src->target == (int64_t)id ||
			    src->target == t->parent)
				readings_attach(&src->r, &s->d.targets[t->index]);
		}
	}
	*out = s->d;
	memset(&s->d, 0, sizeof(s->d));
}

static const struct sink_ops dataset_ops = {
	.begin = sd_begin,
	.event = sd_event,
	.frame = sd_frame,
};

struct sink_dataset *sink_dataset_new(const char *source)
{
	struct sink_dataset *s = xcalloc(1, sizeof(*s));
	dataset_init(&s->d, source);
	return s;
}

struct sink sink_dataset_sink(struct sink_dataset *s)
{
	return (struct sink){&dataset_ops, s};
}

void sink_dataset_free(struct sink_dataset *s)
{
	if (!s)
		return;
	if (!s->taken)
		dataset_release(&s->d);
	for (size_t k = 0; k < s->n_sources; k++)
		readings_release(&s->sources[k].r);
	free(s->sources);
	free(s->targets);
	free(s->incs);
	free(s->sites);
	free(s);
}
