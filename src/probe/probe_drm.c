/*
 * probe_drm.c - a process's GPU memory from DRM fdinfo (probe_gpu.h), for
 * the open-source kernel drivers (amdgpu, i915, xe, msm, panfrost, ...),
 * and the classification of region names (gpu_region_kind_of).
 *
 * What it does: scans PROC_ROOT/PID/fdinfo, streams each file through one
 * stack buffer with a hand-written line scanner (no stdio, no sscanf),
 * keeps the drm-* keys of one fd in a fixed record, and merges each
 * client (driver, pdev, client-id) once into per-region sums; a watch
 * (gpu_drm_watch) does such a full scan now and then and, between,
 * re-reads only the fds that were DRM clients.
 *
 * What it does not do: decide whether GPU memory belongs in a footprint
 * (it only classifies regions, see probe_gpu.h), keep anything between
 * probe_gpu_drm_read calls (a watch keeps its fd list), look at engine
 * utilisation (drm-engine-*, drm-cycles-*), or ask NVIDIA's driver
 * (probe_nvml.c). Not thread-safe.
 *
 * Bounds: O(fds + bytes of their fdinfo) per full scan, one 4 KiB
 * buffer, an array of 72 bytes per distinct client; a watch, besides, 96
 * bytes per DRM fd, and between full scans O(DRM fds + bytes of their
 * fdinfo), no allocation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fdopendir, O_DIRECTORY */
#endif
#include "probe_gpu.h"
#include "common.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0 /* linux/magic.h */
#endif

#define FDINFO_BUF 4096
#define DRM_ID_MAX 32 /* driver name, pdev string */

/* ---- region classification -------------------------------------------- */

enum gpu_region_kind gpu_region_kind_of(const char *name)
{
	size_t n = strlen(name);
	while (n > 0 && name[n - 1] >= '0' && name[n - 1] <= '9')
		n--;
	static const char *const device[] = {"vram", "local", "lmem"};
	static const char *const host[] = {"system", "gtt", "cpu", "memory"};
	for (size_t i = 0; i < ARRAY_SIZE(device); i++)
		if (strlen(device[i]) == n && memcmp(name, device[i], n) == 0)
			return GPU_REGION_DEVICE;
	if (n >= 6 && memcmp(name, "stolen", 6) == 0)
		return GPU_REGION_DEVICE;
	for (size_t i = 0; i < ARRAY_SIZE(host); i++)
		if (strlen(host[i]) == n && memcmp(name, host[i], n) == 0)
			return GPU_REGION_HOST;
	return GPU_REGION_OTHER;
}

/* ---- one fdinfo file -------------------------------------------------- */

enum { F_TOTAL, F_RESIDENT, F_SHARED, F_PURGEABLE, F_MEMORY, F_COUNT };

static const char *const field_prefix[F_COUNT] = {
	"drm-total-", "drm-resident-", "drm-shared-", "drm-purgeable-",
	"drm-memory-",
};

struct drm_region_rec {
	char name[GPU_REGION_NAME_MAX];
	double v[F_COUNT]; /* NAN when not reported */
};

/* What one fd's fdinfo says. */
struct drm_fd_rec {
	bool is_drm;
	bool has_id;
	unsigned long long client_id;
	char driver[DRM_ID_MAX];
	char pdev[DRM_ID_MAX];
	struct drm_region_rec regions[GPU_REGION_MAX];
	size_t n_regions;
	bool dropped;
};

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Unsigned decimal in [s, e), whole; false on overflow or anything else. */
static bool parse_ull(const char *s, const char *e, unsigned long long *v)
{
	if (s == e)
		return false;
	unsigned long long x = 0;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (x > (ULLONG_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* "<uint>", "<uint> KiB" or "<uint> MiB" (blanks trimmed) -> bytes. */
static bool parse_bytes(const char *s, const char *e, double *bytes)
{
	const char *d = s;
	while (d < e && *d >= '0' && *d <= '9')
		d++;
	unsigned long long v;
	if (!parse_ull(s, d, &v))
		return false;
	const char *u = d;
	while (u < e && is_blank(*u))
		u++;
	double mult = 1.0;
	if (u == e)
		mult = 1.0;
	else if (e - u == 3 && memcmp(u, "KiB", 3) == 0)
		mult = 1024.0;
	else if (e - u == 3 && memcmp(u, "MiB", 3) == 0)
		mult = 1024.0 * 1024.0;
	else
		return false;
	*bytes = (double)v * mult;
	return true;
}

static bool copy_token(char *dst, size_t cap, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	if (n == 0 || n >= cap)
		return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

static bool key_is(const char *k, size_t klen, const char *want)
{
	return strlen(want) == klen && memcmp(k, want, klen) == 0;
}

/* One "key:<blanks>value" line in [s, e) (no newline). */
static void parse_line(struct drm_fd_rec *rec, const char *s, const char *e)
{
	while (e > s && is_blank(e[-1]))
		e--;
	const char *colon = memchr(s, ':', (size_t)(e - s));
	if (!colon || colon == s || colon - s < 4 || memcmp(s, "drm-", 4) != 0)
		return;
	const char *k = s;
	size_t klen = (size_t)(colon - s);
	const char *v = colon + 1;
	while (v < e && is_blank(*v))
		v++;

	if (key_is(k, klen, "drm-driver")) {
		if (copy_token(rec->driver, sizeof(rec->driver), v, e))
			rec->is_drm = true;
		return;
	}
	if (key_is(k, klen, "drm-client-id")) {
		unsigned long long id;
		if (parse_ull(v, e, &id)) {
			rec->client_id = id;
			rec->has_id = true;
		}
		return;
	}
	if (key_is(k, klen, "drm-pdev")) {
		copy_token(rec->pdev, sizeof(rec->pdev), v, e);
		return;
	}
	/* drm-total-cycles-<engine> (xe) is an engine counter, not a region */
	static const char cycles[] = "drm-total-cycles-";
	if (klen >= sizeof(cycles) - 1 &&
	    memcmp(k, cycles, sizeof(cycles) - 1) == 0)
		return;
	for (int f = 0; f < F_COUNT; f++) {
		size_t plen = strlen(field_prefix[f]);
		if (klen <= plen || memcmp(k, field_prefix[f], plen) != 0)
			continue;
		const char *name = k + plen;
		size_t nlen = klen - plen;
		if (nlen >= GPU_REGION_NAME_MAX)
			return;
		for (size_t i = 0; i < nlen; i++)
			if (is_blank(name[i]))
				return;
		double bytes;
		if (!parse_bytes(v, e, &bytes))
			return;
		size_t r = 0;
		while (r < rec->n_regions &&
		       !(strlen(rec->regions[r].name) == nlen &&
			 memcmp(rec->regions[r].name, name, nlen) == 0))
			r++;
		if (r == rec->n_regions) {
			if (r == GPU_REGION_MAX) {
				rec->dropped = true;
				return;
			}
			struct drm_region_rec *nr = &rec->regions[r];
			memcpy(nr->name, name, nlen);
			nr->name[nlen] = '\0';
			for (int j = 0; j < F_COUNT; j++)
				nr->v[j] = NAN;
			rec->n_regions++;
		}
		rec->regions[r].v[f] = bytes; /* a repeated key: last wins */
		return;
	}
}

/* Stream the open file fd from offset 0 through buf, line by line, with
 * pread (a kept fd is read again the same way). A read shorter than asked
 * is the end: /proc answers a whole seq_file in one read, and asking again
 * at a new offset would make the kernel format it a second time. 0 or
 * -errno. */
static int scan_fd(int fd, char *buf, size_t cap, struct drm_fd_rec *rec)
{
	size_t have = 0;
	off_t off = 0;
	bool skipping = false; /* inside a line longer than the buffer */
	for (;;) {
		ssize_t r = pread(fd, buf + have, cap - have, off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		off += r;
		bool short_read = (size_t)r < cap - have;
		have += (size_t)r;
		char *s = buf, *end = buf + have, *nl;
		while ((nl = memchr(s, '\n', (size_t)(end - s)))) {
			if (!skipping)
				parse_line(rec, s, nl);
			skipping = false;
			s = nl + 1;
		}
		have = (size_t)(end - s);
		if (have == cap) {
			skipping = true;
			have = 0;
		} else if (have > 0) {
			memmove(buf, s, have);
		}
		if (short_read)
			break;
	}
	if (have > 0 && !skipping)
		parse_line(rec, buf, buf + have);
	return 0;
}

/* The file `name` in dirfd, opened for the read and closed. */
static int scan_fdinfo(int dirfd, const char *name, char *buf, size_t cap,
		       struct drm_fd_rec *rec)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = scan_fd(fd, buf, cap, rec);
	close(fd);
	return r;
}

/* ---- merging clients ---------------------------------------------------- */

struct drm_client_key {
	char driver[DRM_ID_MAX];
	char pdev[DRM_ID_MAX];
	unsigned long long id;
};

struct drm_seen {
	struct drm_client_key *keys;
	size_t n, cap;
};

static bool key_matches(const struct drm_client_key *k,
			const struct drm_fd_rec *rec)
{
	return k->id == rec->client_id && strcmp(k->driver, rec->driver) == 0 &&
	       strcmp(k->pdev, rec->pdev) == 0;
}

static void key_set(struct drm_client_key *k, const struct drm_fd_rec *rec)
{
	memcpy(k->driver, rec->driver, sizeof(k->driver));
	memcpy(k->pdev, rec->pdev, sizeof(k->pdev));
	k->id = rec->client_id;
}

/* true when rec's client was already counted (else remembers it). */
static bool seen_before(struct drm_seen *seen, const struct drm_fd_rec *rec)
{
	if (!rec->has_id)
		return false;
	for (size_t i = 0; i < seen->n; i++)
		if (key_matches(&seen->keys[i], rec))
			return true;
	xgrow((void **)&seen->keys, &seen->cap, seen->n + 1,
	      sizeof(*seen->keys));
	key_set(&seen->keys[seen->n++], rec);
	return false;
}

static double add_known(double a, double b)
{
	if (isnan(b))
		return a;
	return isnan(a) ? b : a + b;
}

/* One DRM read in progress: the sums so far, the clients already counted
 * (seen: owned by the caller, emptied at the start, its array reused),
 * the read buffer and the record of the last fd read. */
struct drm_merge {
	struct gpu_usage *out;
	struct drm_seen *seen;
	bool resident_missing[GPU_REGION_MAX];
	double nvidia; /* device-local resident of nvidia* clients */
	struct drm_fd_rec rec;
	char buf[FDINFO_BUF];
};

static void usage_reset(struct gpu_usage *out)
{
	memset(out, 0, sizeof(*out));
	out->device_local = NAN;
	out->device_local_nvidia = NAN;
}

static void merge_start(struct drm_merge *m, struct gpu_usage *out,
			struct drm_seen *seen)
{
	usage_reset(out);
	m->out = out;
	m->seen = seen;
	seen->n = 0;
	memset(m->resident_missing, 0, sizeof(m->resident_missing));
	m->nvidia = 0.0;
}

static void merge_client(struct drm_merge *m, const struct drm_fd_rec *rec)
{
	struct gpu_usage *out = m->out;
	bool nvidia = strncmp(rec->driver, "nvidia", 6) == 0;
	out->n_clients++;
	if (rec->dropped)
		out->regions_dropped = true;
	for (size_t i = 0; i < rec->n_regions; i++) {
		const struct drm_region_rec *cr = &rec->regions[i];
		size_t r = 0;
		while (r < out->n_regions &&
		       strcmp(out->regions[r].name, cr->name) != 0)
			r++;
		if (r == out->n_regions) {
			if (r == GPU_REGION_MAX) {
				out->regions_dropped = true;
				continue;
			}
			struct gpu_region *g = &out->regions[r];
			memcpy(g->name, cr->name, sizeof(g->name));
			g->kind = gpu_region_kind_of(g->name);
			g->total = g->resident = g->shared = g->purgeable = NAN;
			out->n_regions++;
		}
		struct gpu_region *g = &out->regions[r];
		double res = isnan(cr->v[F_RESIDENT]) ? cr->v[F_MEMORY]
						      : cr->v[F_RESIDENT];
		if (isnan(res))
			m->resident_missing[r] = true;
		else if (nvidia && g->kind == GPU_REGION_DEVICE)
			m->nvidia += res;
		g->total = add_known(g->total, cr->v[F_TOTAL]);
		g->resident = add_known(g->resident, res);
		g->shared = add_known(g->shared, cr->v[F_SHARED]);
		g->purgeable = add_known(g->purgeable, cr->v[F_PURGEABLE]);
	}
}

/* Read the fdinfo file `name` of dirfd (or, when kept >= 0, that open
 * file) into m->rec and count its client, once, when it is a DRM client.
 * 0 or -errno (m->rec then says nothing). */
static int merge_fd(struct drm_merge *m, int dirfd, const char *name,
		    int kept)
{
	memset(&m->rec, 0, sizeof(m->rec));
	int r = kept >= 0 ? scan_fd(kept, m->buf, sizeof(m->buf), &m->rec) :
		scan_fdinfo(dirfd, name, m->buf, sizeof(m->buf), &m->rec);
	if (r < 0) {
		m->rec.is_drm = false;
		return r;
	}
	if (m->rec.is_drm && !seen_before(m->seen, &m->rec))
		merge_client(m, &m->rec);
	return 0;
}

/* Close a read with status ret: the final figures when PROBE_OK, else
 * none (denied set for PROBE_DENIED). Returns ret. */
static int merge_finish(struct drm_merge *m, int ret)
{
	struct gpu_usage *out = m->out;
	if (ret != PROBE_OK) {
		usage_reset(out);
		out->denied = ret == PROBE_DENIED;
		return ret;
	}
	for (size_t r = 0; r < out->n_regions; r++)
		if (m->resident_missing[r])
			out->regions[r].resident = NAN;
	if (out->n_clients > 0) {
		double sum = 0.0;
		for (size_t r = 0; r < out->n_regions; r++)
			if (out->regions[r].kind == GPU_REGION_DEVICE)
				sum += out->regions[r].resident; /* NAN spreads */
		out->device_local = sum;
		out->device_local_nvidia = isnan(sum) ? NAN : m->nvidia;
	}
	return PROBE_OK;
}

/* ---- full scans --------------------------------------------------------- */

/* PROC_ROOT/PID/fdinfo into path (proc_root NULL: $MEMTREND_PROC_ROOT or
 * "/proc"); returns its length, or -1. When it does not fit in size > 0
 * bytes, -1 with a message; size 0 only measures. */
static int fdinfo_path(const char *proc_root, pid_t pid, char *path,
		       size_t size)
{
	if (!proc_root) {
		proc_root = getenv("MEMTREND_PROC_ROOT");
		if (!proc_root || !*proc_root)
			proc_root = "/proc";
	}
	int n = snprintf(path, size, "%s/%d/fdinfo", proc_root, (int)pid);
	if (n < 0 || (size > 0 && (size_t)n >= size))
		return error("path too long: '%s/%d/fdinfo'", proc_root,
			     (int)pid);
	return n;
}

/* Open the directory `name` relative to at (AT_FDCWD or a directory fd)
 * into *fd; shown names it in messages. PROBE_OK, PROBE_GONE (does not
 * exist, or its process is dead), PROBE_DENIED (out->denied set) or
 * PROBE_ERROR (printed). */
static int open_fdinfo(int at, const char *name, const char *shown,
		       struct gpu_usage *out, int *fd)
{
	*fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd >= 0)
		return PROBE_OK;
	if (errno == ENOENT || errno == ESRCH)
		return PROBE_GONE;
	if (errno == EACCES || errno == EPERM) {
		out->denied = true;
		return PROBE_DENIED;
	}
	return error("cannot open '%s': %s", shown, strerror(errno));
}

/* Called by a full scan for each DRM fd it reads (name: its number). */
typedef void drm_note_fn(void *ctx, const char *name,
			 const struct drm_fd_rec *rec);

/*
 * Read every fd of the fdinfo directory open on dfd (taken: closed here)
 * into m, telling note (may be NULL) of each DRM fd, then finish m.
 * Returns the PROBE_* of the read.
 */
static int drm_scan(struct drm_merge *m, int dfd, const char *shown,
		    drm_note_fn *note, void *ctx)
{
	DIR *dir = fdopendir(dfd);
	if (!dir) {
		int e = errno;
		close(dfd);
		return merge_finish(m, error("cannot read '%s': %s", shown,
					     strerror(e)));
	}
	int ret = PROBE_OK;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(dir);
		if (!de) {
			/* a /proc fdinfo directory whose process has died
			 * reads as ENOENT */
			if (errno == ENOENT || errno == ESRCH)
				ret = PROBE_GONE;
			else if (errno == EACCES || errno == EPERM)
				ret = PROBE_DENIED;
			else if (errno != 0)
				ret = error("cannot read '%s': %s", shown,
					    strerror(errno));
			break;
		}
		const char *nm = de->d_name;
		size_t i = 0;
		while (nm[i] >= '0' && nm[i] <= '9')
			i++;
		if (i == 0 || nm[i] != '\0')
			continue; /* ".", "..", anything not an fd number */
		int r = merge_fd(m, dirfd(dir), nm, -1);
		if (r == -EACCES || r == -EPERM) {
			ret = PROBE_DENIED;
			break;
		}
		if (r == -ESRCH && faccessat(dirfd(dir), ".", F_OK, 0) != 0) {
			ret = PROBE_GONE;
			break;
		}
		if (r < 0)
			continue; /* closed since readdir (ENOENT), or odd */
		if (m->rec.is_drm && note)
			note(ctx, nm, &m->rec);
	}
	closedir(dir);
	return merge_finish(m, ret);
}

int probe_gpu_drm_read(const char *proc_root, pid_t pid,
		       struct gpu_usage *out)
{
	assert(out);
	usage_reset(out);
	char path[4096];
	int dfd;
	int ret = fdinfo_path(proc_root, pid, path, sizeof(path)) < 0
			  ? PROBE_ERROR
			  : open_fdinfo(AT_FDCWD, path, path, out, &dfd);
	if (ret != PROBE_OK)
		return ret;
	struct drm_seen seen = {0};
	struct drm_merge m;
	merge_start(&m, out, &seen);
	ret = drm_scan(&m, dfd, path, NULL, NULL);
	free(seen.keys);
	return ret;
}

/* ---- the watch: full scans now and then, DRM fds only between ---------- */

#define FD_NAME_MAX 16 /* an fd number as a string, NUL included */

/* A DRM fd of the last full scan, and the client it named. Its fdinfo
 * file is kept open (fd; -1 when it could not be opened) and read again
 * with pread: /proc looks the fd number up at every read, so a closed or
 * reused fd shows as such, and a sample costs one system call per DRM
 * fd instead of three. */
struct drm_fd_mark {
	int fd;
	char name[FD_NAME_MAX];
	bool has_id;
	struct drm_client_key key;
};

struct gpu_drm_watch {
	char *path;         /* PROC_ROOT/PID/fdinfo, for messages and open */
	int dfd;            /* that directory; -1 until first opened */
	double rescan_s;
	double last_scan;   /* now_mono of the last full scan; NAN: none */
	bool denied;        /* it said PROBE_DENIED: so until the next */
	bool scan_next;     /* next read scans in full, whatever the time */
	bool keep_fds;      /* the directory is procfs: keep DRM fds open */
	struct drm_fd_mark *fds; /* DRM fds of the last full scan */
	size_t n_fds, cap_fds;
	struct drm_seen seen;    /* reused by every read */
};

struct gpu_drm_watch *gpu_drm_watch_new(const char *proc_root, pid_t pid,
					double rescan_s)
{
	int n = fdinfo_path(proc_root, pid, NULL, 0);
	size_t size = n < 0 ? 1 : (size_t)n + 1;
	struct gpu_drm_watch *w = xcalloc(1, sizeof(*w));
	/* "" when n < 0 (a root of over INT_MAX bytes): reads say gone */
	w->path = xcalloc(1, size);
	if (n >= 0)
		fdinfo_path(proc_root, pid, w->path, size);
	w->dfd = -1;
	w->rescan_s = rescan_s > 0 ? rescan_s : GPU_DRM_RESCAN_S;
	w->last_scan = NAN;
	return w;
}

static void watch_forget_fds(struct gpu_drm_watch *w)
{
	for (size_t i = 0; i < w->n_fds; i++)
		if (w->fds[i].fd >= 0)
			close(w->fds[i].fd);
	w->n_fds = 0;
}

void gpu_drm_watch_free(struct gpu_drm_watch *w)
{
	if (!w)
		return;
	watch_forget_fds(w);
	if (w->dfd >= 0)
		close(w->dfd);
	free(w->path);
	free(w->fds);
	free(w->seen.keys);
	free(w);
}

static void watch_note(void *ctx, const char *name,
		       const struct drm_fd_rec *rec)
{
	struct gpu_drm_watch *w = ctx;
	if (strlen(name) >= FD_NAME_MAX) {
		w->scan_next = true; /* not an fd number /proc would show */
		return;
	}
	xgrow((void **)&w->fds, &w->cap_fds, w->n_fds + 1, sizeof(*w->fds));
	struct drm_fd_mark *f = &w->fds[w->n_fds++];
	f->fd = w->keep_fds ? openat(w->dfd, name, O_RDONLY | O_CLOEXEC) : -1;
	strcpy(f->name, name);
	f->has_id = rec->has_id;
	key_set(&f->key, rec);
}

static int watch_full_scan(struct gpu_drm_watch *w, double now,
			   struct drm_merge *m, struct gpu_usage *out)
{
	w->last_scan = now;
	w->denied = false;
	w->scan_next = false;
	watch_forget_fds(w);
	merge_start(m, out, &w->seen);
	int ret = PROBE_OK, dfd = -1;
	if (w->dfd < 0) {
		ret = open_fdinfo(AT_FDCWD, w->path, w->path, out, &w->dfd);
		/* Only /proc re-reads a kept fdinfo file as the fd is now; a
		 * fixture tree on a plain filesystem may replace its files,
		 * which a kept fd would not see: open those at every read.
		 * MEMTREND_GPU_KEEP_FDS=1 keeps them anyway (for tests of a
		 * tree rewritten in place). */
		struct statfs sf;
		const char *force = getenv("MEMTREND_GPU_KEEP_FDS");
		w->keep_fds = ret == PROBE_OK &&
			      ((force && strcmp(force, "1") == 0) ||
			       (fstatfs(w->dfd, &sf) == 0 &&
				sf.f_type == PROC_SUPER_MAGIC));
	}
	/* A fresh open description for readdir; the kept fd stays bound to
	 * the directory first opened (the process incarnation). */
	if (ret == PROBE_OK)
		ret = open_fdinfo(w->dfd, ".", w->path, out, &dfd);
	struct stat st;
	if (ret == PROBE_OK && fstat(dfd, &st) == 0 && st.st_nlink == 0) {
		close(dfd); /* removed (a proc root on a plain filesystem) */
		ret = PROBE_GONE;
	}
	ret = ret == PROBE_OK ? drm_scan(m, dfd, w->path, watch_note, w)
			      : merge_finish(m, ret);
	if (ret != PROBE_OK)
		watch_forget_fds(w);
	if (ret == PROBE_DENIED)
		w->denied = true;
	else if (ret != PROBE_OK)
		w->scan_next = true; /* gone or failing: say so again */
	return ret;
}

/* Re-read the remembered DRM fds into m. false when one is no longer
 * the client it was (a full scan is due); else *ret is the status. */
static bool watch_recheck(struct gpu_drm_watch *w, struct drm_merge *m,
			  struct gpu_usage *out, int *ret)
{
	merge_start(m, out, &w->seen);
	*ret = PROBE_OK;
	for (size_t i = 0; i < w->n_fds; i++) {
		const struct drm_fd_mark *f = &w->fds[i];
		int r = merge_fd(m, w->dfd, f->name, f->fd);
		if (r == -EACCES || r == -EPERM) {
			w->denied = true;
			*ret = PROBE_DENIED;
			break;
		}
		if (r < 0 || !m->rec.is_drm || m->rec.has_id != f->has_id ||
		    !key_matches(&f->key, &m->rec))
			return false;
	}
	*ret = merge_finish(m, *ret);
	return true;
}

int gpu_drm_watch_read(struct gpu_drm_watch *w, double now_mono,
		       struct gpu_usage *out)
{
	assert(w && out);
	/* Due on the first read, rescan_s after the last scan, and when the
	 * clock is not usable (NAN, or before the last scan). */
	bool due = w->scan_next || !(now_mono >= w->last_scan &&
				     now_mono - w->last_scan < w->rescan_s);
	if (!due && w->denied) {
		usage_reset(out);
		out->denied = true;
		return PROBE_DENIED;
	}
	struct drm_merge m;
	int ret;
	if (!due && watch_recheck(w, &m, out, &ret))
		return ret;
	return watch_full_scan(w, now_mono, &m, out);
}
