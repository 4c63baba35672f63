/*
 * sampler_sites_bpf.c - allocation sites as a sampler (sampler.h), record
 * --sites -p PID's eBPF mode (docs/sites.md): for a process memtrend did
 * not start, the same per-site table as the preloaded shim's
 * (sampler_sites.c), kept by uprobes on the process's allocator
 * (sites_bpf.bpf.c, loaded through the skeleton bpftool generated at
 * build time), read from the BPF maps at every sample.
 *
 * At the process's open: the allocator it calls is found in its maps
 * (the first mapped object, the executable first and the C library
 * last, that defines malloc: a preloaded or linked jemalloc, tcmalloc
 * or mimalloc before glibc; a statically linked program itself), and
 * the probes are attached there for that pid alone (the kernel filters
 * by the process's memory). What stops it -- no permission (root, or
 * CAP_BPF with CAP_PERFMON), no allocator found, a kernel without
 * uprobes -- is said once and the rest is recorded without sites.
 *
 * At every sample: the stack ids first seen are declared as sites
 * (SAMPLE_SITE, their frames named by sites_symbols.c in the process's
 * own maps, within a time budget per tick), every site's estimate goes
 * into the frame, and the counts (sampled, dropped) as
 * SAMPLE_SITE_STATS when they change; the calls trapped and what each
 * costs the process (measured at start on memtrend's own function,
 * uprobe_cost_measure) are said at the end.
 *
 * What it does not do: follow more than one process (the first opened:
 * -p's), or anonymous mmap; it needs the process's frame pointers past
 * the first frame (sites_bpf.bpf.c). Built without libbpf (the build's
 * MEMTREND_HAVE_BPF 0), the mode says so and records without sites.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common.h"
#include "recorder.h"
#include "sampler.h"
#include "sink_set.h"
#include "sites_stats.h"
#include "sites_symbols.h"
#include "strmap.h"
#include "uprobe_point.h"

#if MEMTREND_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sites_bpf.h"
#include "sites_bpf.skel.h"
#endif

/* As the preload mode's (sampler_sites.c): naming new sites at one tick
 * stops after this long, the rest named at the next ticks. */
#define BPF_NAMING_BUDGET_S 0.02
/* The highest rate the kernel half's fixed point takes (sites_bpf.bpf.c:
 * p = size / rate in 32 bits). */
#define BPF_MAX_RATE 4294967296.0

struct bpf_sites_sampler {
	struct recorder *rec;
	double rate;
	unsigned depth;
	pid_t pid;                 /* the process probed; 0: none yet */
	bool off;                  /* cannot probe (said): no sites */
	char *why_off;             /* said at the first sample */
	char describe[512];
#if MEMTREND_HAVE_BPF
	struct sites_bpf *skel;
	struct bpf_link *links[32];
	size_t n_links;
	/* the allocator and the C library as the process's maps name them
	 * ("": none, a static program), and the files memtrend opens for
	 * them: the same path, or through /proc/PID/root when the process
	 * sees another file there (a container) */
	char allocator[PATH_MAX], libc[PATH_MAX];
	char allocator_file[PATH_MAX + 32], libc_file[PATH_MAX + 32];
#endif
	/* A site is a stack cut where its frames leave the process's
	 * mapped files (declare): the kernel's stacks that differ only
	 * past it (a frame pointer the code does not keep) are one site. */
	uint32_t *site_of;         /* stack id -> site index + 1; 0: none */
	size_t n_stack_ids;
	struct bpf_site {
		int64_t id;        /* the recorder's */
		double live, var, allocs; /* summed over its stacks at a
					     read (var: bytes^2) */
	} *sites;
	size_t n_sites, cap_sites;
	struct strmap site_by_frames; /* cut frames, in hex -> index */
	uint64_t *frames;          /* [depth]: a stack read from the map */
	struct sites_symbols *symbols;
	struct sites_frame_names *rooms;
	struct sites_stats_state stats;
	bool meta_sent, why_said, others_noted;
	double alloc_ns, free_ns;  /* what the probes cost a call; NAN */
	double var_unit;           /* bytes^2 a unit of a site's var in the
				      maps (2^sites_bpf_var_shift(rate)) */
	uint64_t free_offset;      /* the free probe's, from the entry
				      (uprobe_point.h); 0: at the entry */
	/* the process as last read, for the end */
	int64_t last_inc;
	const struct sink_set *out;
};

struct bpf_sites_proc {
	pid_t pid;
};

static const char *bpf_sites_describe(void *ctx)
{
	struct bpf_sites_sampler *s = ctx;
	return s->describe;
}

static int bpf_sites_start(void *ctx, struct recorder *rec)
{
	struct bpf_sites_sampler *s = ctx;
	s->rec = rec;
	return 0;
}

static void off_because(struct bpf_sites_sampler *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->off = true;
	free(s->why_off);
	s->why_off = xstrdup(buf);
}

#if MEMTREND_HAVE_BPF

/* libbpf's messages: the last warning kept, for the reason said when a
 * load or an attach fails; nothing printed (memtrend says it once, in
 * its words). */
static char libbpf_last[256];

static int libbpf_print_quiet(enum libbpf_print_level level,
			      const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN) {
		vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, ap);
		size_t n = strlen(libbpf_last);
		while (n && libbpf_last[n - 1] == '\n')
			libbpf_last[--n] = '\0';
	}
	return 0;
}

/* The functions probed: the program at entry, and whether the return is
 * probed (an allocation's address); required ones must attach. */
struct probe_point {
	const char *function;
	int entry;                 /* index in entry_prog() */
	bool returns, required;
	bool in_libc;              /* the C library's, whatever the allocator */
};

static const struct probe_point probe_points[] = {
	{"malloc", 0, true, true, false},
	{"calloc", 1, true, true, false},
	{"realloc", 2, true, true, false},
	{"free", 5, false, true, false},
	{"aligned_alloc", 3, true, false, false},
	{"memalign", 3, true, false, false},
	{"posix_memalign", 4, true, false, false},
	{"valloc", 0, true, false, false},
	{"pvalloc", 0, true, false, false},
	{"mmap", 6, true, false, true},
	{"munmap", 7, false, false, true},
	{"mremap", 8, true, false, true},
};

static struct bpf_program *entry_prog(struct sites_bpf *skel, int i)
{
	switch (i) {
	case 0: return skel->progs.malloc_enter;
	case 1: return skel->progs.calloc_enter;
	case 2: return skel->progs.realloc_enter;
	case 3: return skel->progs.memalign_enter;
	case 4: return skel->progs.posix_memalign_enter;
	case 6: return skel->progs.mmap_enter;
	case 7: return skel->progs.munmap_enter;
	case 8: return skel->progs.mremap_enter;
	default: return skel->progs.free_enter;
	}
}

/* A probe on function in path; offset: from its entry (libbpf adds the
 * function's own), 0 but for the free probe (uprobe_point.h). */
static struct bpf_link *attach_one(struct bpf_program *prog, pid_t pid,
				   const char *path, const char *function,
				   bool retprobe, uint64_t offset)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = function,
		    .retprobe = retprobe);
	return bpf_program__attach_uprobe_opts(prog, pid, path,
					       (size_t)offset, &uo);
}

/* Where pp's entry probe goes in object: free's program reads only its
 * first argument, so it may sit where the kernel emulates rather than
 * single-steps (uprobe_point.h: one trap, not two); the others read more,
 * or pair with a return probe that must be at the entry. */
static uint64_t entry_offset(const struct bpf_sites_sampler *s,
			     const struct probe_point *pp, const char *object)
{
	if (pp->returns || strcmp(pp->function, "free") != 0 ||
	    object != s->allocator_file)
		return 0;
	return s->free_offset;
}

static void detach_all(struct bpf_sites_sampler *s)
{
	for (size_t i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	s->n_links = 0;
}

/* Whether path is the C library (tried last: an allocator linked or
 * preloaded before it is the one whose malloc the loader binds). */
static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strncmp(base, "libc.so", 7) == 0 ||
	       strncmp(base, "libc-", 5) == 0;
}

/* One line of /proc/PID/maps: its range, permissions, device, inode and
 * path ("" for anonymous memory; the newline cut, in the line's own
 * storage). false for a line that does not read so. The one reader of
 * the format in this file: the allocator's search, the skip ranges and
 * memtrend's own maps all go through it. */
struct maps_entry {
	unsigned long long lo, hi, ino;
	unsigned maj, min;
	char perms[8];
	char *path;
};

static bool maps_entry_parse(char *line, struct maps_entry *m)
{
	int off = 0;
	if (sscanf(line, "%llx-%llx %7s %*s %x:%x %llu %n", &m->lo, &m->hi,
		   m->perms, &m->maj, &m->min, &m->ino, &off) < 6 || !off)
		return false;
	m->path = line + off;
	m->path[strcspn(m->path, "\n")] = '\0';
	return true;
}

/* The executable objects pid maps, in the order the loader bound them
 * as near as the maps tell: the executable, the others, the C library
 * last. Up to max; the count. */
static size_t mapped_objects(pid_t pid, char (*paths)[PATH_MAX],
			     unsigned long long *inodes, size_t max)
{
	char file[64], line[PATH_MAX + 128], exe[PATH_MAX] = "";
	snprintf(file, sizeof(file), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(file, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(file, "re");
	if (!f)
		return 0;
	size_t count = 0, libc = max;
	while (fgets(line, sizeof(line), f) && count < max) {
		struct maps_entry m;
		if (!maps_entry_parse(line, &m) || m.perms[2] != 'x' ||
		    m.path[0] != '/')
			continue;
		const char *path = m.path;
		unsigned long long ino = m.ino;
		/* " (deleted)": the file is gone, nothing to probe */
		if (strstr(path, " (deleted)"))
			continue;
		bool seen = false;
		for (size_t i = 0; i < count && !seen; i++)
			seen = strcmp(paths[i], path) == 0;
		if (seen)
			continue;
		snprintf(paths[count], PATH_MAX, "%s", path);
		inodes[count] = ino;
		if (is_libc(path))
			libc = count;
		count++;
	}
	fclose(f);
	/* the executable first, the C library last */
	for (size_t i = 0; i < count; i++)
		if (*exe && strcmp(paths[i], exe) == 0 && i > 0) {
			char tmp[PATH_MAX];
			unsigned long long ino = inodes[i];
			memcpy(tmp, paths[i], PATH_MAX);
			memmove(paths[1], paths[0], i * PATH_MAX);
			memmove(inodes + 1, inodes, i * sizeof(*inodes));
			memcpy(paths[0], tmp, PATH_MAX);
			inodes[0] = ino;
			if (libc < i)
				libc++;
			else if (libc == i)
				libc = 0;
			break;
		}
	if (libc < count && libc != count - 1) {
		char tmp[PATH_MAX];
		unsigned long long ino = inodes[libc];
		memcpy(tmp, paths[libc], PATH_MAX);
		memmove(paths[libc], paths[libc + 1],
			(count - libc - 1) * PATH_MAX);
		memmove(inodes + libc, inodes + libc + 1,
			(count - libc - 1) * sizeof(*inodes));
		memcpy(paths[count - 1], tmp, PATH_MAX);
		inodes[count - 1] = ino;
	}
	return count;
}

/* The file memtrend opens for path, which pid maps as inode ino: path
 * itself when it is that file here, else path under /proc/PID/root (the
 * process's root: a container's files). */
static void object_file(pid_t pid, const char *path, unsigned long long ino,
			char *out, size_t n)
{
	struct stat st;
	if (stat(path, &st) == 0 && (unsigned long long)st.st_ino == ino)
		snprintf(out, n, "%s", path);
	else
		snprintf(out, n, "/proc/%d/root%s", (int)pid, path);
}

/* pid's allocator, into s->allocator: the first object of its maps
 * whose malloc a uprobe can reach (libbpf resolves the symbol in the
 * object, and refuses one that only imports it); false after
 * off_because(). */
static bool find_allocator(struct bpf_sites_sampler *s, pid_t pid)
{
	enum { MAX_OBJECTS = 64 };
	char (*paths)[PATH_MAX] = xcalloc(MAX_OBJECTS, PATH_MAX);
	unsigned long long inodes[MAX_OBJECTS];
	size_t n = mapped_objects(pid, paths, inodes, MAX_OBJECTS);
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (is_libc(paths[i])) {
			snprintf(s->libc, sizeof(s->libc), "%s", paths[i]);
			object_file(pid, paths[i], inodes[i], s->libc_file,
				    sizeof(s->libc_file));
		}
	for (size_t i = 0; i < n && !found; i++) {
		char file[sizeof(s->allocator_file)];
		object_file(pid, paths[i], inodes[i], file, sizeof(file));
		struct bpf_link *l = attach_one(entry_prog(s->skel, 0), pid,
						file, "malloc", false, 0);
		if (!l)
			continue;
		bpf_link__destroy(l);
		snprintf(s->allocator, sizeof(s->allocator), "%s", paths[i]);
		snprintf(s->allocator_file, sizeof(s->allocator_file), "%s",
			 file);
		found = true;
	}
	free(paths);
	if (!found)
		off_because(s, "--sites -p %d: no mapped object of the "
			    "process defines a malloc a uprobe can reach%s%s%s: "
			    "no allocation sites", (int)pid,
			    *libbpf_last ? " (" : "", libbpf_last,
			    *libbpf_last ? ")" : "");
	return found;
}

/* The code of pid's C library and allocator (their executable
 * mappings), whose mmap calls are theirs, not the program's: into the
 * kernel half's skip ranges. */
static void skip_ranges(struct bpf_sites_sampler *s, pid_t pid)
{
	char file[64], line[PATH_MAX + 128];
	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(file, "re");
	if (!f)
		return;
	__u32 n = 0;
	while (n < SITES_BPF_SKIP_RANGES && fgets(line, sizeof(line), f)) {
		struct maps_entry m;
		if (!maps_entry_parse(line, &m) || m.perms[2] != 'x' ||
		    (strcmp(m.path, s->allocator) && strcmp(m.path, s->libc)))
			continue;
		struct sites_bpf_range r = {m.lo, m.hi};
		bpf_map__update_elem(s->skel->maps.skip, &n, sizeof(n), &r,
				     sizeof(r), BPF_ANY);
		n++;
	}
	fclose(f);
}

/* The probes on pid's allocator (s->allocator; mmap, munmap, mremap on
 * its C library); false after off_because(). */
static bool attach_process(struct bpf_sites_sampler *s, pid_t pid)
{
	for (size_t i = 0; i < sizeof(probe_points) / sizeof(*probe_points);
	     i++) {
		const struct probe_point *pp = &probe_points[i];
		for (int ret = 0; ret <= (int)pp->returns; ret++) {
			assert(s->n_links < sizeof(s->links) /
			       sizeof(*s->links));
			struct bpf_program *prog = ret ?
				s->skel->progs.alloc_return :
				entry_prog(s->skel, pp->entry);
			const char *object = pp->in_libc && *s->libc ?
					     s->libc_file : s->allocator_file;
			struct bpf_link *l = attach_one(prog, pid, object,
							pp->function, ret,
							ret ? 0 :
							entry_offset(s, pp,
								     object));
			if (l) {
				s->links[s->n_links++] = l;
				continue;
			}
			if (!pp->required)
				break; /* this allocator has no such call */
			off_because(s, "--sites -p %d: cannot probe %s in %s "
				    "(%s): no allocation sites", (int)pid,
				    pp->function, s->allocator,
				    libbpf_last);
			detach_all(s);
			return false;
		}
	}
	return true;
}

/* Load the kernel half; false after off_because(). */
static bool load(struct bpf_sites_sampler *s)
{
	libbpf_set_print(libbpf_print_quiet);
	s->skel = sites_bpf__open();
	if (!s->skel) {
		off_because(s, "--sites -p: cannot open the eBPF program "
			    "(%s): no allocation sites", strerror(errno));
		return false;
	}
	s->skel->rodata->sample_rate = (__u64)s->rate;
	s->skel->rodata->var_shift = sites_bpf_var_shift((__u64)s->rate);
	s->var_unit = ldexp(1, (int)s->skel->rodata->var_shift);
	if (bpf_map__set_value_size(s->skel->maps.stacks,
				    s->depth * sizeof(__u64)) ||
	    bpf_map__set_value_size(s->skel->maps.stacks_second,
				    s->depth * sizeof(__u64))) {
		off_because(s, "--sites -p: cannot size the stack table: no "
			    "allocation sites");
		return false;
	}
	int err = sites_bpf__load(s->skel);
	if (err) {
		int e = -err;
		if (e == EPERM || e == EACCES)
			off_because(s, "--sites -p: loading the eBPF program "
				    "was refused (%s): the eBPF mode needs "
				    "root, or CAP_BPF and CAP_PERFMON; "
				    "recording without allocation sites",
				    strerror(e));
		else
			off_because(s, "--sites -p: cannot load the eBPF "
				    "program (%s%s%s): no allocation sites",
				    strerror(e), *libbpf_last ? "; " : "",
				    libbpf_last);
		return false;
	}
	return true;
}

/* Whether memtrend itself maps path (the same file: its device and
 * inode), so that its own calls of the allocator's functions run the
 * process's instructions. */
static bool self_maps(const char *path)
{
	struct stat want;
	if (stat(path, &want))
		return false;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	char line[PATH_MAX + 128];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		struct maps_entry m;
		found = maps_entry_parse(line, &m) &&
			m.ino == (unsigned long long)want.st_ino &&
			makedev(m.maj, m.min) == want.st_dev;
	}
	fclose(f);
	return found;
}

/* Seconds for n pairs of malloc(64) and free, through pointers the
 * compiler cannot see through. */
static double pairs_time(int n)
{
	void *(*volatile alloc)(size_t) = malloc;
	void (*volatile release_fn)(void *) = free;
	double t0 = now_monotonic();
	for (int i = 0; i < n; i++)
		release_fn(alloc(64));
	return now_monotonic() - t0;
}

/* The stack table that holds id (sites_bpf.h: below
 * SITES_BPF_DEFAULT_STACKS the first, the rest the second), and id's key
 * in it. */
static struct bpf_map *stack_table(struct bpf_sites_sampler *s, __u32 id,
				   __u32 *key)
{
	if (id < SITES_BPF_DEFAULT_STACKS) {
		*key = id;
		return s->skel->maps.stacks;
	}
	*key = id - SITES_BPF_DEFAULT_STACKS;
	return s->skel->maps.stacks_second;
}

/* Stack id's frames into s->frames (zeroed past its depth); 0 or the
 * lookup's error. */
static int stack_read(struct bpf_sites_sampler *s, __u32 id)
{
	memset(s->frames, 0, s->depth * sizeof(*s->frames));
	__u32 k;
	struct bpf_map *m = stack_table(s, id, &k);
	return bpf_map__lookup_elem(m, &k, sizeof(k), s->frames,
				    s->depth * sizeof(*s->frames), 0);
}

/* Empty the maps of what memtrend's own calls left in them. */
static void maps_clear(struct bpf_sites_sampler *s)
{
	for (__u32 key = 0; key < SITES_BPF_COUNTS; key++) {
		__u64 zero = 0;
		bpf_map__update_elem(s->skel->maps.counts, &key, sizeof(key),
				     &zero, sizeof(zero), BPF_ANY);
	}
	__u32 key;
	while (!bpf_map__get_next_key(s->skel->maps.sites, NULL, &key,
				      sizeof(key)) &&
	       !bpf_map__delete_elem(s->skel->maps.sites, &key, sizeof(key),
				     0)) {
		__u32 k;
		bpf_map__delete_elem(stack_table(s, key, &k), &k, sizeof(k),
				     0);
	}
	__u64 addr;
	while (!bpf_map__get_next_key(s->skel->maps.live, NULL, &addr,
				      sizeof(addr)) &&
	       !bpf_map__delete_elem(s->skel->maps.live, &addr, sizeof(addr),
				     0))
		;
}

/* What the probes cost the process a call, measured before they are
 * attached to it: memtrend calls the same allocator's malloc and free
 * (the same file mapped: the same instructions, and what the kernel
 * does with the first of each -- glibc's malloc starts with a push,
 * which it emulates in one trap; its free with a test, which it steps
 * out of line, two traps: 2026-12-06, this VM, 1.5 against 9.5 us) with
 * the probes on memtrend itself, against without. *alloc_ns an
 * allocation's (entry and return, the sampling's decision), *free_ns a
 * free's; NAN when memtrend does not map the allocator (a jemalloc only
 * the process loads), or its own malloc is another (a sanitizer's). */
static void uprobe_cost_measure(struct bpf_sites_sampler *s, double *alloc_ns,
				double *free_ns)
{
	*alloc_ns = *free_ns = NAN;
	if (!self_maps(s->allocator_file))
		return;
	enum { PAIRS = 10000 };
	pairs_time(PAIRS / 10); /* warm */
	double bare = pairs_time(PAIRS);
	struct bpf_link *l = attach_one(s->skel->progs.free_enter, getpid(),
					s->allocator_file, "free", false,
					s->free_offset);
	if (l) {
		double probed = pairs_time(PAIRS);
		bpf_link__destroy(l);
		if (probed > bare)
			*free_ns = (probed - bare) / PAIRS * 1e9;
	}
	struct bpf_link *in = attach_one(s->skel->progs.malloc_enter, getpid(),
					 s->allocator_file, "malloc", false, 0);
	struct bpf_link *out = attach_one(s->skel->progs.alloc_return,
					  getpid(), s->allocator_file, "malloc",
					  true, 0);
	if (in && out) {
		double probed = pairs_time(PAIRS);
		if (probed > bare)
			*alloc_ns = (probed - bare) / PAIRS * 1e9;
	}
	bpf_link__destroy(in);
	bpf_link__destroy(out);
	maps_clear(s);
}

static uint64_t count_read(struct bpf_sites_sampler *s, __u32 which)
{
	__u64 v = 0;
	if (bpf_map__lookup_elem(s->skel->maps.counts, &which, sizeof(which),
				 &v, sizeof(v), 0))
		return 0;
	return v;
}

static void probe_open(struct bpf_sites_sampler *s, pid_t pid)
{
	s->pid = pid;
	if (!load(s) || !find_allocator(s, pid))
		return;
	s->free_offset = uprobe_point_offset(s->allocator_file, "free");
	uprobe_cost_measure(s, &s->alloc_ns, &s->free_ns);
	skip_ranges(s, pid);
	if (!attach_process(s, pid))
		return;
	s->n_stack_ids = SITES_BPF_STACK_IDS;
	s->site_of = xcalloc(s->n_stack_ids, sizeof(*s->site_of));
	s->frames = xcalloc(s->depth, sizeof(*s->frames));
	char cost[128] = "";
	int k = 0;
	if (isfinite(s->alloc_ns) && isfinite(s->free_ns))
		k = snprintf(cost, sizeof(cost), ", %.2f us an allocation, "
			     "%.2f us a free", s->alloc_ns / 1e3,
			     s->free_ns / 1e3);
	if (s->free_offset && k >= 0 && (size_t)k < sizeof(cost))
		snprintf(cost + k, sizeof(cost) - (size_t)k, " (free probed "
			 "at +%" PRIu64 ", one trap)", s->free_offset);
	snprintf(s->describe, sizeof(s->describe), "eBPF uprobes on %.100s, "
		 "every %.0f B on average, %u frames%s, names: %s",
		 s->allocator, s->rate, s->depth, cost, sites_symbols_how());
}

static void stats_send(struct bpf_sites_sampler *s, const struct sink_set *out,
		       int64_t inc, double t)
{
	struct sample_site_stats st = {
		.rate = s->rate, .depth = s->depth,
		.sampled = (double)count_read(s, COUNT_SAMPLED),
		.dropped_sites = (double)count_read(s, COUNT_DROPPED_SITES),
		.dropped_live = (double)count_read(s, COUNT_DROPPED_LIVE),
		.live_blocks = (double)count_read(s, COUNT_LIVE_BLOCKS),
		/* the stacks are the kernel's: no time of the process's
		 * in unwinding (the trap's cost is said at the end) */
		.backtrace_s = 0,
	};
	sites_stats_send(&s->stats, s->rec, out, inc, t, &st, "--sites -p",
			 "the eBPF program", "stacks and sites");
}

/* A stack id first seen: its frames named and cut at the first one past
 * the first that lies in none of the process's files (with no frame
 * pointer to follow, the kernel reads whatever the register held: a heap
 * address; the first frame, the return address, is always right); its
 * site found by those frames, or declared. */
static void declare(struct bpf_sites_sampler *s, __u32 stackid,
		    const struct sink_set *out, int64_t inc, double t)
{
	if (stack_read(s, stackid))
		return; /* not there yet: the next tick */
	if (!s->symbols)
		s->symbols = sites_symbols_new(s->pid);
	if (!s->rooms)
		s->rooms = xcalloc(s->depth, sizeof(*s->rooms));
	struct sample_site_frame frames[64];
	assert(s->depth <= sizeof(frames) / sizeof(*frames));
	uint32_t nf = 0;
	char key[64 * 17 + 1];
	size_t klen = 0;
	while (nf < s->depth && s->frames[nf]) {
		sites_symbols_name(s->symbols, s->frames[nf], &frames[nf],
				   &s->rooms[nf]);
		if (nf > 0 && !frames[nf].module)
			break;
		klen += (size_t)snprintf(key + klen, sizeof(key) - klen,
					 "%llx.", (unsigned long long)
					 s->frames[nf]);
		nf++;
	}
	key[klen] = '\0';
	size_t i = strmap_get(&s->site_by_frames, key);
	if (i == SIZE_MAX) {
		if (s->n_sites == s->cap_sites) {
			s->cap_sites = s->cap_sites ? 2 * s->cap_sites : 64;
			s->sites = xrealloc(s->sites, s->cap_sites *
					    sizeof(*s->sites));
		}
		i = s->n_sites++;
		struct sample_site x = {sampler_site_new(s->rec), inc, frames,
					nf};
		s->sites[i] = (struct bpf_site){x.id, 0, 0, 0};
		strmap_put(&s->site_by_frames, key, i);
		struct sample_event e = {.kind = SAMPLE_SITE, .t = t,
					 .inc = inc, .u.site = &x};
		sink_set_event(out, &e);
	}
	s->site_of[stackid] = (uint32_t)i + 1;
}

/* The maps read for the probed process: new sites, every value, the
 * counts; naming for budget_s at most. */
static void bpf_sites_sync(struct bpf_sites_sampler *s,
			   const struct sink_set *out, int64_t inc, double t,
			   double budget_s)
{
	if (!s->meta_sent) {
		s->meta_sent = true;
		struct sample_event e = {.kind = SAMPLE_META, .t = t,
					 .u.meta = {"sites", s->describe}};
		sink_set_event(out, &e);
	}
	double t0 = now_monotonic();
	for (size_t i = 0; i < s->n_sites; i++)
		s->sites[i].live = s->sites[i].var = s->sites[i].allocs = 0;
	struct bpf_map *sites = s->skel->maps.sites;
	__u32 key, next;
	__u32 *prev = NULL;
	while (!bpf_map__get_next_key(sites, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		if (key >= s->n_stack_ids)
			continue; /* not a stack id of the table's */
		struct sites_bpf_site v;
		if (bpf_map__lookup_elem(sites, &key, sizeof(key), &v,
					 sizeof(v), 0))
			continue;
		if (!s->site_of[key]) {
			if (now_monotonic() - t0 > budget_s)
				continue; /* named at a later tick */
			declare(s, key, out, inc, t);
			if (!s->site_of[key])
				continue;
		}
		struct bpf_site *site = &s->sites[s->site_of[key] - 1];
		site->live += (double)v.live;
		site->var += (double)(v.var > 0 ? v.var : 0) * s->var_unit;
		site->allocs += (double)v.allocs;
	}
	for (size_t i = 0; i < s->n_sites; i++)
		sampler_site_value(s->rec, s->sites[i].id, s->sites[i].live,
				   s->sites[i].var, s->sites[i].allocs);
	stats_send(s, out, inc, t);
}

static void bpf_sites_free_kernel(struct bpf_sites_sampler *s)
{
	detach_all(s);
	sites_bpf__destroy(s->skel);
	s->skel = NULL;
}

#else /* !MEMTREND_HAVE_BPF */

static void probe_open(struct bpf_sites_sampler *s, pid_t pid)
{
	s->pid = pid;
	off_because(s, "--sites -p %d: this memtrend was built without "
		    "eBPF (libbpf, bpftool and clang were not found when it "
		    "was built; scripts/install-deps.sh installs them): "
		    "recording without allocation sites", (int)pid);
}

static void bpf_sites_sync(struct bpf_sites_sampler *s,
			   const struct sink_set *out, int64_t inc, double t,
			   double budget_s)
{
	(void)s, (void)out, (void)inc, (void)t, (void)budget_s;
}

static void bpf_sites_free_kernel(struct bpf_sites_sampler *s)
{
	(void)s;
}

#endif

static void *bpf_sites_open(void *ctx, pid_t pid,
			    const struct proc_identity *seen)
{
	(void)seen;
	struct bpf_sites_sampler *s = ctx;
	struct bpf_sites_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	if (!s->pid)
		probe_open(s, pid);
	return p;
}

static enum sampler_status bpf_sites_read(void *ctx, void *proc,
					  const struct sink_set *out,
					  int64_t inc, double t, double mono,
					  struct sampler_figures *f)
{
	(void)f, (void)mono;
	struct bpf_sites_sampler *s = ctx;
	struct bpf_sites_proc *p = proc;
	if (!s->rec)
		return SAMPLER_OK;
	if (s->off) {
		if (!s->why_said) {
			s->why_said = true;
			sampler_say(s->rec, t, true, s->why_off);
		}
		return SAMPLER_OK;
	}
	if (p->pid != s->pid) {
		if (!s->others_noted) {
			s->others_noted = true;
			char msg[200];
			snprintf(msg, sizeof(msg), "--sites -p: only pid %d "
				 "is probed, not pid %d and others",
				 (int)s->pid, (int)p->pid);
			sampler_say(s->rec, t, false, msg);
		}
		return SAMPLER_OK;
	}
	s->last_inc = inc;
	s->out = out;
	bpf_sites_sync(s, out, inc, t, BPF_NAMING_BUDGET_S);
	return SAMPLER_OK;
}

/* The probed process ended: what was its own (the probes and maps, its
 * sites, the names of its files) let go, so that the next process the
 * recorder opens -- --name's after a restart, or the same pid after an
 * exec, a new image -- is probed afresh with sites of its own. */
static void process_forget(struct bpf_sites_sampler *s)
{
	bpf_sites_free_kernel(s);
	sites_symbols_free(s->symbols);
	s->symbols = NULL;
	free(s->site_of);
	s->site_of = NULL;
	s->n_stack_ids = 0;
	free(s->frames);
	s->frames = NULL;
	free(s->rooms);
	s->rooms = NULL;
	s->n_sites = 0;
	strmap_release(&s->site_by_frames);
	memset(&s->stats, 0, sizeof(s->stats));
	s->alloc_ns = s->free_ns = NAN;
	s->free_offset = 0;
	s->pid = 0;
	s->others_noted = false;
	s->out = NULL;
}

/* The probed process's end (or the recording's): the sites added since
 * the last read declared, whatever naming costs; the probes' cost said;
 * the probes detached and the process forgotten (process_forget). */
static void bpf_sites_close(void *ctx, void *proc)
{
	struct bpf_sites_sampler *s = ctx;
	struct bpf_sites_proc *p = proc;
	if (s->rec && s->out && p->pid == s->pid && !s->off) {
		double t = now_wall();
		bpf_sites_sync(s, s->out, s->last_inc, t, INFINITY);
#if MEMTREND_HAVE_BPF
		double allocs = (double)count_read(s, COUNT_ALLOC_CALLS);
		double frees = (double)count_read(s, COUNT_FREE_CALLS);
		double cost = allocs * s->alloc_ns + frees * s->free_ns;
		char msg[300];
		int k = snprintf(msg, sizeof(msg), "--sites -p %d: %.0f "
				 "allocation calls and %.0f frees trapped",
				 (int)s->pid, allocs, frees);
		if (isfinite(cost))
			snprintf(msg + k, sizeof(msg) - (size_t)k, ", about "
				 "%.2f and %.2f us each (measured at start): "
				 "%.3g s of the process's time",
				 s->alloc_ns / 1e3, s->free_ns / 1e3,
				 cost / 1e9);
		sampler_say(s->rec, t, false, msg);
#endif
		process_forget(s);
	}
	free(proc);
}

static void bpf_sites_free(void *ctx)
{
	struct bpf_sites_sampler *s = ctx;
	if (!s)
		return;
	bpf_sites_free_kernel(s);
	sites_symbols_free(s->symbols);
	free(s->site_of);
	free(s->sites);
	strmap_release(&s->site_by_frames);
	free(s->frames);
	free(s->rooms);
	free(s->why_off);
	free(s);
}

const struct sampler_ops bpf_sites_sampler_ops = {
	.name = "sites-bpf",
	.describe = bpf_sites_describe,
	.open = bpf_sites_open,
	.read = bpf_sites_read,
	.close = bpf_sites_close,
	.start = bpf_sites_start,
	.free = bpf_sites_free,
};

struct sampler bpf_sites_sampler(const struct recorder_options *o)
{
	struct bpf_sites_sampler *s = xcalloc(1, sizeof(*s));
	s->depth = o->sites_depth > 0 ? (unsigned)o->sites_depth : 8;
	double rate = isfinite(o->sites_rate) && o->sites_rate >= 1 ?
		      o->sites_rate : 512 * 1024;
	s->rate = floor(fmin(rate, BPF_MAX_RATE));
	s->alloc_ns = s->free_ns = NAN;
	snprintf(s->describe, sizeof(s->describe), "eBPF uprobes, every "
		 "%.0f B on average, %u frames, names: %s", s->rate, s->depth,
		 sites_symbols_how());
	/* as the preload mode: names looked up locally only
	 * (sampler_sites.c says why) */
	unsetenv("DEBUGINFOD_URLS");
	return (struct sampler){&bpf_sites_sampler_ops, s};
}
