/*
 * source_command.c - one number from a shell command, bounded by a timeout
 * (source_command.h).
 *
 * How: /bin/sh -c CMD runs under a reaper (reaper.h: a child subreaper
 * with a parent-death signal) in a new process group, with stdin
 * /dev/null, stdout and stderr on two pipes (O_CLOEXEC, so no other fd of
 * ours reaches the command), every signal at its default disposition and
 * none blocked. The caller polls the pipes and the reaper's socket until
 * the shell exits (the reaper says so, then ends everything the command
 * started, also processes that left its group, SIGKILL at once: a reading
 * has no grace), the deadline passes, a cancel comes, or stdout exceeds
 * 64 KiB; then reaper_finish() ends the reaper (the same way, early) and
 * waits for it: only its own child, so a caller's other children and
 * SIGCHLD handlers are left alone.
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
#include "reaper.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* ---- the pipes ---------------------------------------------------------- */

static int make_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	p[0] = reaper_fd_above_stdio(p[0]);
	p[1] = reaper_fd_above_stdio(p[1]);
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
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	struct reaper_spec spec = {
		.file = "/bin/sh", .argv = argv, .own_group = true,
		.stdin_fd = REAPER_DEVNULL, .stdout_fd = po[1],
		.stderr_fd = pe[1], .grace_s = 0,
	};
	struct reaper rp;
	int rc = reaper_spawn(&spec, &rp);
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
	double deadline = now_monotonic() + timeout_s;
	bool timed_out = false, cancelled = false;
	for (;;) {
		if (reaper_poll(&rp)) {
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
		fds[nf++] = (struct pollfd){.fd = rp.fd, .events = POLLIN};
		double ms = ceil(left * 1000);
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

	/* Early (a timeout, a cancel, too much output) the reaper is told
	 * to end it all; else it is ending what the shell left. A reaper
	 * that does not finish in 2 s (it never should) is killed
	 * outright. */
	reaper_finish(&rp, !rp.ended, 2);
	int st = rp.status;
	bool have_status = rp.ended && rp.status >= 0;

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
