/*
 * cli_options.h - a subcommand's options, defined once: one table per command
 * gives getopt_long its long options and short-option string, prints the
 * options part of --help, and lists them for `memtrend --list-options`,
 * which the test tests/e2e/options.sh checks against --help and the man
 * page (docs/memtrend.1). Adding an option means adding a row here; the
 * test fails until the man page documents it.
 *
 * What it does not do: parse option arguments (each cmd_*.c does, with
 * units.h) or print a command's synopsis and epilogue (its usage()).
 */
#ifndef MEMTREND_CLI_OPTIONS_H
#define MEMTREND_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

enum cli_row_kind {
	CLI_END,                   /* ends a table */
	CLI_OPTION,                /* an option */
	CLI_SECTION,               /* a heading in --help ("targets") */
	CLI_TEXT,                  /* a line of --help as it is printed */
};

struct cli_option {
	enum cli_row_kind kind;
	const char *name;          /* OPTION: the long name without "--";
				      SECTION: the heading; TEXT: the line */
	int short_name;            /* OPTION: its letter, or 0 */
	int id;                    /* OPTION: what getopt_long returns (the
				      letter, or an id of the command's
				      own enum, above 255) */
	const char *arg;           /* OPTION: the argument's name in --help
				      ("FILE"); NULL: takes none */
	const char *help;          /* OPTION: the help text, wrapped by
				      cli_options_help() */
	bool hidden;               /* OPTION: left out of --help and of the
				      man page check (tuning for tests) */
};

#define CLI_OPT(s, l, i, a, h) {CLI_OPTION, l, s, i, a, h, false}
#define CLI_HIDDEN(l, i, a) {CLI_OPTION, l, 0, i, a, NULL, true}
#define CLI_SECTION(t) {CLI_SECTION, t, 0, 0, NULL, NULL, false}
#define CLI_TEXT(t) {CLI_TEXT, t, 0, 0, NULL, NULL, false}
#define CLI_END_ROW {CLI_END, NULL, 0, 0, NULL, NULL, false}

/* getopt_long's view of table t: *longopts (ended by a zero row) and
 * *shortopts (prefixed with prefix, e.g. "+" to stop at the first
 * non-option), both allocated here; free() both. */
void cli_options_getopt(const struct cli_option *t, const char *prefix,
			struct option **longopts, char **shortopts);

/* getopt_long() without abbreviations: a long option must be spelt out.
 * getopt_long takes any unambiguous prefix, so `check --all` silently
 * meant --allow-inconclusive (a gate that passes what it cannot decide);
 * a prefix is instead returned as '?' with optind just past it, so the
 * caller's "unknown option: argv[optind - 1]" names what was typed. */
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* The options part of --help: for each row in order, a heading line
 * ("\ntargets:"), a text line, or "  -o, --output FILE" padded to column
 * 25 with the help wrapped at 78 columns under it. */
void cli_options_help(FILE *out, const struct cli_option *t);

/* One line per visible option of t: "COMMAND --NAME[ ARG]" (then
 * " -X" when it has a short form), for `memtrend --list-options`. */
void cli_options_list(FILE *out, const char *command,
		      const struct cli_option *t);

#endif
