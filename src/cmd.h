/*
 * cmd.h - the subcommands (one cmd_*.c each) and what they share. Only
 * main.c and the cmd_*.c files decide the process's exit code.
 */
#ifndef MEMTREND_CMD_H
#define MEMTREND_CMD_H

#include <stdbool.h>

#include "analysis.h"
#include "series.h"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);

enum report_format { REPORT_TEXT, REPORT_JSON };

struct report_options {
	enum report_format format;
	bool color;
	struct analysis_options analysis;
};

/* Analyse every target of d and render it to stdout. Returns an exit
 * code. */
int report_dataset(const struct dataset *d, const struct report_options *o);

/* Join argv into one string for the recording's meta (owned by caller). */
char *cmd_join_argv(int argc, char **argv);

#endif
