/*
 * test_openmetrics_render.c - render_openmetrics.c: the exposition of a
 * small table of targets (a growing process with requests, a group with
 * no pid and no analysis, a target whose name holds a quote, a backslash,
 * a newline and a byte that is not UTF-8) in both formats, byte for byte;
 * the same under a locale with a decimal comma; a write error; content
 * negotiation; and, when promtool is on PATH, Prometheus's own check of
 * the text format (promtool check metrics) and its OpenMetrics parser
 * (promtool tsdb create-blocks-from openmetrics, on a copy with a
 * timestamp added to each sample, which backfilling requires), on that
 * table and on 300 targets named with random bytes.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "render_openmetrics.h"

static const struct om_target table[] = {
	{.target = "api", .kind = "process", .pid = 4242,
	 .footprint = 104857600, .anon = 94371840, .swap = 0,
	 .shmem = 10485760, .gpu = NAN, .rss = 120586240, .file = 15728640,
	 .requests = 12345.25,
	 .connections = 8, .samples = 360, .analysed = true,
	 .verdict = VERDICT_GROWING,
	 /* analysis figures are written rounded: 0.3 -> 0, .25 -> down,
	  * 86400.5 -> 86400 (rint: half to even) */
	 .slope = {7340032, 0.1 + 0.2, 9437184.25, 0.001},
	 .detectable_bph = 1e6 / 3, .exhaustion_s = 86400.5},
	{.target = "workers", .kind = "group", .pid = -1,
	 .footprint = 2147483648.0, .anon = 2147483648.0, .swap = NAN,
	 .shmem = NAN, .gpu = NAN, .rss = 2151677952.0, .file = NAN,
	 .requests = NAN, .connections = NAN,
	 .samples = 12, .analysed = false},
	/* quotes, backslash, newline, an invalid byte; ESC, BEL, DEL, a C1
	 * control and U+202E (right-to-left override): issue 31 found the
	 * last four raw in /metrics */
	{.target = "evil\"name\\with\nnewline\xff\x1b[31m\a\x7f\xc2\x9b"
		   "\xe2\x80\xae", .kind = "name", .pid = 7,
	 .footprint = 4096, .anon = 4096, .swap = 0, .shmem = 0, .gpu = 0,
	 .rss = NAN, .file = NAN, .requests = NAN, .connections = 0, .samples = 5, .analysed = true,
	 .verdict = VERDICT_INCONCLUSIVE, .slope = {NAN, NAN, NAN, NAN},
	 .detectable_bph = NAN, .exhaustion_s = NAN},
};
#define N_TABLE (sizeof(table) / sizeof(table[0]))

#define API "{target=\"api\",kind=\"process\",pid=\"4242\""
#define GRP "{target=\"workers\",kind=\"group\""
#define EVIL "{target=\"evil\\\"name\\\\with\\nnewline\xEF\xBF\xBD" \
	"\xEF\xBF\xBD[31m\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"," \
	"kind=\"name\",pid=\"7\""

#define HELP_FOOTPRINT "Memory footprint of the target by component: " \
	"total (anon + swap + shmem + gpu), anon, swap, shmem, gpu " \
	"(device-local GPU memory). Do not sum over component.\n"
#define HELP_RESIDENT "Resident memory of the target as ps and top show " \
	"it: total (VmRSS = anon + file + shmem), file (RssFile: " \
	"file-backed pages, in the RSS but not in the footprint).\n"
#define HELP_REQUESTS "Work the target did: the cumulative counter of " \
	"its work source (requests, tokens), resets handled.\n"
#define HELP_CONNECTIONS "Open connections of the target at the last " \
	"sample.\n"
#define HELP_SAMPLES "Samples recorded for the target.\n"
#define HELP_SLOPE "Growth of the footprint: the slope's estimate and " \
	"its 95 % interval (bound low, high).\n"
#define HELP_DETECTABLE "The smallest slope the recording so far could " \
	"tell from no growth.\n"
#define HELP_VERDICT "The verdict on the target: 1 for the current one " \
	"of growing, plateau, stable, inconclusive, 0 for the others.\n"
#define HELP_EXHAUSTION "Time until the target fills a pool at the " \
	"measured slope: host memory (pool host) against the cgroup limit " \
	"or MemTotal, a GPU (pool gpu0, ...) against its memory less what " \
	"others hold.\n"
#define HELP_SITES "record --sites: the estimated live bytes of the " \
	"target's largest allocation sites (at most 10), by site: its " \
	"innermost frame, and the caller that tells it apart."

#define FOOTPRINT_SAMPLES \
	"memtrend_footprint_bytes" API ",component=\"total\"} 104857600\n" \
	"memtrend_footprint_bytes" API ",component=\"anon\"} 94371840\n" \
	"memtrend_footprint_bytes" API ",component=\"swap\"} 0\n" \
	"memtrend_footprint_bytes" API ",component=\"shmem\"} 10485760\n" \
	"memtrend_footprint_bytes" GRP ",component=\"total\"} 2147483648\n" \
	"memtrend_footprint_bytes" GRP ",component=\"anon\"} 2147483648\n" \
	"memtrend_footprint_bytes" EVIL ",component=\"total\"} 4096\n" \
	"memtrend_footprint_bytes" EVIL ",component=\"anon\"} 4096\n" \
	"memtrend_footprint_bytes" EVIL ",component=\"swap\"} 0\n" \
	"memtrend_footprint_bytes" EVIL ",component=\"shmem\"} 0\n" \
	"memtrend_footprint_bytes" EVIL ",component=\"gpu\"} 0\n"
/* RSS beside the footprint (issue 28): rss = anon + file + shmem for
 * the process; a figure not read (the group's file) is left out. */
#define RESIDENT_SAMPLES \
	"memtrend_resident_bytes" API ",component=\"total\"} 120586240\n" \
	"memtrend_resident_bytes" API ",component=\"file\"} 15728640\n" \
	"memtrend_resident_bytes" GRP ",component=\"total\"} 2151677952\n"
/* A measured figure that is not integral: the shortest decimal that
 * reads back as the same double. */
#define REQUESTS_SAMPLES "memtrend_requests_total" API "} 12345.25\n"
#define CONNECTIONS_SAMPLES \
	"memtrend_connections" API "} 8\n" \
	"memtrend_connections" EVIL "} 0\n"
#define SAMPLES_SAMPLES \
	"memtrend_samples_total" API "} 360\n" \
	"memtrend_samples_total" GRP "} 12\n" \
	"memtrend_samples_total" EVIL "} 5\n"
#define SLOPE_SAMPLES \
	"memtrend_slope_bytes_per_hour" API ",bound=\"estimate\"} 7340032\n" \
	"memtrend_slope_bytes_per_hour" API ",bound=\"low\"} 0\n" \
	"memtrend_slope_bytes_per_hour" API ",bound=\"high\"} 9437184\n"
#define DETECTABLE_SAMPLES \
	"memtrend_detectable_slope_bytes_per_hour" API "} 333333\n"
#define VERDICT_SAMPLES(L) \
	"memtrend_verdict" API "," L "=\"growing\"} 1\n" \
	"memtrend_verdict" API "," L "=\"plateau\"} 0\n" \
	"memtrend_verdict" API "," L "=\"stable\"} 0\n" \
	"memtrend_verdict" API "," L "=\"inconclusive\"} 0\n" \
	"memtrend_verdict" EVIL "," L "=\"growing\"} 0\n" \
	"memtrend_verdict" EVIL "," L "=\"plateau\"} 0\n" \
	"memtrend_verdict" EVIL "," L "=\"stable\"} 0\n" \
	"memtrend_verdict" EVIL "," L "=\"inconclusive\"} 1\n"
#define EXHAUSTION_SAMPLES "memtrend_exhaustion_seconds" API "} 86400\n"

static const char expected_prometheus[] =
	"# HELP memtrend_footprint_bytes " HELP_FOOTPRINT
	"# TYPE memtrend_footprint_bytes gauge\n"
	FOOTPRINT_SAMPLES
	"# HELP memtrend_resident_bytes " HELP_RESIDENT
	"# TYPE memtrend_resident_bytes gauge\n"
	RESIDENT_SAMPLES
	"# HELP memtrend_requests_total " HELP_REQUESTS
	"# TYPE memtrend_requests_total counter\n"
	REQUESTS_SAMPLES
	"# HELP memtrend_connections " HELP_CONNECTIONS
	"# TYPE memtrend_connections gauge\n"
	CONNECTIONS_SAMPLES
	"# HELP memtrend_samples_total " HELP_SAMPLES
	"# TYPE memtrend_samples_total counter\n"
	SAMPLES_SAMPLES
	"# HELP memtrend_slope_bytes_per_hour " HELP_SLOPE
	"# TYPE memtrend_slope_bytes_per_hour gauge\n"
	SLOPE_SAMPLES
	"# HELP memtrend_detectable_slope_bytes_per_hour " HELP_DETECTABLE
	"# TYPE memtrend_detectable_slope_bytes_per_hour gauge\n"
	DETECTABLE_SAMPLES
	"# HELP memtrend_verdict " HELP_VERDICT
	"# TYPE memtrend_verdict gauge\n"
	VERDICT_SAMPLES("verdict")
	"# HELP memtrend_exhaustion_seconds " HELP_EXHAUSTION
	"# TYPE memtrend_exhaustion_seconds gauge\n"
	EXHAUSTION_SAMPLES;

static const char expected_openmetrics[] =
	"# HELP memtrend_footprint_bytes " HELP_FOOTPRINT
	"# TYPE memtrend_footprint_bytes gauge\n"
	"# UNIT memtrend_footprint_bytes bytes\n"
	FOOTPRINT_SAMPLES
	"# HELP memtrend_resident_bytes " HELP_RESIDENT
	"# TYPE memtrend_resident_bytes gauge\n"
	"# UNIT memtrend_resident_bytes bytes\n"
	RESIDENT_SAMPLES
	"# HELP memtrend_requests " HELP_REQUESTS
	"# TYPE memtrend_requests counter\n"
	REQUESTS_SAMPLES
	"# HELP memtrend_connections " HELP_CONNECTIONS
	"# TYPE memtrend_connections gauge\n"
	CONNECTIONS_SAMPLES
	"# HELP memtrend_samples " HELP_SAMPLES
	"# TYPE memtrend_samples counter\n"
	SAMPLES_SAMPLES
	"# HELP memtrend_slope_bytes_per_hour " HELP_SLOPE
	"# TYPE memtrend_slope_bytes_per_hour gauge\n"
	"# UNIT memtrend_slope_bytes_per_hour bytes_per_hour\n"
	SLOPE_SAMPLES
	"# HELP memtrend_detectable_slope_bytes_per_hour " HELP_DETECTABLE
	"# TYPE memtrend_detectable_slope_bytes_per_hour gauge\n"
	"# UNIT memtrend_detectable_slope_bytes_per_hour bytes_per_hour\n"
	DETECTABLE_SAMPLES
	"# HELP memtrend_verdict " HELP_VERDICT
	"# TYPE memtrend_verdict gauge\n"
	VERDICT_SAMPLES("verdict")
	"# HELP memtrend_exhaustion_seconds " HELP_EXHAUSTION
	"# TYPE memtrend_exhaustion_seconds gauge\n"
	"# UNIT memtrend_exhaustion_seconds seconds\n"
	EXHAUSTION_SAMPLES
	"# EOF\n";

/* The exposition of t[0..n) as a malloc'd string. */
static char *render(enum om_format fmt, const struct om_target *t, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(render_openmetrics(f, fmt, t, n), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void assert_text(const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		size_t i = 0;
		while (got[i] && got[i] == want[i])
			i++;
		print_error("differs at byte %zu:\n--- got from there:\n%s\n"
			    "--- expected from there:\n%s\n", i, got + i,
			    want + i);
		fail();
	}
}

static void test_prometheus_text(void **state)
{
	(void)state;
	char *text = render(OM_PROMETHEUS_TEXT, table, N_TABLE);
	assert_text(text, expected_prometheus);
	free(text);
}

static void test_openmetrics(void **state)
{
	(void)state;
	char *text = render(OM_OPENMETRICS, table, N_TABLE);
	assert_text(text, expected_openmetrics);
	free(text);
}

/* Issue 28: a line per pool that runs out, labelled with the pool; a
 * pool that does not (NAN) has none. */
static void test_pools(void **state)
{
	(void)state;
	struct om_target t = {
		.target = "llm", .kind = "process", .pid = 7,
		.footprint = NAN, .anon = NAN, .swap = NAN, .shmem = NAN,
		.gpu = NAN, .requests = NAN, .connections = NAN,
		.analysed = true, .verdict = VERDICT_GROWING,
		.slope = {NAN, NAN, NAN, NAN}, .detectable_bph = NAN,
		.exhaustion_s = 960, .n_pools = 3,
		.pools = {{"host", NAN}, {"gpu0", 960.4}, {"gpu1", 86400}},
	};
	char *got = render(OM_PROMETHEUS_TEXT, &t, 1);
	const char *want =
		"# HELP memtrend_exhaustion_seconds " HELP_EXHAUSTION
		"# TYPE memtrend_exhaustion_seconds gauge\n"
		"memtrend_exhaustion_seconds{target=\"llm\",kind=\"process\","
		"pid=\"7\",pool=\"gpu0\"} 960\n"
		"memtrend_exhaustion_seconds{target=\"llm\",kind=\"process\","
		"pid=\"7\",pool=\"gpu1\"} 86400\n";
	const char *at = strstr(got, "# HELP memtrend_exhaustion_seconds");
	assert_non_null(at);
	assert_text(at, want);
	free(got);
}

static void check_with_promtool(const struct om_target *t, size_t n);

/* record --sites: a line per site with its label, which the program's
 * names make and so is escaped (a quote, a backslash, a newline); a
 * site without an estimate (NAN) has none; the unit in OpenMetrics.
 * The values are the row's, rounded to whole bytes. */
static void test_sites(void **state)
{
	(void)state;
	const struct om_site sites[] = {
		{"leak_keep (sites_prog.c:49)", 4096000.4},
		{"evil\"} 1\nfake{a=\"\\", 17},
		{"gone", NAN},
	};
	struct om_target t = {
		.target = "svc", .kind = "command", .pid = 42,
		.footprint = NAN, .anon = NAN, .swap = NAN, .shmem = NAN,
		.gpu = NAN, .requests = NAN, .connections = NAN,
		.rss = NAN, .file = NAN, .detectable_bph = NAN,
		.exhaustion_s = NAN, .sites = sites, .n_sites = 3,
	};
	const char *lines =
		"memtrend_site_live_bytes{target=\"svc\",kind=\"command\","
		"pid=\"42\",site=\"leak_keep (sites_prog.c:49)\"} 4096000\n"
		"memtrend_site_live_bytes{target=\"svc\",kind=\"command\","
		"pid=\"42\",site=\"evil\\\"} 1\\nfake{a=\\\"\\\\\"} 17\n";
	char *got = render(OM_PROMETHEUS_TEXT, &t, 1);
	const char *at = strstr(got, "# HELP memtrend_site_live_bytes");
	assert_non_null(at);
	char want[1024];
	snprintf(want, sizeof(want), "# HELP memtrend_site_live_bytes %s\n"
		 "# TYPE memtrend_site_live_bytes gauge\n%s", HELP_SITES,
		 lines);
	assert_text(at, want);
	free(got);
	got = render(OM_OPENMETRICS, &t, 1);
	at = strstr(got, "# HELP memtrend_site_live_bytes");
	assert_non_null(at);
	snprintf(want, sizeof(want), "# HELP memtrend_site_live_bytes %s\n"
		 "# TYPE memtrend_site_live_bytes gauge\n"
		 "# UNIT memtrend_site_live_bytes bytes\n%s# EOF\n",
		 HELP_SITES, lines);
	assert_text(at, want);
	free(got);
	/* and promtool reads both */
	check_with_promtool(&t, 1);
}

/* No target, or no figure at all: no family, and OpenMetrics still ends
 * with # EOF. */
static void test_empty(void **state)
{
	(void)state;
	char *text = render(OM_PROMETHEUS_TEXT, NULL, 0);
	assert_string_equal(text, "");
	free(text);
	text = render(OM_OPENMETRICS, NULL, 0);
	assert_string_equal(text, "# EOF\n");
	free(text);
	struct om_target bare = {.target = NULL, .kind = "pid", .pid = 1,
		.footprint = NAN, .anon = NAN, .swap = NAN, .shmem = NAN,
		.gpu = INFINITY, .rss = NAN, .file = -INFINITY,
		.requests = -1, .connections = NAN,
		.samples = 0, .analysed = false};
	text = render(OM_PROMETHEUS_TEXT, &bare, 1);
	assert_string_equal(text,
		"# HELP memtrend_samples_total " HELP_SAMPLES
		"# TYPE memtrend_samples_total counter\n"
		"memtrend_samples_total{target=\"\",kind=\"pid\",pid=\"1\"} "
		"0\n");
	free(text);
}

/* A caller's locale with a decimal comma changes nothing. */
static void test_locale(void **state)
{
	(void)state;
	const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
			       "fr_FR.utf8"};
	bool set = false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !set; i++)
		set = setlocale(LC_ALL, names[i]) != NULL;
	if (!set)
		skip();  /* no such locale installed here */
	char *text = render(OM_OPENMETRICS, table, N_TABLE);
	setlocale(LC_ALL, "C");
	assert_text(text, expected_openmetrics);
	free(text);
}

static void test_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	assert_int_equal(render_openmetrics(f, OM_OPENMETRICS, table,
					    N_TABLE), -1);
	fclose(f);
}

static void test_negotiate(void **state)
{
	(void)state;
	/* What Prometheus sends. */
	assert_int_equal(render_openmetrics_negotiate(
		"application/openmetrics-text; version=1.0.0,"
		"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), OM_OPENMETRICS);
	assert_int_equal(render_openmetrics_negotiate(
		"application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,"
		"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), OM_OPENMETRICS);
	assert_int_equal(render_openmetrics_negotiate("text/plain"),
			 OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate(NULL),
			 OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate(""),
			 OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate("*/*"),
			 OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate(
		"Application/OpenMetrics-Text"), OM_OPENMETRICS);
	/* Preferred less than the text format, refused, or a version we do
	 * not write. */
	assert_int_equal(render_openmetrics_negotiate(
		"application/openmetrics-text;q=0.4, text/plain;q=0.9"),
		OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate(
		"application/openmetrics-text;q=0"), OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate(
		"application/openmetrics-text; version=2.0.0"),
		OM_PROMETHEUS_TEXT);
	assert_int_equal(render_openmetrics_negotiate(
		"text/html, application/openmetrics-text ; q=0.8"),
		OM_OPENMETRICS);
	assert_string_equal(render_openmetrics_content_type(OM_OPENMETRICS),
		"application/openmetrics-text; version=1.0.0; charset=utf-8");
	assert_string_equal(
		render_openmetrics_content_type(OM_PROMETHEUS_TEXT),
		"text/plain; version=0.0.4; charset=utf-8");
}

/* Both expositions of t[0..n) in files under $TMPDIR, then promtool:
 * `check metrics` must print nothing (no error, no lint problem) on the
 * text format, and the OpenMetrics parser of `tsdb create-blocks-from
 * openmetrics` must take the other. The files are removed when both
 * pass, and named on stderr when not. */
static void check_with_promtool(const struct om_target *t, size_t n)
{
	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		print_message("promtool not on PATH: not checked (the "
			      "Debian package prometheus has it)\n");
		skip();
	}
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/memtrend-om-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	print_message("expositions in %s\n", dir);
	const enum om_format fmts[] = {OM_PROMETHEUS_TEXT, OM_OPENMETRICS};
	const char *names[] = {"metrics.prom", "metrics.om"};
	for (size_t i = 0; i < 2; i++) {
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(render_openmetrics(f, fmts[i], t, n), 0);
		assert_int_equal(fclose(f), 0);
	}
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "promtool check metrics < '%s/metrics.prom' > '%s/check.out'"
		 " 2>&1", dir, dir);
	int rc = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/check.out", dir);
	FILE *f = fopen(cmd, "r");
	assert_non_null(f);
	char out[4096];
	size_t len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = '\0';
	fclose(f);
	print_message("promtool check metrics: exit %d, output: '%s'\n",
		      WEXITSTATUS(rc), out);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");

	/* Backfilling wants a timestamp on every sample: one is added. */
	snprintf(cmd, sizeof(cmd),
		 "sed '/^#/!s/$/ 1700000000/' '%s/metrics.om' > '%s/ts.om' && "
		 "promtool tsdb create-blocks-from openmetrics "
		 "'%s/ts.om' '%s/blocks' > '%s/blocks.out' 2>&1",
		 dir, dir, dir, dir, dir);
	rc = system(cmd);
	if (rc != 0) {
		snprintf(cmd, sizeof(cmd), "cat '%s/blocks.out' >&2", dir);
		(void)!system(cmd);
	}
	print_message("promtool tsdb create-blocks-from openmetrics: "
		      "exit %d\n", WEXITSTATUS(rc));
	assert_int_equal(rc, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

static void test_promtool(void **state)
{
	(void)state;
	check_with_promtool(table, N_TABLE);
}

/* Names of random bytes (every value but NUL, seeded), random figures
 * missing or not, every verdict: promtool must still read both. */
static void test_promtool_random_names(void **state)
{
	(void)state;
	enum { N = 300, NAME_MAX_LEN = 40 };
	static char names[N][NAME_MAX_LEN + 1];
	static struct om_target t[N];
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (size_t i = 0; i < N; i++) {
		size_t len = 1;
		for (size_t k = 0; k < NAME_MAX_LEN; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (k == 0)
				len = 1 + x % NAME_MAX_LEN;
			names[i][k] = k < len ? (char)(1 + x % 255) : '\0';
		}
		names[i][NAME_MAX_LEN] = '\0';
		bool m = x & 1, a = x & 2;
		t[i] = (struct om_target){.target = names[i],
			.kind = names[(i + 1) % N], .pid = (long)i,
			.footprint = m ? NAN : (double)(x % 100000) * 4096,
			.anon = 1.0 / (double)(i + 1), .swap = m ? 0 : NAN,
			.shmem = NAN, .gpu = (double)(x >> 20),
			.requests = a ? (double)i : NAN,
			.connections = m ? NAN : 3, .samples = x,
			.analysed = a, .verdict = (enum verdict)(x % 4),
			.slope = {-(double)i / 7, -1e300, INFINITY, NAN},
			.detectable_bph = 1e-300 * (double)i,
			.exhaustion_s = m ? NAN : 1e12 / (double)(i + 1)};
	}
	check_with_promtool(t, N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prometheus_text),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_sites),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_promtool_random_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
