/*
 * cli_options.h - a subcommand's options, declared once as rows that carry
 * each option's type and destination (as git's parse-options): one table
 * per command gives getopt_long its arrays, cli_parse() the conversion of
 * every argument into the command's own struct, the options part of
 * --help, and the list `memtrend --list-options` prints, which the test
 * tests/e2e/options.sh holds against --help and the man page
 * (docs/memtrend.1). Adding an option means adding a row here; the test
 * fails until the man page documents it.
 *
 * A row's destination is a field of the command's argument struct, named
 * by offsetof and checked against the row's type when the table compiles
 * (a duration row on an int field does not build). What a value means is
 * the type's: one duration parser, one size parser, one count parser
 * (units.h under them), each with one message format:
 *     DURATION, SIZE, RATE, TIME: "--OPT: cannot read 'ARG' as WHAT"
 *     COUNT, ENUM:                "--OPT: 'ARG' is not WHAT"
 * where WHAT is the row's phrase ("a duration (e.g. 15s, 500ms, 2h)");
 * a value that reads but lies outside the row's bounds gets
 * "--OPT: 'ARG' is not WHAT", or "--OPT: 'ARG' RANGE" when the row gives
 * RANGE. What no type
 * says (a grammar of its own: "--cap NAME=SIZE", "--retain", a list of
 * verdicts) is a CALLBACK row, which may convert its parts with
 * cli_value().
 *
 * A command's --help is data too (struct cli_command): its synopsis and
 * what it does, the rows' options, then its notes; cli_parse() prints it.
 *
 * What it does not do: check how options go together (-o required, --top
 * only with --all: the command's code after cli_parse()) or set defaults
 * (the command's struct as it is handed in).
 */
#ifndef MEMTREND_CLI_OPTIONS_H
#define MEMTREND_CLI_OPTIONS_H

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "units.h"

enum cli_row_kind {
	CLI_END,                   /* ends a table */
	CLI_OPTION,                /* an option */
	CLI_SECTION,               /* a heading in --help ("targets") */
	CLI_TEXT,                  /* a line of --help as it is printed */
};

/* What an option's argument is, and so its destination's C type. */
enum cli_type {
	CLI_T_FLAG,                /* bool: set to (lo != 0); no argument */
	CLI_T_HELP,                /* no destination: cli_parse() returns
				      CLI_PARSE_HELP */
	CLI_T_STRING,              /* const char *: the argument itself (in
				      argv: not copied); when what is set,
				      an empty one is "--OPT: WHAT" */
	CLI_T_STRINGS,             /* struct cli_strings: each given one
				      appended; at most hi when hi > 0 */
	CLI_T_FORWARD,             /* struct cli_strings: "--NAME" and its
				      argument appended, for another
				      command's parser (check -> record) */
	CLI_T_DURATION,            /* double seconds (units.h DUR) */
	CLI_T_SIZE,                /* double bytes (units.h SIZE) */
	CLI_T_RATE,                /* struct rate; bounds on .bytes */
	CLI_T_TIME,                /* double Unix seconds (units.h time) */
	CLI_T_COUNT,               /* an integer, digits only: int, long,
				      size_t or double (width says) */
	CLI_T_ENUM,                /* int: the value of one of choices */
	CLI_T_CALLBACK,            /* cb(row, arg, field) */
};

/* Where a COUNT goes (chosen by the field's C type, cli_count_width). */
enum cli_width { CLI_W_INT, CLI_W_LONG, CLI_W_SIZE, CLI_W_DOUBLE };

/* One word of an ENUM row: "unit" -> RECORDER_GROUP_UNIT. */
struct cli_choice {
	const char *name;
	int value;
};

/* A growing list of strings (owned array, borrowed strings): STRINGS,
 * FORWARD. cli_strings_release() frees the array. */
struct cli_strings {
	const char **v;
	size_t n, cap;
};

struct cli_option;
/* A CALLBACK row's conversion: 0, or -1 after a message (error()) that
 * names the option. field: the row's destination (offset into the struct
 * given to cli_parse(); 0 for the whole struct), of the type the callback
 * says. arg: NULL for a row without an argument. */
typedef int (*cli_callback)(const struct cli_option *row, const char *arg,
			    void *field);

struct cli_option {
	enum cli_row_kind kind;
	const char *name;          /* OPTION: the long name without "--";
				      SECTION: the heading; TEXT: the line */
	int short_name;            /* OPTION: its letter, or 0 */
	const char *arg;           /* OPTION: the argument's name in --help
				      ("FILE"); NULL: takes none */
	const char *help;          /* OPTION: the help text, wrapped by
				      cli_options_help(); NULL: a hidden
				      option, left out of --help and of the
				      man page check (tuning for tests) */
	enum cli_type type;
	size_t offset;             /* the destination: offsetof() in the
				      command's struct */
	enum cli_width width;      /* COUNT */
	double lo, hi;             /* bounds, inclusive unless lo_open;
				      FLAG: lo is the value stored */
	bool lo_open;              /* the value must be above lo */
	const char *what;          /* the phrase of the message: "a duration
				      (e.g. 15s, 500ms, 2h)"; COUNT without
				      it: "a whole number from LO to HI";
				      ENUM without it: the choices */
	const char *range;         /* readable but out of bounds: "--OPT:
				      'ARG' RANGE"; NULL: as unreadable */
	bool say_units;            /* SIZE: the units follow the message */
	const struct cli_choice *choices; /* ENUM: ended by a NULL name */
	cli_callback cb;           /* CALLBACK */
	const char *forward;       /* FORWARD: "--NAME" */
};

/* The destination field f of struct T, checked to be of type C: a
 * _Generic with one association does not compile for another type. */
#define CLI_FIELD(T, f, C) _Generic(((T *)0)->f, C: offsetof(T, f))
/* An int-sized field (an enum, whose compatible type is the compiler's
 * choice): a negative array size does not compile. */
#define CLI_INT_FIELD(T, f) (offsetof(T, f) + 0 * sizeof(char[ \
	sizeof(((T *)0)->f) == sizeof(int) ? 1 : -1]))
#define cli_count_width(T, f) _Generic(((T *)0)->f, int: CLI_W_INT, \
	long: CLI_W_LONG, size_t: CLI_W_SIZE, double: CLI_W_DOUBLE)

#define CLI_ROW_(s, l, a, h, ...) {.kind = CLI_OPTION, .name = l, \
	.short_name = s, .arg = a, .help = h, __VA_ARGS__}

/* A flag that sets bool T.f (CLI_CLEAR: clears it, "--no-color"). */
#define CLI_FLAG(s, l, T, f, h) CLI_ROW_(s, l, NULL, h, .type = CLI_T_FLAG, \
	.offset = CLI_FIELD(T, f, bool), .lo = 1)
#define CLI_CLEAR(s, l, T, f, h) CLI_ROW_(s, l, NULL, h, \
	.type = CLI_T_FLAG, .offset = CLI_FIELD(T, f, bool), .lo = 0)
#define CLI_HELP_ROW CLI_ROW_('h', "help", NULL, "this help", \
	.type = CLI_T_HELP)
/* A string; empty is refused with "--OPT: empty" when empty is set. */
#define CLI_STRING(s, l, T, f, a, h, empty) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_STRING, .offset = CLI_FIELD(T, f, const char *), \
	.what = empty)
#define CLI_STRINGS(s, l, T, f, a, h, max) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_STRINGS, \
	.offset = CLI_FIELD(T, f, struct cli_strings), .hi = max)
#define CLI_FORWARD(s, l, T, f, a, h) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_FORWARD, \
	.offset = CLI_FIELD(T, f, struct cli_strings), .forward = "--" l)
/* A duration in [lo, hi] (lo excluded when lo_open). */
#define CLI_DURATION(s, l, T, f, a, h, lo_, lo_open_, hi_, what_, range_) \
	CLI_ROW_(s, l, a, h, .type = CLI_T_DURATION, \
	.offset = CLI_FIELD(T, f, double), .lo = lo_, .lo_open = lo_open_, \
	.hi = hi_, .what = what_, .range = range_)
#define CLI_SIZE(s, l, T, f, a, h, lo_, lo_open_, hi_, what_, range_) \
	CLI_ROW_(s, l, a, h, .type = CLI_T_SIZE, \
	.offset = CLI_FIELD(T, f, double), .lo = lo_, .lo_open = lo_open_, \
	.hi = hi_, .what = what_, .range = range_)
/* The same whose message ends with the units (units_size_help()). */
#define CLI_SIZE_UNITS(s, l, T, f, a, h, lo_, lo_open_, hi_, what_) \
	CLI_ROW_(s, l, a, h, .type = CLI_T_SIZE, \
	.offset = CLI_FIELD(T, f, double), .lo = lo_, .lo_open = lo_open_, \
	.hi = hi_, .what = what_, .say_units = true)
#define CLI_RATE(s, l, T, f, a, h, what_) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_RATE, .offset = CLI_FIELD(T, f, struct rate), \
	.lo = 0, .lo_open = true, .hi = INFINITY, .what = what_)
#define CLI_TIME(s, l, T, f, a, h, what_) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_TIME, .offset = CLI_FIELD(T, f, double), \
	.what = what_)
/* A count in [lo, hi]. */
#define CLI_COUNT(s, l, T, f, a, h, lo_, hi_, what_) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_COUNT, .offset = offsetof(T, f), \
	.width = cli_count_width(T, f), .lo = lo_, .hi = hi_, .what = what_)
#define CLI_ENUM(s, l, T, f, a, h, choices_) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_ENUM, .offset = CLI_INT_FIELD(T, f), \
	.choices = choices_)
/* A callback on the field at offset off (0: the whole struct). */
#define CLI_CALLBACK(s, l, a, h, cb_, off) CLI_ROW_(s, l, a, h, \
	.type = CLI_T_CALLBACK, .cb = cb_, .offset = off)
#define CLI_SECTION(t) {.kind = CLI_SECTION, .name = t}
#define CLI_TEXT(t) {.kind = CLI_TEXT, .name = t}
#define CLI_END_ROW {.kind = CLI_END}

/* The largest count a row may take into a double (what a double holds
 * exactly: 2^53); other widths take up to LONG_MAX, exactly. */
#define CLI_COUNT_MAX 9007199254740992.0

/* A command as --help shows it: usage (the synopsis and what the command
 * does, each line ending in a newline), the options of its table, then
 * notes (units, exit codes; NULL: none). name is the word in messages
 * ("record: unknown option ..."). */
struct cli_command {
	const char *name;
	const char *usage;
	const struct cli_option *options;
	const char *notes;
};

/* cmd's --help on out. */
void cli_usage(FILE *out, const struct cli_command *cmd);

enum {
	CLI_PARSE_ERROR = -1,      /* a message was printed: exit 2 */
	CLI_PARSE_HELP = -2,       /* --help was given: print the usage */
};

/* Parse argv (argv[0] the command's name) by cmd's table into the struct
 * at dest, which holds the defaults. cmd->name names the command in
 * messages ("record: unknown option or missing value: '--x' (see
 * 'memtrend record --help')"). prefix is getopt's ("+": stop at the first
 * operand, so that "-- COMMAND -x" keeps -x). Long options must be spelt
 * out (cli_getopt()). Returns the index of the first operand (argc when
 * none), CLI_PARSE_HELP after --help was printed on stdout
 * (cli_usage()), or CLI_PARSE_ERROR after one message. What STRINGS and
 * FORWARD rows gathered stays in dest, also on failure: the caller
 * releases it. Sets getopt's optind (to the first operand). */
int cli_parse(const struct cli_command *cmd, const char *prefix, int argc,
	      char **argv, void *dest);

/* The conversion of one typed row: arg into field (the row's
 * destination), with the row's bounds and messages. 0, or -1 after a
 * message. For callbacks that read a part of their argument as a
 * duration, a size, a count ("long=DUR"). */
int cli_value(const struct cli_option *row, const char *arg, void *field);

/* "NAME=VALUE" or "VALUE" (--cap NAME=SIZE): VALUE converted by
 * cli_value(row) into field, *name_len the length of NAME (0 without an
 * '='). An empty NAME before '=' is refused ("--OPT: 'ARG' has no WHO
 * before '='"). 0, or -1 after one message. */
int cli_named_value(const struct cli_option *row, const char *who,
		    const char *arg, size_t *name_len, void *field);

void cli_strings_add(struct cli_strings *s, const char *v);
void cli_strings_release(struct cli_strings *s);

/* getopt_long's view of table t: *longopts (ended by a zero row) and
 * *shortopts (prefixed with prefix), both allocated here; free() both.
 * An option's val is its letter, or 256 + its row's index. */
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
