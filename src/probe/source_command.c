/*
 * source_command.c - one number from a shell command, bounded by a timeout
 * (source_command.h).
 *
 * How: a forked reaper (below) runs /bin/sh -c CMD in a new process
 * group, with stdin /dev/null, stdout and stderr on two pipes (O_CLOEXEC,
 * so no other fd of ours reaches the command), every signal at its
 * default disposition and none blocked. The parent polls the pipes and a
 * pidfd of the reaper (when the kernel has pidfd_open; else it checks the
 * reaper every 1-10 ms) until the reaper exits (the shell exited and the
 * reaper ended everything the command started, also processes that left
 * its group), the deadline passes, a cancel comes, or stdout exceeds
 * 64 KiB; then it sends the reaper SIGTERM (which ends it all the same
 * way) and reaps it with waitpid(pid): only its own child, so a caller's
 * other children and SIGCHLD handlers are left alone.
 *
 * What it does not do: wait for a background job to finish printing (what
 * the command printed by the time the shell exits is the output), or
 * interpret the number.
 *
 * Bounds: timeout_s of wall time (plus the reap after a SIGKILL), 64 KiB
 * of stdout and 1 KiB of stderr kept; more stderr is read and dropped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2, strtod_l */
#endif
#include "source_command.h"
#include "common.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define STDERR_KEEP 1024u
/* How much of what a command printed a message shows. */
#define SHOW_MAX 60u

/* ---- output capture ----------------------------------------------------- */

struct capture {
	int fd;        /* read end, non-blocking; -1 once at EOF */
	char *data;    /* keep + 1 bytes: room for a NUL */
	size_t len, keep;
	bool overflow; /* more than keep bytes arrived */
};

/* Read what is there now; at EOF (or an error) close the pipe. */
static void capture_drain(struct capture *c)
{
	char scratch[4096];
	while (c->fd >= 0) {
		char *to = scratch;
		size_t room = sizeof(scratch);
		if (c->len < c->keep) {
			to = c->data + c->len;
			room = c->keep - c->len;
		}
		ssize_t n = read(c->fd, to, room);
		if (n > 0) {
			if (to == scratch)
				c->overflow = true;
			else
				c->len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		close(c->fd); /* EOF, or an error we cannot do better on */
		c->fd = -1;
	}
}

static void capture_close(struct capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->data);
	c->data = NULL;
}

/* ---- the child ---------------------------------------------------------- */

/* Move fd off 0-2, so that the child's dup2 onto 0-2 never meets itself
 * (dup2(fd, fd) would keep O_CLOEXEC and the command would lose it). */
static int fd_above_stdio(int fd)
{
	if (fd > 2)
		return fd;
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

static int make_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	p[0] = fd_above_stdio(p[0]);
	p[1] = fd_above_stdio(p[1]);
	if (p[0] < 0 || p[1] < 0 ||
	    fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		int e = errno;
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		errno = e;
		return -1;
	}
	return 0;
}

/* Returns posix_spawn's error number (0 on success). */
/* ---- the reaper ---------------------------------------------------------
 *
 * Between memtrend and the shell sits a reaper: a forked copy of this
 * process that is a child subreaper (PR_SET_CHILD_SUBREAPER), so that
 * whatever the command starts and orphans -- a daemon that calls setsid,
 * a double fork -- is reparented to it instead of to init, and it can end
 * all of it. It gets SIGTERM when the thread that forked it dies
 * (PR_SET_PDEATHSIG: memtrend killed with kill -9), and memtrend sends it
 * SIGTERM on a timeout or a cancel. Either way, or when the shell exits,
 * it kills the shell's group, then every process left among its
 * children (again as orphans of those are reparented to it), reaps them
 * all, and exits as the shell did. It runs only async-signal-safe calls
 * (the forking process has other threads): no malloc, no stdio. */

static volatile sig_atomic_t reaper_term;

static void reaper_on_term(int sig)
{
	(void)sig;
	reaper_term = 1;
}

/* The parent pid from /proc/PID/stat (field 4, after the ")" that ends
 * the command name); -1 when gone. AS-safe. */
static long stat_ppid(const char *name)
{
	char path[48] = "/proc/";
	size_t n = 6;
	for (size_t i = 0; name[i] && n < sizeof(path) - 6; i++)
		path[n++] = name[i];
	memcpy(path + n, "/stat", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[512];
	ssize_t got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	long v = 0;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v;
}

/* SIGKILL every process whose parent is this one; how many were found.
 * A raw getdents64 over /proc: opendir would malloc. */
static int kill_children(void)
{
	struct linux_dirent64 {
		unsigned long long d_ino;
		long long d_off;
		unsigned short d_reclen;
		unsigned char d_type;
		char d_name[];
	};
	int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	long self = (long)getpid();
	int found = 0;
	char buf[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			if (stat_ppid(d->d_name) == self) {
				long pid = 0;
				for (const char *q = d->d_name; *q; q++)
					pid = pid * 10 + (*q - '0');
				kill((pid_t)pid, SIGKILL);
				found++;
			}
		}
	}
	close(dfd);
	return found;
}

/* The reaper's life (in the forked child). Never returns. */
static void reaper_main(const char *cmd, int out_w, int err_w, pid_t parent)
{
	sigset_t none;
	sigemptyset(&none);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = reaper_on_term;
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGTERM && sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	if (getppid() != parent) /* memtrend died before the prctl */
		_exit(127);
	pid_t sh = fork();
	if (sh == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 ||
		    dup2(err_w, 2) < 0)
			_exit(127);
		char *argv[] = {"sh", "-c", (char *)cmd, NULL};
		execve("/bin/sh", argv, environ);
		_exit(127);
	}
	close(out_w);
	close(err_w);
	int st = 0;
	bool have = false;
	if (sh > 0) {
		setpgid(sh, sh); /* also here: no race with the kill below */
		while (!reaper_term) {
			int w_st;
			pid_t w = waitpid(-1, &w_st, 0);
			if (w == sh) {
				st = w_st;
				have = true;
				break;
			}
			if (w < 0 && errno == ECHILD)
				break;
		}
		kill(-sh, SIGKILL);
	}
	/* everything left, as long as anything is: children die, their
	 * children become ours, and so on (bounded: a fork bomb stops when
	 * its processes die faster than they fork; 10,000 rounds max) */
	for (int round = 0; round < 10000; round++) {
		int alive = kill_children();
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!alive && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			break;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	if (!have || reaper_term)
		_exit(128 + SIGKILL);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	sa.sa_handler = SIG_DFL;
	sigaction(WTERMSIG(st), &sa, NULL);
	kill(getpid(), WTERMSIG(st));
	_exit(128 + WTERMSIG(st));
}

/* Fork the reaper (which starts the shell). 0 or an errno. */
static int spawn_shell(const char *cmd, int out_w, int err_w, pid_t *pid)
{
	pid_t parent = getpid();
	pid_t p = fork();
	if (p < 0)
		return errno;
	if (p == 0)
		reaper_main(cmd, out_w, err_w, parent);
	*pid = p;
	return 0;
}

/* A pollable handle on the shell (Linux 5.3+; close-on-exec by itself),
 * or -1: then the loop looks at the shell every few milliseconds. */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);
	return fd >= 0 ? (int)fd : -1;
#else
	(void)pid;
	return -1;
#endif
}

enum child_state { CHILD_RUNNING, CHILD_EXITED, CHILD_LOST };

/* Has the shell exited? Looks without reaping it (WNOWAIT), so its pid -
 * and the group id - stay ours until the group is killed. CHILD_LOST when
 * it is no longer our child to wait for (reaped by the caller's SIGCHLD
 * handler, or SIGCHLD ignored). */
static enum child_state child_state(pid_t pid)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si,
			   WEXITED | WNOHANG | WNOWAIT) == 0)
			return si.si_pid == pid ? CHILD_EXITED : CHILD_RUNNING;
		if (errno != EINTR)
			return CHILD_LOST;
	}
}

/* ---- the message -------------------------------------------------------- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static void trim(const char **s, size_t *len)
{
	while (*len && is_ws(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && is_ws((*s)[*len - 1]))
		(*len)--;
}

/* Untrusted bytes (NULs included) as printable ASCII: \" \\ \n \r \t,
 * \xNN for the rest; at most SHOW_MAX of them, then "...". */
static void escape_bytes(char *dst, size_t n, const char *s, size_t len)
{
	assert(n > 0);
	size_t at = 0;
	for (size_t i = 0; i < len; i++) {
		char piece[8];
		unsigned char c = (unsigned char)s[i];
		if (i == SHOW_MAX) {
			snprintf(piece, sizeof(piece), "...");
		} else if (c == '"' || c == '\\') {
			snprintf(piece, sizeof(piece), "\\%c", c);
		} else if (c == '\n' || c == '\r' || c == '\t') {
			snprintf(piece, sizeof(piece), "\\%c",
				 c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		} else if (c < 0x20 || c >= 0x7F) {
			snprintf(piece, sizeof(piece), "\\x%02x", c);
		} else {
			piece[0] = (char)c;
			piece[1] = '\0';
		}
		size_t pl = strlen(piece);
		if (at + pl + 1 > n)
			break;
		memcpy(dst + at, piece, pl);
		at += pl;
		if (i == SHOW_MAX)
			break;
	}
	dst[at] = '\0';
}

/* ---- the number --------------------------------------------------------- */

/* [+-] (digits [. digits*] | . digits) [(e|E) [+-] digits]: what strtod
 * reads as a decimal, without inf, nan and hex. */
static bool is_decimal(const char *s, size_t len)
{
	const char *p = s, *e = s + len;
	if (p < e && (*p == '+' || *p == '-'))
		p++;
	size_t digits = 0;
	while (p < e && *p >= '0' && *p <= '9') {
		p++;
		digits++;
	}
	if (p < e && *p == '.') {
		p++;
		while (p < e && *p >= '0' && *p <= '9') {
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return false;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e || *p < '0' || *p > '9')
			return false;
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	return p == e;
}

/* s[len] must be writable (the capture keeps a spare byte). */
static int parse_output(char *data, size_t total, double *value, char *err,
			size_t errlen)
{
	const char *s = data;
	size_t len = total;
	trim(&s, &len);
	if (len == 0) {
		snprintf(err, errlen, "printed nothing");
		return SOURCE_COMMAND_DOWN;
	}
	char shown[SHOW_MAX * 4 + 8];
	if (!is_decimal(s, len)) {
		escape_bytes(shown, sizeof(shown), s, len);
		snprintf(err, errlen, "printed no number: \"%s\"", shown);
		return -1;
	}
	data[(s - data) + len] = '\0';
	/* strtod follows LC_NUMERIC: a caller's setlocale() would turn "1.5"
	 * into 1. Read it in the C locale. */
	locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c_loc == (locale_t)0) {
		snprintf(err, errlen, "cannot make the C locale: %s",
			 strerror(errno));
		return -1;
	}
	char *end;
	errno = 0;
	double v = strtod_l(s, &end, c_loc);
	freelocale(c_loc);
	if (end != s + len || !isfinite(v)) {
		escape_bytes(shown, sizeof(shown), s, len);
		snprintf(err, errlen, "printed a number out of range: \"%s\"",
			 shown);
		return -1;
	}
	*value = v;
	return 0;
}

/* ---- running it --------------------------------------------------------- */

int source_command_run(const char *cmd, double timeout_s,
		       const atomic_bool *cancel, double *value, char *err,
		       size_t errlen)
{
	assert(cmd && value && err && errlen > 0);
	*value = NAN;
	err[0] = '\0';
	if (!(timeout_s > 0) || !isfinite(timeout_s)) {
		snprintf(err, errlen, "bad timeout %g s", timeout_s);
		return -1;
	}
	int po[2], pe[2];
	if (make_pipe(po) < 0) {
		snprintf(err, errlen, "cannot make a pipe: %s",
			 strerror(errno));
		return -1;
	}
	if (make_pipe(pe) < 0) {
		snprintf(err, errlen, "cannot make a pipe: %s",
			 strerror(errno));
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid_t pid = -1;
	int rc = spawn_shell(cmd, po[1], pe[1], &pid);
	close(po[1]);
	close(pe[1]);
	if (rc) {
		close(po[0]);
		close(pe[0]);
		snprintf(err, errlen, "cannot run /bin/sh: %s", strerror(rc));
		return -1;
	}

	struct capture out = {.fd = po[0], .keep = SOURCE_COMMAND_MAX_OUTPUT};
	struct capture er = {.fd = pe[0], .keep = STDERR_KEEP};
	out.data = xmalloc(out.keep + 1);
	er.data = xmalloc(er.keep + 1);
	int pidfd = open_pidfd(pid);
	double deadline = now_monotonic() + timeout_s;
	int tick_ms = 1; /* without a pidfd: how often to look at the shell */
	bool timed_out = false, cancelled = false;
	enum child_state cs;
	for (;;) {
		cs = child_state(pid);
		if (cs != CHILD_RUNNING) {
			/* what the group printed up to now is the output */
			capture_drain(&out);
			capture_drain(&er);
			break;
		}
		if (out.overflow)
			break;
		double left = deadline - now_monotonic();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (cancel && atomic_load(cancel)) {
			cancelled = true;
			break;
		}
		struct pollfd fds[3];
		nfds_t nf = 0;
		if (out.fd >= 0)
			fds[nf++] = (struct pollfd){.fd = out.fd,
						    .events = POLLIN};
		if (er.fd >= 0)
			fds[nf++] = (struct pollfd){.fd = er.fd,
						    .events = POLLIN};
		if (pidfd >= 0)
			fds[nf++] = (struct pollfd){.fd = pidfd,
						    .events = POLLIN};
		double ms = ceil(left * 1000);
		if (pidfd < 0) {
			ms = fmin(ms, tick_ms);
			tick_ms = tick_ms < 10 ? tick_ms * 2 : 10;
		}
		if (cancel) /* a cancel is seen within 100 ms */
			ms = fmin(ms, 100);
		int pr = poll(fds, nf, (int)fmin(ms, 60000));
		if (pr < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			break;
		}
		capture_drain(&out);
		capture_drain(&er);
	}

	/* The reaper ends the shell's group and whatever it left when the
	 * shell exits; early (a timeout, a cancel, too much output) it does
	 * so on SIGTERM. It is ours and unreaped until the waitpid below, so
	 * its pid cannot have been reused. A reaper that does not finish in
	 * 2 s (it never should) is killed outright. */
	if (cs == CHILD_RUNNING)
		kill(pid, SIGTERM);
	int st = 0;
	bool have_status = false;
	if (cs != CHILD_LOST) {
		double give_up = now_monotonic() + 2;
		pid_t w;
		for (;;) {
			w = waitpid(pid, &st, WNOHANG);
			if (w != 0 && !(w < 0 && errno == EINTR))
				break;
			if (now_monotonic() > give_up) {
				kill(pid, SIGKILL);
				do
					w = waitpid(pid, &st, 0);
				while (w < 0 && errno == EINTR);
				break;
			}
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		have_status = w == pid;
	}
	if (pidfd >= 0)
		close(pidfd);

	int result = -1;
	if (err[0]) {
		/* poll failed: err says why */
	} else if (cancelled) {
		snprintf(err, errlen, "cancelled: memtrend is stopping");
	} else if (timed_out) {
		snprintf(err, errlen, "timed out after %g s", timeout_s);
	} else if (out.overflow) {
		snprintf(err, errlen, "printed more than %u KiB",
			 SOURCE_COMMAND_MAX_OUTPUT / 1024u);
	} else if (have_status && WIFSIGNALED(st)) {
		snprintf(err, errlen, "killed by signal %d", WTERMSIG(st));
	} else if (have_status && WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		const char *line = er.data;
		size_t len = er.len;
		const char *nl = memchr(line, '\n', len);
		if (nl)
			len = (size_t)(nl - line);
		trim(&line, &len);
		char shown[SHOW_MAX * 4 + 8];
		escape_bytes(shown, sizeof(shown), line, len);
		snprintf(err, errlen, "exited with status %d%s%s",
			 WEXITSTATUS(st), len ? ": " : "", shown);
		/* 126, 127: the shell could not run it; else the command
		 * ran and found nothing to ask, most likely */
		result = WEXITSTATUS(st) == 126 || WEXITSTATUS(st) == 127 ?
			 -1 : SOURCE_COMMAND_DOWN;
	} else {
		result = parse_output(out.data, out.len, value, err, errlen);
	}
	capture_close(&out);
	capture_close(&er);
	return result;
}
