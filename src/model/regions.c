/*
 * regions.c - the region breakdown as data (regions.h): family names, the
 * family rules for a mapping's path, and the arithmetic of breakdowns
 * (diff, total).
 *
 * What it does not do: read anything (the smaps reader is
 * src/probe/smaps.c, the vmmap parser src/model/vmmap.c) or render.
 */
#include "regions.h"
#include "common.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const region_family_names[REGION_FAMILY_COUNT] = {
	"heap", "anon", "stack", "file", "shmem", "gpu", "other",
};

const char *const region_family_titles[REGION_FAMILY_COUNT] = {
	"host heap", "anonymous memory", "stacks", "file-backed mappings",
	"shared memory", "GPU memory", "other mappings",
};

void regions_init(struct region_breakdown *b)
{
	assert(b);
	memset(b, 0, sizeof(*b));
	b->footprint = NAN;
	b->footprint_peak = NAN;
}

void regions_release(struct region_breakdown *b)
{
	if (!b)
		return;
	free(b->source_note);
	b->source_note = NULL;
}

/* ---- family rules ------------------------------------------------------ */

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool ends(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

enum region_family regions_family_of_path(const char *path, size_t len,
					  const char *perms)
{
	static const char *const gpu[] = {
		"/dev/dri/", "/dev/nvidia", "/dev/kfd", "/dev/accel/",
		"/dev/dxg", "/dev/mali", "/dev/kgsl", "/dmabuf:",
		"anon_inode:dmabuf",
	};
	static const char *const shmem[] = {
		"/dev/shm/", "/memfd:", "/SYSV", "/dev/zero", "[anon_shmem:",
	};
	assert(path || len == 0);
	if (len == 0)
		return REGION_ANON;
	for (size_t i = 0; i < ARRAY_SIZE(gpu); i++)
		if (starts(path, len, gpu[i]))
			return REGION_GPU;
	if ((len == 7 && memcmp(path, "[stack]", 7) == 0) ||
	    starts(path, len, "[stack:"))
		return REGION_STACK;
	if (len == 6 && memcmp(path, "[heap]", 6) == 0)
		return REGION_HEAP;
	for (size_t i = 0; i < ARRAY_SIZE(shmem); i++)
		if (starts(path, len, shmem[i]))
			return REGION_SHMEM;
	bool shared = perms && perms[0] && perms[1] && perms[2] &&
		      perms[3] == 's';
	if (path[0] == '/' && shared && ends(path, len, " (deleted)"))
		return REGION_SHMEM;
	if (starts(path, len, "[anon:"))
		return REGION_ANON;
	if (path[0] == '[' || starts(path, len, "/dev/") || path[0] != '/')
		return REGION_OTHER;
	return REGION_FILE;
}

/* ---- arithmetic -------------------------------------------------------- */

void regions_diff(const struct region_breakdown *a,
		  const struct region_breakdown *b,
		  struct region_breakdown *delta)
{
	assert(a && b && delta && delta != a && delta != b);
	regions_init(delta);
	for (int i = 0; i < REGION_FAMILY_COUNT; i++) {
		const struct region_figures *x = &a->f[i], *y = &b->f[i];
		struct region_figures *d = &delta->f[i];
		d->size = y->size - x->size;
		d->rss = y->rss - x->rss;
		d->pss = y->pss - x->pss;
		d->private_dirty = y->private_dirty - x->private_dirty;
		d->swap = y->swap - x->swap;
		d->footprint = y->footprint - x->footprint;
		d->mappings = y->mappings - x->mappings;
		memcpy(delta->top[i], b->top[i], sizeof(delta->top[i]));
		delta->top_footprint[i] = b->top_footprint[i];
	}
	delta->footprint = b->footprint - a->footprint;
	delta->footprint_peak = b->footprint_peak - a->footprint_peak;
}

static double or0(double v) { return isnan(v) ? 0 : v; }

double regions_total_footprint(const struct region_breakdown *b)
{
	assert(b);
	if (!isnan(b->footprint))
		return b->footprint;
	double sum = 0;
	for (int i = 0; i < REGION_FAMILY_COUNT; i++)
		sum += or0(b->f[i].footprint);
	return sum;
}
