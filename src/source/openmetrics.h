/*
 * openmetrics.h - reads one counter out of a metrics endpoint's body: a
 * Prometheus text exposition (format 0.0.4) or an OpenMetrics 1.0 one, as
 * `memtrend record --work URL#METRIC{label="v",...}` scrapes it each sample
 * (vLLM `vllm:request_success_total`, TGI `tgi_request_count`, llama.cpp
 * `llamacpp:tokens_predicted_total`).
 *
 * What it does: parses a selector once; then, for each scraped body,
 * checks every line of it and sums the values of the samples the selector
 * picks. What it does not do: fetch anything, keep series between scrapes,
 * handle counter resets (the caller does, as Prometheus' rate() does), or
 * read histograms, summaries or native histograms as such.
 *
 * Selector: METRIC or METRIC{MATCHER,...} with MATCHER one of
 *   label="v"   equal              label!="v"  not equal
 *   label=~"re" regex matches      label!~"re" regex does not match
 * Values are in double (or single) quotes with the escapes \\ \" \' \n \t
 * \r; blanks around tokens and a trailing comma are allowed. Regexes are
 * POSIX extended (glibc regcomp, so no \d or (?i) as in Prometheus' RE2)
 * and, like Prometheus, fully anchored: they must match the whole label
 * value. What would make glibc's matcher exponential is refused, as RE2
 * refuses it: back-references, a repetition right after another ("a**"),
 * nested repetitions of more than 1000 copies, groups nested over 64
 * deep. A label a series lacks has the value "", so `label=""` selects
 * the series without that label and `label=~".*"` every series. Matchers
 * on one label may repeat (all must hold).
 *
 * Which samples count (the name rule):
 * - A sample whose name is exactly METRIC is selected when its labels
 *   satisfy every matcher; extra labels on the series do not matter, and
 *   all selected series are summed.
 * - When the body has no sample named METRIC at all, samples named
 *   METRIC_total are used instead, provided the body declares a counter
 *   family `# TYPE METRIC counter` (OpenMetrics: family foo, samples
 *   foo_total) or `# TYPE METRIC_total counter` (Prometheus clients that
 *   name the family after its sample). So `vllm:request_success` and
 *   `vllm:request_success_total` select the same series. An undeclared
 *   METRIC_total is not guessed at: NOT_FOUND, and the message says to
 *   name it in full.
 * - METRIC_created samples (a counter's creation time) never count toward
 *   METRIC or METRIC_total; nor do _bucket, _sum, _count or any other
 *   suffix. Selecting `foo_created` itself reads those samples, exactly.
 *
 * Exposition syntax accepted (the union of both formats, since the caller
 * need not know which one it got): `# HELP`, `# TYPE`, `# UNIT` and other
 * `#` comments, blank lines, `# EOF` (after which only blank lines may
 * follow), LF or CRLF line ends, blanks (space, tab) between tokens and at
 * the start of a line; metric names [a-zA-Z_:][a-zA-Z0-9_:]*; label sets
 * `{name="value",...}` (label names [a-zA-Z_][a-zA-Z0-9_]*, an empty set
 * `{}`, a trailing comma) whose values may hold the escapes \\ \" \n (any
 * other backslash pair is kept as it is, as Prometheus does); values as Go
 * strconv.ParseFloat reads them under Prometheus (decimal with exponent,
 * Inf/+Inf/-Inf/Infinity and NaN in any case, no hex, no '_'; a decimal
 * out of double range is an error); an optional timestamp (integer
 * milliseconds or OpenMetrics float seconds; read and ignored); an
 * optional OpenMetrics exemplar `# {labels} value [timestamp]` (checked
 * and ignored). `# TYPE` must name a known type (counter, gauge,
 * histogram, summary, untyped, unknown, gaugehistogram, stateset, info).
 * Not accepted: UTF-8 (quoted) metric or label names, and a sample with
 * more than OPENMETRICS_MAX_LABELS labels (a parse error: it bounds the
 * duplicate-label check). Invalid UTF-8 inside label values and help text
 * is not looked at.
 *
 * Contracts:
 * - The caller owns the body; it need not be NUL-terminated and is never
 *   read past len. Any bytes are safe (NUL, binary, lines of any length).
 * - Work is linear in len for a given selector (no recursion, no
 *   back-tracking; regexes run only on the label values of samples whose
 *   name is selected). Memory: the selector's own allocation, a fixed
 *   per-call array of label positions on the stack, and, once a regex
 *   matcher is evaluated, one scratch buffer of OPENMETRICS_MAX_DECODED
 *   bytes the value is decoded into (a selected series whose value for a
 *   regex-matched label is longer is a parse error).
 * - A selector is read-only once parsed: several threads may call
 *   openmetrics_sum with the same one at once.
 * - err (errlen bytes, may be NULL when errlen is 0) always comes back
 *   NUL-terminated: "" on OPENMETRICS_OK, a message otherwise.
 */
#ifndef MEMTREND_OPENMETRICS_H
#define MEMTREND_OPENMETRICS_H

#include <stddef.h>

/* Most labels on one sample (or exemplar) before the line is refused. */
#define OPENMETRICS_MAX_LABELS 256
/* Longest label value (decoded) a regex matcher can be run against. */
#define OPENMETRICS_MAX_DECODED 65536

/* Parsed selector METRIC or METRIC{label="v",other!="x",re=~"a.*",nre!~"b"} */
struct openmetrics_selector;

/* 0, or -1 with a human message in err (e.g. "expected '=' after label
 * name at column 12"; columns count bytes from 1). *out is set on success
 * only; free it with openmetrics_selector_free. */
int openmetrics_selector_parse(const char *text,
			       struct openmetrics_selector **out, char *err,
			       size_t errlen);
/* Free a selector (NULL is fine). */
void openmetrics_selector_free(struct openmetrics_selector *sel);
/* The metric name as written in the selector (owned by sel). */
const char *openmetrics_selector_metric(const struct openmetrics_selector *sel);

enum openmetrics_status {
	OPENMETRICS_OK = 0,
	OPENMETRICS_NOT_FOUND = 1,
	OPENMETRICS_PARSE_ERROR = -1
};

/* Sum of the values of every sample of the selected metric whose labels
 * match (the name rule above). body need not be NUL-terminated (len
 * bytes). On OK, *sum and *matched (number of series summed, >= 1); the
 * sum is never NaN but may be +-Inf if a series says so.
 * NOT_FOUND: the body parsed but no sample matched (err says which metric /
 * that labels did not match).
 * PARSE_ERROR: err says "line N: ..." (1-based). Like Prometheus, one
 * malformed line fails the whole scrape. A selected series whose value is
 * NaN is also a PARSE_ERROR ("line N: value ... is NaN"): a counter has no
 * NaN, and the caller should record a gap rather than a number.
 * *sum and *matched are left alone unless OK. */
int openmetrics_sum(const struct openmetrics_selector *sel, const char *body,
		    size_t len, double *sum, size_t *matched, char *err,
		    size_t errlen);

#endif
