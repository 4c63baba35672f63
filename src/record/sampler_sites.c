/*
 * sampler_sites.c - allocation sites as a sampler (sampler.h), record
 * --sites' preload mode (docs/sites.md).
 *
 * Made with the run: a region file (sites_region.h) of the configured
 * rate and depth, created empty (mode 0600) in /dev/shm (or $TMPDIR),
 * and the -- COMMAND's environment: memtrend's, with the shim
 * (libmemtrend-sites.so, found beside memtrend, then where it is
 * installed; $MEMTREND_SITES_SHIM overrides) first in LD_PRELOAD, so
 * that its malloc is the one the loader binds and a library the user
 * preloads (an allocator) is what it calls next, and the region's path
 * in MEMTREND_SITES. The file is unlinked once the shim has claimed it
 * (its mapping and its descriptor keep it: an exec'd image finds it
 * through the descriptor), or at the end. A command that execs (a
 * wrapper) raises the region's generation: its old sites fall to 0,
 * the new image's are declared anew.
 *
 * At every sample of the process that claimed the region: the sites the
 * shim added since are declared (SAMPLE_SITE, their frames named by
 * sites_symbols.c), every site's live-bytes estimate goes into the frame
 * (sampler_site_value), and the shim's counts (sampled, dropped) as a
 * SAMPLE_SITE_STATS event when they change; a table found full is said
 * once, with what it cost.
 *
 * What it does not do: sample a process memtrend did not start (-p,
 * --name: eBPF mode, not built; the command line refuses it), follow the
 * command's children (the shim unsets the variable, so that only the
 * command claims the region), or analyse (analysis/sites.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"
#include "recorder.h"
#include "sampler.h"
#include "sink_set.h"
#include "sites_region.h"
#include "sites_symbols.h"

extern char **environ;

/* The build defines it (meson.build); a compiler run outside the build
 * (scripts/analyze.sh) gets the usual place. */
#ifndef MEMTREND_SITES_SHIM_INSTALLED
#define MEMTREND_SITES_SHIM_INSTALLED "/usr/local/lib/memtrend/libmemtrend-sites.so"
#endif

/* A command that has not claimed the region after this long is said to
 * be out of reach of the shim (a static binary, a set-uid one, a
 * wrapper that cleared LD_PRELOAD). */
#define SITES_CLAIM_WAIT_S 5.0
/* Naming new sites at one tick stops after this long (the rest wait
 * for the next ticks, their values with them): a frame named for the
 * first time costs 40-300 us through libdw (2026-12-05: the symbol
 * table's search, the line tables read), one named before 0.1 us
 * (sites_symbols.c keeps them). */
#define SITES_NAMING_BUDGET_S 0.02

struct sites_sampler {
	struct recorder *rec;
	char path[PATH_MAX];       /* the region's file; "" once unlinked */
	struct sites_header *h;    /* MAP_SHARED */
	size_t size;
	char **env;                /* the command's environment (owned) */
	char *env_preload, *env_region; /* its two entries (owned) */
	int64_t *ids;              /* region site index -> recorder id */
	uint32_t n_declared;
	uint64_t generation;       /* the region's, as last read: it rises
				      when the command execs (a new image,
				      the table emptied) */
	struct sites_symbols *symbols; /* the claimant's */
	struct sites_frame_names *rooms; /* [SITES_MAX_DEPTH], for a site's
					    names while it is declared */
	struct sample_site_stats last; /* as last sent */
	bool stats_sent, dropped_noted, unclaimed_noted, meta_sent;
	char describe[160];
};

struct sites_proc {
	pid_t pid;
	double opened_mono;
};

/* The shim's path, or NULL after a message. */
static char *shim_path(void)
{
	const char *env = getenv("MEMTREND_SITES_SHIM");
	if (env && *env) {
		if (access(env, R_OK) == 0)
			return xstrdup(env);
		error("MEMTREND_SITES_SHIM: cannot read '%s': %s", env,
		      strerror(errno));
		return NULL;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			char beside[PATH_MAX + 32];
			snprintf(beside, sizeof(beside),
				 "%.*s/libmemtrend-sites.so",
				 (int)(slash - exe), exe);
			if (access(beside, R_OK) == 0)
				return xstrdup(beside);
		}
	}
	if (access(MEMTREND_SITES_SHIM_INSTALLED, R_OK) == 0)
		return xstrdup(MEMTREND_SITES_SHIM_INSTALLED);
	error("--sites: the shim libmemtrend-sites.so is neither beside "
	      "memtrend nor in %s (set MEMTREND_SITES_SHIM to its path)",
	      MEMTREND_SITES_SHIM_INSTALLED);
	return NULL;
}

/* memtrend's environment with LD_PRELOAD=shim[:what was there] and
 * MEMTREND_SITES=path. */
static void make_env(struct sites_sampler *s, const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(shim) + (old ? strlen(old) : 0) + 32;
	s->env_preload = xmalloc(len);
	snprintf(s->env_preload, len, "LD_PRELOAD=%s%s%s", shim,
		 old && *old ? ":" : "", old && *old ? old : "");
	len = strlen(s->path) + sizeof(SITES_REGION_ENV) + 2;
	s->env_region = xmalloc(len);
	snprintf(s->env_region, len, "%s=%s", SITES_REGION_ENV, s->path);
	size_t n = 0;
	while (environ[n])
		n++;
	s->env = xcalloc(n + 3, sizeof(*s->env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], SITES_REGION_ENV "=",
			    sizeof(SITES_REGION_ENV)) != 0)
			s->env[k++] = environ[i];
	s->env[k++] = s->env_preload;
	s->env[k++] = s->env_region;
	s->env[k] = NULL;
}

static void region_unlink(struct sites_sampler *s)
{
	if (s->path[0]) {
		unlink(s->path);
		s->path[0] = '\0';
	}
}

static void sites_free(void *ctx)
{
	struct sites_sampler *s = ctx;
	if (!s)
		return;
	region_unlink(s);
	if (s->h)
		munmap(s->h, s->size);
	sites_symbols_free(s->symbols);
	free(s->ids);
	free(s->rooms);
	free(s->env);
	free(s->env_preload);
	free(s->env_region);
	free(s);
}

/* The region's file, laid out; -1 after a message. */
static int region_create(struct sites_sampler *s,
			 const struct recorder_options *o)
{
	uint32_t depth = o->sites_depth > 0 ? (uint32_t)o->sites_depth :
			 SITES_DEFAULT_DEPTH;
	double rate = isfinite(o->sites_rate) && o->sites_rate >= 1 ?
		      o->sites_rate : SITES_DEFAULT_RATE;
	s->size = sites_region_size(depth, SITES_DEFAULT_MAX_SITES,
				    SITES_DEFAULT_LIVE_SLOTS);
	if (!s->size) {
		error("--sites-depth %u: must be 1 to %u", depth,
		      SITES_MAX_DEPTH);
		return -1;
	}
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
			  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(s->path, sizeof(s->path), "%s/memtrend-sites-XXXXXX", dir);
	int fd = mkostemp(s->path, O_CLOEXEC);
	if (fd < 0) {
		error("--sites: cannot create '%s': %s", s->path,
		      strerror(errno));
		s->path[0] = '\0';
		return -1;
	}
	void *mem = MAP_FAILED;
	int e = ftruncate(fd, (off_t)s->size) ? errno : 0;
	if (!e) {
		mem = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		e = mem == MAP_FAILED ? errno : 0;
	}
	close(fd);
	if (e) {
		error("--sites: cannot make '%s' of %zu bytes: %s", s->path,
		      s->size, strerror(e));
		return -1;
	}
	s->h = mem;
	if (sites_region_format(s->h, s->size, depth, (uint64_t)rate,
				SITES_DEFAULT_MAX_SITES,
				SITES_DEFAULT_LIVE_SLOTS))
		return error("--sites: cannot lay out the region");
	s->ids = xcalloc(SITES_DEFAULT_MAX_SITES, sizeof(*s->ids));
	snprintf(s->describe, sizeof(s->describe),
		 "preload, every %.0f B on average, %u frames, names: %s",
		 rate, depth, sites_symbols_how());
	return 0;
}

static const char *sites_describe(void *ctx)
{
	struct sites_sampler *s = ctx;
	return s->describe;
}

static int sites_start(void *ctx, struct recorder *rec)
{
	struct sites_sampler *s = ctx;
	s->rec = rec;
	return 0;
}

static void *sites_open(void *ctx, pid_t pid,
			const struct proc_identity *seen)
{
	(void)ctx;
	(void)seen;
	struct sites_proc *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->opened_mono = now_monotonic();
	return p;
}

static void sites_close(void *ctx, void *proc)
{
	(void)ctx;
	free(proc);
}

/* Declare sites [n_declared, n) of the region. */
static void declare_new(struct sites_sampler *s, pid_t pid,
			const struct sink_set *out, int64_t inc, double t,
			uint32_t n)
{
	if (n > s->h->max_sites)
		n = s->h->max_sites;
	if (s->n_declared >= n)
		return;
	double t0 = now_monotonic();
	if (!s->symbols)
		s->symbols = sites_symbols_new(pid);
	struct sample_site_frame frames[SITES_MAX_DEPTH];
	if (!s->rooms)
		s->rooms = xcalloc(SITES_MAX_DEPTH, sizeof(*s->rooms));
	for (uint32_t i = s->n_declared; i < n; i++) {
		const struct sites_site *site = sites_region_site(s->h, i);
		uint32_t nf = site->n_frames <= s->h->depth ? site->n_frames :
			      s->h->depth;
		uint64_t addr[SITES_MAX_DEPTH];
		for (uint32_t k = 0; k < nf; k++)
			addr[k] = site->frames[k];
		/* the command exec'd while the site was read (its table
		 * emptied under us): nothing declared from it; the next
		 * read sees the new generation. (A site of no frames is
		 * real: a stack that could not be taken.) */
		if (__atomic_load_n(&s->h->generation, __ATOMIC_ACQUIRE) !=
		    s->generation)
			return;
		for (uint32_t k = 0; k < nf; k++)
			sites_symbols_name(s->symbols, addr[k], &frames[k],
					   &s->rooms[k]);
		struct sample_site x = {sampler_site_new(s->rec), inc, frames,
					nf};
		s->ids[i] = x.id;
		struct sample_event e = {.kind = SAMPLE_SITE, .t = t,
					 .inc = inc, .u.site = &x};
		sink_set_event(out, &e);
		s->n_declared = i + 1;
		/* naming costs the tick: a burst of new sites is declared
		 * over several */
		if (now_monotonic() - t0 > SITES_NAMING_BUDGET_S)
			return;
	}
}

static void stats_send(struct sites_sampler *s, const struct sink_set *out,
		       int64_t inc, double t)
{
	const struct sites_header *h = s->h;
	struct sample_site_stats st = {
		.rate = (double)h->rate, .depth = h->depth,
		.sampled = (double)__atomic_load_n(&h->sampled,
						   __ATOMIC_RELAXED),
		.dropped_sites = (double)__atomic_load_n(&h->dropped_sites,
							 __ATOMIC_RELAXED),
		.dropped_live = (double)__atomic_load_n(&h->dropped_live,
							__ATOMIC_RELAXED),
		.live_blocks = (double)__atomic_load_n(&h->n_live,
						       __ATOMIC_RELAXED),
		.backtrace_s = (double)__atomic_load_n(&h->backtrace_ns,
						       __ATOMIC_RELAXED) / 1e9,
	};
	if (s->stats_sent && st.sampled == s->last.sampled &&
	    st.dropped_sites == s->last.dropped_sites &&
	    st.dropped_live == s->last.dropped_live &&
	    st.live_blocks == s->last.live_blocks)
		return;
	s->stats_sent = true;
	s->last = st;
	struct sample_event e = {.kind = SAMPLE_SITE_STATS, .t = t,
				 .inc = inc, .u.site_stats = &st};
	sink_set_event(out, &e);
	if (!s->dropped_noted && (st.dropped_sites || st.dropped_live)) {
		s->dropped_noted = true;
		char msg[256];
		snprintf(msg, sizeof(msg), "--sites: a table of the shim is "
			 "full: %.0f sampled allocations not kept (site table "
			 "of %u: %.0f; live set: %.0f); the sites' figures "
			 "are low from here on", st.dropped_sites +
			 st.dropped_live, h->max_sites, st.dropped_sites,
			 st.dropped_live);
		sampler_say(s->rec, t, true, msg);
	}
}

/* The sites add no figure to the process's (f): they go to the frame
 * as sites' values, and the process sampler says whether it lives. */
static enum sampler_status sites_read(void *ctx, void *proc,
				      const struct sink_set *out,
				      int64_t inc, double t, double mono,
				      struct sampler_figures *f)
{
	(void)f;
	struct sites_sampler *s = ctx;
	struct sites_proc *p = proc;
	if (!s->rec)
		return SAMPLER_OK;
	pid_t owner = __atomic_load_n(&s->h->owner, __ATOMIC_ACQUIRE);
	if (owner != p->pid) {
		if (!owner && !s->unclaimed_noted &&
		    mono - p->opened_mono >= SITES_CLAIM_WAIT_S) {
			s->unclaimed_noted = true;
			char msg[200];
			snprintf(msg, sizeof(msg), "--sites: the shim has not "
				 "started in pid %d after %.0f s (a statically "
				 "linked or set-uid program, or LD_PRELOAD "
				 "cleared): no allocation sites", (int)p->pid,
				 SITES_CLAIM_WAIT_S);
			sampler_say(s->rec, t, true, msg);
		}
		return SAMPLER_OK;
	}
	region_unlink(s); /* the shim holds its mapping */
	if (!s->meta_sent) {
		/* what was sampled and how frames are named, for the
		 * recording (meta "sites") */
		s->meta_sent = true;
		struct sample_event e = {.kind = SAMPLE_META, .t = t,
					 .u.meta = {"sites", s->describe}};
		sink_set_event(out, &e);
	}
	uint64_t gen = __atomic_load_n(&s->h->generation, __ATOMIC_ACQUIRE);
	if (gen != s->generation) {
		/* the command exec'd (`sh -c 'exec ./server'`): the old
		 * image's heap is gone, its sites hold nothing from now on;
		 * the new image's sites are new ones, named from its maps */
		for (uint32_t i = 0; i < s->n_declared; i++)
			sampler_site_value(s->rec, s->ids[i], 0, NAN);
		s->n_declared = 0;
		s->generation = gen;
		sites_symbols_free(s->symbols);
		s->symbols = NULL;
		return SAMPLER_OK;
	}
	uint32_t n = (uint32_t)__atomic_load_n(&s->h->n_sites,
					       __ATOMIC_ACQUIRE);
	declare_new(s, p->pid, out, inc, t, n);
	for (uint32_t i = 0; i < s->n_declared; i++) {
		const struct sites_site *site = sites_region_site(s->h, i);
		int64_t live = __atomic_load_n(&site->live, __ATOMIC_RELAXED);
		uint64_t allocs = __atomic_load_n(&site->allocs,
						  __ATOMIC_RELAXED);
		sampler_site_value(s->rec, s->ids[i], (double)live,
				   (double)allocs);
	}
	stats_send(s, out, inc, t);
	return SAMPLER_OK;
}

static const struct sampler_ops sites_sampler_ops = {
	.name = "sites",
	.describe = sites_describe,
	.open = sites_open,
	.read = sites_read,
	.close = sites_close,
	.start = sites_start,
	.free = sites_free,
};

struct sampler sites_sampler(const struct recorder_options *o,
			     char *const **env)
{
	*env = NULL;
	struct sites_sampler *s = xcalloc(1, sizeof(*s));
	char *shim = shim_path();
	if (!shim || region_create(s, o)) {
		free(shim);
		sites_free(s);
		return (struct sampler){&sites_sampler_ops, NULL};
	}
	make_env(s, shim);
	free(shim);
	/* Names are looked up locally only: libdw asks the debuginfod
	 * servers of $DEBUGINFOD_URLS (set by default on Ubuntu, Fedora,
	 * Arch) from inside the naming, which runs in the sampling loop --
	 * a stalled server stalled the recording (4 s per frame), and the
	 * target's build ids went over the network. libdebuginfod reads
	 * the variable at each query, so memtrend drops it from its own
	 * environment here, before any thread of the run starts; the
	 * command keeps it (make_env copied it above). */
	unsetenv("DEBUGINFOD_URLS");
	*env = s->env;
	return (struct sampler){&sites_sampler_ops, s};
}
