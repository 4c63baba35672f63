/*
 * tick.c - the recorder's per-tick work without the recorder around it:
 * the same library calls that its tick() makes for one -p target, most
 * through its process sampler (src/record/sampler_proc.c: called here
 * directly, without the one indirect call per operation) (probe_sys_read, probe_proc_read [+ probe_proc_read_smaps],
 * gpu_proc_sample (DRM fdinfo between full fd scans, NVML when loaded),
 * probe_cgroup_read, then store_system_add, store_sample_add,
 * store_cgroup_sample_add, and store_commit once a second), in the two
 * loops of bench_floor: tight (back to back) and sleeping to absolute
 * deadlines. Set beside bench_floor's tight loop it says what memtrend's
 * own work (parsing, SQLite) costs when the caches are warm, apart from what
 * waking up every interval costs.
 *
 *   bench_tick [-m status|smaps] [-n ITERS] [-t TIGHT_ITERS] [-i SECONDS]
 *              [-o FILE.db] PID
 *
 * Writes to FILE.db (default bench_tick.db in the current folder; replaced).
 * Output, one line per loop, as bench_floor's:
 *   tick mode=status variant=tight iters=N cpu_us=X wall_s=W
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "recorder_gpu.h"
#include "sink_set.h"
#include "store.h"

struct ctx {
	struct probe *probe;
	struct probe_proc *pp;
	struct probe_cgroup *cg;
	struct store *st;
	struct gpu_recorder *gpu;
	struct gpu_proc *gp;
	int64_t inc, cg_id;
	bool smaps;
	bool unequal;              /* -u: make every sample differ */
	double stamp, step;        /* the next tick's stamp, and its step */
	long n;
	double last_commit;
};

static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* recorder.c reads the system and cgroup figures at most once a second:
 * here every system_every-th tick (-k). */
static long system_every = 1, tick_no;

/* One tick, as recorder.c's tick() for a single -p target. */
static void tick(struct ctx *c)
{
	/* Stamped as recorder.c stamps an on-time tick: with its deadline,
	 * a constant step after the last (the store folds runs of equal
	 * samples on that condition). */
	double mono = clock_s(CLOCK_MONOTONIC), t = c->stamp;
	c->stamp += c->step;
	bool system = tick_no++ % system_every == 0;
	struct proc_mem mem;
	if (probe_proc_read(c->pp, &mem) != PROBE_OK) {
		fprintf(stderr, "bench_tick: the target is gone\n");
		exit(1);
	}
	/* GPU rows go to the recorder's sinks; a GPU-less bench machine
	 * emits none, so none is given */
	static const struct sink_set no_sinks = {NULL, 0};
	gpu_proc_sample(c->gpu, c->gp, &no_sinks, c->inc, t, mono, &mem);
	if (c->unequal)  /* the worst case: no two samples alike */
		mem.anon += 4096.0 * (double)(c->n++ & 1);
	struct proc_smaps sm;
	const struct proc_smaps *smp = NULL;
	if (c->smaps && probe_proc_read_smaps(c->pp, &sm) == PROBE_OK)
		smp = &sm;
	struct store_sample s = {c->inc, t, mem, smp};
	store_sample_add(c->st, &s);
	if (system) {
		struct sys_mem sys;
		if (probe_sys_read(c->probe, &sys) == 0)
			store_system_add(c->st, t, &sys);
		struct cgroup_mem cm;
		if (c->cg && probe_cgroup_read(c->cg, &cm) == 0)
			store_cgroup_sample_add(c->st, c->cg_id, t, &cm);
	}
	if (mono - c->last_commit >= 1.0) {
		store_commit(c->st);
		c->last_commit = mono;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_tick [-m status|smaps] [-n ITERS] "
		"[-t TIGHT_ITERS] [-i SECONDS] [-k EVERY] [-u] [-o FILE.db] "
		"PID\n       -u: every sample differs from the last (no runs "
		"of equal samples to fold)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode = "status", *db = "bench_tick.db";
	long iters = 2000, tight = -1;
	double interval = 0.01;
	int pid = 0;
	bool unequal = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-m") == 0 && i + 1 < argc)
			mode = argv[++i];
		else if (strcmp(a, "-n") == 0 && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (strcmp(a, "-t") == 0 && i + 1 < argc)
			tight = atol(argv[++i]);
		else if (strcmp(a, "-i") == 0 && i + 1 < argc)
			interval = atof(argv[++i]);
		else if (strcmp(a, "-o") == 0 && i + 1 < argc)
			db = argv[++i];
		else if (strcmp(a, "-u") == 0)
			unequal = true;
		else if (strcmp(a, "-k") == 0 && i + 1 < argc)
			system_every = atol(argv[++i]);
		else if (a[0] != '-' && !pid)
			pid = atoi(a);
		else
			usage();
	}
	struct ctx c = {.smaps = strcmp(mode, "smaps") == 0,
			.unequal = unequal,
			.stamp = clock_s(CLOCK_REALTIME),
			.step = interval > 0 ? interval : 0.01};
	if (pid <= 0 || iters <= 0 || interval < 0 ||
	    (!c.smaps && strcmp(mode, "status")))
		usage();
	if (tight < 0)
		tight = iters;

	c.probe = probe_new(NULL, NULL);
	if (!c.probe || probe_proc_open(c.probe, pid, &c.pp) != PROBE_OK) {
		fprintf(stderr, "bench_tick: cannot open pid %d\n", pid);
		return 1;
	}
	probe_cgroup_open(c.probe, pid, &c.cg);
	c.gpu = gpu_recorder_new(probe_proc_root(c.probe), true);
	c.gp = gpu_proc_new(c.gpu, pid);
	store_remove(db);
	c.st = store_create(db, false);
	if (!c.st)
		return 1;
	int64_t target = store_target_add(c.st, "pid", "bench", "bench", 0);
	if (c.cg)
		c.cg_id = store_cgroup_add(c.st, probe_cgroup_key(c.cg));
	c.inc = store_incarnation_add(c.st, target, probe_proc_identity(c.pp),
				      c.cg_id > 0 ? c.cg_id : 0,
				      clock_s(CLOCK_REALTIME));
	if (target < 0 || c.inc < 0 || store_commit(c.st))
		return 1;
	c.last_commit = clock_s(CLOCK_MONOTONIC);
	tick(&c); /* warm */

	if (tight > 0) {
		double c0 = cpu_now(), w0 = clock_s(CLOCK_MONOTONIC);
		for (long i = 0; i < tight; i++)
			tick(&c);
		printf("tick mode=%s variant=tight iters=%ld cpu_us=%.3f "
		       "wall_s=%.3f\n", mode, tight,
		       (cpu_now() - c0) / (double)tight * 1e6,
		       clock_s(CLOCK_MONOTONIC) - w0);
		fflush(stdout);
	}
	if (interval > 0) {
		double c0 = cpu_now(), w0 = clock_s(CLOCK_MONOTONIC);
		double next = w0;
		for (long i = 0; i < iters; i++) {
			tick(&c);
			double now = clock_s(CLOCK_MONOTONIC);
			next += interval;
			if (next < now)
				next = now + interval; /* skip, as recorder.c */
			struct timespec ts;
			ts.tv_sec = (time_t)next;
			ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
			if (i + 1 < iters)
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL);
		}
		printf("tick mode=%s variant=sleep iters=%ld interval_s=%g "
		       "cpu_us=%.3f wall_s=%.3f\n", mode, iters, interval,
		       (cpu_now() - c0) / (double)iters * 1e6,
		       clock_s(CLOCK_MONOTONIC) - w0);
	}
	store_close(c.st);
	probe_cgroup_close(c.cg);
	probe_proc_close(c.pp);
	gpu_proc_free(c.gp);
	gpu_recorder_free(c.gpu);
	probe_free(c.probe);
	return 0;
}
