/*
 * csv.c - reads a memory series from CSV into a dataset with one target
 * (format and contract in csv.h and docs/design.md, "Formats").
 *
 * What it does: splits the text into records and cells (RFC 4180 quoting:
 * "a,b" cells, "" escapes, quoted line breaks), maps header names onto the
 * series' figures, parses every cell with units.c, and checks the rows
 * (cell count, time order). What it does not do: infer an interval,
 * resolution or anything statistical (analyses do), or return a partial
 * series: any bad row fails the whole read and releases the dataset.
 *
 * Choices where the format leaves room:
 * - A UTF-8 byte-order mark, CRLF line ends, blank lines (anywhere) and
 *   lines whose first character is '#' (comments, as some exporters write
 *   above the header) are skipped. Line numbers in messages count every
 *   physical line, so they match an editor's.
 * - The separator is a tab when the header has more unquoted tabs than
 *   commas, else a comma. Blanks around cells are trimmed.
 * - Every row must have exactly as many cells as the header.
 * - A blank time is an error (a point needs a place in time); a blank
 *   footprint or any other blank cell is "missing": the row is kept with
 *   NAN there.
 * - A blank pid keeps the current incarnation (unknown is not a change);
 *   the first pid seen names an incarnation that started without one.
 * - Where no pid tells (no pid column), a restart is found by the work
 *   counter: a reset with the footprint's drop starts a new incarnation
 *   (counter_split_restarts(), counter.h).
 * - Columns with no name (pandas writes one for its index) are ignored
 *   with a note. A column with another name becomes a gauge when its
 *   first non-blank cell reads as a size; when that cell is text (a host
 *   name, a comment) the column is ignored with a note; after that, a cell
 *   that does not read is an error like any other.
 * - All component names of series.h (rss, anon, ..., pss, swap_pss) map
 *   onto components; header names compare case-insensitively.
 * - A file with a header but no data rows is an error: there is nothing to
 *   report on.
 *
 * Speed: the text is read in 4 MiB chunks into one buffer and split in
 * place; a row costs no allocation beyond the series' own amortised
 * growth, and gauges are written by index, not looked up by name.
 * Measured: 10^7 rows of Unix seconds and bytes (240 MB) in about 1.4 s
 * at -O2 on a 2-core machine, a third of it page faults of the series'
 * own arrays; ISO times cost about 0.5 us a row (timegm).
 */
#include "csv.h"
#include "counter.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "units.h"

enum { CHUNK = 4 << 20 };  /* bytes per read; lines may be longer */

/* Longest cell text quoted back in a message. */
#define SHOW "%.60s"
/* Bounds on what one file may make the reader do: a row (a file of NUL
 * bytes, or /dev/zero, has no line break) and the header's columns. */
#define CSV_MAX_RECORD (16 << 20)
#define CSV_MAX_COLUMNS 1024

enum role {
	ROLE_IGNORED,      /* unnamed, or found to hold text */
	ROLE_TIME,
	ROLE_FOOTPRINT,
	ROLE_PID,
	ROLE_REQUESTS,
	ROLE_CONNECTIONS,
	ROLE_PRESSURE,
	ROLE_COMPONENT,
	ROLE_GAUGE,
};

struct column {
	char *name;             /* as written in the header; owned */
	enum role role;
	enum series_component comp;
	bool numeric_seen;      /* gauges: a cell has read as a size */
	size_t gauge;           /* index in series.gauges once it exists */
};

struct reader {
	FILE *f;
	const char *name;       /* for messages */
	char *buf;
	size_t cap, len, pos;   /* buf[pos, len) is not yet consumed */
	bool eof;
	size_t next_line;       /* physical line where the next record starts */
	char **cells;           /* cells of the current record, in buf */
	size_t n_cells, cells_cap;
};

/* Next record (a line, or several when a quoted cell spans them) as a
 * NUL-terminated string in the buffer, without its line end. Returns 1,
 * 0 at the end of the input, or -1 after a message. */
static int read_record(struct reader *r, char **rec, size_t *line)
{
	size_t done = 0;        /* bytes of this record already scanned */
	size_t newlines = 0;    /* line breaks inside quotes */
	bool in_quotes = false;

	for (;;) {
		char *start = r->buf + r->pos + done;
		char *end = r->buf + r->len;
		char *nl = memchr(start, '\n', (size_t)(end - start));
		char *stop = nl ? nl : end;
		/* Quote parity decides whether a line break ends the record:
		 * "" escapes toggle twice and so cancel out. */
		for (char *q = start;
		     (q = memchr(q, '"', (size_t)(stop - q))) != NULL; q++)
			in_quotes = !in_quotes;
		if (nl && !in_quotes) {
			*rec = r->buf + r->pos;
			*line = r->next_line;
			if (memchr(*rec, '\0', (size_t)(nl - *rec)))
				goto nul_byte;
			*nl = '\0';
			if (nl > *rec && nl[-1] == '\r')
				nl[-1] = '\0';
			r->next_line += newlines + 1;
			r->pos = (size_t)(nl + 1 - r->buf);
			break;
		}
		if (nl) {
			newlines++;
			done = (size_t)(nl + 1 - (r->buf + r->pos));
			continue;
		}
		done = r->len - r->pos;
		if (r->eof) {
			if (done == 0)
				return 0;
			/* Last line without a line end; the read below keeps a
			 * spare byte for this NUL. */
			assert(r->len < r->cap);
			*rec = r->buf + r->pos;
			*line = r->next_line;
			if (memchr(*rec, '\0', done))
				goto nul_byte;
			r->buf[r->len] = '\0';
			if (r->len > r->pos && r->buf[r->len - 1] == '\r')
				r->buf[r->len - 1] = '\0';
			r->next_line += newlines + 1;
			r->pos = r->len;
			break;
		}
		/* Need more text: keep the unfinished record, drop the rest. */
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
		if (r->len > CSV_MAX_RECORD)
			return error("%s:%zu: a row longer than %d MiB (no line "
				     "break: is this a CSV file?)", r->name,
				     r->next_line, CSV_MAX_RECORD >> 20);
		if (r->cap - r->len < CHUNK / 2) {
			r->cap *= 2;
			r->buf = xrealloc(r->buf, r->cap);
		}
		size_t got = fread(r->buf + r->len, 1, r->cap - r->len - 1,
				   r->f);
		if (got == 0) {
			if (ferror(r->f))
				return error("%s: cannot read: %s", r->name,
					     strerror(errno));
			r->eof = true;
		}
		r->len += got;
	}
	return 1;

nul_byte:
	/* A NUL would silently cut the cell strings short. */
	return error("%s:%zu: contains a NUL byte (not a text file?)",
		     r->name, *line);
}

static bool is_blank_char(char c, char sep)
{
	return c == ' ' || (c == '\t' && sep != '\t');
}

static void push_cell(struct reader *r, char *cell)
{
	xgrow((void **)&r->cells, &r->cells_cap, r->n_cells + 1,
	      sizeof(*r->cells));
	r->cells[r->n_cells++] = cell;
}

/* Split rec in place into r->cells: unquote, undo "" escapes, trim. */
static int split_record(struct reader *r, char *p, char sep, size_t line)
{
	r->n_cells = 0;
	for (;;) {
		bool more;
		while (is_blank_char(*p, sep))
			p++;
		if (*p == '"') {
			/* Unescaped text is never longer than the quoted
			 * text, so it is written over it: out stays behind
			 * p by at least the opening quote. */
			char *cell = p, *out = p;
			p++;
			for (;;) {
				if (*p == '\0')
					return error("%s:%zu: cell %zu: a quoted "
						     "cell has no closing quote",
						     r->name, line,
						     r->n_cells + 1);
				if (*p == '"') {
					if (p[1] != '"') {
						p++;
						break;
					}
					p++;
				}
				*out++ = *p++;
			}
			while (is_blank_char(*p, sep))
				p++;
			if (*p != sep && *p != '\0')
				return error("%s:%zu: cell %zu: text after "
					     "the closing quote",
					     r->name, line, r->n_cells + 1);
			more = *p == sep;
			*out = '\0';
			push_cell(r, cell);
		} else {
			char *cell = p, *q = p;
			while (*q && *q != sep && *q != '"')
				q++;
			if (*q == '"')
				return error("%s:%zu: cell %zu: a quote inside "
					     "an unquoted cell",
					     r->name, line, r->n_cells + 1);
			more = *q == sep;
			char *e = q;
			while (e > cell && is_blank_char(e[-1], sep))
				e--;
			*e = '\0';
			push_cell(r, cell);
			p = q;
		}
		if (!more)
			return 0;
		p++;
	}
}

/* Tab when the header has more unquoted tabs than commas. */
static char detect_separator(const char *header)
{
	size_t tabs = 0, commas = 0;
	bool quoted = false;
	for (const char *p = header; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == '\t')
			tabs++;
		else if (!quoted && *p == ',')
			commas++;
	}
	return tabs > commas ? '\t' : ',';
}

static bool skip_record(const char *rec)
{
	if (rec[0] == '#')
		return true;
	for (const char *p = rec; *p; p++)
		if (*p != ' ' && *p != '\t')
			return false;
	return true;  /* blank, or only blanks */
}

static void classify(struct column *c)
{
	static const struct {
		const char *name;
		enum role role;
	} names[] = {
		{"time", ROLE_TIME},           {"timestamp", ROLE_TIME},
		{"t", ROLE_TIME},              {"footprint", ROLE_FOOTPRINT},
		{"pid", ROLE_PID},             {"requests", ROLE_REQUESTS},
		{"connections", ROLE_CONNECTIONS},
		{"pressure", ROLE_PRESSURE},
	};
	if (c->name[0] == '\0') {
		c->role = ROLE_IGNORED;
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcasecmp(c->name, names[i].name) == 0) {
			c->role = names[i].role;
			return;
		}
	for (int k = 0; k < COMP_COUNT; k++)
		if (strcasecmp(c->name, series_component_names[k]) == 0) {
			c->role = ROLE_COMPONENT;
			c->comp = (enum series_component)k;
			return;
		}
	c->role = ROLE_GAUGE;
}

/* requests, connections, pressure: a number with no unit. */
static int parse_plain(const char *s, double *v)
{
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return -1;
	return units_parse_size(s, v, NULL);
}

/* A pid: decimal digits only. */
static int parse_pid(const char *s, int64_t *pid)
{
	int64_t v = 0;
	if (!*s || strlen(s) > 18)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	*pid = v;
	return 0;
}

static int bad_time(const struct reader *r, size_t line, const char *col,
		    const char *cell)
{
	double t;
	if (units_parse_time(cell, &t) == -2)
		return error("%s:%zu: column '%s': time '" SHOW "' is outside "
			     "1970-9999: not the time of a reading",
			     r->name, line, col, cell);
	/* A common slip: an ISO time with no zone. Say so, not just "bad". */
	char zoned[96];
	if (strlen(cell) + 2 <= sizeof(zoned)) {
		snprintf(zoned, sizeof(zoned), "%sZ", cell);
		if (units_parse_time(zoned, &t) == 0)
			return error("%s:%zu: column '%s': cannot read '" SHOW
				     "' as a time: an ISO 8601 time needs a "
				     "zone (Z or +HH:MM)",
				     r->name, line, col, cell);
	}
	return error("%s:%zu: column '%s': cannot read '" SHOW "' as a time "
		     "(ISO 8601 with a zone, or Unix seconds)",
		     r->name, line, col, cell);
}

/* A cell that is not a size: say why, with the units that are. */
static int bad_size(const struct reader *r, size_t line, const char *col,
		    const char *cell, int rc)
{
	if (rc == -2)
		return error("%s:%zu: column '%s': size '" SHOW "' is over "
			     "1 EiB: not a memory reading",
			     r->name, line, col, cell);
	return error("%s:%zu: column '%s': cannot read '" SHOW "' as a size "
		     "(a number, optionally with a unit: %s)",
		     r->name, line, col, cell, units_size_help());
}

/* Target name: the file's base name without its last extension. */
static char *target_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base && base[1] ? base + 1 : path;
	char *name = xstrdup(base);
	char *dot = strrchr(name, '.');
	if (dot && dot != name)
		*dot = '\0';
	return name;
}

struct state {
	struct reader r;
	struct column *cols;
	size_t n_cols;
	size_t header_line;
	char sep;
	int time_col, footprint_col;
	double *vals;           /* parsed cells of the current row */
};

static const struct column *sort_cols;
static int cmp_col_name(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcasecmp(sort_cols[x].name, sort_cols[y].name);
	return c ? c : (x > y) - (x < y);
}

/* Two named columns with one name (case aside): an error naming both.
 * O(c log c) by sorting, not a scan per column. */
static int duplicate_names(struct state *st, size_t line)
{
	size_t *idx = xmalloc((st->n_cols ? st->n_cols : 1) * sizeof(size_t));
	size_t m = 0;
	for (size_t i = 0; i < st->n_cols; i++)
		if (st->cols[i].role != ROLE_IGNORED)
			idx[m++] = i;
	sort_cols = st->cols;
	qsort(idx, m, sizeof(*idx), cmp_col_name);
	for (size_t k = 1; k < m; k++)
		if (strcasecmp(st->cols[idx[k - 1]].name,
			       st->cols[idx[k]].name) == 0) {
			size_t a = idx[k - 1], b = idx[k];
			free(idx);
			return error("%s:%zu: columns %zu ('%s') and %zu ('%s') "
				     "hold the same figure", st->r.name, line,
				     a + 1, st->cols[a].name, b + 1,
				     st->cols[b].name);
		}
	free(idx);
	return 0;
}

static int read_header(struct state *st)
{
	struct reader *r = &st->r;
	char *rec;
	size_t line;
	int got;
	bool first = true;
	while ((got = read_record(r, &rec, &line)) > 0) {
		/* The byte-order mark is on the first line only. */
		if (first && strncmp(rec, "\xEF\xBB\xBF", 3) == 0)
			rec += 3;
		first = false;
		if (!skip_record(rec))
			break;
	}
	if (got < 0)
		return -1;
	if (got == 0)
		return error("%s: no header row (the file is empty)", r->name);

	st->header_line = line;
	st->sep = detect_separator(rec);
	bool semicolons = strchr(rec, ';') != NULL;
	if (split_record(r, rec, st->sep, line) < 0)
		return -1;
	if (r->n_cells > CSV_MAX_COLUMNS)
		return error("%s:%zu: %zu columns in the header; at most %d are "
			     "read", r->name, line, r->n_cells, CSV_MAX_COLUMNS);
	st->n_cols = r->n_cells;
	size_t role_seen[ROLE_GAUGE + 1 + COMP_COUNT] = {0};
	st->cols = xcalloc(st->n_cols, sizeof(*st->cols));
	st->vals = xcalloc(st->n_cols, sizeof(*st->vals));
	st->time_col = st->footprint_col = -1;
	for (size_t i = 0; i < st->n_cols; i++) {
		struct column *c = &st->cols[i];
		c->name = xstrdup(r->cells[i]);
		c->gauge = SIZE_MAX;
		classify(c);
		if (c->role == ROLE_IGNORED) {
			note("%s:%zu: column %zu has no name; ignoring it",
			     r->name, line, i + 1);
			continue;
		}
		/* one column per role (per component): a table, not a scan */
		if (c->role != ROLE_GAUGE) {
			size_t slot = c->role == ROLE_COMPONENT ?
				      ROLE_GAUGE + 1 + (size_t)c->comp :
				      (size_t)c->role;
			assert(slot < ARRAY_SIZE(role_seen));
			if (role_seen[slot])
				return error("%s:%zu: columns %zu ('%s') and "
					     "%zu ('%s') hold the same figure",
					     r->name, line, role_seen[slot],
					     st->cols[role_seen[slot] - 1].name,
					     i + 1, c->name);
			role_seen[slot] = i + 1;
		}
		if (c->role == ROLE_TIME)
			st->time_col = (int)i;
		else if (c->role == ROLE_FOOTPRINT)
			st->footprint_col = (int)i;
	}
	if (duplicate_names(st, line) < 0)
		return -1;
	const char *hint = semicolons && st->n_cols == 1
		? " (cells must be separated by commas or tabs)" : "";
	if (st->footprint_col < 0)
		return error("%s:%zu: the header has no 'footprint' column%s",
			     r->name, line, hint);
	if (st->time_col < 0)
		return error("%s:%zu: the header has no 'time' column%s",
			     r->name, line, hint);
	return 0;
}

/* Parse every cell of the current row into st->vals (NAN = blank). */
static int parse_row(struct state *st, size_t line, int64_t *pid,
		     double *quantum)
{
	struct reader *r = &st->r;
	double q;
	*pid = -1;
	for (size_t i = 0; i < st->n_cols; i++) {
		struct column *c = &st->cols[i];
		const char *cell = r->cells[i];
		double v = NAN;
		int rc;
		st->vals[i] = NAN;
		if (c->role == ROLE_IGNORED)
			continue;
		if (cell[0] == '\0') {
			if (c->role == ROLE_TIME)
				return error("%s:%zu: column '%s': blank "
					     "(every row needs a time)",
					     r->name, line, c->name);
			continue;
		}
		switch (c->role) {
		case ROLE_TIME:
			if (units_parse_time(cell, &v) < 0)
				return bad_time(r, line, c->name, cell);
			break;
		case ROLE_PID:
			if (parse_pid(cell, pid) < 0)
				return error("%s:%zu: column '%s': cannot read "
					     "'" SHOW "' as a pid",
					     r->name, line, c->name, cell);
			break;
		case ROLE_REQUESTS:
		case ROLE_CONNECTIONS:
		case ROLE_PRESSURE:
			if (parse_plain(cell, &v) < 0)
				return error("%s:%zu: column '%s': cannot read "
					     "'" SHOW "' as a number",
					     r->name, line, c->name, cell);
			break;
		case ROLE_GAUGE:
			if (units_parse_size(cell, &v, NULL) == 0) {
				c->numeric_seen = true;
				break;
			}
			if (!c->numeric_seen) {
				/* Its first value is text: not a figure. */
				note("%s:%zu: column '%s' holds text ('" SHOW
				     "'); ignoring it",
				     r->name, line, c->name, cell);
				c->role = ROLE_IGNORED;
				continue;
			}
			return bad_size(r, line, c->name, cell, -1);
		case ROLE_FOOTPRINT:
			/* The coarsest precision of the readings is the
			 * series' resolution as stored. */
			if ((rc = units_parse_size(cell, &v, &q)) < 0)
				return bad_size(r, line, c->name, cell, rc);
			if (q > *quantum)
				*quantum = q;
			break;
		case ROLE_COMPONENT:
			if ((rc = units_parse_size(cell, &v, NULL)) < 0)
				return bad_size(r, line, c->name, cell, rc);
			break;
		case ROLE_IGNORED:
			break;
		}
		st->vals[i] = v;
	}
	return 0;
}

static void free_state(struct state *st)
{
	for (size_t i = 0; i < st->n_cols; i++)
		free(st->cols[i].name);
	free(st->cols);
	free(st->vals);
	free(st->r.buf);
	free(st->r.cells);
}

static int read_rows(struct state *st, struct series *s)
{
	struct reader *r = &st->r;
	char *rec;
	size_t line, prev_line = 0;
	int got;
	uint32_t cur = 0;
	double quantum = 0;

	while ((got = read_record(r, &rec, &line)) > 0) {
		if (skip_record(rec))
			continue;
		if (split_record(r, rec, st->sep, line) < 0)
			return -1;
		if (r->n_cells != st->n_cols)
			return error("%s:%zu: %zu cells, but the header (line "
				     "%zu) has %zu",
				     r->name, line, r->n_cells,
				     st->header_line, st->n_cols);
		int64_t pid;
		if (parse_row(st, line, &pid, &quantum) < 0)
			return -1;

		double t = st->vals[st->time_col];
		assert(!isnan(t));
		if (s->n > 0 && t < s->t[s->n - 1]) {
			char a[40], b[40];
			return error("%s:%zu: column '%s': time goes backwards "
				     "(%s, after %s on line %zu); rows must "
				     "be in time order",
				     r->name, line,
				     st->cols[st->time_col].name,
				     units_format_time(a, sizeof(a), t),
				     units_format_time(b, sizeof(b),
						       s->t[s->n - 1]),
				     prev_line);
		}

		double fp = st->vals[st->footprint_col];

		if (s->n_incs == 0)
			cur = series_add_incarnation(s, pid, 0, NAN, NULL,
						     NULL);
		else if (pid >= 0 && s->incs[cur].pid < 0)
			s->incs[cur].pid = pid;  /* first pid seen */
		else if (pid >= 0 && pid != s->incs[cur].pid)
			cur = series_add_incarnation(s, pid, 0, NAN, NULL,
						     NULL);

		size_t i = series_append(s, t, fp, cur);
		for (size_t k = 0; k < st->n_cols; k++) {
			double v = st->vals[k];
			if (isnan(v))
				continue;
			struct column *c = &st->cols[k];
			switch (c->role) {
			case ROLE_REQUESTS:
				series_set_requests(s, i, v);
				break;
			case ROLE_CONNECTIONS:
				series_set_connections(s, i, v);
				break;
			case ROLE_PRESSURE:
				series_set_pressure(s, i, v);
				break;
			case ROLE_COMPONENT:
				series_set_component(s, c->comp, i, v);
				break;
			case ROLE_GAUGE:
				/* series_set_gauge() finds a gauge by name;
				 * once it exists, write the slot directly so
				 * a row costs no string compares. */
				if (c->gauge == SIZE_MAX)
					c->gauge = series_add_gauge(s, c->name);
				series_set_gauge_at(s, c->gauge, i, v);
				break;
			default:
				break;
			}
		}
		prev_line = line;
	}
	if (got < 0)
		return -1;
	if (s->n == 0)
		return error("%s: no data rows after the header (line %zu)",
			     r->name, st->header_line);
	s->quantum = quantum;
	/* no pid column: a restart still shows as the counter's reset with
	 * the footprint's drop (counter.h) */
	counter_split_restarts(s);
	return 0;
}

int csv_read_stream(FILE *f, const char *name, struct dataset *out)
{
	assert(f && name && out);
	struct state st = {
		.r = {
			.f = f,
			.name = name,
			.cap = CHUNK,
			.next_line = 1,
		},
	};
	st.r.buf = xmalloc(st.r.cap);

	dataset_init(out, name);
	char *tname = target_name(name);
	struct series *s = dataset_add_target(out, tname);
	free(tname);

	int rc = read_header(&st);
	if (rc == 0)
		rc = read_rows(&st, s);
	free_state(&st);
	if (rc < 0)
		dataset_release(out);  /* nothing half-read escapes */
	return rc;
}

int csv_read_file(const char *path, struct dataset *out)
{
	assert(path && out);
	if (strcmp(path, "-") == 0)
		return csv_read_stream(stdin, "stdin", out);
	FILE *f = fopen(path, "r");
	if (!f) {
		memset(out, 0, sizeof(*out));
		return error("cannot open '%s': %s", path, strerror(errno));
	}
	int rc = csv_read_stream(f, path, out);
	fclose(f);
	return rc;
}
