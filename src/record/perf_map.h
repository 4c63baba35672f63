/*
 * perf_map.h - the names a JIT gives its code in /tmp/perf-PID.map (the
 * file `perf` reads: node --perf-basic-prof, the JVM's perf-map-agent,
 * LuaJIT, .NET's DOTNET_PerfMapEnabled), for the frames of allocation
 * sites that lie in anonymous executable memory (sites_symbols.c).
 *
 * The format: one line per piece of code, "START SIZE NAME", START and
 * SIZE in hex (with or without 0x), NAME the rest of the line. A JIT
 * appends as it compiles, and may reuse memory: the last line that
 * covers an address names it. What it does not do: follow the pid into
 * another namespace's numbering, or demangle.
 */
#ifndef MEMTREND_PERF_MAP_H
#define MEMTREND_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_map;

/* pid's map (read when first asked, again when the file has grown);
 * never NULL. */
struct perf_map *perf_map_new(pid_t pid);
void perf_map_free(struct perf_map *m);
/* The name of the code at pc (the last line covering it), and *start its
 * start; NULL when none does. The string is the map's, valid until the
 * next call. Reads the file when it has grown since (at most once a
 * call); a line that does not parse is skipped. */
const char *perf_map_lookup(struct perf_map *m, uint64_t pc,
			    uint64_t *start);
/* A map of the lines in text, with no file behind it (the tests). */
struct perf_map *perf_map_from_text(const char *text);

#endif
