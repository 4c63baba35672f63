/*
 * prometheus.c - the Prometheus HTTP API client (prometheus.h): requests
 * through http.c, retries, and a streaming reader of the API's JSON.
 *
 * The JSON is read by yajl's event parser as libcurl delivers it, never
 * held whole: a range query over thousands of series is hundreds of MB
 * of JSON in all, and a tree (jansson) would cost about five times the
 * text. The API's shape is fixed ({"status", "data": {"resultType",
 * "result": [{"metric": {...}, "values": [[t, "v"], ...]}]}, "warnings":
 * [...]}), so the callbacks follow it with a small stack of where they
 * are, skip what they do not know (any value, at any depth: yajl does
 * not recurse), and hand each series to the caller as soon as its object
 * closes. yajl does the lexing, the escapes and the UTF-8 checks; this
 * file only turns the API's numbers into doubles.
 *
 * A hostile or broken server (prometheus.h, "Bounds"): before yajl sees
 * a byte, a small scanner follows strings and bare tokens and refuses
 * one longer than PROM_TOKEN_MAX. yajl keeps a token cut by a feed's
 * edge and lexes it again from its start at every later feed (quadratic
 * in its length: an 8 MB string in libcurl's 16 KiB chunks cost a
 * second, 48 MB 36 s), so a token cut by a chunk's end is held back here
 * and handed to yajl once it ends: yajl re-reads it once at most.
 * A range query's points outside the asked range are left out, and a
 * series' points are sorted and kept once per time before they are
 * handed on, each counted (struct prom_tally).
 *
 * Retries: a transport failure (refused, reset, timed out) and a 5xx are
 * tried again after 0.5 s, 1 s, 2 s, ... (retries in all); a 4xx is the
 * request's fault and is not. A response over the bound is not retried
 * either: it would be as large again. A try that fails mid-response is
 * thrown away with its partial parse; the series it had already handed
 * on are not handed on again (the retry's first ones are checked to be
 * the same series, by a hash of their labels, and skipped).
 */
#include "prometheus.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_parse.h>

#include "common.h"
#include "http.h"

#define PARSE_STACK 8              /* the API's known nesting */

struct prom_client {
	struct http_client *http;
	struct prom_tally tally;   /* over every try of every call */
	char *base;                /* without a trailing '/' */
	char *authorization;
	double timeout_s;
	size_t body_max;
	int retries;
	void (*on_warning)(void *arg, const char *text);
	void *warning_arg;
};

/* ---- the parser ---------------------------------------------------------- */

/* Where the callbacks are: the containers of the API they know. */
enum ctx {
	CTX_TOP,        /* the response object */
	CTX_DATA,       /* "data" of a query: {"resultType", "result"} */
	CTX_LIST,       /* "data" of the series API: [{labels}, ...] */
	CTX_RESULT,     /* "result": [series, ...] */
	CTX_SERIES,     /* {"metric": ..., "values": ...} */
	CTX_LABELS,     /* {"name": "value", ...} */
	CTX_VALUES,     /* [[t, "v"], ...] */
	CTX_POINT,      /* [t, "v"] */
	CTX_WARNINGS,   /* ["text", ...] */
};

/* The key whose value comes next, in an object the callbacks know. */
enum key {
	KEY_OTHER,      /* skipped */
	KEY_STATUS, KEY_DATA, KEY_WARNINGS, KEY_ERROR, KEY_ERROR_TYPE,
	KEY_RESULT_TYPE, KEY_RESULT, KEY_METRIC, KEY_VALUES,
	KEY_LABEL,      /* a label's value (its name is in the arena) */
};

/* The series a request has handed on, over its tries: a retry skips
 * them (checked by the hash of their labels). */
struct prom_handed {
	uint64_t *hash;
	size_t n, cap;
};

struct prom_parser {
	yajl_handle y;
	const char *what;
	prom_series_fn fn;
	void *arg;
	void (*on_warning)(void *arg, const char *text);
	void *warning_arg;
	bool quiet;                /* an error response: read its message,
				      say nothing about its JSON */
	struct prom_handed *handed; /* NULL: no retries */
	size_t n_series;           /* series of this response so far */
	int rc;                    /* the first failure: -1 (a message
				      printed unless quiet), PROM_STOPPED;
				      -2 while a callback's refusal is to
				      be said as why[] says it */
	size_t fed;                /* bytes before the current chunk */
	char why[160];             /* what a callback found wrong */

	enum ctx stack[PARSE_STACK];
	int depth;                 /* entries in stack */
	enum key key;
	size_t skip;               /* > 0: inside a value skipped, at this
				      depth */
	int point_i;               /* elements of the current point */
	double point_t, point_v;

	char *arena;               /* labels of the current series:
				      name\0value\0... */
	size_t arena_len, arena_cap;
	size_t *offs;              /* start of each name and value */
	size_t n_offs, offs_cap;
	struct prom_label *labels;
	size_t labels_cap;
	double *t, *v;             /* points of the current series */
	size_t n, cap;

	/* A range query's grid (prom_parser_expect); max_points 0: none. */
	double lo, hi;             /* points outside are left out */
	size_t max_points;         /* the steps asked */
	double t_max;              /* the latest time of the current series */
	bool unordered;            /* its points are not strictly increasing */
	struct prom_tally cur;     /* the current series' */
	struct prom_tally tally;   /* the series handed on */

	/* The scanner ahead of yajl (tokens' lengths), and the token cut
	 * by a chunk's end, held back from yajl until it ends. */
	bool in_string, escaped;
	size_t token_len;          /* of the string or bare token open */
	size_t scanned;            /* bytes scanned */
	char *pending;             /* at most PROM_TOKEN_MAX + 1 bytes */
	size_t pending_len, pending_cap;

	char status[16];
	char *error_msg, *error_type;
	char head[128];            /* the body's first bytes, for an error
				      page that is not the API's JSON */
	size_t head_len;
};

/* A callback's refusal: the JSON is valid but not the API's. */
static int refuse(struct prom_parser *ps, const char *why)
{
	if (!ps->why[0])
		snprintf(ps->why, sizeof(ps->why), "%s", why);
	return 0;  /* yajl stops with yajl_status_client_canceled */
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Whether p[0..8) are all digits, and their value: eight at a time in
 * one word (little-endian only), the integer values' and timestamps'
 * common case. */
static inline bool eight_digits(const char *p, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, 8);
	if (((v & 0xF0F0F0F0F0F0F0F0ull) |
	     (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
	    0x3333333333333333ull)
		return false;
	v = ((v & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
	v = ((v & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
	*out = ((v & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
	return true;
#else
	(void)p, (void)out;
	return false;
#endif
}

/* The number in [p, end), all of it: 0, or -1 when it is not one. The
 * fast path takes digits with an optional fraction: an integer mantissa
 * below 2^53 divided by an exact power of ten is correctly rounded, so
 * the result is strtod()'s. Anything else (exponents, "NaN", "+Inf",
 * long mantissas) goes to strtod() on a copy. */
static int number(const char *p, const char *end, double *out)
{
	const char *q = p;
	bool neg = false;
	if (q < end && (*q == '-' || *q == '+')) {
		neg = *q == '-';
		q++;
	}
	uint64_t m = 0, eight;
	int digits = 0, frac = 0;
	if (end - q >= 8 && eight_digits(q, &eight)) {
		m = eight;
		q += 8;
		digits = 8;
	}
	while (q < end && *q >= '0' && *q <= '9' && digits < 16) {
		m = m * 10 + (uint64_t)(*q++ - '0');
		digits++;
	}
	if (q < end && *q == '.') {
		q++;
		while (q < end && *q >= '0' && *q <= '9' && digits < 16) {
			m = m * 10 + (uint64_t)(*q++ - '0');
			digits++;
			frac++;
		}
	}
	if (q == end && digits > 0 && digits <= 15) {
		double v = frac ? (double)m / pow10_exact[frac] : (double)m;
		*out = neg ? -v : v;
		return 0;
	}
	char b[64];
	size_t n = (size_t)(end - p);
	if (n == 0 || n >= sizeof(b) || memchr(p, '\0', n))
		return -1;
	memcpy(b, p, n);
	b[n] = '\0';
	char *e;
	*out = strtod(b, &e);
	return e == b + n ? 0 : -1;
}

static uint64_t labels_hash(const struct prom_parser *ps)
{
	uint64_t h = 14695981039346656037ull;  /* FNV-1a */
	for (size_t i = 0; i < ps->arena_len; i++)
		h = (h ^ (unsigned char)ps->arena[i]) * 1099511628211ull;
	return h;
}

void prom_tally_add(struct prom_tally *a, const struct prom_tally *b)
{
	a->out_of_range += b->out_of_range;
	a->disordered += b->disordered;
	a->duplicates += b->duplicates;
}

/* Indexes by time; equal times in the order read (the first kept). */
static int cmp_time(const void *a, const void *b, void *arg)
{
	const double *t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (t[x] != t[y])
		return t[x] < t[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* The current series' points sorted by time, each time once: the first
 * read kept, the others counted. O(n log n); only for a series that did
 * not come in order, or that reached twice the steps asked. */
static void normalize(struct prom_parser *ps)
{
	size_t n = ps->n;
	if (n == 0)
		return;
	size_t *idx = xmalloc(n * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_time, ps->t);
	double *t = xmalloc(n * sizeof(*t)), *v = xmalloc(n * sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		double ti = ps->t[idx[i]];
		if (m && ti == t[m - 1]) {
			ps->cur.duplicates++;
			continue;
		}
		t[m] = ti;
		v[m++] = ps->v[idx[i]];
	}
	free(idx);
	free(ps->t);
	free(ps->v);
	ps->t = t;
	ps->v = v;
	ps->cap = n;
	ps->n = m;
	ps->unordered = false;
}

/* A series with more distinct times than the steps asked: refused (a
 * server that does not evaluate at the steps; memory is bounded by
 * them). */
static int too_many_points(struct prom_parser *ps)
{
	if (!ps->why[0])
		snprintf(ps->why, sizeof(ps->why), "a series has more than "
			 "%zu points in the %zu steps asked (its times are off "
			 "the step)", ps->max_points, ps->max_points);
	ps->rc = -2;  /* said as it is */
	return 0;
}

static int emit(struct prom_parser *ps)
{
	if (ps->unordered)
		normalize(ps);
	if (ps->max_points && ps->n > ps->max_points)
		return too_many_points(ps);
	size_t k = ps->n_series++;
	struct prom_handed *hd = ps->handed;
	if (hd) {
		uint64_t h = labels_hash(ps);
		if (k < hd->n) {
			if (hd->hash[k] != h) {
				ps->rc = -2;  /* said as it is */
				return refuse(ps, "the response changed "
					      "between tries (the series "
					      "differ)");
			}
			return 1;  /* handed on by a failed try */
		}
		xgrow((void **)&hd->hash, &hd->cap, hd->n + 1,
		      sizeof(*hd->hash));
		hd->hash[hd->n++] = h;
	}
	size_t nl = ps->n_offs / 2;
	xgrow((void **)&ps->labels, &ps->labels_cap, nl + 1,
	      sizeof(*ps->labels));
	for (size_t i = 0; i < nl; i++) {
		ps->labels[i].name = ps->arena + ps->offs[2 * i];
		ps->labels[i].value = ps->arena + ps->offs[2 * i + 1];
	}
	prom_tally_add(&ps->tally, &ps->cur);
	if (ps->fn && ps->fn(ps->arg, ps->labels, nl, ps->t, ps->v, ps->n)) {
		ps->rc = PROM_STOPPED;
		return 0;
	}
	return 1;
}

static void reset_series(struct prom_parser *ps)
{
	ps->arena_len = 0;
	ps->n_offs = 0;
	ps->n = 0;
	ps->unordered = false;
	ps->t_max = -INFINITY;
	memset(&ps->cur, 0, sizeof(ps->cur));
}

/* A label's name or value into the arena: 1, or 0 (refused) when the
 * series' labels would pass PROM_LABELS_MAX. */
static int arena_put(struct prom_parser *ps, const unsigned char *s,
		     size_t len)
{
	if (ps->arena_len + len + 1 > PROM_LABELS_MAX) {
		char b[80];
		snprintf(b, sizeof(b), "a series' labels are longer than %u "
			 "KiB in all", PROM_LABELS_MAX >> 10);
		return refuse(ps, b);
	}
	xgrow((void **)&ps->arena, &ps->arena_cap, ps->arena_len + len + 1, 1);
	memcpy(ps->arena + ps->arena_len, s, len);
	ps->arena[ps->arena_len + len] = '\0';
	xgrow((void **)&ps->offs, &ps->offs_cap, ps->n_offs + 1,
	      sizeof(*ps->offs));
	ps->offs[ps->n_offs++] = ps->arena_len;
	ps->arena_len += len + 1;
	return 1;
}

static char *dup_n(const unsigned char *s, size_t len)
{
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static int push(struct prom_parser *ps, enum ctx c)
{
	assert(ps->depth < PARSE_STACK);
	ps->stack[ps->depth++] = c;
	ps->key = KEY_OTHER;
	return 1;
}

static enum ctx top(const struct prom_parser *ps)
{
	return ps->stack[ps->depth - 1];
}

/* A scalar or container where the callbacks expect none of their own:
 * skipped when its key is unknown, refused otherwise. Containers open
 * a skip. */
static int other(struct prom_parser *ps, bool container)
{
	if (ps->depth > 0 && (top(ps) == CTX_TOP || top(ps) == CTX_DATA ||
			      top(ps) == CTX_SERIES) &&
	    ps->key == KEY_OTHER) {
		if (container)
			ps->skip = 1;
		return 1;
	}
	return refuse(ps, "an unexpected value");
}

static int on_null(void *arg)
{
	struct prom_parser *ps = arg;
	return ps->skip ? 1 : other(ps, false);
}

static int on_boolean(void *arg, int b)
{
	(void)b;
	return on_null(arg);
}

static int on_number(void *arg, const char *s, size_t len)
{
	struct prom_parser *ps = arg;
	if (ps->skip)
		return 1;
	if (ps->depth > 0 && top(ps) == CTX_POINT) {
		if (ps->point_i++ != 0)
			return refuse(ps, "a point is not [time, \"value\"]");
		if (number(s, s + len, &ps->point_t))
			return refuse(ps, "a point's time is not a number");
		return 1;
	}
	return other(ps, false);
}

static int on_string(void *arg, const unsigned char *s, size_t len)
{
	struct prom_parser *ps = arg;
	if (ps->skip)
		return 1;
	if (ps->depth == 0)
		return refuse(ps, "not an object");
	switch (top(ps)) {
	case CTX_POINT:
		if (ps->point_i++ != 1)
			return refuse(ps, "a point is not [time, \"value\"]");
		if (number((const char *)s, (const char *)s + len,
			   &ps->point_v))
			return refuse(ps, "a point's value is not a number");
		return 1;
	case CTX_LABELS:
		return arena_put(ps, s, len);
	case CTX_WARNINGS: {
		char *w = dup_n(s, len);
		if (ps->on_warning)
			ps->on_warning(ps->warning_arg, w);
		else
			warning("%s: %s", ps->what, w);
		free(w);
		return 1;
	}
	case CTX_TOP:
		switch (ps->key) {
		case KEY_STATUS:
			snprintf(ps->status, sizeof(ps->status), "%.*s",
				 (int)(len < 15 ? len : 15), (const char *)s);
			return 1;
		case KEY_ERROR:
			free(ps->error_msg);
			ps->error_msg = dup_n(s, len);
			return 1;
		case KEY_ERROR_TYPE:
			free(ps->error_type);
			ps->error_type = dup_n(s, len);
			return 1;
		default:
			return other(ps, false);
		}
	case CTX_DATA:
		if (ps->key == KEY_RESULT_TYPE) {
			if (len == 6 && !memcmp(s, "matrix", 6))
				return 1;
			char b[sizeof(ps->why)];
			snprintf(b, sizeof(b), "the result is a %.*s, not a "
				 "range of series", (int)(len < 40 ? len : 40),
				 (const char *)s);
			if (!ps->why[0])
				snprintf(ps->why, sizeof(ps->why), "%s", b);
			ps->rc = -2;  /* said as it is, not as a syntax error */
			return 0;
		}
		return other(ps, false);
	default:
		return other(ps, false);
	}
}

static int on_start_map(void *arg)
{
	struct prom_parser *ps = arg;
	if (ps->skip) {
		ps->skip++;
		return 1;
	}
	if (ps->depth == 0)
		return push(ps, CTX_TOP);
	switch (top(ps)) {
	case CTX_TOP:
		if (ps->key == KEY_DATA)
			return push(ps, CTX_DATA);
		return other(ps, true);
	case CTX_LIST:
		reset_series(ps);
		return push(ps, CTX_LABELS);
	case CTX_RESULT:
		reset_series(ps);
		return push(ps, CTX_SERIES);
	case CTX_SERIES:
		if (ps->key == KEY_METRIC)
			return push(ps, CTX_LABELS);
		return other(ps, true);
	default:
		return other(ps, true);
	}
}

static int on_map_key(void *arg, const unsigned char *s, size_t len)
{
	struct prom_parser *ps = arg;
	if (ps->skip)
		return 1;
	static const struct {
		enum ctx ctx;
		const char *name;
		enum key key;
	} keys[] = {
		{CTX_TOP, "status", KEY_STATUS}, {CTX_TOP, "data", KEY_DATA},
		{CTX_TOP, "warnings", KEY_WARNINGS},
		{CTX_TOP, "error", KEY_ERROR},
		{CTX_TOP, "errorType", KEY_ERROR_TYPE},
		{CTX_DATA, "resultType", KEY_RESULT_TYPE},
		{CTX_DATA, "result", KEY_RESULT},
		{CTX_SERIES, "metric", KEY_METRIC},
		{CTX_SERIES, "values", KEY_VALUES},
	};
	enum ctx c = top(ps);
	if (c == CTX_LABELS) {
		ps->key = KEY_LABEL;
		return arena_put(ps, s, len);
	}
	ps->key = KEY_OTHER;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].ctx == c && strlen(keys[i].name) == len &&
		    !memcmp(keys[i].name, s, len)) {
			ps->key = keys[i].key;
			break;
		}
	return 1;
}

static int on_end_map(void *arg)
{
	struct prom_parser *ps = arg;
	if (ps->skip) {
		ps->skip--;
		return 1;
	}
	enum ctx c = top(ps);
	ps->depth--;
	ps->key = KEY_OTHER;
	if (c == CTX_LABELS && ps->n_offs % 2)
		return refuse(ps, "a label without a value");
	if (c == CTX_SERIES || (c == CTX_LABELS && ps->depth > 0 &&
				top(ps) == CTX_LIST))
		return emit(ps);
	return 1;
}

static int on_start_array(void *arg)
{
	struct prom_parser *ps = arg;
	if (ps->skip) {
		ps->skip++;
		return 1;
	}
	if (ps->depth == 0)
		return refuse(ps, "not an object");
	switch (top(ps)) {
	case CTX_TOP:
		if (ps->key == KEY_DATA)
			return push(ps, CTX_LIST);
		if (ps->key == KEY_WARNINGS)
			return push(ps, CTX_WARNINGS);
		return other(ps, true);
	case CTX_DATA:
		if (ps->key == KEY_RESULT)
			return push(ps, CTX_RESULT);
		return other(ps, true);
	case CTX_SERIES:
		if (ps->key == KEY_VALUES)
			return push(ps, CTX_VALUES);
		return other(ps, true);
	case CTX_VALUES:
		ps->point_i = 0;
		return push(ps, CTX_POINT);
	default:
		return other(ps, true);
	}
}

static int on_end_array(void *arg)
{
	struct prom_parser *ps = arg;
	if (ps->skip) {
		ps->skip--;
		return 1;
	}
	enum ctx c = top(ps);
	ps->depth--;
	ps->key = KEY_OTHER;
	if (c != CTX_POINT)
		return 1;
	if (ps->point_i != 2)
		return refuse(ps, "a point is not [time, \"value\"]");
	double t = ps->point_t, v = ps->point_v;
	if (!isfinite(v) || !isfinite(t))
		return 1;  /* NaN (a stale marker too), +Inf: a gap */
	if (ps->max_points) {
		if (t < ps->lo || t > ps->hi) {
			ps->cur.out_of_range++;
			return 1;
		}
		/* Twice the steps: repeats go, and what is left must fit
		 * the steps; so memory is bounded, and sorting amortised. */
		if (ps->n == 2 * ps->max_points) {
			normalize(ps);
			if (ps->n > ps->max_points)
				return too_many_points(ps);
		}
	}
	if (ps->n && t <= ps->t_max) {
		ps->unordered = true;
		if (t < ps->t_max)
			ps->cur.disordered++;
	} else {
		ps->t_max = t;
	}
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 1024;
		ps->t = xrealloc(ps->t, ps->cap * sizeof(double));
		ps->v = xrealloc(ps->v, ps->cap * sizeof(double));
	}
	ps->t[ps->n] = t;
	ps->v[ps->n] = v;
	ps->n++;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,  /* the raw text: no integer or double
				      callback is called */
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

static struct prom_parser *parser_new(const char *what, prom_series_fn fn,
				      void *arg,
				      void (*on_warning)(void *, const char *),
				      void *warning_arg, bool quiet,
				      struct prom_handed *handed)
{
	struct prom_parser *ps = xcalloc(1, sizeof(*ps));
	ps->what = what;
	ps->fn = fn;
	ps->arg = arg;
	ps->on_warning = on_warning;
	ps->warning_arg = warning_arg;
	ps->quiet = quiet;
	ps->handed = handed;
	reset_series(ps);
	ps->y = yajl_alloc(&callbacks, NULL, ps);
	if (!ps->y) {
		error("out of memory");
		abort();
	}
	return ps;
}

struct prom_parser *prom_parser_new(const char *what, prom_series_fn fn,
				    void *arg,
				    void (*on_warning)(void *, const char *),
				    void *warning_arg)
{
	assert(what);
	return parser_new(what, fn, arg, on_warning, warning_arg, false,
			  NULL);
}

void prom_parser_expect(struct prom_parser *ps, double start, double end,
			double step)
{
	assert(ps->fed == 0 && ps->pending_len == 0);
	assert(step > 0 && end >= start);
	/* The form carries times to the millisecond (%.3f). */
	double tol = 1e-3 + step * 1e-6;
	double steps = floor((end - start) / step + 1e-9) + 1;
	ps->lo = start - tol;
	ps->hi = end + tol;
	ps->max_points = steps < 1e12 ? (size_t)steps : (size_t)1e12;
}

const struct prom_tally *prom_parser_tally(const struct prom_parser *ps)
{
	return &ps->tally;
}

void prom_parser_free(struct prom_parser *ps)
{
	if (!ps)
		return;
	yajl_free(ps->y);
	free(ps->pending);
	free(ps->arena);
	free(ps->offs);
	free(ps->labels);
	free(ps->t);
	free(ps->v);
	free(ps->error_msg);
	free(ps->error_type);
	free(ps);
}

/* After yajl stopped: the message, once; the parser's result. */
static int failed(struct prom_parser *ps, yajl_status st,
		  const unsigned char *chunk, size_t len)
{
	if (ps->rc == PROM_STOPPED)
		return ps->rc;
	size_t at = ps->fed + yajl_get_bytes_consumed(ps->y);
	if (!ps->quiet) {
		if (ps->rc == -2) {
			error("%s: %s", ps->what, ps->why);
		} else if (st == yajl_status_client_canceled) {
			error("%s: the response is not the Prometheus API's "
			      "JSON (at byte %zu: %s)", ps->what, at,
			      ps->why[0] ? ps->why : "refused");
		} else {
			unsigned char *m = yajl_get_error(ps->y, 0, chunk, len);
			char *nl = m ? strchr((char *)m, '\n') : NULL;
			if (nl)
				*nl = '\0';
			error("%s: the response is not the Prometheus API's "
			      "JSON (at byte %zu: %s)", ps->what, at,
			      m ? (char *)m : "invalid");
			if (m)
				yajl_free_error(ps->y, m);
		}
	}
	ps->rc = -1;
	return ps->rc;
}

/* Bytes that end a bare token (a number, true, false, null): JSON's
 * structural characters, whitespace and the quote. */
static const bool token_end[256] = {
	[' '] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true,
	['{'] = true, ['}'] = true, ['['] = true, [']'] = true,
	[','] = true, [':'] = true, ['"'] = true,
};

/* The offset of the first '"' or '\\' in p[i..len), or len: eight
 * bytes at a time (the bytes between them are most of a response). */
static size_t next_quote(const unsigned char *p, size_t i, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		uint64_t a = w ^ (ones * '"'), b = w ^ (ones * '\\');
		/* the lowest flagged byte is exact (borrows run upwards) */
		uint64_t m = ((a - ones) & ~a & highs) |
			     ((b - ones) & ~b & highs);
		if (m)
			return i + (size_t)__builtin_ctzll(m) / 8;
	}
#endif
	for (; i < len; i++)
		if (p[i] == '"' || p[i] == '\\')
			return i;
	return len;
}

/* The scanner ahead of yajl: how many of p[0..len) come before a string,
 * or a bare token cut by a chunk's end, grows past PROM_TOKEN_MAX (len
 * when none does), and in *open_at where the token still open at p's
 * end began (SIZE_MAX: before p; len: none is open). It follows strings
 * (quotes, backslash escapes) across calls and checks nothing else: yajl
 * does. A long bare token inside one chunk costs yajl linear time and no
 * memory, and the callbacks refuse a number that long. */
static size_t scan(struct prom_parser *ps, const unsigned char *p,
		   size_t len, size_t *open_at)
{
	size_t i = 0;
	size_t from = 0, carried = 0;  /* the open string: its length at
					  offset x is x - from + carried */
	size_t start = SIZE_MAX;       /* where it began; SIZE_MAX: before p */
	bool in_string = ps->in_string;
	if (in_string) {
		carried = ps->token_len;
		if (ps->escaped && len) {
			i = 1;  /* the escaped byte */
			ps->escaped = false;
		}
	} else if (ps->token_len) {
		/* A bare token cut by the last chunk's end: where it ends. */
		size_t e = 0;
		while (e < len && !token_end[p[e]])
			e++;
		if (ps->token_len + e > PROM_TOKEN_MAX) {
			i = PROM_TOKEN_MAX - ps->token_len;
			goto too_long;
		}
	}
	while (i < len) {
		size_t q = next_quote(p, i, len);
		if (q == len)
			break;
		if (!in_string) {
			if (p[q] == '"') {
				in_string = true;
				start = q;
				from = q + 1;
				carried = 0;
			}
			i = q + 1;  /* a backslash outside a string: yajl's */
			continue;
		}
		if (p[q] == '\\') {
			if (q + 1 == len) {
				ps->escaped = true;
				i = len;
				break;
			}
			i = q + 2;
			continue;
		}
		if (q - from + carried > PROM_TOKEN_MAX) {
			i = from + (PROM_TOKEN_MAX - carried);
			goto too_long;
		}
		in_string = false;
		i = q + 1;
	}
	ps->in_string = in_string;
	if (in_string) {
		size_t tl = len - from + carried;
		if (tl > PROM_TOKEN_MAX) {
			i = from + (PROM_TOKEN_MAX - carried);
			goto too_long;
		}
		ps->token_len = tl;
		*open_at = start;
	} else {
		/* A bare token at the end: back to what ends one. */
		size_t r = 0;
		while (r < len && !token_end[p[len - 1 - r]])
			r++;
		size_t tl = r == len ? ps->token_len + len : r;
		if (tl > PROM_TOKEN_MAX) {
			i = len - (tl - PROM_TOKEN_MAX);
			goto too_long;
		}
		ps->token_len = tl;
		*open_at = tl == 0 ? len : r == len ? SIZE_MAX : len - r;
	}
	ps->scanned += len;
	return len;
too_long:
	ps->scanned += i;
	*open_at = len;
	return i;
}

/* n bytes to yajl: 0, or the parser's failure (said). */
static int yajl_feed(struct prom_parser *ps, const unsigned char *d,
		     size_t n)
{
	if (n == 0)
		return 0;
	yajl_status st = yajl_parse(ps->y, d, n);
	if (st != yajl_status_ok) {
		failed(ps, st, d, n);
		return ps->rc == PROM_STOPPED ? PROM_STOPPED : PROM_FAILED;
	}
	ps->fed += n;
	return 0;
}

/* The token held back, to yajl (which keeps it, if still cut, until the
 * next feed completes it: once). */
static int flush_pending(struct prom_parser *ps)
{
	size_t n = ps->pending_len;
	ps->pending_len = 0;
	return yajl_feed(ps, (const unsigned char *)ps->pending, n);
}

static void hold(struct prom_parser *ps, const void *d, size_t n)
{
	assert(ps->pending_len + n <= PROM_TOKEN_MAX + 1);
	xgrow((void **)&ps->pending, &ps->pending_cap, ps->pending_len + n + 1,
	      1);
	memcpy(ps->pending + ps->pending_len, d, n);
	ps->pending_len += n;
}

int prom_parser_feed(struct prom_parser *ps, const void *data, size_t len)
{
	if (ps->rc)
		return ps->rc == PROM_STOPPED ? PROM_STOPPED : PROM_FAILED;
	if (ps->head_len < sizeof(ps->head) - 1) {
		size_t k = sizeof(ps->head) - 1 - ps->head_len;
		if (k > len)
			k = len;
		memcpy(ps->head + ps->head_len, data, k);
		ps->head_len += k;
		ps->head[ps->head_len] = '\0';
	}
	const unsigned char *d = data;
	size_t open_at;
	size_t ok = scan(ps, d, len, &open_at);
	if (ok < len) {
		/* What came before is yajl's to judge first: its message,
		 * if it finds one, is the better one. */
		int rc = flush_pending(ps);
		if (!rc)
			rc = yajl_feed(ps, d, ok);
		if (!rc) {
			if (!ps->quiet)
				error("%s: the response is not the Prometheus "
				      "API's JSON (at byte %zu: a string or "
				      "number longer than %u KiB, the bound "
				      "on a label value)", ps->what,
				      ps->scanned, PROM_TOKEN_MAX >> 10);
			ps->rc = -1;
			rc = PROM_FAILED;
		}
		return rc;
	}
	/* yajl gets whole tokens: one cut by the chunk's end is held back
	 * until it ends (yajl would lex it again from its start at every
	 * chunk). */
	if (open_at == SIZE_MAX) {
		hold(ps, d, len);  /* all of it inside the token held */
		return 0;
	}
	int rc = flush_pending(ps);
	if (!rc)
		rc = yajl_feed(ps, d, open_at);
	if (!rc)
		hold(ps, d + open_at, len - open_at);
	return rc;
}

/* The end of the body: -1 (not the API's JSON, said unless quiet),
 * PROM_STOPPED, or 0 with the status and error fields filled in. */
static int parser_end(struct prom_parser *ps)
{
	if (ps->rc)
		return ps->rc;
	if (flush_pending(ps))
		return ps->rc;
	yajl_status st = ps->fed ? yajl_complete_parse(ps->y) :
			 yajl_status_ok;
	if (st != yajl_status_ok)
		return failed(ps, st, NULL, 0);
	if (ps->fed == 0 || !ps->status[0]) {
		if (!ps->quiet)
			error("%s: the response is not the Prometheus API's "
			      "JSON (%s)", ps->what, ps->fed ? "no status" :
			      "empty");
		return ps->rc = -1;
	}
	return 0;
}

int prom_parser_finish(struct prom_parser *ps)
{
	int rc = parser_end(ps);
	if (rc == PROM_STOPPED)
		return rc;
	if (rc)
		return PROM_FAILED;
	if (strcmp(ps->status, "success")) {
		error("%s: Prometheus says: %s%s%s%s", ps->what,
		      ps->error_msg ? ps->error_msg : "(no message)",
		      ps->error_type ? " (" : "",
		      ps->error_type ? ps->error_type : "",
		      ps->error_type ? ")" : "");
		return PROM_BAD_QUERY;
	}
	return PROM_OK;
}

int prom_parse_response(const char *body, size_t len, const char *what,
			prom_series_fn fn, void *arg,
			void (*on_warning)(void *, const char *),
			void *warning_arg)
{
	struct prom_parser *ps = prom_parser_new(what, fn, arg, on_warning,
						 warning_arg);
	int rc = prom_parser_feed(ps, body, len);
	if (!rc)
		rc = prom_parser_finish(ps);
	prom_parser_free(ps);
	return rc;
}

/* ---- the client ---------------------------------------------------------- */

struct prom_client *prom_client_new(const struct prom_config *cfg)
{
	assert(cfg && cfg->url && cfg->timeout_s > 0 && cfg->body_max > 0);
	if (strncmp(cfg->url, "http://", 7) && strncmp(cfg->url, "https://", 8)) {
		char shown[512];
		error("--prometheus: '%s' is not an http:// or https:// URL",
		      http_url_redacted(shown, sizeof(shown), cfg->url, NULL));
		return NULL;
	}
	struct http_client *h = http_client_new(fmin(cfg->timeout_s, 10),
						cfg->timeout_s, true);
	if (!h)
		return NULL;
	struct prom_client *c = xcalloc(1, sizeof(*c));
	c->http = h;
	c->base = xstrdup(cfg->url);
	size_t n = strlen(c->base);
	while (n > 0 && c->base[n - 1] == '/')
		c->base[--n] = '\0';
	c->authorization = cfg->authorization ?
			   xstrdup(cfg->authorization) : NULL;
	c->timeout_s = cfg->timeout_s;
	c->body_max = cfg->body_max;
	c->retries = cfg->retries;
	c->on_warning = cfg->on_warning;
	c->warning_arg = cfg->warning_arg;
	return c;
}

void prom_client_free(struct prom_client *c)
{
	if (!c)
		return;
	http_client_free(c->http);
	free(c->base);
	if (c->authorization) {
		memset(c->authorization, 0, strlen(c->authorization));
		free(c->authorization);
	}
	free(c);
}

/* Loopback: gzip would cost the server more than it saves. */
static bool is_loopback(const char *url)
{
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	return !strncmp(h, "127.", 4) || !strncmp(h, "localhost", 9) ||
	       !strncmp(h, "[::1]", 5);
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (nanosleep(&ts, &ts))
		;
}

/* One try of a request: the parser is made when the first byte comes,
 * as the status says (2xx: the series; else: the error message only). */
struct attempt {
	struct prom_client *c;
	const char *what;
	prom_series_fn fn;
	void *arg;
	struct prom_handed *handed;
	const double *grid;        /* start, end, step of a range query;
				      NULL */
	struct prom_parser *ps;
	long status;
};

static void attempt_begin(struct attempt *a, long status)
{
	bool ok = status >= 200 && status < 300;
	a->status = status;
	a->ps = parser_new(a->what, ok ? a->fn : NULL, a->arg,
			   a->c->on_warning, a->c->warning_arg, !ok,
			   ok ? a->handed : NULL);
	if (a->grid)
		prom_parser_expect(a->ps, a->grid[0], a->grid[1], a->grid[2]);
}

/* The try's parser gone, what its series brought counted. */
static void attempt_end(struct attempt *a)
{
	if (!a->ps)
		return;
	prom_tally_add(&a->c->tally, &a->ps->tally);
	prom_parser_free(a->ps);
	a->ps = NULL;
}

static int on_chunk(void *arg, long status, const char *data, size_t len)
{
	struct attempt *a = arg;
	if (!a->ps)
		attempt_begin(a, status);
	int rc = prom_parser_feed(a->ps, data, len);
	/* An error page that is not JSON is read to its end quietly. */
	return a->ps->quiet ? 0 : rc;
}

/* The message of an error response: the API's, else the body's start. */
static void error_message(struct prom_parser *ps, char *msg, size_t size)
{
	if (parser_end(ps) == 0 && ps->error_msg)
		snprintf(msg, size, "%s%s%s%s", ps->error_msg,
			 ps->error_type ? " (" : "",
			 ps->error_type ? ps->error_type : "",
			 ps->error_type ? ")" : "");
	else
		snprintf(msg, size, "%.120s", ps->head);
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

const struct prom_tally *prom_client_tally(const struct prom_client *c)
{
	return &c->tally;
}

/* POST form to path; parse a 2xx response with fn as it streams in;
 * grid: start, end and step of a range query, or NULL. */
static int request(struct prom_client *c, const char *path, const char *form,
		   const char *what, const double *grid, prom_series_fn fn,
		   void *arg)
{
	size_t ulen = strlen(c->base) + strlen(path) + 1;
	char *url = xmalloc(ulen);
	snprintf(url, ulen, "%s%s", c->base, path);
	struct http_request r = {
		.url = url, .form = form, .authorization = c->authorization,
		.body_max = c->body_max, .no_compression = is_loopback(url),
	};
	struct prom_handed handed = {0};
	char err[256], last[320] = "";
	int rc = PROM_FAILED;
	int tries = c->retries + 1;
	for (int k = 0; k < tries; k++) {
		if (k)
			sleep_s(0.5 * (double)(1 << (k - 1 < 6 ? k - 1 : 6)));
		struct attempt a = {.c = c, .what = what, .fn = fn, .arg = arg,
				    .handed = &handed, .grid = grid};
		long status = 0;
		int h = http_request_stream(c->http, &r, on_chunk, &a, &status,
					    err, sizeof(err));
		if (h == -3) {
			/* The parser refused the JSON or fn stopped. */
			rc = prom_parser_finish(a.ps);
			attempt_end(&a);
			goto out;
		}
		if (h == -2) {
			attempt_end(&a);
			error("%s: the response is larger than %zu MiB, the "
			      "bound on one response: %s", what,
			      c->body_max >> 20, err);
			rc = PROM_TOO_LARGE;
			goto out;
		}
		if (h) {
			/* Mid-response, maybe: the partial parse goes; the
			 * series it handed on stay in `handed`. */
			attempt_end(&a);
			snprintf(last, sizeof(last), "%s", err);
			continue;
		}
		if (!a.ps)
			attempt_begin(&a, status);  /* an empty body */
		if (status >= 200 && status < 300) {
			rc = prom_parser_finish(a.ps);
			attempt_end(&a);
			goto out;
		}
		char msg[200];
		error_message(a.ps, msg, sizeof(msg));
		attempt_end(&a);
		for (size_t l = strlen(msg); l && msg[l - 1] == ' '; l--)
			msg[l - 1] = '\0';
		if (status == 404 || status == 405) {
			/* Not Prometheus' API there: a page of its UI, an
			 * exporter's /metrics, a path after the base URL */
			char shown[512];
			error("%s: HTTP %ld from %s: %s (is --prometheus the "
			      "base URL of a Prometheus server, e.g. "
			      "http://127.0.0.1:9090?)", what, status,
			      http_url_redacted(shown, sizeof(shown), url,
						NULL), msg);
			rc = PROM_BAD_QUERY;
			goto out;
		}
		if (status < 500) {
			error("%s: Prometheus says (HTTP %ld): %s", what,
			      status, msg);
			rc = PROM_BAD_QUERY;
			goto out;
		}
		snprintf(last, sizeof(last), "HTTP %ld: %s", status, msg);
	}
	error("%s: %s (%d tries)", what, last, tries);
	rc = PROM_FAILED;
out:
	free(handed.hash);
	free(url);
	return rc;
}

int prom_series(struct prom_client *c, const char *selector, double start,
		double end, prom_series_fn fn, void *arg)
{
	char *q = http_escape(selector);
	size_t n = strlen(q) + 128;
	char *form = xmalloc(n);
	snprintf(form, n, "match%%5B%%5D=%s&start=%.3f&end=%.3f", q, start,
		 end);
	free(q);
	int rc = request(c, "/api/v1/series", form, "/api/v1/series", NULL,
			 fn, arg);
	free(form);
	return rc;
}

int prom_query_range(struct prom_client *c, const char *query, double start,
		     double end, double step, prom_series_fn fn, void *arg)
{
	char *q = http_escape(query);
	size_t n = strlen(q) + 160;
	char *form = xmalloc(n);
	snprintf(form, n, "query=%s&start=%.3f&end=%.3f&step=%.3f"
		 "&timeout=%.0fs", q, start, end, step, ceil(c->timeout_s));
	free(q);
	const double grid[3] = {start, end, step};
	int rc = request(c, "/api/v1/query_range", form,
			 "/api/v1/query_range", grid, fn, arg);
	free(form);
	return rc;
}

/* ---- selectors ----------------------------------------------------------- */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (!first && c >= '0' && c <= '9');
}

/* The braces of a selector: [*open, *close] or both NULL; -1 when q is
 * not a selector. */
static int selector_braces(const char *q, const char **open,
			   const char **close)
{
	const char *p = q;
	*open = *close = NULL;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	bool named = false;
	if (name_char(*p, true)) {
		named = true;
		while (name_char(*p, false))
			p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p == '{') {
		*open = p++;
		char quote = 0;
		for (; *p; p++) {
			if (quote) {
				if (*p == '\\' && quote != '`' && p[1])
					p++;
				else if (*p == quote)
					quote = 0;
			} else if (*p == '"' || *p == '\'' || *p == '`') {
				quote = *p;
			} else if (*p == '}') {
				break;
			} else if (*p == '{') {
				return -1;
			}
		}
		if (*p != '}')
			return -1;
		*close = p++;
	} else if (!named) {
		return -1;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p ? -1 : 0;
}

int prom_is_selector(const char *query)
{
	const char *o, *c;
	return selector_braces(query, &o, &c) == 0;
}

char *prom_selector_add(const char *query, const char *extra)
{
	const char *o, *c;
	int rc = selector_braces(query, &o, &c);
	assert(rc == 0);
	(void)rc;
	size_t n = strlen(query) + strlen(extra) + 8;
	char *out = xmalloc(n);
	if (!o) {
		size_t len = strlen(query);
		while (len && strchr(" \t\n", query[len - 1]))
			len--;
		snprintf(out, n, "%.*s{%s}", (int)len, query, extra);
		return out;
	}
	bool empty = true;
	for (const char *p = o + 1; p < c; p++)
		if (!strchr(" \t\n,", *p))
			empty = false;
	/* A trailing comma inside the braces is allowed; do not double it. */
	const char *last = c;
	while (last > o + 1 && strchr(" \t\n", last[-1]))
		last--;
	bool comma = last > o + 1 && last[-1] == ',';
	snprintf(out, n, "%.*s%s%s%s", (int)(c - query), query,
		 empty || comma ? "" : ", ", extra, c);
	return out;
}

char *prom_quote(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(2 * n + 1), *p = out;
	for (; *s; s++) {
		if (*s == '\\' || *s == '"') {
			*p++ = '\\';
			*p++ = *s;
		} else if (*s == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else {
			*p++ = *s;
		}
	}
	*p = '\0';
	return out;
}

char *prom_regex_escape(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(2 * n + 1), *p = out;
	for (; *s; s++) {
		if (strchr("\\.+*?()|[]{}^$", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return out;
}
