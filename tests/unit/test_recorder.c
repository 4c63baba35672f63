/*
 * test_recorder.c - recorder_run() (src/record/recorder.h) over a fixture
 * /proc, with counting sinks (sink.h) in place of the store: what reaches
 * the sinks at each tick, and in what order.
 *
 * The fixture tree (tests/fixtures/proc-v2, sys-v2) is copied to a
 * temporary folder, so that a test can end a process: truncating its
 * status file is what the probe reads as gone (an empty read, the kept fd
 * still open), as a process that exited between two ticks.
 *
 * Checked: one frame per tick, each with every live target's sample (by
 * the recorder's ids, declared before their first frame); targets'
 * incarnations begun and ended; --all's ended process told with
 * target_end (final); a run that fails to start ends its sinks with
 * recorded false and no frame; two sinks get the same stream. The
 * recorder's own asserts on its state run under all of it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "probe.h"
#include "recorder.h"
#include "sampler.h"
#include "sink_set.h"
#include "series.h"
#include "sink.h"
#include "sink_dataset.h"
#include "sink_store.h"
#include "source.h"
#include "store.h"

#define MAX_IDS 64
#define MAX_FRAMES 64

/* A sink that counts and checks what it is given. */
struct counting {
	int begins, ends;
	bool recorded;
	int events[SAMPLE_META + 1];
	bool target_known[MAX_IDS];
	bool inc_open[MAX_IDS];
	int64_t last_target, last_inc;
	int frames;                    /* but the last */
	int last_frames;
	size_t procs[MAX_FRAMES];      /* per frame */
	size_t children[MAX_FRAMES];   /* per frame: --children's */
	double footprint[MAX_FRAMES][MAX_IDS]; /* [frame][target] */
	int sys_frames;
	int target_ends;
	int64_t ended[MAX_IDS];
	bool ended_final[MAX_IDS];
	char end_reason[MAX_IDS][32];  /* [inc] */
	/* the test's action: after this frame, truncate this status */
	int end_after_frame;
	const char *end_status;
	int stop_after_frames;
	/* the test's action: when the target of this spec is declared
	 * (--all: after the scan listed it, before it is opened), remove
	 * this process's folder */
	const char *vanish_spec, *vanish_dir;
	/* sources: the last declared; readings of it, each stamped at or
	 * before its frame's tick; readings in the closing frame */
	int64_t source_id, source_target;
	char source_role[16];
	int readings, readings_finite, last_readings;
	double reading;
};

static int c_begin(void *ctx, const struct sink_run *run)
{
	struct counting *c = ctx;
	assert_true(run->interval_s > 0);
	assert_int_equal(c->begins, 0);
	c->begins++;
	return 0;
}

static void c_event(void *ctx, const struct sample_event *e)
{
	struct counting *c = ctx;
	assert_int_equal(c->begins, 1);
	assert_int_equal(c->ends, 0);
	c->events[e->kind]++;
	switch (e->kind) {
	case SAMPLE_TARGET:
		/* ids 1 up, in order, a parent declared before */
		assert_int_equal(e->u.target->id, c->last_target + 1);
		assert_true(e->u.target->parent == 0 ||
			    c->target_known[e->u.target->parent]);
		c->last_target = e->u.target->id;
		assert_true(c->last_target < MAX_IDS);
		c->target_known[c->last_target] = true;
		if (c->vanish_spec &&
		    strcmp(e->u.target->spec, c->vanish_spec) == 0) {
			char cmd[512];
			snprintf(cmd, sizeof(cmd), "rm -r '%s'", c->vanish_dir);
			assert_int_equal(system(cmd), 0);
		}
		break;
	case SAMPLE_INCARNATION:
		assert_int_equal(e->u.incarnation->id, c->last_inc + 1);
		assert_int_equal(e->inc, e->u.incarnation->id);
		assert_true(c->target_known[e->u.incarnation->target]);
		assert_non_null(e->u.incarnation->ident);
		c->last_inc = e->u.incarnation->id;
		assert_true(c->last_inc < MAX_IDS);
		c->inc_open[c->last_inc] = true;
		break;
	case SAMPLE_SOURCE:
		c->source_id = e->u.source->id;
		c->source_target = e->u.source->target;
		snprintf(c->source_role, sizeof(c->source_role), "%s",
			 e->u.source->role);
		break;
	case SAMPLE_INCARNATION_END:
		assert_true(e->inc > 0 && e->inc < MAX_IDS);
		assert_true(c->inc_open[e->inc]);
		c->inc_open[e->inc] = false;
		snprintf(c->end_reason[e->inc], sizeof(c->end_reason[0]),
			 "%s", e->u.text);
		break;
	default:
		break;
	}
}

static void c_frame(void *ctx, const struct sample_frame *f)
{
	struct counting *c = ctx;
	assert_int_equal(c->begins, 1);
	for (size_t i = 0; i < f->n_readings; i++) {
		const struct sample_reading *r = &f->readings[i];
		assert_true(r->source > 0 && r->source <= c->source_id);
		assert_true(r->t <= f->t);
		if (f->last)
			c->last_readings++;
		c->readings++;
		if (!isnan(r->value)) {
			c->readings_finite++;
			c->reading = r->value;
		}
	}
	if (f->last) {
		assert_int_equal(f->n_procs, 0);
		c->last_frames++;
		return;
	}
	assert_int_equal(c->last_frames, 0);
	assert_true(c->frames < MAX_FRAMES);
	c->procs[c->frames] = f->n_procs;
	for (size_t i = 0; i < MAX_IDS; i++)
		c->footprint[c->frames][i] = NAN;
	for (size_t i = 0; i < f->n_procs; i++) {
		const struct sample_proc *p = &f->procs[i];
		assert_true(p->target > 0 && p->target < MAX_IDS);
		assert_true(c->target_known[p->target]);
		assert_true(c->inc_open[p->inc]);
		assert_non_null(p->mem);
		assert_non_null(p->ident);
		c->footprint[c->frames][p->target] = p->mem->footprint;
		if (p->child)
			c->children[c->frames]++;
	}
	if (f->sys)
		c->sys_frames++;
	c->frames++;
	if (c->frames == c->end_after_frame && c->end_status) {
		int fd = open(c->end_status, O_WRONLY | O_TRUNC);
		assert_true(fd >= 0);
		close(fd);
	}
}

static void c_target_end(void *ctx, int64_t target, double t, bool final)
{
	struct counting *c = ctx;
	(void)t;
	assert_true(c->target_known[target]);
	assert_true(c->target_ends < MAX_IDS);
	c->ended_final[c->target_ends] = final;
	c->ended[c->target_ends++] = target;
}

static int c_end(void *ctx, double t, bool recorded)
{
	struct counting *c = ctx;
	(void)t;
	assert_int_equal(c->ends, 0);
	c->ends++;
	c->recorded = recorded;
	return 0;
}

static const struct sink_ops counting_ops = {
	c_begin, c_event, c_frame, c_target_end, c_end,
};

static int stop_after(void *ctx)
{
	const struct counting *c = ctx;
	return c->frames >= c->stop_after_frames;
}

static char root[256];

/* A copy of the fixture tree in a temporary folder (root/proc, root/sys). */
static int setup(void **state)
{
	(void)state;
	const char *fx = getenv("FIXTURES");
	if (!fx)
		fx = "tests/fixtures";
	snprintf(root, sizeof(root), "/tmp/test_recorder.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp -r '%s/proc-v2' '%s/proc' && "
		 "cp -r '%s/sys-v2' '%s/sys'", fx, root, fx, root);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct recorder_options options(void)
{
	static char proc[300], sys[300];
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	return (struct recorder_options){
		.interval_s = 0.01, .duration_s = NAN,
		.smaps_interval_s = 60, .no_gpu = true,
		.commit_interval_s = 1, .rescan_s = 3600,
		.max_targets = 100, .proc_root = proc, .sys_root = sys,
	};
}

static int run(const struct recorder_options *o, struct counting *c,
	       size_t n_sinks)
{
	struct probe *p = probe_new(o->proc_root, o->sys_root);
	assert_non_null(p);
	struct sink sinks[2];
	for (size_t i = 0; i < n_sinks; i++)
		sinks[i] = (struct sink){&counting_ops, &c[i]};
	struct recorder_hooks hooks = {.ctx = c, .should_stop = stop_after,
				       .wake_fd = -1};
	struct recorder_result res;
	int rc = recorder_run(o, p, sinks, n_sinks, &hooks, &res);
	probe_free(p);
	return rc;
}

/* Footprint of a fixture process: RssAnon + VmSwap + RssShmem, kB. */
#define FP_2001 ((4194304.0 + 48576.0) * 1024)
#define FP_2002 (1024.0 * 1024)

/* Two -p targets, five ticks: five frames of two samples each, then the
 * last; every incarnation ended with the recording. Two sinks get the
 * same. */
static void test_frames_per_tick(void **state)
{
	(void)state;
	struct recorder_options o = options();
	pid_t pids[] = {2001, 2002};
	o.pids = pids;
	o.n_pids = 2;
	struct counting c[2] = {{.stop_after_frames = 5},
				{.stop_after_frames = 5}};
	assert_int_equal(run(&o, c, 2), EXIT_OK);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(c[k].begins, 1);
		assert_int_equal(c[k].ends, 1);
		assert_true(c[k].recorded);
		assert_int_equal(c[k].frames, 5);
		assert_int_equal(c[k].last_frames, 1);
		assert_int_equal(c[k].events[SAMPLE_TARGET], 2);
		assert_int_equal(c[k].events[SAMPLE_INCARNATION], 2);
		assert_int_equal(c[k].events[SAMPLE_INCARNATION_END], 2);
		assert_int_equal(c[k].target_ends, 0);
		/* the machine's figures at most once a second: the first */
		assert_int_equal(c[k].sys_frames, 1);
		for (int f = 0; f < 5; f++) {
			assert_int_equal(c[k].procs[f], 2);
			assert_float_equal(c[k].footprint[f][1], FP_2001, 0);
			assert_float_equal(c[k].footprint[f][2], FP_2002, 0);
		}
		assert_string_equal(c[k].end_reason[1], "recording ended");
		assert_string_equal(c[k].end_reason[2], "recording ended");
	}
}

/* A -p target that exits after the second tick: its incarnation ends
 * ("exited") and it leaves the frames; the other goes on. */
static void test_target_exits(void **state)
{
	(void)state;
	struct recorder_options o = options();
	pid_t pids[] = {2001, 2002};
	o.pids = pids;
	o.n_pids = 2;
	char status[320];
	snprintf(status, sizeof(status), "%s/proc/2002/status", root);
	struct counting c = {.stop_after_frames = 5, .end_after_frame = 2,
			     .end_status = status};
	assert_int_equal(run(&o, &c, 1), EXIT_OK);
	assert_int_equal(c.frames, 5);
	assert_int_equal(c.procs[0], 2);
	assert_int_equal(c.procs[1], 2);
	for (int f = 2; f < 5; f++) {
		assert_int_equal(c.procs[f], 1);
		assert_float_equal(c.footprint[f][1], FP_2001, 0);
		assert_true(isnan(c.footprint[f][2]));
	}
	assert_string_equal(c.end_reason[2], "exited");
	assert_string_equal(c.end_reason[1], "recording ended");
	assert_int_equal(c.target_ends, 0);  /* -p's target stays */
}

/* --all: every process with memory (not kthreadd, not the test itself)
 * is a target of its own; one that ends is told with target_end, final,
 * after the frame of the tick that found it gone. */
static void test_all_target_end(void **state)
{
	(void)state;
	struct recorder_options o = options();
	o.all = true;
	char status[320];
	snprintf(status, sizeof(status), "%s/proc/2003/status", root);
	struct counting c = {.stop_after_frames = 4, .end_after_frame = 1,
			     .end_status = status};
	assert_int_equal(run(&o, &c, 1), EXIT_OK);
	/* 2001-2004: kthreadd (pid 2) has no command line */
	assert_int_equal(c.events[SAMPLE_TARGET], 4);
	assert_int_equal(c.frames, 4);
	assert_int_equal(c.procs[0], 4);
	for (int f = 1; f < 4; f++)
		assert_int_equal(c.procs[f], 3);
	assert_int_equal(c.target_ends, 1);
	assert_true(c.ended_final[0]);
	/* targets in pid order: 2003 is the third */
	assert_int_equal(c.ended[0], 3);
	assert_float_equal(c.footprint[0][3], 4096.0 * 1024, 0);
	assert_true(isnan(c.footprint[1][3]));
}

/* --all: a process that ends between the scan that lists it and its
 * open is declared (the scan's target) and ended at once, final, with
 * no incarnation and no sample; the others are followed. */
static void test_all_vanish_before_open(void **state)
{
	(void)state;
	struct recorder_options o = options();
	o.all = true;
	char dir[320];
	snprintf(dir, sizeof(dir), "%s/proc/2002", root);
	struct counting c = {.stop_after_frames = 3, .vanish_spec = "2002",
			     .vanish_dir = dir};
	assert_int_equal(run(&o, &c, 1), EXIT_OK);
	assert_int_equal(c.events[SAMPLE_TARGET], 4);
	assert_int_equal(c.events[SAMPLE_INCARNATION], 3);
	assert_int_equal(c.target_ends, 1);
	assert_int_equal(c.ended[0], 2);   /* 2002's target, the second */
	assert_true(c.ended_final[0]);
	for (int f = 0; f < 3; f++) {
		assert_int_equal(c.procs[f], 3);
		assert_true(isnan(c.footprint[f][2]));
		assert_float_equal(c.footprint[f][1], FP_2001, 0);
	}
}

/* --children: each tree's sum is a target of its own, in the frame with
 * its root and its descendants (fixture 2002 is 2001's child: the sum is
 * both footprints). A child is marked so, for the live views to skip. */
static void test_tree_sum(void **state)
{
	(void)state;
	struct recorder_options o = options();
	pid_t pids[] = {2001};
	o.pids = pids;
	o.n_pids = 1;
	o.children = true;
	struct counting c = {.stop_after_frames = 3};
	assert_int_equal(run(&o, &c, 1), EXIT_OK);
	/* the pid (1), its tree (2), the child (3) */
	assert_int_equal(c.events[SAMPLE_TARGET], 3);
	assert_int_equal(c.events[SAMPLE_INCARNATION], 3);
	for (int f = 0; f < 3; f++) {
		assert_int_equal(c.procs[f], 3);
		assert_int_equal(c.children[f], 1);
		assert_float_equal(c.footprint[f][1], FP_2001, 0);
		assert_float_equal(c.footprint[f][2], FP_2001 + FP_2002, 0);
		assert_float_equal(c.footprint[f][3], FP_2002, 0);
	}
	/* the child's target ends with its process: here the recording */
	assert_int_equal(c.target_ends, 1);
	assert_int_equal(c.ended[0], 3);
	assert_true(c.ended_final[0]);
}

/* The dataset sink (what `check` judges) holds what the store's reader
 * gives back from the file written beside it in the same run: targets,
 * names, points (stamp, footprint, incarnation) and the work counter's
 * readings attached to the same points. */
static void test_dataset_matches_file(void **state)
{
	(void)state;
	struct recorder_options o = options();
	pid_t pids[] = {2001};
	o.pids = pids;
	o.n_pids = 1;
	o.children = true;
	/* a work counter: the seconds, so that it grows */
	struct source *src = source_new_command(SOURCE_WORK, "requests",
						"date +%s%N");
	assert_non_null(src);
	struct source *sources[] = {src};
	o.sources = sources;
	o.n_sources = 1;
	o.source_timeout_s = 5;
	char path[320];
	snprintf(path, sizeof(path), "%s/run.db", root);
	struct sink_store *file = sink_store_new(path, false, 1, NAN);
	struct sink_dataset *live = sink_dataset_new("check");
	assert_non_null(file);
	struct counting c = {.stop_after_frames = 8};
	struct sink sinks[] = {sink_store_sink(file), sink_dataset_sink(live),
			       {&counting_ops, &c}};
	struct probe *p = probe_new(o.proc_root, o.sys_root);
	struct recorder_hooks hooks = {.ctx = &c, .should_stop = stop_after,
				       .wake_fd = -1};
	struct recorder_result res;
	assert_int_equal(recorder_run(&o, p, sinks, 3, &hooks, &res),
			 EXIT_OK);
	probe_free(p);
	sink_store_free(file);
	struct dataset mem, disk;
	sink_dataset_take(live, &mem);
	sink_dataset_free(live);
	struct store_read_options ro = {0};
	assert_int_equal(store_read_dataset(path, &ro, &disk), 0);
	assert_int_equal(mem.n_targets, disk.n_targets);
	assert_int_equal(mem.n_targets, 3);
	size_t with_work = 0;
	for (size_t i = 0; i < mem.n_targets; i++) {
		const struct series *a = &mem.targets[i], *b = &disk.targets[i];
		assert_string_equal(a->name, b->name);
		assert_int_equal(a->n, b->n);
		assert_int_equal(a->n, 8);
		assert_int_equal(a->n_incs, b->n_incs);
		assert_true(a->quantum == b->quantum);
		assert_true((a->requests != NULL) == (b->requests != NULL));
		for (size_t k = 0; k < a->n; k++) {
			assert_float_equal(a->t[k], b->t[k], 1e-6);
			assert_true(a->footprint[k] == b->footprint[k]);
			assert_int_equal(a->inc[k], b->inc[k]);
			if (!a->requests)
				continue;
			assert_true(a->requests[k] == b->requests[k] ||
				    (isnan(a->requests[k]) &&
				     isnan(b->requests[k])));
			with_work += !isnan(a->requests[k]);
		}
	}
	assert_true(with_work > 0);
	assert_string_equal(mem.targets[1].name, "llama-server (with children)");
	dataset_release(&mem);
	dataset_release(&disk);
}

/* The work sources are a sampler (sampler.h): a gauge of -p's target is
 * declared to the sinks under that target, its readings come in the
 * frames, stamped at or before their tick, and its last is collected
 * into the closing frame. */
static void test_sources_sampler(void **state)
{
	(void)state;
	struct recorder_options o = options();
	pid_t pids[] = {2001, 2002};
	o.pids = pids;
	o.n_pids = 2;
	struct source *src = source_new_command(SOURCE_GAUGE, "queue",
						"echo 7");
	assert_non_null(src);
	struct source *sources[] = {src};
	static const size_t roots[] = {1};
	o.sources = sources;
	o.n_sources = 1;
	o.source_roots = roots;
	o.source_timeout_s = 5;
	struct counting c = {.stop_after_frames = 6};
	assert_int_equal(run(&o, &c, 1), EXIT_OK);
	assert_int_equal(c.events[SAMPLE_SOURCE], 1);
	assert_string_equal(c.source_role, "gauge");
	assert_int_equal(c.source_target, 2);   /* -p 2002's target */
	/* one reading per tick (asked for, or a gap while one is in
	 * flight), and the one in flight at the end */
	assert_true(c.readings >= c.frames);
	assert_true(c.readings_finite > 0);
	assert_true(c.reading == 7);
	assert_int_equal(c.last_frames, 1);
}

/* A sources sampler that never starts (the run failed before) frees
 * the sources it was given (ASan's leak check holds it). */
static void test_sources_sampler_unstarted(void **state)
{
	(void)state;
	struct source *src = source_new_command(SOURCE_WORK, "requests",
						"echo 1");
	assert_non_null(src);
	struct sampler s = sources_sampler(&src, 1, NULL, 0, 1);
	assert_non_null(s.ops->start);
	assert_null(s.ops->open);
	assert_false(s.ops->busy(s.ctx));
	s.ops->free(s.ctx);
}

/* ---- the process sampler (sampler_proc.c) through sampler.h ---------- */

static struct probe *fixture_probe(void)
{
	char proc[300], sys[300];
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	struct probe *p = probe_new(proc, sys);
	assert_non_null(p);
	return p;
}

/* Run a shell command on the copy of the fixture tree (root/proc). */
static void fixture_sh(const char *fmt, const char *arg)
{
	char sh[1024], cmd[1400];
	snprintf(sh, sizeof(sh), fmt, arg);
	snprintf(cmd, sizeof(cmd), "cd '%s/proc' && %s", root, sh);
	assert_int_equal(system(cmd), 0);
}

static size_t list(const struct sampler *s, const struct sampler_query *q,
		   pid_t *pids, size_t max)
{
	struct sampler_list l = {0};
	assert_int_equal(s->ops->list(s->ctx, q, &l), 0);
	assert_true(l.n <= max);
	for (size_t i = 0; i < l.n; i++)
		pids[i] = l.found[i].id.pid;
	size_t n = l.n;
	sampler_list_release(&l);
	return n;
}

/* list(): --all's scan (kthreadd left out: no command line; skip's
 * pids not read), -p's one, --children's descendants, memtrend's
 * ancestors (a parent that cannot be read ends the chain), --name's
 * matches oldest first, never memtrend's own reapers (children of
 * exclude[0]). */
static void test_proc_sampler_list(void **state)
{
	(void)state;
	struct probe *p = fixture_probe();
	struct sampler s = proc_sampler(p, false, 60, false);
	assert_non_null(s.ops->list);
	assert_null(s.ops->start);  /* not a reader apart from processes */
	pid_t got[8];

	struct sampler_query q = {.scope = SAMPLER_ALL, .cgroup_paths = true};
	struct sampler_list l = {0};
	assert_int_equal(s.ops->list(s.ctx, &q, &l), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.found[0].id.pid, 2001);
	assert_string_equal(l.found[0].id.comm, "llama-server");
	assert_string_equal(l.found[0].id.cmdline,
			    "/opt/llama/llama-server -m /models/m.gguf "
			    "--port 8000");
	assert_string_equal(l.found[0].cgroup_path,
			    "/system.slice/llama.service");
	assert_int_equal(l.found[3].id.pid, 2004);
	assert_int_equal(l.denied, 0);
	sampler_list_release(&l);

	pid_t skip[] = {2002, 2004};
	q = (struct sampler_query){.scope = SAMPLER_ALL, .skip = skip,
				   .n_skip = 2};
	assert_int_equal(list(&s, &q, got, 8), 2);
	assert_int_equal(got[0], 2001);
	assert_int_equal(got[1], 2003);

	q = (struct sampler_query){.scope = SAMPLER_ONE, .pid = 2002};
	assert_int_equal(list(&s, &q, got, 8), 1);
	assert_int_equal(got[0], 2002);
	q.pid = 999999;
	assert_int_equal(list(&s, &q, got, 8), 0);

	q = (struct sampler_query){.scope = SAMPLER_DESCENDANTS, .pid = 2001};
	assert_int_equal(list(&s, &q, got, 8), 1);
	assert_int_equal(got[0], 2002);
	pid_t kid[] = {2002};
	q.skip = kid;
	q.n_skip = 1;
	assert_int_equal(list(&s, &q, got, 8), 0);

	q = (struct sampler_query){.scope = SAMPLER_ANCESTORS, .pid = 2002};
	assert_int_equal(list(&s, &q, got, 8), 3);
	assert_int_equal(got[0], 2002);
	assert_int_equal(got[1], 2001);
	assert_int_equal(got[2], 1);  /* not in the fixture: the end */

	regex_t re;
	assert_int_equal(regcomp(&re, "bash|llama", REG_EXTENDED | REG_NOSUB),
			 0);
	q = (struct sampler_query){.scope = SAMPLER_NAME, .re = &re};
	assert_int_equal(list(&s, &q, got, 8), 2);
	assert_int_equal(got[0], 2001);  /* started first */
	assert_int_equal(got[1], 2002);
	pid_t self[] = {2001};           /* 2002 is its child: a reaper */
	q.exclude = self;
	q.n_exclude = 1;
	assert_int_equal(list(&s, &q, got, 8), 0);
	regfree(&re);

	s.ops->free(s.ctx);
	probe_free(p);
}

/* A process that ends between the list that found it and its open is
 * not followed (open NULL); one that ends after is found gone by read
 * (SAMPLER_GONE), the recorder's cue to end its incarnation. A pid
 * reused between list and open is the new process, its own identity
 * read, not the list's. */
static void test_proc_sampler_vanish(void **state)
{
	(void)state;
	struct probe *p = fixture_probe();
	struct sampler s = proc_sampler(p, false, 60, false);
	struct sampler_query q = {.scope = SAMPLER_ALL};
	struct sampler_list l = {0};
	assert_int_equal(s.ops->list(s.ctx, &q, &l), 0);
	assert_int_equal(l.n, 4);
	const struct sampler_found *f2001 = &l.found[0], *f2003 = &l.found[2],
				   *f2004 = &l.found[3];
	assert_int_equal(f2003->id.pid, 2003);

	fixture_sh("rm -r %s", "2003");
	assert_null(s.ops->open(s.ctx, 2003, &f2003->id));

	/* 2001 reused by a process started later, its command line another */
	fixture_sh("sed -i 's/ 360000 / 390000 /' %s/stat && "
		   "printf 'next\\0' > 2001/cmdline", "2001");
	void *reused = s.ops->open(s.ctx, 2001, &f2001->id);
	assert_non_null(reused);
	const struct proc_identity *id = s.ops->identity(s.ctx, reused);
	assert_int_equal(id->start_ticks, 390000);
	assert_string_equal(id->cmdline, "next");

	void *proc = s.ops->open(s.ctx, 2004, &f2004->id);
	assert_non_null(proc);
	assert_int_equal(s.ops->identity(s.ctx, proc)->pid, 2004);
	struct sampler_figures fig;
	struct sink_set none = {NULL, 0};
	assert_int_equal(s.ops->read(s.ctx, proc, &none, 1, 0, 0, &fig),
			 SAMPLER_OK);
	assert_true(fig.mem.footprint > 0);
	fixture_sh(": > %s/status", "2004");
	assert_int_equal(s.ops->read(s.ctx, proc, &none, 1, 0, 1, &fig),
			 SAMPLER_GONE);
	s.ops->close(s.ctx, proc);
	s.ops->close(s.ctx, reused);
	sampler_list_release(&l);
	s.ops->free(s.ctx);
	probe_free(p);
}

/* A figure that cannot be read is absent (NAN), not a failure of the
 * sample: status without RssShmem and VmSwap (an old kernel) gives a
 * footprint of RssAnon alone; smaps_rollup missing (no ptrace access)
 * leaves the status figures read and smaps_read false. */
static void test_proc_sampler_absent_figure(void **state)
{
	(void)state;
	fixture_sh("sed -i -E '/^(RssShmem|VmSwap)/d' %s/status && "
		   "rm 2001/smaps_rollup", "2002");
	struct probe *p = fixture_probe();
	struct sampler s = proc_sampler(p, true, 0, false);
	struct sink_set none = {NULL, 0};
	struct sampler_figures fig;

	void *proc = s.ops->open(s.ctx, 2002, NULL);
	assert_non_null(proc);
	assert_int_equal(s.ops->read(s.ctx, proc, &none, 1, 0, 0, &fig),
			 SAMPLER_OK);
	assert_true(isnan(fig.mem.shmem));
	assert_true(isnan(fig.mem.swap));
	assert_float_equal(fig.mem.anon, 1024.0 * 1024, 0);
	assert_float_equal(fig.mem.footprint, 1024.0 * 1024, 0);
	s.ops->close(s.ctx, proc);

	proc = s.ops->open(s.ctx, 2001, NULL);
	assert_non_null(proc);
	assert_int_equal(s.ops->read(s.ctx, proc, &none, 1, 0, 0, &fig),
			 SAMPLER_OK);
	assert_false(fig.smaps_read);
	assert_float_equal(fig.mem.footprint, FP_2001, 0);
	s.ops->close(s.ctx, proc);
	s.ops->free(s.ctx);
	probe_free(p);
}

/* No such process: EXIT_USAGE before any tick; the sinks were begun and
 * are ended with recorded false (a new file would be removed). */
static void test_setup_fails(void **state)
{
	(void)state;
	struct recorder_options o = options();
	pid_t pids[] = {2001, 999999};
	o.pids = pids;
	o.n_pids = 2;
	struct counting c = {.stop_after_frames = 5};
	assert_int_equal(run(&o, &c, 1), EXIT_USAGE);
	assert_int_equal(c.begins, 1);
	assert_int_equal(c.ends, 1);
	assert_false(c.recorded);
	assert_int_equal(c.frames, 0);
	assert_int_equal(c.last_frames, 0);
}

int main(void)
{
	diag_set_quiet(true);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_frames_per_tick, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_target_exits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_all_target_end, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tree_sum, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_all_vanish_before_open,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dataset_matches_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sources_sampler, setup,
						teardown),
		cmocka_unit_test(test_sources_sampler_unstarted),
		cmocka_unit_test_setup_teardown(test_proc_sampler_list,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_sampler_vanish,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_sampler_absent_figure,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
