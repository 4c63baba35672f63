/*
 * vmmap.c - parsing a macOS `vmmap --summary` output into a region
 * breakdown (vmmap.h), and vmmap_read_file(), which reads one such file
 * for `memtrend report FILE` (src/cmd/cmd_report.c renders it).
 *
 * How the table is read: the "=" line under the column titles gives the
 * columns (one run of '=' per column, the first for the region name); a
 * column's meaning comes from the title words above its run. A row is
 * split into words: the name is everything before the first run of as
 * many size-like words as there are figure columns (so a name holding a
 * number, "Memory Tag 255", and the remarks after a row, "see MALLOC ZONE
 * table below", are both fine).
 *
 * What it does not do: trust column positions for the figures (a copy
 * with collapsed spaces still parses), guess a unit vmmap does not print,
 * or render anything itself.
 */
#include "vmmap.h"
#include "common.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VMMAP_DETECT_SPAN (1u << 20)
#define VMMAP_FILE_MAX (64u << 20)
#define MAX_COLS 24
#define MAX_WORDS 64

/* ---- lines and words --------------------------------------------------- */

struct line {
	const char *s, *e;     /* without the newline (and a '\r') */
	unsigned long no;      /* 1-based */
};

/* The next line of [*p, end); false at the end. */
static bool next_line(const char **p, const char *end, struct line *l)
{
	if (*p >= end)
		return false;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	l->s = *p;
	l->e = nl ? nl : end;
	*p = nl ? nl + 1 : end;
	if (l->e > l->s && l->e[-1] == '\r')
		l->e--;
	l->no++;
	return true;
}

static bool line_starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);
	return (size_t)(l->e - l->s) >= n && memcmp(l->s, prefix, n) == 0;
}

static bool line_blank(const struct line *l)
{
	for (const char *c = l->s; c < l->e; c++)
		if (*c != ' ' && *c != '\t')
			return false;
	return true;
}

struct word {
	const char *s;
	size_t len;
	size_t col;            /* offset in the line */
};

static size_t split_words(const struct line *l, struct word *w, size_t max)
{
	size_t n = 0;
	const char *c = l->s;
	while (c < l->e && n < max) {
		while (c < l->e && (*c == ' ' || *c == '\t'))
			c++;
		if (c >= l->e)
			break;
		const char *b = c;
		while (c < l->e && *c != ' ' && *c != '\t')
			c++;
		w[n++] = (struct word){ b, (size_t)(c - b),
					(size_t)(b - l->s) };
	}
	return n;
}

/* A line of '=' runs separated by spaces (at least two runs). Fills the
 * runs' [start, end) columns. */
static size_t separator_runs(const struct line *l, size_t *start,
			     size_t *end, size_t max)
{
	size_t n = 0;
	const char *c = l->s;
	while (c < l->e) {
		if (*c == ' ' || *c == '\t') {
			c++;
			continue;
		}
		if (*c != '=')
			return 0;
		const char *b = c;
		while (c < l->e && *c == '=')
			c++;
		if (n == max)
			return 0;
		start[n] = (size_t)(b - l->s);
		end[n] = (size_t)(c - l->s);
		n++;
	}
	return n >= 2 ? n : 0;
}

/* ---- sizes ------------------------------------------------------------- */

/* "232.5G", "1502K", "824", "25%". *v gets bytes (a percent: the number).
 * False when the word is not one of these. */
static bool parse_figure(const char *s, size_t len, double *v)
{
	size_t i = 0;
	double x = 0;
	bool digits = false;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		x = x * 10 + (s[i++] - '0');
		digits = true;
	}
	if (i < len && s[i] == '.') {
		double scale = 0.1;
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			x += (s[i++] - '0') * scale;
			scale /= 10;
			digits = true;
		}
	}
	if (!digits)
		return false;
	if (i == len) {
		*v = x;
		return true;
	}
	if (i + 1 != len)
		return false;
	static const char units[] = "KMGTP";
	const char *u = strchr(units, s[i] == 'k' ? 'K' : s[i]);
	if (s[i] == '%') {
		*v = x;
		return true;
	}
	if (!u || !*u)
		return false;
	for (const char *k = units; k <= u; k++)
		x *= 1024;
	*v = x;
	return true;
}

/* ---- families ---------------------------------------------------------- */

static bool has(const char *s, const char *sub) { return strstr(s, sub); }

static bool has_ci(const char *s, const char *sub)
{
	size_t n = strlen(sub);
	for (; *s; s++)
		if (strncasecmp(s, sub, n) == 0)
			return true;
	return false;
}

static bool begins(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum region_family vmmap_family_of(const char *name)
{
	assert(name);
	size_t len = strlen(name);
	if (has(name, "Guard") || has_ci(name, "guard page") ||
	    (len >= 10 && strcmp(name + len - 10, "(reserved)") == 0) ||
	    begins(name, "__PAGEZERO") || begins(name, "page table in kernel") ||
	    begins(name, "owned unmapped") || strcmp(name, "IOKit") == 0)
		return REGION_OTHER;
	if (begins(name, "IOAccelerator") || begins(name, "IOGPU"))
		return REGION_GPU;
	if (has_ci(name, "malloc"))
		return REGION_HEAP;
	if (begins(name, "Stack"))
		return REGION_STACK;
	if (has_ci(name, "shared memory") || begins(name, "IOSurface"))
		return REGION_SHMEM;
	if (begins(name, "__") || strcmp(name, "mapped file") == 0 ||
	    has(name, "shlib"))
		return REGION_FILE;
	return REGION_ANON;
}

/* ---- the parser -------------------------------------------------------- */

enum col_kind { COL_SKIP, COL_VIRTUAL, COL_RESIDENT, COL_DIRTY, COL_SWAPPED,
		COL_COUNT, COL_ALLOCATED };

struct table {
	size_t ncols;                  /* figure columns */
	enum col_kind kind[MAX_COLS];
};

static int fail(struct vmmap_summary *out, unsigned long line,
		const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(struct vmmap_summary *out, unsigned long line,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
	out->error_line = line;
	return -1;
}

static enum col_kind kind_of(const char *title)
{
	if (has(title, "VIRTUAL"))
		return COL_VIRTUAL;
	if (has(title, "RESIDENT"))
		return COL_RESIDENT;
	if (has(title, "DIRTY") && !has(title, "DIRTY+"))
		return COL_DIRTY;
	if (has(title, "SWAPPED"))
		return COL_SWAPPED;
	if (has(title, "REGION") && has(title, "COUNT"))
		return COL_COUNT;
	if (has(title, "ALLOCATED"))
		return COL_ALLOCATED;
	return COL_SKIP;
}

/* A line of column titles: upper-case words only (VIRTUAL, DIRTY+SWAP). */
static bool title_line(const struct line *l)
{
	if (line_blank(l))
		return false;
	for (const char *c = l->s; c < l->e; c++)
		if (*c >= 'a' && *c <= 'z')
			return false;
	return true;
}

/*
 * Columns from the title lines above the separator: the first (upper,
 * optional: NULL) and the one that starts with the table's name (lower,
 * title words after the name). A figure column's title is the words that
 * overlap its '=' run; when positions say nothing (spaces collapsed), the
 * upper line's words are taken in order if there is one per column.
 */
static void read_columns(const struct line *upper, const struct line *lower,
			 size_t name_len, const size_t *rs, const size_t *re,
			 size_t nruns, struct table *t)
{
	char title[MAX_COLS][96];
	t->ncols = nruns - 1;
	for (size_t j = 0; j < t->ncols; j++)
		title[j][0] = '\0';
	const struct line *ls[2] = { upper, lower };
	size_t nupper = 0;
	struct word upper_words[MAX_WORDS];
	for (int k = 0; k < 2; k++) {
		if (!ls[k])
			continue;
		struct word w[MAX_WORDS];
		size_t n = split_words(ls[k], w, MAX_WORDS);
		if (k == 0) {
			memcpy(upper_words, w, n * sizeof(w[0]));
			nupper = n;
		}
		for (size_t i = 0; i < n; i++) {
			if (k == 1 && w[i].col < name_len)
				continue; /* "REGION TYPE" itself */
			for (size_t j = 0; j < t->ncols; j++) {
				size_t a = rs[j + 1], b = re[j + 1];
				if (w[i].col >= b || w[i].col + w[i].len <= a)
					continue;
				size_t at = strlen(title[j]);
				snprintf(title[j] + at, sizeof(title[j]) - at,
					 "%s%.*s", at ? " " : "",
					 (int)w[i].len, w[i].s);
				break;
			}
		}
	}
	bool any = false;
	for (size_t j = 0; j < t->ncols; j++) {
		t->kind[j] = kind_of(title[j]);
		any |= t->kind[j] != COL_SKIP;
	}
	if (!any && nupper == t->ncols) {
		for (size_t j = 0; j < t->ncols; j++) {
			snprintf(title[j], sizeof(title[j]), "%.*s",
				 (int)upper_words[j].len, upper_words[j].s);
			t->kind[j] = kind_of(title[j]);
		}
	}
}

/* Split a row into its name and figures. False when no run of ncols
 * figures follows a name. */
static bool read_row(const struct line *l, const struct table *t,
		     struct vmmap_row *row, double *allocated)
{
	struct word w[MAX_WORDS];
	size_t n = split_words(l, w, MAX_WORDS);
	double v[MAX_COLS];
	for (size_t i = 1; i + t->ncols <= n; i++) {
		bool ok = true;
		for (size_t j = 0; j < t->ncols && ok; j++)
			ok = parse_figure(w[i + j].s, w[i + j].len, &v[j]);
		double extra;
		if (!ok || (i + t->ncols < n &&
			    parse_figure(w[i + t->ncols].s,
					 w[i + t->ncols].len, &extra)))
			continue;
		size_t name_len = w[i - 1].col + w[i - 1].len;
		memset(row, 0, sizeof(*row));
		snprintf(row->name, sizeof(row->name), "%.*s", (int)name_len,
			 l->s);
		row->virtual_size = row->resident = row->dirty = NAN;
		row->swapped = NAN;
		row->count = -1;
		row->line = l->no;
		if (allocated)
			*allocated = NAN;
		for (size_t j = 0; j < t->ncols; j++) {
			switch (t->kind[j]) {
			case COL_VIRTUAL: row->virtual_size = v[j]; break;
			case COL_RESIDENT: row->resident = v[j]; break;
			case COL_DIRTY: row->dirty = v[j]; break;
			case COL_SWAPPED: row->swapped = v[j]; break;
			case COL_COUNT: row->count = llround(v[j]); break;
			case COL_ALLOCATED:
				if (allocated)
					*allocated = v[j];
				break;
			case COL_SKIP: break;
			}
		}
		row->family = vmmap_family_of(row->name);
		return true;
	}
	return false;
}

/* "Process:         tensorfold-native [25834]" */
static void read_process(const struct line *l, struct vmmap_summary *out)
{
	const char *s = l->s + strlen("Process:"), *e = l->e;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e > s && e[-1] == ']') {
		const char *b = e - 1;
		while (b > s && b[-1] >= '0' && b[-1] <= '9')
			b--;
		if (b > s && b[-1] == '[' && b < e - 1) {
			out->pid = strtol(b, NULL, 10);
			e = b - 1;
			while (e > s && e[-1] == ' ')
				e--;
		}
	}
	snprintf(out->process, sizeof(out->process), "%.*s", (int)(e - s), s);
}

static int read_header_size(const struct line *l, const char *key,
			    double *v, struct vmmap_summary *out)
{
	struct word w[4];
	struct line rest = *l;
	rest.s += strlen(key);
	size_t n = split_words(&rest, w, 4);
	if (n != 1 || !parse_figure(w[0].s, w[0].len, v))
		return fail(out, l->no, "'%s' is not followed by a size "
			    "(e.g. 230.7G)", key);
	return 0;
}

static void add_row(struct region_breakdown *b, const struct vmmap_row *r,
		    const bool have[4])
{
	struct region_figures *f = &b->f[r->family];
	double fp = (isnan(r->dirty) ? 0 : r->dirty) +
		    (isnan(r->swapped) ? 0 : r->swapped);
	if (have[0]) f->size += r->virtual_size;
	if (have[1]) f->rss += r->resident;
	if (have[2]) f->private_dirty += r->dirty;
	if (have[3]) f->swap += r->swapped;
	f->footprint += fp;
	if (r->count > 0)
		f->mappings += r->count;
	double *top = &b->top_footprint[r->family];
	if (b->top[r->family][0] == '\0' || fp > *top) {
		*top = fp;
		snprintf(b->top[r->family], sizeof(b->top[r->family]), "%s",
			 r->name);
	}
}

/* "13.0 MiB": vmmap's own one-decimal precision, in MiB (zone figures
 * are small: the GPU is where the large ones are). */
static char *mib1(char *buf, size_t n, double bytes)
{
	snprintf(buf, n, "%.1f MiB", bytes / (1024.0 * 1024.0));
	return buf;
}

static void build_breakdown(struct vmmap_summary *s)
{
	struct region_breakdown *b = &s->breakdown;
	bool have[4] = { false, false, false, false };
	for (size_t i = 0; i < s->n_rows; i++) {
		have[0] |= !isnan(s->rows[i].virtual_size);
		have[1] |= !isnan(s->rows[i].resident);
		have[2] |= !isnan(s->rows[i].dirty);
		have[3] |= !isnan(s->rows[i].swapped);
	}
	for (size_t i = 0; i < s->n_rows; i++)
		add_row(b, &s->rows[i], have);
	for (int f = 0; f < REGION_FAMILY_COUNT; f++) {
		b->f[f].pss = NAN;
		if (!have[0]) b->f[f].size = NAN;
		if (!have[1]) b->f[f].rss = NAN;
		if (!have[2]) b->f[f].private_dirty = NAN;
		if (!have[3]) b->f[f].swap = NAN;
		if (!have[2] && !have[3]) b->f[f].footprint = NAN;
	}
	b->footprint = s->footprint;
	b->footprint_peak = s->footprint_peak;
	char note[768], zone[160] = "";
	if (!isnan(s->malloc_zone_dirty)) {
		char d[32], a[32];
		mib1(d, sizeof(d), s->malloc_zone_dirty);
		if (!isnan(s->malloc_zone_allocated))
			snprintf(zone, sizeof(zone), "; malloc zones %s dirty, "
				 "%s allocated", d,
				 mib1(a, sizeof(a), s->malloc_zone_allocated));
		else
			snprintf(zone, sizeof(zone), "; malloc zones %s dirty",
				 d);
	}
	char who[320];
	if (s->pid >= 0)
		snprintf(who, sizeof(who), "%s [%ld]", s->process, s->pid);
	else
		snprintf(who, sizeof(who), "%s", *s->process ? s->process :
			 "a process");
	snprintf(note, sizeof(note), "vmmap --summary of %s%s%s%s", who,
		 *s->date ? " at " : "", s->date, zone);
	b->source_note = xstrdup(note);
}

/* The MALLOC ZONE table after the region table (cur: its "MALLOC ZONE"
 * title line, advanced over what is read; above: the line before it).
 * Only its TOTAL row is kept, and only when it reads cleanly: vmmap
 * versions differ here, and the region table already holds the figures. */
static void read_zone_table(const char **p, const char *end,
			    struct line *cur, const struct line *above,
			    struct vmmap_summary *out)
{
	struct line title = *cur;
	if (!next_line(p, end, cur))
		return;
	size_t rs[MAX_COLS + 1], re[MAX_COLS + 1];
	size_t nruns = separator_runs(cur, rs, re, MAX_COLS + 1);
	if (!nruns)
		return;
	struct table t;
	read_columns(above && title_line(above) ? above : NULL, &title,
		     strlen("MALLOC ZONE"), rs, re, nruns, &t);
	bool closed = false;
	while (next_line(p, end, cur)) {
		size_t a[MAX_COLS + 1], b[MAX_COLS + 1];
		if (separator_runs(cur, a, b, MAX_COLS + 1)) {
			closed = true;
			continue;
		}
		if (!closed)
			continue;
		struct vmmap_row row;
		double allocated;
		if (line_starts(cur, "TOTAL") &&
		    read_row(cur, &t, &row, &allocated)) {
			out->malloc_zone_dirty = row.dirty;
			out->malloc_zone_allocated = allocated;
		}
		return;
	}
}

static void summary_init(struct vmmap_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = -1;
	out->footprint = out->footprint_peak = NAN;
	out->malloc_zone_dirty = out->malloc_zone_allocated = NAN;
	regions_init(&out->breakdown);
}

void vmmap_release(struct vmmap_summary *s)
{
	if (!s)
		return;
	free(s->rows);
	s->rows = NULL;
	s->n_rows = 0;
	regions_release(&s->breakdown);
}

/* After a "REGION TYPE" line: the separator, the rows, the closing
 * separator and the TOTAL rows. 1 when the line after the title was no
 * separator (a full vmmap's region list, not the summary), 0 when the
 * table was read, -1 on error. */
static int read_region_table(const char **p, const char *end,
			     const struct line *title, const struct line *above,
			     struct vmmap_summary *out, struct line *last)
{
	const char *save = *p;
	struct line sep = *title;
	if (!next_line(p, end, &sep))
		return fail(out, title->no, "the REGION TYPE table has no "
			    "rows");
	size_t rs[MAX_COLS + 1], re[MAX_COLS + 1];
	size_t nruns = separator_runs(&sep, rs, re, MAX_COLS + 1);
	if (!nruns) {
		*p = save;
		return 1;
	}
	struct table t;
	read_columns(above && title_line(above) ? above : NULL, title,
		     strlen("REGION TYPE"), rs, re, nruns, &t);
	bool any = false;
	for (size_t j = 0; j < t.ncols; j++)
		any |= t.kind[j] == COL_VIRTUAL || t.kind[j] == COL_RESIDENT ||
		       t.kind[j] == COL_DIRTY;
	if (!any)
		return fail(out, title->no, "the REGION TYPE table has no "
			    "VIRTUAL, RESIDENT or DIRTY column");
	size_t cap = 0;
	struct line l = sep;
	for (;;) {
		if (!next_line(p, end, &l) || line_blank(&l))
			return fail(out, l.no, "the REGION TYPE table ends "
				    "without its closing '=====' line");
		size_t a[MAX_COLS + 1], b[MAX_COLS + 1];
		if (separator_runs(&l, a, b, MAX_COLS + 1))
			break;
		xgrow((void **)&out->rows, &cap, out->n_rows + 1,
		      sizeof(*out->rows));
		if (!read_row(&l, &t, &out->rows[out->n_rows], NULL))
			return fail(out, l.no, "expected a region name and "
				    "%zu figures (sizes like 232.5G, 1502K "
				    "or 824)", t.ncols);
		out->n_rows++;
	}
	*last = l;
	const char *before = *p;
	while (next_line(p, end, &l) && line_starts(&l, "TOTAL")) {
		struct vmmap_row row;
		if (!read_row(&l, &t, &row, NULL))
			return fail(out, l.no, "a TOTAL row whose figures do "
				    "not read as sizes");
		if (!out->has_total) {
			out->total = row;
			out->has_total = true;
		}
		before = *p;
		*last = l;
	}
	*p = before;
	if (out->n_rows == 0)
		return fail(out, sep.no, "the REGION TYPE table has no rows");
	return 0;
}

int vmmap_parse(const char *buf, size_t len, struct vmmap_summary *out)
{
	assert(buf || len == 0);
	assert(out);
	summary_init(out);
	const char *p = buf, *end = buf + len;
	struct line l = { .no = 0 }, prev = { .s = buf, .e = buf };
	bool have_prev = false, table = false;
	while (next_line(&p, end, &l)) {
		if (line_starts(&l, "Process:")) {
			read_process(&l, out);
		} else if (line_starts(&l, "Date/Time:")) {
			struct line r = l;
			r.s += strlen("Date/Time:");
			while (r.s < r.e && (*r.s == ' ' || *r.s == '\t'))
				r.s++;
			snprintf(out->date, sizeof(out->date), "%.*s",
				 (int)(r.e - r.s), r.s);
		} else if (line_starts(&l, "Physical footprint (peak):")) {
			if (read_header_size(&l, "Physical footprint (peak):",
					     &out->footprint_peak, out))
				goto bad;
		} else if (line_starts(&l, "Physical footprint:")) {
			if (read_header_size(&l, "Physical footprint:",
					     &out->footprint, out))
				goto bad;
		} else if (!table && line_starts(&l, "REGION TYPE")) {
			struct line last;
			int rc = read_region_table(&p, end, &l,
						   have_prev ? &prev : NULL,
						   out, &last);
			if (rc < 0)
				goto bad;
			if (rc == 0) {
				table = true;
				l = last;
			}
		} else if (table && line_starts(&l, "MALLOC ZONE")) {
			read_zone_table(&p, end, &l, have_prev ? &prev : NULL,
					out);
		}
		prev = l;
		have_prev = true;
	}
	if (!table) {
		fail(out, 0, "no REGION TYPE table: not a vmmap --summary "
		     "output");
		goto bad;
	}
	build_breakdown(out);
	out->error[0] = '\0';
	out->error_line = 0;
	return 0;
bad:
	free(out->rows);
	out->rows = NULL;
	out->n_rows = 0;
	out->has_total = false;
	return -1;
}

bool vmmap_detect(const char *buf, size_t len)
{
	if (!buf)
		return false;
	if (len > VMMAP_DETECT_SPAN)
		len = VMMAP_DETECT_SPAN;
	const char *p = buf, *end = buf + len;
	struct line l = { .no = 0 };
	bool title = false;
	while (next_line(&p, end, &l)) {
		if (title) {
			size_t a[MAX_COLS + 1], b[MAX_COLS + 1];
			if (separator_runs(&l, a, b, MAX_COLS + 1))
				return true;
		}
		title = line_starts(&l, "REGION TYPE");
		/* a full vmmap (its summary comes last, maybe beyond the
		 * span looked at) names the tool in its header */
		if (line_starts(&l, "Analysis Tool:") && l.e - l.s >= 5 &&
		    memcmp(l.e - 5, "vmmap", 5) == 0)
			return true;
	}
	return false;
}

bool vmmap_is_summary_file(const char *path)
{
	assert(path);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char *buf = xmalloc(VMMAP_DETECT_SPAN);
	size_t n = fread(buf, 1, VMMAP_DETECT_SPAN, f);
	fclose(f);
	bool yes = vmmap_detect(buf, n);
	free(buf);
	return yes;
}

/* ---- reading a file ----------------------------------------------------- */

int vmmap_read_file(const char *path, struct vmmap_summary *out)
{
	assert(path && out);
	memset(out, 0, sizeof(*out));
	regions_init(&out->breakdown);
	FILE *f = fopen(path, "rb");
	if (!f)
		return error("cannot read '%s': %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap >= VMMAP_FILE_MAX) {
				fclose(f);
				free(buf);
				return error("'%s' is larger than %u MiB: not "
					     "a vmmap summary", path,
					     VMMAP_FILE_MAX >> 20);
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return error("cannot read '%s'", path);
	}
	int rc = vmmap_parse(buf, len, out);
	free(buf);
	if (rc) {
		if (out->error_line)
			error("%s:%lu: %s", path, out->error_line, out->error);
		else
			error("%s: %s", path, out->error);
		vmmap_release(out);
		return -1;
	}
	return 0;
}
