/*
 * probe_libs.c - stand-ins for what a user may give `memtrend probe
 * --allocator` (tests/e2e/probe_allocator.sh): one source built four ways
 * by tests/meson.build, each with one of these defined:
 *
 *   PROBE_LIB_SHIM      an allocator: malloc and its family forwarded to
 *                       glibc's __libc_* entry points (so it measures like
 *                       glibc, and the probe must see that malloc is its);
 *                       its constructor writes a line on stdout
 *   PROBE_LIB_NOMALLOC  a library that is no allocator (it defines no
 *                       malloc); its constructor prints a line on stdout
 *                       through stdio, flushed at exit
 *   PROBE_LIB_BLOCK     a library whose constructor never returns
 *   PROBE_LIB_NEEDS     a library that needs PROBE_LIB_NOMALLOC's (linked
 *                       with it): copied away from it, a process that
 *                       preloads it cannot start (a missing dependency is
 *                       fatal to the loader), though the file is fine
 *   PROBE_PIE           a program (linked as a PIE): not a library at all
 *
 * What it does not do: allocate on its own, or anything a real allocator
 * does beyond handing glibc's blocks on. Not sanitized (it plays a vendor
 * library: tests/meson.build).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(PROBE_LIB_SHIM)
/* glibc's own allocator under its exported internal names (GLIBC_2.2.5). */
extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);

void *malloc(size_t n) { return __libc_malloc(n); }
void free(void *p) { __libc_free(p); }
void *calloc(size_t n, size_t size) { return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void *memalign(size_t align, size_t n) { return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n)
{
	return __libc_memalign(align, n);
}
void *valloc(size_t n) { return __libc_valloc(n); }
void *pvalloc(size_t n) { return __libc_pvalloc(n); }
int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	void *p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

__attribute__((constructor)) static void shim_loaded(void)
{
	static const char line[] = "probe_shim: loaded\n";
	ssize_t k = write(STDOUT_FILENO, line, strlen(line));
	(void)k;
}
#elif defined(PROBE_LIB_NOMALLOC)
int probe_nomalloc_answer(void);
int probe_nomalloc_answer(void) { return 42; }

__attribute__((constructor)) static void nomalloc_loaded(void)
{
	printf("probe_nomalloc: loaded\n");
}
#elif defined(PROBE_LIB_NEEDS)
int probe_nomalloc_answer(void);
int probe_needs_answer(void);
int probe_needs_answer(void) { return probe_nomalloc_answer(); }
#elif defined(PROBE_LIB_BLOCK)
__attribute__((constructor)) static void block_forever(void)
{
	for (;;)
		pause();
}
#elif defined(PROBE_PIE)
int main(void)
{
	puts("a program, not a library");
	return 0;
}
#else
#error "define one of the PROBE_LIB_* or PROBE_PIE"
#endif
