/*
 * cli_options.c - the option tables of cli_options.h turned into getopt_long's
 * arrays, the options part of --help, and the list the options test reads.
 * Work is O(rows); nothing is kept between calls.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cli_options.h"

#define HELP_COLUMN 25             /* where help text starts */
#define HELP_WIDTH 78              /* where it wraps */

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
		assert(!r->short_name || r->short_name == r->id);
		lo[i++] = (struct option){r->name, r->arg ? required_argument :
					  no_argument, NULL, r->id};
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
			if (r->hidden)
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
			help_wrapped(out, r->help ? r->help : "", col);
			break;
		}
		case CLI_END:
			break;
		}
	}
}

void cli_options_list(FILE *out, const char *command,
		      const struct cli_option *t)
{
	for (const struct cli_option *r = t; r->kind != CLI_END; r++) {
		if (r->kind != CLI_OPTION || r->hidden)
			continue;
		fprintf(out, "%s --%s", command, r->name);
		if (r->arg)
			fprintf(out, " %s", r->arg);
		if (r->short_name)
			fprintf(out, " -%c", r->short_name);
		fputc('\n', out);
	}
}
