/*
 * sampler_sites.c - allocation sites as a sampler (sampler.h), record
 * --sites' preload mode (docs/sites.md).
 *
 * Made with the run: a region (sites_region.h) of the configured rate
 * and depth in a file that has no name (memfd_create; where that is
 * missing, a file in /dev/shm or $TMPDIR unlinked at once), so that
 * nothing is left behind whatever ends memtrend (kill -9 included); its
 * descriptor, close-on-exec in memtrend, is inherited by the -- COMMAND
 * alone (reaper_spec.pass_fd), named in its environment with its
 * identity (MEMTREND_SITES_FD=FD:DEV:INO: the shim touches the number
 * only if fstat finds that file there, never a descriptor of the
 * program's own). The environment: memtrend's, with the shim
 * (libmemtrend-sites.so, found beside memtrend, then where it is
 * installed; $MEMTREND_SITES_SHIM overrides) first in LD_PRELOAD, so
 * that its malloc is the one the loader binds and a library the user
 * preloads (an allocator) is what it calls next. A command that execs
 * (a wrapper) raises the region's generation: its old sites fall to 0,
 * the new image's are declared anew.
 *
 * At every sample of the process that claimed the region: the sites the
 * shim added since are declared (SAMPLE_SITE, their frames named by
 * sites_symbols.c), every site's live-bytes estimate goes into the frame
 * (sampler_site_value), and the shim's counts (sampled, dropped) as a
 * SAMPLE_SITE_STATS event when they change; a table found full is said
 * once, with what it cost.
 *
 * What it does not do: sample a process memtrend did not start (-p:
 * the eBPF mode, sampler_sites_bpf.c; --name: refused), follow the
 * command's children (the shim unsets the variable, so that only the
 * command claims the region), or analyse (analysis/sites.c).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "recorder.h"
#include "sampler.h"
#include "sink_set.h"
#include "sites_region.h"
#include "sites_stats.h"
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
/* The claimant exec'd (its /proc/PID/exe is another file) and the
 * region's generation has not risen after this long: the new image did
 * not load the shim (static, set-uid, LD_PRELOAD cleared); said. Its
 * constructor runs before main: milliseconds. */
#define SITES_EXEC_WAIT_S 1.0

struct sites_sampler {
	struct recorder *rec;
	int fd;                    /* the region's (close-on-exec); -1 */
	struct sites_header *h;    /* MAP_SHARED */
	size_t size;
	/* h read through its own copy of the layout: the target can write
	 * anything into the region (sites_region.h) */
	struct sites_reader reader;
	double rate;               /* mean bytes between samples, as laid out */
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
	struct sites_stats_state stats; /* as last sent */
	bool unclaimed_noted, meta_sent;
	bool corrupt_noted, children_noted;
	/* The claimant's executable (/proc/PID/exe) in this generation: an
	 * exec that raises no generation is an image without the shim,
	 * whose heap is not the old image's (image_gone: the old sites
	 * hold 0, none read until a generation rises). */
	bool exe_known, image_gone, exec_noted;
	dev_t exe_dev;
	ino_t exe_ino;
	double gone_mono;
	/* The command's process as last read (its pid, incarnation, the
	 * sinks): at the end, the sites it added after the last read are
	 * declared (sites_finish), not lost with it. */
	pid_t last_pid;
	int64_t last_inc;
	const struct sink_set *out;
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
 * MEMTREND_SITES_FD=FD:DEV:INO (sites_region.h). */
static void make_env(struct sites_sampler *s, const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(shim) + (old ? strlen(old) : 0) + 32;
	s->env_preload = xmalloc(len);
	snprintf(s->env_preload, len, "LD_PRELOAD=%s%s%s", shim,
		 old && *old ? ":" : "", old && *old ? old : "");
	struct stat st;
	if (fstat(s->fd, &st))
		memset(&st, 0, sizeof(st)); /* a just-made fd: not seen */
	len = sizeof(SITES_REGION_FD_ENV) + 3 * 24;
	s->env_region = xmalloc(len);
	snprintf(s->env_region, len, "%s=%d:%llu:%llu", SITES_REGION_FD_ENV,
		 s->fd, (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	size_t n = 0;
	while (environ[n])
		n++;
	s->env = xcalloc(n + 3, sizeof(*s->env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], SITES_REGION_ENV "=",
			    sizeof(SITES_REGION_ENV)) != 0 &&
		    strncmp(environ[i], SITES_REGION_FD_ENV "=",
			    sizeof(SITES_REGION_FD_ENV)) != 0)
			s->env[k++] = environ[i];
	s->env[k++] = s->env_preload;
	s->env[k++] = s->env_region;
	s->env[k] = NULL;
}

static void sites_free(void *ctx)
{
	struct sites_sampler *s = ctx;
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
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

/* A file of no name for the region, close-on-exec: memfd_create's, or
 * one made in /dev/shm (else $TMPDIR, /tmp) and unlinked at once; -1
 * after a message. */
static int region_file(void)
{
	int fd = memfd_create("memtrend-sites", MFD_CLOEXEC);
	if (fd >= 0 || errno != ENOSYS)
		goto out;
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
			  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/memtrend-sites-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
out:
	if (fd < 0)
		error("--sites: cannot make the region's file: %s",
		      strerror(errno));
	return fd;
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
	int fd = s->fd = region_file();
	if (fd < 0)
		return -1;
	void *mem = MAP_FAILED;
	int e = ftruncate(fd, (off_t)s->size) ? errno : 0;
	if (!e) {
		mem = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		e = mem == MAP_FAILED ? errno : 0;
	}
	if (e) {
		error("--sites: cannot make the region of %zu bytes: %s",
		      s->size, strerror(e));
		return -1;
	}
	s->h = mem;
	s->rate = (double)(uint64_t)rate;
	if (sites_region_format(s->h, s->size, depth, (uint64_t)rate,
				SITES_DEFAULT_MAX_SITES,
				SITES_DEFAULT_LIVE_SLOTS))
		return error("--sites: cannot lay out the region");
	/* the layout copied now: no other process has seen the region */
	sites_reader_init(&s->reader, s->h, s->size);
	s->ids = xcalloc(s->reader.max_sites, sizeof(*s->ids));
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


/* Declare sites [n_declared, n) of the region, for budget_s at most. */
static void declare_new(struct sites_sampler *s, pid_t pid,
			const struct sink_set *out, int64_t inc, double t,
			uint32_t n, double budget_s)
{
	assert(n <= s->reader.max_sites);
	if (s->n_declared >= n)
		return;
	double t0 = now_monotonic();
	if (!s->symbols)
		s->symbols = sites_symbols_new(pid);
	struct sample_site_frame frames[SITES_MAX_DEPTH];
	if (!s->rooms)
		s->rooms = xcalloc(SITES_MAX_DEPTH, sizeof(*s->rooms));
	for (uint32_t i = s->n_declared; i < n; i++) {
		uint64_t addr[SITES_MAX_DEPTH];
		uint32_t nf = sites_reader_frames(&s->reader, i, addr);
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
		if (now_monotonic() - t0 > budget_s)
			return;
	}
}

static void stats_send(struct sites_sampler *s, const struct sink_set *out,
		       int64_t inc, double t)
{
	const struct sites_header *h = s->h;
	struct sample_site_stats st = {
		.rate = s->rate, .depth = s->reader.depth,
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
	char sites[40];
	snprintf(sites, sizeof(sites), "site table of %u", s->reader.max_sites);
	sites_stats_send(&s->stats, s->rec, out, inc, t, &st, "--sites",
			 "the shim", sites);
}

/* The target wrote into the region what the shim never would (a count
 * past a table, a header changed): said once; its figures are read on,
 * bounded by the recorder's own layout, for what they are worth. */
static void corrupt_say(struct sites_sampler *s, double t)
{
	if (!s->reader.corrupt || s->corrupt_noted)
		return;
	s->corrupt_noted = true;
	sampler_say(s->rec, t, true, "--sites: the region shared with the "
		    "command holds values the shim never writes (the program "
		    "wrote into it): its sites' figures are not to be "
		    "trusted from here on");
}

/* Has the claimant exec'd (its executable another file) with no new
 * generation? Then its declared sites fall to 0 (the heap they held is
 * gone), once. false when /proc cannot say (gone, not ours). */
static bool exec_without_shim(struct sites_sampler *s, pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		return false;
	if (!s->exe_known) {
		s->exe_known = true;
		s->exe_dev = st.st_dev;
		s->exe_ino = st.st_ino;
		return false;
	}
	if (st.st_dev == s->exe_dev && st.st_ino == s->exe_ino)
		return false;
	for (uint32_t i = 0; i < s->n_declared; i++)
		sampler_site_value(s->rec, s->ids[i], 0, 0, NAN);
	s->n_declared = 0;
	s->image_gone = true;
	s->gone_mono = now_monotonic();
	return true;
}

/* The region read for pid, the claimant: new sites declared (naming for
 * budget_s at most), every site's value into the frame, the counts. */
static void sites_sync(struct sites_sampler *s, pid_t pid,
		       const struct sink_set *out, int64_t inc, double t,
		       double budget_s)
{
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
		 * the new image's sites are new ones, named from its maps
		 * (the shim emptied the table before it raised the
		 * generation) */
		for (uint32_t i = 0; i < s->n_declared; i++)
			sampler_site_value(s->rec, s->ids[i], 0, 0, NAN);
		s->n_declared = 0;
		s->generation = gen;
		sites_symbols_free(s->symbols);
		s->symbols = NULL;
		s->exe_known = s->image_gone = false;
	}
	if (s->image_gone || exec_without_shim(s, pid)) {
		/* said after the wait, or at the end (close: budget_s
		 * infinite) */
		if (!s->exec_noted && (isinf(budget_s) ||
		    now_monotonic() - s->gone_mono >= SITES_EXEC_WAIT_S)) {
			s->exec_noted = true;
			char msg[240];
			snprintf(msg, sizeof(msg), "--sites: pid %d exec'd a "
				 "program the shim cannot load (statically "
				 "linked or set-uid, or LD_PRELOAD cleared): "
				 "its sites before fell to 0, and it has none "
				 "from then on", (int)pid);
			sampler_say(s->rec, t, true, msg);
		}
		return;
	}
	sites_reader_check(&s->reader);
	declare_new(s, pid, out, inc, t, sites_reader_count(&s->reader),
		    budget_s);
	for (uint32_t i = 0; i < s->n_declared; i++) {
		int64_t live;
		double var;
		uint64_t allocs;
		sites_reader_values(&s->reader, i, &live, &var, &allocs);
		sampler_site_value(s->rec, s->ids[i], (double)live, var,
				   (double)allocs);
	}
	stats_send(s, out, inc, t);
	corrupt_say(s, t);
}

/* The claimant's end (it exited, or the recording ends): what it added
 * since the last read is declared now, whatever naming costs (frames its
 * maps no longer name keep their module and offset, or their address),
 * not lost with it; the values and counts as last. Before its
 * incarnation ends (watch_close). */
static void sites_close(void *ctx, void *proc)
{
	struct sites_sampler *s = ctx;
	struct sites_proc *p = proc;
	if (s->rec && s->out && p->pid == s->last_pid &&
	    __atomic_load_n(&s->h->owner, __ATOMIC_ACQUIRE) == p->pid)
		sites_sync(s, p->pid, s->out, s->last_inc, now_wall(),
			   INFINITY);
	free(proc);
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
	if (owner == p->pid || (!owner && !s->last_pid)) {
		/* the claimant, or the first process read before any
		 * claimed (the command: held, it is read once at least
		 * however soon it exits) */
		s->last_pid = p->pid;
		s->last_inc = inc;
		s->out = out;
	}
	if (owner != p->pid && s->last_pid && p->pid != s->last_pid &&
	    !s->children_noted) {
		/* --children: a child target has a footprint of its own
		 * but no sites; said, so that its growth is not taken for
		 * one the sites missed */
		s->children_noted = true;
		char msg[200];
		snprintf(msg, sizeof(msg), "--sites: only the command itself "
			 "is sampled, not its children (pid %d and others "
			 "have no sites): run the program with exec",
			 (int)p->pid);
		sampler_say(s->rec, t, false, msg);
	}
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
	sites_sync(s, p->pid, out, inc, t, SITES_NAMING_BUDGET_S);
	return SAMPLER_OK;
}

const struct sampler_ops sites_sampler_ops = {
	.name = "sites",
	.describe = sites_describe,
	.open = sites_open,
	.read = sites_read,
	.close = sites_close,
	.start = sites_start,
	.free = sites_free,
};

struct sampler sites_sampler(const struct recorder_options *o,
			     char *const **env, int *pass_fd)
{
	*env = NULL;
	*pass_fd = 0;
	struct sites_sampler *s = xcalloc(1, sizeof(*s));
	s->fd = -1;
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
	*pass_fd = s->fd;
	return (struct sampler){&sites_sampler_ops, s};
}
