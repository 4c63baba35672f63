/*
 * smaps.c - the streaming reader of /proc/PID/smaps into a region
 * breakdown (smaps.h; the families and their rules are data in
 * src/model/regions.c).
 *
 * What it does: reads smaps in 64 KiB chunks into one buffer, scans each
 * line in place (no stdio, no sscanf, no allocation per line or mapping),
 * keeps the current mapping's figures in a few doubles and adds them to
 * its family when the next mapping header (or the end) arrives. Work is
 * O(lines); memory is the buffer plus the breakdown, whatever the number
 * of mappings.
 *
 * What it does not do: decide when to read (smaps is costly for a large
 * process: the caller reads it at a low rate), stat the mapped files, keep
 * per-mapping records, or render anything.
 */
#include "smaps.h"
#include "common.h"
#include "probe.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMAPS_BUF (64u * 1024u)

/* ---- the smaps scanner ------------------------------------------------- */

struct smaps_scan {
	struct region_breakdown *out;
	const char *name;          /* file name for messages */
	unsigned long long line;
	bool in_mapping;
	enum region_family fam;
	char path[REGION_NAME_MAX];
	/* the current mapping's fields; NAN until seen */
	double size, rss, pss, dirty, swap, anon, shmem_pmd;
	unsigned long long mappings;
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static double or0(double v) { return isnan(v) ? 0 : v; }

/* Add the current mapping to its family. */
static void flush_mapping(struct smaps_scan *sc)
{
	if (!sc->in_mapping)
		return;
	enum region_family fam = sc->fam;
	if (or0(sc->shmem_pmd) > 0 &&
	    (fam == REGION_ANON || fam == REGION_FILE || fam == REGION_OTHER))
		fam = REGION_SHMEM;
	/* Old kernels without "Anonymous:": private dirty pages are the
	 * closest stand-in for the anonymous ones. */
	double anon = isnan(sc->anon) ? or0(sc->dirty) : sc->anon;
	double fp = (fam == REGION_SHMEM || fam == REGION_GPU) ?
			    or0(sc->rss) + or0(sc->swap) :
			    anon + or0(sc->swap);
	struct region_figures *f = &sc->out->f[fam];
	f->size += or0(sc->size);
	f->rss += or0(sc->rss);
	f->pss += or0(sc->pss);
	f->private_dirty += or0(sc->dirty);
	f->swap += or0(sc->swap);
	f->footprint += fp;
	f->mappings++;
	double *top = &sc->out->top_footprint[fam];
	if (f->mappings == 1 || fp > *top) {
		*top = fp;
		memcpy(sc->out->top[fam], sc->path, sizeof(sc->path));
	}
	sc->mappings++;
	sc->in_mapping = false;
}

/* "START-END PERMS OFFSET DEV INODE [PATH]". True (and fields taken) when
 * the line is a mapping header; false when it does not start like one. */
static int parse_header(struct smaps_scan *sc, const char *s, const char *e,
			bool *is_header)
{
	const char *p = s;
	*is_header = false;
	while (p < e && is_hex(*p))
		p++;
	if (p == s || p >= e || *p != '-')
		return 0;
	const char *q = ++p;
	while (p < e && is_hex(*p))
		p++;
	if (p == q || p >= e || *p != ' ')
		return 0;
	*is_header = true;
	p++;
	/* perms: four characters, then offset, dev, inode */
	if (e - p < 5 || p[4] != ' ')
		goto bad;
	char perms[5];
	memcpy(perms, p, 4);
	perms[4] = '\0';
	p += 5;
	for (int field = 0; field < 3; field++) {
		const char *t = p;
		while (p < e && (is_hex(*p) || *p == ':'))
			p++;
		if (p == t || (field < 2 && (p >= e || *p != ' ')))
			goto bad;
		while (p < e && *p == ' ')
			p++;
	}
	flush_mapping(sc);
	size_t len = (size_t)(e - p);
	sc->fam = regions_family_of_path(p, len, perms);
	if (len >= sizeof(sc->path)) {
		/* keep the head, mark the cut */
		len = sizeof(sc->path) - 4;
		memcpy(sc->path, p, len);
		memcpy(sc->path + len, "...", 4);
	} else {
		memcpy(sc->path, p, len);
		sc->path[len] = '\0';
	}
	sc->in_mapping = true;
	sc->size = sc->rss = sc->pss = sc->dirty = NAN;
	sc->swap = sc->anon = sc->shmem_pmd = NAN;
	return 0;
bad:
	return error("%s:%llu: a mapping header that does not read as "
		     "'START-END PERMS OFFSET DEV INODE [PATH]'", sc->name,
		     sc->line);
}

struct field_key {
	const char *name;   /* with the colon */
	size_t len;
	size_t offset;      /* of the double in struct smaps_scan */
};
#define FK(s, m) { s, sizeof(s) - 1, offsetof(struct smaps_scan, m) }

static int parse_field(struct smaps_scan *sc, const char *s, const char *e)
{
	static const struct field_key keys[] = {
		FK("Size:", size), FK("Rss:", rss), FK("Pss:", pss),
		FK("Private_Dirty:", dirty), FK("Swap:", swap),
		FK("Anonymous:", anon), FK("ShmemPmdMapped:", shmem_pmd),
	};
	const char *p = s;
	while (p < e && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' &&
	       *p <= 'z') || is_digit(*p) || *p == '_'))
		p++;
	if (p == s || p >= e || *p != ':')
		return error("%s:%llu: neither a mapping header nor a "
			     "'Field: value' line", sc->name, sc->line);
	if (!sc->in_mapping)
		return error("%s:%llu: a field before the first mapping "
			     "header", sc->name, sc->line);
	size_t klen = (size_t)(p - s) + 1;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (keys[i].len != klen || memcmp(s, keys[i].name, klen))
			continue;
		const char *v = p + 1;
		while (v < e && (*v == ' ' || *v == '\t'))
			v++;
		if (v >= e || !is_digit(*v))
			goto bad;
		unsigned long long x = 0;
		while (v < e && is_digit(*v)) {
			if (x > (~0ULL - 9) / 10)
				goto bad;
			x = x * 10 + (unsigned long long)(*v++ - '0');
		}
		while (v < e && *v == ' ')
			v++;
		double d = (double)x;
		if (e - v == 2 && v[0] == 'k' && v[1] == 'B')
			d *= 1024;
		else if (v != e)
			goto bad;
		*(double *)((char *)sc + keys[i].offset) = d;
		return 0;
	bad:
		return error("%s:%llu: %.*s cannot read the value as 'N kB'",
			     sc->name, sc->line, (int)klen, s);
	}
	return 0; /* a field we do not use (VmFlags, THPeligible, ...) */
}

static int scan_line(struct smaps_scan *sc, const char *s, const char *e)
{
	sc->line++;
	if (e > s && e[-1] == '\r')
		e--;
	if (s == e)
		return 0;
	bool header;
	if (parse_header(sc, s, e, &header))
		return -1;
	return header ? 0 : parse_field(sc, s, e);
}

static bool is_denied(int err) { return err == EACCES || err == EPERM; }
static bool is_gone(int err) { return err == ENOENT || err == ESRCH; }

static char *note_fmt(const char *fmt, ...) PRINTF_LIKE(1, 2);
static char *note_fmt(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return xstrdup(buf);
}

int smaps_read_file(const char *path, struct region_breakdown *out)
{
	assert(path && out);
	regions_init(out);
	int fd;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int err = errno;
		if (is_gone(err))
			return PROBE_GONE;
		if (is_denied(err)) {
			out->source_note = note_fmt(
				"'%s' is not readable without ptrace access "
				"(another user's process, or "
				"kernel.yama.ptrace_scope): no region "
				"breakdown", path);
			return PROBE_DENIED;
		}
		return error("cannot open '%s': %s", path, strerror(err));
	}
	struct smaps_scan sc = { .out = out, .name = path };
	char *buf = xmalloc(SMAPS_BUF);
	size_t have = 0;
	int rc = PROBE_OK;
	bool eof = false;
	while (!eof) {
		ssize_t n = read(fd, buf + have, SMAPS_BUF - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			if (is_gone(err)) {
				rc = PROBE_GONE;
			} else if (is_denied(err)) {
				out->source_note = note_fmt(
					"'%s' is not readable without ptrace "
					"access: no region breakdown", path);
				rc = PROBE_DENIED;
			} else {
				rc = error("cannot read '%s': %s", path,
					   strerror(err));
			}
			break;
		}
		if (n == 0)
			eof = true;
		have += (size_t)n;
		const char *s = buf, *end = buf + have;
		for (;;) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			if (!nl && !(eof && s < end))
				break;
			const char *e = nl ? nl : end;
			if (scan_line(&sc, s, e)) {
				rc = PROBE_ERROR;
				goto done;
			}
			s = nl ? nl + 1 : end;
		}
		have = (size_t)(end - s);
		if (have == SMAPS_BUF) {
			rc = error("%s:%llu: a line longer than %u bytes",
				   path, sc.line + 1, SMAPS_BUF);
			break;
		}
		memmove(buf, s, have);
	}
done:
	free(buf);
	close(fd);
	if (rc != PROBE_OK) {
		if (rc != PROBE_DENIED) {
			/* nothing half-read is a result */
			free(out->source_note);
			regions_init(out);
		}
		return rc;
	}
	flush_mapping(&sc);
	out->source_note = note_fmt("%llu mappings from %s", sc.mappings,
				    path);
	return PROBE_OK;
}

int smaps_read(const char *proc_root, pid_t pid,
		       struct region_breakdown *out)
{
	assert(out);
	if (!proc_root) {
		const char *env = getenv("MEMTREND_PROC_ROOT");
		proc_root = env && *env ? env : "/proc";
	}
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%d/smaps", proc_root,
			 (int)pid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		regions_init(out);
		return error("proc root '%s': path too long", proc_root);
	}
	return smaps_read_file(path, out);
}

