/*
 * vmmap.h - reading a macOS `vmmap --summary` output (a file someone ran
 * on a Mac and brought along) into the same region breakdown as Linux
 * smaps (regions.h), so `memtrend report FILE` can say where a footprint
 * sits: "footprint 230.7 GiB: 229.5 GiB (99 %) in GPU memory".
 *
 * What it reads: the header ("Process:", "Date/Time:", "Physical
 * footprint:" and "Physical footprint (peak):"), the REGION TYPE table
 * (columns found by their titles: VIRTUAL SIZE, RESIDENT SIZE, DIRTY SIZE,
 * SWAPPED SIZE, REGION COUNT; any others are skipped) with its TOTAL row,
 * and the TOTAL row of the MALLOC ZONE table when present. Sizes carry
 * vmmap's binary units K/M/G/T/P (1024^n; "232.5G" = 232.5 * 2^30 bytes)
 * or none (bytes, "824"). Everything else (the library and writable-region
 * lines, a full vmmap's region list before the summary) is skipped.
 *
 * What it does not do: run vmmap, read live macOS processes, or render
 * (render_regions() in render.h does). Pure: no I/O except
 * vmmap_is_summary_file() and vmmap_read_file(), which read one file.
 *
 * Family of a REGION TYPE (first match wins; the figures per family are
 * regions.h's, with footprint = DIRTY + SWAPPED, the figure closest to
 * phys_footprint, and pss NAN):
 *   other  names with "Guard" ("Guard", "Stack Guard", "Malloc Guard
 *          Page"), "(reserved)" address space, __PAGEZERO, "page table in
 *          kernel", "owned unmapped ...", IOKit
 *   gpu    IOAccelerator, IOAccelerator (graphics), IOGPU...
 *   heap   any name with "malloc" (any case): Malloc Small/Tiny/Large/
 *          Nano/Metadata, "Malloc Small (empty)", WebKit Malloc, MALLOC_*
 *   stack  names starting "Stack"
 *   shmem  names with "shared memory", IOSurface (buffers shared between
 *          processes, often with the GPU; accounted as shared here)
 *   file   segments of mapped images ("__TEXT", "__DATA*", "__LINKEDIT",
 *          "__OBJC*", "__AUTH*", any "__" name), "mapped file", names with
 *          "shlib" ("unused but dirty shlib __DATA")
 *   anon   the rest: Untagged, VM_ALLOCATE and the tagged anonymous VM of
 *          frameworks (CoreAnimation, OS Alloc Once, Memory Tag N, ...)
 * The host heap is the heap family: the sum of the Malloc rows (13.4 MiB
 * dirty in the shared fixture); the MALLOC ZONE table's TOTAL (13.0 MiB)
 * is kept beside it as the allocator's own view.
 *
 * Bounds: O(length of the text); the rows are kept (a summary has a few
 * hundred at most); a line may be any length.
 */
#ifndef MEMTREND_VMMAP_H
#define MEMTREND_VMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "regions.h"

struct vmmap_row {
	char name[REGION_NAME_MAX];    /* REGION TYPE as printed */
	enum region_family family;
	double virtual_size, resident, dirty, swapped; /* NAN: no column */
	long long count;               /* REGION COUNT; -1: no column */
	unsigned long line;            /* where it was read (1-based) */
};

struct vmmap_summary {
	char process[256];             /* "Process:" name; "" when absent */
	long pid;                      /* its [pid]; -1 when absent */
	char date[64];                 /* "Date/Time:" as printed, or "" */
	double footprint;              /* "Physical footprint:"; NAN */
	double footprint_peak;         /* "(peak)"; NAN */
	struct vmmap_row *rows;        /* owned; table order */
	size_t n_rows;
	struct vmmap_row total;        /* the first TOTAL row */
	bool has_total;
	double malloc_zone_dirty;      /* MALLOC ZONE TOTAL: DIRTY; NAN */
	double malloc_zone_allocated;  /* ... BYTES ALLOCATED; NAN */
	struct region_breakdown breakdown; /* families, footprint, peak and
					      a source_note naming the
					      process */
	char error[320];               /* why vmmap_parse failed; "" after
					  success */
	unsigned long error_line;      /* the line it failed on (1-based),
					  0 when no line is to blame */
};

/* Does buf look like vmmap output: a line starting "REGION TYPE" with a
 * line of "=" runs right after it, or an "Analysis Tool: .../vmmap"
 * header line? Looks at most at the first 1 MiB. Pure. */
bool vmmap_detect(const char *buf, size_t len);
/* vmmap_detect() on the first 1 MiB of a file; false when unreadable
 * (the caller's own open reports why). For `report FILE` to choose its
 * reader. */
bool vmmap_is_summary_file(const char *path);

/* The family of one REGION TYPE name (rules above). Pure. */
enum region_family vmmap_family_of(const char *name);

/*
 * Parse buf (need not be NUL-terminated) into *out (initialised here).
 * Returns 0, or -1 with out->error saying what is wrong and
 * out->error_line where (not printed: the caller prints it with the file
 * name, as vmmap_read_file() does). A file without a
 * REGION TYPE table, a table row whose figures do not read as sizes, a
 * table without its closing "=" line and a bad "Physical footprint" are
 * errors; nothing half-read is left in *out's figures. Always
 * vmmap_release() afterwards.
 */
int vmmap_parse(const char *buf, size_t len, struct vmmap_summary *out);
void vmmap_release(struct vmmap_summary *s);

/*
 * Read a vmmap --summary file (at most 64 MiB) and parse it into *out
 * (initialised here). Returns 0, or -1 after a message ("FILE:LINE: ..."
 * for a malformed one; unreadable, too large) with nothing left to
 * release. On 0, vmmap_release() afterwards.
 */
int vmmap_read_file(const char *path, struct vmmap_summary *out);

#endif
