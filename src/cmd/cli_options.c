/*
 * cli_options.c - the option tables of cli_options.h: getopt_long's arrays,
 * the one parser of every command's options (each row's argument turned
 * into its destination by its type), the options part of --help, and the
 * list the options test reads. Work is O(rows) per option given; nothing
 * is kept between calls.
 *
 * What it does not do: check how options go together, or print anything
 * but one message per bad argument (error()) and --help's rows.
 */
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cli_options.h"
#include "units.h"

#define HELP_COLUMN 25             /* where help text starts */
#define HELP_WIDTH 78              /* where it wraps */
#define ROW_VAL 256                /* getopt's val of a row without a
				      letter: ROW_VAL + its index */

void cli_options_getopt(const struct cli_option *t, const char *prefix,
			struct option **longopts, char **shortopts)
{
	size_t n = 0;
	for (const struct cli_option *r = t; r->kind != CLI_END; r++)
		n += r->kind == CLI_OPTION;
	struct option *lo = xcalloc(n + 1, sizeof(*lo));
	char *so = xmalloc(strlen(prefix) + 2 * n + 1), *p = so;
	p += sprintf(p, "%s", prefix);
	size_t i = 0;
	for (const struct cli_option *r = t; r->kind != CLI_END; r++) {
		if (r->kind != CLI_OPTION)
			continue;
		assert(r->name && *r->name);
		assert(r->short_name >= 0 && r->short_name < ROW_VAL);
		lo[i++] = (struct option){r->name, r->arg ? required_argument :
					  no_argument, NULL, r->short_name ?
					  r->short_name :
					  ROW_VAL + (int)(r - t)};
		if (r->short_name) {
			*p++ = (char)r->short_name;
			if (r->arg)
				*p++ = ':';
		}
	}
	*p = '\0';
	*longopts = lo;
	*shortopts = so;
}

void cli_strings_add(struct cli_strings *s, const char *v)
{
	xgrow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = v;
}

void cli_strings_release(struct cli_strings *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The row getopt's val names (cli_options_getopt()), or NULL. */
static const struct cli_option *row_of_val(const struct cli_option *t,
					   int val)
{
	if (val >= ROW_VAL) {
		const struct cli_option *r = &t[val - ROW_VAL];
		assert(r->kind == CLI_OPTION && !r->short_name);
		return r;
	}
	for (const struct cli_option *r = t; r->kind != CLI_END; r++)
		if (r->kind == CLI_OPTION && r->short_name == val)
			return r;
	return NULL;
}

/* Within the row's bounds (NAN never is). */
static bool in_bounds(const struct cli_option *row, double v)
{
	if (row->lo_open ? !(v > row->lo) : !(v >= row->lo))
		return false;
	return v <= row->hi;
}

/* The one message of a value that reads but lies outside the bounds:
 * "is not", since it was read ("cannot read '0' as a size" would say 0
 * is no size). */
static int out_of_bounds(const struct cli_option *row, const char *arg)
{
	if (row->range)
		return error("--%s: '%s' %s", row->name, arg, row->range);
	return error("--%s: '%s' is not %s", row->name, arg, row->what);
}

/* Digits only, in [lo, hi]: no sign, no blanks, no exponent. Exact up to
 * hi (a seed of 2^62 is not rounded to a double's 53 bits). */
static int read_count(const struct cli_option *row, const char *arg,
		      unsigned long long *u)
{
	char what[96];
	const char *w = row->what;
	if (!w) {
		snprintf(what, sizeof(what), "a whole number from %.0f to %.0f",
			 row->lo, row->hi);
		w = what;
	}
	bool digits = *arg != '\0';
	for (const char *p = arg; *p; p++)
		digits = digits && *p >= '0' && *p <= '9';
	char *end;
	errno = 0;
	*u = digits ? strtoull(arg, &end, 10) : 0;
	if (!digits || errno || *u > (unsigned long long)row->hi ||
	    *u < (unsigned long long)row->lo)
		return error("--%s: '%s' is not %s", row->name, arg, w);
	return 0;
}

static void store_count(const struct cli_option *row, unsigned long long u,
			void *field)
{
	switch (row->width) {
	case CLI_W_INT:
		assert(u <= INT_MAX);
		*(int *)field = (int)u;
		break;
	case CLI_W_LONG:
		assert(u <= LONG_MAX);
		*(long *)field = (long)u;
		break;
	case CLI_W_SIZE:
		*(size_t *)field = (size_t)u;
		break;
	case CLI_W_DOUBLE:
		assert(u <= (unsigned long long)CLI_COUNT_MAX);
		*(double *)field = (double)u;
		break;
	}
}

int cli_named_value(const struct cli_option *row, const char *who,
		    const char *arg, size_t *name_len, void *field)
{
	const char *eq = strchr(arg, '=');
	if (eq == arg)
		return error("--%s: '%s' has no %s before '='", row->name, arg,
			     who);
	*name_len = eq ? (size_t)(eq - arg) : 0;
	return cli_value(row, eq ? eq + 1 : arg, field);
}

/* ENUM: the choices, as "name, cgroup or unit". */
static void choices_text(const struct cli_option *row, char *buf, size_t n)
{
	size_t k = 0, len = 0;
	while (row->choices[k].name)
		k++;
	buf[0] = '\0';
	for (size_t i = 0; i < k && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i == 0 ? "" : i + 1 == k ? " or " :
					", ", row->choices[i].name);
}

int cli_value(const struct cli_option *row, const char *arg, void *field)
{
	assert(row && row->kind == CLI_OPTION && field);
	assert(arg || row->type == CLI_T_FORWARD);
	static const char cannot[] = "--%s: cannot read '%s' as %s";
	double v, q;
	switch (row->type) {
	case CLI_T_STRING:
		if (row->what && !*arg)
			return error("--%s: %s", row->name, row->what);
		*(const char **)field = arg;
		return 0;
	case CLI_T_STRINGS: {
		struct cli_strings *s = field;
		if (row->hi > 0 && (double)s->n >= row->hi)
			return error("--%s: at most %.0f", row->name, row->hi);
		cli_strings_add(s, arg);
		return 0;
	}
	case CLI_T_FORWARD:
		assert(row->forward && !arg == !row->arg);
		cli_strings_add(field, row->forward);
		if (arg)
			cli_strings_add(field, arg);
		return 0;
	case CLI_T_DURATION:
		if (units_parse_duration(arg, &v))
			return error(cannot, row->name, arg, row->what);
		if (!in_bounds(row, v))
			return out_of_bounds(row, arg);
		*(double *)field = v;
		return 0;
	case CLI_T_SIZE: {
		bool readable = units_parse_size(arg, &v, &q) == 0;
		if (readable && in_bounds(row, v)) {
			*(double *)field = v;
			return 0;
		}
		if (readable)
			return out_of_bounds(row, arg);
		if (row->say_units)
			return error("--%s: cannot read '%s' as %s (%s)",
				     row->name, arg, row->what,
				     units_size_help());
		return error(cannot, row->name, arg, row->what);
	}
	case CLI_T_RATE: {
		struct rate r;
		if (units_parse_rate(arg, &r))
			return error(cannot, row->name, arg, row->what);
		if (!in_bounds(row, r.bytes))
			return out_of_bounds(row, arg);
		*(struct rate *)field = r;
		return 0;
	}
	case CLI_T_TIME:
		if (units_parse_time(arg, &v))
			return error(cannot, row->name, arg, row->what);
		*(double *)field = v;
		return 0;
	case CLI_T_COUNT: {
		assert(row->lo >= 0 && row->hi >= row->lo &&
		       row->hi <= (double)LONG_MAX);
		unsigned long long u;
		if (read_count(row, arg, &u))
			return -1;
		store_count(row, u, field);
		return 0;
	}
	case CLI_T_ENUM:
		for (const struct cli_choice *c = row->choices; c->name; c++)
			if (strcmp(c->name, arg) == 0) {
				*(int *)field = c->value;
				return 0;
			}
		if (row->what)
			return error("--%s: '%s' is not %s", row->name, arg,
				     row->what);
		char text[256];
		choices_text(row, text, sizeof(text));
		return error("--%s: '%s' is not %s", row->name, arg, text);
	case CLI_T_FLAG:
	case CLI_T_HELP:
	case CLI_T_CALLBACK:
		break;
	}
	assert(!"a row without an argument's type");
	return -1;
}

int cli_parse(const struct cli_command *cmd, const char *prefix, int argc,
	      char **argv, void *dest)
{
	assert(cmd && cmd->options && prefix && argc >= 1 && argv && dest);
	const struct cli_option *t = cmd->options;
	const char *verb = cmd->name;
	struct option *longopts;
	char *shortopts;
	cli_options_getopt(t, prefix, &longopts, &shortopts);
	int rc = CLI_PARSE_ERROR, c;
	/* 0, not 1: glibc then starts afresh (the ordering of prefix, a
	 * short-option cluster left half-read by an earlier parse). */
	optind = 0;
	opterr = 0;  /* our own message, naming the command */
	while ((c = cli_getopt(argc, argv, shortopts, longopts)) != -1) {
		const struct cli_option *r = c == '?' || c == ':' ? NULL :
					     row_of_val(t, c);
		if (!r) {
			error("%s: unknown option or missing value: '%s' (see "
			      "'memtrend %s --help')", verb, argv[optind - 1],
			      verb);
			goto out;
		}
		void *field = (char *)dest + r->offset;
		switch (r->type) {
		case CLI_T_HELP:
			cli_usage(stdout, cmd);
			rc = CLI_PARSE_HELP;
			goto out;
		case CLI_T_FLAG:
			*(bool *)field = r->lo != 0;
			break;
		case CLI_T_CALLBACK:
			assert(r->cb);
			if (r->cb(r, optarg, field))
				goto out;
			break;
		default:
			if (cli_value(r, optarg, field))
				goto out;
			break;
		}
	}
	rc = optind;
out:
	free(longopts);
	free(shortopts);
	return rc;
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	int idx = -1;
	int c = getopt_long(argc, argv, shortopts, longopts, &idx);
	if (c == -1 || c == '?' || c == ':' || idx < 0)
		return c;
	/* The element that named the option: the one before its separate
	 * argument ("--load CMD"), else the last one read ("--load=CMD",
	 * "--json"). */
	int at = optind - 1;
	if (optarg && at >= 1 && optarg == argv[at])
		at--;
	assert(at >= 1 && at < argc);
	const char *typed = argv[at];
	if (strncmp(typed, "--", 2) != 0)
		return c;  /* a short option: nothing to check */
	typed += 2;
	size_t len = strcspn(typed, "=");
	const char *name = longopts[idx].name;
	if (strlen(name) == len && strncmp(typed, name, len) == 0)
		return c;
	optind = at + 1;
	return '?';
}

/* Help text from column HELP_COLUMN, wrapped at spaces to HELP_WIDTH; the
 * first line continues the current one (at column col). */
static void help_wrapped(FILE *out, const char *s, int col)
{
	const int room = HELP_WIDTH - HELP_COLUMN;
	if (!*s)
		fputc('\n', out);
	while (*s) {
		if (col > HELP_COLUMN) {
			fputc('\n', out);
			col = 0;
		}
		fprintf(out, "%*s", HELP_COLUMN - col, "");
		size_t len = strlen(s);
		size_t take = len;
		if ((int)len > room) {
			take = (size_t)room;
			while (take > 0 && s[take] != ' ')
				take--;
			if (take == 0)  /* one long word: let it run over */
				take = strcspn(s, " ");
		}
		fprintf(out, "%.*s\n", (int)take, s);
		s += take;
		while (*s == ' ')
			s++;
		col = 0;
	}
}

void cli_options_help(FILE *out, const struct cli_option *t)
{
	for (const struct cli_option *r = t; r->kind != CLI_END; r++) {
		switch (r->kind) {
		case CLI_SECTION:
			fprintf(out, "\n%s:\n", r->name);
			break;
		case CLI_TEXT:
			fprintf(out, "%s\n", r->name);
			break;
		case CLI_OPTION: {
			if (!r->help)
				break;
			int col;
			if (r->short_name)
				col = fprintf(out, "  -%c, --%s",
					      r->short_name, r->name);
			else
				col = fprintf(out, "  --%s", r->name);
			if (r->arg)
				col += fprintf(out, " %s", r->arg);
			if (col >= HELP_COLUMN - 1) {
				fputc('\n', out);
				col = 0;
			}
			help_wrapped(out, r->help, col);
			break;
		}
		case CLI_END:
			break;
		}
	}
}

void cli_usage(FILE *out, const struct cli_command *cmd)
{
	assert(cmd->usage && cmd->options);
	fputs(cmd->usage, out);
	cli_options_help(out, cmd->options);
	if (cmd->notes)
		fputs(cmd->notes, out);
}

void cli_options_list(FILE *out, const char *command,
		      const struct cli_option *t)
{
	for (const struct cli_option *r = t; r->kind != CLI_END; r++) {
		if (r->kind != CLI_OPTION || !r->help)
			continue;
		fprintf(out, "%s --%s", command, r->name);
		if (r->arg)
			fprintf(out, " %s", r->arg);
		if (r->short_name)
			fprintf(out, " -%c", r->short_name);
		fputc('\n', out);
	}
}
