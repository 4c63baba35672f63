/*
 * shim.c - libmemtrend-sites.so, the preloaded allocation sampler of
 * `memtrend record --sites -- COMMAND` (docs/sites.md).
 *
 * Runs inside the target: it interposes malloc, calloc, realloc,
 * reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc
 * and pvalloc, calls the next definition (dlsym(RTLD_NEXT): glibc's or
 * a preloaded allocator's), and samples the allocations by bytes: each
 * thread counts down a number of bytes drawn from an exponential of
 * mean `rate` (the region's header, --sites-rate) and samples the
 * allocation that crosses zero, so an allocation of s bytes is sampled
 * with probability p(s) = 1 - exp(-s/rate) whatever came before it
 * (the exponential is memoryless). A sampled allocation stands for
 * s / p(s) bytes: the estimate of a site's live bytes, the sum of its
 * live samples' weights, is unbiased (E = p(s) x s/p(s) = s). This is
 * tcmalloc's weighting (tcmalloc docs/sampling.md, "Sampling the
 * allocations"; Android's heapprofd samples the same way). Only a
 * sampled allocation's stack is captured (glibc's backtrace(), primed
 * once at start-up so that its first call does not load libgcc_s from
 * inside malloc), and kept in the region (sites_region.h): a site's
 * live bytes and the sampled block, so its free subtracts it.
 *
 * Only the process that claims the region samples (the command memtrend
 * started: the first to load the shim with the variable set claims it,
 * and keeps the region's descriptor open across exec, so that a
 * wrapper's `exec ./server` samples the server: shim_init()); a forked
 * child stops sampling (the region is its parent's) and its copy of the
 * descriptor is closed when it execs; what it runs lets go of the
 * region, as does any process whose region is missing or invalid: it
 * then only passes the calls through. The descriptor is named with its
 * identity (MEMTREND_SITES_FD=FD:DEV:INO): one that fstat does not find
 * to be that file is the program's own, never closed nor mapped.
 *
 * Anonymous memory the program maps itself (mmap with MAP_ANONYMOUS,
 * not PROT_NONE: a reservation holds nothing) is sampled the same way,
 * by its length, and leaves its site when munmap starts at it (a
 * mapping unmapped from its middle stays counted whole) or mremap moves
 * it (then the new length is a new allocation, as realloc's; a file
 * mapping moved by mremap is taken for an anonymous one). What the
 * allocator maps
 * for itself is not: glibc's malloc maps through libc's internal entry,
 * past any interposer, and a preloaded allocator's calls come from its
 * own code (alloc_lo, alloc_hi: its malloc's module), skipped, so no
 * byte is counted twice.
 *
 * What it does not do: name frames (the recorder does, from the
 * target's maps), write
 * anything but the region, or use any of memtrend's layers: libc, libm
 * and the region's code only. Never built with sanitizers (it runs in a
 * process that is not).
 */
/* The build asks for 64-bit file offsets everywhere, which renames mmap
 * to mmap64 in the headers: the shim defines both names itself, each
 * with its own type. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sites_region.h"

#define EXPORT __attribute__((visibility("default")))
/* Initial-exec TLS: a thread's first access never calls
 * __tls_get_addr, which may allocate. */
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* The shim's own frames on a sampled allocation's stack (sample_block,
 * its callers, the interposed function) are those inside its own code:
 * [shim_lo, shim_hi), found at start-up, all skipped. The stack is
 * captured this many frames deeper than depth for them: 4 when built
 * optimised (meson.build forces it), 5 at -O0 (realloc's path), with
 * room to spare. */
#define SHIM_FRAMES 8
static uintptr_t shim_lo, shim_hi;
/* The region's descriptor in the owner; -1 elsewhere. */
static int owner_fd = -1;

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_fn)(size_t, size_t);
typedef void *(*valloc_fn)(size_t);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);

static struct {
	malloc_fn malloc;
	calloc_fn calloc;
	realloc_fn realloc;
	free_fn free;
	posix_memalign_fn posix_memalign;
	aligned_fn aligned_alloc, memalign;
	valloc_fn valloc, pvalloc;
	mmap_fn mmap;
	munmap_fn munmap;
	mremap_fn mremap;
} real;
/* The code of the allocator the shim calls (real.malloc's module, when
 * it is not libc): its own mmap calls are its heap, already sampled as
 * allocations. Found at start-up; 0, 0: none. */
static uintptr_t alloc_lo, alloc_hi;

/* 0 not yet, 1 resolving the real functions, 2 resolved */
static int resolved;
/* The region, when this process claimed it; NULL: pass through. */
static struct sites_header *region;
static double rate;
static uint32_t depth;

/* Set once by the constructor, cleared in a forked child: a relaxed
 * load, as cheap as a plain one. */
static inline struct sites_header *my_region(void)
{
	return __atomic_load_n(&region, __ATOMIC_RELAXED);
}

static TLS int in_shim;          /* re-entrancy guard */
static TLS int64_t bytes_left;   /* until the next sample */
static TLS uint64_t rng;         /* xorshift64* state; 0: unseeded */

/* ---- what dlsym allocates while the real functions are looked up ---- */

/* dlsym may call calloc (its error buffer) before any real allocator is
 * known: served from here, never freed (a few hundred bytes at most). */
static _Alignas(64) char boot_arena[64 * 1024];
static size_t boot_used;

static bool in_boot(const void *p)
{
	return (const char *)p >= boot_arena &&
	       (const char *)p < boot_arena + sizeof(boot_arena);
}

static void *boot_alloc(size_t size)
{
	size_t at = __atomic_fetch_add(&boot_used, (size + 15) & ~(size_t)15,
				       __ATOMIC_RELAXED);
	if (at + size > sizeof(boot_arena))
		return NULL;
	return boot_arena + at;
}

static void resolve(void)
{
	int expected = 0;
	if (!__atomic_compare_exchange_n(&resolved, &expected, 1, false,
					 __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) != 2)
			;
		return;
	}
	real.malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
	real.calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
	real.realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
	real.free = (free_fn)dlsym(RTLD_NEXT, "free");
	real.posix_memalign =
		(posix_memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
	real.aligned_alloc = (aligned_fn)dlsym(RTLD_NEXT, "aligned_alloc");
	real.memalign = (aligned_fn)dlsym(RTLD_NEXT, "memalign");
	real.valloc = (valloc_fn)dlsym(RTLD_NEXT, "valloc");
	real.pvalloc = (valloc_fn)dlsym(RTLD_NEXT, "pvalloc");
	real.mmap = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	real.munmap = (munmap_fn)dlsym(RTLD_NEXT, "munmap");
	real.mremap = (mremap_fn)dlsym(RTLD_NEXT, "mremap");
	__atomic_store_n(&resolved, 2, __ATOMIC_RELEASE);
}

static inline bool ready(void)
{
	if (__builtin_expect(__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) == 2,
			     1))
		return true;
	if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) == 1 && in_shim)
		return false; /* our own dlsym is asking */
	in_shim++;
	resolve();
	in_shim--;
	return true;
}

/* ---- sampling ---- */

static uint64_t next_random(void)
{
	uint64_t x = rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Bytes to the next sample: exponential of mean rate. */
static int64_t draw_countdown(void)
{
	return sites_countdown(((double)(next_random() >> 11) + 1.0) *
			       0x1.0p-53, rate);
}

static __attribute__((noinline)) void sample_block(void *p, size_t size)
{
	void *frames[SITES_MAX_DEPTH + SHIM_FRAMES];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int n = backtrace(frames, (int)(depth + SHIM_FRAMES));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_fetch_add(&region->backtrace_ns,
			   (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL +
				      (t1.tv_nsec - t0.tv_nsec)),
			   __ATOMIC_RELAXED);
	uint64_t stack[SITES_MAX_DEPTH];
	uint32_t k = 0;
	int i = 0;
	while (i < n && (uintptr_t)frames[i] >= shim_lo &&
	       (uintptr_t)frames[i] < shim_hi)
		i++;
	for (; i < n && k < depth; i++)
		stack[k++] = (uint64_t)(uintptr_t)frames[i];
	sites_region_add(region, (uint64_t)(uintptr_t)p, size,
			 sites_sample_weight(size, rate), stack, k);
}

/* The countdown crossed 0 at a block of size bytes (or the thread's
 * first allocation: its countdown was never drawn): sample it, unless
 * inside the shim, and draw the next. Out of line: the common path
 * (the count down alone) stays a few instructions. */
static __attribute__((noinline, cold)) void countdown_crossed(void *p,
							      size_t size)
{
	if (rng == 0) {
		/* seeded per thread from its TLS address and the clock */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		rng = ((uint64_t)(uintptr_t)&rng * 0x9e3779b97f4a7c15ULL) ^
		      ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec;
		if (!rng)
			rng = 1;
		bytes_left = draw_countdown();
		if (!sites_countdown_hit(&bytes_left, size))
			return;
	}
	bytes_left = draw_countdown();
	if (in_shim)
		return; /* the shim's own (backtrace's first call) */
	in_shim++;
	int e = errno;
	sample_block(p, size);
	errno = e;
	in_shim--;
}

/* After the real allocation: count it down; sample it when it crosses. */
static inline void *after_alloc(void *p, size_t size)
{
	if (__builtin_expect(p != NULL && my_region() != NULL, 1) &&
	    __builtin_expect(sites_countdown_hit(&bytes_left, size), 0))
		countdown_crossed(p, size);
	return p;
}

static __attribute__((noinline, cold)) void free_sampled(void *p)
{
	if (sites_region_maybe_sampled(region, (uint64_t)(uintptr_t)p))
		sites_region_remove(region, (uint64_t)(uintptr_t)p);
}

/* Before the real free: a sampled block leaves its site. */
static inline void before_free(void *p)
{
	struct sites_header *h = my_region();
	if (h && __builtin_expect(!sites_filter_clear(h,
					(uint64_t)(uintptr_t)p), 0))
		free_sampled(p);
}

/* ---- start-up ---- */

/* dl_iterate_phdr's callback: the executable segment that holds the
 * code at range[0]: into range[0], range[1]; and whether its module is
 * the C library (range[2]). */
static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t *range = arg, me = range[0];
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (me >= lo && me < lo + ph->p_memsz) {
			const char *base = info->dlpi_name ?
					   strrchr(info->dlpi_name, '/') : NULL;
			base = base ? base + 1 : info->dlpi_name;
			range[0] = lo;
			range[1] = lo + ph->p_memsz;
			range[2] = base && !strncmp(base, "libc.so", 7);
			return 1;
		}
	}
	return 0;
}

static void atfork_child(void)
{
	/* the region is the parent's: a child neither samples into it nor
	 * removes the parent's blocks from it; what it execs finds the
	 * descriptor and lets go (not the owner) */
	__atomic_store_n(&region, NULL, __ATOMIC_RELAXED);
	/* nor does what it execs inherit the descriptor (fcntl:
	 * async-signal-safe, as a child of a threaded fork needs) */
	if (owner_fd >= 0) {
		int fl = fcntl(owner_fd, F_GETFD);
		if (fl >= 0)
			fcntl(owner_fd, F_SETFD, fl | FD_CLOEXEC);
	}
}

/* An unsigned decimal at *p up to stop (or the end): its value, *p
 * past it; false when there is none or it overflows. */
static bool parse_u64(const char **p, char stop, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s != stop)
		return false;
	*p = stop ? s + 1 : s;
	*out = v;
	return true;
}

/* The region's descriptor, named FD:DEV:INO in SITES_REGION_FD_ENV (by
 * memtrend, which passed it to the command; kept open across exec by
 * the owner), when fstat finds that very file at that number (*st);
 * else -1: the number is not the region's (the variable came down to
 * a process that no longer has it, and the number is now one of the
 * program's own: never touched). */
static int region_fd(struct stat *st)
{
	const char *v = getenv(SITES_REGION_FD_ENV);
	uint64_t fd, dev, ino;
	if (!v || !parse_u64(&v, ':', &fd) || !parse_u64(&v, ':', &dev) ||
	    !parse_u64(&v, '\0', &ino) || fd > INT32_MAX)
		return -1;
	if (fstat((int)fd, st) || (uint64_t)st->st_dev != dev ||
	    (uint64_t)st->st_ino != ino)
		return -1;
	return (int)fd;
}

/* What this process inherited but does not own: let go of it (fd: the
 * region's, checked; -1: nothing of it here), so that its own children
 * do not carry it further. */
static void let_go(int fd)
{
	if (fd >= 0)
		close(fd);
	unsetenv(SITES_REGION_FD_ENV);
}

/* Who samples: the first process to load the shim with the variable
 * set claims the region (the command memtrend started); if it execs
 * (a wrapper's `exec ./server`, the same pid), the new image finds the
 * region through the descriptor kept open, empties it and samples in
 * its turn; any other process (what the command starts) lets go. */
__attribute__((constructor)) static void shim_init(void)
{
	ready();
	if (!getenv(SITES_REGION_FD_ENV))
		return;
	in_shim++;
	struct stat st;
	int fd = region_fd(&st);
	void *mem = MAP_FAILED;
	if (fd >= 0 && st.st_size > 0)
		mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
	int32_t none = 0, self = (int32_t)getpid();
	struct sites_header *h = mem != MAP_FAILED &&
				 sites_region_valid(mem, (size_t)st.st_size) ?
				 mem : NULL;
	bool mine = false;
	if (h && __atomic_compare_exchange_n(&h->owner, &none, self, false,
					     __ATOMIC_ACQ_REL,
					     __ATOMIC_ACQUIRE))
		mine = true;
	else if (h && none == self) {
		sites_region_reset(h); /* an exec: a new image */
		mine = true;
	}
	if (!mine) {
		if (mem != MAP_FAILED)
			munmap(mem, (size_t)st.st_size);
		let_go(fd);
	} else {
		/* the descriptor stays open across exec (memtrend passed
		 * it so), named in the environment for the next image */
		owner_fd = fd;
		rate = (double)h->rate;
		depth = h->depth;
		/* backtrace() loads libgcc_s on its first call: done here,
		 * not inside a malloc */
		void *prime[4];
		backtrace(prime, 4);
		uintptr_t range[3] = {(uintptr_t)&sample_block, 0, 0};
		dl_iterate_phdr(find_code, range);
		shim_lo = range[0];
		shim_hi = range[1];
		/* the allocator's code, unless it is libc's (whose malloc
		 * maps past the interposer, and whose other mmap callers
		 * are the program's requests) */
		uintptr_t a[3] = {(uintptr_t)real.malloc, 0, 0};
		if (real.malloc && dl_iterate_phdr(find_code, a) && !a[2]) {
			alloc_lo = a[0];
			alloc_hi = a[1];
		}
		pthread_atfork(NULL, NULL, atfork_child);
		__atomic_store_n(&region, h, __ATOMIC_RELEASE);
	}
	in_shim--;
}

/* ---- the interposed functions ---- */

EXPORT void *malloc(size_t size)
{
	if (!ready())
		return boot_alloc(size);
	return after_alloc(real.malloc(size), size);
}

EXPORT void *calloc(size_t n, size_t size)
{
	if (!ready()) {
		if (size && n > SIZE_MAX / size)
			return NULL;
		return boot_alloc(n * size); /* static: zeroed */
	}
	void *p = real.calloc(n, size);
	return after_alloc(p, n * size);
}

EXPORT void free(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!ready())
		return;
	before_free(p);
	real.free(p);
}

/* realloc's body, for realloc and reallocarray (glibc's reallocarray
 * would call its own realloc, past the shim). */
static void *shim_realloc(void *p, size_t size)
{
	if (!ready())
		return boot_alloc(size);
	if (in_boot(p)) {
		/* a block from the boot arena: copied out (its size is not
		 * kept: what is left of the arena bounds it) */
		void *q = real.malloc(size);
		if (q) {
			size_t room = (size_t)(boot_arena + sizeof(boot_arena) -
					       (char *)p);
			memcpy(q, p, size < room ? size : room);
		}
		return after_alloc(q, size);
	}
	/* the old block leaves its site whether it moves or not; the new
	 * one is a new allocation of the new size */
	before_free(p);
	void *q = real.realloc(p, size);
	if (!q && size && p) {
		/* failed: p is still live, but no longer counted; rare, and
		 * an under-estimate, never a block counted twice */
		return NULL;
	}
	return after_alloc(q, size);
}

EXPORT void *realloc(void *p, size_t size)
{
	return shim_realloc(p, size);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return shim_realloc(p, n * size);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	if (!ready())
		return ENOMEM;
	int rc = real.posix_memalign(out, align, size);
	if (rc == 0)
		after_alloc(*out, size);
	return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!ready())
		return NULL;
	return after_alloc(real.aligned_alloc(align, size), size);
}

EXPORT void *memalign(size_t align, size_t size)
{
	if (!ready())
		return NULL;
	return after_alloc(real.memalign(align, size), size);
}

EXPORT void *valloc(size_t size)
{
	if (!ready())
		return NULL;
	return after_alloc(real.valloc(size), size);
}

EXPORT void *pvalloc(size_t size)
{
	if (!ready())
		return NULL;
	return after_alloc(real.pvalloc(size), size);
}

/* ---- anonymous memory the program maps itself ---- */

/* Whether a mapping is one to sample: anonymous, holding memory (not a
 * PROT_NONE reservation), asked for by the program (not by the
 * allocator's own code: caller is the return address into it). */
static inline bool mapping_sampled(int prot, int flags, void *caller)
{
	uintptr_t c = (uintptr_t)caller;
	return (flags & MAP_ANONYMOUS) && prot != PROT_NONE &&
	       !(c >= alloc_lo && c < alloc_hi);
}

/* A sampled mapping at p unmapped, or moved: it leaves its site. The
 * live set's filter answers first, as for a free. */
static inline void mapping_gone(void *p)
{
	before_free(p);
}

/* mmap's body, for mmap and mmap64: caller, the return address into
 * who called. */
static void *shim_mmap(void *addr, size_t len, int prot, int flags, int fd,
		       off_t off, void *caller)
{
	if (!ready() || !real.mmap) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	void *p = real.mmap(addr, len, prot, flags, fd, off);
	if (p == MAP_FAILED || !my_region())
		return p;
	/* MAP_FIXED over a sampled mapping replaces it */
	if (flags & MAP_FIXED)
		mapping_gone(p);
	if (mapping_sampled(prot, flags, caller))
		after_alloc(p, len);
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	return shim_mmap(addr, len, prot, flags, fd, off,
			 __builtin_return_address(0));
}

/* A program built with _FILE_OFFSET_BITS=64 (meson's default, and
 * many others') calls mmap by this name; on 64-bit glibc it is mmap. */
EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off64_t off)
{
	return shim_mmap(addr, len, prot, flags, fd, (off_t)off,
			 __builtin_return_address(0));
}

EXPORT int munmap(void *addr, size_t len)
{
	if (!ready() || !real.munmap) {
		errno = EINVAL;
		return -1;
	}
	int rc = real.munmap(addr, len);
	if (rc == 0 && my_region())
		mapping_gone(addr);
	return rc;
}

EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags,
		    ...)
{
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	if (!ready() || !real.mremap) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	void *p = real.mremap(old, old_len, new_len, flags, want);
	if (p == MAP_FAILED || !my_region())
		return p;
	/* as a realloc: the old mapping leaves its site (if sampled), the
	 * new length is a new allocation (the program's own only: what
	 * the allocator moves was never sampled) */
	mapping_gone(old);
	uintptr_t c = (uintptr_t)__builtin_return_address(0);
	if (!(c >= alloc_lo && c < alloc_hi))
		after_alloc(p, new_len);
	return p;
}
