/*
 * reaper.c - a command started under a reaper that ends all it started
 * (reaper.h).
 *
 * How: reaper_spawn() makes a socket pair (SOCK_SEQPACKET: one message a
 * read) and forks the reaper; the reaper forks the command, learns through
 * a close-on-exec pipe whether its exec worked, and says so on the socket
 * (STARTED: the pid, or the exec's errno). It then sleeps in ppoll() with
 * SIGCHLD and SIGTERM let in only there, so none is lost between a look
 * and the sleep; it reaps every child that ends (orphans reparented to it
 * too), passes SIGNAL requests on to the command, and when the command
 * ends sends END with its wait status. A SIGTERM, or the caller's end of
 * the socket closing (the caller is gone), ends the wait early. Then it
 * ends the tree (reaper_end_tree) and exits as the command did.
 *
 * The reaper is a fork of a process that may have other threads: it runs
 * only async-signal-safe calls (no malloc, no stdio, no locks) from the
 * fork to its _exit.
 *
 * Bounds: the tree's end takes the grace (at most 60 s) plus the rounds of
 * SIGKILL, 1 ms apart, while processes are left (10,000 rounds at most: a
 * fork bomb stops once its processes die faster than they fork). A walk
 * of the tree reads every /proc/PID/stat up the chain of parents (64
 * levels at most): O(processes x depth), done once per end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2, ppoll */
#endif
#include "reaper.h"
#include "common.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Messages on the socket, one per datagram. */
enum { MSG_STARTED = 1, MSG_END, MSG_SIGNAL, MSG_GO };
struct reaper_msg {
	int32_t kind;
	int32_t a;                 /* STARTED: the pid; END: the wait
				      status; SIGNAL: the signal */
	int32_t b;                 /* STARTED: the exec's errno, 0: ran */
};

#define GRACE_MAX_S 60.0
#define TREE_DEPTH_MAX 64

/* ---- in the reaper (async-signal-safe only) ---------------------------- */

static volatile sig_atomic_t reaper_terms;  /* SIGTERMs received */
/* The caller is gone: its socket read EOF, or the parent-death signal
 * came. Both come when it dies, and together they are one event, not two
 * SIGTERMs: a second SIGTERM cuts the grace short (reaper_end_tree), and
 * counting the parent-death signal as one gave a command 10 ms instead of
 * its grace after kill -9 of memtrend. */
static volatile sig_atomic_t reaper_caller_gone;
static pid_t reaper_parent;  /* the caller, set before the handler */

static void reaper_on_term(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	/* the parent-death signal: sent by the dying caller after this
	 * process was reparented (getppid() is async-signal-safe) */
	if (si && si->si_pid == reaper_parent && getppid() != reaper_parent) {
		reaper_caller_gone = 1;
		return;
	}
	reaper_terms++;
}

static void reaper_on_child(int sig) { (void)sig; }

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The parent pid from /proc/PID/stat (field 4, after the ")" that ends
 * the command name); -1 when gone. */
static long stat_ppid(long pid)
{
	char path[40] = "/proc/";
	char digits[24];
	size_t nd = 0, n = 6;
	do
		digits[nd++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0 && nd < sizeof(digits));
	while (nd)
		path[n++] = digits[--nd];
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

/* Is pid below self, by its chain of parents? */
static bool descends_from(long pid, long self)
{
	for (int depth = 0; depth < TREE_DEPTH_MAX && pid > 1; depth++) {
		pid = stat_ppid(pid);
		if (pid == self)
			return true;
	}
	return false;
}

/* Send sig to every process whose parent is this one (children_only), or
 * to every descendant; how many were found. A raw getdents64 over /proc:
 * opendir would malloc. */
static int signal_tree(int sig, bool children_only)
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
			long pid = 0;
			for (const char *q = d->d_name; *q >= '0' && *q <= '9';
			     q++)
				pid = pid * 10 + (*q - '0');
			bool ours = children_only ? stat_ppid(pid) == self :
						    descends_from(pid, self);
			if (ours) {
				kill((pid_t)pid, sig);
				found++;
			}
		}
	}
	close(dfd);
	return found;
}

struct reaper_state {
	const struct reaper_spec *s;
	int sock;                  /* -1 once the caller is gone */
	pid_t child;
	bool go;                   /* children may be reaped (spec.hold) */
	bool have;                 /* the command's status is known */
	int status;
	sigset_t wait_mask;        /* what ppoll lets in: SIGTERM, SIGCHLD */
};

static void reaper_send(struct reaper_state *st, int kind, int a, int b)
{
	if (st->sock < 0)
		return;
	struct reaper_msg m = {kind, a, b};
	ssize_t w;
	do
		w = send(st->sock, &m, sizeof(m), MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
}

/* Reap every child that has ended; the command's status is sent once.
 * Returns false when no child is left at all. */
static bool reaper_reap(struct reaper_state *st)
{
	for (;;) {
		int ws;
		pid_t w = waitpid(-1, &ws, WNOHANG);
		if (w == 0)
			return true;
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;  /* ECHILD */
		}
		if (w == st->child && !st->have) {
			st->have = true;
			st->status = ws;
			reaper_send(st, MSG_END, ws, 0);
		}
	}
}

/* Sleep at most ms (-1: until woken) with SIGTERM and SIGCHLD let in;
 * with the socket watched while the caller is there. */
static void reaper_sleep(struct reaper_state *st, int ms, bool watch_sock)
{
	struct pollfd p = {st->sock, POLLIN, 0};
	nfds_t n = watch_sock && st->sock >= 0 ? 1 : 0;
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	int r = ppoll(n ? &p : NULL, n, ms < 0 ? NULL : &ts, &st->wait_mask);
	if (r <= 0 || !n || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	struct reaper_msg m;
	ssize_t k = recv(st->sock, &m, sizeof(m), MSG_DONTWAIT);
	if (k == (ssize_t)sizeof(m) && m.kind == MSG_SIGNAL) {
		if (!st->have && m.a > 0 && m.a < NSIG)
			kill(st->s->own_group ? -st->child : st->child, m.a);
	} else if (k == (ssize_t)sizeof(m) && m.kind == MSG_GO) {
		st->go = true;
	} else if (k == 0 ||
		   (k < 0 && errno != EAGAIN && errno != EINTR)) {
		/* The caller is gone (or its socket broke): end it all, as
		 * the parent-death signal would (one event with it). */
		close(st->sock);
		st->sock = -1;
		reaper_caller_gone = 1;
	}
}

/* End what is left: SIGTERM to all of it, SIGKILL after the grace (cut
 * short by a further SIGTERM), then SIGKILL to whatever is still there,
 * round after round as orphans of those are reparented to us. */
static void reaper_end_tree(struct reaper_state *st)
{
	double grace = st->s->grace_s;
	if (grace > 0) {
		sig_atomic_t terms = reaper_terms;
		if (st->s->own_group)
			kill(-st->child, SIGTERM);
		signal_tree(SIGTERM, false);
		double until = mono_now() + fmin(grace, GRACE_MAX_S);
		while (reaper_reap(st) && reaper_terms == terms &&
		       mono_now() < until)
			reaper_sleep(st, 10, false);
	}
	if (st->s->own_group)
		kill(-st->child, SIGKILL);
	for (int round = 0; round < 10000; round++) {
		int alive = signal_tree(SIGKILL, true);
		bool left = reaper_reap(st);
		if (!alive && !left)
			break;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

/* Exit as the command did: its exit code, or its signal raised again (no
 * core: the reaper is a copy of memtrend, not the command). */
static _Noreturn void reaper_exit(const struct reaper_state *st)
{
	if (!st->have)
		_exit(128 + SIGKILL);
	if (WIFEXITED(st->status))
		_exit(WEXITSTATUS(st->status));
	int sig = WIFSIGNALED(st->status) ? WTERMSIG(st->status) : SIGKILL;
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

/* Close every descriptor from 3 up but keep (> 2). Without close_range
 * (Linux < 5.9) they stay open: the reaper's copies, harmless but for a
 * port held until it exits. */
static void close_all_but(int keep)
{
#ifdef SYS_close_range
	if (keep > 3)
		syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u);
	syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u);
#else
	(void)keep;
#endif
}

/* In the command's process, after the fork: never returns. */
static _Noreturn void command_main(const struct reaper_spec *s, int err_w,
				   pid_t reaper)
{
	if (s->own_group)
		setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != reaper)
		_exit(127);  /* the reaper died before the prctl */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);  /* EINVAL for libc's own:
						       fine */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	const int fds[3] = {s->stdin_fd, s->stdout_fd, s->stderr_fd};
	for (int i = 0; i < 3; i++) {
		int fd = fds[i];
		if (fd == REAPER_DEVNULL)
			fd = open("/dev/null", i ? O_WRONLY : O_RDONLY);
		if (fd == -1 && fds[i] == -1)
			continue;
		if (fd < 0 || dup2(fd, i) < 0) {
			int e = errno ? errno : EBADF;
			ssize_t w = write(err_w, &e, sizeof(e));
			(void)w;
			_exit(127);
		}
	}
	if (s->pass_fd > 2) {
		int fl = fcntl(s->pass_fd, F_GETFD);
		if (fl < 0 || fcntl(s->pass_fd, F_SETFD, fl & ~FD_CLOEXEC) < 0) {
			int e = errno;
			ssize_t w = write(err_w, &e, sizeof(e));
			(void)w;
			_exit(127);
		}
	}
	if (s->envp)
		execvpe(s->file ? s->file : s->argv[0], s->argv, s->envp);
	else
		execvp(s->file ? s->file : s->argv[0], s->argv);
	int e = errno;
	ssize_t w = write(err_w, &e, sizeof(e));
	(void)w;
	_exit(127);
}

/* The reaper's life, in the forked child. Never returns. */
static _Noreturn void reaper_main(const struct reaper_spec *s, int sock,
				  pid_t parent)
{
	struct reaper_state st = {.s = s, .sock = sock};
	/* Signals: SIGTERM ends the tree, SIGCHLD wakes the wait; both
	 * blocked but in ppoll. What a terminal sends memtrend's group is
	 * ignored: the reaper outlives it to end what is left. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	reaper_parent = parent;
	sa.sa_sigaction = reaper_on_term;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = reaper_on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_SETMASK, &block, NULL);
	sigemptyset(&st.wait_mask);

	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	prctl(PR_SET_NAME, "memtrend-reaper", 0, 0, 0);
	if (getppid() != parent)
		_exit(127);  /* the caller died before the prctl */

	int ep[2];
	pid_t child = -1;
	int exec_errno = 0;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		reaper_send(&st, MSG_STARTED, 0, -errno);
		_exit(127);
	}
	child = fork();
	if (child == 0) {
		close(ep[0]);
		close(sock);
		command_main(s, ep[1], getppid());
	}
	int fork_errno = errno;
	close(ep[1]);
	if (child < 0) {
		close(ep[0]);
		reaper_send(&st, MSG_STARTED, 0, -fork_errno);
		_exit(127);
	}
	if (s->own_group)
		setpgid(child, child);  /* also here: no race with a kill */
	st.child = child;
	ssize_t k;
	do
		k = read(ep[0], &exec_errno, sizeof(exec_errno));
	while (k < 0 && errno == EINTR);
	close(ep[0]);
	if (k != (ssize_t)sizeof(exec_errno))
		exec_errno = 0;  /* EOF: the exec closed the pipe */
	/* The command has its copies of what it inherits (every descriptor
	 * not close-on-exec, as from any parent: a socket handed down to a
	 * service stays its). The reaper keeps none but its socket: the
	 * caller's pipes would stay open, a listening port held. */
	close_all_but(sock);
	reaper_send(&st, MSG_STARTED, (int)child, exec_errno);
	if (exec_errno) {
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
		_exit(127);
	}

	/* Held (spec.hold): nothing is reaped before GO, so the command's
	 * /proc entry answers the caller's first look, however soon it
	 * exited. A stop, SIGTERM or the caller's end work all the same. */
	st.go = !s->hold;
	for (;;) {
		if (st.go && !reaper_reap(&st))
			break;  /* no child left: cannot happen */
		if (reaper_terms || reaper_caller_gone || st.have)
			break;
		reaper_sleep(&st, -1, true);
	}
	reaper_end_tree(&st);
	reaper_exit(&st);
}

/* ---- in the caller ------------------------------------------------------ */

int reaper_fd_above_stdio(int fd)
{
	if (fd > 2)
		return fd;
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

int reaper_spawn(const struct reaper_spec *s, struct reaper *r)
{
	assert(s && s->argv && s->argv[0] && r);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->status = -1;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return errno;
	sv[0] = reaper_fd_above_stdio(sv[0]);
	sv[1] = reaper_fd_above_stdio(sv[1]);
	if (sv[0] < 0 || sv[1] < 0) {
		int e = errno;
		if (sv[0] >= 0)
			close(sv[0]);
		if (sv[1] >= 0)
			close(sv[1]);
		return e;
	}
	pid_t parent = getpid();
	pid_t p = fork();
	if (p == 0) {
		close(sv[0]);
		reaper_main(s, sv[1], parent);
	}
	int e = errno;
	close(sv[1]);
	if (p < 0) {
		close(sv[0]);
		return e;
	}
	r->pid = p;
	r->fd = sv[0];
	struct reaper_msg m;
	ssize_t k;
	do
		k = recv(r->fd, &m, sizeof(m), 0);
	while (k < 0 && errno == EINTR);
	int rc = 0;
	if (k != (ssize_t)sizeof(m) || m.kind != MSG_STARTED)
		rc = k < 0 ? errno : EIO;   /* the reaper died first */
	else if (m.b > 0)
		rc = r->exec_errno = m.b;
	else if (m.b < 0)
		rc = -m.b;                  /* the reaper's fork failed */
	if (rc) {
		int exec_errno = r->exec_errno;
		reaper_finish(r, true, 2);
		memset(r, 0, sizeof(*r));
		r->fd = -1;
		r->status = -1;
		r->exec_errno = exec_errno;
		return rc;
	}
	r->child = (pid_t)m.a;
	return 0;
}

bool reaper_poll(struct reaper *r)
{
	if (r->ended || r->fd < 0)
		return r->ended;
	for (;;) {
		struct reaper_msg m;
		ssize_t k = recv(r->fd, &m, sizeof(m), MSG_DONTWAIT);
		if (k == (ssize_t)sizeof(m)) {
			if (m.kind != MSG_END)
				continue;
			r->ended = true;
			r->status = m.a;
			return true;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		r->ended = true;  /* EOF: the reaper is gone without a word */
		return true;
	}
}

int reaper_go(struct reaper *r)
{
	if (r->fd < 0)
		return -1;
	struct reaper_msg m = {MSG_GO, 0, 0};
	ssize_t w;
	do
		w = send(r->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof(m) ? 0 : -1;
}

int reaper_signal(struct reaper *r, int sig)
{
	if (r->fd < 0)
		return -1;
	if (reaper_poll(r))
		return 0;  /* ended: nothing to signal */
	struct reaper_msg m = {MSG_SIGNAL, sig, 0};
	ssize_t w;
	do
		w = send(r->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof(m) ? 0 : -1;
}

int reaper_finish(struct reaper *r, bool now, double wait_s)
{
	int rc = 0;
	if (r->pid > 0) {
		/* Ours and unreaped until the waitpid below: the pid cannot
		 * have been reused. */
		if (now)
			kill(r->pid, SIGTERM);
		double give_up = now_monotonic() + (wait_s > 0 ? wait_s : 0);
		long nap_ns = 1000000L;
		int ws = 0;
		pid_t w;
		for (;;) {
			w = waitpid(r->pid, &ws, WNOHANG);
			if (w < 0 && errno == EINTR)
				continue;
			if (w != 0)
				break;
			if (now_monotonic() >= give_up) {
				kill(r->pid, SIGKILL);
				do
					w = waitpid(r->pid, &ws, 0);
				while (w < 0 && errno == EINTR);
				break;
			}
			struct timespec ts = {0, nap_ns};
			nanosleep(&ts, NULL);
			if (nap_ns < 10000000L)
				nap_ns *= 2;
		}
		if (w != r->pid)
			rc = -1;
		reaper_poll(r);  /* END, when it was sent */
		if (w == r->pid && (!r->ended || r->status < 0)) {
			/* not heard: the reaper's exit mirrors the command's */
			r->ended = true;
			r->status = ws;
		}
		r->pid = 0;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	return rc;
}
