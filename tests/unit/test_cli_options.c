/*
 * test_cli_options.c - the one option parser (src/cmd/cli_options.c) as
 * data: tables of argv -> the destination's values, written out as one
 * line ("dur=5 size=1048576 ..."), or -> the message, exit code 2 being
 * CLI_PARSE_ERROR. First a table of every row type; then record's own
 * table through cli_record_parse(), whose values the recorder gets; then
 * every command's table checked for rows that cannot work (a typed row
 * without an argument, a name or letter twice).
 *
 * The expected values are written by hand from units.h's contract (1MiB
 * = 1048576 bytes, 2m = 120 s, 50MiB/h = 52428800 bytes per hour).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_options.h"
#include "cmd.h"
#include "common.h"

/* ---- stderr captured ---------------------------------------------------- */

static FILE *capture_file;
static int saved_fd = -1, captured_fd;
static char captured[8192];

/* fd (2: stderr, 1: stdout) into a temporary file until capture_end(). */
static void capture_begin_fd(int fd)
{
	fflush(stdout);
	fflush(stderr);
	capture_file = tmpfile();
	assert_non_null(capture_file);
	captured_fd = fd;
	saved_fd = dup(fd);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(capture_file), fd) >= 0);
}

static void capture_begin(void)
{
	capture_begin_fd(2);
}

static const char *capture_end(void)
{
	fflush(stdout);
	fflush(stderr);
	dup2(saved_fd, captured_fd);
	close(saved_fd);
	saved_fd = -1;
	rewind(capture_file);
	size_t n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	return captured;
}

/* "a b c" into argv (argv[0] = verb); at most 31 words, none with a
 * space. The words live in buf. */
static int split(const char *verb, const char *line, char *buf, size_t n,
		 char **argv)
{
	int argc = 0;
	argv[argc++] = (char *)verb;
	snprintf(buf, n, "%s", line);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		assert_true(argc < 31);
		/* "<>" stands for an empty argument */
		argv[argc++] = strcmp(w, "<>") == 0 ? w + 2 : w;
	}
	argv[argc] = NULL;
	return argc;
}

/* ---- every row type --------------------------------------------------------- */

struct every {
	bool flag, on;
	const char *str, *nonempty;
	struct cli_strings list, fwd;
	double dur, size, time, dcount;
	struct rate rate;
	int icount;
	long lcount;
	size_t zcount;
	int choice;
	int calls;                 /* the callback's */
};
#define EV struct every

static int count_calls(const struct cli_option *row, const char *arg,
		       void *field)
{
	int *calls = field;
	if (strcmp(arg, "no") == 0)
		return error("--%s: no", row->name);
	(*calls)++;
	return 0;
}

static const struct cli_choice colours[] = {
	{"red", 1}, {"green", 2}, {"blue", 3}, {NULL, 0},
};

static const struct cli_option every_options[] = {
	CLI_SECTION("every type"),
	CLI_FLAG('f', "flag", EV, flag, "a flag"),
	CLI_CLEAR(0, "off", EV, on, "clears on"),
	CLI_STRING('s', "str", EV, str, "S", "a string", NULL),
	CLI_STRING(0, "nonempty", EV, nonempty, "S", "not empty",
		   "which one?"),
	CLI_STRINGS(0, "list", EV, list, "S", "at most 2", 2),
	CLI_FORWARD('p', "pid", EV, fwd, "PID", "forwarded"),
	CLI_FORWARD(0, "children", EV, fwd, NULL, "forwarded, no argument"),
	CLI_DURATION('d', "dur", EV, dur, "DUR", "above 0, up to 1d", 0,
		     true, 86400, "a duration (e.g. 15s)",
		     "is not a time span: it must be above 0"),
	CLI_SIZE(0, "size", EV, size, "SIZE", "at least 1MiB", 1048576,
		 false, INFINITY, "a size of at least 1MiB", NULL),
	CLI_SIZE_UNITS(0, "usize", EV, size, "SIZE", "up to 1KiB", 1, false,
		       1024, "a size up to 1KiB"),
	CLI_RATE(0, "rate", EV, rate, "RATE", "a rate", "a rate (e.g. "
		 "50MiB/h)"),
	CLI_TIME(0, "time", EV, time, "TIME", "a time", "a time"),
	CLI_COUNT(0, "int", EV, icount, "N", "1..256", 1, 256, NULL),
	CLI_COUNT(0, "long", EV, lcount, "N", "0..2^62", 0, 1L << 62, NULL),
	CLI_COUNT(0, "size-t", EV, zcount, "N", "positive", 1, CLI_COUNT_MAX,
		  "a positive count"),
	CLI_COUNT(0, "double", EV, dcount, "N", "positive", 1, CLI_COUNT_MAX,
		  "a positive count"),
	CLI_ENUM(0, "colour", EV, choice, "C", "red, green or blue", colours),
	CLI_CALLBACK(0, "call", "X", "counted", count_calls,
		     offsetof(EV, calls)),
	CLI_STRING(0, "hidden", EV, str, "S", NULL, NULL),
	CLI_HELP_ROW,
	CLI_END_ROW,
};

static const struct cli_command every_command = {
	.name = "test",
	.usage = "usage: memtrend test [options]\n",
	.options = every_options,
	.notes = "\nDUR: 15s.\n",
};

/* The values of e, one line. */
static void every_dump(const struct every *e, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n,
		"flag=%d on=%d str=%s nonempty=%s dur=%.12g size=%.12g "
		"time=%.12g rate=%.12g/%s int=%d long=%ld size_t=%zu "
		"double=%.12g colour=%d calls=%d list=[",
		e->flag, e->on, e->str ? e->str : "-",
		e->nonempty ? e->nonempty : "-", e->dur, e->size, e->time,
		e->rate.bytes, e->rate.basis == RATE_PER_HOUR ? "h" : "req",
		e->icount, e->lcount, e->zcount, e->dcount, e->choice,
		e->calls);
	for (size_t i = 0; i < e->list.n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i ? "," : "", e->list.v[i]);
	len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "] fwd=[");
	for (size_t i = 0; i < e->fwd.n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i ? "," : "", e->fwd.v[i]);
	snprintf(buf + len, len < n ? n - len : 0, "]");
}

struct parse_case {
	const char *args;
	int first;                 /* the first operand, or CLI_PARSE_* */
	const char *want;          /* the dump, or a part of the message */
};

/* The defaults every dump starts from. */
#define D0 "flag=0 on=1 str=- nonempty=- dur=nan size=nan time=nan " \
	"rate=0/h int=0 long=0 size_t=0 double=0 colour=0 calls=0 "

static const struct parse_case every_cases[] = {
	{"", 1, D0 "list=[] fwd=[]"},
	{"-f --off -s x --nonempty y", 7, "flag=1 on=0 str=x nonempty=y "},
	{"-fs x", 3, "flag=1 on=1 str=x "},
	{"--str=a=b", 2, "str=a=b "},
	{"-d 5m", 3, "dur=300 "},
	{"--dur=250ms", 2, "dur=0.25 "},
	{"-d 1d", 3, "dur=86400 "},
	{"--size 1MiB", 3, "size=1048576 "},
	{"--size 21GB", 3, "size=21000000000 "},
	{"--usize 1KiB", 3, "size=1024 "},
	{"--rate 50MiB/h", 3, "rate=52428800/h "},
	{"--rate 2MB/min", 3, "rate=120000000/h "},
	{"--rate 4KiB/req", 3, "rate=4096/req "},
	{"--time 2026-05-01T00:00:00Z", 3, "time=1777593600 "},
	{"--time 1746065040.5", 3, "time=1746065040.5 "},
	{"--int 256 --long 4611686018427387904 --size-t 7 --double 9", 9,
	 "int=256 long=4611686018427387904 size_t=7 double=9 "},
	{"--long 0", 3, "long=0 "},
	{"--colour green", 3, "colour=2 "},
	{"--call a --call b", 5, "calls=2 "},
	{"--list a --list b", 5, "list=[a,b] fwd=[]"},
	{"-p 5 --children --pid=6", 5, "fwd=[--pid,5,--children,--pid,6]"},
	{"--hidden h", 3, "str=h "},
	{"x -f", 2, "flag=1 "},    /* "": getopt moves operands last */
	{"-f -- -s", 3, "flag=1 on=1 str=- "},
	/* errors: one message each */
	{"-d fast", CLI_PARSE_ERROR,
	 "--dur: cannot read 'fast' as a duration (e.g. 15s)"},
	{"-d 0", CLI_PARSE_ERROR,
	 "--dur: '0' is not a time span: it must be above 0"},
	{"-d 2d", CLI_PARSE_ERROR,
	 "--dur: '2d' is not a time span: it must be above 0"},
	{"-d -1s", CLI_PARSE_ERROR, "--dur: cannot read '-1s' as a duration"},
	{"-d nan", CLI_PARSE_ERROR, "--dur: "},
	{"--size 1KiB", CLI_PARSE_ERROR,
	 "--size: '1KiB' is not a size of at least 1MiB"},
	{"--size 5XB", CLI_PARSE_ERROR, "--size: cannot read '5XB' as a size"},
	{"--usize 2KiB", CLI_PARSE_ERROR,
	 "--usize: '2KiB' is not a size up to 1KiB"},
	{"--rate 5MiB", CLI_PARSE_ERROR,
	 "--rate: cannot read '5MiB' as a rate (e.g. 50MiB/h)"},
	{"--rate 0MiB/h", CLI_PARSE_ERROR, "--rate: '0MiB/h' is not"},
	{"--time yesterday", CLI_PARSE_ERROR,
	 "--time: cannot read 'yesterday' as a time"},
	{"--int 0", CLI_PARSE_ERROR,
	 "--int: '0' is not a whole number from 1 to 256"},
	{"--int 257", CLI_PARSE_ERROR, "--int: '257' is not a whole number"},
	{"--int +5", CLI_PARSE_ERROR, "--int: '+5' is not a whole number"},
	{"--int 5x", CLI_PARSE_ERROR, "--int: '5x' is not"},
	{"--int <>", CLI_PARSE_ERROR, "--int: '' is not"},
	{"--long -1", CLI_PARSE_ERROR,
	 "--long: '-1' is not a whole number from 0 to 4611686018427387904"},
	{"--size-t 0", CLI_PARSE_ERROR,
	 "--size-t: '0' is not a positive count"},
	{"--size-t 99999999999999999999", CLI_PARSE_ERROR,
	 "is not a positive count"},
	{"--double 1e3", CLI_PARSE_ERROR,
	 "--double: '1e3' is not a positive count"},
	{"--colour pink", CLI_PARSE_ERROR,
	 "--colour: 'pink' is not red, green or blue"},
	{"--nonempty <>", CLI_PARSE_ERROR, "--nonempty: which one?"},
	{"--list a --list b --list c", CLI_PARSE_ERROR, "--list: at most 2"},
	{"--call no", CLI_PARSE_ERROR, "--call: no"},
	{"--bogus", CLI_PARSE_ERROR,
	 "test: unknown option or missing value: '--bogus' (see 'memtrend "
	 "test --help')"},
	{"--fla", CLI_PARSE_ERROR, "unknown option or missing value: '--fla'"},
	{"-d", CLI_PARSE_ERROR, "unknown option or missing value: '-d'"},
	{"--dur", CLI_PARSE_ERROR, "unknown option or missing value: '--dur'"},
	{"-x", CLI_PARSE_ERROR, "unknown option or missing value: '-x'"},
	{"-f --help -d x", CLI_PARSE_HELP, ""},
	{"-h", CLI_PARSE_HELP, ""},
};

static void test_every_type(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(every_cases); i++) {
		const struct parse_case *c = &every_cases[i];
		struct every e = {.on = true, .dur = NAN, .size = NAN,
				  .time = NAN};
		char buf[512], *argv[32], dump[1024];
		int argc = split("test", c->args, buf, sizeof(buf), argv);
		capture_begin();
		/* --help's text on stdout: test_help */
		FILE *keep = stdout;
		stdout = fopen("/dev/null", "w");
		assert_non_null(stdout);
		int first = cli_parse(&every_command, "", argc, argv, &e);
		fclose(stdout);
		stdout = keep;
		const char *err = capture_end();
		every_dump(&e, dump, sizeof(dump));
		cli_strings_release(&e.list);
		cli_strings_release(&e.fwd);
		if (first != c->first ||
		    (first >= 0 && !strstr(dump, c->want)) ||
		    (first == CLI_PARSE_ERROR && !strstr(err, c->want)) ||
		    (first != CLI_PARSE_ERROR && *err)) {
			print_error("case %zu '%s': first %d (want %d)\n"
				    "  values: %s\n  stderr: %s\n  want: %s\n",
				    i, c->args, first, c->first, dump, err,
				    c->want);
			fail();
		}
		/* one line of message, no more */
		if (first == CLI_PARSE_ERROR) {
			const char *nl = strchr(err, '\n');
			assert_non_null(nl);
			assert_string_equal(nl + 1, "");
		}
	}
}

/* The prefix "+" stops at the first operand: "-- COMMAND -x" keeps -x. */
static void test_stop_at_operand(void **state)
{
	(void)state;
	struct every e = {.dur = NAN};
	char buf[128], *argv[32];
	int argc = split("test", "-f cmd -d 5s", buf, sizeof(buf), argv);
	assert_int_equal(cli_parse(&every_command, "+", argc, argv, &e),
			 2);
	assert_true(e.flag);
	assert_true(isnan(e.dur));
	assert_string_equal(argv[2], "cmd");
	assert_string_equal(argv[3], "-d");
	/* and a parse after it starts afresh (optind 0), permuting again */
	struct every g = {.dur = NAN};
	argc = split("test", "cmd -d 5s", buf, sizeof(buf), argv);
	assert_int_equal(cli_parse(&every_command, "", argc, argv, &g),
			 3);
	assert_true(g.dur == 5);
	assert_string_equal(argv[3], "cmd");
}

/* --help: the usage, the rows' options (hidden ones left out), the notes,
 * byte for byte. */
static void test_help(void **state)
{
	(void)state;
	struct every e = {0};
	char buf[64], *argv[32];
	int argc = split("test", "--help", buf, sizeof(buf), argv);
	capture_begin_fd(1);
	int first = cli_parse(&every_command, "", argc, argv, &e);
	const char *out = capture_end();
	assert_int_equal(first, CLI_PARSE_HELP);
	static const char want[] =
		"usage: memtrend test [options]\n"
		"\n"
		"every type:\n"
		"  -f, --flag             a flag\n"
		"  --off                  clears on\n"
		"  -s, --str S            a string\n"
		"  --nonempty S           not empty\n"
		"  --list S               at most 2\n"
		"  -p, --pid PID          forwarded\n"
		"  --children             forwarded, no argument\n"
		"  -d, --dur DUR          above 0, up to 1d\n"
		"  --size SIZE            at least 1MiB\n"
		"  --usize SIZE           up to 1KiB\n"
		"  --rate RATE            a rate\n"
		"  --time TIME            a time\n"
		"  --int N                1..256\n"
		"  --long N               0..2^62\n"
		"  --size-t N             positive\n"
		"  --double N             positive\n"
		"  --colour C             red, green or blue\n"
		"  --call X               counted\n"
		"  -h, --help             this help\n"
		"\n"
		"DUR: 15s.\n";
	assert_string_equal(out, want);
}

/* ---- record's table, through cli_record_parse() --------------------------- */

static void record_dump(const struct cli_record *c, char *buf, size_t n)
{
	const struct recorder_options *o = &c->o;
	size_t len = (size_t)snprintf(buf, n,
		"interval=%.9g duration=%.9g retain=%.9g rescan=%.9g "
		"smaps=%d smaps_interval=%.9g commit=%.9g timeout=%.9g "
		"all=%d children=%d append=%d regions=%d no_gpu=%d "
		"group_by=%d max_targets=%zu user=%d:%u cgroup=%s name=%s "
		"top=%zu quiet=%d listen=%s lp=%d long=%.9g counter=%d "
		"command=%s pids=[",
		o->interval_s, o->duration_s, o->retain_s, o->rescan_s,
		o->smaps, o->smaps_interval_s, o->commit_interval_s,
		o->source_timeout_s, o->all, o->children, o->append,
		o->regions, o->no_gpu, (int)o->group_by, o->max_targets,
		o->have_user, (unsigned)o->user, o->cgroup ? o->cgroup : "-",
		o->name_regex ? o->name_regex : "-", c->top, c->quiet,
		c->listen ? c->listen : "-", (int)c->listen_processes,
		c->listen_long_s, c->work_is_counter,
		o->command ? o->command[0] : "-");
	for (size_t i = 0; i < o->n_pids && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%d",
					i ? "," : "", (int)o->pids[i]);
	len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "] ports=[");
	for (size_t i = 0; i < o->n_conn_ports && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%u",
					i ? "," : "", o->conn_ports[i]);
	snprintf(buf + len, len < n ? n - len : 0, "]");
}

#define OUT "-o /nonexistent-memtrend-test/x.db "
static const struct parse_case record_cases[] = {
	{OUT "-p 1", EXIT_OK, "interval=15 duration=nan retain=0 rescan=nan "
	 "smaps=0 smaps_interval=60 commit=1 timeout=15 all=0 children=0 "
	 "append=0 regions=0 no_gpu=0 group_by=0 max_targets=0 user=0:0 "
	 "cgroup=- name=- top=0 quiet=0 listen=- lp=1 long=300 counter=0 "
	 "command=- pids=[1] ports=[]"},
	{OUT "-i 500ms -d 2h -p 1 -p 2", EXIT_OK, "interval=0.5 "
	 "duration=7200 "},
	{OUT "-i 30s -p 1", EXIT_OK, "smaps=0 smaps_interval=120 commit=1 "
	 "timeout=30 "},
	{OUT "--smaps-interval 5m -p 1", EXIT_OK, "smaps=1 "
	 "smaps_interval=300 "},
	{OUT "--retain 7d --commit-interval 250ms --work-timeout 2s -p 1",
	 EXIT_OK, "retain=604800 rescan=nan smaps=0 smaps_interval=60 "
	 "commit=0.25 timeout=2 "},
	{OUT "--all", EXIT_OK, "rescan=10 "},
	{OUT "--all --rescan 1m --max-targets 50 --group-by unit --user 0 "
	 "--cgroup system.slice", EXIT_OK, "rescan=60 smaps=0 "},
	{OUT "--all --group-by unit --max-targets 50 --user 0 --cgroup x",
	 EXIT_OK, "group_by=3 max_targets=50 user=1:0 cgroup=x "},
	{OUT "--all --group-by cgroup --listen :0 --listen-processes none",
	 EXIT_OK, "group_by=2 max_targets=10000 "},
	{OUT "--all --listen :0 --listen-processes long=10m", EXIT_OK,
	 "listen=:0 lp=1 long=600 "},
	{OUT "--all --listen :0 --listen-processes all", EXIT_OK, "lp=0 "},
	{OUT "--name srv --children --regions --no-gpu --conn-port 80 "
	 "--conn-port 443 -q --work-is-counter", EXIT_OK, "children=1 "
	 "append=0 regions=1 no_gpu=1 "},
	{OUT "--name srv -q --conn-port 80 --conn-port 443", EXIT_OK,
	 "name=srv top=0 quiet=1 "},
	{OUT "--name srv --conn-port 80 --conn-port 443", EXIT_OK,
	 "ports=[80,443]"},
	{OUT "-- sleep -x", EXIT_OK, "command=sleep "},
	{OUT "-p 1 -- sleep", EXIT_OK, "command=sleep pids=[1] "},
	/* errors, as tests/e2e assert them */
	{OUT "-i fast -p 1", EXIT_USAGE,
	 "--interval: cannot read 'fast' as a duration (e.g. 15s, 500ms, 2h)"},
	{OUT "-i 0 -p 1", EXIT_USAGE, "--interval: '0' is not a time span: it "
	 "must be above 0 (e.g. 15s, 500ms, 2h)"},
	{OUT "--retain 0 -p 1", EXIT_USAGE, "must be longer than 0"},
	{OUT "--retain -1 -p 1", EXIT_USAGE, "must be a positive duration"},
	{OUT "--retain abc -p 1", EXIT_USAGE, "cannot read 'abc' as a duration"},
	{OUT "--retain 1s -i 5s -p 1", EXIT_USAGE, "shorter than the interval"},
	{OUT "--all --listen :0 --listen-processes long=0", EXIT_USAGE,
	 "must be above 0"},
	{OUT "--all --listen :0 --listen-processes some", EXIT_USAGE,
	 "--listen-processes: 'some' is not all, none or long[=DUR]"},
	{OUT "--all --group-by comm", EXIT_USAGE,
	 "--group-by: 'comm' is not name, cgroup or unit"},
	{OUT "--all --max-targets 0", EXIT_USAGE,
	 "--max-targets: '0' is not a positive count"},
	{OUT "--all --top 1000001", EXIT_USAGE,
	 "--top: '1000001' is not a count from 1 to 1000000"},
	{OUT "--all --top 5", EXIT_USAGE, "--top N is for 'watch --all'"},
	{OUT "-p 0", EXIT_USAGE, "-p: '0' is not a process id"},
	{OUT "--conn-port 70000 -p 1", EXIT_USAGE,
	 "--conn-port: '70000' is not a TCP port"},
	{OUT "--all --cgroup <>", EXIT_USAGE,
	 "--cgroup: give a cgroup path or a unit"},
	{OUT "--rescan 5s -p 1", EXIT_USAGE, "go with --all"},
	{"-p 1", EXIT_USAGE, "record: -o FILE is required"},
	{OUT "--bogus", EXIT_USAGE, "record: unknown option or missing value: "
	 "'--bogus' (see 'memtrend record --help')"},
	{OUT "--inter 5s -p 1", EXIT_USAGE, "unknown option or missing value: "
	 "'--inter'"},
};

static void test_record_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(record_cases); i++) {
		const struct parse_case *c = &record_cases[i];
		struct cli_record cli;
		char buf[512], *argv[32], dump[2048] = "";
		int argc = split("record", c->args, buf, sizeof(buf), argv);
		capture_begin();
		int rc = cli_record_parse(argc, argv, "record", &cli);
		const char *err = capture_end();
		if (rc == EXIT_OK) {
			record_dump(&cli, dump, sizeof(dump));
			cli_record_release(&cli);
		}
		if (rc != c->first || (rc == EXIT_OK && !strstr(dump, c->want)) ||
		    (rc != EXIT_OK && !strstr(err, c->want))) {
			print_error("case %zu '%s': rc %d (want %d)\n"
				    "  values: %s\n  stderr: %s\n  want: %s\n",
				    i, c->args, rc, c->first, dump, err,
				    c->want);
			fail();
		}
	}
	diag_set_quiet(false);  /* -q set it */
}

/* ---- every command's table -------------------------------------------------- */

static void check_table(const char *cmd, const struct cli_option *t)
{
	for (const struct cli_option *r = t; r->kind != CLI_END; r++) {
		if (r->kind != CLI_OPTION)
			continue;
		bool takes = r->type != CLI_T_FLAG && r->type != CLI_T_HELP;
		if (r->type == CLI_T_FORWARD || r->type == CLI_T_CALLBACK)
			takes = r->arg != NULL;
		if (takes != (r->arg != NULL) || !r->name || !*r->name) {
			print_error("%s --%s: an argument where its type takes "
				    "none, or none where it takes one\n", cmd,
				    r->name);
			fail();
		}
		if (r->type == CLI_T_CALLBACK)
			assert_non_null(r->cb);
		if (r->type == CLI_T_ENUM)
			assert_non_null(r->choices);
		if (r->type == CLI_T_COUNT)
			assert_true(r->lo >= 0 && r->hi >= r->lo &&
				    r->hi <= (r->width == CLI_W_DOUBLE ?
					      CLI_COUNT_MAX : (double)LONG_MAX));
		if (r->type == CLI_T_DURATION || r->type == CLI_T_SIZE ||
		    r->type == CLI_T_RATE || r->type == CLI_T_TIME)
			assert_non_null(r->what);
		for (const struct cli_option *q = t; q != r; q++) {
			if (q->kind != CLI_OPTION)
				continue;
			if (!strcmp(q->name, r->name) ||
			    (r->short_name && q->short_name == r->short_name)) {
				print_error("%s: --%s twice\n", cmd, r->name);
				fail();
			}
		}
	}
}

/* Every typed row of t refuses a value no type reads with one line that
 * names the option and the value. */
static void check_messages(const char *cmd, const struct cli_option *t)
{
	for (const struct cli_option *r = t; r->kind != CLI_END; r++) {
		if (r->kind != CLI_OPTION || r->type < CLI_T_DURATION ||
		    r->type > CLI_T_ENUM)
			continue;
		union {
			double d;
			struct rate r;
			long l;
			size_t z;
			int i;
		} scratch;
		char want[128];
		snprintf(want, sizeof(want), "memtrend: error: --%s: ",
			 r->name);
		capture_begin();
		int rc = cli_value(r, "x7q", &scratch);
		const char *err = capture_end();
		if (rc != -1 || strncmp(err, want, strlen(want)) != 0 ||
		    !strstr(err, "'x7q'") || !strchr(err, '\n') ||
		    strchr(err, '\n')[1]) {
			print_error("%s --%s: %d '%s'\n", cmd, r->name, rc, err);
			fail();
		}
	}
}

static void test_tables(void **state)
{
	(void)state;
	check_messages("record", record_options);
	check_messages("report", report_options);
	check_messages("demo", demo_options);
	check_messages("books", books_options);
	check_messages("probe", probe_options);
	check_messages("check", check_options);
	check_table("record", record_options);
	check_table("report", report_options);
	check_table("demo", demo_options);
	check_table("books", books_options);
	check_table("probe", probe_options);
	check_table("check", check_options);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_stop_at_operand),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_record_table),
		cmocka_unit_test(test_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
