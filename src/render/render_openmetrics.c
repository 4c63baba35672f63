/*
 * render_openmetrics.c - the Prometheus exposition of memtrend's live
 * figures (render_openmetrics.h, docs/openmetrics.md): the OpenMetrics 1.0
 * text format and the Prometheus text format 0.0.4, and the choice
 * between them from an HTTP Accept header.
 *
 * What it does: one family after another (HELP, TYPE, UNIT in OpenMetrics,
 * then every target's samples), so each family's samples stay together
 * as both formats require. What it does not do: read anything, keep any
 * state between calls, or decide what a figure is worth; a figure that is
 * not finite is left out, and a family without samples is left out whole.
 *
 * The two formats differ in two places: a counter's TYPE line names the
 * family without "_total" in OpenMetrics (the sample keeps it), and
 * OpenMetrics has UNIT lines and ends in "# EOF". The verdict is a state
 * set as process-exporter and kube-state-metrics write one -- a 0/1 gauge
 * per state with a label "verdict" -- in both: an OpenMetrics StateSet
 * would have to name its label "memtrend_verdict", and a Prometheus that
 * scrapes OpenMetrics (its default) would then store other series than
 * one that scrapes text, breaking memtrend_verdict{verdict="growing"}.
 */
#include <locale.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "render.h"
#include "render_openmetrics.h"

/* ---- the output buffer -------------------------------------------------- */

/* The exposition is built in one growable buffer, then handed over whole:
 * a scrape of 1,000 targets is ~17,000 lines, and stdio's per-call cost
 * (locking, vtable dispatch, printf's parsing) was most of its time. */
struct obuf {
	char *p;
	size_t n, cap;
};

static void ob_reserve(struct obuf *b, size_t more)
{
	if (b->n + more + 1 > b->cap)
		xgrow((void **)&b->p, &b->cap, b->n + more + 1, 1);
}

static void ob_put(struct obuf *b, const char *s, size_t len)
{
	ob_reserve(b, len);
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

static void ob_puts(struct obuf *b, const char *s)
{
	ob_put(b, s, strlen(s));
}

static void ob_putc(struct obuf *b, char c)
{
	ob_put(b, &c, 1);
}

/* ---- numbers ------------------------------------------------------------ */

/* The decimal digits of |v| (an integer below 2^63) with its sign, into
 * buf (at least 24 bytes); returns the length. snprintf's "%lld" costs a
 * format parse per call, which a scrape pays ~10,000 times. */
static size_t format_integer(char *buf, long long v)
{
	char tmp[24];
	size_t k = 0, n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
			       (unsigned long long)v;
	do {
		tmp[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[n++] = '-';
	while (k)
		buf[n++] = tmp[--k];
	buf[n] = '\0';
	return n;
}

/* v as the exposition writes it: an integer when integral (exact below
 * 2^63), otherwise the shortest %.{15,16,17}g that reads back as v. The
 * caller has made v finite and switched to the C locale; loc_dp is the
 * decimal point of the locale in force when no C locale could be made. */
static size_t format_number(char *buf, size_t n, double v, const char *loc_dp)
{
	if (v == floor(v) && fabs(v) < 9.2e18)
		return format_integer(buf, (long long)v);
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}
	if (loc_dp && strcmp(loc_dp, ".") != 0) {
		/* No C locale: put back the point the locale replaced. */
		char *p = strstr(buf, loc_dp);
		if (p) {
			size_t dl = strlen(loc_dp);
			*p = '.';
			memmove(p + 1, p + dl, strlen(p + dl) + 1);
		}
	}
	return strlen(buf);
}

/* ---- labels ------------------------------------------------------------- */

/* Bytes of a control character at p (valid UTF-8) that a label value
 * must not carry raw, or 0: C0 controls but the newline (escaped
 * instead), DEL, C1 controls (U+0080-U+009F) and the bidirectional
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069),
 * which would make a scrape's text, or a terminal that shows it, say
 * what the process's name chose. The formats have no escape for them:
 * each becomes U+FFFD. */
static size_t label_control_len(const unsigned char *p)
{
	if ((p[0] < 0x20 && p[0] != '\n') || p[0] == 0x7f)
		return 1;
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
			     (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
		return 3;
	return 0;
}

/* s as a label value: made valid UTF-8 (invalid bytes as U+FFFD), control
 * characters as U+FFFD (label_control_len), then backslash, double quote
 * and newline escaped, as both formats want. */
static void put_label_value(struct obuf *b, const char *s)
{
	if (!s)
		s = "";
	size_t len = strlen(s);
	/* Each byte becomes at most 3 (U+FFFD): 3 * len + 4 always holds
	 * the whole result (render_escape_utf8 keeps 4 bytes free). */
	size_t cap = 3 * len + 4;
	char *valid = xmalloc(cap);
	render_escape_utf8(valid, cap, s);
	for (const char *p = valid; *p; p++) {
		size_t ctl = label_control_len((const unsigned char *)p);
		if (ctl) {
			ob_put(b, "\xEF\xBF\xBD", 3);
			p += ctl - 1;
			continue;
		}
		switch (*p) {
		case '\\': ob_put(b, "\\\\", 2); break;
		case '"': ob_put(b, "\\\"", 2); break;
		case '\n': ob_put(b, "\\n", 2); break;
		default: ob_putc(b, *p); break;
		}
	}
	free(valid);
}

/* ---- families ----------------------------------------------------------- */

enum family {
	F_FOOTPRINT, F_RESIDENT, F_REQUESTS, F_CONNECTIONS, F_SAMPLES, F_SLOPE,
	F_DETECTABLE, F_VERDICT, F_EXHAUSTION, F_SITE_LIVE, F_COUNT
};

struct family_desc {
	const char *name;          /* the OpenMetrics family name */
	const char *suffix;        /* of its samples: "_total" or "" */
	const char *type_om, *type_prom;
	const char *unit;          /* OpenMetrics UNIT, "" for none */
	const char *help;          /* no backslash, quote or newline */
};

static const struct family_desc families[F_COUNT] = {
	[F_FOOTPRINT] = {"memtrend_footprint_bytes", "", "gauge", "gauge",
		"bytes", "Memory footprint of the target by component: total "
		"(anon + swap + shmem + gpu), anon, swap, shmem, gpu "
		"(device-local GPU memory). Do not sum over component."},
	[F_RESIDENT] = {"memtrend_resident_bytes", "", "gauge", "gauge",
		"bytes", "Resident memory of the target as ps and top show it: "
		"total (VmRSS = anon + file + shmem), file (RssFile: "
		"file-backed pages, in the RSS but not in the footprint)."},
	[F_REQUESTS] = {"memtrend_requests", "_total", "counter", "counter",
		"", "Work the target did: the cumulative counter of its work "
		"source (requests, tokens), resets handled."},
	[F_CONNECTIONS] = {"memtrend_connections", "", "gauge", "gauge", "",
		"Open connections of the target at the last sample."},
	[F_SAMPLES] = {"memtrend_samples", "_total", "counter", "counter", "",
		"Samples recorded for the target."},
	[F_SLOPE] = {"memtrend_slope_bytes_per_hour", "", "gauge", "gauge",
		"bytes_per_hour", "Growth of the footprint: the slope's "
		"estimate and its 95 % interval (bound low, high)."},
	[F_DETECTABLE] = {"memtrend_detectable_slope_bytes_per_hour", "",
		"gauge", "gauge", "bytes_per_hour", "The smallest slope the "
		"recording so far could tell from no growth."},
	[F_VERDICT] = {"memtrend_verdict", "", "gauge", "gauge", "",
		"The verdict on the target: 1 for the current one of growing, "
		"plateau, stable, inconclusive, 0 for the others."},
	[F_EXHAUSTION] = {"memtrend_exhaustion_seconds", "", "gauge", "gauge",
		"seconds", "Time until the target fills a pool at the measured "
		"slope: host memory (pool host) against the cgroup limit or "
		"MemTotal, a GPU (pool gpu0, ...) against its memory less "
		"what others hold."},
	[F_SITE_LIVE] = {"memtrend_site_live_bytes", "", "gauge", "gauge",
		"bytes", "record --sites: the estimated live bytes of the "
		"target's largest allocation sites (at most 10), by site: "
		"its innermost frame, and the caller that tells it apart."},
};

/* The extra label of each value of a family with several, as written
 * after the target's labels. */
static const char *const components[] = {
	",component=\"total\"", ",component=\"anon\"", ",component=\"swap\"",
	",component=\"shmem\"", ",component=\"gpu\""};
static const char *const resident_parts[] = {",component=\"total\"",
					    ",component=\"file\""};
static const char *const bounds[] = {",bound=\"estimate\"", ",bound=\"low\"",
				     ",bound=\"high\""};
static const enum verdict states[] = {VERDICT_GROWING, VERDICT_PLATEAU,
				      VERDICT_STABLE, VERDICT_INCONCLUSIVE};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The i-th value of family f for target t (i indexes components, bounds
 * or states; values that do not exist are NAN). */
static double family_value(enum family f, const struct om_target *t,
			   size_t i)
{
	switch (f) {
	case F_FOOTPRINT: {
		const double v[] = {t->footprint, t->anon, t->swap, t->shmem,
				    t->gpu};
		return v[i];
	}
	case F_RESIDENT:
		return i == 0 ? t->rss : t->file;
	case F_REQUESTS:
		return t->requests >= 0 ? t->requests : NAN;
	case F_CONNECTIONS:
		return t->connections;
	case F_SAMPLES:
		return (double)t->samples;  /* written exactly, not from this */
	/* What the analysis estimated is written rounded to whole bytes per
	 * hour and whole seconds: its uncertainty is orders of magnitude
	 * larger than 1, and an integer is written without a binary-to-
	 * decimal conversion (five per target, most of a scrape's time). */
	case F_SLOPE: {
		if (!t->analysed || !isfinite(t->slope.estimate))
			return NAN;
		const double v[] = {t->slope.estimate, t->slope.low,
				    t->slope.high};
		return rint(v[i]);
	}
	case F_DETECTABLE:
		return t->analysed ? rint(t->detectable_bph) : NAN;
	case F_VERDICT:
		return t->analysed ? (t->verdict == states[i] ? 1 : 0) : NAN;
	case F_EXHAUSTION:
		if (!t->analysed)
			return NAN;
		if (!t->n_pools)
			return i == 0 ? rint(t->exhaustion_s) : NAN;
		return i < t->n_pools ? rint(t->pools[i].eta_s) : NAN;
	case F_SITE_LIVE:
		return i < t->n_sites ? rint(t->sites[i].live) : NAN;
	case F_COUNT:
		break;
	}
	return NAN;
}

/* How many values family f has per target. */
static size_t family_width(enum family f)
{
	switch (f) {
	case F_FOOTPRINT: return COUNT(components);
	case F_RESIDENT: return COUNT(resident_parts);
	case F_SLOPE: return COUNT(bounds);
	case F_VERDICT: return COUNT(states);
	case F_EXHAUSTION: return ANALYSIS_POOLS_MAX;
	case F_SITE_LIVE: return OM_SITES_MAX;
	default: return 1;
	}
}

struct writer {
	struct obuf *out;
	enum om_format fmt;
	const char *loc_dp;        /* see format_number() */
	/* Every target's labels as written, target="...",kind="..."
	 * [,pid="..."], escaped once per exposition rather than once per
	 * sample: target k's are labels.p[at[k] .. at[k + 1]). */
	struct obuf labels;
	size_t *at;
	char verdict_label[COUNT(states)][40];
};

/* t's common labels, escaped, appended to b. */
static void put_target_labels(struct obuf *b, const struct om_target *t)
{
	ob_puts(b, "target=\"");
	put_label_value(b, t->target);
	ob_puts(b, "\",kind=\"");
	put_label_value(b, t->kind);
	ob_putc(b, '"');
	if (t->pid >= 0) {
		char num[24];
		ob_puts(b, ",pid=\"");
		ob_put(b, num, format_integer(num, t->pid));
		ob_putc(b, '"');
	}
}

/* One sample: NAME{target,kind,pid[,extra]} VALUE. */
static void put_sample(struct writer *w, enum family f,
		       const struct om_target *t, size_t k, size_t i, double v)
{
	const struct family_desc *d = &families[f];
	struct obuf *b = w->out;
	ob_puts(b, d->name);
	ob_puts(b, d->suffix);
	ob_putc(b, '{');
	ob_put(b, w->labels.p + w->at[k], w->at[k + 1] - w->at[k]);
	switch (f) {
	case F_FOOTPRINT: ob_puts(b, components[i]); break;
	case F_RESIDENT: ob_puts(b, resident_parts[i]); break;
	case F_SLOPE: ob_puts(b, bounds[i]); break;
	case F_VERDICT: ob_puts(b, w->verdict_label[i]); break;
	case F_EXHAUSTION:
		if (t->n_pools) {  /* ids are ours: nothing to escape */
			ob_puts(b, ",pool=\"");
			ob_puts(b, t->pools[i].id);
			ob_putc(b, '"');
		}
		break;
	case F_SITE_LIVE:  /* the program's names: escaped */
		ob_puts(b, ",site=\"");
		put_label_value(b, t->sites[i].label);
		ob_putc(b, '"');
		break;
	default: break;
	}
	char num[64];
	size_t len;
	if (f == F_SAMPLES)
		len = (size_t)snprintf(num, sizeof(num), "%" PRIu64,
				       t->samples);
	else
		len = format_number(num, sizeof(num), v, w->loc_dp);
	ob_put(b, "} ", 2);
	ob_put(b, num, len);
	ob_putc(b, '\n');
}

static void put_family(struct writer *w, enum family f,
		       const struct om_target *t, size_t n)
{
	const struct family_desc *d = &families[f];
	size_t width = family_width(f);
	bool any = false;
	for (size_t k = 0; k < n && !any; k++)
		for (size_t i = 0; i < width && !any; i++)
			any = isfinite(family_value(f, &t[k], i));
	if (!any)
		return;
	bool om = w->fmt == OM_OPENMETRICS;
	/* Prometheus text names the family as its samples are named. */
	const char *suffix = om ? "" : d->suffix;
	const char *heads[] = {"# HELP ", "# TYPE ", "# UNIT "};
	const char *tails[] = {d->help, om ? d->type_om : d->type_prom,
			       d->unit};
	for (size_t h = 0; h < COUNT(heads); h++) {
		if (h == 2 && !(om && d->unit[0]))
			break;
		ob_puts(w->out, heads[h]);
		ob_puts(w->out, d->name);
		if (h < 2)
			ob_puts(w->out, suffix);
		ob_putc(w->out, ' ');
		ob_puts(w->out, tails[h]);
		ob_putc(w->out, '\n');
	}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < width; i++) {
			double v = family_value(f, &t[k], i);
			if (isfinite(v))
				put_sample(w, f, &t[k], k, i, v);
		}
}

char *render_openmetrics_buffer(enum om_format fmt, const struct om_target *t,
				size_t n, size_t *len)
{
	/* Numbers in the C locale whatever the caller set: "0.5", never
	 * "0,5". Without one, format_number() puts the point back. */
	locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = (locale_t)0;
	struct obuf out = {0};
	struct writer w = {.out = &out, .fmt = fmt};
	if (c_loc != (locale_t)0)
		old = uselocale(c_loc);
	else
		w.loc_dp = localeconv()->decimal_point;
	for (size_t i = 0; i < COUNT(states); i++)
		snprintf(w.verdict_label[i], sizeof(w.verdict_label[i]),
			 ",verdict=\"%s\"", verdict_name(states[i]));
	w.at = xcalloc(n + 1, sizeof(*w.at));
	for (size_t k = 0; k < n; k++) {
		put_target_labels(&w.labels, &t[k]);
		w.at[k + 1] = w.labels.n;
	}
	/* A line is ~70 bytes plus its labels, ~19 lines a target: one
	 * reservation instead of a dozen doublings and copies. */
	ob_reserve(&out, 19 * (w.labels.n + 80 * n) + 4096);
	for (enum family f = 0; f < F_COUNT; f++)
		put_family(&w, f, t, n);
	if (fmt == OM_OPENMETRICS)
		ob_puts(&out, "# EOF\n");
	free(w.labels.p);
	free(w.at);
	if (c_loc != (locale_t)0) {
		uselocale(old);
		freelocale(c_loc);
	}
	if (!out.p)
		out.p = xstrdup("");
	*len = out.n;
	return out.p;
}

int render_openmetrics(FILE *out, enum om_format fmt,
		       const struct om_target *t, size_t n)
{
	size_t len;
	char *buf = render_openmetrics_buffer(fmt, t, n, &len);
	size_t put = fwrite(buf, 1, len, out);
	free(buf);
	if (put != len || fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

const char *render_openmetrics_content_type(enum om_format fmt)
{
	return fmt == OM_OPENMETRICS ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
}

/* ---- content negotiation ------------------------------------------------ */

/* [s, s + len) with blanks trimmed on both ends. */
static void trim(const char **s, size_t *len)
{
	while (*len && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
		(*len)--;
}

static bool equals(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

/* A qvalue (RFC 9110: "0", "0.5", "1.000"), read by hand so that no locale
 * is involved; anything else reads as 1 (the default). */
static double read_q(const char *s, size_t len)
{
	if (len == 0 || (s[0] != '0' && s[0] != '1'))
		return 1;
	double q = s[0] - '0', scale = 0.1;
	if (len > 1 && s[1] == '.') {
		for (size_t i = 2; i < len && i < 5; i++) {
			if (s[i] < '0' || s[i] > '9')
				break;
			q += (s[i] - '0') * scale;
			scale /= 10;
		}
	}
	return q > 1 ? 1 : q;
}

enum om_format render_openmetrics_negotiate(const char *accept)
{
	if (!accept)
		return OM_PROMETHEUS_TEXT;
	double q_om = 0, q_text = 0;
	const char *range = accept;
	while (*range) {
		size_t rlen = strcspn(range, ",");
		/* The media type, then ;-separated parameters. */
		const char *type = range;
		size_t tlen = strcspn(type, ";,");
		trim(&type, &tlen);
		double q = 1;
		bool version_ok = true;
		const char *p = range + strcspn(range, ";,");
		while (p < range + rlen && *p == ';') {
			p++;
			size_t plen = strcspn(p, ";,");
			const char *eq = memchr(p, '=', plen);
			if (eq) {
				const char *name = p, *val = eq + 1;
				size_t nlen = (size_t)(eq - p);
				size_t vlen = plen - nlen - 1;
				trim(&name, &nlen);
				trim(&val, &vlen);
				if (vlen >= 2 && val[0] == '"' &&
				    val[vlen - 1] == '"') {
					val++;
					vlen -= 2;
				}
				if (equals(name, nlen, "q"))
					q = read_q(val, vlen);
				else if (equals(name, nlen, "version"))
					version_ok = vlen >= 2 &&
						     strncmp(val, "1.", 2) == 0;
			}
			p += plen;
		}
		if (equals(type, tlen, "application/openmetrics-text")) {
			if (version_ok && q > q_om)
				q_om = q;
		} else if (equals(type, tlen, "text/plain") ||
			   equals(type, tlen, "text/*") ||
			   equals(type, tlen, "*/*")) {
			if (q > q_text)
				q_text = q;
		}
		range += rlen;
		if (*range == ',')
			range++;
	}
	return q_om > 0 && q_om >= q_text ? OM_OPENMETRICS :
					    OM_PROMETHEUS_TEXT;
}
