/*
 * probe_linux.c - the Linux probe: reads /proc and /sys (under configurable
 * roots, so tests can use fixture trees) and turns them into the figures of
 * probe.h.
 *
 * What it does:
 *   - keeps the files read at every sample open (status, stat, meminfo,
 *     pressure/memory, the cgroup's memory files) and re-reads them with
 *     pread at offset 0 into a per-handle buffer, then parses them with a
 *     small hand-written scanner (no stdio, no sscanf): the recorder's cost
 *     is meant to stay close to the bare pread floor of those files;
 *   - binds a process handle to one incarnation: its fds are opened before
 *     its identity is read, and a read through a kept /proc/PID fd fails
 *     with ESRCH once that incarnation has exited, even if the PID is
 *     reused, so a restart can never be mistaken for the same process;
 *   - maps "absent" (old kernels, containers, no ptrace access) to NAN or
 *     PROBE_DENIED, never to a failure.
 *
 * What it does not do: decide what to sample or how often, remember
 * samples, or follow a process across restarts (the target layer does that). It
 * is not thread-safe: each handle owns one read buffer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memrchr */
#endif
#include "probe.h"
#include "common.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every field we parse sits in the first ~1.5 KiB of its file, so one
 * pread into 8 KiB is the normal case; the buffer only grows for odd files
 * (a huge Groups: line, /proc/stat on a many-CPU machine). A process's
 * handle reads only its stat (~300 B), status (~1.4 KiB on 6.x kernels)
 * and smaps_rollup (~700 B): 4 KiB holds each with room to spare, and
 * `record --all` keeps one handle per process (1,000 handles: 4 MiB of
 * the recorder's footprint saved against 8 KiB). */
#define RBUF_INITIAL 8192
#define RBUF_PROC 4096
#define RBUF_MAX (16u << 20)
/* Command lines can be megabytes; a label needs far less. */
#define CMDLINE_MAX 4096
/* status is re-read at least every this many reads even when statm has
 * not moved: swap freed without touching resident memory (MADV_DONTNEED
 * of swapped pages) or page tables changing alone show only there. At
 * 1 s, such a change is seen within 8 s; any change of size, resident or
 * shared pages at once. */
#define PROBE_STATUS_REFRESH 8
/* v1 reports "unlimited" as PAGE_COUNTER_MAX pages in bytes
 * (9223372036854771712 with 4 KiB pages); anything this large is no limit
 * a machine could hold. */
#define CGROUP_UNLIMITED 4611686018427387904.0 /* 2^62 */

/* ---- small helpers ---------------------------------------------------- */

/* Growable read buffer owned by a handle. Always NUL-terminated after a
 * read, so parsers may look one byte past the data. */
struct rbuf {
	char *data;
	size_t cap;
};

static void rbuf_init(struct rbuf *b, size_t cap)
{
	b->cap = cap;
	b->data = xmalloc(b->cap);
}

static void rbuf_free(struct rbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->cap = 0;
}

/*
 * Read the file behind fd from offset 0 into b. Returns its length or
 * -errno. A read shorter than asked is taken as the end of the file: that
 * is how seq_file (/proc) and kernfs (/sys) answer, and asking again to see
 * the 0 would make the kernel format the whole file a second time (a pread
 * at a new offset regenerates a seq_file), doubling the cost of a sample.
 * Only a read that fills the buffer is followed by another.
 */
static ssize_t pread_whole(int fd, struct rbuf *b)
{
	assert(fd >= 0 && b->data && b->cap > 1);
	size_t len = 0;
	for (;;) {
		ssize_t n = pread(fd, b->data + len, b->cap - 1 - len,
				  (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len += (size_t)n;
		if (n == 0 || len < b->cap - 1)
			break;
		if (b->cap >= RBUF_MAX)
			break; /* keep the head: our fields are there */
		b->cap *= 2;
		b->data = xrealloc(b->data, b->cap);
	}
	assert(len < b->cap);
	b->data[len] = '\0';
	return (ssize_t)len;
}

/* malloc'ed printf. Formats into a stack buffer first: paths are short,
 * and it keeps GCC's sanitizer builds from a false "null format" warning
 * on vsnprintf(NULL, 0, ...). */
static char *xfmt(const char *fmt, ...) PRINTF_LIKE(1, 2);
static char *xfmt(const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	assert(n >= 0);
	char *s = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof(small)) {
		memcpy(s, small, (size_t)n + 1);
		return s;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static int open_ro(const char *path)
{
	int fd;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static bool is_denied(int err) { return err == EACCES || err == EPERM; }
static bool is_nofile(int err) { return err == EMFILE || err == ENFILE; }

/* The process (or the cgroup) behind a kept fd is gone. ENODEV is what
 * kernfs answers for a removed cgroup's files. */
static bool is_gone(int err)
{
	return err == ESRCH || err == ENOENT || err == ENODEV;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Unsigned decimal at *s; advances *s. false when no digit is there. */
static bool parse_u64(const char **s, unsigned long long *v)
{
	const char *p = *s;
	unsigned long long x = 0;
	if (!is_digit(*p))
		return false;
	while (is_digit(*p))
		x = x * 10 + (unsigned long long)(*p++ - '0');
	*s = p;
	*v = x;
	return true;
}

/* "12.34" as /proc/pressure writes it. Hand-parsed because strtod follows
 * LC_NUMERIC, and a program that calls setlocale() would read "12,34". */
static bool parse_decimal(const char **s, double *v)
{
	unsigned long long ip;
	if (!parse_u64(s, &ip))
		return false;
	double x = (double)ip;
	if (**s == '.') {
		double scale = 0.1;
		const char *p = *s + 1;
		while (is_digit(*p)) {
			x += (*p++ - '0') * scale;
			scale /= 10;
		}
		*s = p;
	}
	*v = x;
	return true;
}

/*
 * "Key:   123 kB" files (status, meminfo, smaps_rollup). keys[i].name
 * includes the colon; out[i] receives the value (times 1024 when followed
 * by "kB"), or stays as it was when the key is absent. Stops as soon as
 * every key has been seen: in status the wanted lines come before the long
 * signal and CPU-mask lines.
 */
struct kv_key {
	const char *name;
	size_t len;
};
#define KV(s) { s, sizeof(s) - 1 }

static void scan_kv(const char *buf, size_t len, const struct kv_key *keys,
		    size_t nkeys, double *out)
{
	const char *p = buf, *end = buf + len;
	size_t found = 0;
	assert(nkeys <= 32);
	uint32_t seen = 0;
	while (p < end && found < nkeys) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		for (size_t i = 0; i < nkeys; i++) {
			const struct kv_key *k = &keys[i];
			if (p[0] != k->name[0] || (size_t)(eol - p) < k->len ||
			    memcmp(p, k->name, k->len) != 0)
				continue;
			const char *v = p + k->len;
			while (*v == ' ' || *v == '\t')
				v++;
			unsigned long long x;
			if (!parse_u64(&v, &x))
				break;
			while (*v == ' ')
				v++;
			double d = (double)x;
			/* the buffer is NUL-terminated: v[1] is readable */
			if (v[0] == 'k' && v[1] == 'B')
				d *= 1024;
			out[i] = d;
			if (!(seen & (1u << i))) {
				seen |= 1u << i;
				found++;
			}
			break;
		}
		p = eol + 1;
	}
}

/* ---- the probe (machine-wide) ----------------------------------------- */

struct probe {
	char *proc_root, *sys_root;
	int meminfo_fd, psi_fd; /* -1 when absent (tried once) */
	bool sys_opened;
	bool btime_read;
	double btime;
	long clk_tck;
	struct rbuf buf;
};

static const char *root_or(const char *given, const char *var,
			   const char *dflt)
{
	if (given)
		return given;
	const char *env = getenv(var);
	return env && *env ? env : dflt;
}

struct probe *probe_new(const char *proc_root, const char *sys_root)
{
	proc_root = root_or(proc_root, "MEMTREND_PROC_ROOT", "/proc");
	sys_root = root_or(sys_root, "MEMTREND_SYS_ROOT", "/sys");
	struct stat st;
	if (stat(proc_root, &st) != 0) {
		error("cannot use proc root '%s': %s", proc_root,
		      strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		error("proc root '%s' is not a directory", proc_root);
		return NULL;
	}
	/* A missing sys root is no error: it only means no cgroup figures. */
	struct probe *p = xcalloc(1, sizeof(*p));
	p->proc_root = xstrdup(proc_root);
	p->sys_root = xstrdup(sys_root);
	p->meminfo_fd = p->psi_fd = -1;
	p->btime = NAN;
	p->clk_tck = sysconf(_SC_CLK_TCK);
	if (p->clk_tck <= 0)
		p->clk_tck = 100; /* USER_HZ on every Linux architecture */
	rbuf_init(&p->buf, RBUF_INITIAL);
	return p;
}

void probe_free(struct probe *p)
{
	if (!p)
		return;
	close_fd(&p->meminfo_fd);
	close_fd(&p->psi_fd);
	rbuf_free(&p->buf);
	free(p->proc_root);
	free(p->sys_root);
	free(p);
}

const char *probe_proc_root(const struct probe *p)
{
	assert(p);
	return p->proc_root;
}

/* Open a system file once; a file that is not there (old kernel, PSI off,
 * a container that hides it) stays absent and is not retried. */
static void open_sys_file(struct probe *p, const char *rel, int *fd)
{
	char *path = xfmt("%s/%s", p->proc_root, rel);
	*fd = open_ro(path);
	if (*fd < 0 && errno != ENOENT && !is_denied(errno))
		warning("cannot open '%s': %s", path, strerror(errno));
	free(path);
}

/* Read a kept system file; on failure the file is treated as absent from
 * now on (PSI compiled in but disabled answers EOPNOTSUPP on every read). */
static ssize_t read_sys_file(struct probe *p, int *fd, const char *rel)
{
	if (*fd < 0)
		return -1;
	ssize_t n = pread_whole(*fd, &p->buf);
	if (n < 0) {
		if (-n != EOPNOTSUPP && !is_denied((int)-n))
			warning("cannot read '%s/%s': %s", p->proc_root, rel,
				strerror((int)-n));
		close_fd(fd);
	}
	return n;
}

/* "some avg10=0.12 avg60=0.05 avg300=0.01 total=12345" */
static void parse_psi_line(const char *p, const char *eol, double *avg10,
			   double *total)
{
	while (p < eol) {
		if (eol - p > 6 && memcmp(p, "avg10=", 6) == 0) {
			const char *v = p + 6;
			if (parse_decimal(&v, avg10))
				p = v;
		} else if (eol - p > 6 && memcmp(p, "total=", 6) == 0) {
			const char *v = p + 6;
			unsigned long long t;
			if (parse_u64(&v, &t)) {
				*total = (double)t;
				p = v;
			}
		}
		const char *sp = memchr(p, ' ', (size_t)(eol - p));
		if (!sp)
			break;
		p = sp + 1;
	}
}

int probe_sys_read(struct probe *p, struct sys_mem *out)
{
	assert(p && out);
	out->mem_total = out->mem_available = NAN;
	out->swap_total = out->swap_free = NAN;
	out->psi_some_avg10 = out->psi_full_avg10 = NAN;
	out->psi_some_total = out->psi_full_total = NAN;
	if (!p->sys_opened) {
		open_sys_file(p, "meminfo", &p->meminfo_fd);
		open_sys_file(p, "pressure/memory", &p->psi_fd);
		p->sys_opened = true;
	}

	static const struct kv_key meminfo_keys[] = {
		KV("MemTotal:"), KV("MemAvailable:"),
		KV("SwapTotal:"), KV("SwapFree:"),
	};
	ssize_t n = read_sys_file(p, &p->meminfo_fd, "meminfo");
	if (n > 0) {
		double v[4] = { NAN, NAN, NAN, NAN };
		scan_kv(p->buf.data, (size_t)n, meminfo_keys, 4, v);
		out->mem_total = v[0];
		out->mem_available = v[1];
		out->swap_total = v[2];
		out->swap_free = v[3];
	}

	n = read_sys_file(p, &p->psi_fd, "pressure/memory");
	if (n > 0) {
		const char *s = p->buf.data, *end = s + n;
		while (s < end) {
			const char *eol = memchr(s, '\n', (size_t)(end - s));
			if (!eol)
				eol = end;
			if (eol - s > 5 && memcmp(s, "some ", 5) == 0)
				parse_psi_line(s + 5, eol, &out->psi_some_avg10,
					       &out->psi_some_total);
			else if (eol - s > 5 && memcmp(s, "full ", 5) == 0)
				parse_psi_line(s + 5, eol, &out->psi_full_avg10,
					       &out->psi_full_total);
			s = eol + 1;
		}
	}
	return PROBE_OK;
}

double probe_boot_time(struct probe *p)
{
	assert(p);
	if (p->btime_read)
		return p->btime;
	p->btime_read = true; /* fixed for the life of the machine: read once */
	char *path = xfmt("%s/stat", p->proc_root);
	int fd = open_ro(path);
	free(path);
	if (fd < 0)
		return p->btime;
	ssize_t n = pread_whole(fd, &p->buf);
	close(fd);
	if (n <= 0)
		return p->btime;
	/* btime follows the per-CPU and intr lines, so search, not scan. */
	const char *s = p->buf.data;
	const char *hit = strncmp(s, "btime ", 6) == 0 ? s
						       : strstr(s, "\nbtime ");
	if (hit) {
		const char *v = hit + (hit == s ? 6 : 7);
		unsigned long long bt;
		if (parse_u64(&v, &bt))
			p->btime = (double)bt;
	}
	return p->btime;
}

/* ---- identity --------------------------------------------------------- */

struct stat_fields {
	pid_t pid, ppid;
	char state;
	unsigned long long start_ticks;
	char comm[64];
};

/*
 * /proc/PID/stat: "pid (comm) state ppid ... starttime(22) ...". comm may
 * hold spaces and ')' (e.g. "(sd-pam) x)"), but nothing after it can hold
 * a ')', so the comm ends at the LAST ')'. Returns false when malformed.
 */
static bool parse_stat(const char *buf, size_t len, struct stat_fields *sf)
{
	memset(sf, 0, sizeof(*sf));
	const char *open = memchr(buf, '(', len);
	const char *close = memrchr(buf, ')', len);
	if (!open || !close || close < open)
		return false;
	const char *s = buf;
	unsigned long long v;
	if (!parse_u64(&s, &v))
		return false;
	sf->pid = (pid_t)v;
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(sf->comm))
		clen = sizeof(sf->comm) - 1;
	memcpy(sf->comm, open + 1, clen);
	sf->comm[clen] = '\0';

	const char *end = buf + len;
	s = close + 1;
	bool have_ppid = false;
	for (int field = 3; field <= 22; field++) {
		while (s < end && *s == ' ')
			s++;
		if (s >= end || *s == '\n')
			return false;
		if (field == 3) {
			sf->state = *s;
		} else if (field == 4 || field == 22) {
			const char *t = s;
			if (!parse_u64(&t, &v))
				return false;
			if (field == 4) {
				sf->ppid = (pid_t)v;
				have_ppid = true;
			} else {
				sf->start_ticks = v;
			}
		}
		while (s < end && *s != ' ' && *s != '\n')
			s++;
	}
	return have_ppid;
}

/* Read stat through fd and parse it: PROBE_OK, PROBE_GONE or PROBE_ERROR. */
static int read_stat_fd(int fd, struct rbuf *b, const char *dir,
			struct stat_fields *sf)
{
	ssize_t n = pread_whole(fd, b);
	if (n < 0 && is_gone((int)-n))
		return PROBE_GONE;
	if (n < 0)
		return error("cannot read '%s/stat': %s", dir,
			     strerror((int)-n));
	if (n == 0)
		return PROBE_GONE;
	if (!parse_stat(b->data, (size_t)n, sf))
		return error("cannot parse '%s/stat'", dir);
	return PROBE_OK;
}

/* /proc/PID/cmdline: NUL-separated arguments to one string with spaces.
 * "" for kernel threads and zombies (and when unreadable: a label only). */
static char *read_cmdline(const char *dir)
{
	char *path = xfmt("%s/cmdline", dir);
	int fd = open_ro(path);
	free(path);
	char *s = xmalloc(CMDLINE_MAX + 1);
	size_t len = 0;
	if (fd >= 0) {
		while (len < CMDLINE_MAX) {
			ssize_t n = read(fd, s + len, CMDLINE_MAX - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		close(fd);
	}
	while (len > 0 && s[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	s[len] = '\0';
	/* Kept as long as its identity (a handle's life, a scan's list of
	 * a thousand processes): its length, not CMDLINE_MAX. */
	return len < CMDLINE_MAX ? xrealloc(s, len + 1) : s;
}

static int open_stat(const char *dir, int *fd)
{
	char *path = xfmt("%s/stat", dir);
	*fd = open_ro(path);
	if (*fd >= 0) {
		free(path);
		return PROBE_OK;
	}
	int err = errno;
	int rc = is_gone(err)	  ? PROBE_GONE
		 : is_denied(err) ? PROBE_DENIED
		 : is_nofile(err) ? PROBE_NOFILE
				  : error("cannot open '%s': %s", path,
					  strerror(err));
	free(path);
	return rc;
}

static void fill_identity(struct probe *p, pid_t pid,
			  const struct stat_fields *sf, char *cmdline,
			  struct proc_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->pid = pid;
	id->ppid = sf->ppid;
	id->state = sf->state;
	id->start_ticks = sf->start_ticks;
	id->start_time = probe_boot_time(p) +
			 (double)sf->start_ticks / (double)p->clk_tck;
	memcpy(id->comm, sf->comm, sizeof(id->comm));
	id->cmdline = cmdline;
}

/*
 * The order matters for identity: stat is opened first, cmdline read next,
 * stat read last through the open fd. If that last read succeeds, the
 * incarnation stat was opened on was alive throughout, so the cmdline (and
 * any fd the caller opened in between) belongs to it, not to a successor
 * that reused the PID.
 */
int probe_identity_read(struct probe *p, pid_t pid, struct proc_identity *id)
{
	assert(p && id);
	memset(id, 0, sizeof(*id));
	char *dir = xfmt("%s/%d", p->proc_root, (int)pid);
	int fd;
	int rc = open_stat(dir, &fd);
	if (rc == PROBE_OK) {
		char *cmdline = read_cmdline(dir);
		struct stat_fields sf;
		rc = read_stat_fd(fd, &p->buf, dir, &sf);
		close(fd);
		if (rc == PROBE_OK)
			fill_identity(p, pid, &sf, cmdline, id);
		else
			free(cmdline);
	}
	free(dir);
	return rc;
}

void proc_identity_release(struct proc_identity *id)
{
	if (!id)
		return;
	free(id->cmdline);
	id->cmdline = NULL;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

int probe_proc_uid(struct probe *p, pid_t pid, uid_t *uid)
{
	char path[4096];
	struct stat sb;
	int n = snprintf(path, sizeof(path), "%s/%d", p->proc_root, (int)pid);
	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &sb))
		return -1;
	*uid = sb.st_uid;
	return 0;
}

int probe_list_pids(struct probe *p, pid_t **pids, size_t *n)
{
	assert(p && pids && n);
	*pids = NULL;
	*n = 0;
	DIR *d = opendir(p->proc_root);
	if (!d)
		return error("cannot open '%s': %s", p->proc_root,
			     strerror(errno));
	pid_t *v = NULL;
	size_t len = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		unsigned long long x;
		if (!parse_u64(&s, &x) || *s != '\0' || x == 0 ||
		    x > (unsigned long long)INT32_MAX)
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		xgrow((void **)&v, &cap, len + 1, sizeof(*v));
		v[len++] = (pid_t)x;
	}
	closedir(d);
	/* readdir order on /proc is by PID already, but not in fixtures. */
	if (len > 1)
		qsort(v, len, sizeof(*v), cmp_pid);
	*pids = v;
	*n = len;
	return 0;
}

/* ---- process handles -------------------------------------------------- */

struct probe_proc {
	struct proc_identity id;
	char *dir;           /* "<proc_root>/<pid>": the handle outlives no one */
	int stat_fd;         /* kept: probe_proc_alive re-reads it */
	int status_fd;       /* kept: read when statm changed, or every
				PROBE_STATUS_REFRESH reads */
	int statm_fd;        /* kept: every sample; -1 when absent */
	unsigned long long statm[3]; /* size, resident, shared (pages) at
					the last status read */
	unsigned reads_since_status; /* reads answered from `last` */
	bool have_last;
	struct proc_mem last; /* the figures of the last status read */
	int smaps_fd;        /* opened on first request, then kept */
	bool smaps_denied;   /* don't knock again: the answer won't change */
	struct rbuf buf;
};

static int proc_open(struct probe *p, pid_t pid,
		     const struct proc_identity *seen,
		     struct probe_proc **out)
{
	assert(p && out);
	assert(!seen || seen->pid == pid);
	*out = NULL;
	struct probe_proc *pp = xcalloc(1, sizeof(*pp));
	pp->dir = xfmt("%s/%d", p->proc_root, (int)pid);
	pp->stat_fd = pp->status_fd = pp->statm_fd = pp->smaps_fd = -1;
	rbuf_init(&pp->buf, RBUF_PROC);

	int rc = open_stat(pp->dir, &pp->stat_fd);
	if (rc != PROBE_OK)
		goto fail;
	char *path = xfmt("%s/status", pp->dir);
	pp->status_fd = open_ro(path);
	if (pp->status_fd < 0) {
		int err = errno;
		rc = is_gone(err)    ? PROBE_GONE
		     : is_denied(err) ? PROBE_DENIED
		     : is_nofile(err) ? PROBE_NOFILE
				      : error("cannot open '%s': %s", path,
					      strerror(err));
		free(path);
		goto fail;
	}
	free(path);
	/* statm: a tenth of status's cost to read (0.8 against 7.3 us per
	 * process on this machine kind), which tells whether status has
	 * anything new (probe_proc_read). Optional: a fixture tree, or a
	 * kernel, without it reads status every time. */
	path = xfmt("%s/statm", pp->dir);
	pp->statm_fd = open_ro(path);
	if (pp->statm_fd < 0 && is_nofile(errno)) {
		free(path);
		rc = PROBE_NOFILE;
		goto fail;
	}
	free(path);
	/* Stat is read after status was opened: see probe_identity_read.
	 * With seen, the command line is read after stat only when stat
	 * says the pid is another incarnation's now; stat read through the
	 * fd opened first still vouches that status is this one's. */
	char *cmdline = seen ? NULL : read_cmdline(pp->dir);
	struct stat_fields sf;
	rc = read_stat_fd(pp->stat_fd, &pp->buf, pp->dir, &sf);
	if (rc != PROBE_OK) {
		free(cmdline);
		goto fail;
	}
	if (seen)
		cmdline = sf.start_ticks == seen->start_ticks ?
			  xstrdup(seen->cmdline ? seen->cmdline : "") :
			  read_cmdline(pp->dir);
	fill_identity(p, pid, &sf, cmdline, &pp->id);
	*out = pp;
	return PROBE_OK;
fail:
	probe_proc_close(pp);
	return rc;
}

int probe_proc_open(struct probe *p, pid_t pid, struct probe_proc **out)
{
	return proc_open(p, pid, NULL, out);
}

int probe_proc_open_seen(struct probe *p, const struct proc_identity *seen,
			 struct probe_proc **out)
{
	assert(seen);
	return proc_open(p, seen->pid, seen, out);
}

void probe_proc_close(struct probe_proc *pp)
{
	if (!pp)
		return;
	close_fd(&pp->stat_fd);
	close_fd(&pp->status_fd);
	close_fd(&pp->statm_fd);
	close_fd(&pp->smaps_fd);
	proc_identity_release(&pp->id);
	rbuf_free(&pp->buf);
	free(pp->dir);
	free(pp);
}

const struct proc_identity *probe_proc_identity(const struct probe_proc *pp)
{
	assert(pp);
	return &pp->id;
}

/* The state letter from status ("State:\tZ (zombie)"); 0 if not found.
 * It is the third line, so a search ends almost at once. */
static char status_state(const char *buf)
{
	const char *s = strncmp(buf, "State:", 6) == 0 ? buf
						       : strstr(buf, "\nState:");
	if (!s)
		return 0;
	s += (s == buf) ? 6 : 7;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s;
}

/* statm's first three figures (pages): size, resident, shared, read
 * through the handle's buffer (status's read overwrites it next).
 * PROBE_OK, PROBE_GONE, or PROBE_ERROR quietly: the caller then reads
 * status, which says what went wrong. */
static int statm_read(struct probe_proc *pp, unsigned long long v[3])
{
	ssize_t n = pread_whole(pp->statm_fd, &pp->buf);
	if (n < 0)
		return is_gone((int)-n) ? PROBE_GONE : PROBE_ERROR;
	if (n == 0)
		return PROBE_GONE;
	const char *s = pp->buf.data;
	for (int i = 0; i < 3; i++) {
		while (*s == ' ')
			s++;
		if (!parse_u64(&s, &v[i]))
			return PROBE_ERROR;
	}
	return PROBE_OK;
}

/* Contract: the figures are status's, as of a read of status at most
 * PROBE_STATUS_REFRESH - 1 reads ago during which statm's size, resident
 * and shared pages stayed the same (the counters status's Rss lines sum:
 * fs/proc/task_mmu.c task_statm). Most processes of a host do not move
 * between two ticks; for them a tick costs a statm read. */
int probe_proc_read(struct probe_proc *pp, struct proc_mem *out)
{
	assert(pp && out && pp->status_fd >= 0);
	unsigned long long statm[3];
	bool have_statm = false;
	if (pp->statm_fd >= 0) {
		int rc = statm_read(pp, statm);
		if (rc == PROBE_GONE)
			return PROBE_GONE;
		have_statm = rc == PROBE_OK;
		if (have_statm && pp->have_last &&
		    pp->reads_since_status + 1 < PROBE_STATUS_REFRESH &&
		    memcmp(statm, pp->statm, sizeof(statm)) == 0) {
			pp->reads_since_status++;
			*out = pp->last;
			return PROBE_OK;
		}
	}
	pp->have_last = false;
	out->rss = out->anon = out->file = out->shmem = NAN;
	out->swap = out->pagetables = out->footprint = NAN;
	out->gpu = NAN;
	for (size_t d = 0; d < SERIES_GPU_DEVICES; d++)
		out->gpu_dev[d] = out->gpu_total[d] = out->gpu_used[d] = NAN;

	ssize_t n = pread_whole(pp->status_fd, &pp->buf);
	if (n < 0) {
		int err = (int)-n;
		if (is_gone(err))
			return PROBE_GONE; /* exited (or reaped and reused) */
		if (is_denied(err))
			return PROBE_DENIED;
		return error("cannot read '%s/status': %s", pp->dir,
			     strerror(err));
	}
	if (n == 0)
		return PROBE_GONE;
	/* A zombie still has its /proc entry but no memory: it has exited. */
	char state = status_state(pp->buf.data);
	if (state == 'Z' || state == 'X')
		return PROBE_GONE;

	static const struct kv_key keys[] = {
		KV("VmRSS:"), KV("RssAnon:"), KV("RssFile:"),
		KV("RssShmem:"), KV("VmSwap:"), KV("VmPTE:"),
	};
	double v[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
	scan_kv(pp->buf.data, (size_t)n, keys, ARRAY_SIZE(keys), v);
	out->rss = v[0];
	out->anon = v[1];
	out->file = v[2];
	out->shmem = v[3];
	out->swap = v[4];
	out->pagetables = v[5];
	/* Kernels before 4.5 have no RssAnon: RSS alone would count file
	 * pages, so say "absent" rather than guess. Missing swap/shmem lines
	 * (no swap support, old kernel) only mean there is none to add. */
	if (!isnan(out->anon))
		out->footprint = out->anon +
				 (isnan(out->swap) ? 0 : out->swap) +
				 (isnan(out->shmem) ? 0 : out->shmem);
	if (have_statm) {
		memcpy(pp->statm, statm, sizeof(statm));
		pp->last = *out;
		pp->have_last = true;
		pp->reads_since_status = 0;
	}
	return PROBE_OK;
}

int probe_proc_read_smaps(struct probe_proc *pp, struct proc_smaps *out)
{
	assert(pp && out);
	out->pss = out->pss_anon = out->private_dirty = out->swap_pss = NAN;
	if (pp->smaps_denied)
		return PROBE_DENIED;
	if (pp->smaps_fd < 0) {
		char *path = xfmt("%s/smaps_rollup", pp->dir);
		pp->smaps_fd = open_ro(path);
		int err = errno;
		free(path);
		if (pp->smaps_fd < 0 && !is_gone(err) && !is_denied(err))
			return error("cannot open '%s/smaps_rollup': %s",
				     pp->dir, strerror(err));
		/* Opened late, so it may have landed on a successor that
		 * reused the PID, and ENOENT may mean "exited" as well as
		 * "kernel before 4.14": our own kept stat fd tells which. */
		struct stat_fields sf;
		int rc = read_stat_fd(pp->stat_fd, &pp->buf, pp->dir, &sf);
		if (rc != PROBE_OK) {
			close_fd(&pp->smaps_fd);
			return rc;
		}
		if (pp->smaps_fd < 0) {
			/* EACCES/EPERM: no ptrace access. ENOENT while we
			 * are alive: the kernel has no smaps_rollup. */
			pp->smaps_denied = true;
			return PROBE_DENIED;
		}
	}
	ssize_t n = pread_whole(pp->smaps_fd, &pp->buf);
	if (n < 0) {
		int err = (int)-n;
		if (is_gone(err))
			return PROBE_GONE; /* ESRCH: the mm is gone */
		if (is_denied(err)) {
			pp->smaps_denied = true;
			close_fd(&pp->smaps_fd);
			return PROBE_DENIED;
		}
		return error("cannot read '%s/smaps_rollup': %s", pp->dir,
			     strerror(err));
	}
	if (n == 0)
		return PROBE_GONE;
	static const struct kv_key keys[] = {
		KV("Pss:"), KV("Pss_Anon:"), KV("Private_Dirty:"),
		KV("SwapPss:"),
	};
	double v[4] = { NAN, NAN, NAN, NAN };
	scan_kv(pp->buf.data, (size_t)n, keys, ARRAY_SIZE(keys), v);
	out->pss = v[0];
	out->pss_anon = v[1];
	out->private_dirty = v[2];
	out->swap_pss = v[3];
	return PROBE_OK;
}

bool probe_proc_alive(struct probe_proc *pp)
{
	assert(pp && pp->stat_fd >= 0);
	struct stat_fields sf;
	if (read_stat_fd(pp->stat_fd, &pp->buf, pp->dir, &sf) != PROBE_OK)
		return false;
	/* Through the kept fd a successor is unreadable (ESRCH) anyway; the
	 * start-time check also covers files rewritten under a fixture. An
	 * exited process waiting to be reaped is no longer alive. */
	return sf.start_ticks == pp->id.start_ticks && sf.state != 'Z' &&
	       sf.state != 'X';
}

/* ---- cgroups ---------------------------------------------------------- */

struct probe_cgroup {
	char *key;  /* "v1:/path" or "v2:/path" */
	char *dir;  /* where the files were found */
	int current_fd, max_fd, peak_fd; /* max/peak: -1 when absent */
};

static bool file_exists(const char *dir, const char *name)
{
	char *path = xfmt("%s/%s", dir, name);
	bool ok = access(path, R_OK) == 0;
	free(path);
	return ok;
}

static bool dir_exists(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "<base><path>" without a doubled '/' for the root cgroup "/". */
static char *cgroup_dir(const char *base, const char *path)
{
	return strcmp(path, "/") == 0 ? xstrdup(base)
				      : xfmt("%s%s", base, path);
}

/* A cgroup outside our namespace shows as "/../.."; never walk up. */
static bool path_is_safe(const char *path)
{
	return path[0] == '/' && strstr(path, "/..") == NULL;
}

static int open_in(const char *dir, const char *name)
{
	char *path = xfmt("%s/%s", dir, name);
	int fd = open_ro(path);
	free(path);
	return fd;
}

static struct probe_cgroup *cgroup_new(int version, const char *path,
				       char *dir, const char *cur,
				       const char *max, const char *peak)
{
	int fd = open_in(dir, cur);
	if (fd < 0) {
		free(dir);
		return NULL;
	}
	struct probe_cgroup *cg = xcalloc(1, sizeof(*cg));
	cg->key = xfmt("v%d:%s", version, path);
	cg->dir = dir;
	cg->current_fd = fd;
	cg->max_fd = open_in(dir, max);
	cg->peak_fd = open_in(dir, peak); /* memory.peak: Linux >= 5.19 */
	return cg;
}

/* v1: <sys>/fs/cgroup/memory/PATH. Inside a container the namespace's
 * own cgroup is often mounted at fs/cgroup/memory itself while
 * /proc/PID/cgroup still names the host path, so fall back to the mount. */
static struct probe_cgroup *open_v1(const char *sys_root, const char *path)
{
	char *base = xfmt("%s/fs/cgroup/memory", sys_root);
	char *dir = cgroup_dir(base, path);
	if (!dir_exists(dir)) {
		free(dir);
		dir = xstrdup(base);
	}
	free(base);
	return cgroup_new(1, path, dir, "memory.usage_in_bytes",
			  "memory.limit_in_bytes",
			  "memory.max_usage_in_bytes");
}

/* v2: <sys>/fs/cgroup/PATH, or .../fs/cgroup/unified/PATH on hybrid
 * hosts that mount the v2 tree there. */
static struct probe_cgroup *open_v2(const char *sys_root, const char *path)
{
	static const char *const bases[] = { "fs/cgroup", "fs/cgroup/unified" };
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
		char *base = xfmt("%s/%s", sys_root, bases[i]);
		char *dir = cgroup_dir(base, path);
		free(base);
		if (file_exists(dir, "memory.current"))
			return cgroup_new(2, path, dir, "memory.current",
					  "memory.max", "memory.peak");
		free(dir);
	}
	return NULL;
}

/* Does a comma-separated controller list name "memory"? */
static bool has_memory(const char *s, const char *end)
{
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		if (e - s == 6 && memcmp(s, "memory", 6) == 0)
			return true;
		s = e + 1;
	}
	return false;
}

/* The memory cgroup lines of /proc/PID/cgroup: *v1 the path of the v1 line
 * whose controllers include "memory", *v2 that of the unified "0::" line
 * (each allocated, or NULL when absent). PROBE_OK (both NULL when the
 * process has no cgroup file or it is unreadable), PROBE_GONE, or
 * PROBE_ERROR with a message. */
static int cgroup_lines(struct probe *p, pid_t pid, char **v1, char **v2)
{
	*v1 = *v2 = NULL;
	char *dir = xfmt("%s/%d", p->proc_root, (int)pid);
	char *path = xfmt("%s/cgroup", dir);
	int fd = open_ro(path);
	int err = errno;
	free(path);
	if (fd < 0) {
		/* No cgroup file in a live process dir: no cgroup support. */
		bool alive = dir_exists(dir);
		free(dir);
		if (is_gone(err))
			return alive ? PROBE_OK : PROBE_GONE;
		if (is_denied(err))
			return PROBE_OK;
		return error("cannot open '%s/%d/cgroup': %s", p->proc_root,
			     (int)pid, strerror(err));
	}
	free(dir);
	ssize_t n = pread_whole(fd, &p->buf);
	close(fd);
	if (n < 0)
		return is_gone((int)-n) ? PROBE_GONE : PROBE_OK;

	/* "ID:controllers:path" per line; the path may itself hold ':'. */
	const char *s = p->buf.data, *end = s + n;
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		if (!eol)
			eol = end;
		const char *c1 = memchr(s, ':', (size_t)(eol - s));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1))
				    : NULL;
		if (c2) {
			const char *cg = c2 + 1;
			size_t len = (size_t)(eol - cg);
			if (c1 - s == 1 && s[0] == '0' && c2 == c1 + 1) {
				if (!*v2)
					*v2 = xstrndup(cg, len);
			} else if (has_memory(c1 + 1, c2)) {
				if (!*v1)
					*v1 = xstrndup(cg, len);
			}
		}
		s = eol + 1;
	}
	return PROBE_OK;
}

int probe_cgroup_open(struct probe *p, pid_t pid, struct probe_cgroup **out)
{
	assert(p && out);
	*out = NULL;
	char *v1, *v2;
	int rc = cgroup_lines(p, pid, &v1, &v2);
	if (rc != PROBE_OK)
		return rc;
	/* v1's memory controller wins on hybrid hosts: accounting is there,
	 * while the v2 tree has no memory controller. */
	struct probe_cgroup *cg = NULL;
	if (v1 && path_is_safe(v1))
		cg = open_v1(p->sys_root, v1);
	if (!cg && v2 && path_is_safe(v2))
		cg = open_v2(p->sys_root, v2);
	free(v1);
	free(v2);
	*out = cg;
	return PROBE_OK;
}

int probe_cgroup_key_of(struct probe *p, pid_t pid, char **key)
{
	assert(p && key);
	*key = NULL;
	char *v1, *v2;
	int rc = cgroup_lines(p, pid, &v1, &v2);
	if (rc != PROBE_OK)
		return rc;
	/* probe_cgroup_open()'s first choice, the key it gives when it
	 * opens (cgroup_new()) */
	if (v1 && path_is_safe(v1))
		*key = xfmt("v1:%s", v1);
	else if (v2 && path_is_safe(v2))
		*key = xfmt("v2:%s", v2);
	free(v1);
	free(v2);
	return PROBE_OK;
}

int probe_cgroup_path(struct probe *p, pid_t pid, char **path)
{
	assert(p && path);
	char *v1, *v2;
	int rc = cgroup_lines(p, pid, &v1, &v2);
	if (rc != PROBE_OK) {
		*path = NULL;
		return rc;
	}
	/* The same choice as probe_cgroup_open(): v1's memory line when
	 * there is one (on a v1 or hybrid host the unified line is "/" or
	 * holds no memory controller), the unified one otherwise. */
	if (v1) {
		*path = v1;
		free(v2);
	} else {
		*path = v2;
	}
	return PROBE_OK;
}

void probe_cgroup_close(struct probe_cgroup *cg)
{
	if (!cg)
		return;
	close_fd(&cg->current_fd);
	close_fd(&cg->max_fd);
	close_fd(&cg->peak_fd);
	free(cg->key);
	free(cg->dir);
	free(cg);
}

const char *probe_cgroup_key(const struct probe_cgroup *cg)
{
	assert(cg);
	return cg->key;
}

/* One cgroup value file: a number, or "max" (v2's no limit).
 * 0 with *v set (NAN for "max"), or -errno. */
static int read_cg_value(int fd, double *v)
{
	char buf[64];
	ssize_t n;
	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	const char *s = buf;
	unsigned long long x;
	if (parse_u64(&s, &x))
		*v = (double)x;
	else
		*v = NAN; /* "max", or nothing we understand */
	return 0;
}

int probe_cgroup_read(struct probe_cgroup *cg, struct cgroup_mem *out)
{
	assert(cg && out && cg->current_fd >= 0);
	out->current = out->max = out->peak = NAN;
	int fds[3] = { cg->current_fd, cg->max_fd, cg->peak_fd };
	double *dst[3] = { &out->current, &out->max, &out->peak };
	static const char *const names[3] = { "current", "max", "peak" };
	for (int i = 0; i < 3; i++) {
		if (fds[i] < 0)
			continue;
		int rc = read_cg_value(fds[i], dst[i]);
		if (rc == 0)
			continue;
		/* A removed cgroup's kept files answer ENODEV. */
		if (is_gone(-rc))
			return PROBE_GONE;
		if (i == 0)
			return error("cannot read %s of cgroup '%s' (%s): %s",
				     names[i], cg->key, cg->dir,
				     strerror(-rc));
		/* limit or peak unreadable: absent, not fatal */
	}
	if (out->max >= CGROUP_UNLIMITED)
		out->max = NAN;
	return PROBE_OK;
}
