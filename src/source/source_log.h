/*
 * source_log.h - a work counter from a log file (--work-log FILE --match
 * REGEX): the number of lines appended to FILE since the recording began
 * that match a POSIX extended regular expression, following the file
 * across rotation and truncation as `tail -F` does.
 *
 * What it does not do: read what was in the file before it was opened,
 * follow more than one rotation between two reads (lines written to a file
 * that was rotated away and replaced again before the next read are
 * lost), see a copytruncate that the writer refills past the old size
 * before the next read (looks like an append), or write anything to stdout
 * or stderr after open.
 */
#ifndef MEMTREND_SOURCE_LOG_H
#define MEMTREND_SOURCE_LOG_H

#include <stddef.h>

/* Default bound on the bytes one source_log_read reads. */
#define SOURCE_LOG_MAX_BYTES (16u << 20)
/* A line is matched on at most its first this many bytes. */
#define SOURCE_LOG_MAX_LINE (64u * 1024u)

struct source_log;

/* Opens path now (a missing file is fine: it is waited for) and positions
 * at its END: only lines appended after this call count (an unfinished
 * last line present now is not counted when it ends). NULL with error()
 * printed for a bad regex. */
struct source_log *source_log_open(const char *path, const char *regex);

/* Reads what was appended since the last call and returns the cumulative
 * number of matching lines since open (*count, set on failure too).
 * Returns 0, or -1 with a reason in err (file unreadable: the caller
 * records a gap and keeps the count), or SOURCE_LOG_MISSING with one when
 * the path names no file and none is being followed (not created yet:
 * the service that writes it may still be starting). Handles: rotation (the path
 * now names a different inode: finish reading the old file to its end,
 * then read the new file from its start), truncation (size < offset: start
 * over at 0), a partial last line (kept until its newline arrives, at most
 * 64 KiB per line: longer lines are counted once they end and matched on
 * their first 64 KiB), files that do not exist yet (appear later: read
 * from start). Bounded work per call: reads at most max_bytes (16 MiB by
 * default) so a huge log cannot stall sampling; the rest is read next
 * time.
 *
 * In detail: while the path names no file but the old one is still open
 * (renamed away, not yet replaced), the old file is followed (the writer
 * may still append to it) and the call succeeds. A trailing "\r" is not
 * part of a line; a NUL byte ends what the regex sees of one. An
 * unfinished last line of a file rotated away is counted as a line. */
#define SOURCE_LOG_MISSING (-2)
int source_log_read(struct source_log *sl, double *count, char *err,
		    size_t errlen);

/* Change the per-call read bound (tests; 0 restores the default). */
void source_log_set_max_bytes(struct source_log *sl, size_t max_bytes);

void source_log_free(struct source_log *sl);

#endif
