/*
 * cmd_record.c - `memtrend record`: options (cli_record_parse() in
 * cli_record.c, shared with `memtrend watch`), then the recorder loop.
 * With -- COMMAND, the command's exit status is passed on as memtrend's.
 */
#include "cmd.h"
#include "common.h"
#include "recorder.h"

int cmd_record(int argc, char **argv)
{
	struct cli_record cli;
	int rc = cli_record_parse(argc, argv, "record", &cli);
	if (rc != EXIT_OK)
		return rc == CLI_RECORD_HELP ? EXIT_OK : rc;
	struct recorder_result res;
	rc = cli_record_foreground(&cli, &res);
	cli_record_handed_over(&cli);
	if (rc == EXIT_OK && cli.o.command && res.command_status >= 0 &&
	    !res.duration_ended)
		rc = res.command_status;
	cli_record_release(&cli);
	return rc;
}
