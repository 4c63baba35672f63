/*
 * sink_set.c - the recorder's sinks as one (sink_set.h).
 */
#include "sink_set.h"

#include <assert.h>

int sink_set_begin(const struct sink_set *ss, const struct sink_run *run)
{
	for (size_t i = 0; i < ss->n; i++) {
		assert(ss->s[i].ops);
		if (ss->s[i].ops->begin &&
		    ss->s[i].ops->begin(ss->s[i].ctx, run))
			return -1;
	}
	return 0;
}

void sink_set_event(const struct sink_set *ss, const struct sample_event *e)
{
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i].ops->event)
			ss->s[i].ops->event(ss->s[i].ctx, e);
}

void sink_set_note(const struct sink_set *ss, double t, int64_t inc,
		   const char *text)
{
	struct sample_event e = {.kind = SAMPLE_NOTE, .t = t, .inc = inc,
				 .u.text = text};
	sink_set_event(ss, &e);
}

void sink_set_frame(const struct sink_set *ss, const struct sample_frame *f)
{
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i].ops->frame)
			ss->s[i].ops->frame(ss->s[i].ctx, f);
}

void sink_set_target_end(const struct sink_set *ss, int64_t target, double t,
			 bool final)
{
	assert(target > 0);
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i].ops->target_end)
			ss->s[i].ops->target_end(ss->s[i].ctx, target, t,
						 final);
}

int sink_set_end(const struct sink_set *ss, double t, bool recorded)
{
	int rc = 0;
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i].ops->end &&
		    ss->s[i].ops->end(ss->s[i].ctx, t, recorded))
			rc = -1;
	return rc;
}
