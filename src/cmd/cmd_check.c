/*
 * cmd_check.c - `memtrend check`: a CI gate. Starts (or attaches to) the
 * service with record's target and work options, runs the --load command
 * once the service is sampled, records memory and the work counter until
 * the load ends (or --requests / --duration after the warm-up), then
 * judges each target's slope after the warm-up against the budget
 * (gate.h) and says pass, fail or inconclusive (render_gate.c). Exit 0
 * pass, 1 fail or inconclusive (0 with --allow-inconclusive), 2 usage, 3
 * when the run itself failed: the load command failed, the service died,
 * the recording could not be written. docs/check.md has the rule.
 *
 * What it does not do: parse record's options itself (they are handed to
 * cli_record_parse(), so they mean exactly what they mean for record) or
 * compute statistics (gate.c). The recording goes to -o FILE when given
 * (for `report --html`), else to a temporary folder removed at the end.
 */
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cli_options.h"
#include "common.h"
#include "gate.h"
#include "idle.h"
#include "reaper.h"
#include "recorder.h"
#include "recording.h"
#include "render.h"
#include "sink_dataset.h"
#include "target.h"
#include "units.h"


#define CHECK_DEFAULT_INTERVAL "1s"
/* How long check waits for a first sample of the service (a --name that
 * matches nothing yet) before it gives up: a gate must end, not hang
 * until the CI job's own timeout. */
#define CHECK_TARGET_WAIT_S 30
/* How long the load waits for the work counter's first reading (a
 * service still starting): the requests are counted from a reading taken
 * before the load, unless the counter has not answered by then (one that
 * shows only after the first request). */
#define CHECK_COUNTER_WAIT_S 10
/* After the load ends, how many ticks wait for a reading of the counter
 * asked for after it (a reading still in flight, a slow counter). */
#define CHECK_FINAL_TICKS 3

static const struct cli_command check_command = {
	.name = "check",
	.usage =
"usage: memtrend check (--max-per-request SIZE | --max-growth RATE)\n"
"         --load 'CMD' [--warmup N|DUR] [--requests N | --duration DUR]\n"
"         [options] (-p PID | --name REGEX | -- SERVICE ARGS...)\n"
"\n"
"A CI gate on memory growth: run the load against the service, record its\n"
"memory and work, leave the warm-up out, and judge the slope's 95 %\n"
"interval against the budget: pass when it lies below, fail when above,\n"
"inconclusive (with how many more requests would decide) otherwise.\n",
	.options = check_options,
	.notes =
"\n"
"What check starts (the service, the load) ends with all it started, also\n"
"what left its process group (setsid), on every way out: the run's end, an\n"
"error, SIGINT, SIGTERM or SIGHUP to check, kill -9 of check (SIGTERM, then\n"
"SIGKILL after 2 s). A service given by -p or --name is never stopped.\n"
"\n"
"SIZE: 1KiB, 512 (bytes). RATE: SIZE/h, SIZE/min. DUR: 30s, 5m, 250ms.\n"
"Exit codes: 0 pass, 1 fail or inconclusive, 2 usage or bad input,\n"
"3 the run failed (the load command failed, the service died).\n",
};

/* ---- the run --------------------------------------------------------- */

enum check_stop { STOP_NONE, STOP_LOAD_DONE, STOP_REQUESTS, STOP_DURATION,
		  STOP_NO_TARGET };

struct check_run {
	const char *load;
	double warmup_s, warmup_requests;   /* 0: none */
	double requests;                    /* --requests; 0: none */
	double duration_s;                  /* --duration; 0: none */
	bool has_work;                      /* sources[0] is the counter */
	pid_t load_pid;                     /* 0: not started; -1: could
					       not start */
	struct reaper load_reaper;          /* what the load starts ends
					       with it */
	bool load_reaped;                   /* its end was heard */
	int load_status;                    /* its wait status; -1 unknown */
	int spawn_errno;
	double t_load;                      /* when the load started */
	double t_sampled;                   /* elapsed_s of the first
					       sample; NAN: none yet */
	bool counter_noted;
	/* The load ended (reaped at wall time t_done): one more reading of
	 * the counter, asked for after that, before the stop, so that every
	 * request of the load is counted. */
	bool final_pending;
	double t_done;
	int final_ticks;
	bool woken;                         /* the sleep was cut short for it */
	bool ticked;                        /* on_tick ran since the last
					       should_stop */
	double w_start, w_last;             /* counter readings; NAN */
	bool warm;                          /* the warm-up is over */
	double t_warm, w_warm;
	enum check_stop stop;
	const char *name_regex;             /* --name, or NULL */
	bool wait_noted;
	/* What the check sink (check_sink_ops) saw of the latest frame, for
	 * on_tick right after it, in the recorder's thread: the first root
	 * target's and its work counter's ids (the recorder's, sample.h),
	 * whether the target was sampled, and the counter's reading the
	 * source thread finished (stamped before the frame's tick). */
	int64_t target, work_source;
	bool sampled, work_read;
	double work;
};

/* The signal that stopped the run (recording.c keeps it), 0 none. */
static int check_signal(void)
{
	return recording_stop() & ~RECORDER_STOP_SEEN;
}

/* The load under a reaper (reaper.h), in its own process group: ending
 * it ends what it started too (a shell loop's curl, a helper that called
 * setsid), also when check is killed with kill -9. */
static void load_start(struct check_run *c, double t)
{
	char *argv[] = {"sh", "-c", (char *)c->load, NULL};
	struct reaper_spec spec = {
		.file = "/bin/sh", .argv = argv, .own_group = true,
		.stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1,
		.grace_s = RECORDER_KILL_GRACE_S,
	};
	int e = reaper_spawn(&spec, &c->load_reaper);
	c->t_load = t;
	if (e) {
		c->spawn_errno = e;
		c->load_pid = -1;
		c->stop = STOP_LOAD_DONE;
		return;
	}
	c->load_pid = c->load_reaper.child;
}

/* The check's sink (sink.h): the ids of the first root target and of
 * the work counter (sources[0], the first work or gauge source the
 * recorder declares), then at each frame whether that target was
 * sampled and the counter's finished reading. A reading stamped at the
 * frame's own tick is a request's gap (the source thread still busy),
 * not an answer. */
static void check_sink_event(void *ctx, const struct sample_event *e)
{
	struct check_run *c = ctx;
	if (e->kind == SAMPLE_TARGET && !c->target && !e->u.target->parent)
		c->target = e->u.target->id;
	else if (e->kind == SAMPLE_SOURCE && !c->work_source &&
		 strcmp(e->u.source->role, "connections") != 0)
		c->work_source = e->u.source->id;
}

static void check_sink_frame(void *ctx, const struct sample_frame *f)
{
	struct check_run *c = ctx;
	c->sampled = c->work_read = false;
	for (size_t i = 0; i < f->n_procs && !c->sampled; i++)
		c->sampled = c->target && f->procs[i].target == c->target;
	for (size_t i = 0; i < f->n_readings; i++) {
		const struct sample_reading *r = &f->readings[i];
		if (r->source == c->work_source && r->t < f->t) {
			c->work_read = true;
			c->work = r->value;
		}
	}
}

static const struct sink_ops check_sink_ops = {
	.event = check_sink_event,
	.frame = check_sink_frame,
};

/* The load starts once the service is sampled and, with a work counter,
 * once the counter has answered: its reading before the load is where
 * the count of requests starts. */
static void check_maybe_start(struct check_run *c,
			      const struct recorder_tick *k)
{
	if (c->load_pid || !c->sampled)
		return;
	if (isnan(c->t_sampled))
		c->t_sampled = k->elapsed_s;
	bool answered = c->work_read && isfinite(c->work);
	if (c->has_work && !answered &&
	    k->elapsed_s - c->t_sampled < CHECK_COUNTER_WAIT_S)
		return;
	if (c->has_work && !answered && !c->counter_noted) {
		note("check: the work counter has not answered in %d s; "
		     "starting the load (the requests before its first "
		     "reading are not counted)", CHECK_COUNTER_WAIT_S);
		c->counter_noted = true;
	}
	load_start(c, k->t);
}

static void check_on_tick(void *ctx, const struct recorder_tick *k)
{
	struct check_run *c = ctx;
	c->ticked = true;
	/* The load ended: a tick that began after it, whose reading was
	 * asked for (the previous one was collected, so the slot was
	 * free), ends the run; the stop collects that reading. */
	if (c->final_pending && k->t > c->t_done &&
	    (c->work_read || ++c->final_ticks >= CHECK_FINAL_TICKS))
		c->final_pending = false;
	check_maybe_start(c, k);
	if (!c->load_pid && k->elapsed_s >= CHECK_TARGET_WAIT_S) {
		c->stop = STOP_NO_TARGET;
		return;
	}
	if (!c->load_pid && c->name_regex && !c->wait_noted &&
	    k->elapsed_s >= 1) {
		note("check: no process matches --name '%s' yet; waiting at "
		     "most %d s", c->name_regex, CHECK_TARGET_WAIT_S);
		c->wait_noted = true;
	}
	if (c->load_pid <= 0)
		return;
	if (c->has_work && c->work_read && isfinite(c->work)) {
		if (isnan(c->w_start))
			c->w_start = c->work;
		c->w_last = c->work;
	}
	double done = isnan(c->w_last) ? 0 : c->w_last - c->w_start;
	if (!c->warm && k->t - c->t_load >= c->warmup_s &&
	    (!(c->warmup_requests > 0) || done >= c->warmup_requests)) {
		c->warm = true;
		c->t_warm = k->t;
		c->w_warm = isnan(c->w_last) ? 0 : c->w_last;
	}
	if (!c->warm || c->stop)
		return;
	if (c->requests > 0 && !isnan(c->w_last) &&
	    c->w_last - c->w_warm >= c->requests)
		c->stop = STOP_REQUESTS;
	else if (c->duration_s > 0 && k->t - c->t_warm >= c->duration_s)
		c->stop = STOP_DURATION;
}

/* Polled by the recorder after every tick (right after on_tick) and
 * whenever its sleep is interrupted (SIGCHLD: the load may have ended).
 * Non-zero in the sleep cuts it short -- the recorder then ticks at once
 * -- and non-zero after a tick stops the run. */
static int check_should_stop(void *ctx)
{
	struct check_run *c = ctx;
	bool after_tick = c->ticked;
	c->ticked = false;
	/* A signal ends the run: the service gets SIGTERM (check's stop
	 * for it) whatever check got, also a Ctrl-C that reached it. */
	if (check_signal())
		return SIGTERM;
	if (c->load_pid > 0 && !c->load_reaped &&
	    reaper_poll(&c->load_reaper)) {
		c->load_reaped = true;
		c->load_status = c->load_reaper.status;
		if (!c->stop) {
			c->stop = STOP_LOAD_DONE;
			c->final_pending = c->has_work;
			c->t_done = now_wall();
		}
	}
	if (!c->stop)
		return 0;
	if (!c->final_pending)
		return SIGTERM;
	if (!after_tick && !c->woken) {
		c->woken = true;    /* tick now: the reading after the load */
		return SIGTERM;
	}
	return 0;
}

/* SIGCHLD (the load's reaper exits once the load and what it left are
 * gone) cuts the recorder's sleep short (ppoll), so that the load's end
 * is seen at once; SA_RESTART keeps other calls going. */
static void on_check_child(int sig) { (void)sig; }

/* The load's end, on every way out: a load still running is ended with
 * all it started (SIGTERM, SIGKILL after the grace); one that ended has
 * what it left ended. Waits for that, bounded. */
static void load_stop(struct check_run *c)
{
	if (c->load_pid <= 0)
		return;
	bool running = !c->load_reaped && !reaper_poll(&c->load_reaper);
	reaper_finish(&c->load_reaper, running, RECORDER_KILL_GRACE_S + 3);
	if (!c->load_reaped) {
		c->load_reaped = true;
		c->load_status = c->load_reaper.status;
	}
}

/* Record with the hooks above, into *d (the run as a dataset: the
 * judgement's input, from the recorder's sinks, no file read back) and
 * into -o's file when there is one. The children (service, load) get
 * memtrend's stderr as their stdout too: stdout is the report's. */
static int check_record(const struct recorder_options *o, struct check_run *c,
			struct recorder_result *res, struct dataset *d)
{
	struct sigaction old_chld;
	struct sigaction sa_chld = {.sa_handler = on_check_child,
				    .sa_flags = SA_RESTART | SA_NOCLDSTOP};
	sigemptyset(&sa_chld.sa_mask);
	sigaction(SIGCHLD, &sa_chld, &old_chld);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	struct sink_dataset *live = sink_dataset_new("check");
	struct sink sinks[] = {sink_dataset_sink(live),
			       {&check_sink_ops, c}};
	/* the stops and the run: recording.c, as for every command */
	struct recording run = {
		.o = o, .sinks = sinks, .n_sinks = ARRAY_SIZE(sinks),
		.hooks = {.ctx = c, .should_stop = check_should_stop,
			  .on_tick = check_on_tick, .wake_fd = -1},
		.done_fd = -1,
	};
	int rc = recording_run(&run);
	*res = run.res;
	sink_dataset_take(live, d);
	sink_dataset_free(live);
	load_stop(c);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	sigaction(SIGCHLD, &old_chld, NULL);
	return rc;
}

/* "exit status 3" or "killed by signal 9". */
static void status_text(char *buf, size_t n, int st)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exit status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, n, "status %d", st);
}

/* Whether the run can be judged: EXIT_OK, or EXIT_RUNTIME with the
 * reason in why (at most n-1 bytes, no "check: " prefix). */
static int check_run_outcome(const struct check_run *c,
			     const struct recorder_options *o,
			     const struct recorder_result *res,
			     char *why, size_t n)
{
	char st[96];
	if (c->load_pid < 0)
		snprintf(why, n, "cannot start the load command: %s",
			 strerror(c->spawn_errno));
	else if (check_signal() && c->stop == STOP_NONE)
		snprintf(why, n, "interrupted by signal %d: no judgement",
			 check_signal());
	else if (c->stop == STOP_LOAD_DONE && (!WIFEXITED(c->load_status) ||
					       WEXITSTATUS(c->load_status))) {
		status_text(st, sizeof(st), c->load_status);
		snprintf(why, n, "the load command failed (%s): no judgement "
			 "on a load that did not complete", st);
	} else if (c->stop == STOP_NONE) {
		/* The recorder ended on its own: every target is gone. */
		if (o->command && res->command_status >= 0)
			snprintf(why, n, "the service exited (%s%d) before "
				 "the load finished",
				 res->command_status > 128 ? "signal " :
				 "exit status ",
				 res->command_status > 128 ?
				 res->command_status - 128 :
				 res->command_status);
		else
			snprintf(why, n, "the service is gone before the load "
				 "finished");
	} else if (c->stop == STOP_NO_TARGET && o->name_regex)
		snprintf(why, n, "no process matched --name '%s' within %d s: "
			 "nothing to check (is the service running?)",
			 o->name_regex, CHECK_TARGET_WAIT_S);
	else if (!c->load_pid)
		snprintf(why, n, "the service was never sampled: the load "
			 "did not run");
	else
		return EXIT_OK;
	return EXIT_RUNTIME;
}

/* What the JUnit testcase of a failed run is called: the service, as
 * the recording would have named it, or the target given. */
static void check_run_name(char *buf, size_t n, const struct recorder_options *o)
{
	if (o->command && o->command[0])
		target_command_name(o->command, buf, n);
	else if (o->n_pids)
		snprintf(buf, n, "pid %ld", (long)o->pids[0]);
	else if (o->name_regex)
		snprintf(buf, n, "%s", o->name_regex);
	else
		snprintf(buf, n, "service");
}

/* The run failed (exit 3): still give --json and --junit their report,
 * as a CI job reads them whatever the exit code. */
static void check_report_error(const struct recorder_options *o, bool json,
			       const char *junit, const char *why,
			       double elapsed_s)
{
	if (json && (render_gate_json_error(stdout, why) || fflush(stdout)))
		error("cannot write the result");
	if (junit) {
		char name[256];
		check_run_name(name, sizeof(name), o);
		FILE *f = fopen(junit, "w");
		if (!f || render_gate_junit_error(f, name, why, elapsed_s) ||
		    fclose(f))
			error("--junit: cannot write '%s': %m", junit);
	}
}

/* Judge every target of the run (d: as the recording would read back)
 * and write the outputs. Returns the exit code. */
static int check_judge(const struct dataset *dp, enum gate_basis basis,
		       double budget, const struct gate_window *w, bool json,
		       const char *junit, bool allow, double elapsed_s)
{
	const struct dataset d = *dp;
	size_t n = d.n_targets;
	struct gate_evidence *ev = xcalloc(n ? n : 1, sizeof(*ev));
	struct gate_result *res = xcalloc(n ? n : 1, sizeof(*res));
	struct gate_row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	/* --sites: each such target analysed as report analyses it, for
	 * its sites alone (the gate's judgement is gate_measure()'s) */
	struct target_findings *sf = xcalloc(n ? n : 1, sizeof(*sf));
	bool *analysed = xcalloc(n ? n : 1, sizeof(*analysed));
	struct analysis_options ao;
	analysis_options_init(&ao);
	size_t fails = 0, unsure = 0;
	for (size_t i = 0; i < n; i++) {
		const struct series *s = &d.targets[i];
		double *work = NULL;
		if (s->requests) {
			work = xmalloc(s->n * sizeof(double));
			idle_work_increase(s->requests, s->n, work);
		}
		gate_measure(s, work, basis, w, &ev[i]);
		free(work);
		gate_judge(&ev[i], budget, &res[i]);
		rows[i] = (struct gate_row){s->name, &ev[i], &res[i], NULL,
					    NULL};
		if ((s->n_sites || s->site_stats.recorded) &&
		    res[i].outcome != GATE_PASS) {
			analysis_run(s, &ao, &sf[i]);
			analysed[i] = true;
			if (sf[i].sites.recorded) {
				rows[i].series = s;
				rows[i].sites = &sf[i].sites;
			}
		}
		fails += res[i].outcome == GATE_FAIL;
		unsure += res[i].outcome == GATE_INCONCLUSIVE;
	}
	const char *overall = fails ? "fail" : unsure ? "inconclusive" :
				      n ? "pass" : "inconclusive";
	int rc = fails ? EXIT_GATE_FAILED :
		 (unsure || !n) ? (allow ? EXIT_OK : EXIT_GATE_FAILED) :
		 EXIT_OK;
	int wrc = json ? render_gate_json(stdout, rows, n, overall) :
			 render_gate_text(stdout, rows, n);
	if (wrc || fflush(stdout)) {
		error("cannot write the result");
		rc = EXIT_RUNTIME;
	}
	if (junit && rc != EXIT_RUNTIME) {
		FILE *f = fopen(junit, "w");
		if (!f || render_gate_junit(f, rows, n, elapsed_s, allow) ||
		    fclose(f)) {
			error("--junit: cannot write '%s': %m", junit);
			rc = EXIT_RUNTIME;
		}
	}
	if (!n)
		warning("check: the recording holds no targets");
	if (rc == EXIT_OK && (unsure || !n))
		warning("check: inconclusive, allowed by "
			"--allow-inconclusive: this run proves nothing");
	for (size_t i = 0; i < n; i++)
		if (analysed[i])
			analysis_release(&sf[i]);
	free(analysed);
	free(sf);
	free(rows);
	free(res);
	free(ev);
	return rc;
}

/* ---- options --------------------------------------------------------- */

struct check_args {
	struct check_run run;
	enum gate_basis basis;
	double budget;             /* 0: not given */
	bool json, allow;
	const char *junit, *output;
	struct cli_strings fwd;    /* argv for cli_record_parse(): "check",
				      record's rows as given (FORWARD), then
				      -o, -i, -- and the service */
};
#define CA struct check_args

static int parse_budget(const struct cli_option *row, const char *arg,
			void *field);
static int parse_warmup(const struct cli_option *row, const char *arg,
			void *field);

/* check's options: getopt_long, the parser, --help and the man page check
 * all read this table (cli_options.h). The FORWARD rows are record's,
 * with record's meaning: handed to cli_record_parse() (cli_record.c). */
const struct cli_option check_options[] = {
	CLI_SECTION("the gate"),
	CLI_STRING(0, "load", CA, run.load, "CMD", "the load: a shell command "
		"run once the service is sampled; recording stops when it "
		"exits (required)", "an empty command"),
	CLI_CALLBACK(0, "max-per-request", "SIZE", "budget per request (needs "
		"a work counter): pass when the 95 % interval's upper end is "
		"below it, fail when its lower end is above", parse_budget, 0),
	CLI_CALLBACK(0, "max-growth", "RATE", "budget per time, e.g. "
		"10MiB/h (no work counter needed)", parse_budget, 0),
	CLI_CALLBACK(0, "warmup", "N|DUR", "leave out the first N requests "
		"(a bare number) or the first DUR (30s, 2m) of the run "
		"(default: nothing)", parse_warmup, offsetof(CA, run)),
	CLI_COUNT(0, "requests", CA, run.requests, "N", "stop after N "
		"requests past the warm-up (the load is then stopped)", 1,
		CLI_COUNT_MAX, "a positive count"),
	CLI_DURATION('d', "duration", CA, run.duration_s, "DUR", "stop DUR "
		"after the warm-up (the load is then stopped)", 0, true,
		DBL_MAX, "a duration (e.g. 60s, 5m)", NULL),
	CLI_FLAG(0, "allow-inconclusive", CA, allow, "exit 0 with a warning "
		"when the run cannot decide"),
	CLI_STRING(0, "junit", CA, junit, "FILE", "also write a JUnit XML "
		"report (one testcase per target) to FILE", "which file?"),
	CLI_FLAG(0, "json", CA, json, "print JSON instead of text"),
	CLI_STRING('o', "output", CA, output, "FILE", "keep the recording in "
		"FILE (for 'memtrend report FILE --html page.html'); must not "
		"exist", NULL),
	CLI_SECTION("the service (as for record)"),
	CLI_FORWARD('p', "pid", CA, fwd, "PID", "attach to a running "
		"process"),
	CLI_FORWARD(0, "name", CA, fwd, "REGEX", "attach to the oldest "
		"process whose name or command line matches"),
	CLI_TEXT("  -- SERVICE ARGS...     start SERVICE, stop it (SIGTERM) "
		 "when the run ends"),
	CLI_FORWARD(0, "children", CA, fwd, NULL, "also record every "
		"descendant and their sum (each judged)"),
	CLI_FORWARD(0, "work-cmd", CA, fwd, "CMD", "the work counter: a shell "
		"command printing a cumulative count"),
	CLI_FORWARD(0, "work", CA, fwd, "URL#METRIC", "the work counter: a "
		"Prometheus/OpenMetrics counter"),
	CLI_FORWARD(0, "work-log", CA, fwd, "FILE", "the work counter: lines "
		"appended to FILE that match --match"),
	CLI_FORWARD(0, "match", CA, fwd, "REGEX", "... this extended regex"),
	CLI_FORWARD(0, "work-timeout", CA, fwd, "DUR", "limit per reading of "
		"the counter (default: the interval)"),
	CLI_FORWARD('i', "interval", CA, fwd, "DUR", "time between samples "
		"(default " CHECK_DEFAULT_INTERVAL ")"),
	CLI_FORWARD(0, "no-gpu", CA, fwd, NULL, "do not read GPU memory"),
	CLI_FORWARD(0, "sites", CA, fwd, NULL, "with -o FILE and -- SERVICE: "
		"its allocation sites, kept in FILE (memtrend report FILE "
		"says where it grows; docs/sites.md)"),
	CLI_FORWARD(0, "sites-rate", CA, fwd, "SIZE", "with --sites: sample "
		"once every SIZE bytes on average (default 512KiB)"),
	CLI_FORWARD(0, "sites-depth", CA, fwd, "N", "with --sites: the frames "
		"that make a site (default 8)"),
	CLI_FORWARD('q', "quiet", CA, fwd, NULL, "no notes"),
	CLI_HELP_ROW,
	CLI_END_ROW,
};

/* Whether the FORWARD row named name was given: its "--NAME" is the
 * row's own string in fwd (an argument that reads the same is not). */
static bool forwarded(const struct check_args *a, const char *name)
{
	for (const struct cli_option *r = check_options; r->kind != CLI_END;
	     r++) {
		if (r->kind != CLI_OPTION || r->type != CLI_T_FORWARD ||
		    strcmp(r->name, name) != 0)
			continue;
		for (size_t i = 0; i < a->fwd.n; i++)
			if (a->fwd.v[i] == r->forward)
				return true;
	}
	return false;
}

/* --warmup N|DUR into the check_run: a bare number counts requests; with
 * a unit it is a time. */
static int parse_warmup(const struct cli_option *row, const char *arg,
			void *field)
{
	static const struct cli_option count = {.kind = CLI_OPTION,
		.name = "warmup", .type = CLI_T_COUNT, .width = CLI_W_DOUBLE,
		.lo = 1, .hi = CLI_COUNT_MAX, .what = "a positive count"};
	static const struct cli_option dur = {.kind = CLI_OPTION,
		.name = "warmup", .type = CLI_T_DURATION, .lo = 0,
		.hi = DBL_MAX, .what = "a count of requests (2000) or a "
		"duration (30s, 2m)"};
	(void)row;
	struct check_run *c = field;
	const char *p = arg;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p != arg && !*p)
		return cli_value(&count, arg, &c->warmup_requests);
	return cli_value(&dur, arg, &c->warmup_s);
}

/* --max-per-request SIZE and --max-growth RATE: one budget (field: the
 * struct check_args). */
static int parse_budget(const struct cli_option *row, const char *arg,
			void *field)
{
	struct check_args *a = field;
	if (a->budget > 0)
		return error("check: one budget: --max-per-request or "
			     "--max-growth");
	if (strcmp(row->name, "max-per-request") == 0) {
		struct rate r;
		double q;
		if (!units_parse_size(arg, &a->budget, &q)) {
			if (!(a->budget > 0)) {
				a->budget = 0;
				return error("--max-per-request: the budget "
					     "must be more than 0 (a run "
					     "never shows exactly none)");
			}
			a->basis = GATE_PER_REQUEST;
			return 0;
		}
		if (!units_parse_rate(arg, &r) && r.basis == RATE_PER_REQUEST &&
		    r.bytes > 0) {
			a->budget = r.bytes;
			a->basis = GATE_PER_REQUEST;
			return 0;
		}
		a->budget = 0;
		return error("--max-per-request: cannot read '%s' as a size "
			     "per request (e.g. 1KiB, 512)", arg);
	}
	struct rate r;
	if (units_parse_rate(arg, &r) || r.basis != RATE_PER_HOUR)
		return error("--max-growth: cannot read '%s' as a rate over "
			     "time (e.g. 10MiB/h, 500KiB/min)", arg);
	if (!(r.bytes > 0))
		return error("--max-growth: the budget must be more than 0 "
			     "(a run never shows exactly none)");
	a->budget = r.bytes;
	a->basis = GATE_PER_HOUR;
	return 0;
}

/* Parse argv into *a; record's rows go to a->fwd. EXIT_OK, EXIT_USAGE
 * (after a message) or CLI_RECORD_HELP; *first: the first operand (the
 * service). */
static int check_parse(int argc, char **argv, struct check_args *a,
		       int *first)
{
	cli_strings_add(&a->fwd, "check");
	a->run.w_start = a->run.w_last = NAN;
	a->run.t_sampled = NAN;
	*first = cli_parse(&check_command, "+", argc, argv, a);
	if (*first == CLI_PARSE_HELP)
		return CLI_RECORD_HELP;
	if (*first < 0)
		return EXIT_USAGE;
	bool has_work = forwarded(a, "work-cmd") || forwarded(a, "work") ||
			forwarded(a, "work-log");
	if (!a->run.load)
		return error("check: --load 'CMD' is required: the load to "
			     "run against the service"), EXIT_USAGE;
	if (!(a->budget > 0))
		return error("check: give a budget: --max-per-request SIZE "
			     "(with a work counter) or --max-growth RATE"),
		       EXIT_USAGE;
	if (a->basis == GATE_PER_REQUEST && !has_work)
		return error("--max-per-request needs a work counter "
			     "(--work-cmd, --work or --work-log); without one, "
			     "judge the time slope with --max-growth"),
		       EXIT_USAGE;
	if (!has_work && (a->run.requests > 0 ||
			  a->run.warmup_requests > 0))
		return error("check: --requests and a --warmup in requests "
			     "need a work counter (--work-cmd, --work or "
			     "--work-log); give --duration or --warmup DUR"),
		       EXIT_USAGE;
	if (a->run.requests > 0 && a->run.duration_s > 0)
		return error("check: --requests or --duration, not both"),
		       EXIT_USAGE;
	a->run.has_work = has_work;
	return EXIT_OK;
}

/* "sh -c 'python3 app.py'": the shell stays, the service is its child,
 * and the shell's memory is what would be judged. */
static void check_shell_warning(const struct recorder_options *o)
{
	const char *script = o->command ? target_shell_script(o->command) :
				NULL;
	if (!script || target_script_execs(script) || o->children)
		return;
	warning("check: the service is a shell script that execs nothing: "
		"what is measured and judged is the shell ('%s'), not the "
		"program it starts; write 'exec' before the service "
		"(%s -c 'exec ...') or add --children", o->command[0],
		o->command[0]);
}

int cmd_check(int argc, char **argv)
{
	struct check_args a = {0};
	struct dataset d = {0};
	int first;
	int rc = check_parse(argc, argv, &a, &first);
	if (rc != EXIT_OK) {
		rc = rc == CLI_RECORD_HELP ? EXIT_OK : rc;
		goto out;
	}
	/* The judgement is made from the run in memory (sink_dataset.h);
	 * -o keeps a file of it too. */
	if (a.output) {
		cli_strings_add(&a.fwd, "-o");
		cli_strings_add(&a.fwd, a.output);
	}
	if (!forwarded(&a, "interval")) {
		cli_strings_add(&a.fwd, "-i");
		cli_strings_add(&a.fwd, CHECK_DEFAULT_INTERVAL);
	}
	if (first < argc) {
		cli_strings_add(&a.fwd, "--");
		for (int i = first; i < argc; i++)
			cli_strings_add(&a.fwd, argv[i]);
	}
	/* argv[argc] is NULL, as main()'s: the service is exec'd from it */
	cli_strings_add(&a.fwd, NULL);
	/* cli_record_parse() reads argv as getopt does, without writing to
	 * it: the strings stay const. */
	struct cli_record cli;
	rc = cli_record_parse((int)a.fwd.n - 1, (char **)a.fwd.v, "check",
			      &cli);
	if (rc != EXIT_OK) {
		rc = rc == CLI_RECORD_HELP ? EXIT_OK : rc;
		goto out;
	}
	a.run.name_regex = cli.o.name_regex;
	check_shell_warning(&cli.o);
	double t0 = now_monotonic();
	struct recorder_result res;
	rc = check_record(&cli.o, &a.run, &res, &d);
	cli_record_handed_over(&cli);
	double elapsed = now_monotonic() - t0;
	char why[512] = "";
	if (rc == EXIT_OK) {
		rc = check_run_outcome(&a.run, &cli.o, &res, why, sizeof(why));
		if (rc != EXIT_OK)
			error("check: %s", why);
	} else if (rc == EXIT_RUNTIME) {
		snprintf(why, sizeof(why), "the recording failed (memtrend's "
			 "messages before this say why)");
	}
	if (rc == EXIT_RUNTIME)
		check_report_error(&cli.o, a.json, a.junit, why, elapsed);
	if (rc == EXIT_OK) {
		struct gate_window w = {a.run.warmup_s, a.run.warmup_requests};
		rc = check_judge(&d, a.basis, a.budget, &w, a.json, a.junit,
				 a.allow, elapsed);
	}
	if (a.output && access(a.output, F_OK) == 0)
		note("the recording is in '%s' ('memtrend report %s --html "
		     "FILE' draws it)", a.output, a.output);
	cli_record_release(&cli);
out:
	dataset_release(&d);
	cli_strings_release(&a.fwd);
	return rc;
}
