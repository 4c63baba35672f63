/*
 * test_probe.c - unit tests for the Linux probe (probe_linux.c).
 *
 * Two kinds of test:
 *   - fixture tests read the trees under $FIXTURES (proc-v1/sys-v1: cgroup
 *     v1 host as this project's machines are; proc-v2/sys-v2: pure cgroup
 *     v2; proc-hybrid/sys-hybrid: v1 controllers plus the v2 tree at
 *     fs/cgroup/unified; proc-old-kernel/sys-old-kernel: Linux 3.x without
 *     RssAnon, MemAvailable, PSI or smaps_rollup). They are written as
 *     tables: fixture -> expected figures. Every expected value was read
 *     by hand from the fixture file named in the comment beside it (kB
 *     fields times 1024), not produced by the code under test;
 *   - real tests probe this process, a forked child and this machine's
 *     cgroup through the real /proc and /sys, to check what fixtures
 *     cannot: that a kept status fd of an exited process reads ESRCH, that
 *     RSS follows a 64 MiB allocation, that the cgroup resolves here.
 * A few tests build a scratch tree under /tmp for cases that need to change
 * files under an open handle or need an unusually large file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "probe.h"
#include "target.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

static const char *fixtures;

static char *fx(const char *tree)
{
	static char buf[4][1024];
	static int slot;
	char *s = buf[slot++ % 4];
	snprintf(s, sizeof(buf[0]), "%s/%s", fixtures, tree);
	return s;
}

static struct probe *probe_fx(const char *proc, const char *sys)
{
	struct probe *p = probe_new(fx(proc), sys ? fx(sys) : "/nonexistent");
	assert_non_null(p);
	return p;
}

/* Both absent, or equal: fixture figures are whole kB, exact in a double. */
static void check_figure(const char *what, double want, double got)
{
	if (isnan(want) && isnan(got))
		return;
	if (isnan(want) != isnan(got) || fabs(want - got) > 1e-6) {
		print_error("%s: want %.17g, got %.17g\n", what, want, got);
		fail();
	}
}

/* ---- roots ---------------------------------------------------------- */

static void test_roots(void **state)
{
	(void)state;
	unsetenv("MEMTREND_PROC_ROOT");
	unsetenv("MEMTREND_SYS_ROOT");
	struct probe *p = probe_new(NULL, NULL);
	assert_non_null(p);
	assert_string_equal(probe_proc_root(p), "/proc");
	probe_free(p);

	setenv("MEMTREND_PROC_ROOT", fx("proc-v1"), 1);
	setenv("MEMTREND_SYS_ROOT", fx("sys-v1"), 1);
	p = probe_new(NULL, NULL);
	assert_non_null(p);
	assert_string_equal(probe_proc_root(p), fx("proc-v1"));
	/* the sys root from the environment is used: 1234's v1 cgroup */
	struct probe_cgroup *cg = NULL;
	assert_int_equal(probe_cgroup_open(p, 1234, &cg), PROBE_OK);
	assert_non_null(cg);
	assert_string_equal(probe_cgroup_key(cg), "v1:/process_api/abc");
	probe_cgroup_close(cg);
	probe_free(p);

	/* an explicit root beats the environment */
	p = probe_new(fx("proc-v2"), NULL);
	assert_non_null(p);
	assert_string_equal(probe_proc_root(p), fx("proc-v2"));
	probe_free(p);
	unsetenv("MEMTREND_PROC_ROOT");
	unsetenv("MEMTREND_SYS_ROOT");

	assert_null(probe_new("/nonexistent/proc", NULL));
	assert_null(probe_new(fx("proc-v1/stat"), NULL)); /* not a directory */
}

/* ---- /proc/PID/status ------------------------------------------------ */

struct status_case {
	const char *proc;
	pid_t pid;
	double rss, anon, file, shmem, swap, pte, footprint;
};

/* From the VmRSS, RssAnon, RssFile, RssShmem, VmSwap, VmPTE lines of
 * <tree>/<pid>/status; footprint = RssAnon + VmSwap + RssShmem. */
static const struct status_case status_cases[] = {
	/* proc-v1/1234/status: 412340 300000 100000 12340 2048 1200 */
	{ "proc-v1", 1234, 412340 * KIB, 300000 * KIB, 100000 * KIB,
	  12340 * KIB, 2048 * KIB, 1200 * KIB,
	  (300000 + 2048 + 12340) * KIB },
	/* proc-v1/1300/status: 3072 1024 2048 0 0 60 */
	{ "proc-v1", 1300, 3072 * KIB, 1024 * KIB, 2048 * KIB, 0, 0,
	  60 * KIB, 1024 * KIB },
	/* proc-v1/1500/status: 8192 4096 3072 1024 512 100 */
	{ "proc-v1", 1500, 8192 * KIB, 4096 * KIB, 3072 * KIB, 1024 * KIB,
	  512 * KIB, 100 * KIB, (4096 + 512 + 1024) * KIB },
	/* proc-v2/2001/status: 5242880 4194304 1000000 48576 0 12000 */
	{ "proc-v2", 2001, 5242880 * KIB, 4194304 * KIB, 1000000 * KIB,
	  48576 * KIB, 0, 12000 * KIB, (4194304 + 48576) * KIB },
	/* proc-v2/2/status: kernel thread, no Vm/Rss lines at all */
	{ "proc-v2", 2, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
	/* proc-hybrid/3101/status: 140000 20000 40000 80000 1000 400 */
	{ "proc-hybrid", 3101, 140000 * KIB, 20000 * KIB, 40000 * KIB,
	  80000 * KIB, 1000 * KIB, 400 * KIB,
	  (20000 + 1000 + 80000) * KIB },
	/* proc-old-kernel/4001/status: Linux < 4.5, VmRSS 204800, no Rss*
	 * lines, VmSwap 1024, VmPTE 400: footprint unknown */
	{ "proc-old-kernel", 4001, 204800 * KIB, NAN, NAN, NAN, 1024 * KIB,
	  400 * KIB, NAN },
	/* proc-old-kernel/4002/status: VmRSS 1700, RssAnon 100, RssFile
	 * 1600, VmPTE 40, no RssShmem and no VmSwap: they count as 0 */
	{ "proc-old-kernel", 4002, 1700 * KIB, 100 * KIB, 1600 * KIB, NAN,
	  NAN, 40 * KIB, 100 * KIB },
};

static void test_status_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(status_cases); i++) {
		const struct status_case *c = &status_cases[i];
		struct probe *p = probe_fx(c->proc, NULL);
		struct probe_proc *pp = NULL;
		print_message("status %s/%d\n", c->proc, (int)c->pid);
		assert_int_equal(probe_proc_open(p, c->pid, &pp), PROBE_OK);
		struct proc_mem m;
		/* twice: the second read goes through the kept fd again */
		for (int round = 0; round < 2; round++) {
			assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
			check_figure("rss", c->rss, m.rss);
			check_figure("anon", c->anon, m.anon);
			check_figure("file", c->file, m.file);
			check_figure("shmem", c->shmem, m.shmem);
			check_figure("swap", c->swap, m.swap);
			check_figure("pagetables", c->pte, m.pagetables);
			check_figure("footprint", c->footprint, m.footprint);
		}
		assert_true(probe_proc_alive(pp));
		probe_proc_close(pp);
		probe_free(p);
	}
}

static void test_zombie_fixture(void **state)
{
	(void)state;
	struct probe *p = probe_fx("proc-v1", "sys-v1");
	struct probe_proc *pp = NULL;
	/* proc-v1/1400: "State: Z (zombie)", no Vm lines; its stat still
	 * reads, so a handle opens, but it has exited */
	assert_int_equal(probe_proc_open(p, 1400, &pp), PROBE_OK);
	assert_string_equal(probe_proc_identity(pp)->comm, "worker");
	assert_string_equal(probe_proc_identity(pp)->cmdline, "");
	struct proc_mem m;
	assert_int_equal(probe_proc_read(pp, &m), PROBE_GONE);
	assert_true(isnan(m.rss) && isnan(m.footprint));
	assert_false(probe_proc_alive(pp));
	probe_proc_close(pp);
	probe_free(p);
}

/* ---- identity (stat, cmdline, btime) ------------------------------- */

struct identity_case {
	const char *proc;
	pid_t pid, ppid;
	unsigned long long start_ticks;
	double start_time; /* btime from <tree>/stat + ticks / 100 */
	const char *comm, *cmdline;
};

static const struct identity_case identity_cases[] = {
	/* proc-v1/stat btime 1717000000; proc-v1/1234/stat ppid 1,
	 * field 22 = 123456; cmdline with NUL separators */
	{ "proc-v1", 1234, 1, 123456, 1717000000 + 1234.56, "python3",
	  "/usr/bin/python3 -m http.server --bind 127.0.0.1 8080" },
	/* proc-v1/1300/stat: "1300 ((sd-pam) x)) S 1299 ..." field 22 4567 */
	{ "proc-v1", 1300, 1299, 4567, 1717000000 + 45.67, "(sd-pam) x)",
	  "(sd-pam)" },
	/* proc-v1/1500: cmdline is one argument holding spaces */
	{ "proc-v1", 1500, 1, 99999999, 1717000000 + 999999.99, "nginx",
	  "nginx: master process /usr/sbin/nginx -g daemon on; "
	  "master_process on;" },
	/* proc-v2/stat btime 1700000000; 2001 starttime 360000 */
	{ "proc-v2", 2001, 1, 360000, 1700000000 + 3600.0, "llama-server",
	  "/opt/llama/llama-server -m /models/m.gguf --port 8000" },
	/* proc-v2/2: kernel thread, empty cmdline, ppid 0, starttime 0 */
	{ "proc-v2", 2, 0, 0, 1700000000, "kthreadd", "" },
	/* proc-old-kernel/stat btime 1500000000; 4001 starttime 8000 */
	{ "proc-old-kernel", 4001, 1, 8000, 1500000000 + 80.0, "java",
	  "java -Xmx512m -jar app.jar" },
};

static void check_identity(const struct identity_case *c,
			   const struct proc_identity *id)
{
	assert_int_equal(id->pid, c->pid);
	assert_int_equal(id->ppid, c->ppid);
	assert_true(id->start_ticks == c->start_ticks);
	check_figure("start_time", c->start_time, id->start_time);
	assert_string_equal(id->comm, c->comm);
	assert_non_null(id->cmdline);
	assert_string_equal(id->cmdline, c->cmdline);
}

static void test_identity_table(void **state)
{
	(void)state;
	/* the fixtures' start times assume USER_HZ = 100 */
	assert_int_equal(sysconf(_SC_CLK_TCK), 100);
	for (size_t i = 0; i < ARRAY_SIZE(identity_cases); i++) {
		const struct identity_case *c = &identity_cases[i];
		print_message("identity %s/%d\n", c->proc, (int)c->pid);
		struct probe *p = probe_fx(c->proc, NULL);
		struct proc_identity id;
		assert_int_equal(probe_identity_read(p, c->pid, &id), PROBE_OK);
		check_identity(c, &id);
		proc_identity_release(&id);
		assert_null(id.cmdline);

		struct probe_proc *pp = NULL;
		assert_int_equal(probe_proc_open(p, c->pid, &pp), PROBE_OK);
		check_identity(c, probe_proc_identity(pp));
		probe_proc_close(pp);

		/* probe_proc_open_seen(): the same incarnation keeps the
		 * command line it was seen with (not read again: a marker
		 * that is in no file comes back); another start time is
		 * another incarnation, whose own is read. */
		assert_int_equal(probe_identity_read(p, c->pid, &id), PROBE_OK);
		struct proc_identity seen = id;
		seen.cmdline = (char *)"seen-not-read";
		assert_int_equal(probe_proc_open_seen(p, &seen, &pp), PROBE_OK);
		assert_string_equal(probe_proc_identity(pp)->cmdline,
				    "seen-not-read");
		assert_int_equal(probe_proc_identity(pp)->start_ticks,
				 id.start_ticks);
		probe_proc_close(pp);
		seen.start_ticks++;
		assert_int_equal(probe_proc_open_seen(p, &seen, &pp), PROBE_OK);
		check_identity(c, probe_proc_identity(pp));
		probe_proc_close(pp);
		proc_identity_release(&id);
		probe_free(p);
	}
}

static void test_boot_time(void **state)
{
	(void)state;
	struct probe *p = probe_fx("proc-v1", NULL);
	check_figure("btime", 1717000000, probe_boot_time(p)); /* proc-v1/stat */
	check_figure("btime again", 1717000000, probe_boot_time(p));
	probe_free(p);
	/* sys-v1 is no proc tree: no stat file, so absent */
	p = probe_fx("sys-v1", NULL);
	assert_true(isnan(probe_boot_time(p)));
	probe_free(p);
}

static void test_gone_fixture(void **state)
{
	(void)state;
	struct probe *p = probe_fx("proc-v1", "sys-v1");
	struct proc_identity id;
	struct probe_proc *pp = (struct probe_proc *)&id; /* must be reset */
	struct probe_cgroup *cg = (struct probe_cgroup *)&id;
	assert_int_equal(probe_identity_read(p, 4242, &id), PROBE_GONE);
	assert_int_equal(probe_proc_open(p, 4242, &pp), PROBE_GONE);
	assert_null(pp);
	assert_int_equal(probe_cgroup_open(p, 4242, &cg), PROBE_GONE);
	assert_null(cg);
	probe_free(p);
}

/* ---- smaps_rollup ----------------------------------------------------- */

struct smaps_case {
	const char *proc;
	pid_t pid;
	int rc;
	double pss, pss_anon, private_dirty, swap_pss;
};

static const struct smaps_case smaps_cases[] = {
	/* proc-v1/1234/smaps_rollup: Pss 350000, Pss_Anon 300000,
	 * Private_Dirty 299000, SwapPss 1024 */
	{ "proc-v1", 1234, PROBE_OK, 350000 * KIB, 300000 * KIB,
	  299000 * KIB, 1024 * KIB },
	/* proc-v1/1300/smaps_rollup: 1500 1024 1000 0 */
	{ "proc-v1", 1300, PROBE_OK, 1500 * KIB, 1024 * KIB, 1000 * KIB, 0 },
	/* proc-v1/1500 has no smaps_rollup: stands in for EACCES (as root
	 * no file mode can deny us) and maps the same way */
	{ "proc-v1", 1500, PROBE_DENIED, NAN, NAN, NAN, NAN },
	/* Linux < 4.14 has no smaps_rollup at all */
	{ "proc-old-kernel", 4001, PROBE_DENIED, NAN, NAN, NAN, NAN },
};

static void test_smaps_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(smaps_cases); i++) {
		const struct smaps_case *c = &smaps_cases[i];
		print_message("smaps %s/%d\n", c->proc, (int)c->pid);
		struct probe *p = probe_fx(c->proc, NULL);
		struct probe_proc *pp = NULL;
		assert_int_equal(probe_proc_open(p, c->pid, &pp), PROBE_OK);
		for (int round = 0; round < 2; round++) {
			struct proc_smaps s;
			assert_int_equal(probe_proc_read_smaps(pp, &s), c->rc);
			check_figure("pss", c->pss, s.pss);
			check_figure("pss_anon", c->pss_anon, s.pss_anon);
			check_figure("private_dirty", c->private_dirty,
				     s.private_dirty);
			check_figure("swap_pss", c->swap_pss, s.swap_pss);
		}
		/* a denied smaps_rollup leaves status readable */
		struct proc_mem m;
		assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
		probe_proc_close(pp);
		probe_free(p);
	}
}

/* ---- meminfo and PSI ------------------------------------------------- */

struct sys_case {
	const char *proc;
	double mem_total, mem_available, swap_total, swap_free;
	double some_avg10, full_avg10, some_total, full_total;
};

static const struct sys_case sys_cases[] = {
	/* proc-v1/meminfo: MemTotal 24683548, MemAvailable 22357232,
	 * SwapTotal 2097148, SwapFree 1048572; proc-v1/pressure/memory:
	 * some avg10=1.25 total=123456, full avg10=0.75 total=65432 */
	{ "proc-v1", 24683548 * KIB, 22357232 * KIB, 2097148 * KIB,
	  1048572 * KIB, 1.25, 0.75, 123456, 65432 },
	/* proc-v2/meminfo: 65536000 50000000 0 0; pressure: some 12.50
	 * total=98765432, full 5.01 total=45678901 */
	{ "proc-v2", 65536000 * KIB, 50000000 * KIB, 0, 0, 12.5, 5.01,
	  98765432, 45678901 },
	/* proc-hybrid/meminfo: 16384000 12000000 4194300 4194300; no PSI */
	{ "proc-hybrid", 16384000 * KIB, 12000000 * KIB, 4194300 * KIB,
	  4194300 * KIB, NAN, NAN, NAN, NAN },
	/* proc-old-kernel/meminfo: no MemAvailable (Linux < 3.14);
	 * MemTotal 8062012, SwapTotal 8257532, SwapFree 8000000; no PSI */
	{ "proc-old-kernel", 8062012 * KIB, NAN, 8257532 * KIB,
	  8000000 * KIB, NAN, NAN, NAN, NAN },
	/* not a proc tree: everything absent, still no failure */
	{ "sys-v1", NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN },
};

static void test_sys_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sys_cases); i++) {
		const struct sys_case *c = &sys_cases[i];
		print_message("sys %s\n", c->proc);
		struct probe *p = probe_fx(c->proc, NULL);
		for (int round = 0; round < 2; round++) {
			struct sys_mem s;
			assert_int_equal(probe_sys_read(p, &s), PROBE_OK);
			check_figure("mem_total", c->mem_total, s.mem_total);
			check_figure("mem_available", c->mem_available,
				     s.mem_available);
			check_figure("swap_total", c->swap_total, s.swap_total);
			check_figure("swap_free", c->swap_free, s.swap_free);
			check_figure("psi_some_avg10", c->some_avg10,
				     s.psi_some_avg10);
			check_figure("psi_full_avg10", c->full_avg10,
				     s.psi_full_avg10);
			check_figure("psi_some_total", c->some_total,
				     s.psi_some_total);
			check_figure("psi_full_total", c->full_total,
				     s.psi_full_total);
		}
		probe_free(p);
	}
}

/* ---- PID list --------------------------------------------------------- */

static void test_list_pids_fixture(void **state)
{
	(void)state;
	static const struct {
		const char *proc;
		size_t n;
		pid_t want[8];
	} cases[] = {
		/* directories of proc-v1; "self" (link), "sys" and the files
		 * stat, meminfo, uptime are not PIDs */
		{ "proc-v1", 4, { 1234, 1300, 1400, 1500 } },
		{ "proc-v2", 5, { 2, 2001, 2002, 2003, 2004 } },
		{ "proc-old-kernel", 2, { 4001, 4002 } },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct probe *p = probe_fx(cases[i].proc, NULL);
		pid_t *pids = NULL;
		size_t n = 0;
		assert_int_equal(probe_list_pids(p, &pids, &n), 0);
		assert_int_equal(n, cases[i].n);
		for (size_t k = 0; k < n; k++)
			assert_int_equal(pids[k], cases[i].want[k]);
		free(pids);
		probe_free(p);
	}
}

/* ---- cgroups ---------------------------------------------------------- */

struct cgroup_case {
	const char *proc, *sys;
	pid_t pid;
	const char *key; /* NULL: no readable memory cgroup */
	double current, max, peak;
};

static const struct cgroup_case cgroup_cases[] = {
	/* proc-v1/1234/cgroup "4:memory:/process_api/abc" ->
	 * sys-v1/fs/cgroup/memory/process_api/abc: usage 536870912,
	 * limit 2147483648, max_usage 805306368 */
	{ "proc-v1", "sys-v1", 1234, "v1:/process_api/abc", 536870912.0,
	  2147483648.0, 805306368.0 },
	/* proc-v1/1300/cgroup "7:cpu,memory:/x" -> .../memory/x: usage
	 * 10485760, limit 9223372036854771712 (unlimited), max 12582912 */
	{ "proc-v1", "sys-v1", 1300, "v1:/x", 10485760.0, NAN, 12582912.0 },
	/* proc-v1/1500/cgroup names a path not mounted here (container):
	 * falls back to sys-v1/fs/cgroup/memory: 175992832, unlimited,
	 * 1320685568 */
	{ "proc-v1", "sys-v1", 1500,
	  "v1:/process_api/ae11745eed637639a9318cd7b5c820e4", 175992832.0,
	  NAN, 1320685568.0 },
	/* proc-v2/2001/cgroup "0::/system.slice/llama.service":
	 * current 5905580032, max 8589934592, peak 6442450944 */
	{ "proc-v2", "sys-v2", 2001, "v2:/system.slice/llama.service",
	  5905580032.0, 8589934592.0, 6442450944.0 },
	/* 2002: current 9437184, max "max", no memory.peak (Linux < 5.19) */
	{ "proc-v2", "sys-v2", 2002,
	  "v2:/user.slice/user-1000.slice/session-3.scope", 9437184.0, NAN,
	  NAN },
	/* 2003 in the v2 root: the root cgroup has no memory.current */
	{ "proc-v2", "sys-v2", 2003, NULL, 0, 0, 0 },
	/* 2004: "0::/../../other.slice/x.scope" lies outside our namespace */
	{ "proc-v2", "sys-v2", 2004, NULL, 0, 0, 0 },
	/* proc-hybrid/3101: v1 memory line and a v2 line; v1 wins:
	 * sys-hybrid/fs/cgroup/memory/system.slice/postgresql.service:
	 * 157286400, 1073741824, 209715200 */
	{ "proc-hybrid", "sys-hybrid", 3101,
	  "v1:/system.slice/postgresql.service", 157286400.0, 1073741824.0,
	  209715200.0 },
	/* 3102: no v1 memory line; fs/cgroup/system.slice/redis.service has
	 * no memory.current, fs/cgroup/unified/... has: 8388608, 268435456,
	 * no peak */
	{ "proc-hybrid", "sys-hybrid", 3102, "v2:/system.slice/redis.service",
	  8388608.0, 268435456.0, NAN },
	/* proc-old-kernel/4001 "4:memory:/" -> sys-old-kernel/fs/cgroup/
	 * memory: 3000000000, limit LLONG_MAX (old "unlimited"), 3500000000 */
	{ "proc-old-kernel", "sys-old-kernel", 4001, "v1:/", 3000000000.0, NAN,
	  3500000000.0 },
	/* 4002 has no cgroup file at all */
	{ "proc-old-kernel", "sys-old-kernel", 4002, NULL, 0, 0, 0 },
	/* the right cgroup file, but no sys tree behind it */
	{ "proc-v1", NULL, 1234, NULL, 0, 0, 0 },
};

/* probe_cgroup_path(): the memory cgroup's path as /proc/PID/cgroup names
 * it, chosen as probe_cgroup_open() chooses, with nothing opened under
 * the sys root (record --all --cgroup and --group-by read it). */
static const struct {
	const char *proc;
	pid_t pid;
	const char *path;  /* NULL: none */
	int rc;
} cgroup_path_cases[] = {
	/* "4:memory:/process_api/abc" among other v1 lines and "0::/" */
	{ "proc-v1", 1234, "/process_api/abc", PROBE_OK },
	/* "7:cpu,memory:/x": memory shares a line with cpu */
	{ "proc-v1", 1300, "/x", PROBE_OK },
	/* pure v2: the unified line */
	{ "proc-v2", 2001, "/system.slice/llama.service", PROBE_OK },
	{ "proc-v2", 2002, "/user.slice/user-1000.slice/session-3.scope",
	  PROBE_OK },
	{ "proc-v2", 2003, "/", PROBE_OK },
	/* outside our namespace: given back as it is, nothing walked */
	{ "proc-v2", 2004, "/../../other.slice/x.scope", PROBE_OK },
	/* hybrid: the v1 memory line wins; without one, the unified line */
	{ "proc-hybrid", 3101, "/system.slice/postgresql.service", PROBE_OK },
	{ "proc-hybrid", 3102, "/system.slice/redis.service", PROBE_OK },
	/* no cgroup file in a live process: none, no error */
	{ "proc-old-kernel", 4002, NULL, PROBE_OK },
	/* no such process */
	{ "proc-v2", 4242, NULL, PROBE_GONE },
};

static void test_cgroup_path(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cgroup_path_cases); i++) {
		const char *proc = cgroup_path_cases[i].proc;
		pid_t pid = cgroup_path_cases[i].pid;
		print_message("cgroup path %s/%d\n", proc, (int)pid);
		/* a sys root that does not exist: the path needs none */
		struct probe *p = probe_fx(proc, NULL);
		char *path = (char *)"unset";
		assert_int_equal(probe_cgroup_path(p, pid, &path),
				 cgroup_path_cases[i].rc);
		if (cgroup_path_cases[i].path)
			assert_string_equal(path, cgroup_path_cases[i].path);
		else
			assert_null(path);
		free(path);
		probe_free(p);
	}
}

static void test_cgroup_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cgroup_cases); i++) {
		const struct cgroup_case *c = &cgroup_cases[i];
		print_message("cgroup %s/%d\n", c->proc, (int)c->pid);
		struct probe *p = probe_fx(c->proc, c->sys);
		struct probe_cgroup *cg = NULL;
		assert_int_equal(probe_cgroup_open(p, c->pid, &cg), PROBE_OK);
		if (!c->key) {
			assert_null(cg);
			probe_free(p);
			continue;
		}
		assert_non_null(cg);
		assert_string_equal(probe_cgroup_key(cg), c->key);
		/* the key without opening anything: the one the open gave */
		char *key = NULL;
		assert_int_equal(probe_cgroup_key_of(p, c->pid, &key),
				 PROBE_OK);
		assert_non_null(key);
		assert_string_equal(key, c->key);
		free(key);
		for (int round = 0; round < 2; round++) {
			struct cgroup_mem m;
			assert_int_equal(probe_cgroup_read(cg, &m), PROBE_OK);
			check_figure("current", c->current, m.current);
			check_figure("max", c->max, m.max);
			check_figure("peak", c->peak, m.peak);
		}
		probe_cgroup_close(cg);
		probe_free(p);
	}
}

/* ---- scratch trees ---------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *data)
{
	char path[512];
	int len_path = snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_true(len_path > 0 && (size_t)len_path < sizeof(path));
	/* O_TRUNC on the same inode: a handle's kept fd sees the new text */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	size_t len = strlen(data);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static char *scratch_tree(void)
{
	char *root = strdup("/tmp/test_probe.XXXXXX");
	assert_non_null(mkdtemp(root));
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/77", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_file(root, "stat", "cpu  1 2 3\nbtime 1600000000\n");
	return root;
}

static void remove_tree(char *root)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	free(root);
}

/* A scratch tree with one process, "svc" (pid 77, started at tick 1000),
 * whose status is STATUS and statm STATM (NULL: none); *dir is its
 * directory, *pp an open handle. */
static char *svc_tree(const char *status, const char *statm, char *dir,
		      size_t dir_size, struct probe **p, struct probe_proc **pp)
{
	char *root = scratch_tree();
	snprintf(dir, dir_size, "%s/77", root);
	write_file(dir, "stat", "77 (svc) S 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 "
				"0 1 0 1000 0 0\n");
	write_file(dir, "status", status);
	if (statm)
		write_file(dir, "statm", statm);
	*p = probe_new(root, NULL);
	assert_non_null(*p);
	*pp = NULL;
	assert_int_equal(probe_proc_open(*p, 77, pp), PROBE_OK);
	return root;
}

/* A status whose fields sit past the first 8 KiB (a process in thousands
 * of supplementary groups): the read buffer must grow. */
static void test_big_status(void **state)
{
	(void)state;
	char *root = scratch_tree();
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/77", root);
	write_file(dir, "stat", "77 (many groups) S 1 77 77 0 -1 0 0 0 0 0 0 0 "
				"0 0 20 0 1 0 500 0 0\n");
	size_t cap = 64 * 1024, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	len += (size_t)snprintf(s, cap, "Name:\tmany groups\nState:\tS "
				"(sleeping)\nGroups:\t");
	for (int g = 100000; g < 103000; g++) /* ~21 KB of groups */
		len += (size_t)snprintf(s + len, cap - len, "%d ", g);
	snprintf(s + len, cap - len,
		 "\nVmRSS:\t    2048 kB\nRssAnon:\t    1024 kB\n"
		 "RssFile:\t    1000 kB\nRssShmem:\t      24 kB\n"
		 "VmPTE:\t      16 kB\nVmSwap:\t       8 kB\n");
	assert_true(strlen(s) > 16384);
	write_file(dir, "status", s);
	free(s);

	struct probe *p = probe_new(root, "/nonexistent");
	assert_non_null(p);
	struct probe_proc *pp = NULL;
	assert_int_equal(probe_proc_open(p, 77, &pp), PROBE_OK);
	assert_string_equal(probe_proc_identity(pp)->comm, "many groups");
	check_figure("start_time", 1600000005.0,
		     probe_proc_identity(pp)->start_time);
	struct proc_mem m;
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("rss", 2048 * KIB, m.rss);
	check_figure("footprint", (1024 + 8 + 24) * KIB, m.footprint);
	check_figure("pagetables", 16 * KIB, m.pagetables);
	probe_proc_close(pp);
	probe_free(p);
	remove_tree(root);
}

/* probe_proc_alive compares start times: rewrite stat under an open
 * handle as a reused PID would look, and as the process turning zombie. */
static void test_alive_start_time(void **state)
{
	(void)state;
	char dir[512];
	struct probe *p;
	struct probe_proc *pp;
	char *root = svc_tree("Name:\tsvc\nState:\tS (sleeping)\n"
			      "VmRSS:\t 100 kB\nRssAnon:\t 60 kB\n",
			      NULL, dir, sizeof(dir), &p, &pp);
	assert_true(pp != NULL && probe_proc_identity(pp)->start_ticks == 1000);
	assert_true(probe_proc_alive(pp));
	/* same pid, later start time: another incarnation */
	write_file(dir, "stat", "77 (svc) S 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 "
				"0 1 0 2000 0 0\n");
	assert_false(probe_proc_alive(pp));
	/* same start time again, but a zombie */
	write_file(dir, "stat", "77 (svc) Z 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 "
				"0 1 0 1000 0 0\n");
	assert_false(probe_proc_alive(pp));
	/* an empty read is what an exited process gives */
	write_file(dir, "status", "");
	struct proc_mem m;
	assert_int_equal(probe_proc_read(pp, &m), PROBE_GONE);
	/* a malformed stat is an error (printed: expected), not a crash */
	write_file(dir, "stat", "77 svc S 1\n");
	assert_false(probe_proc_alive(pp));
	probe_proc_close(pp);
	probe_free(p);
	remove_tree(root);
}

/* statm decides when status is read (probe_proc_read's contract): while
 * statm's size, resident and shared pages stay the same, the figures are
 * those of the last status read, for at most PROBE_STATUS_REFRESH (8)
 * reads; a change in statm, or the eighth read, reads status again. The
 * fixture rewrites status alone to see which read saw it. */
static void test_statm_decides(void **state)
{
	(void)state;
	char dir[512];
	struct probe *p;
	struct probe_proc *pp;
	char *root = svc_tree("Name:\tsvc\nState:\tS (sleeping)\n"
			      "RssAnon:\t 60 kB\nVmSwap:\t 0 kB\n",
			      "900 40 25 3 0 30 0\n", dir, sizeof(dir), &p, &pp);
	struct proc_mem m;
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("first read", 60 * KIB, m.footprint);
	/* status moves alone (swap freed without a resident page changing):
	 * reads 2..8 give the figures of read 1 */
	write_file(dir, "status", "Name:\tsvc\nState:\tS (sleeping)\n"
				  "RssAnon:\t 60 kB\nVmSwap:\t 8 kB\n");
	for (int i = 2; i <= 8; i++) {
		assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
		check_figure("statm unchanged", 60 * KIB, m.footprint);
	}
	/* ... and the ninth reads status again */
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("refresh", 68 * KIB, m.footprint);
	/* a change of statm (one more resident page) reads status at once */
	write_file(dir, "status", "Name:\tsvc\nState:\tS (sleeping)\n"
				  "RssAnon:\t 64 kB\nVmSwap:\t 8 kB\n");
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("statm unchanged again", 68 * KIB, m.footprint);
	write_file(dir, "statm", "901 41 25 3 0 31 0\n");
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("statm moved", 72 * KIB, m.footprint);
	/* a zombie has no memory: statm reads zeros, status says Z */
	write_file(dir, "statm", "0 0 0 0 0 0 0\n");
	write_file(dir, "status", "Name:\tsvc\nState:\tZ (zombie)\n");
	assert_int_equal(probe_proc_read(pp, &m), PROBE_GONE);
	/* a malformed statm is no error: status is read every time */
	write_file(dir, "statm", "x\n");
	write_file(dir, "status", "Name:\tsvc\nState:\tS (sleeping)\n"
				  "RssAnon:\t 80 kB\n");
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("bad statm", 80 * KIB, m.footprint);
	write_file(dir, "status", "Name:\tsvc\nState:\tS (sleeping)\n"
				  "RssAnon:\t 84 kB\n");
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	check_figure("bad statm again", 84 * KIB, m.footprint);
	probe_proc_close(pp);
	probe_free(p);
	remove_tree(root);
}

/* ---- the real machine ------------------------------------------------- */

static struct probe *probe_real(void)
{
	struct probe *p = probe_new("/proc", "/sys");
	assert_non_null(p);
	return p;
}

static void test_real_self_identity(void **state)
{
	(void)state;
	struct probe *p = probe_real();
	struct proc_identity id;
	assert_int_equal(probe_identity_read(p, getpid(), &id), PROBE_OK);
	assert_int_equal(id.pid, getpid());
	assert_int_equal(id.ppid, getppid());
	/* comm against the kernel's own /proc/self/comm ("test_probe",
	 * or the tool's name under valgrind) */
	char comm[64] = "";
	FILE *f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	assert_string_equal(id.comm, comm);
	assert_non_null(strstr(id.cmdline, "test_probe"));
	/* started moments ago (btime is whole seconds, so allow slack) */
	double age = now_wall() - id.start_time;
	print_message("self started %.2f s ago\n", age);
	assert_true(age > -5 && age < 300);
	assert_true(probe_boot_time(p) < now_wall());
	proc_identity_release(&id);
	probe_free(p);
}

static double rss_now(struct probe_proc *pp, struct proc_mem *m)
{
	assert_int_equal(probe_proc_read(pp, m), PROBE_OK);
	return m->rss;
}

static void test_real_self_growth(void **state)
{
	(void)state;
	struct probe *p = probe_real();
	struct probe_proc *pp = NULL;
	assert_int_equal(probe_proc_open(p, getpid(), &pp), PROBE_OK);
	struct proc_mem before, after;
	rss_now(pp, &before);
	assert_true(before.footprint > 0);
	assert_true(before.rss >= before.anon);

	const size_t size = 64u << 20;
	/* A block of our own pages, not malloc's: whether an allocator hands
	 * back fresh pages, recycles dirty ones, or (under AddressSanitizer)
	 * also dirties a shadow of one byte per eight depends on the
	 * allocator and the machine. mmap gives 64 MiB of untouched anonymous
	 * memory; memset makes it resident. What is true whatever else the
	 * process does meanwhile: RSS and the footprint grow by at least the
	 * block (less 2 %: a page or two may be reclaimed elsewhere) and by
	 * no more than the block plus an eighth for a possible ASan shadow of
	 * the memset's range, plus 5 % for the rest of the process. */
	char *block = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(block != MAP_FAILED);
	memset(block, 0x5a, size);
	rss_now(pp, &after);
	double grew = after.rss - before.rss;
	double grew_fp = after.footprint - before.footprint;
	print_message("64 MiB memset: RSS +%.2f MiB, footprint +%.2f MiB\n",
		      grew / MIB, grew_fp / MIB);
	const double lo = 0.98 * (double)size, hi = 1.05 * (double)size * 9 / 8;
	assert_true(grew >= lo && grew <= hi);
	assert_true(grew_fp >= lo && grew_fp <= hi);
	/* the block is anonymous memory: the footprint saw what RSS saw */
	assert_true(fabs(grew_fp - grew) <= 0.02 * (double)size);
	assert_true(((volatile char *)block)[size - 1] == 0x5a);
	munmap(block, size);

	/* we are root here, so smaps_rollup is ours to read */
	struct proc_smaps s;
	int rc = probe_proc_read_smaps(pp, &s);
	assert_true(rc == PROBE_OK || rc == PROBE_DENIED);
	if (rc == PROBE_OK)
		assert_true(s.pss > 0 && s.pss_anon > 0);
	assert_true(probe_proc_alive(pp));
	probe_proc_close(pp);
	probe_free(p);
}

/*
 * The identity contract, checked against the kernel: a kept status fd of
 * an exited process reads as gone, first while it is a zombie (State: Z),
 * then after it is reaped, when the raw pread fails with ESRCH. That ESRCH
 * holds even if the PID is reused, because the fd pins the old struct pid.
 */
static void test_real_child_gone(void **state)
{
	(void)state;
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		/* never outlive a test that failed before its kill() */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	struct probe *p = probe_real();
	struct probe_proc *pp = NULL;
	assert_int_equal(probe_proc_open(p, child, &pp), PROBE_OK);
	struct proc_mem m;
	assert_int_equal(probe_proc_read(pp, &m), PROBE_OK);
	assert_true(m.rss > 0);
	assert_true(probe_proc_alive(pp));
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)child);
	int raw = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(raw >= 0);

	assert_int_equal(kill(child, SIGKILL), 0);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	/* wait until it has exited, without reaping it: a zombie */
	assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(probe_proc_read(pp, &m), PROBE_GONE);
	assert_false(probe_proc_alive(pp));

	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	char buf[4096];
	errno = 0;
	assert_int_equal(pread(raw, buf, sizeof(buf), 0), -1);
	assert_int_equal(errno, ESRCH);
	close(raw);
	assert_int_equal(probe_proc_read(pp, &m), PROBE_GONE);
	assert_false(probe_proc_alive(pp));
	struct proc_smaps s;
	assert_int_equal(probe_proc_read_smaps(pp, &s), PROBE_GONE);
	probe_proc_close(pp);
	probe_free(p);
}

static void test_real_sys(void **state)
{
	(void)state;
	struct probe *p = probe_real();
	struct sys_mem s;
	assert_int_equal(probe_sys_read(p, &s), PROBE_OK);
	assert_true(s.mem_total > 64 * MIB);
	if (!isnan(s.mem_available))
		assert_true(s.mem_available > 0 &&
			    s.mem_available <= s.mem_total);
	if (!isnan(s.psi_some_avg10))
		assert_true(s.psi_some_avg10 >= 0 && s.psi_some_total >= 0);
	probe_free(p);
}

static void test_real_list_pids(void **state)
{
	(void)state;
	struct probe *p = probe_real();
	pid_t *pids = NULL;
	size_t n = 0;
	assert_int_equal(probe_list_pids(p, &pids, &n), 0);
	assert_true(n >= 2);
	bool self = false;
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			assert_true(pids[i - 1] < pids[i]);
		self |= pids[i] == getpid();
	}
	assert_true(self);
	free(pids);
	probe_free(p);
}

static void test_real_cgroup(void **state)
{
	(void)state;
	struct probe *p = probe_real();
	struct probe_cgroup *cg = NULL;
	assert_int_equal(probe_cgroup_open(p, getpid(), &cg), PROBE_OK);
	if (!cg) {
		probe_free(p);
		skip(); /* neither v1 nor v2 memory accounting readable */
	}
	struct cgroup_mem m;
	assert_int_equal(probe_cgroup_read(cg, &m), PROBE_OK);
	print_message("cgroup %s: current %.1f MiB, max %.1f MiB, "
		      "peak %.1f MiB\n", probe_cgroup_key(cg), m.current / MIB,
		      m.max / MIB, m.peak / MIB);
	const char *key = probe_cgroup_key(cg);
	assert_true(strncmp(key, "v1:/", 4) == 0 || strncmp(key, "v2:/", 4) == 0);
	assert_true(isfinite(m.current) && m.current > 0);
	assert_true(isnan(m.max) || m.max > 0);
	probe_cgroup_close(cg);
	probe_free(p);
}

/* target_command_name: a table, by hand from env(1)'s synopsis. */
static void test_command_name(void **state)
{
	(void)state;
	static const struct {
		const char *argv[7];
		const char *name;
	} rows[] = {
		{{"./my-service", "--port", "8080"}, "my-service"},
		{{"/usr/bin/python3", "app.py"}, "python3"},
		{{"env", "MALLOC_ARENA_MAX=2", "/usr/bin/python3", "a.py"},
		 "python3"},
		{{"/usr/bin/env", "-i", "A=1", "B=2", "redis-server"},
		 "redis-server"},
		{{"env", "-u", "HOME", "node", "s.js"}, "node"},
		{{"env", "--", "./x=y"}, "x=y"},
		{{"env", "A=1"}, "env"},
		{{"env"}, "env"},
		{{"envoy", "-c", "c.yaml"}, "envoy"},
		/* a shell that execs the service becomes it */
		{{"sh", "-c", "exec python3 -m http.server 8000 2>access.log"},
		 "python3"},
		{{"/bin/bash", "-ec", "cd /srv && A=1 exec 2>&1 ./app --x"},
		 "app"},
		{{"sh", "-c", "exec 3>log; exec -a svc /usr/sbin/nginx -g x"},
		 "nginx"},
		{{"bash", "-o", "pipefail", "-c", "if true; then exec node s.js; fi"},
		 "node"},
		{{"sh", "-c", "python3 server.py 2>log"}, "sh"},
		{{"sh", "-c", "echo exec python3"}, "sh"},
		{{"sh", "-c", "exec \"$@\"", "sh", "redis-server"}, "sh"},
		{{"sh", "script.sh"}, "sh"},
		{{"env", "A=1", "sh", "-c", "exec redis-server"}, "sh"},
	};
	assert_null(target_shell_script((char *const[]){"python3", "-c",
							 "x", NULL}));
	assert_string_equal(target_shell_script((char *const[]){"sh", "-ec",
							       "y", NULL}), "y");
	assert_true(target_script_execs("sleep 1; exec redis-server"));
	assert_false(target_script_execs("redis-server --port 1"));
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[64];
		assert_string_equal(target_command_name(
			(char *const *)rows[i].argv, buf, sizeof(buf)),
			rows[i].name);
	}
}

int main(void)
{
	fixtures = getenv("FIXTURES");
	if (!fixtures || !*fixtures)
		fixtures = "tests/fixtures";
	diag_set_quiet(true);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_status_table),
		cmocka_unit_test(test_zombie_fixture),
		cmocka_unit_test(test_identity_table),
		cmocka_unit_test(test_boot_time),
		cmocka_unit_test(test_gone_fixture),
		cmocka_unit_test(test_smaps_table),
		cmocka_unit_test(test_sys_table),
		cmocka_unit_test(test_list_pids_fixture),
		cmocka_unit_test(test_cgroup_table),
		cmocka_unit_test(test_cgroup_path),
		cmocka_unit_test(test_big_status),
		cmocka_unit_test(test_alive_start_time),
		cmocka_unit_test(test_statm_decides),
		cmocka_unit_test(test_real_self_identity),
		cmocka_unit_test(test_real_self_growth),
		cmocka_unit_test(test_real_child_gone),
		cmocka_unit_test(test_real_sys),
		cmocka_unit_test(test_real_list_pids),
		cmocka_unit_test(test_real_cgroup),
		cmocka_unit_test(test_command_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
