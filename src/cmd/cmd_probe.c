/*
 * cmd_probe.c - `memtrend probe`: is it the allocator? The second field
 * report's experiment as a command (docs/probe.md). Runs arms one after
 * another, each a fresh exec of memtrend itself (`memtrend probe
 * --arm-child KIND ...`, hidden) with the arm's environment set before it
 * starts: glibc with varying sizes, one size, a capped pool, malloc_trim
 * after each round, MALLOC_ARENA_MAX=2; jemalloc and mimalloc (and
 * --allocator PATH) through LD_PRELOAD where installed. Each arm is
 * recorded as a target of one recording (the recorder in a thread, one
 * run per arm appending to the file); the child marks every phase on a
 * pipe and waits, so the footprint after round 1, after all rounds and
 * after idle are read at those exact moments. The comparison is
 * probe_compare.c's, the words render_probe.c's.
 *
 * An allocator is checked before anything runs (what the loader would
 * refuse: exit 2) and again inside its arm's process (the child tells
 * whether the library is loaded and supplies malloc: PROBE_EV_REFUSED).
 * An arm that fails on its own (that check, --arm-timeout, a process that
 * ends early) is killed and its row says why; the others go on and the
 * exit status is 3. An arm's stdout is memtrend's stderr.
 *
 * What it does not do: judge a service (record and report do), or run
 * arms in parallel (on two cores they would measure each other).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cli_options.h"
#include "common.h"
#include "probe.h"
#include "probe_alloc.h"
#include "probe_arm.h"
#include "probe_compare.h"
#include "recorder.h"
#include "recording.h"
#include "render_probe.h"
#include "store.h"
#include "units.h"

#define PROBE_MAX_THREADS 256
#define PROBE_MAX_ROUNDS 100000
#define PROBE_MAX_SIZE (1024.0 * 1024 * 1024)
#define PROBE_MAX_ALLOCATORS 4
#define PROBE_INTERVAL_S 0.1       /* the recording's sampling interval */
/* Each arm's time limit, --idle not included: the defaults take about 5 s
 * an arm on a loaded 2-core machine; a limit is there for what never
 * ends (a preloaded library's constructor that blocks, an allocator that
 * deadlocks), not to judge speed. */
#define PROBE_ARM_TIMEOUT_S 300.0
#define PROBE_MAX_ARM_TIMEOUT_S 86400.0

struct probe_cfg {
	int threads;
	long rounds;
	double min_size, max_size, idle_s, cap;
	uint64_t seed;
	double arm_timeout_s;      /* each arm's limit, idle not included */
	const char *preload;       /* the child: --arm-preload, or NULL */
};

/* What probe's options are parsed into (defaults in cmd_probe()). */
struct probe_args {
	struct probe_cfg cfg;
	const char *output, *arm_child, *arm_fds;
	struct cli_strings allocators;
	long like;                 /* -1: not given */
	long seed;                 /* cfg.seed */
	bool json;
};
#define PA struct probe_args

static int parse_range(const struct cli_option *row, const char *s,
		       void *field);

/* probe's options: getopt_long, the parser, --help and the man page check
 * all read this table (cli_options.h). Rows without help are the arm's
 * (`memtrend probe --arm-child KIND ...`), and the seed for tests. */
const struct cli_option probe_options[] = {
	CLI_SECTION("the experiment"),
	CLI_COUNT(0, "threads", PA, cfg.threads, "N", "threads allocating in "
		"parallel in each arm (default 4)", 1, PROBE_MAX_THREADS, NULL),
	CLI_COUNT(0, "rounds", PA, cfg.rounds, "N", "rounds of allocate, "
		"touch, free (default 40)", 1, PROBE_MAX_ROUNDS, NULL),
	CLI_CALLBACK(0, "size-range", "SIZE-SIZE", "buffer sizes (default "
		"1MiB-4MiB); the fixed arm uses the middle", parse_range,
		offsetof(PA, cfg)),
	CLI_DURATION(0, "idle", PA, cfg.idle_s, "DUR", "idle period after the "
		"rounds (default 3s)", 0, false, 86400,
		"a duration up to 1d (e.g. 3s, 500ms)", NULL),
	CLI_SIZE_UNITS(0, "cap", PA, cfg.cap, "SIZE", "the capped arm's pool "
		"cap (default 64MiB)", 1, false, 64 * PROBE_MAX_SIZE,
		"a size up to 64GiB"),
	CLI_STRINGS(0, "allocator", PA, allocators, "PATH", "also run the "
		"varying arm with this allocator preloaded (an ELF shared "
		"object); may be repeated", PROBE_MAX_ALLOCATORS),
	CLI_COUNT(0, "like", PA, like, "PID", "set the arms up like this "
		"process: its thread count and its allocator", 1, 1L << 30,
		NULL),
	CLI_DURATION(0, "arm-timeout", PA, cfg.arm_timeout_s, "DUR", "the "
		"most an arm may take, --idle not included (default 5m); one "
		"that takes longer is killed and its row says so", 0, true,
		PROBE_MAX_ARM_TIMEOUT_S, "a duration above 0 and up to 1d "
		"(e.g. 5m, 30s)", NULL),
	CLI_SECTION("output"),
	CLI_STRING('o', "output", PA, output, "FILE", "keep the recording (one "
		"target per arm) in FILE, for memtrend report", NULL),
	CLI_FLAG(0, "json", PA, json, "print the table as JSON"),
	CLI_HELP_ROW,
	CLI_STRING(0, "arm-child", PA, arm_child, "KIND", NULL, NULL),
	CLI_STRING(0, "arm-fds", PA, arm_fds, "EV,ACK", NULL, NULL),
	CLI_COUNT(0, "seed", PA, seed, "N", NULL, 0, 1L << 62, NULL),
	CLI_STRING(0, "arm-preload", PA, cfg.preload, "PATH", NULL, NULL),
	CLI_END_ROW,
};

static const struct cli_command probe_command = {
	.name = "probe",
	.usage =
"usage: memtrend probe [options]\n"
"\n"
"Is it the allocator? Allocate and free buffers of varying sizes, of one\n"
"size, under a cap, with malloc_trim, with MALLOC_ARENA_MAX=2, and under\n"
"jemalloc and mimalloc where installed, each arm in its own process;\n"
"print what each kept after the rounds and after idle, and which setting\n"
"keeps least. Takes about a minute with the defaults.\n"
"\n"
"An arm whose preloaded allocator is not in use (the loader refused it,\n"
"or it supplies no malloc), that runs past --arm-timeout or whose process\n"
"ends early is killed and its row says why; the others go on, and the\n"
"exit status is then 3. What an arm prints goes to stderr.\n",
	.options = probe_options,
};

/* ---- the arms ---------------------------------------------------------- */

struct arm {
	char name[96];
	enum probe_role role;
	enum probe_arm_kind kind;
	char *preload;             /* owned, or NULL */
	const char *skipped;       /* why not run (static text), or NULL */
	char *failed;              /* owned: why it ran but failed, or NULL */
	double elapsed_s;          /* from its fork to its end; NAN skipped */
	/* Readings. */
	bool ran;
	double baseline, idle;
	double *rounds;            /* owned; cfg.rounds */
	size_t n_rounds;
};

/* A stop asked for (a signal: recording.c catches them, as for every
 * command that records). */
#define probe_stop (recording_stop() != 0)

/* The recorder's wake pipe, for every arm's run: a stop signal writes to
 * it (recording_signals_install), and so does rec_stop(). */
static int probe_wake[2] = {-1, -1};

/* An arm's recording: recording.c runs recorder_run_file() in a thread
 * born with every signal blocked (this thread takes them). */
struct rec_thread {
	struct recorder_options ro;
	struct recording run;
	atomic_uint ticks;
	atomic_int stop;
};

static int rec_should_stop(void *ctx)
{
	struct rec_thread *rt = ctx;
	return atomic_load(&rt->stop) ? SIGTERM : recording_stop();
}

static void rec_on_tick(void *ctx, const struct recorder_tick *k)
{
	(void)k;
	struct rec_thread *rt = ctx;
	atomic_fetch_add(&rt->ticks, 1);
}

static void rec_stop(struct rec_thread *rt)
{
	atomic_store(&rt->stop, 1);
	ssize_t w = write(probe_wake[1], "s", 1);
	(void)w;
}

/* Wait until the recorder has ticked past `after` (10 s at most). */
static bool rec_wait_tick(struct rec_thread *rt, unsigned after)
{
	for (int i = 0; i < 1000 && !probe_stop; i++) {
		if (atomic_load(&rt->ticks) > after)
			return true;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return false;
}

/* The environment of an arm: memtrend's, less anything that tunes or
 * replaces malloc (the arms are glibc's defaults unless they say
 * otherwise; meson's tests set MALLOC_PERTURB_), plus the arm's own. */
static char **arm_environ(const struct arm *a)
{
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 3, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];
		if (!strncmp(e, "MALLOC_", 7) ||
		    !strncmp(e, "GLIBC_TUNABLES=", 15) ||
		    !strncmp(e, "LD_PRELOAD=", 11))
			continue;
		env[k++] = xstrdup(e);
	}
	if (a->role == PROBE_ROLE_ARENA_MAX)
		env[k++] = xstrdup("MALLOC_ARENA_MAX=2");
	if (a->preload) {
		char *e = xmalloc(strlen(a->preload) + 12);
		sprintf(e, "LD_PRELOAD=%s", a->preload);
		env[k++] = e;
	}
	env[k] = NULL;
	return env;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* How reading an event from an arm's child went. */
enum ev_read {
	EV_READ_OK,
	EV_READ_EOF,               /* the child closed its end: it ended */
	EV_READ_TIMEOUT,           /* the arm's deadline passed */
	EV_READ_STOP,              /* a stop signal */
};

/* Read exactly n bytes from fd by the monotonic deadline. Waits in
 * slices of at most 250 ms, so that a stop signal that lands just
 * before poll() is seen within that. */
static enum ev_read read_full(int fd, void *buf, size_t n, double deadline)
{
	size_t got = 0;
	while (got < n) {
		if (probe_stop)
			return EV_READ_STOP;
		double left = deadline - now_monotonic();
		if (left <= 0)
			return EV_READ_TIMEOUT;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int ms = left > 0.25 ? 250 : (int)(left * 1000) + 1;
		int r = poll(&p, 1, ms);
		if (r < 0 && errno != EINTR)
			return EV_READ_EOF;
		if (r <= 0)
			continue;
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return EV_READ_EOF;
		got += (size_t)k;
	}
	return EV_READ_OK;
}

static int ack(int fd)
{
	ssize_t k;
	do
		k = write(fd, "a", 1);
	while (k < 0 && errno == EINTR && !probe_stop);
	return k == 1 ? 0 : -1;
}

/* The footprint of pp now (anon + swap + shmem), NAN when unreadable. */
static double footprint_now(struct probe_proc *pp)
{
	struct proc_mem m;
	return probe_proc_read(pp, &m) == PROBE_OK ? m.footprint : NAN;
}

/* How a child ended, in words, for a message. */
static void describe_status(char *buf, size_t n, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, n, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, n, "status %d", status);
}

/* The arm failed on its own (its library refused, a time-out, its
 * process ended early): the row says why (a->failed, owned), a warning
 * says it now. */
static void arm_fail(struct arm *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void arm_fail(struct arm *a, const char *fmt, ...)
{
	char why[PROBE_ARM_WHY_MAX + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	free(a->failed);
	a->failed = xstrdup(why);
	a->ran = false;
	warning("probe: the %s arm failed: %s", a->name, why);
}

/* Where an arm was when its time ran out, for its row. */
static void describe_phase(char *buf, size_t n, bool started,
			   size_t rounds_done, long rounds)
{
	if (!started)
		snprintf(buf, n, "before it started (a library's "
			 "constructor that does not return?)");
	else if (rounds_done < (size_t)rounds)
		snprintf(buf, n, "in round %zu of %ld", rounds_done + 1,
			 rounds);
	else
		snprintf(buf, n, "in its idle period");
}

/* Reap a child that closed its pipes (it is ending): its own status when
 * it ends within grace_s, else it is killed. */
static int reap(pid_t child, double grace_s)
{
	int status = 0;
	double until = now_monotonic() + grace_s;
	for (;;) {
		pid_t r = waitpid(child, &status, WNOHANG);
		if (r == child || (r < 0 && errno != EINTR))
			return status;
		if (now_monotonic() >= until)
			break;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill(child, SIGKILL);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* The child of fork(), up to its exec: async-signal-safe calls only. */
static _Noreturn void exec_arm(pid_t parent, const int keep[2],
				 char *const argv[], char *const env[])
{
	/* Never outlive memtrend, also while a preloaded library's
	 * constructor runs (before probe_arm_run() could say so). */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(127);
	/* memtrend ignores SIGPIPE while the arms run; the arm must not
	 * inherit that. */
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGPIPE, &dfl, NULL);
	/* The child's stdout is not the report's: whatever the arm (or a
	 * library's constructor) prints goes to stderr with the other
	 * diagnostics, or nowhere when there is no stderr. */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0 && fd != STDOUT_FILENO) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
	}
	fcntl(keep[0], F_SETFD, 0);
	fcntl(keep[1], F_SETFD, 0);
	execve("/proc/self/exe", argv, env);
	_exit(127);
}

/* Run arm a, recorded into output (appending when append). EXIT_OK when
 * it ran (a->ran) and when it failed on its own (a->failed: its preloaded
 * library not in use, its time limit, its process ended early or sent
 * nonsense; its child is killed): the other arms go on. Otherwise an
 * exit code after a message: memtrend itself cannot go on (a pipe, a
 * fork, the recorder, a stop signal). */
static int run_arm(const struct probe_cfg *cfg, struct arm *a,
		   const char *output, bool append, struct probe *probe,
		   const char *invocation)
{
	int ev[2] = {-1, -1}, ak[2] = {-1, -1};
	if (pipe2(ev, O_CLOEXEC) || pipe2(ak, O_CLOEXEC)) {
		error("cannot create a pipe: %m");
		if (ev[0] >= 0)
			close(ev[0]), close(ev[1]);
		return EXIT_RUNTIME;
	}
	char threads[16], rounds[24], sizes[64], idle[32], cap[32], seed[32],
	     fds[32];
	snprintf(threads, sizeof(threads), "%d", cfg->threads);
	snprintf(rounds, sizeof(rounds), "%ld", cfg->rounds);
	snprintf(sizes, sizeof(sizes), "%.0f-%.0f", cfg->min_size,
		 cfg->max_size);
	snprintf(idle, sizeof(idle), "%.3f", cfg->idle_s);
	snprintf(cap, sizeof(cap), "%.0f", cfg->cap);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)cfg->seed);
	snprintf(fds, sizeof(fds), "%d,%d", ev[1], ak[0]);
	char *argv[] = {"memtrend", "probe", "--arm-child",
			(char *)probe_arm_kind_name(a->kind), "--threads",
			threads, "--rounds", rounds, "--size-range", sizes,
			"--idle", idle, "--cap", cap, "--seed", seed,
			"--arm-fds", fds, NULL, NULL, NULL};
	if (a->preload) {
		/* The child checks that this very file is in use. */
		argv[ARRAY_SIZE(argv) - 3] = "--arm-preload";
		argv[ARRAY_SIZE(argv) - 2] = a->preload;
	}
	char **env = arm_environ(a);
	pid_t parent = getpid();
	/* The time limit counts from here, --idle not included. */
	double t_start = now_monotonic();
	double deadline = t_start + cfg->arm_timeout_s + cfg->idle_s;
	pid_t child = fork();
	if (child < 0) {
		error("cannot fork: %m");
		strv_free(env);
		close(ev[0]), close(ev[1]), close(ak[0]), close(ak[1]);
		return EXIT_RUNTIME;
	}
	if (child == 0)
		exec_arm(parent, (int[2]){ev[1], ak[0]}, argv, env);
	strv_free(env);
	close(ev[1]);
	close(ak[0]);
	int rc = EXIT_RUNTIME;
	bool failed = false;       /* the arm's own failure: a->failed */
	struct probe_proc *pp = NULL;
	struct rec_thread rt = {.run.rc = EXIT_OK};
	bool rec_started = false;
	a->n_rounds = 0;
	uint32_t e[2];
	char phase[128], limit[32];
	units_format_duration(limit, sizeof(limit), cfg->arm_timeout_s);
	enum ev_read got = read_full(ev[0], e, sizeof(e), deadline);
	if (got == EV_READ_OK && e[0] == PROBE_EV_REFUSED) {
		char why[PROBE_ARM_WHY_MAX + 1];
		size_t len = e[1] < PROBE_ARM_WHY_MAX ? e[1] : PROBE_ARM_WHY_MAX;
		if (read_full(ev[0], why, len, deadline) != EV_READ_OK)
			len = 0;
		why[len] = '\0';
		/* It ends by itself: what it printed is flushed (to stderr). */
		close(ak[1]);
		ak[1] = -1;
		reap(child, 1);
		child = -1;
		arm_fail(a, "%s not in use: %s", a->preload ? a->preload :
			 "its library", len ? why : "(no reason given)");
		failed = true;
		goto out;
	}
	if (got != EV_READ_OK || e[0] != PROBE_EV_START) {
		if (got == EV_READ_STOP)
			goto out;
		if (got == EV_READ_TIMEOUT) {
			describe_phase(phase, sizeof(phase), false, 0,
				       cfg->rounds);
			arm_fail(a, "timed out after %s (--arm-timeout) %s: "
				 "killed", limit, phase);
			failed = true;
			goto out;
		}
		int status = reap(child, 1);
		child = -1;
		char how[64];
		describe_status(how, sizeof(how), status);
		if (got == EV_READ_OK)
			arm_fail(a, "its process sent an unexpected event "
				 "(%u %u) instead of starting", e[0], e[1]);
		else if (a->preload)
			arm_fail(a, "its process did not start with "
				 "LD_PRELOAD=%s (%s)", a->preload, how);
		else
			arm_fail(a, "its process did not start (%s)", how);
		failed = true;
		goto out;
	}
	if (probe_proc_open(probe, child, &pp) != PROBE_OK) {
		error("probe: cannot read the %s arm's process", a->name);
		goto out;
	}
	/* The recorder, in a thread that takes no signals. */
	const char *name = a->name;
	rt.ro = (struct recorder_options){
		.output = output,
		.append = append,
		.interval_s = PROBE_INTERVAL_S,
		.duration_s = NAN,
		.pids = &child,
		.n_pids = 1,
		.pid_names = &name,
		.smaps_interval_s = 60,
		.no_gpu = true,
		.commit_interval_s = 1,
		.invocation = invocation,
	};
	rt.run = (struct recording){
		.o = &rt.ro,
		.hooks = {.ctx = &rt, .should_stop = rec_should_stop,
			  .on_tick = rec_on_tick, .wake_fd = probe_wake[0]},
		.done_fd = -1,
	};
	sigset_t all;
	sigfillset(&all);
	if (recording_start(&rt.run, &all))
		goto out;
	rec_started = true;
	/* The baseline once the recording has it too. */
	if (!rec_wait_tick(&rt, 0)) {
		if (!probe_stop)
			error("probe: the recorder did not start");
		goto out;
	}
	a->baseline = footprint_now(pp);
	if (ack(ak[1]))
		goto ended;
	for (;;) {
		got = read_full(ev[0], e, sizeof(e), deadline);
		if (got == EV_READ_STOP)
			goto out;
		if (got == EV_READ_TIMEOUT) {
			describe_phase(phase, sizeof(phase), true,
				       a->n_rounds, cfg->rounds);
			arm_fail(a, "timed out after %s (--arm-timeout) %s: "
				 "killed", limit, phase);
			failed = true;
			goto out;
		}
		if (got != EV_READ_OK)
			goto ended;
		if (e[0] == PROBE_EV_ROUND && e[1] == a->n_rounds + 1 &&
		    a->n_rounds < (size_t)cfg->rounds) {
			a->rounds[a->n_rounds++] = footprint_now(pp);
		} else if (e[0] == PROBE_EV_IDLE &&
			   a->n_rounds == (size_t)cfg->rounds) {
			a->idle = footprint_now(pp);
			/* One more sample in the recording, at idle's end. */
			rec_wait_tick(&rt, atomic_load(&rt.ticks));
			break;
		} else {
			arm_fail(a, "its process sent an unexpected event "
				 "(%u %u) after %zu rounds", e[0], e[1],
				 a->n_rounds);
			failed = true;
			goto out;
		}
		if (ack(ak[1]))
			goto ended;
	}
	a->ran = true;
	rc = EXIT_OK;
	ack(ak[1]);
	goto out;
ended:
	/* The child closed its pipes: it ended (or is ending) early. */
	{
		int status = reap(child, 1);
		child = -1;
		char how[64];
		describe_status(how, sizeof(how), status);
		arm_fail(a, "its process ended early, after %zu of %ld rounds "
			 "(%s)", a->n_rounds, cfg->rounds, how);
		failed = true;
	}
out:
	if (failed) {
		a->ran = false;
		rc = EXIT_OK;
	}
	close(ev[0]);
	if (ak[1] >= 0)
		close(ak[1]);
	if (child > 0) {
		int status;
		if (!a->ran)
			kill(child, SIGKILL);
		waitpid(child, &status, 0);
		if (a->ran && !(WIFEXITED(status) &&
				WEXITSTATUS(status) == 0)) {
			char how[64];
			describe_status(how, sizeof(how), status);
			warning("probe: the %s arm's process ended with %s",
				a->name, how);
		}
	}
	if (rec_started) {
		/* The target is gone: the recorder ends by itself; a stop
		 * makes sure. */
		if (!a->ran)
			rec_stop(&rt);
		recording_join(&rt.run);
		if (rt.run.rc != EXIT_OK && rc == EXIT_OK) {
			error("probe: recording the %s arm failed", a->name);
			rc = rt.run.rc;
			a->ran = false;
		}
	}
	probe_proc_close(pp);
	a->elapsed_s = now_monotonic() - t_start;
	return rc;
}

/* ---- the child --------------------------------------------------------- */

static int run_child(const struct probe_cfg *cfg, const char *kind,
		     const char *fds)
{
	int k = probe_arm_kind_parse(kind);
	int efd, afd;
	char tail;
	if (k < 0 || !fds || sscanf(fds, "%d,%d%c", &efd, &afd, &tail) != 2 ||
	    efd < 0 || afd < 0) {
		error("probe: bad --arm-child or --arm-fds");
		return EXIT_USAGE;
	}
	struct probe_arm_config c = {
		.kind = (enum probe_arm_kind)k,
		.threads = cfg->threads,
		.rounds = cfg->rounds,
		.min_size = (size_t)cfg->min_size,
		.max_size = (size_t)cfg->max_size,
		.idle_s = cfg->idle_s,
		.cap = (size_t)cfg->cap,
		.seed = cfg->seed,
		.event_fd = efd,
		.ack_fd = afd,
		.preload = cfg->preload,
	};
	return probe_arm_run(&c) ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- options ------------------------------------------------------------ */

/* --size-range "1MiB-4MiB": two sizes, the first <= the second, into
 * probe_cfg's min_size and max_size. */
static int parse_range(const struct cli_option *row, const char *s,
		       void *field)
{
	(void)row;
	struct probe_cfg *cfg = field;
	double *lo = &cfg->min_size, *hi = &cfg->max_size;
	const char *dash = strchr(s + (*s ? 1 : 0), '-');
	if (!dash)
		return error("--size-range: '%s' is not SIZE-SIZE (e.g. "
			     "1MiB-4MiB)", s);
	char *a = xstrdup(s);
	a[dash - s] = '\0';
	double q;
	int rc = 0;
	if (units_parse_size(a, lo, &q) || units_parse_size(dash + 1, hi, &q))
		rc = error("--size-range: cannot read '%s' as two sizes (%s)",
			   s, units_size_help());
	else if (!(*lo >= 1 && *lo <= *hi && *hi <= PROBE_MAX_SIZE))
		rc = error("--size-range: '%s' must go from at least 1 byte up "
			   "to at most 1GiB, the smaller first", s);
	free(a);
	return rc;
}

/* Where Debian and others put a library: the multiarch folder first. */
static char *find_library(const char *soname)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
#endif
		"/usr/lib64", "/usr/lib", "/usr/local/lib",
	};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dirs[i], soname);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return xstrdup(path);
	}
	return NULL;
}

static struct arm *arm_add(struct arm **v, size_t *n, size_t *cap,
			   const char *name, enum probe_role role,
			   enum probe_arm_kind kind)
{
	xgrow((void **)v, cap, *n + 1, sizeof(**v));
	struct arm *a = &(*v)[(*n)++];
	*a = (struct arm){.role = role, .kind = kind, .elapsed_s = NAN};
	snprintf(a->name, sizeof(a->name), "%s", name);
	return a;
}

/* The path an allocator is preloaded by (owned), after the checks the
 * parent can make (probe_alloc_check_library()), or NULL after a message.
 * what: how to name it in a message. The loader reads LD_PRELOAD as a
 * list split at spaces and colons, and searches a name without a slash
 * in its own folders, not in the current one: a relative name is made
 * absolute, so that the file checked here is the file preloaded. */
static char *allocator_path(const char *what, const char *path)
{
	char *abs;
	if (path[0] == '/') {
		abs = xstrdup(path);
	} else {
		abs = realpath(path, NULL);
		if (!abs) {
			if (strchr(path, '/'))
				error("%s '%s': %s", what, path,
				      strerror(errno));
			else
				error("%s '%s': %s (give its path: the "
				      "loader's own folders are not searched)",
				      what, path, strerror(errno));
			return NULL;
		}
	}
	if (strpbrk(abs, " :\t\n")) {
		error("%s '%s' cannot be preloaded: LD_PRELOAD splits its "
		      "value at spaces and colons (link it from a path "
		      "without them)", what, abs);
		free(abs);
		return NULL;
	}
	if (probe_alloc_check_library(abs)) {
		free(abs);
		return NULL;
	}
	return abs;
}

/* An arm for an allocator library: the known one's arm when it is one of
 * those (its path replaced), else a new arm named after the file. */
static void allocator_arm(struct arm **v, size_t *n, size_t *cap,
			  const char *path)
{
	enum probe_allocator k = probe_allocator_of_path(path);
	char name[96];
	if (k != PROBE_ALLOC_GLIBC) {
		snprintf(name, sizeof(name), "%s varying",
			 probe_allocator_name(k));
		for (size_t i = 0; i < *n; i++)
			if (!strcmp((*v)[i].name, name)) {
				free((*v)[i].preload);
				(*v)[i].preload = xstrdup(path);
				(*v)[i].skipped = NULL;
				return;
			}
	} else {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		size_t len = strcspn(base, ".");
		if (!strncmp(base, "lib", 3) && len > 3)
			base += 3, len -= 3;
		snprintf(name, sizeof(name), "%.*s varying",
			 (int)(len > 60 ? 60 : len), base);
	}
	struct arm *a = arm_add(v, n, cap, name, PROBE_ROLE_ALLOCATOR,
				PROBE_ARM_VARYING);
	a->preload = xstrdup(path);
}

int cmd_probe(int argc, char **argv)
{
	struct probe_args a = {
		.cfg = {
			.threads = 4, .rounds = 40,
			.min_size = 1024.0 * 1024, .max_size = 4096.0 * 1024,
			.idle_s = 3, .cap = 64.0 * 1024 * 1024, .seed = 1,
			.arm_timeout_s = PROBE_ARM_TIMEOUT_S,
		},
		.like = -1,
		.seed = 1,
	};
	int first = cli_parse(&probe_command, "", argc, argv, &a);
	const char *allocators[PROBE_MAX_ALLOCATORS];
	size_t n_allocators = a.allocators.n;
	assert(n_allocators <= PROBE_MAX_ALLOCATORS); /* the row's bound */
	for (size_t i = 0; i < n_allocators; i++)
		allocators[i] = a.allocators.v[i];
	cli_strings_release(&a.allocators);
	if (first == CLI_PARSE_HELP)
		return EXIT_OK;
	if (first < 0)
		return EXIT_USAGE;
	struct probe_cfg cfg = a.cfg;
	cfg.seed = (uint64_t)a.seed;
	const char *output = a.output, *arm_child = a.arm_child,
		   *arm_fds = a.arm_fds;
	long like = a.like;
	bool json = a.json;
	if (first != argc) {
		error("probe takes no arguments");
		return EXIT_USAGE;
	}
	if (arm_child)
		return run_child(&cfg, arm_child, arm_fds);
	struct stat out_st;
	if (output && lstat(output, &out_st) == 0) {
		error("'%s' already exists: name a new file for the probe's "
		      "recording", output);
		return EXIT_USAGE;
	}
	/* What can be checked of the allocators before any arm runs: exit 2
	 * at once rather than a row that measured glibc under their names. */
	char *alloc_paths[PROBE_MAX_ALLOCATORS];
	for (size_t i = 0; i < n_allocators; i++) {
		alloc_paths[i] = allocator_path("allocator", allocators[i]);
		if (!alloc_paths[i]) {
			for (size_t j = 0; j < i; j++)
				free(alloc_paths[j]);
			return EXIT_USAGE;
		}
	}
	/* --like: the service's threads and allocator. */
	struct probe_alloc_info info;
	char like_text[4400] = "";
	char *like_lib = NULL;
	if (like > 0) {
		if (probe_alloc_detect(NULL, (pid_t)like, &info) ||
		    (*info.path && !(like_lib = allocator_path(
					     "--like: the process's allocator",
					     info.path)))) {
			for (size_t j = 0; j < n_allocators; j++)
				free(alloc_paths[j]);
			return EXIT_USAGE;
		}
		if (info.threads > 0)
			cfg.threads = (int)(info.threads > PROBE_MAX_THREADS ?
					    PROBE_MAX_THREADS : info.threads);
		snprintf(like_text, sizeof(like_text), "PID %ld: %s%s%s%s, "
			 "%ld thread%s%s", like,
			 probe_allocator_name(info.allocator),
			 *info.path ? " (" : "", info.path,
			 *info.path ? ")" : "", info.threads,
			 info.threads == 1 ? "" : "s",
			 info.threads > PROBE_MAX_THREADS ?
			 " (the arms use 256)" : "");
	}

	/* The arms, in the table's order. */
	struct arm *arms = NULL;
	size_t n = 0, cap_arms = 0;
	arm_add(&arms, &n, &cap_arms, "glibc varying", PROBE_ROLE_VARYING,
		PROBE_ARM_VARYING);
	arm_add(&arms, &n, &cap_arms, "glibc fixed", PROBE_ROLE_FIXED,
		PROBE_ARM_FIXED);
	arm_add(&arms, &n, &cap_arms, "glibc capped", PROBE_ROLE_CAPPED,
		PROBE_ARM_CAPPED);
	arm_add(&arms, &n, &cap_arms, "glibc trim", PROBE_ROLE_TRIM,
		PROBE_ARM_TRIM);
	arm_add(&arms, &n, &cap_arms, "glibc arena_max=2",
		PROBE_ROLE_ARENA_MAX, PROBE_ARM_VARYING);
	static const struct {
		const char *name, *soname, *package;
	} known[] = {
		{"jemalloc varying", "libjemalloc.so.2", "libjemalloc2"},
		{"mimalloc varying", "libmimalloc.so.2", "libmimalloc2.0"},
	};
	static char skip_text[ARRAY_SIZE(known)][160];
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		struct arm *a = arm_add(&arms, &n, &cap_arms, known[i].name,
					PROBE_ROLE_ALLOCATOR,
					PROBE_ARM_VARYING);
		a->preload = find_library(known[i].soname);
		if (!a->preload) {
			snprintf(skip_text[i], sizeof(skip_text[i]),
				 "%s not found (Debian: apt install %s; or "
				 "--allocator PATH)", known[i].soname,
				 known[i].package);
			a->skipped = skip_text[i];
		}
	}
	if (like_lib)
		allocator_arm(&arms, &n, &cap_arms, like_lib);
	free(like_lib);
	for (size_t i = 0; i < n_allocators; i++) {
		allocator_arm(&arms, &n, &cap_arms, alloc_paths[i]);
		free(alloc_paths[i]);
	}
	const char *allocator_note = NULL;
#if defined(__SANITIZE_ADDRESS__)
	allocator_note = "memtrend is built with AddressSanitizer: the glibc "
			 "arms measure the sanitizer's allocator, not glibc's, "
			 "and no allocator can be preloaded";
	for (size_t i = 0; i < n; i++)
		if (arms[i].preload && !arms[i].skipped)
			arms[i].skipped = "memtrend is built with "
					  "AddressSanitizer, whose malloc a "
					  "preloaded allocator cannot replace";
#endif
	for (size_t i = 0; i < n; i++)
		arms[i].rounds = xcalloc((size_t)cfg.rounds, sizeof(double));

	char tmpdir[] = "/tmp/memtrend-probe-XXXXXX";
	char tmpfile[sizeof(tmpdir) + 16];
	const char *rec_path = output;
	bool tmp_made = false;
	int rc = EXIT_OK;
	struct probe *probe = NULL;
	char *invocation = cli_join_argv(argc, argv);
	if (!output) {
		if (!mkdtemp(tmpdir)) {
			error("cannot create a temporary directory: %m");
			rc = EXIT_RUNTIME;
			goto out;
		}
		snprintf(tmpfile, sizeof(tmpfile), "%s/probe.db", tmpdir);
		rec_path = tmpfile;
		tmp_made = true;
	}
	probe = probe_new(NULL, NULL);
	if (!probe) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* The stops (recording.c, as for every command that records) wake
	 * the arm's recorder through probe_wake; SIGPIPE is ignored while
	 * the arms run (an arm that died closes its acknowledgement pipe: an
	 * error to handle, not memtrend's death; exec_arm() restores it in
	 * arms). */
	if (pipe2(probe_wake, O_CLOEXEC | O_NONBLOCK)) {
		error("cannot create a pipe: %m");
		rc = EXIT_RUNTIME;
		goto out;
	}
	struct recording_signals stops;
	recording_signals_install(&stops, probe_wake[1], -1);
	struct sigaction old_pipe;
	struct sigaction ign = {.sa_handler = SIG_IGN};
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	double t0 = now_monotonic();
	size_t n_failed = 0;
	char sz_lo[32], sz_hi[32], dur[32];
	fprintf(stderr, "memtrend probe: %zu arms, %d thread%s, %ld rounds of "
		"%s-%s, %s idle each\n", n, cfg.threads,
		cfg.threads == 1 ? "" : "s", cfg.rounds,
		units_format_size(sz_lo, sizeof(sz_lo), cfg.min_size),
		units_format_size(sz_hi, sizeof(sz_hi), cfg.max_size),
		units_format_duration(dur, sizeof(dur), cfg.idle_s));
	for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
		if (arms[i].skipped) {
			fprintf(stderr, "  %-20s skipped: %s\n", arms[i].name,
				arms[i].skipped);
			continue;
		}
		fprintf(stderr, "  %-20s ...\n", arms[i].name);
		/* An arm that failed may have left part of a target in the
		 * file: the next one appends whenever the file exists. */
		struct stat rec_st;
		bool append = lstat(rec_path, &rec_st) == 0;
		rc = run_arm(&cfg, &arms[i], rec_path, append, probe,
			     invocation);
		n_failed += arms[i].failed != NULL;
	}
	double elapsed = now_monotonic() - t0;
	if (probe_stop) {
		error("probe: interrupted");
		rc = EXIT_RUNTIME;
	}
	recording_signals_restore(&stops);
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (rc != EXIT_OK)
		goto out;

	struct probe_arm_readings *rd = xcalloc(n, sizeof(*rd));
	for (size_t i = 0; i < n; i++)
		rd[i] = (struct probe_arm_readings){
			.name = arms[i].name,
			.role = arms[i].role,
			.preload = arms[i].preload,
			.ran = arms[i].ran,
			.skipped = arms[i].skipped,
			.failed = arms[i].failed,
			.elapsed_s = arms[i].elapsed_s,
			.baseline = arms[i].baseline,
			.rounds = arms[i].rounds,
			.n_rounds = arms[i].n_rounds,
			.idle = arms[i].idle,
			.cap = arms[i].role == PROBE_ROLE_CAPPED ? cfg.cap : NAN,
			.work = cfg.threads * (double)PROBE_ARM_LIVE *
				(cfg.min_size + cfg.max_size) / 2,
		};
	struct probe_arm_finding *f = xcalloc(n, sizeof(*f));
	struct probe_advice advice;
	probe_compare(rd, n, f, &advice);
	struct probe_report report = {
		.threads = cfg.threads, .rounds = cfg.rounds,
		.min_size = cfg.min_size, .max_size = cfg.max_size,
		.idle_s = cfg.idle_s, .cap = cfg.cap,
		.like = like > 0 ? like_text : NULL,
		.recording = output,
		.elapsed_s = elapsed,
		.allocator_note = allocator_note,
		.arms = rd, .findings = f, .n = n, .advice = &advice,
	};
	if ((json ? render_probe_json(stdout, &report) :
		    render_probe_text(stdout, &report)) ||
	    fflush(stdout)) {
		error("cannot write the output: %m");
		rc = EXIT_RUNTIME;
	} else if (n_failed) {
		/* The table holds what the other arms showed; the status
		 * says that it is not the experiment asked for. */
		error("probe: %zu arm%s failed (%s)", n_failed,
		      n_failed == 1 ? "" : "s", n_failed == 1 ?
		      "its row says why" : "their rows say why");
		rc = EXIT_RUNTIME;
	}
	free(f);
	free(rd);
out:
	if (tmp_made) {
		store_remove(tmpfile);
		rmdir(tmpdir);
	}
	probe_free(probe);
	if (probe_wake[0] >= 0) {
		close(probe_wake[0]);
		close(probe_wake[1]);
		probe_wake[0] = probe_wake[1] = -1;
	}
	free(invocation);
	for (size_t i = 0; i < n; i++) {
		free(arms[i].preload);
		free(arms[i].failed);
		free(arms[i].rounds);
	}
	free(arms);
	return rc;
}
