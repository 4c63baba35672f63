/*
 * regions.h - where a process's memory sits: a breakdown by region family
 * (heap, anonymous, stack, file-backed, shared memory, GPU device
 * mappings, other), from Linux /proc/PID/smaps (src/probe/smaps.h) or from a
 * macOS `vmmap --summary` output (vmmap.h). One snapshot says where memory sits,
 * not which allocations grew it; two snapshots give growth per family
 * (regions_diff).
 *
 * What it does not do: sample on a schedule, store anything, render (see
 * render_regions() in render.h), or follow a process across restarts.
 *
 * Family rules for smaps (first match wins, on the mapping's path field;
 * "the path" is whatever smaps prints after the inode, " (deleted)"
 * included):
 *   GPU    paths starting /dev/dri/, /dev/nvidia, /dev/kfd, /dev/accel/,
 *          /dev/dxg, /dev/mali, /dev/kgsl, /dmabuf: or anon_inode:dmabuf
 *   stack  [stack], [stack:TID]
 *   heap   [heap]
 *   shmem  paths starting /dev/shm/, /memfd:, /SYSV, /dev/zero (a shared
 *          anonymous mapping) or [anon_shmem:; any other path ending
 *          " (deleted)" mapped shared (perms "...s": a removed tmpfs or
 *          shm file); and any anon/file/other mapping whose
 *          ShmemPmdMapped is non-zero
 *   anon   no path, or [anon:NAME] (a named anonymous mapping)
 *   other  every other [bracketed] name ([vdso], [vvar], [vsyscall],
 *          [uprobes]...), other /dev/ paths, anon_inode:* and the rest
 *   file   any other absolute path (a mapped file: libraries, data files;
 *          decided by name, never by stat(), so the cost stays O(lines))
 *
 * Figures per family (bytes; NAN where the source has no such column):
 *   size          virtual size (smaps Size; vmmap VIRTUAL SIZE)
 *   rss           resident (Rss; RESIDENT SIZE)
 *   pss           proportional share (Pss; NAN from vmmap)
 *   private_dirty dirty pages (Private_Dirty; vmmap DIRTY SIZE)
 *   swap          swapped out (Swap; vmmap SWAPPED SIZE, compressed)
 *   footprint     what the family adds to the process's footprint: on
 *                 Linux Anonymous + Swap, and Rss + Swap for the shmem and
 *                 GPU families (their pages are not "Anonymous"); on macOS
 *                 DIRTY + SWAPPED, the figure closest to phys_footprint.
 *                 Linux GPU memory that the driver keeps unmapped (most
 *                 VRAM) does not show in smaps at all.
 *   mappings      mapping count (vmmap REGION COUNT); may be negative in a
 *                 delta.
 *
 * Cost (smaps): O(lines) in one 64 KiB buffer reused for every read, no
 * allocation per line or per mapping; memory is constant whatever the
 * number of mappings (100,000 mappings read in well under a second). The
 * kernel's own cost grows with resident memory (docs/design.md: ~13 us per
 * MiB): read it at a low rate, never at every sample.
 */
#ifndef MEMTREND_REGIONS_H
#define MEMTREND_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum region_family {
	REGION_HEAP, REGION_ANON, REGION_STACK, REGION_FILE, REGION_SHMEM,
	REGION_GPU, REGION_OTHER, REGION_FAMILY_COUNT
};
/* "heap", "anon", "stack", "file", "shmem", "gpu", "other": stable keys
 * (JSON); region_family_titles holds the words for people. */
extern const char *const region_family_names[REGION_FAMILY_COUNT];
extern const char *const region_family_titles[REGION_FAMILY_COUNT];

/* Longest region name kept for a family's largest contributor. */
#define REGION_NAME_MAX 160

struct region_figures {
	double size, rss, pss, private_dirty, swap, footprint;
	long long mappings;
};

struct region_breakdown {
	struct region_figures f[REGION_FAMILY_COUNT];
	/* Per family, the largest single contributor to its footprint (the
	 * first on ties): a mapping's path (smaps) or a region type (vmmap);
	 * "" when that largest one has no name (an anonymous mapping) or the
	 * family is empty. Process-controlled: escape before printing. */
	char top[REGION_FAMILY_COUNT][REGION_NAME_MAX];
	double top_footprint[REGION_FAMILY_COUNT];
	double footprint;       /* from the source when known (vmmap's
				   "Physical footprint"), else NAN: then the
				   sum of the families' footprints stands in */
	double footprint_peak;  /* vmmap's "(peak)"; NAN when unknown */
	char *source_note;      /* owned; what was read, or why nothing was
				   (e.g. no ptrace access); may be NULL */
};

/* All figures zero, footprint and peak NAN, no names, no note. */
void regions_init(struct region_breakdown *b);
/* Free the note (the breakdown stays usable: figures untouched). */
void regions_release(struct region_breakdown *b);

/* The family of one smaps mapping: path as printed (may be ""), perms the
 * four-letter field ("rw-p"; NULL means private). Pure. The ShmemPmdMapped
 * rule needs the mapping's fields and is applied by the reader. */
enum region_family regions_family_of_path(const char *path, size_t len,
					  const char *perms);

/* delta = b - a, family by family (figures, mapping counts, footprint and
 * peak; NAN where either side is NAN). delta's top names are b's, its
 * source_note NULL. delta may alias neither a nor b. */
void regions_diff(const struct region_breakdown *a,
		  const struct region_breakdown *b,
		  struct region_breakdown *delta);

/* The footprint the breakdown stands for: b->footprint when known, else
 * the sum of the families' footprints. */
double regions_total_footprint(const struct region_breakdown *b);

#endif
