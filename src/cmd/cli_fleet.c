/*
 * cli_fleet.c - `memtrend report --prometheus URL --query PROMQL`: the
 * memory series a Prometheus (or Thanos, Mimir, VictoriaMetrics, Cortex)
 * already holds, each a target, analysed and ranked as a recording of
 * many targets is (docs/fleet.md).
 *
 * How, with memory bounded whatever the number of series:
 * 1. The series are listed (/api/v1/series, the query being a selector)
 *    and cut into batches, each selected by adding a matcher on the label
 *    that tells most series apart (`pod=~"a|b|c"`); a value's series are
 *    all in one batch, so no series is fetched twice and --by's groups
 *    stay whole. A batch is as many series as keep one response under
 *    half of --max-response and the batch's points under 64 MiB.
 * 2. Workers (--parallel, default 2) fetch a batch at a time, in time
 *    chunks of at most 11,000 points per series (Prometheus' limit), turn
 *    its series into targets (one per series, or per --by group with an
 *    incarnation per series), analyse them and drop their points, keeping
 *    the findings. With --html the points of the worst N targets (--top,
 *    default 100) are kept for the page's plots, the set updated as
 *    targets come.
 * 3. The findings are rendered as any report's.
 * An expression that is not a selector cannot be narrowed by a matcher:
 * it is fetched whole in time chunks, refused when its points would
 * exceed FLEET_WHOLE_MAX; so is --work-query, matched to the memory series
 * on the labels the work series carry.
 *
 * What it does not do: any statistics (analysis/), any HTTP (probe/
 * prometheus.c), any output format (render/).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "http.h"
#include "prometheus.h"
#include "rank.h"
#include "units.h"

#define FLEET_MAX_POINTS 11000       /* per series per query (Prometheus) */
#define FLEET_BODY_MAX_DEFAULT (64.0 * 1048576)
#define FLEET_BYTES_PER_POINT 32     /* `[1700000000.5,"12345678901"],` */
#define FLEET_BATCH_MEMORY (64.0 * 1048576) /* a batch's points, 24 B each */
#define FLEET_POINT_BYTES 24         /* t, v while fetched; t, fp, inc */
#define FLEET_WHOLE_MAX (768.0 * 1048576)
#define FLEET_HTML_DEFAULT 100
#define FLEET_PARALLEL_DEFAULT 2
#define FLEET_PARALLEL_MAX 8
#define FLEET_MATCHER_MAX 16384      /* bytes of one batch's matcher */
#define FLEET_RANGE_DEFAULT (7 * 86400.0)
#define FLEET_STEP_DEFAULT 60.0
#define FLEET_TIMEOUT_DEFAULT 120.0
#define FLEET_RETRIES 3

/* ---- options ------------------------------------------------------------- */

void cli_fleet_init(struct fleet_options *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->range_s = fo->start = fo->end = fo->step_s = NAN;
	fo->timeout_s = fo->max_response = NAN;
}

void cli_fleet_release(struct fleet_options *fo)
{
	for (size_t i = 0; i < fo->n_by; i++)
		free(fo->by[i]);
	free(fo->by);
	fo->by = NULL;
	fo->n_by = 0;
}

static int parse_dur(const char *opt, const char *arg, double *out)
{
	if (units_parse_duration(arg, out) || !(*out > 0))
		return error("%s: cannot read '%s' as a duration (e.g. 7d, "
			     "60s)", opt, arg);
	return 0;
}

static int parse_time(const char *opt, const char *arg, double *out)
{
	if (units_parse_time(arg, out))
		return error("%s: cannot read '%s' as a time (RFC 3339 with a "
			     "zone, e.g. 2026-05-01T00:00:00Z, or Unix "
			     "seconds)", opt, arg);
	return 0;
}

int cli_fleet_option(struct fleet_options *fo, int id, const char *arg)
{
	switch (id) {
	case FLEET_OPT_PROMETHEUS:
		fo->url = arg;
		return 1;
	case FLEET_OPT_QUERY:
		fo->query = arg;
		return 1;
	case FLEET_OPT_WORK_QUERY:
		fo->work_query = arg;
		return 1;
	case FLEET_OPT_RANGE:
		return parse_dur("--range", arg, &fo->range_s) ? -1 : 1;
	case FLEET_OPT_STEP:
		return parse_dur("--step", arg, &fo->step_s) ? -1 : 1;
	case FLEET_OPT_QUERY_TIMEOUT:
		return parse_dur("--query-timeout", arg, &fo->timeout_s) ? -1
									 : 1;
	case FLEET_OPT_START:
		return parse_time("--start", arg, &fo->start) ? -1 : 1;
	case FLEET_OPT_END:
		return parse_time("--end", arg, &fo->end) ? -1 : 1;
	case FLEET_OPT_BY: {
		char *copy = xstrdup(arg), *save = NULL;
		for (char *tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ')
				tok++;
			size_t n = strlen(tok);
			while (n && tok[n - 1] == ' ')
				tok[--n] = '\0';
			if (!n)
				continue;
			fo->by = xrealloc(fo->by, (fo->n_by + 1) *
					  sizeof(*fo->by));
			fo->by[fo->n_by++] = xstrdup(tok);
		}
		free(copy);
		if (!fo->n_by)
			return error("--by: which labels? (e.g. --by "
				     "namespace,container)");
		return 1;
	}
	case FLEET_OPT_AUTH_FILE:
		fo->auth_file = arg;
		return 1;
	case FLEET_OPT_MAX_RESPONSE: {
		double q;
		if (units_parse_size(arg, &fo->max_response, &q) ||
		    fo->max_response < 1048576)
			return error("--max-response: '%s' is not a size of "
				     "at least 1MiB", arg);
		return 1;
	}
	case FLEET_OPT_PARALLEL: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (*end || end == arg || errno || v < 1 ||
		    v > FLEET_PARALLEL_MAX)
			return error("--parallel: '%s' is not a count from 1 "
				     "to %d", arg, FLEET_PARALLEL_MAX);
		fo->parallel = v;
		return 1;
	}
	default:
		return 0;
	}
}

/* ---- label sets ---------------------------------------------------------- */

struct lset {
	struct prom_label *l;      /* owned strings; sorted by name */
	size_t n;
};

static int cmp_label(const void *a, const void *b)
{
	return strcmp(((const struct prom_label *)a)->name,
		      ((const struct prom_label *)b)->name);
}

static void lset_copy(struct lset *s, const struct prom_label *l, size_t n)
{
	s->n = n;
	s->l = xmalloc((n ? n : 1) * sizeof(*s->l));
	for (size_t i = 0; i < n; i++) {
		s->l[i].name = xstrdup(l[i].name);
		s->l[i].value = xstrdup(l[i].value);
	}
	qsort(s->l, n, sizeof(*s->l), cmp_label);
}

static void lset_release(struct lset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free((char *)s->l[i].name);
		free((char *)s->l[i].value);
	}
	free(s->l);
	s->l = NULL;
	s->n = 0;
}

/* A label's value; "" when the set lacks it (as in PromQL). */
static const char *lset_get(const struct lset *s, const char *name)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->l[mid].name, name);
		if (!c)
			return s->l[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	xgrow((void **)&b->s, &b->cap, b->len + n + 1, 1);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_label(struct buf *b, const char *name, const char *value)
{
	char *q = prom_quote(value);
	if (b->len > 1)
		buf_str(b, ",");
	buf_str(b, name);
	buf_str(b, "=\"");
	buf_str(b, q);
	buf_str(b, "\"");
	free(q);
}

/* {a="x",b="y"}: labels for which keep(name) holds. */
static char *lset_format(const struct prom_label *l, size_t n,
			 bool (*keep)(const char *name, const void *arg),
			 const void *arg)
{
	struct buf b = {0};
	buf_str(&b, "{");
	for (size_t i = 0; i < n; i++)
		if (!keep || keep(l[i].name, arg))
			buf_label(&b, l[i].name, l[i].value);
	buf_str(&b, "}");
	return b.s;
}

/* ---- a string map (open addressing) -------------------------------------- */

struct smap {
	char **keys;               /* owned; NULL = empty slot */
	size_t *vals;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The value of key, or SIZE_MAX. */
static size_t smap_get(const struct smap *m, const char *key)
{
	if (!m->cap)
		return SIZE_MAX;
	for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) &
	     (m->cap - 1)) {
		if (!m->keys[i])
			return SIZE_MAX;
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	}
}

/* Insert key (copied) with val; key must be absent. */
static void smap_put(struct smap *m, const char *key, size_t val)
{
	if (2 * (m->n + 1) > m->cap) {
		struct smap g = {0};
		g.cap = m->cap ? 2 * m->cap : 64;
		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.vals = xcalloc(g.cap, sizeof(*g.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = hash_str(m->keys[i]) & (g.cap - 1);
				while (g.keys[j])
					j = (j + 1) & (g.cap - 1);
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = xstrdup(key);
	m->vals[i] = val;
	m->n++;
}

static void smap_release(struct smap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- the run ------------------------------------------------------------- */

struct batch {
	char *query;               /* owned: the selector of this batch */
	size_t chunk_points;       /* points per series per request */
};

struct work_series {
	struct lset ls;
	double *v;                 /* points values at the grid; NAN */
};

struct fleet {
	const struct fleet_options *fo;
	const struct analysis_options *ao;
	struct prom_config pc;
	double start, end, step;
	size_t points;             /* per series over the whole range */
	bool names_differ;         /* several metric names: keep __name__ */
	struct batch *batches;
	size_t n_batches;
	struct work_series *work;
	size_t n_work;

	pthread_mutex_t mu;        /* guards everything below */
	size_t next_batch;
	atomic_bool stop;
	int fail;                  /* a prometheus.h result, 0 */
	struct series **targets;   /* owned, each on its own (they must not
				      move while findings point at them) */
	struct target_findings **findings;
	size_t n_targets, cap_targets;
	size_t keep;               /* targets whose points are kept */
	size_t *kept;
	size_t n_kept;
	struct smap warned;        /* warnings and metric names said once */
	size_t work_ambiguous, overlap_targets;
};

/* A warning from the API or ours, said once. */
static void say_once(struct fleet *fl, const char *key, const char *text)
{
	pthread_mutex_lock(&fl->mu);
	bool seen = smap_get(&fl->warned, key) != SIZE_MAX;
	if (!seen)
		smap_put(&fl->warned, key, 0);
	pthread_mutex_unlock(&fl->mu);
	if (!seen)
		warning("%s", text);
}

static void on_api_warning(void *arg, const char *text)
{
	char *msg = xmalloc(strlen(text) + 32);
	sprintf(msg, "Prometheus: %s", text);
	say_once(arg, msg, msg);
	free(msg);
}

static int exit_of(int prom_rc)
{
	return prom_rc == PROM_BAD_QUERY ? EXIT_USAGE : EXIT_RUNTIME;
}

/* The Authorization header from --auth-file: `bearer TOKEN`, `basic
 * USER:PASSWORD`, or a bare TOKEN; first line only. */
static char *read_auth(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("--auth-file: cannot open '%s': %m", path);
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 077))
		warning("--auth-file: '%s' can be read by other users (chmod "
			"600 it)", path);
	char b[4096];
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0) {
		error("--auth-file: '%s' is empty", path);
		return NULL;
	}
	b[n] = '\0';
	b[strcspn(b, "\r\n")] = '\0';
	char *p = b;
	while (*p == ' ' || *p == '\t')
		p++;
	char *out = NULL;
	if (!strncasecmp(p, "basic ", 6)) {
		static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"
					  "klmnopqrstuvwxyz0123456789+/";
		const unsigned char *s = (const unsigned char *)p + 6;
		while (*s == ' ')
			s++;
		size_t len = strlen((const char *)s);
		if (!memchr(s, ':', len)) {
			error("--auth-file: basic needs USER:PASSWORD");
			memset(b, 0, sizeof(b));
			return NULL;
		}
		out = xmalloc(8 + 4 * (len / 3 + 1) + 1);
		char *o = out + sprintf(out, "Basic ");
		for (size_t i = 0; i < len; i += 3) {
			unsigned v = (unsigned)s[i] << 16;
			if (i + 1 < len)
				v |= (unsigned)s[i + 1] << 8;
			if (i + 2 < len)
				v |= s[i + 2];
			*o++ = tab[(v >> 18) & 63];
			*o++ = tab[(v >> 12) & 63];
			*o++ = i + 1 < len ? tab[(v >> 6) & 63] : '=';
			*o++ = i + 2 < len ? tab[v & 63] : '=';
		}
		*o = '\0';
	} else {
		if (!strncasecmp(p, "bearer ", 7))
			p += 7;
		while (*p == ' ')
			p++;
		if (!*p) {
			error("--auth-file: '%s' holds no token", path);
			return NULL;
		}
		out = xmalloc(strlen(p) + 8);
		sprintf(out, "Bearer %s", p);
	}
	memset(b, 0, sizeof(b));
	return out;
}

/* ---- discovery and batches ----------------------------------------------- */

struct listing {
	struct lset *s;
	size_t n, cap;
};

static int on_listed(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	(void)t, (void)v, (void)n;
	struct listing *ls = arg;
	xgrow((void **)&ls->s, &ls->cap, ls->n + 1, sizeof(*ls->s));
	lset_copy(&ls->s[ls->n++], l, nl);
	return 0;
}

struct part {
	struct fleet *fl;
	struct listing *ls;
	size_t max_series;         /* per batch */
	size_t chunk_points;
};

static void add_batch(struct part *pt, const char *matchers)
{
	struct fleet *fl = pt->fl;
	fl->batches = xrealloc(fl->batches, (fl->n_batches + 1) *
			       sizeof(*fl->batches));
	struct batch *b = &fl->batches[fl->n_batches++];
	b->query = *matchers ? prom_selector_add(fl->fo->query, matchers) :
		   xstrdup(fl->fo->query);
	b->chunk_points = pt->chunk_points;
}

static bool label_allowed(const struct fleet *fl, const char *name)
{
	if (!fl->fo->n_by)
		return true;
	for (size_t i = 0; i < fl->fo->n_by; i++)
		if (!strcmp(fl->fo->by[i], name))
			return true;
	return false;
}

struct by_label {
	const struct lset *sets;
	const char *label;
};

static int cmp_by_label(const void *a, const void *b, void *arg)
{
	const struct by_label *k = arg;
	return strcmp(lset_get(&k->sets[*(const size_t *)a], k->label),
		      lset_get(&k->sets[*(const size_t *)b], k->label));
}

/* A batch of the values alt (a regex alternation) of label. */
static void add_pack(struct part *pt, const char *matchers, const char *label,
		     const char *alt)
{
	struct buf m = {0};
	buf_str(&m, matchers);
	if (*matchers)
		buf_str(&m, ", ");
	buf_str(&m, label);
	buf_str(&m, "=~\"");
	buf_str(&m, alt);
	buf_str(&m, "\"");
	add_batch(pt, m.s);
	free(m.s);
}

/* Cut the listed series idx[0..n) (already selected by `matchers`) into
 * batches of at most max_series, each by a matcher on the label with the
 * most values among them (one of --by's when given, so that a group
 * stays whole). */
static void partition(struct part *pt, size_t *idx, size_t n,
		      const char *matchers)
{
	struct fleet *fl = pt->fl;
	if (n <= pt->max_series) {
		add_batch(pt, matchers);
		return;
	}
	/* The label with the most distinct values here. */
	const char *best = NULL;
	size_t best_values = 1;
	struct smap names = {0};
	for (size_t i = 0; i < n; i++) {
		const struct lset *s = &pt->ls->s[idx[i]];
		for (size_t k = 0; k < s->n; k++)
			if (smap_get(&names, s->l[k].name) == SIZE_MAX &&
			    label_allowed(fl, s->l[k].name))
				smap_put(&names, s->l[k].name, 0);
	}
	for (size_t j = 0; j < names.cap; j++) {
		if (!names.keys[j])
			continue;
		struct by_label k = {pt->ls->s, names.keys[j]};
		qsort_r(idx, n, sizeof(*idx), cmp_by_label, &k);
		size_t values = 1;
		for (size_t i = 1; i < n; i++)
			if (strcmp(lset_get(&pt->ls->s[idx[i - 1]], k.label),
				   lset_get(&pt->ls->s[idx[i]], k.label)))
				values++;
		if (values > best_values) {
			best_values = values;
			best = names.keys[j];
		}
	}
	if (!best) {
		/* One --by group larger than a batch: it is one target's
		 * incarnations, fetched together. */
		smap_release(&names);
		add_batch(pt, matchers);
		return;
	}
	char *label = xstrdup(best);
	smap_release(&names);
	struct by_label k = {pt->ls->s, label};
	qsort_r(idx, n, sizeof(*idx), cmp_by_label, &k);
	struct buf alt = {0};
	size_t in_pack = 0, values = 0;
	for (size_t i = 0; i < n;) {
		const char *v = lset_get(&pt->ls->s[idx[i]], label);
		size_t j = i + 1;
		while (j < n && !strcmp(lset_get(&pt->ls->s[idx[j]], label), v))
			j++;
		size_t count = j - i;
		if (count > pt->max_series) {
			/* This value alone is too many: narrow it further. */
			char *q = prom_quote(v);
			struct buf m = {0};
			buf_str(&m, matchers);
			if (*matchers)
				buf_str(&m, ", ");
			buf_str(&m, label);
			buf_str(&m, "=\"");
			buf_str(&m, q);
			buf_str(&m, "\"");
			partition(pt, idx + i, count, m.s);
			free(m.s);
			free(q);
		} else {
			char *re = prom_regex_escape(v);
			char *rq = prom_quote(re);
			if (values && (in_pack + count > pt->max_series ||
				       alt.len + strlen(rq) + 1 >
				       FLEET_MATCHER_MAX)) {
				add_pack(pt, matchers, label, alt.s);
				alt.len = 0;
				in_pack = values = 0;
			}
			if (values++)
				buf_str(&alt, "|");
			buf_str(&alt, rq);
			in_pack += count;
			free(re);
			free(rq);
		}
		i = j;
	}
	if (values)
		add_pack(pt, matchers, label, alt.s);
	free(alt.s);
	free(label);
}

/* ---- fetching ------------------------------------------------------------ */

/* One series as fetched, its chunks appended. */
struct raw {
	struct lset ls;
	double *t, *v;
	size_t n, cap;
	bool fractional;           /* a value with a fraction */
};

struct fetch {
	struct fleet *fl;
	struct smap map;           /* label set -> index in raw */
	struct raw *raw;
	size_t n_raw, cap_raw;
};

static int on_points(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	struct fetch *fx = arg;
	if (atomic_load(&fx->fl->stop))
		return 1;
	char *key = lset_format(l, nl, NULL, NULL);
	size_t i = smap_get(&fx->map, key);
	if (i == SIZE_MAX) {
		i = fx->n_raw;
		xgrow((void **)&fx->raw, &fx->cap_raw, fx->n_raw + 1,
		      sizeof(*fx->raw));
		struct raw *r = &fx->raw[fx->n_raw++];
		memset(r, 0, sizeof(*r));
		lset_copy(&r->ls, l, nl);
		smap_put(&fx->map, key, i);
	}
	free(key);
	struct raw *r = &fx->raw[i];
	if (r->n + n > r->cap) {
		size_t cap = r->cap ? r->cap : 256;
		while (cap < r->n + n)
			cap *= 2;
		r->t = xrealloc(r->t, cap * sizeof(double));
		r->v = xrealloc(r->v, cap * sizeof(double));
		r->cap = cap;
	}
	for (size_t k = 0; k < n; k++) {
		if (r->n && t[k] <= r->t[r->n - 1])
			continue;  /* a chunk's edge seen twice */
		r->t[r->n] = t[k];
		r->v[r->n] = v[k];
		if (v[k] != floor(v[k]))
			r->fractional = true;
		r->n++;
	}
	return 0;
}

static void fetch_release(struct fetch *fx)
{
	for (size_t i = 0; i < fx->n_raw; i++) {
		lset_release(&fx->raw[i].ls);
		free(fx->raw[i].t);
		free(fx->raw[i].v);
	}
	free(fx->raw);
	smap_release(&fx->map);
	memset(fx, 0, sizeof(*fx));
}

/* query over the whole range, chunk_points per series per request. */
static int fetch_range(struct fleet *fl, struct prom_client *pc,
		       const char *query, size_t chunk_points, struct fetch *fx)
{
	for (size_t first = 0; first < fl->points; first += chunk_points) {
		size_t last = first + chunk_points - 1;
		if (last >= fl->points)
			last = fl->points - 1;
		int rc = prom_query_range(pc, query,
					  fl->start + (double)first * fl->step,
					  fl->start + (double)last * fl->step,
					  fl->step, on_points, fx);
		if (rc)
			return rc;
	}
	return 0;
}

static int on_count(void *arg, const struct prom_label *l, size_t nl,
		    const double *t, const double *v, size_t n)
{
	(void)l, (void)nl, (void)t, (void)v, (void)n;
	(*(size_t *)arg)++;
	return 0;
}

/* How many series an expression gives (a cheap query, a few points per
 * series), and the points per request that keep a response bounded;
 * refused when the whole would exceed FLEET_WHOLE_MAX. */
static int size_whole(struct fleet *fl, struct prom_client *pc,
		      const char *opt, const char *query, size_t *chunk)
{
	double span = fl->end - fl->start;
	double coarse = fmax(fl->step, ceil(span / 8 / fl->step) * fl->step);
	size_t count = 0;
	int rc = prom_query_range(pc, query, fl->start, fl->end, coarse,
				  on_count, &count);
	if (rc)
		return rc;
	size_t n = count ? count : 1;
	double whole = (double)n * (double)fl->points * FLEET_POINT_BYTES;
	if (whole > FLEET_WHOLE_MAX) {
		char b[32];
		error("%s: the expression gives %zu series of %zu points (%s "
		      "to hold): more than memtrend holds at once for an "
		      "expression that is not a selector; use a selector "
		      "(fetched in batches), a recording rule, a larger "
		      "--step or a shorter --range", opt, count, fl->points,
		      units_format_size(b, sizeof(b), whole));
		return PROM_BAD_QUERY;
	}
	double per = fl->pc.body_max / 2.0 / FLEET_BYTES_PER_POINT /
		     (double)n;
	*chunk = per < 1 ? 1 : per > FLEET_MAX_POINTS ? FLEET_MAX_POINTS :
		 (size_t)per;
	return 0;
}

/* ---- targets ------------------------------------------------------------- */

static bool keep_in_name(const char *name, const void *arg)
{
	const struct fleet *fl = arg;
	return strcmp(name, "__name__") || fl->names_differ;
}

/* The work series whose labels all hold in ls (first of them). */
static const struct work_series *work_of(struct fleet *fl,
					 const struct lset *ls, bool *ambiguous)
{
	const struct work_series *found = NULL;
	*ambiguous = false;
	for (size_t w = 0; w < fl->n_work; w++) {
		const struct lset *wl = &fl->work[w].ls;
		bool ok = true;
		for (size_t k = 0; k < wl->n && ok; k++)
			if (strcmp(wl->l[k].name, "__name__"))
				ok = !strcmp(lset_get(ls, wl->l[k].name),
					     wl->l[k].value);
		if (!ok)
			continue;
		if (found) {
			*ambiguous = true;
			break;
		}
		found = &fl->work[w];
	}
	return found;
}

static int cmp_raw_first(const void *a, const void *b, void *arg)
{
	const struct raw *raw = arg;
	const struct raw *x = &raw[*(const size_t *)a];
	const struct raw *y = &raw[*(const size_t *)b];
	double tx = x->n ? x->t[0] : INFINITY, ty = y->n ? y->t[0] : INFINITY;
	return (tx > ty) - (tx < ty);
}

/* Labels in every member, with one value. */
struct common_arg {
	const struct fetch *fx;
	const size_t *members;
	size_t n;
};

static bool in_all(const char *name, const void *arg)
{
	const struct common_arg *c = arg;
	const struct lset *first = &c->fx->raw[c->members[0]].ls;
	const char *v = lset_get(first, name);
	for (size_t i = 1; i < c->n; i++) {
		const struct lset *s = &c->fx->raw[c->members[i]].ls;
		bool has = false;
		for (size_t k = 0; k < s->n; k++)
			if (!strcmp(s->l[k].name, name)) {
				has = !strcmp(s->l[k].value, v);
				break;
			}
		if (!has)
			return false;
	}
	return true;
}

static bool named_in(const char *name, const void *arg)
{
	const struct common_arg *c = arg;
	return strcmp(name, "__name__") && !in_all(name, c);
}

static bool common_named(const char *name, const void *arg)
{
	const struct common_arg *c = arg;
	return keep_in_name(name, c->fx->fl) && in_all(name, c);
}

/* A target from the raw series members[0..n) (one, or a --by group). */
static struct series *build_target(struct fleet *fl, struct fetch *fx,
				   size_t *members, size_t n)
{
	qsort_r(members, n, sizeof(*members), cmp_raw_first, fx->raw);
	struct common_arg ca = {fx, members, n};
	const struct lset *l0 = &fx->raw[members[0]].ls;
	char *name = lset_format(l0->l, l0->n, common_named, &ca);
	struct series *s = xcalloc(1, sizeof(*s));
	series_init(s, name);
	free(name);
	for (size_t k = 0; k < l0->n; k++)
		if (in_all(l0->l[k].name, &ca))
			series_add_label(s, l0->l[k].name, l0->l[k].value);
	size_t total = 0;
	bool fractional = false;
	for (size_t i = 0; i < n; i++) {
		total += fx->raw[members[i]].n;
		fractional |= fx->raw[members[i]].fractional;
	}
	series_reserve(s, total ? total : 1);
	size_t dropped = 0;
	bool any_work = false;
	for (size_t i = 0; i < n; i++) {
		const struct raw *r = &fx->raw[members[i]];
		if (!r->n)
			continue;
		double cut = INFINITY;
		for (size_t j = i + 1; j < n && !isfinite(cut); j++)
			if (fx->raw[members[j]].n)
				cut = fx->raw[members[j]].t[0];
		char *comm = n > 1 ? lset_format(r->ls.l, r->ls.n, named_in,
						 &ca) : NULL;
		uint32_t inc = series_add_incarnation(s, -1, 0, r->t[0], comm,
						      NULL);
		free(comm);
		bool amb = false;
		const struct work_series *w = fl->n_work ?
			work_of(fl, &r->ls, &amb) : NULL;
		if (amb) {
			pthread_mutex_lock(&fl->mu);
			fl->work_ambiguous++;
			pthread_mutex_unlock(&fl->mu);
		}
		for (size_t k = 0; k < r->n; k++) {
			if (r->t[k] >= cut) {
				dropped += r->n - k;
				break;
			}
			if (s->n && r->t[k] <= s->t[s->n - 1]) {
				dropped++;
				continue;
			}
			size_t at = series_append(s, r->t[k], r->v[k], inc);
			if (w) {
				double gi = round((r->t[k] - fl->start) /
						  fl->step);
				if (gi >= 0 && gi < (double)fl->points &&
				    isfinite(w->v[(size_t)gi])) {
					series_set_requests(s, at,
							    w->v[(size_t)gi]);
					any_work = true;
				}
			}
		}
		if (r->ls.n) {
			const char *metric = lset_get(&r->ls, "__name__");
			size_t ml = strlen(metric);
			if (ml && (ml < 6 || strcmp(metric + ml - 6, "_bytes"))) {
				char msg[400];
				snprintf(msg, sizeof(msg), "--query: the metric "
					 "'%.200s' does not end in _bytes: is "
					 "it memory in bytes?", metric);
				say_once(fl, msg, msg);
			}
		}
	}
	(void)any_work;
	if (dropped && n > 1 && dropped * 10 > total) {
		pthread_mutex_lock(&fl->mu);
		fl->overlap_targets++;
		pthread_mutex_unlock(&fl->mu);
	}
	/* Integer readings count bytes: the precision as stored is one
	 * (a CSV of the same readings says the same). */
	s->quantum = fractional ? 0 : 1;
	return s;
}

/* Keep the points of the worst `keep` targets (for the page's plots);
 * drop the others'. Called with fl->mu held. */
static void keep_or_drop(struct fleet *fl, size_t idx)
{
	if (!fl->keep) {
		series_drop_points(fl->targets[idx]);
		return;
	}
	if (fl->n_kept < fl->keep) {
		fl->kept[fl->n_kept++] = idx;
		return;
	}
	struct rank_key k, w, x;
	rank_key_of(fl->findings[idx], idx, &k);
	size_t pos = 0;
	rank_key_of(fl->findings[fl->kept[0]], fl->kept[0], &w);
	for (size_t j = 1; j < fl->n_kept; j++) {
		rank_key_of(fl->findings[fl->kept[j]], fl->kept[j], &x);
		if (rank_compare(&x, &w) > 0) {
			w = x;
			pos = j;
		}
	}
	if (rank_compare(&k, &w) < 0) {
		series_drop_points(fl->targets[fl->kept[pos]]);
		fl->kept[pos] = idx;
	} else {
		series_drop_points(fl->targets[idx]);
	}
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct fetch *fx = arg;
	const struct lset *x = &fx->raw[*(const size_t *)a].ls;
	const struct lset *y = &fx->raw[*(const size_t *)b].ls;
	for (size_t i = 0; i < fx->fl->fo->n_by; i++) {
		int c = strcmp(lset_get(x, fx->fl->fo->by[i]),
			       lset_get(y, fx->fl->fo->by[i]));
		if (c)
			return c;
	}
	return 0;
}

/* The fetched series of a batch into targets, analysed. */
static void targets_of(struct fleet *fl, struct fetch *fx)
{
	size_t *idx = xmalloc((fx->n_raw ? fx->n_raw : 1) * sizeof(*idx));
	size_t m = 0;
	for (size_t i = 0; i < fx->n_raw; i++)
		if (fx->raw[i].n)
			idx[m++] = i;
	if (fl->fo->n_by)  /* groups: by the --by labels' values */
		qsort_r(idx, m, sizeof(*idx), cmp_group, fx);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;
		if (fl->fo->n_by) {
			while (j < m) {
				bool same = true;
				for (size_t b = 0; b < fl->fo->n_by && same; b++)
					same = !strcmp(
						lset_get(&fx->raw[idx[i]].ls,
							 fl->fo->by[b]),
						lset_get(&fx->raw[idx[j]].ls,
							 fl->fo->by[b]));
				if (!same)
					break;
				j++;
			}
		}
		struct series *s = build_target(fl, fx, idx + i, j - i);
		/* The raw points are copied: free them before the
		 * analysis so that the batch's peak is not twice. */
		for (size_t k = i; k < j; k++) {
			struct raw *r = &fx->raw[idx[k]];
			free(r->t);
			free(r->v);
			r->t = r->v = NULL;
			r->n = r->cap = 0;
		}
		struct target_findings *f = xcalloc(1, sizeof(*f));
		analysis_run(s, fl->ao, f);
		pthread_mutex_lock(&fl->mu);
		if (fl->n_targets == fl->cap_targets) {
			fl->cap_targets = fl->cap_targets ? 2 * fl->cap_targets
							  : 256;
			fl->targets = xrealloc(fl->targets, fl->cap_targets *
					       sizeof(*fl->targets));
			fl->findings = xrealloc(fl->findings, fl->cap_targets *
						sizeof(*fl->findings));
		}
		size_t at = fl->n_targets++;
		fl->targets[at] = s;
		fl->findings[at] = f;
		keep_or_drop(fl, at);
		pthread_mutex_unlock(&fl->mu);
		i = j;
	}
	free(idx);
}

static void *worker(void *arg)
{
	struct fleet *fl = arg;
	struct prom_client *pc = prom_client_new(&fl->pc);
	if (!pc) {
		pthread_mutex_lock(&fl->mu);
		if (!fl->fail)
			fl->fail = PROM_FAILED;
		pthread_mutex_unlock(&fl->mu);
		atomic_store(&fl->stop, true);
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&fl->mu);
		size_t b = fl->next_batch < fl->n_batches &&
			   !atomic_load(&fl->stop) ? fl->next_batch++ :
			   SIZE_MAX;
		pthread_mutex_unlock(&fl->mu);
		if (b == SIZE_MAX)
			break;
		struct fetch fx = {.fl = fl};
		int rc = fetch_range(fl, pc, fl->batches[b].query,
				     fl->batches[b].chunk_points, &fx);
		if (rc) {
			pthread_mutex_lock(&fl->mu);
			if (!fl->fail && rc != PROM_STOPPED)
				fl->fail = rc;
			pthread_mutex_unlock(&fl->mu);
			atomic_store(&fl->stop, true);
			fetch_release(&fx);
			break;
		}
		targets_of(fl, &fx);
		fetch_release(&fx);
	}
	prom_client_free(pc);
	return NULL;
}

/* --work-query: every work series, values on the grid of the range. */
static int fetch_work(struct fleet *fl, struct prom_client *pc)
{
	size_t chunk;
	int rc = size_whole(fl, pc, "--work-query", fl->fo->work_query,
			    &chunk);
	if (rc)
		return rc;
	struct fetch fx = {.fl = fl};
	rc = fetch_range(fl, pc, fl->fo->work_query, chunk, &fx);
	if (rc) {
		fetch_release(&fx);
		return rc;
	}
	fl->work = xcalloc(fx.n_raw ? fx.n_raw : 1, sizeof(*fl->work));
	for (size_t i = 0; i < fx.n_raw; i++) {
		struct raw *r = &fx.raw[i];
		struct work_series *w = &fl->work[fl->n_work++];
		w->ls = r->ls;
		r->ls.l = NULL;
		r->ls.n = 0;
		w->v = xmalloc(fl->points * sizeof(double));
		for (size_t k = 0; k < fl->points; k++)
			w->v[k] = NAN;
		for (size_t k = 0; k < r->n; k++) {
			double gi = round((r->t[k] - fl->start) / fl->step);
			if (gi >= 0 && gi < (double)fl->points)
				w->v[(size_t)gi] = r->v[k];
		}
	}
	fetch_release(&fx);
	if (!fl->n_work)
		warning("--work-query: no series; the report has no work");
	return 0;
}

static int cmp_target_name(const void *a, const void *b, void *arg)
{
	struct series **t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(t[x]->name, t[y]->name);
	return c ? c : (x > y) - (x < y);
}

static void fleet_release(struct fleet *fl)
{
	for (size_t i = 0; i < fl->n_batches; i++)
		free(fl->batches[i].query);
	free(fl->batches);
	for (size_t i = 0; i < fl->n_work; i++) {
		lset_release(&fl->work[i].ls);
		free(fl->work[i].v);
	}
	free(fl->work);
	for (size_t i = 0; i < fl->n_targets; i++) {
		if (fl->targets[i]) {
			series_release(fl->targets[i]);
			free(fl->targets[i]);
		}
		if (fl->findings[i]) {
			analysis_release(fl->findings[i]);
			free(fl->findings[i]);
		}
	}
	free(fl->targets);
	free(fl->findings);
	free(fl->kept);
	smap_release(&fl->warned);
	pthread_mutex_destroy(&fl->mu);
}

int cli_fleet_report(const struct fleet_options *fo, const char *file,
		     const struct report_options *o, struct report_html *h)
{
	if (!fo->url)
		return error("--query needs --prometheus URL"), EXIT_USAGE;
	if (!fo->query || !*fo->query)
		return error("--prometheus: which series? (--query PROMQL, "
			     "e.g. 'container_memory_working_set_bytes"
			     "{namespace=\"llm\"}')"), EXIT_USAGE;
	if (file)
		return error("report: a FILE or --prometheus, not both"),
		       EXIT_USAGE;
	if (isfinite(fo->range_s) && isfinite(fo->start) &&
	    isfinite(fo->end))
		return error("--range with both --start and --end: give two "
			     "of the three"), EXIT_USAGE;
	struct fleet fl = {.fo = fo, .ao = &o->analysis};
	pthread_mutex_init(&fl.mu, NULL);
	fl.step = isfinite(fo->step_s) ? fo->step_s : FLEET_STEP_DEFAULT;
	double range = isfinite(fo->range_s) ? fo->range_s :
		       FLEET_RANGE_DEFAULT;
	double end = isfinite(fo->end) ? fo->end :
		     isfinite(fo->start) && isfinite(fo->range_s) ?
		     fo->start + range : now_wall();
	double start = isfinite(fo->start) ? fo->start : end - range;
	int rc = EXIT_USAGE;
	char *auth = NULL;
	struct prom_client *pc = NULL;
	struct listing ls = {0};
	size_t *idx = NULL;
	struct dataset d = {0};
	struct target_findings *f = NULL;
	bool have_d = false;
	if (!(end > start)) {
		error("--start/--end: the end must come after the start");
		goto out;
	}
	/* A grid of whole steps: the same query twice gives the same
	 * points (and a grid aligned as a recording's readings are). */
	fl.start = ceil(start / fl.step) * fl.step;
	fl.points = (size_t)floor((end - fl.start) / fl.step + 1e-9) + 1;
	fl.end = fl.start + (double)(fl.points - 1) * fl.step;
	if (fl.points < 3) {
		error("--range/--step: %zu points per series; a slope needs "
		      "at least 3", fl.points);
		goto out;
	}
	if (fo->auth_file && !(auth = read_auth(fo->auth_file)))
		goto out;
	if (http_global_init()) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	fl.pc = (struct prom_config){
		.url = fo->url, .authorization = auth,
		.timeout_s = isfinite(fo->timeout_s) ? fo->timeout_s :
			     FLEET_TIMEOUT_DEFAULT,
		.body_max = (size_t)(isfinite(fo->max_response) ?
				     fo->max_response :
				     FLEET_BODY_MAX_DEFAULT),
		.retries = FLEET_RETRIES,
		.on_warning = on_api_warning, .warning_arg = &fl,
	};
	if (!(pc = prom_client_new(&fl.pc)))
		goto out;
	int prc;
	if (fo->work_query && (prc = fetch_work(&fl, pc))) {
		rc = exit_of(prc);
		goto out;
	}
	size_t chunk_points = fl.points < FLEET_MAX_POINTS ? fl.points :
			      FLEET_MAX_POINTS;
	if (prom_is_selector(fo->query)) {
		prc = prom_series(pc, fo->query, fl.start, fl.end, on_listed,
				  &ls);
		if (prc) {
			rc = exit_of(prc);
			goto out;
		}
		if (!ls.n) {
			char a[40], b[40];
			error("--query: no series match '%s' from %s to %s",
			      fo->query,
			      units_format_time(a, sizeof(a), fl.start),
			      units_format_time(b, sizeof(b), fl.end));
			goto out;
		}
		for (size_t i = 1; i < ls.n && !fl.names_differ; i++)
			fl.names_differ = strcmp(lset_get(&ls.s[i], "__name__"),
						 lset_get(&ls.s[0], "__name__"));
		double by_resp = fl.pc.body_max / 2.0 / FLEET_BYTES_PER_POINT /
				 (double)chunk_points;
		double by_mem = FLEET_BATCH_MEMORY / FLEET_POINT_BYTES /
				(double)fl.points;
		double per = fmin(by_resp, by_mem);
		struct part pt = {.fl = &fl, .ls = &ls,
				  .max_series = per < 1 ? 1 : (size_t)per,
				  .chunk_points = chunk_points};
		idx = xmalloc(ls.n * sizeof(*idx));
		for (size_t i = 0; i < ls.n; i++)
			idx[i] = i;
		partition(&pt, idx, ls.n, "");
	} else {
		/* An expression: fetched whole (bounded by size_whole()). */
		size_t chunk;
		if ((prc = size_whole(&fl, pc, "--query", fo->query, &chunk))) {
			rc = exit_of(prc);
			goto out;
		}
		fl.batches = xcalloc(1, sizeof(*fl.batches));
		fl.batches[0].query = xstrdup(fo->query);
		fl.batches[0].chunk_points = chunk;
		fl.n_batches = 1;
	}
	prom_client_free(pc);
	pc = NULL;

	fl.keep = h ? (o->top ? o->top : FLEET_HTML_DEFAULT) : 0;
	fl.kept = xcalloc(fl.keep ? fl.keep : 1, sizeof(*fl.kept));
	size_t nw = fo->parallel ? (size_t)fo->parallel :
		    FLEET_PARALLEL_DEFAULT;
	if (nw > fl.n_batches)
		nw = fl.n_batches;
	pthread_t th[FLEET_PARALLEL_MAX];
	size_t started = 0;
	for (; started < nw; started++)
		if (pthread_create(&th[started], NULL, worker, &fl))
			break;
	if (!started) {
		error("cannot start a thread");
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (fl.fail) {
		rc = exit_of(fl.fail);
		goto out;
	}
	if (!fl.n_targets) {
		error("--query: no series with points from the query '%s'",
		      fo->query);
		goto out;
	}
	if (fl.work_ambiguous)
		warning("--work-query: %zu memory series match several work "
			"series; each takes the first (match the work "
			"query's labels to the memory series')",
			fl.work_ambiguous);
	if (fl.overlap_targets)
		warning("--by: in %zu targets, series run at the same time "
			"(replicas, not restarts?); the earlier series' "
			"points after the next one starts are left out",
			fl.overlap_targets);

	/* The dataset, by name (the same order on every run). */
	char src[512];
	snprintf(src, sizeof(src), "%s %s", fo->url, fo->query);
	dataset_init(&d, src);
	have_d = true;
	d.interval_s = fl.step;
	char a[40], b[40], note_s[256];
	snprintf(note_s, sizeof(note_s), "Prometheus range %s to %s, step "
		 "%gs, %zu targets", units_format_time(a, sizeof(a), fl.start),
		 units_format_time(b, sizeof(b), fl.end), fl.step,
		 fl.n_targets);
	dataset_add_note(&d, note_s);
	size_t n = fl.n_targets;
	size_t *order = xmalloc(n * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_target_name, fl.targets);
	d.targets = xcalloc(n, sizeof(*d.targets));
	f = xcalloc(n, sizeof(*f));
	for (size_t i = 0; i < n; i++) {
		d.targets[i] = *fl.targets[order[i]];
		free(fl.targets[order[i]]);
		fl.targets[order[i]] = NULL;
		f[i] = *fl.findings[order[i]];
		f[i].series = &d.targets[i];
		free(fl.findings[order[i]]);
		fl.findings[order[i]] = NULL;
	}
	d.n_targets = n;
	free(order);
	struct report_html hh;
	if (h) {
		hh = *h;
		if (!hh.opt.top && n > fl.keep) {
			note("--html: the page draws the worst %zu of %zu "
			     "targets (--top N for another count)", fl.keep,
			     n);
			hh.opt.top = fl.keep;
		}
	}
	rc = cli_report_findings(&d, f, o, h ? &hh : NULL);
	for (size_t i = 0; i < n; i++)
		analysis_release(&f[i]);
out:
	free(f);
	if (have_d)
		dataset_release(&d);
	free(idx);
	for (size_t i = 0; i < ls.n; i++)
		lset_release(&ls.s[i]);
	free(ls.s);
	prom_client_free(pc);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	fleet_release(&fl);
	return rc;
}
