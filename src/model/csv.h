/*
 * csv.h - reads a memory series from CSV (docs/design.md's format) into a
 * dataset with one target.
 *
 * Format: a header row; comma or tab separated (detected from the header);
 * optional double quotes around cells. Columns by name (case-insensitive,
 * surrounding spaces ignored): `time` (ISO 8601 with zone or Unix seconds;
 * aliases: timestamp, t), `footprint` (required), optional `pid` (a change
 * starts a new incarnation: a restart), `requests` (cumulative), 
 * `connections`, `pressure`; rss/anon/file/shmem/swap/pagetables map onto
 * the components; every other column is a gauge (cells numeric with an
 * optional unit). Cells may carry a size unit ("230.63GiB", "21 GB"); blank
 * means missing. Rows must be in non-decreasing time order.
 *
 * Errors: a bad row fails the whole read with a message naming the file,
 * line and column ("run.csv:17: column 'footprint': cannot read 'abc' as a
 * size"); nothing half-read is returned. The series' quantum is the
 * coarsest precision seen in footprint cells (see units_parse_size).
 */
#ifndef MEMTREND_CSV_H
#define MEMTREND_CSV_H

#include <stdio.h>

#include "series.h"

/* Read path (or "-" for stdin) into *out (initialised here). Returns 0, or
 * -1 after printing an error; *out is released on failure. */
int csv_read_file(const char *path, struct dataset *out);
/* Same from an open stream; name is used in messages. */
int csv_read_stream(FILE *f, const char *name, struct dataset *out);

#endif
