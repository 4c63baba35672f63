/*
 * main.c - memtrend's entry point: the dispatch table of subcommands,
 * --help and --version. Each subcommand lives in its own cmd_*.c file.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common.h"
#include "cli_options.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const struct cli_option *options;  /* its table (cli_options.h) */
};

static const struct subcommand subcommands[] = {
	{"record", cmd_record, "record a service's memory into a file",
	 record_options},
	{"watch", cmd_watch, "record with a live view: slope, verdict so far",
	 record_options},
	{"report", cmd_report, "analyse a recording or a CSV: verdict and "
			       "evidence", report_options},
	{"demo", cmd_demo, "record three built-in workloads and report them",
	 demo_options},
	{"books", cmd_books, "each process's footprint and cap, summed "
			     "against the machine", books_options},
	{"probe", cmd_probe, "is it the allocator? allocate and free, "
			     "compare what each arm keeps", probe_options},
	{"check", cmd_check, "a CI gate: run a load, pass or fail on growth "
			     "per request", check_options},
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: memtrend <command> [options]\n"
		"\n"
		"Is this memory growth a leak, a cache that stops at a cap, or "
		"growth that\nis never released? memtrend records the right "
		"figures and says what the\ndata can and cannot show.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fprintf(out,
		"\n"
		"  memtrend <command> --help    options of one command\n"
		"  memtrend --version           version\n"
		"\n"
		"examples:\n"
		"  memtrend demo\n"
		"  memtrend record -o run.db -p 1234          (Ctrl-C to stop)\n"
		"  memtrend record -o run.db --name 'llama-server' --interval 15s\n"
		"  memtrend record -o run.db -- ./my-service --port 8080\n"
		"  memtrend report run.db [--json]\n"
		"  memtrend report readings.csv --resolution 1GB\n"
		"  memtrend check --max-per-request 1KiB --work URL#METRIC \\\n"
		"      --load 'wrk -d60s http://127.0.0.1:8080/' -- ./my-service\n"
		"\n"
		"exit codes: 0 ok, 1 a check failed, 2 usage or bad input, "
		"3 run-time failure\n"
		"See memtrend(1) for details.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	/* Every command's options, one per line (cli_options.h): for the test
	 * that holds --help and the man page to the tables, and for shell
	 * completion. */
	if (!strcmp(cmd, "--list-options")) {
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
			cli_options_list(stdout, subcommands[i].name,
					 subcommands[i].options);
		return fflush(stdout) ? EXIT_RUNTIME : EXIT_OK;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") ||
	    !strcmp(cmd, "version")) {
		printf("memtrend %s\n", MEMTREND_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		if (!strcmp(cmd, subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	error("unknown command '%s' (see 'memtrend --help')", cmd);
	return EXIT_USAGE;
}
