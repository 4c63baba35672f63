/*
 * source_log.c - counting matching lines appended to a log, across
 * rotation and truncation (source_log.h).
 *
 * How: the log is read with pread at our own offset through an fd kept
 * open between calls, so a rename (rotation) leaves us reading the same
 * file; at each end of file the path is stat'ed, and when it names another
 * inode the old file is read to its end once more and then dropped for
 * the new one, read from its start. fstat's size below our offset is a
 * truncation: start over at 0. Bytes go through one 64 KiB read buffer;
 * a line that is complete inside it is matched in place (its newline
 * becomes the regex's NUL), only a line split across reads is copied into
 * the line buffer (at most SOURCE_LOG_MAX_LINE bytes of it are kept).
 *
 * What it does not do: look for rotated files by name (app.log.1), read
 * compressed logs, or tell a log that was deleted for good from one
 * between rename and re-creation (the old file is followed meanwhile).
 *
 * Bounds per call: at most max_bytes read (16 MiB by default), in
 * 64 KiB preads; at most 4 file switches; memory: 64 KiB + 64 KiB per log.
 */
#include "source_log.h"
#include "common.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (64u * 1024u)
#define MAX_SWITCHES 4

struct source_log {
	char *path;
	regex_t re;
	int fd;             /* the file being read; -1 when none */
	bool known;         /* dev/ino/off name a file (open, or seen at
			       source_log_open but not readable then) */
	dev_t dev;
	ino_t ino;
	off_t off;          /* next byte to read */
	bool skip_fragment; /* drop bytes up to the next newline: the end of
			       a line that was unfinished at open */
	char *line;         /* the unfinished line (MAX_LINE + 2 bytes) */
	size_t line_len;    /* bytes kept (<= SOURCE_LOG_MAX_LINE) */
	char *buf;          /* READ_CHUNK + 1 */
	size_t max_bytes;
	uint64_t count;
};

/* ---- lines ---------------------------------------------------------- */

/* s[len] is writable: it becomes the NUL the regex stops at. */
static void match_line(struct source_log *sl, char *s, size_t len)
{
	if (len > SOURCE_LOG_MAX_LINE)
		len = SOURCE_LOG_MAX_LINE;
	else if (len > 0 && s[len - 1] == '\r')
		len--;
	s[len] = '\0';
	if (regexec(&sl->re, s, 0, NULL, 0) == 0)
		sl->count++;
}

static void keep_partial(struct source_log *sl, const char *s, size_t len)
{
	/* one byte more than the limit is kept, to know the line is long */
	size_t room = SOURCE_LOG_MAX_LINE + 1 - sl->line_len;
	if (len > room)
		len = room;
	memcpy(sl->line + sl->line_len, s, len);
	sl->line_len += len;
}

static void forget_partial(struct source_log *sl)
{
	sl->line_len = 0;
	sl->skip_fragment = false;
}

/* The unfinished line ends here (its newline, or the end of a rotated
 * file). */
static void finish_partial(struct source_log *sl)
{
	if (sl->line_len > 0)
		match_line(sl, sl->line, sl->line_len);
	sl->line_len = 0;
}

static void feed(struct source_log *sl, char *p, size_t n)
{
	char *e = p + n;
	while (p < e) {
		char *nl = memchr(p, '\n', (size_t)(e - p));
		if (sl->skip_fragment) {
			if (!nl)
				return;
			sl->skip_fragment = false;
			p = nl + 1;
			continue;
		}
		if (!nl) {
			keep_partial(sl, p, (size_t)(e - p));
			return;
		}
		if (sl->line_len == 0) {
			match_line(sl, p, (size_t)(nl - p)); /* in place */
		} else {
			keep_partial(sl, p, (size_t)(nl - p));
			finish_partial(sl);
		}
		p = nl + 1;
	}
}

/* ---- files ---------------------------------------------------------- */

static void close_file(struct source_log *sl)
{
	if (sl->fd >= 0)
		close(sl->fd);
	sl->fd = -1;
}

static int open_ro(const char *path)
{
	int fd;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	while (fd < 0 && errno == EINTR);
	return fd;
}

/* Open the file the path names now. The one seen at source_log_open keeps
 * its offset; any other is read from its start. */
static int open_current(struct source_log *sl, char *err, size_t errlen)
{
	int fd = open_ro(sl->path);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open '%s': %s", sl->path,
			 strerror(e));
		/* not there yet: the service creates it when it starts */
		return e == ENOENT ? SOURCE_LOG_MISSING : -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", sl->path);
		close(fd);
		return -1;
	}
	if (!sl->known || st.st_dev != sl->dev || st.st_ino != sl->ino) {
		sl->off = 0;
		forget_partial(sl);
	}
	sl->fd = fd;
	sl->known = true;
	sl->dev = st.st_dev;
	sl->ino = st.st_ino;
	return 0;
}

/* Read from the offset to the end of the file or of the budget. Returns
 * 1 at end of file, 0 when the budget ran out first, -1 on error. */
static int drain(struct source_log *sl, size_t *budget, char *err,
		 size_t errlen)
{
	while (*budget > 0) {
		size_t want = *budget < READ_CHUNK ? *budget : READ_CHUNK;
		ssize_t n = pread(sl->fd, sl->buf, want, sl->off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "cannot read '%s': %s",
				 sl->path, strerror(errno));
			return -1;
		}
		if (n == 0)
			return 1;
		sl->off += n;
		*budget -= (size_t)n;
		feed(sl, sl->buf, (size_t)n);
	}
	return 0;
}

/* ---- the interface -------------------------------------------------- */

struct source_log *source_log_open(const char *path, const char *regex)
{
	assert(path && regex);
	struct source_log *sl = xcalloc(1, sizeof(*sl));
	int rc = regcomp(&sl->re, regex, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, &sl->re, msg, sizeof(msg));
		error("bad regular expression '%s': %s", regex, msg);
		free(sl);
		return NULL;
	}
	sl->path = xstrdup(path);
	sl->fd = -1;
	sl->line = xmalloc(SOURCE_LOG_MAX_LINE + 2);
	sl->buf = xmalloc(READ_CHUNK + 1);
	sl->max_bytes = SOURCE_LOG_MAX_BYTES;

	/* Position at the end of what is there now. */
	struct stat st;
	int fd = open_ro(path);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		sl->fd = fd;
		sl->known = true;
		sl->dev = st.st_dev;
		sl->ino = st.st_ino;
		sl->off = st.st_size;
		char last;
		if (st.st_size > 0 &&
		    pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
			sl->skip_fragment = true;
	} else {
		if (fd >= 0)
			close(fd);
		/* Not readable now: remember which file it is, so that
		 * when it becomes readable only its new lines count. */
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			sl->known = true;
			sl->dev = st.st_dev;
			sl->ino = st.st_ino;
			sl->off = st.st_size;
		}
	}
	return sl;
}

void source_log_set_max_bytes(struct source_log *sl, size_t max_bytes)
{
	assert(sl);
	sl->max_bytes = max_bytes ? max_bytes : SOURCE_LOG_MAX_BYTES;
}

int source_log_read(struct source_log *sl, double *count, char *err,
		    size_t errlen)
{
	assert(sl && count && err && errlen > 0);
	err[0] = '\0';
	size_t budget = sl->max_bytes;
	int rc = 0;
	for (int hop = 0; hop < MAX_SWITCHES; hop++) {
		if (sl->fd < 0) {
			int o = open_current(sl, err, errlen);
			if (o < 0) {
				rc = o;
				break;
			}
		}
		struct stat st;
		if (fstat(sl->fd, &st) < 0) {
			snprintf(err, errlen, "cannot stat '%s': %s", sl->path,
				 strerror(errno));
			rc = -1;
			break;
		}
		if (st.st_size < sl->off) { /* truncated */
			sl->off = 0;
			forget_partial(sl);
		}
		int r = drain(sl, &budget, err, errlen);
		if (r <= 0) {
			rc = r; /* error, or the budget ran out */
			break;
		}
		/* At its end: does the path still name this file? While it
		 * names none, the old file is followed. */
		struct stat ps;
		if (stat(sl->path, &ps) < 0 ||
		    (ps.st_dev == sl->dev && ps.st_ino == sl->ino))
			break;
		/* Rotated: what was written before the rename first. */
		r = drain(sl, &budget, err, errlen);
		if (r <= 0) {
			rc = r;
			break;
		}
		finish_partial(sl);
		sl->skip_fragment = false;
		close_file(sl);
		sl->known = false;
	}
	*count = (double)sl->count;
	return rc;
}

void source_log_free(struct source_log *sl)
{
	if (!sl)
		return;
	close_file(sl);
	regfree(&sl->re);
	free(sl->path);
	free(sl->line);
	free(sl->buf);
	free(sl);
}
