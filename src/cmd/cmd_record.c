/*
 * cmd_record.c - `memtrend record`: options (record_cli_parse() in
 * cli_record.c, shared with `memtrend watch`), then the recorder loop.
 * With -- COMMAND, the command's exit status is passed on as memtrend's.
 */
#include "cmd.h"
#include "common.h"
#include "recorder.h"

int cmd_record(int argc, char **argv)
{
	struct record_cli cli;
	int rc = record_cli_parse(argc, argv, "record", &cli);
	if (rc != EXIT_OK)
		return rc == RECORD_CLI_HELP ? EXIT_OK : rc;
	struct recorder_result res;
	rc = record_foreground(&cli.o, cli.status_line, &res);
	record_cli_handed_over(&cli);
	if (rc == EXIT_OK && cli.o.command && res.command_status >= 0)
		rc = res.command_status;
	record_cli_release(&cli);
	return rc;
}
