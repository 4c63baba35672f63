/*
 * said.h - for the unit tests: what a target's findings say, as the
 * reports say it (render_reason.c turns the reason codes into words).
 * Test code only; asserts nothing itself.
 */
#ifndef MEMTREND_TEST_SAID_H
#define MEMTREND_TEST_SAID_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "render.h"

/* Whether reason i (or any reason, i == SIZE_MAX) holds phrase. */
static inline bool reason_says(const struct target_findings *f, size_t i,
			       const char *phrase)
{
	for (size_t k = 0; k < f->reasons.n; k++) {
		if (i != SIZE_MAX && k != i)
			continue;
		char *r = render_reason_string(f, &f->reasons.r[k]);
		bool yes = strstr(r, phrase) != NULL;
		free(r);
		if (yes)
			return true;
	}
	return false;
}

static inline bool said(const struct target_findings *f, const char *phrase)
{
	return reason_says(f, SIZE_MAX, phrase);
}

/* Whether the settle advice holds phrase (false when there is none). */
static inline bool settle_says(const struct target_findings *f,
			       const char *phrase)
{
	char *s = render_settle_string(f);
	bool yes = s && strstr(s, phrase) != NULL;
	free(s);
	return yes;
}

static inline void print_reasons(const struct target_findings *f)
{
	for (size_t k = 0; k < f->reasons.n; k++) {
		char *r = render_reason_string(f, &f->reasons.r[k]);
		printf("reason: %s\n", r);
		free(r);
	}
}

#endif
