/*
 * test_reaper.c - unit tests for reaper.c: a command started under a
 * reaper, and everything it starts ended with it.
 *
 * Real /bin/sh and sleep runs. A process the command leaves behind writes
 * its pid to a file in a temporary directory; "gone" is kill(pid, 0)
 * failing with ESRCH right after reaper_finish() returned (a pid reused
 * within that moment by another process is not a concern on a test
 * machine). Waits are polls with generous bounds, never a fixed sleep.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "reaper.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/memtrend-reaper.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The pid written to dir/name, waiting for it at most 10 s; 0: none. */
static pid_t read_pid(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");
		long v = 0;
		if (f) {
			int n = fscanf(f, "%ld", &v);
			fclose(f);
			if (n == 1 && v > 0)
				return (pid_t)v;
		}
		nap_ms(10);
	}
	return 0;
}

static bool gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* Until the command's end is heard, at most 10 s. */
static bool wait_end(struct reaper *r)
{
	for (int i = 0; i < 1000; i++) {
		if (reaper_poll(r))
			return true;
		nap_ms(10);
	}
	return false;
}

static struct reaper_spec sh_spec(char **argv, double grace)
{
	return (struct reaper_spec){
		.file = "/bin/sh", .argv = argv, .stdin_fd = REAPER_DEVNULL,
		.stdout_fd = -1, .stderr_fd = -1, .grace_s = grace,
	};
}

/* A command that cannot run: its errno, nothing left running, no child
 * of ours left to reap. */
static void test_exec_failure(void **state)
{
	(void)state;
	char *argv[] = {"/nonexistent/memtrend-test", NULL};
	struct reaper_spec s = {.argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1};
	struct reaper r;
	assert_int_equal(reaper_spawn(&s, &r), ENOENT);
	assert_int_equal(r.exec_errno, ENOENT);
	assert_int_equal(r.pid, 0);
	assert_int_equal(r.fd, -1);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(reaper_finish(&r, true, 1), 0);
}

/* The command's status comes back; what it left (a setsid child, in a
 * session of its own) is gone when reaper_finish() returns. */
static void test_status_and_leftovers(void **state)
{
	(void)state;
	char script[256];
	snprintf(script, sizeof(script),
		 "setsid sleep 30 & echo $! > '%s/left'; exit 7", dir);
	char *argv[] = {"sh", "-c", script, NULL};
	struct reaper_spec s = sh_spec(argv, 2);
	s.own_group = true;
	struct reaper r;
	assert_int_equal(reaper_spawn(&s, &r), 0);
	assert_true(r.child > 0 && r.pid > 0 && r.child != r.pid);
	pid_t left = read_pid("left");
	assert_true(left > 0);
	assert_true(wait_end(&r));
	assert_true(WIFEXITED(r.status));
	assert_int_equal(WEXITSTATUS(r.status), 7);
	assert_int_equal(reaper_finish(&r, false, 5), 0);
	assert_true(gone(left));
	assert_int_equal(r.pid, 0);
	assert_int_equal(r.fd, -1);
}

/* A signal passed on reaches the command with its default disposition,
 * though the reaper ignores it (SIGINT). */
static void test_signal_forwarded(void **state)
{
	(void)state;
	char *argv[] = {"sleep", "30", NULL};
	struct reaper_spec s = {.argv = argv, .stdin_fd = -1,
				.stdout_fd = -1, .stderr_fd = -1,
				.grace_s = 1};
	struct reaper r;
	assert_int_equal(reaper_spawn(&s, &r), 0);
	assert_false(reaper_poll(&r));
	assert_int_equal(reaper_signal(&r, SIGINT), 0);
	assert_true(wait_end(&r));
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGINT);
	assert_int_equal(reaper_finish(&r, false, 5), 0);
	assert_true(gone(r.child));
}

/* Held: a command that exits at once stays a zombie (its /proc entry
 * answers) until reaper_go(); its end is heard only then. */
static void test_hold(void **state)
{
	(void)state;
	char *argv[] = {"sh", "-c", "exit 4", NULL};
	struct reaper_spec s = sh_spec(argv, 1);
	s.hold = true;
	struct reaper r;
	assert_int_equal(reaper_spawn(&s, &r), 0);
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)r.child);
	char st = 0;
	for (int i = 0; i < 1000 && st != 'Z'; i++) {
		FILE *f = fopen(path, "r");
		assert_non_null(f);  /* never reaped while held */
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		char *p = strrchr(buf, ')');
		st = p && p[1] ? p[2] : 0;
		if (st != 'Z')
			nap_ms(10);
	}
	assert_int_equal(st, 'Z');
	assert_false(reaper_poll(&r));
	assert_int_equal(reaper_go(&r), 0);
	assert_true(wait_end(&r));
	assert_int_equal(WEXITSTATUS(r.status), 4);
	assert_int_equal(reaper_finish(&r, false, 5), 0);
}

/* Ended now: a command that ignores SIGTERM gets SIGKILL after the
 * grace, not after the caller's bound. */
static void test_now_after_grace(void **state)
{
	(void)state;
	char script[256];
	snprintf(script, sizeof(script),
		 "trap '' TERM; echo $$ > '%s/ready'; exec sleep 30", dir);
	char *argv[] = {"sh", "-c", script, NULL};
	struct reaper_spec s = sh_spec(argv, 0.3);
	struct reaper r;
	assert_int_equal(reaper_spawn(&s, &r), 0);
	assert_int_equal(read_pid("ready"), r.child);  /* TERM ignored */
	double t0 = now_monotonic();
	assert_int_equal(reaper_finish(&r, true, 10), 0);
	double took = now_monotonic() - t0;
	assert_true(took >= 0.25 && took < 5);
	assert_true(r.ended);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
	assert_true(gone(r.child));
}

/* The caller killed with SIGKILL: the reaper's parent-death signal ends
 * the command's tree, also a child that left its session. */
static void test_caller_killed(void **state)
{
	(void)state;
	pid_t caller = fork();
	assert_true(caller >= 0);
	if (caller == 0) {
		char script[256];
		snprintf(script, sizeof(script),
			 "setsid sleep 30 & echo $! > '%s/orphan'; wait", dir);
		char *argv[] = {"sh", "-c", script, NULL};
		struct reaper_spec s = sh_spec(argv, 1);
		struct reaper r;
		if (reaper_spawn(&s, &r))
			_exit(1);
		for (;;)
			pause();
	}
	pid_t orphan = read_pid("orphan");
	assert_true(orphan > 0);
	kill(caller, SIGKILL);
	assert_int_equal(waitpid(caller, NULL, 0), caller);
	int i = 0;
	while (!gone(orphan) && i++ < 1000)
		nap_ms(10);
	assert_true(gone(orphan));
}

/* The caller killed with SIGKILL, the command ignoring SIGTERM: it still
 * gets its grace (2 s) before SIGKILL. The socket's end and the
 * parent-death signal are one event; counted as two SIGTERMs, the second
 * cut the grace to about 10 ms. Alive 0.5 s after the kill (the grace
 * cannot have run out: it starts after the kill), gone within 10 s. */
static void test_caller_killed_grace(void **state)
{
	(void)state;
	pid_t caller = fork();
	assert_true(caller >= 0);
	if (caller == 0) {
		char script[256];
		snprintf(script, sizeof(script),
			 "trap '' TERM; echo $$ > '%s/stubborn'; exec sleep 30",
			 dir);
		char *argv[] = {"sh", "-c", script, NULL};
		struct reaper_spec s = sh_spec(argv, 2);
		struct reaper r;
		if (reaper_spawn(&s, &r))
			_exit(1);
		for (;;)
			pause();
	}
	pid_t cmd = read_pid("stubborn");
	assert_true(cmd > 0);
	kill(caller, SIGKILL);
	assert_int_equal(waitpid(caller, NULL, 0), caller);
	nap_ms(500);
	assert_false(gone(cmd));
	int i = 0;
	while (!gone(cmd) && i++ < 1000)
		nap_ms(10);
	assert_true(gone(cmd));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_status_and_leftovers),
		cmocka_unit_test(test_signal_forwarded),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_now_after_grace),
		cmocka_unit_test(test_caller_killed),
		cmocka_unit_test(test_caller_killed_grace),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
