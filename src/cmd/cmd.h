/*
 * cmd.h - the subcommands (one cmd_*.c each) and what they share. Only
 * main.c and the cmd_*.c files decide the process's exit code.
 */
#ifndef MEMTREND_CMD_H
#define MEMTREND_CMD_H

#include <stdbool.h>

#include "analysis.h"
#include "cli_options.h"
#include "exporter.h"
#include "fleet.h"
#include "recorder.h"
#include "render.h"
#include "series.h"

/* Each command's option table (cli_options.h), in its cmd_*.c file; watch
 * shares record's (cli_record.c). */
extern const struct cli_option record_options[], report_options[],
	demo_options[], books_options[], probe_options[],
	check_options[];

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_books(int argc, char **argv);
int cmd_probe(int argc, char **argv);
/* `memtrend check` (cmd_check.c): a CI gate on memory growth. */
int cmd_check(int argc, char **argv);

/* REPORT_FOLDED: report --folded, the sites as folded stacks
 * (render_sites.h; report_options.folded says what the value is). */
enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_FOLDED };

struct report_options {
	enum report_format format;
	bool color;
	bool plot;                 /* text plot (a terminal, not --no-plot) */
	size_t top;                /* --top N: the worst N targets in the text
				      and the page; 0 = all (JSON: all) */
	struct analysis_options analysis;
	unsigned fail_on;          /* --fail-on: bit 1 << enum verdict; a
				      target with such a verdict exits 1 */
	int folded;                /* with REPORT_FOLDED: enum folded_value */
	const char *pprof;         /* --pprof FILE: the sites' profile; NULL */
};

/* Where --html writes: FILE is replaced only once the page is complete
 * (written to FILE.tmp.PID next to it, then renamed); "-" is stdout. */
struct report_html {
	const char *path;          /* NULL: no HTML */
	char *tmp;                 /* owned */
	FILE *f;
	struct render_html_options opt;
};

/* Analyse every target of d once, then render: the HTML page to html when
 * given (may be NULL), and text or JSON to stdout unless the page goes
 * there. Returns an exit code. (cli.c) */
int cli_report_dataset(const struct dataset *d, const struct report_options *o,
		   struct report_html *html);

/* The same for findings already made (f[i] of d->targets[i]); f stays
 * the caller's. (cli.c) */
int cli_report_findings(const struct dataset *d,
			const struct target_findings *f,
			const struct report_options *o, struct report_html *h);

/* `report --prometheus URL --query PROMQL` (cli_fleet.c, docs/fleet.md):
 * the options, rows of report_options (cmd_report.c) into fleet_options
 * (remote/fleet.h, with FLEET_PARALLEL_MAX), and their bounds. */
#define FLEET_MAX_SERIES_MAX 100000000.0
#define FLEET_BODY_MIN 1048576.0   /* --max-response: at least 1 MiB */
void cli_fleet_init(struct fleet_options *fo);
void cli_fleet_release(struct fleet_options *fo);
/* --by LABEL,...: field is the struct fleet_options; its labels appended
 * (a callback of cli_options.h). */
int cli_fleet_by(const struct cli_option *row, const char *arg, void *field);
/* Fetch, analyse and report (file: a FILE argument given as well, which
 * is an error; may be NULL). Returns an exit code. */
int cli_fleet_report(const struct fleet_options *fo, const char *file,
		     const struct report_options *o, struct report_html *h);

/* record's options, shared by `record` and `watch` (cmd_record.c). */
#define CLI_RECORD_HELP (-1)
struct cli_record {
	struct recorder_options o;
	pid_t *pids;
	uint16_t *ports;
	struct source **sources;
	size_t n_sources;
	char *invocation;
	bool quiet;
	bool status_line;          /* the live line on stderr (a terminal,
				      not --quiet) */
	const char *listen;        /* --listen [ADDR:]PORT, or NULL */
	/* --listen-processes: which of --all's processes are served one by
	 * one (exporter.h); listen_long_s > 0 with "long" */
	enum exporter_processes listen_processes;
	double listen_long_s;
	bool work_is_counter;      /* --work-is-counter (analysis.h) */
	size_t top;                /* watch --all --top N; 0: not given */
};
/* Parse argv (verb: "record" or "watch", for messages and --help).
 * EXIT_OK: *cli is ready for recorder_run(); EXIT_USAGE or EXIT_RUNTIME
 * after a message; CLI_RECORD_HELP after --help was printed. On anything
 * but EXIT_OK nothing is left to release. */
int cli_record_parse(int argc, char **argv, const char *verb,
		     struct cli_record *cli);
/* After recorder_run() started (it owns the sources from then on). */
void cli_record_handed_over(struct cli_record *cli);
void cli_record_release(struct cli_record *cli);

/* Run the recorder of cli->o in the foreground (record): SIGINT, SIGTERM
 * and SIGHUP stop it (their handlers are put back afterwards), and with
 * cli->status_line a live line on stderr shows where it stands; with
 * cli->listen, the exporter serves what cli->listen_processes says and its
 * analyses take cli->work_is_counter (--work-is-counter). Returns
 * recorder_run()'s exit code. (cli_record.c) */
int cli_record_foreground(const struct cli_record *cli,
			  struct recorder_result *res);

/* Join argv into one string (cli.c) for the recording's meta (owned by caller). */
char *cli_join_argv(int argc, char **argv);

/* `memtrend watch` (cmd_watch.c): record's options and recording, with a
 * live full-terminal view of the first target (plain lines when stdout
 * is not a terminal). Exit code as cmd_record(). */
int cmd_watch(int argc, char **argv);
/* (cli.c) The terminal's character set is UTF-8 by LC_ALL, LC_CTYPE or LANG (no
 * setlocale(): the recorder's regexes stay in the C locale). */
bool cli_locale_utf8(void);

#endif
