/*
 * fixture.h - for the unit tests: the path of a CSV fixture,
 * $FIXTURES/csv/NAME (meson sets FIXTURES; tests/fixtures when run by
 * hand from the project root). Test code only.
 */
#ifndef MEMTREND_TEST_FIXTURE_H
#define MEMTREND_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

/* The path, in a buffer that the next call reuses. */
static inline const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("FIXTURES");
	snprintf(path, sizeof(path), "%s/csv/%s", dir ? dir : "tests/fixtures",
		 name);
	return path;
}

#endif
