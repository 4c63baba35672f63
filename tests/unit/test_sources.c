/*
 * test_sources.c - unit tests for the work and connection sources:
 * probe_tcp_established (probe_net.c), source_command_run
 * (source_command.c) and the log follower (source_log.c).
 *
 * Connections are counted on the fixture tree $FIXTURES/proc-net (its
 * README says what each line is; the expected counts beside the tests
 * were worked out by hand from it), on scratch trees for long files, and
 * on real sockets of this process through /proc. Commands are real
 * /bin/sh runs; logs are real files in a temporary directory that each
 * test removes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "http.h"
#include "probe.h"
#include "source_command.h"
#include "source_log.h"

static const char *fixtures;

/* ---- helpers -------------------------------------------------------- */

static char *path_in(const char *dir, const char *name)
{
	static char buf[4][1024];
	static int slot;
	char *s = buf[slot++ % 4];
	snprintf(s, sizeof(buf[0]), "%s/%s", dir, name);
	return s;
}

static void write_file(const char *path, const char *mode, const char *s,
		       size_t len)
{
	FILE *f = fopen(path, mode);
	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void append(const char *path, const char *s)
{
	write_file(path, "a", s, strlen(s));
}

static char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/memtrend-sources-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* rm -r of a scratch directory (no symlinks followed: lstat + unlink). */
static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		assert_non_null(d);
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char sub[2048];
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			remove_tree(sub);
		}
		closedir(d);
		assert_int_equal(rmdir(path), 0);
	} else {
		assert_int_equal(unlink(path), 0);
	}
}

static int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- connections: the fixture tree ---------------------------------- */

struct conn_case {
	const char *what;
	pid_t pids[3];
	size_t n_pids;
	uint16_t ports[3];
	size_t n_ports;
	int rc;
	double count;
	bool restricted;
};

/* Expected counts from tests/fixtures/proc-net/README. */
static const struct conn_case conn_cases[] = {
	/* 6379 held by 4242: v4 sl 1, 2 + queued sl 6; v6 sl 1, 2 + queued
	 * sl 5. Not: 2001/2101 (4243's), client sides 1003/1103, LISTEN,
	 * TIME_WAIT, CLOSE_WAIT, SYN_RECV, the malformed lines. */
	{"4242 on 6379", {4242}, 1, {6379}, 1, PROBE_OK, 6, true},
	/* 8080: 1004; the queued one has no listener of 4242's */
	{"4242 on 8080", {4242}, 1, {8080}, 1, PROBE_OK, 1, true},
	{"4242 on both", {4242}, 1, {8080, 6379}, 2, PROBE_OK, 7, true},
	{"duplicate port", {4242}, 1, {6379, 8080, 6379}, 3, PROBE_OK, 7,
	 true},
	{"no such port", {4242}, 1, {9999}, 1, PROBE_OK, 0, true},
	{"no port", {4242}, 1, {0}, 0, PROBE_OK, 0, true},
	/* the remote port of the client sides is 6379, their local one
	 * 50000 (C350) and 50019 (C363): counted only when asked for */
	{"client port", {4242}, 1, {50000, 50019}, 2, PROBE_OK, 2, true},
	/* with 4243: + 2001 + 2101 */
	{"4242+4243", {4242, 4243}, 2, {6379}, 1, PROBE_OK, 8, true},
	{"4243+4242", {4243, 4242}, 2, {6379}, 1, PROBE_OK, 8, true},
	/* 4243 alone: 2001, 2101; no listener, so the queue is not its */
	{"4243 alone", {4243}, 1, {6379}, 1, PROBE_OK, 2, true},
	/* a pid that is gone is skipped; the count stays restricted */
	{"4242+gone", {4242, 7777}, 2, {6379}, 1, PROBE_OK, 6, true},
	/* 5151 has no fd/: every 6379 socket of 4242's namespace counts:
	 * v4 1001, 1002, 2001, queued; v6 1101, 1102, 2101, queued */
	{"unrestricted 6379", {4242, 5151}, 2, {6379}, 1, PROBE_OK, 8, false},
	/* + 1004 and the queued 8080 one */
	{"unrestricted both", {4242, 5151}, 2, {6379, 8080}, 2, PROBE_OK, 10,
	 false},
	/* 5151: 5001 and 5002 (the last line, without a newline); no tcp6;
	 * 5003 is a client of port 80 elsewhere */
	{"5151 on 80", {5151}, 1, {80}, 1, PROBE_OK, 2, false},
	/* n_pids == 0: the root's net -> 5151/net */
	{"namespace of the root", {0}, 0, {80}, 1, PROBE_OK, 2, false},
	{"gone", {9999}, 1, {6379}, 1, PROBE_GONE, 0, false},
	{"gone first", {9999, 4242}, 2, {6379}, 1, PROBE_GONE, 0, false},
};

static void test_conn_fixture(void **state)
{
	(void)state;
	char root[1024];
	snprintf(root, sizeof(root), "%s/proc-net", fixtures);
	struct probe *p = probe_new(root, "/nonexistent");
	assert_non_null(p);
	for (size_t i = 0; i < ARRAY_SIZE(conn_cases); i++) {
		const struct conn_case *c = &conn_cases[i];
		double count = -1;
		bool restricted = !c->restricted;
		int rc = probe_tcp_established(p, c->pids, c->n_pids, c->ports,
					       c->n_ports, &count,
					       &restricted);
		if (rc != c->rc || (rc == PROBE_OK &&
				    (count != c->count ||
				     restricted != c->restricted))) {
			print_error("%s: want rc %d count %g restricted %d, "
				    "got rc %d count %g restricted %d\n",
				    c->what, c->rc, c->count, c->restricted,
				    rc, count, restricted);
			fail();
		}
	}
	probe_free(p);
}

static const char tcp_header[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
	"retrnsmt   uid  timeout inode\n";

static int tcp_line(char *buf, size_t n, int sl, unsigned lport,
		    unsigned rport, int st, unsigned long long inode)
{
	return snprintf(buf, n,
			"%4d: 0100007F:%04X 0100007F:%04X %02X 00000000:"
			"00000000 00:00000000 00000000  1000        0 %llu 1 "
			"0000000000000000 20 4 30 10 -1\n",
			sl, lport, rport, st, inode);
}

/* A file much longer than the read buffer (64 KiB), with a line longer
 * than it: every line counts exactly once, the long one is skipped. */
static void test_conn_long_file(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	assert_int_equal(mkdir(path_in(dir, "100"), 0755), 0);
	assert_int_equal(mkdir(path_in(dir, "100/net"), 0755), 0);
	assert_int_equal(mkdir(path_in(dir, "100/fd"), 0755), 0);
	FILE *f = fopen(path_in(dir, "100/net/tcp"), "w");
	assert_non_null(f);
	fputs(tcp_header, f);
	char line[512];
	int sl = 0, want = 0;
	for (int i = 0; i < 3000; i++) {
		/* ESTABLISHED to 6379, every third one held by 100 */
		tcp_line(line, sizeof(line), sl++, 6379, 40000 + (unsigned)i,
			 1, 100000ULL + (unsigned)i);
		fputs(line, f);
		want += i % 3 == 0;
		if (i == 1500) {
			/* a valid-looking line padded past 64 KiB */
			tcp_line(line, sizeof(line), sl++, 6379, 39999, 1,
				 100000ULL);
			line[strlen(line) - 1] = ' ';
			fputs(line, f);
			for (int k = 0; k < 70000; k++)
				fputc('x', f);
			fputc('\n', f);
		}
	}
	assert_int_equal(fclose(f), 0);
	for (int i = 0; i < 3000; i += 3) {
		char name[32], target[64];
		snprintf(name, sizeof(name), "100/fd/%d", i + 3);
		snprintf(target, sizeof(target), "socket:[%d]", 100000 + i);
		assert_int_equal(symlink(target, path_in(dir, name)), 0);
	}
	struct probe *p = probe_new(dir, "/nonexistent");
	assert_non_null(p);
	pid_t pid = 100;
	uint16_t port = 6379;
	double count = -1;
	bool restricted = false;
	assert_int_equal(probe_tcp_established(p, &pid, 1, &port, 1, &count,
					       &restricted), PROBE_OK);
	assert_true(restricted);
	assert_int_equal((int)count, want);
	assert_int_equal(want, 1000);

	/* without fd/: all 3000 (and still not the long line) */
	remove_tree(path_in(dir, "100/fd"));
	assert_int_equal(probe_tcp_established(p, &pid, 1, &port, 1, &count,
					       &restricted), PROBE_OK);
	assert_false(restricted);
	assert_int_equal((int)count, 3000);

	/* a net/tcp that cannot be read is an error, not "gone" */
	assert_int_equal(mkdir(path_in(dir, "200"), 0755), 0);
	assert_int_equal(mkdir(path_in(dir, "200/net"), 0755), 0);
	assert_int_equal(mkdir(path_in(dir, "200/net/tcp"), 0755), 0);
	pid = 200;
	assert_int_equal(probe_tcp_established(p, &pid, 1, &port, 1, &count,
					       &restricted), PROBE_ERROR);
	probe_free(p);
	remove_tree(dir);
	free(dir);
}

/* ---- connections: real sockets -------------------------------------- */

static int listen_on(int family, uint16_t *port)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ?
			      ((struct sockaddr_in *)&ss)->sin_port :
			      ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static int connect_to(int family, uint16_t port, uint16_t *local_port)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->sin_port = htons(port);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons(port);
		len = sizeof(*a);
	}
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	*local_port = ntohs(family == AF_INET ?
				    ((struct sockaddr_in *)&ss)->sin_port :
				    ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static double count_real(struct probe *p, size_t n_pids, uint16_t port,
			  bool *restricted)
{
	pid_t self = getpid();
	double count = -1;
	assert_int_equal(probe_tcp_established(p, &self, n_pids, &port, 1,
					       &count, restricted), PROBE_OK);
	return count;
}

static void test_conn_real(void **state)
{
	(void)state;
	struct probe *p = probe_new("/proc", "/sys");
	assert_non_null(p);
	uint16_t port;
	int lfd = listen_on(AF_INET, &port);
	assert_true(lfd >= 0);
	bool restricted = false;
	assert_int_equal(count_real(p, 1, port, &restricted), 0);
	assert_true(restricted);

	int cli[3], srv[3];
	uint16_t cport[3];
	for (int i = 0; i < 3; i++)
		cli[i] = connect_to(AF_INET, port, &cport[i]);
	/* not accepted yet: in the accept queue of our listener */
	assert_int_equal(count_real(p, 1, port, &restricted), 3);
	assert_true(restricted);
	for (int i = 0; i < 3; i++) {
		srv[i] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		assert_true(srv[i] >= 0);
	}
	/* the clients are ours too, but their local port is ephemeral */
	assert_int_equal(count_real(p, 1, port, &restricted), 3);
	assert_true(restricted);
	assert_int_equal(count_real(p, 1, cport[0], &restricted), 1);
	/* the namespace, unrestricted: the same 3 (the port is ours) */
	assert_int_equal(count_real(p, 0, port, &restricted), 3);
	assert_false(restricted);

	close(srv[0]); /* FIN_WAIT on our side: no longer ESTABLISHED */
	assert_int_equal(count_real(p, 1, port, &restricted), 2);
	close(cli[0]);

	/* IPv6, where the machine has it */
	uint16_t port6;
	int lfd6 = listen_on(AF_INET6, &port6);
	if (lfd6 >= 0) {
		uint16_t cp;
		int c6 = connect_to(AF_INET6, port6, &cp);
		int s6 = accept4(lfd6, NULL, NULL, SOCK_CLOEXEC);
		assert_true(s6 >= 0);
		assert_int_equal(count_real(p, 1, port6, &restricted), 1);
		assert_true(restricted);
		uint16_t both[2] = {port, port6};
		pid_t self = getpid();
		double count;
		assert_int_equal(probe_tcp_established(p, &self, 1, both, 2,
						       &count, &restricted),
				 PROBE_OK);
		assert_int_equal((int)count, 3);
		close(c6);
		close(s6);
		close(lfd6);
	} else {
		print_message("no IPv6 loopback: IPv6 part skipped\n");
	}
	for (int i = 1; i < 3; i++) {
		close(cli[i]);
		close(srv[i]);
	}
	close(lfd);
	probe_free(p);
}

/* ---- commands ------------------------------------------------------- */

/* Processes whose command line holds marker (pgrep -f, without it). */
static int count_marked(const char *marker)
{
	DIR *d = opendir("/proc");
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[300], buf[4096];
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t got = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (got <= 0)
			continue;
		for (ssize_t i = 0; i < got; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[got] = '\0';
		/* not a zombie: state from stat */
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		char st[512] = "";
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ssize_t k = read(fd, st, sizeof(st) - 1);
			st[k > 0 ? k : 0] = '\0';
			close(fd);
		}
		char *r = strrchr(st, ')');
		if (strstr(buf, marker) && !(r && r[1] == ' ' && r[2] == 'Z'))
			n++;
	}
	closedir(d);
	return n;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}


static char cmd_err[512];

static int run(const char *cmd, double timeout_s, double *v)
{
	cmd_err[0] = '\0';
	int rc = source_command_run(cmd, timeout_s, NULL, v, cmd_err,
				    sizeof(cmd_err));
	if (rc == 0)
		assert_string_equal(cmd_err, "");
	else
		assert_true(cmd_err[0] != '\0');
	return rc;
}

static void want_value(const char *cmd, double want)
{
	double v = NAN;
	if (run(cmd, 5, &v) != 0 || v != want) {
		print_error("%s: want %.17g, got %.17g (%s)\n", cmd, want, v,
			    cmd_err);
		fail();
	}
}

static void want_error(const char *cmd, const char *want)
{
	double v = 1;
	if (run(cmd, 5, &v) != -1 || strcmp(cmd_err, want) != 0 ||
	    !isnan(v)) {
		print_error("%s: want error '%s', got '%s' (%g)\n", cmd, want,
			    cmd_err, v);
		fail();
	}
}

/* The command ran and found nothing to ask (not up yet): the startup
 * grace's kind of failure (SOURCE_COMMAND_DOWN), with its reason. */
static void want_down(const char *cmd, const char *want)
{
	double v = 1;
	if (run(cmd, 5, &v) != SOURCE_COMMAND_DOWN ||
	    strcmp(cmd_err, want) != 0 || !isnan(v)) {
		print_error("%s: want 'down' with '%s', got '%s' (%g)\n", cmd,
			    want, cmd_err, v);
		fail();
	}
}

static void test_command_values(void **state)
{
	(void)state;
	int fds = count_open_fds();
	want_value("echo 42", 42);
	want_value("printf ' 1.5e3\\r\\n'", 1500);
	want_value("printf '\\t-7\\n\\n'", -7);
	want_value("echo .5", 0.5);
	want_value("echo 5.", 5);
	want_value("echo +2E-2", 0.02);
	want_value("echo 18446744073709551616", 18446744073709551616.0);
	/* stdin is /dev/null: cat ends at once */
	want_value("cat; echo 3", 3);
	/* stderr does not matter when the command succeeds */
	want_value("echo warn >&2; echo 9", 9);
	/* output just under the limit */
	want_value("head -c 65000 /dev/zero | tr '\\0' ' '; echo 11", 11);

	want_error("echo abc", "printed no number: \"abc\"");
	want_error("echo 1 2", "printed no number: \"1 2\"");
	want_error("echo 1,5", "printed no number: \"1,5\"");
	want_error("echo inf", "printed no number: \"inf\"");
	want_error("echo nan", "printed no number: \"nan\"");
	want_error("echo 0x10", "printed no number: \"0x10\"");
	want_error("echo 1e", "printed no number: \"1e\"");
	want_error("echo -", "printed no number: \"-\"");
	want_error("echo 1e999", "printed a number out of range: \"1e999\"");
	want_down("true", "printed nothing");
	want_down("printf ' \\r\\n\\t'", "printed nothing");
	/* untrusted output: escaped, never raw control bytes */
	want_error("printf 'a\\033[31m\"b\\\\\\001\\n2'",
		     "printed no number: \"a\\x1b[31m\\\"b\\\\\\x01\\n2\"");
	want_error("printf '1\\0002'", "printed no number: \"1\\x002\"");
	/* long garbage: shown cut short */
	want_error("head -c 1000 /dev/zero | tr '\\0' x",
		     "printed no number: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		     "xxxxxxxxxxxxxxxxxxxxxxxx...\"");
	assert_int_equal(count_open_fds(), fds);
}

static void test_command_failures(void **state)
{
	(void)state;
	int fds = count_open_fds();
	want_down("echo 'no such table' >&2; echo more >&2; exit 3",
		     "exited with status 3: no such table");
	want_down("exit 3", "exited with status 3");
	want_error("exit 127", "exited with status 127");
	want_down("echo 5; exit 1", "exited with status 1");
	want_down("printf 'bad\\033]0;x\\007\\r\\n' >&2; exit 2",
		     "exited with status 2: bad\\x1b]0;x\\x07");
	want_error("kill -9 $$", "killed by signal 9");
	want_error("kill -TERM $$", "killed by signal 15");
	double v;
	assert_int_equal(run("/no/such/command", 5, &v), -1);
	assert_non_null(strstr(cmd_err, "exited with status 127: "));
	assert_non_null(strstr(cmd_err, "/no/such/command"));
	/* more than 64 KiB: stopped early, whatever the command would do */
	double t0 = now_monotonic();
	want_error("yes 123", "printed more than 64 KiB");
	assert_true(now_monotonic() - t0 < 2);
	want_error("head -c 100000 /dev/zero", "printed more than 64 KiB");
	assert_int_equal(run("echo 1", 0, &v), -1);
	assert_int_equal(run("echo 1", NAN, &v), -1);
	assert_int_equal(count_open_fds(), fds);
}

static bool process_is_dead(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return true;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *rp = strrchr(buf, ')');
	/* a zombie of someone else's (init's): dead all the same */
	return rp && (rp[2] == 'Z' || rp[2] == 'X');
}

static bool wait_dead(pid_t pid)
{
	for (int i = 0; i < 200; i++) {
		if (process_is_dead(pid))
			return true;
		usleep(10000);
	}
	return false;
}

static void test_command_timeout(void **state)
{
	(void)state;
	int fds = count_open_fds();
	double v = 0, t0 = now_monotonic();
	assert_int_equal(run("sleep 5", 0.3, &v), -1);
	double took = now_monotonic() - t0;
	assert_string_equal(cmd_err, "timed out after 0.3 s");
	assert_true(isnan(v));
	assert_true(took >= 0.29 && took < 0.8);
	/* reaped: this process has no child left */
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);

	/* a group: the shell's children die with it */
	char *dir = make_tmpdir();
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "sleep 7 & echo $! > %s/pid; wait",
		 dir);
	assert_int_equal(run(cmd, 0.3, &v), -1);
	assert_string_equal(cmd_err, "timed out after 0.3 s");
	FILE *f = fopen(path_in(dir, "pid"), "r");
	assert_non_null(f);
	int gpid = 0;
	assert_int_equal(fscanf(f, "%d", &gpid), 1);
	fclose(f);
	assert_true(wait_dead(gpid));

	/* a background job holding stdout open: the reading ends with the
	 * shell, and the job is killed */
	snprintf(cmd, sizeof(cmd), "sleep 7 & echo $! > %s/pid; echo 1", dir);
	t0 = now_monotonic();
	assert_int_equal(run(cmd, 3, &v), 0);
	assert_true(v == 1);
	assert_true(now_monotonic() - t0 < 1);
	f = fopen(path_in(dir, "pid"), "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &gpid), 1);
	fclose(f);
	assert_true(wait_dead(gpid));
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	remove_tree(dir);
	free(dir);
	assert_int_equal(count_open_fds(), fds);
}

static volatile sig_atomic_t sigchld_seen;
static void on_sigchld(int sig)
{
	(void)sig;
	sigchld_seen = 1;
}

/* A caller with a SIGCHLD handler, SIGPIPE ignored, a blocked signal and
 * a child of its own: the command sees default signals, the caller's
 * child is not reaped, its handler runs. */
static void test_command_caller_state(void **state)
{
	(void)state;
	struct sigaction sa = {.sa_handler = on_sigchld}, old_chld, old_pipe;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_chld);
	struct sigaction ign = {.sa_handler = SIG_IGN};
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	sigset_t usr1, old_mask;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old_mask);

	pid_t mine = fork();
	assert_true(mine >= 0);
	if (mine == 0) {
		/* never outlive the test, never hold its output open */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		alarm(20);
		pause();
		_exit(0);
	}
	/* the command's blocked set (hex digits: all zero) and whether it
	 * ignores SIGPIPE (bit 12 of SigIgn). Other bits of SigIgn may be
	 * set: glibc's internal signals 32 and 33 are left as they are. */
	want_value("sed -n 's/^SigBlk:\\t//p' /proc/self/status", 0);
	want_value("m=$(sed -n 's/^SigIgn:\\t//p' /proc/self/status); "
		   "echo $(( (0x$m >> 12) & 1 ))", 0);
	want_value("sleep 0.05; echo 4", 4);
	assert_true(sigchld_seen);
	assert_int_equal(waitpid(mine, NULL, WNOHANG), 0); /* still ours */
	kill(mine, SIGKILL);
	assert_int_equal(waitpid(mine, NULL, 0), mine);

	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
}

/* A command whose children leave its process group (setsid, twice, into
 * the background) left 21-43 processes behind after `record` exited: the
 * reaper ends them when the shell exits, whatever group they are in. */
static void test_command_escapes_group(void **state)
{
	(void)state;
	char marker[64], cmd[512];
	snprintf(marker, sizeof(marker), "memtrend-escape-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "setsid sh -c 'exec -a %s sleep 300' </dev/null >/dev/null "
		 "2>&1 & (setsid sh -c 'sh -c \"exec -a %s sleep 300\" &') "
		 "</dev/null >/dev/null 2>&1; sleep 0.2; echo 7", marker, marker);
	double v = NAN;
	assert_int_equal(run(cmd, 10, &v), 0);
	assert_true(v == 7);
	assert_int_equal(count_marked(marker), 0);
	/* and on a timeout */
	snprintf(cmd, sizeof(cmd), "setsid sh -c 'exec -a %s sleep 300' "
		 "</dev/null >/dev/null 2>&1 & sleep 300", marker);
	assert_int_equal(run(cmd, 0.5, &v), -1);
	assert_string_equal(cmd_err, "timed out after 0.5 s");
	assert_int_equal(count_marked(marker), 0);
}

/* A cancel ends a reading in flight within about 100 ms, and what the
 * command started with it. */
static atomic_bool test_cancel;
static void *cancel_later(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 200 * 1000000};
	nanosleep(&ts, NULL);
	atomic_store(&test_cancel, true);
	return NULL;
}

static void test_command_cancel(void **state)
{
	(void)state;
	char marker[64], cmd[256];
	snprintf(marker, sizeof(marker), "memtrend-cancel-%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "setsid sh -c 'exec -a %s sleep 300' "
		 "</dev/null >/dev/null 2>&1 & sleep 300", marker);
	atomic_store(&test_cancel, false);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, cancel_later, NULL), 0);
	double t0 = mono_s(), v;
	int rc = source_command_run(cmd, 60, &test_cancel, &v, cmd_err,
				    sizeof(cmd_err));
	double dt = mono_s() - t0;
	pthread_join(th, NULL);
	assert_int_equal(rc, -1);
	assert_string_equal(cmd_err, "cancelled: memtrend is stopping");
	print_message("cancelled after %.3f s (cancel at 0.2 s)\n", dt);
	assert_true(dt < 1.0);
	assert_int_equal(count_marked(marker), 0);
}

/* ---- logs ----------------------------------------------------------- */

struct log_fx {
	char *dir;
	char *log;
};

static void log_setup(struct log_fx *fx)
{
	fx->dir = make_tmpdir();
	fx->log = xstrdup(path_in(fx->dir, "app.log"));
}

static void log_teardown(struct log_fx *fx)
{
	remove_tree(fx->dir);
	free(fx->dir);
	free(fx->log);
}

static double log_count(struct source_log *sl)
{
	char err[256];
	double count = -1;
	if (source_log_read(sl, &count, err, sizeof(err)) != 0) {
		print_error("source_log_read: %s\n", err);
		fail();
	}
	return count;
}

static void test_log_append_rotate_truncate(void **state)
{
	(void)state;
	struct log_fx fx;
	log_setup(&fx);
	append(fx.log, "GET /old\nGET /older\n");
	struct source_log *sl = source_log_open(fx.log, "^GET ");
	assert_non_null(sl);
	assert_int_equal(log_count(sl), 0); /* what was there does not count */

	append(fx.log, "GET /a\nPOST /b\nGET /c\n");
	assert_int_equal(log_count(sl), 2);
	assert_int_equal(log_count(sl), 2); /* nothing new */

	/* a partial line waits for its newline */
	append(fx.log, "GET /d");
	assert_int_equal(log_count(sl), 2);
	append(fx.log, " done");
	assert_int_equal(log_count(sl), 2);
	append(fx.log, "\nxGET /no\n");
	assert_int_equal(log_count(sl), 3);

	/* rotation: rename, a late write to the old file, a new file */
	append(fx.log, "GET /e\n");
	char *old1 = xstrdup(path_in(fx.dir, "app.log.1"));
	assert_int_equal(rename(fx.log, old1), 0);
	append(old1, "GET /f\n");
	append(fx.log, "GET /g\nPUT /h\n");
	assert_int_equal(log_count(sl), 6); /* e, f (old), g (new) */

	/* renamed away, not yet replaced: the old file is followed */
	char *old2 = xstrdup(path_in(fx.dir, "app.log.2"));
	assert_int_equal(rename(fx.log, old2), 0);
	append(old2, "GET /i\n");
	assert_int_equal(log_count(sl), 7);
	append(fx.log, "GET /j\n");
	assert_int_equal(log_count(sl), 8);

	/* an unfinished last line of a rotated file counts as a line */
	append(fx.log, "GET /k");
	assert_int_equal(log_count(sl), 8);
	assert_int_equal(rename(fx.log, old1), 0);
	append(fx.log, "GET /l\n");
	assert_int_equal(log_count(sl), 10);

	/* copytruncate: copied elsewhere, cut to 0, written again */
	append(fx.log, "noise noise noise noise noise\n");
	assert_int_equal(log_count(sl), 10);
	assert_int_equal(truncate(fx.log, 0), 0);
	append(fx.log, "GET /m\n");
	assert_int_equal(log_count(sl), 11);
	/* truncated with an unfinished line pending: it is gone */
	append(fx.log, "noise noise noise noise noise\nGET /n");
	assert_int_equal(log_count(sl), 11);
	assert_int_equal(truncate(fx.log, 0), 0);
	append(fx.log, "x\nGET /o\n");
	assert_int_equal(log_count(sl), 12);

	/* CRLF: the \r is not part of the line */
	source_log_free(sl);
	sl = source_log_open(fx.log, "/[a-z]+$");
	assert_non_null(sl);
	append(fx.log, "GET /crlf\r\nGET /x1\r\n");
	assert_int_equal(log_count(sl), 1);

	source_log_free(sl);
	free(old1);
	free(old2);
	log_teardown(&fx);
}

static void test_log_missing_and_partial_at_open(void **state)
{
	(void)state;
	struct log_fx fx;
	log_setup(&fx);
	struct source_log *sl = source_log_open(fx.log, "GET");
	assert_non_null(sl);
	char err[256];
	double count = -1;
	/* missing: SOURCE_LOG_MISSING, which the startup grace covers */
	assert_int_equal(source_log_read(sl, &count, err, sizeof(err)),
			 SOURCE_LOG_MISSING);
	assert_int_equal(count, 0);
	assert_non_null(strstr(err, "No such file"));
	/* it appears: read from its start */
	append(fx.log, "GET /a\nGET /b\nPOST\n");
	assert_int_equal(log_count(sl), 2);
	/* removed: followed still, then a new one appears */
	assert_int_equal(unlink(fx.log), 0);
	assert_int_equal(log_count(sl), 2);
	append(fx.log, "GET /c\n");
	assert_int_equal(log_count(sl), 3);
	source_log_free(sl);

	/* an unfinished line at open: its end does not count as a line */
	assert_int_equal(unlink(fx.log), 0);
	append(fx.log, "GET /before\nGET /unfinished");
	sl = source_log_open(fx.log, "GET|rest");
	assert_non_null(sl);
	append(fx.log, " rest\nGET /after\n");
	assert_int_equal(log_count(sl), 1);
	source_log_free(sl);

	/* a bad regex */
	assert_null(source_log_open(fx.log, "(unclosed"));
	log_teardown(&fx);
}

static void test_log_long_lines_and_budget(void **state)
{
	(void)state;
	struct log_fx fx;
	log_setup(&fx);
	struct source_log *sl = source_log_open(fx.log, "^GET x+$|END");
	assert_non_null(sl);

	/* a 200 KiB line, written in three pieces: counted once, matched on
	 * its first 64 KiB (all x); END after 64 KiB is not seen */
	size_t big = 200 * 1024;
	char *line = xmalloc(big + 1);
	memcpy(line, "GET ", 4);
	memset(line + 4, 'x', big - 4);
	write_file(fx.log, "a", line, 70000);
	assert_int_equal(log_count(sl), 0);
	write_file(fx.log, "a", line + 70000, 70000);
	assert_int_equal(log_count(sl), 0);
	write_file(fx.log, "a", line + 140000, big - 140000);
	append(fx.log, "\n");
	assert_int_equal(log_count(sl), 1);
	memset(line, 'y', big);
	memcpy(line + big - 3, "END", 3);
	write_file(fx.log, "a", line, big);
	append(fx.log, "\nGET xx\n");
	assert_int_equal(log_count(sl), 2);
	free(line);

	/* bounded work: 100 lines of 50 bytes, 1000 bytes a call */
	source_log_set_max_bytes(sl, 1000);
	char buf[100 * 50 + 1], *p = buf;
	for (int i = 0; i < 100; i++) {
		memset(p, 'x', 49);
		memcpy(p, "GET ", 4);
		p[49] = '\n';
		p += 50;
	}
	write_file(fx.log, "a", buf, 5000);
	for (int call = 1; call <= 5; call++)
		assert_int_equal(log_count(sl), 2 + 20 * call);
	assert_int_equal(log_count(sl), 102);
	source_log_set_max_bytes(sl, 0);

	/* many lines crossing the 64 KiB read buffer */
	FILE *f = fopen(fx.log, "a");
	assert_non_null(f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, i % 2 ? "GET xxxxxxx\n" : "POST %d\n", i);
	fclose(f);
	assert_int_equal(log_count(sl), 102 + 10000);
	source_log_free(sl);
	log_teardown(&fx);
}

/* The URL as printed (http_url_redacted): userinfo's password as ***,
 * the rest untouched; an '@' after the authority is no userinfo. Table
 * by hand. */
static void test_url_redacted(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
		bool had;
	} cases[] = {
		{"http://127.0.0.1:9090", "http://127.0.0.1:9090", false},
		{"http://alice@host:9090/", "http://alice@host:9090/", false},
		{"http://alice:s3cret@host:9090/", "http://alice:***@host:9090/",
		 true},
		{"https://a:p@ss@host/x?q=1", "https://a:***@host/x?q=1", true},
		{"http://host/api?u=a:b@c", "http://host/api?u=a:b@c", false},
		{"http://:tok@host", "http://:***@host", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		bool had = !cases[i].had;
		http_url_redacted(buf, sizeof(buf), cases[i].in, &had);
		assert_string_equal(buf, cases[i].out);
		assert_int_equal(had, cases[i].had);
	}
}

int main(void)
{
	fixtures = getenv("FIXTURES");
	if (!fixtures || !*fixtures)
		fixtures = "tests/fixtures";
	diag_set_quiet(true);
	unsetenv("MEMTREND_PROC_ROOT");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conn_fixture),
		cmocka_unit_test(test_conn_long_file),
		cmocka_unit_test(test_conn_real),
		cmocka_unit_test(test_command_values),
		cmocka_unit_test(test_command_failures),
		cmocka_unit_test(test_command_timeout),
		cmocka_unit_test(test_command_caller_state),
		cmocka_unit_test(test_command_escapes_group),
		cmocka_unit_test(test_command_cancel),
		cmocka_unit_test(test_log_append_rotate_truncate),
		cmocka_unit_test(test_log_missing_and_partial_at_open),
		cmocka_unit_test(test_log_long_lines_and_budget),
		cmocka_unit_test(test_url_redacted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
