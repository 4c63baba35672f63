/*
 * probe_net.c - counting a service's ESTABLISHED TCP connections on its
 * port(s) (probe_tcp_established in probe.h), from PROC_ROOT/PID/net/tcp,
 * PROC_ROOT/PID/net/tcp6 and the sockets in PROC_ROOT/PID/fd.
 *
 * What it does:
 *   - reads tcp and tcp6 of the first pid's network namespace, streaming
 *     each file through one 64 KiB buffer (no stdio, no per-line
 *     allocation), and keeps, for each line whose LOCAL port is wanted and
 *     whose state is ESTABLISHED (01) or LISTEN (0A), its port and inode;
 *   - then collects the socket inodes of the pids' fds ("socket:[INODE]"
 *     links) into a sorted array, and counts the kept ESTABLISHED lines
 *     whose inode is in it (bsearch), plus connections still waiting in
 *     the accept queue (inode 0) of a LISTEN socket the pids hold. The net
 *     files are read before the fds so that a connection accepted in
 *     between is seen as queued (inode 0) rather than as a stranger's;
 *   - falls back to counting every matching socket (*restricted false)
 *     when a pid's fd directory cannot be read.
 *
 * What it does not do: keep anything between calls (each call opens and
 * reads the files afresh: /proc/net files are regenerated on every read
 * anyway), look at remote ports (a client of the service on this machine
 * has the port as its REMOTE port and never counts), or look into other
 * network namespaces than the first pid's.
 *
 * Bounds: O(lines of tcp + tcp6) to parse, O(fds) readlinks, O(f log f) to
 * sort the inode set and O(log f) per kept line to look one up. A line
 * longer than the buffer (never seen in a real file: they are ~150 bytes)
 * is skipped.
 *
 * Cost, measured on this project's machines: the kernel takes ~0.9 ms to
 * produce tcp (and again tcp6) even with a dozen sockets - it walks the
 * whole connection hash table - and ~2.3 us per fd to readlink; parsing is
 * noise beside that. About 2 ms per call: fine at seconds, not at every
 * 10 ms tick (sock_diag netlink would be cheaper, but fixtures could not
 * stand in for it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fdopendir, readlinkat, O_DIRECTORY */
#endif
#include "probe.h"
#include "common.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NET_BUF_SIZE (64u * 1024u)

enum { TCP_ESTABLISHED = 0x01, TCP_LISTEN = 0x0A };

/* A kept line: index of its local port in the sorted port set, its state
 * and its inode (0 for a connection no process holds yet). */
struct net_sock {
	uint64_t inode;
	uint32_t port_idx;
	uint8_t state;
};

struct net_scan {
	const uint16_t *ports; /* sorted, unique */
	size_t n_ports;
	struct net_sock *socks;
	size_t n_socks, cap_socks;
};

/* ---- parsing one line of /proc/net/tcp{,6} ----------------------------- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Next whitespace-separated token in [*s, e): sets *tok and *len, advances
 * *s past it. false at the end of the line. */
static bool next_token(const char **s, const char *e, const char **tok,
		       size_t *len)
{
	const char *p = *s;
	while (p < e && is_space(*p))
		p++;
	if (p == e)
		return false;
	const char *t = p;
	while (p < e && !is_space(*p))
		p++;
	*tok = t;
	*len = (size_t)(p - t);
	*s = p;
	return true;
}

/* "0100007F:1F90" (IPv4, 8 hex digits) or 32 hex digits (IPv6), a colon
 * and 4 hex digits of port. */
static bool parse_endpoint(const char *t, size_t len, uint16_t *port)
{
	if (len != 8 + 1 + 4 && len != 32 + 1 + 4)
		return false;
	size_t alen = len - 5;
	for (size_t i = 0; i < alen; i++)
		if (hex_value(t[i]) < 0)
			return false;
	if (t[alen] != ':')
		return false;
	unsigned v = 0;
	for (size_t i = alen + 1; i < len; i++) {
		int h = hex_value(t[i]);
		if (h < 0)
			return false;
		v = v << 4 | (unsigned)h;
	}
	*port = (uint16_t)v;
	return true;
}

static bool parse_inode(const char *t, size_t len, uint64_t *inode)
{
	if (len == 0 || len > 19) /* 19 digits always fit in 64 bits */
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (t[i] < '0' || t[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(t[i] - '0');
	}
	*inode = v;
	return true;
}

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/*
 * "  12: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000
 *  00000000  1000        0 123456 1 ..." - sl, local, remote, state,
 * tx:rx queue, timer, retransmits, uid, timeout, inode. Keeps the line
 * when its local port is wanted and it is ESTABLISHED or LISTEN; skips the
 * header and anything malformed.
 */
static void scan_line(struct net_scan *sc, const char *s, const char *e)
{
	const char *t;
	size_t len;
	/* sl: digits and a colon */
	if (!next_token(&s, e, &t, &len) || len < 2 || t[len - 1] != ':')
		return;
	for (size_t i = 0; i + 1 < len; i++)
		if (t[i] < '0' || t[i] > '9')
			return;
	uint16_t lport, rport;
	if (!next_token(&s, e, &t, &len) || !parse_endpoint(t, len, &lport))
		return;
	if (!next_token(&s, e, &t, &len) || !parse_endpoint(t, len, &rport))
		return;
	if (!next_token(&s, e, &t, &len) || len != 2 || hex_value(t[0]) < 0 ||
	    hex_value(t[1]) < 0)
		return;
	int state = hex_value(t[0]) << 4 | hex_value(t[1]);
	if (state != TCP_ESTABLISHED && state != TCP_LISTEN)
		return;
	const uint16_t *hit = bsearch(&lport, sc->ports, sc->n_ports,
				      sizeof(*sc->ports), cmp_u16);
	if (!hit)
		return;
	for (int i = 0; i < 5; i++) /* queues, timer, retrnsmt, uid, timeout */
		if (!next_token(&s, e, &t, &len))
			return;
	uint64_t inode;
	if (!next_token(&s, e, &t, &len) || !parse_inode(t, len, &inode))
		return;
	xgrow((void **)&sc->socks, &sc->cap_socks, sc->n_socks + 1,
	      sizeof(*sc->socks));
	sc->socks[sc->n_socks++] = (struct net_sock){
		.inode = inode,
		.port_idx = (uint32_t)(hit - sc->ports),
		.state = (uint8_t)state,
	};
}

/* Stream fd through buf line by line. Returns 0 or -errno. */
static int scan_fd(struct net_scan *sc, int fd, char *buf)
{
	size_t have = 0;
	bool skipping = false; /* inside a line longer than the buffer */
	for (;;) {
		ssize_t n = read(fd, buf + have, NET_BUF_SIZE - have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			if (have > 0 && !skipping)
				scan_line(sc, buf, buf + have);
			return 0;
		}
		have += (size_t)n;
		char *start = buf, *end = buf + have, *nl;
		while ((nl = memchr(start, '\n', (size_t)(end - start)))) {
			if (!skipping)
				scan_line(sc, start, nl);
			skipping = false;
			start = nl + 1;
		}
		have = (size_t)(end - start);
		if (have == NET_BUF_SIZE) {
			skipping = true;
			have = 0;
		} else if (have > 0 && start != buf) {
			memmove(buf, start, have);
		}
	}
}

static int open_ro(const char *path)
{
	int fd;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd;
}

/* Read one net file. first: the tcp file, whose absence means the process
 * is gone; tcp6 may be absent (IPv6 disabled). */
static int scan_net_file(struct net_scan *sc, const char *path, bool first,
			 char *buf)
{
	int fd = open_ro(path);
	if (fd < 0) {
		int err = errno;
		if (err == ENOENT || err == ESRCH)
			return first ? PROBE_GONE : PROBE_OK;
		return error("cannot open '%s': %s", path, strerror(err));
	}
	int rc = scan_fd(sc, fd, buf);
	close(fd);
	if (rc == -ESRCH || (rc == -ENOENT && first))
		return PROBE_GONE;
	if (rc < 0)
		return error("cannot read '%s': %s", path, strerror(-rc));
	return PROBE_OK;
}

/* ---- the processes' socket inodes -------------------------------------- */

struct inode_set {
	uint64_t *v;
	size_t n, cap;
};

/* "socket:[12345]" */
static bool socket_inode(const char *link, size_t len, uint64_t *inode)
{
	static const char pre[] = "socket:[";
	size_t pl = sizeof(pre) - 1;
	if (len < pl + 2 || memcmp(link, pre, pl) != 0 || link[len - 1] != ']')
		return false;
	return parse_inode(link + pl, len - pl - 1, inode);
}

/* Add the socket inodes of pid's fds. Returns 1 when they were read (or
 * the process is gone: nothing to add), 0 when its fd directory is not
 * readable (the count cannot be restricted). */
static int collect_inodes(const char *root, pid_t pid, struct inode_set *set)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	int pfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT || errno == ESRCH ? 1 : 0;
	int dfd = openat(pfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	if (dfd < 0)
		return 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char link[64];
		ssize_t n = readlinkat(dfd, e->d_name, link, sizeof(link));
		uint64_t inode;
		if (n <= 0 || (size_t)n >= sizeof(link) ||
		    !socket_inode(link, (size_t)n, &inode))
			continue; /* not a socket, or closed meanwhile */
		xgrow((void **)&set->v, &set->cap, set->n + 1,
		      sizeof(*set->v));
		set->v[set->n++] = inode;
	}
	closedir(d);
	return 1;
}

/* ---- the count --------------------------------------------------------- */

/* ROOT/PID/net/NAME, or ROOT/net/NAME without a pid. */
static void net_path(char *buf, size_t n, const char *root, const pid_t *pids,
		     size_t n_pids, const char *name)
{
	if (n_pids)
		snprintf(buf, n, "%s/%d/net/%s", root, (int)pids[0], name);
	else
		snprintf(buf, n, "%s/net/%s", root, name);
}

int probe_tcp_established(struct probe *p, const pid_t *pids, size_t n_pids,
			  const uint16_t *ports, size_t n_ports,
			  double *count, bool *restricted)
{
	assert(p && count && restricted && (pids || n_pids == 0) &&
	       (ports || n_ports == 0));
	*count = 0;
	*restricted = false;
	const char *root = probe_proc_root(p);

	/* the wanted ports, sorted and unique, for bsearch */
	uint16_t *pset = xmalloc((n_ports ? n_ports : 1) * sizeof(*pset));
	size_t np = 0;
	if (n_ports) {
		memcpy(pset, ports, n_ports * sizeof(*pset));
		qsort(pset, n_ports, sizeof(*pset), cmp_u16);
		for (size_t i = 0; i < n_ports; i++)
			if (np == 0 || pset[np - 1] != pset[i])
				pset[np++] = pset[i];
	}
	struct net_scan sc = {.ports = pset, .n_ports = np};
	struct inode_set set = {0};
	bool *listening = NULL;
	size_t *queued = NULL;
	char *buf = xmalloc(NET_BUF_SIZE);
	char path[4096];
	int rc;

	/* 1. the namespace's sockets (before the fds: see the top) */
	net_path(path, sizeof(path), root, pids, n_pids, "tcp");
	rc = scan_net_file(&sc, path, true, buf);
	if (rc != PROBE_OK)
		goto out;
	net_path(path, sizeof(path), root, pids, n_pids, "tcp6");
	rc = scan_net_file(&sc, path, false, buf);
	if (rc != PROBE_OK)
		goto out;

	/* 2. the processes' own sockets */
	bool restrict_ok = n_pids > 0;
	for (size_t i = 0; i < n_pids && restrict_ok; i++)
		restrict_ok = collect_inodes(root, pids[i], &set) == 1;
	if (restrict_ok && set.n > 1) {
		qsort(set.v, set.n, sizeof(*set.v), cmp_u64);
		size_t u = 1;
		for (size_t i = 1; i < set.n; i++)
			if (set.v[i] != set.v[u - 1])
				set.v[u++] = set.v[i];
		set.n = u;
	}

	/* 3. count */
	size_t total = 0;
	if (!restrict_ok) {
		for (size_t i = 0; i < sc.n_socks; i++)
			total += sc.socks[i].state == TCP_ESTABLISHED;
	} else {
		listening = xcalloc(np ? np : 1, sizeof(*listening));
		queued = xcalloc(np ? np : 1, sizeof(*queued));
		for (size_t i = 0; i < sc.n_socks; i++) {
			const struct net_sock *k = &sc.socks[i];
			bool ours = k->inode != 0 &&
				    bsearch(&k->inode, set.v, set.n,
					    sizeof(*set.v), cmp_u64) != NULL;
			if (k->state == TCP_LISTEN)
				listening[k->port_idx] |= ours;
			else if (ours)
				total++;
			else if (k->inode == 0)
				queued[k->port_idx]++;
		}
		for (size_t i = 0; i < np; i++)
			if (listening[i])
				total += queued[i];
	}
	*count = (double)total;
	*restricted = restrict_ok;
	rc = PROBE_OK;
out:
	free(listening);
	free(queued);
	free(set.v);
	free(sc.socks);
	free(buf);
	free(pset);
	return rc;
}
