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
 * What it does not do: judge a service (record and report do), or run
 * arms in parallel (on two cores they would measure each other).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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
#include "probe.h"
#include "probe_alloc.h"
#include "probe_arm.h"
#include "probe_compare.h"
#include "recorder.h"
#include "render_probe.h"
#include "store.h"
#include "units.h"

enum {
	OPT_THREADS = 256, OPT_ROUNDS, OPT_SIZES, OPT_IDLE, OPT_CAP,
	OPT_ALLOCATOR, OPT_LIKE, OPT_JSON, OPT_ARM_CHILD, OPT_ARM_FDS,
	OPT_SEED,
};

#define PROBE_MAX_THREADS 256
#define PROBE_MAX_ROUNDS 100000
#define PROBE_MAX_SIZE (1024.0 * 1024 * 1024)
#define PROBE_MAX_ALLOCATORS 4
#define PROBE_INTERVAL_S 0.1       /* the recording's sampling interval */

const struct cli_option probe_options[] = {
	CLI_SECTION("the experiment"),
	CLI_OPT(0, "threads", OPT_THREADS, "N", "threads allocating in "
		"parallel in each arm (default 4)"),
	CLI_OPT(0, "rounds", OPT_ROUNDS, "N", "rounds of allocate, touch, "
		"free (default 40)"),
	CLI_OPT(0, "size-range", OPT_SIZES, "SIZE-SIZE", "buffer sizes "
		"(default 1MiB-4MiB); the fixed arm uses the middle"),
	CLI_OPT(0, "idle", OPT_IDLE, "DUR", "idle period after the rounds "
		"(default 3s)"),
	CLI_OPT(0, "cap", OPT_CAP, "SIZE", "the capped arm's pool cap "
		"(default 64MiB)"),
	CLI_OPT(0, "allocator", OPT_ALLOCATOR, "PATH", "also run the varying "
		"arm with this allocator preloaded (an ELF shared object); "
		"may be repeated"),
	CLI_OPT(0, "like", OPT_LIKE, "PID", "set the arms up like this "
		"process: its thread count and its allocator"),
	CLI_SECTION("output"),
	CLI_OPT('o', "output", 'o', "FILE", "keep the recording (one target "
		"per arm) in FILE, for memtrend report"),
	CLI_OPT(0, "json", OPT_JSON, NULL, "print the table as JSON"),
	CLI_OPT('h', "help", 'h', NULL, "this help"),
	CLI_HIDDEN("arm-child", OPT_ARM_CHILD, "KIND"),
	CLI_HIDDEN("arm-fds", OPT_ARM_FDS, "EV,ACK"),
	CLI_HIDDEN("seed", OPT_SEED, "N"),
	CLI_END_ROW,
};

static void probe_usage(FILE *out)
{
	fprintf(out,
"usage: memtrend probe [options]\n"
"\n"
"Is it the allocator? Allocate and free buffers of varying sizes, of one\n"
"size, under a cap, with malloc_trim, with MALLOC_ARENA_MAX=2, and under\n"
"jemalloc and mimalloc where installed, each arm in its own process;\n"
"print what each kept after the rounds and after idle, and which setting\n"
"keeps least. Takes about a minute with the defaults.\n");
	cli_options_help(out, probe_options);
}

/* ---- the arms ---------------------------------------------------------- */

struct probe_cfg {
	int threads;
	long rounds;
	double min_size, max_size, idle_s, cap;
	uint64_t seed;
};

struct arm {
	char name[96];
	enum probe_role role;
	enum probe_arm_kind kind;
	char *preload;             /* owned, or NULL */
	const char *skipped;       /* why not run (static text), or NULL */
	char *skipped_owned;       /* ... when built here */
	/* Readings. */
	bool ran;
	double baseline, idle;
	double *rounds;            /* owned; cfg.rounds */
	size_t n_rounds;
};

static volatile sig_atomic_t probe_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	probe_stop = 1;
}

/* The recorder's thread: one recorder_run per arm. */
struct rec_thread {
	struct recorder_options ro;
	struct recorder_result res;
	int rc;
	atomic_uint ticks;
	atomic_int stop;
	int wake[2];
	pthread_t thread;
};

static int rec_should_stop(void *ctx)
{
	struct rec_thread *rt = ctx;
	return atomic_load(&rt->stop) ? SIGTERM : 0;
}

static void rec_on_tick(void *ctx, const struct recorder_tick *k)
{
	(void)k;
	struct rec_thread *rt = ctx;
	atomic_fetch_add(&rt->ticks, 1);
}

static void *rec_main(void *arg)
{
	struct rec_thread *rt = arg;
	struct recorder_hooks hooks = {
		.ctx = rt,
		.should_stop = rec_should_stop,
		.on_tick = rec_on_tick,
		.wake_fd = rt->wake[0],
	};
	rt->rc = recorder_run(&rt->ro, &hooks, &rt->res);
	return NULL;
}

static void rec_stop(struct rec_thread *rt)
{
	atomic_store(&rt->stop, 1);
	ssize_t w = write(rt->wake[1], "s", 1);
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

/* Read one event (what, n) from fd; -1 at EOF, on an error or a stop. */
static int read_event(int fd, uint32_t ev[2])
{
	size_t got = 0;
	while (got < 2 * sizeof(uint32_t)) {
		if (probe_stop)
			return -1;
		ssize_t k = read(fd, (char *)ev + got,
				 2 * sizeof(uint32_t) - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
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

/* Run arm a, recorded into output (appending when append). EXIT_OK with
 * a->ran; EXIT_OK with a->skipped when a preloaded allocator's child died
 * before it started; otherwise an exit code after a message. */
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
			"--arm-fds", fds, NULL};
	char **env = arm_environ(a);
	pid_t child = fork();
	if (child < 0) {
		error("cannot fork: %m");
		strv_free(env);
		close(ev[0]), close(ev[1]), close(ak[0]), close(ak[1]);
		return EXIT_RUNTIME;
	}
	if (child == 0) {
		/* Async-signal-safe calls only. */
		fcntl(ev[1], F_SETFD, 0);
		fcntl(ak[0], F_SETFD, 0);
		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	strv_free(env);
	close(ev[1]);
	close(ak[0]);
	int rc = EXIT_RUNTIME;
	struct probe_proc *pp = NULL;
	struct rec_thread rt = {.rc = EXIT_OK, .wake = {-1, -1}};
	bool rec_started = false;
	uint32_t e[2];
	if (read_event(ev[0], e) || e[0] != PROBE_EV_START) {
		int status = 0;
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		child = -1;
		if (probe_stop)
			goto out;
		char how[64];
		describe_status(how, sizeof(how), status);
		if (a->preload) {
			char *why = xmalloc(strlen(a->preload) + 128);
			sprintf(why, "its process did not start with "
				"LD_PRELOAD=%s (%s)", a->preload, how);
			a->skipped = a->skipped_owned = why;
			warning("probe: %s: %s", a->name, why);
			rc = EXIT_OK;
		} else {
			error("probe: the %s arm did not start (%s)", a->name,
			      how);
		}
		goto out;
	}
	if (probe_proc_open(probe, child, &pp) != PROBE_OK) {
		error("probe: cannot read the %s arm's process", a->name);
		goto out;
	}
	/* The recorder, in a thread that takes no signals. */
	if (pipe2(rt.wake, O_CLOEXEC)) {
		error("cannot create a pipe: %m");
		goto out;
	}
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
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&rt.thread, NULL, rec_main, &rt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		error("cannot start a thread: %s", strerror(err));
		goto out;
	}
	rec_started = true;
	/* The baseline once the recording has it too. */
	if (!rec_wait_tick(&rt, 0)) {
		if (!probe_stop)
			error("probe: the recorder did not start");
		goto out;
	}
	a->baseline = footprint_now(pp);
	if (ack(ak[1]))
		goto out;
	a->n_rounds = 0;
	for (;;) {
		if (read_event(ev[0], e)) {
			if (!probe_stop)
				error("probe: the %s arm ended early",
				      a->name);
			goto out;
		}
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
			error("probe: the %s arm sent an unexpected event "
			      "(%u %u)", a->name, e[0], e[1]);
			goto out;
		}
		if (ack(ak[1]))
			goto out;
	}
	a->ran = true;
	rc = EXIT_OK;
	ack(ak[1]);
out:
	close(ev[0]);
	close(ak[1]);
	if (child > 0) {
		int status;
		if (rc != EXIT_OK)
			kill(child, SIGKILL);
		waitpid(child, &status, 0);
		if (rc == EXIT_OK && !(WIFEXITED(status) &&
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
		if (rc != EXIT_OK)
			rec_stop(&rt);
		pthread_join(rt.thread, NULL);
		if (rt.rc != EXIT_OK && rc == EXIT_OK) {
			error("probe: recording the %s arm failed", a->name);
			rc = rt.rc;
			a->ran = false;
		}
	}
	if (rt.wake[0] >= 0)
		close(rt.wake[0]), close(rt.wake[1]);
	probe_proc_close(pp);
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
	};
	return probe_arm_run(&c) ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- options ------------------------------------------------------------ */

static int parse_count(const char *opt, const char *s, long lo, long hi,
		       long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return error("%s: '%s' is not a whole number from %ld to %ld",
			     opt, s, lo, hi);
	*out = v;
	return 0;
}

/* "1MiB-4MiB": two sizes, the first <= the second. */
static int parse_range(const char *s, double *lo, double *hi)
{
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
	*a = (struct arm){.role = role, .kind = kind};
	snprintf(a->name, sizeof(a->name), "%s", name);
	return a;
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
	static struct option *longopts;
	static char *shortopts;
	if (!longopts)
		cli_options_getopt(probe_options, "", &longopts, &shortopts);
	struct probe_cfg cfg = {
		.threads = 4, .rounds = 40,
		.min_size = 1024.0 * 1024, .max_size = 4096.0 * 1024,
		.idle_s = 3, .cap = 64.0 * 1024 * 1024, .seed = 1,
	};
	const char *output = NULL, *arm_child = NULL, *arm_fds = NULL;
	const char *allocators[PROBE_MAX_ALLOCATORS];
	size_t n_allocators = 0;
	long like = -1;
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, shortopts, longopts)) !=
	       -1) {
		long v;
		double q;
		switch (c) {
		case OPT_THREADS:
			if (parse_count("--threads", optarg, 1,
					PROBE_MAX_THREADS, &v))
				return EXIT_USAGE;
			cfg.threads = (int)v;
			break;
		case OPT_ROUNDS:
			if (parse_count("--rounds", optarg, 1,
					PROBE_MAX_ROUNDS, &cfg.rounds))
				return EXIT_USAGE;
			break;
		case OPT_SIZES:
			if (parse_range(optarg, &cfg.min_size, &cfg.max_size))
				return EXIT_USAGE;
			break;
		case OPT_IDLE:
			if (units_parse_duration(optarg, &cfg.idle_s) ||
			    !(cfg.idle_s >= 0 && cfg.idle_s <= 86400)) {
				error("--idle: cannot read '%s' as a duration "
				      "up to 1d (e.g. 3s, 500ms)", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_CAP:
			if (units_parse_size(optarg, &cfg.cap, &q) ||
			    !(cfg.cap >= 1 && cfg.cap <= 64 * PROBE_MAX_SIZE)) {
				error("--cap: cannot read '%s' as a size up to "
				      "64GiB (%s)", optarg, units_size_help());
				return EXIT_USAGE;
			}
			break;
		case OPT_ALLOCATOR:
			if (n_allocators == PROBE_MAX_ALLOCATORS) {
				error("--allocator: at most %d",
				      PROBE_MAX_ALLOCATORS);
				return EXIT_USAGE;
			}
			if (probe_alloc_check_library(optarg))
				return EXIT_USAGE;
			allocators[n_allocators++] = optarg;
			break;
		case OPT_LIKE:
			if (parse_count("--like", optarg, 1, 1L << 30, &like))
				return EXIT_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_ARM_CHILD:
			arm_child = optarg;
			break;
		case OPT_ARM_FDS:
			arm_fds = optarg;
			break;
		case OPT_SEED:
			if (parse_count("--seed", optarg, 0, 1L << 62, &v))
				return EXIT_USAGE;
			cfg.seed = (uint64_t)v;
			break;
		case 'h':
			probe_usage(stdout);
			return EXIT_OK;
		default:
			error("probe: unknown option or missing value: '%s' "
			      "(see 'memtrend probe --help')",
			      argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
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
	/* --like: the service's threads and allocator. */
	struct probe_alloc_info info;
	char like_text[4400] = "";
	if (like > 0) {
		if (probe_alloc_detect(NULL, (pid_t)like, &info))
			return EXIT_USAGE;
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
	if (like > 0 && *info.path)
		allocator_arm(&arms, &n, &cap_arms, info.path);
	for (size_t i = 0; i < n_allocators; i++)
		allocator_arm(&arms, &n, &cap_arms, allocators[i]);
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
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old[ARRAY_SIZE(sigs)];
	struct sigaction sa = {.sa_handler = on_stop_signal};
	sigemptyset(&sa.sa_mask);
	probe_stop = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, &old[i]);
	double t0 = now_monotonic();
	bool created = false;
	char sz_lo[32], sz_hi[32], dur[32];
	fprintf(stderr, "memtrend probe: %zu arms, %d threads, %ld rounds of "
		"%s-%s, %s idle each\n", n, cfg.threads, cfg.rounds,
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
		rc = run_arm(&cfg, &arms[i], rec_path, created, probe,
			     invocation);
		created = created || arms[i].ran;
	}
	double elapsed = now_monotonic() - t0;
	if (probe_stop) {
		error("probe: interrupted");
		rc = EXIT_RUNTIME;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &old[i], NULL);
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
	}
	free(f);
	free(rd);
out:
	if (tmp_made) {
		store_remove(tmpfile);
		rmdir(tmpdir);
	}
	probe_free(probe);
	free(invocation);
	for (size_t i = 0; i < n; i++) {
		free(arms[i].preload);
		free(arms[i].skipped_owned);
		free(arms[i].rounds);
	}
	free(arms);
	return rc;
}
