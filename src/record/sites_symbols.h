/*
 * sites_symbols.h - the names of an allocation site's frames, found by
 * the recorder in the target's own maps while it runs (docs/sites.md):
 * the module (the mapped file), its build id, the offset in it, and
 * through elfutils' libdwfl (when built with libdw) the function,
 * demangled, and the source file and line where the binary has DWARF.
 *
 * Named at record time, not report time: the modules are mapped (and
 * their files there) while the target runs; a report made later, on
 * another machine or after a rebuild, would name the wrong code. A frame
 * that cannot be named keeps its module and offset (a stripped binary),
 * or its address alone (anonymous memory); a JIT's code is named from
 * the map it writes for perf, /tmp/perf-PID.map (perf_map.h).
 *
 * A frame named once is kept (by address, up to 8,192: sites share most
 * of their frames, and a first lookup through libdw costs 40-300 us, a
 * kept one 0.1 us). What it does not do: read the target's memory,
 * unwind, or keep names across targets. The only file that includes
 * libdw's headers.
 */
#ifndef MEMTREND_SITES_SYMBOLS_H
#define MEMTREND_SITES_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sample.h"

/* Room for one frame's names: sample_site_frame's strings point here. */
struct sites_frame_names {
	char module[512];
	char build_id[80];
	char function[512];
	char file[512];
};

struct sites_symbols;

/* The names of pid's frames (its maps read now, again when an address is
 * in none of them: a library loaded later). Never NULL. */
struct sites_symbols *sites_symbols_new(pid_t pid);
void sites_symbols_free(struct sites_symbols *s);
/* Name the return address addr (looked up at addr - 1, in the call):
 * fills *f, its strings in *room (NULL where unknown). */
void sites_symbols_name(struct sites_symbols *s, uint64_t addr,
			struct sample_site_frame *f,
			struct sites_frame_names *room);
/* What names can be found: "libdw" or "module+offset (built without
 * libdw)". */
const char *sites_symbols_how(void);

#endif
