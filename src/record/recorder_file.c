/*
 * recorder_file.c - the recorder with what every command gives it: the
 * machine's probe and, unless there is none, the recording file as its
 * first sink (recorder.h: recorder_run_file()).
 *
 * Why apart from recorder.c: the loop takes its probe and sinks as they
 * are (a test gives it a fixture's probe and counting sinks, `record
 * --listen` without -o no file); opening them is this file's one job.
 */
#include "recorder.h"

#include <assert.h>
#include <stdlib.h>

#include "common.h"
#include "sink_store.h"
#include "source.h"

int recorder_run_file(const struct recorder_options *o,
		      const struct sink *extra, size_t n_extra,
		      const struct recorder_hooks *hooks,
		      struct recorder_result *r)
{
	assert(extra || !n_extra);
	r->samples = 0;
	r->command_status = -1;
	r->duration_ended = false;
	struct probe *probe = probe_new(o->proc_root, o->sys_root);
	struct sink_store *file = NULL;
	if (probe && o->output)
		file = sink_store_new(o->output, o->append,
				      o->commit_interval_s, o->retain_s);
	if (!probe || (o->output && !file)) {
		for (size_t i = 0; i < o->n_sources; i++)
			source_free(o->sources[i]);
		probe_free(probe);
		return EXIT_RUNTIME;
	}
	struct sink *sinks = xcalloc(n_extra + 1, sizeof(*sinks));
	size_t n = 0;
	if (file)
		sinks[n++] = sink_store_sink(file);
	for (size_t i = 0; i < n_extra; i++)
		sinks[n++] = extra[i];
	int rc = recorder_run(o, probe, sinks, n, hooks, r);
	free(sinks);
	sink_store_free(file);
	probe_free(probe);
	return rc;
}
