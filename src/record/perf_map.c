/*
 * perf_map.c - /tmp/perf-PID.map, the names a JIT gives its code
 * (perf_map.h says what and what not).
 *
 * Bounds: lines are kept in the order read, up to PERF_MAP_MAX_LINES (a
 * JIT that writes more has its later code unnamed: those frames keep
 * their addresses); a lookup scans them from the last (the newest name
 * of reused memory), O(lines). sites_symbols.c does not keep a JIT's
 * names (its memory is reused), so each new site's JIT frames cost a
 * scan, within the recorder's naming budget per tick.
 */
#include "perf_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

#define PERF_MAP_MAX_LINES 200000

struct perf_line {
	uint64_t lo, hi;
	char *name;
};

struct perf_map {
	char path[64];
	off_t read_to;             /* bytes of the file parsed */
	struct perf_line *lines;
	size_t n, cap;
	char *partial;             /* a last line without its newline yet */
};

/* One line: "START SIZE NAME"; false when it does not parse. */
static bool parse_line(const char *s, struct perf_line *out)
{
	char *end;
	unsigned long long lo = strtoull(s, &end, 16);
	if (end == s || *end != ' ')
		return false;
	s = end + 1;
	unsigned long long size = strtoull(s, &end, 16);
	if (end == s || *end != ' ' || !size || lo + size < lo)
		return false;
	s = end + 1;
	size_t len = strcspn(s, "\n");
	if (!len)
		return false;
	out->lo = lo;
	out->hi = lo + size;
	out->name = xmalloc(len + 1);
	memcpy(out->name, s, len);
	out->name[len] = '\0';
	return true;
}

static void add_text(struct perf_map *m, const char *text)
{
	while (*text && m->n < PERF_MAP_MAX_LINES) {
		const char *nl = strchr(text, '\n');
		if (!nl)
			break;
		struct perf_line l;
		if (parse_line(text, &l)) {
			xgrow((void **)&m->lines, &m->cap, m->n + 1,
			      sizeof(*m->lines));
			m->lines[m->n++] = l;
		}
		text = nl + 1;
	}
}

struct perf_map *perf_map_new(pid_t pid)
{
	struct perf_map *m = xcalloc(1, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "/tmp/perf-%d.map", (int)pid);
	return m;
}

struct perf_map *perf_map_from_text(const char *text)
{
	struct perf_map *m = xcalloc(1, sizeof(*m));
	add_text(m, text);
	return m;
}

void perf_map_free(struct perf_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->lines[i].name);
	free(m->lines);
	free(m->partial);
	free(m);
}

/* What the file gained since the last read: its whole lines parsed. */
static void refresh(struct perf_map *m)
{
	struct stat st;
	if (!m->path[0] || stat(m->path, &st) || st.st_size <= m->read_to)
		return;
	FILE *f = fopen(m->path, "re");
	if (!f)
		return;
	if (fseeko(f, m->read_to, SEEK_SET) == 0) {
		size_t want = (size_t)(st.st_size - m->read_to);
		size_t had = m->partial ? strlen(m->partial) : 0;
		char *buf = xmalloc(had + want + 1);
		if (had)
			memcpy(buf, m->partial, had);
		size_t got = fread(buf + had, 1, want, f);
		buf[had + got] = '\0';
		m->read_to += (off_t)got;
		add_text(m, buf);
		/* a last line the JIT has not finished: kept for later */
		const char *last_nl = strrchr(buf, '\n');
		free(m->partial);
		m->partial = xstrdup(last_nl ? last_nl + 1 : buf);
		free(buf);
	}
	fclose(f);
}

const char *perf_map_lookup(struct perf_map *m, uint64_t pc, uint64_t *start)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = m->n; i-- > 0;)
			if (pc >= m->lines[i].lo && pc < m->lines[i].hi) {
				if (start)
					*start = m->lines[i].lo;
				return m->lines[i].name;
			}
		if (pass == 0)
			refresh(m);
	}
	return NULL;
}
