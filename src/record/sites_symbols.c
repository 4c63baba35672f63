/*
 * sites_symbols.c - allocation sites' frames named from the target's
 * maps (sites_symbols.h): elfutils' libdwfl over /proc/PID/maps when
 * built with libdw, else the maps alone (module and offset).
 *
 * The offset is the address in the module's own ELF addresses (the pc
 * less the module's load bias), what `addr2line -e MODULE OFFSET` and
 * `eu-addr2line` take. C++ names are demangled with the C++ runtime's
 * __cxa_demangle where it is linked (MEMTREND_HAVE_CXA_DEMANGLE).
 *
 * What it does not do: JIT frames (perf maps), separate debug files
 * beyond what libdwfl's standard search finds (.gnu_debuglink,
 * /usr/lib/debug/.build-id): docs/sites.md, "Not yet".
 */
#include "sites_symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "perf_map.h"

#if MEMTREND_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#if MEMTREND_HAVE_CXA_DEMANGLE
/* The C++ runtime's demangler (libstdc++'s ABI), declared for C. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len,
		     int *status);
#endif

/* A frame named once: sites share most of their frames (the request
 * handler, the thread's start), and libdw's lookups are dear (measured
 * 2026-12-05 on libc without debug files: 30 us for the symbol, 11 us
 * for the line, per frame). Strings owned; key 0: empty slot. */
struct named {
	uint64_t key;
	uint64_t offset;
	char *module, *build_id, *function, *file;
	int line;
};

/* Slots of the named frames (open addressing, kept at most half full:
 * 8,192 frames, about 2 MiB with their strings); past it, frames are
 * named each time. */
#define SYMBOLS_CACHE_SLOTS 16384u

struct sites_symbols {
	pid_t pid;
#if MEMTREND_HAVE_LIBDW
	Dwfl *dwfl;                /* NULL: could not be made */
	int reports;               /* maps read so far (bounded) */
#endif
	struct named *cache;       /* SYMBOLS_CACHE_SLOTS, owned */
	size_t cached;
	struct perf_map *jit;      /* /tmp/perf-PID.map, owned */
};

/* Maps are read again at most this many times per target, for an
 * address in no module (libraries loaded after the first sites). */
#define SYMBOLS_MAX_REPORTS 16

const char *sites_symbols_how(void)
{
#if MEMTREND_HAVE_LIBDW
	return "libdw";
#else
	return "module+offset (built without libdw)";
#endif
}

static void demangle(const char *name, char *out, size_t size)
{
#if MEMTREND_HAVE_CXA_DEMANGLE
	if (name[0] == '_' && name[1] == 'Z') {
		int status = -1;
		char *d = __cxa_demangle(name, NULL, NULL, &status);
		if (d && status == 0) {
			snprintf(out, size, "%s", d);
			free(d);
			return;
		}
		free(d);
	}
#endif
	snprintf(out, size, "%s", name);
}

#if MEMTREND_HAVE_LIBDW
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static void report(struct sites_symbols *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = dwfl_begin(&proc_callbacks);
	s->reports++;
	if (!s->dwfl)
		return;
	if (dwfl_linux_proc_report(s->dwfl, s->pid) != 0 ||
	    dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
		dwfl_end(s->dwfl);
		s->dwfl = NULL;
	}
}
#endif

struct sites_symbols *sites_symbols_new(pid_t pid)
{
	struct sites_symbols *s = xcalloc(1, sizeof(*s));
	s->pid = pid;
	s->jit = perf_map_new(pid);
#if MEMTREND_HAVE_LIBDW
	report(s);
#endif
	return s;
}

void sites_symbols_free(struct sites_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->cache && i < SYMBOLS_CACHE_SLOTS; i++) {
		free(s->cache[i].module);
		free(s->cache[i].build_id);
		free(s->cache[i].function);
		free(s->cache[i].file);
	}
	free(s->cache);
	perf_map_free(s->jit);
#if MEMTREND_HAVE_LIBDW
	if (s->dwfl)
		dwfl_end(s->dwfl);
#endif
	free(s);
}

/* The maps alone: the file mapped at pc, and pc less the start of its
 * first mapping (its load bias for the usual layout, where the first
 * segment maps offset 0 at address 0). */
static void name_from_maps(pid_t pid, uint64_t pc,
			   struct sample_site_frame *f,
			   struct sites_frame_names *room)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return;
	char line[4096 + 128], first_path[4096] = "";
	uint64_t first_start = 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long lo, hi, off;
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %*4s %llx %*x:%*x %*u %n", &lo, &hi,
			   &off, &name_at) < 3 || !name_at)
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		if (name[0] != '/')
			continue;
		if (strcmp(name, first_path) != 0) {
			snprintf(first_path, sizeof(first_path), "%s", name);
			first_start = lo - off;
		}
		if (pc >= lo && pc < hi) {
			snprintf(room->module, sizeof(room->module), "%s", name);
			f->module = room->module;
			f->offset = pc + 1 - first_start;
			break;
		}
	}
	fclose(fp);
}

/* Code in no file: a JIT's, named by its perf map (node
 * --perf-basic-prof...): the map as its module, the offset from the
 * code's start. true when named so. */
static bool name_from_jit(struct sites_symbols *s, uint64_t pc,
			  struct sample_site_frame *f,
			  struct sites_frame_names *room)
{
	uint64_t start = 0;
	const char *name = perf_map_lookup(s->jit, pc, &start);
	if (!name)
		return false;
	snprintf(room->module, sizeof(room->module), "/tmp/perf-%d.map",
		 (int)s->pid);
	f->module = room->module;
	f->offset = pc + 1 - start;
	snprintf(room->function, sizeof(room->function), "%s", name);
	f->function = room->function;
	return true;
}

static void name_uncached(struct sites_symbols *s, uint64_t addr,
			  struct sample_site_frame *f,
			  struct sites_frame_names *room)
{
	uint64_t pc = addr - 1; /* inside the call, not after it */
#if MEMTREND_HAVE_LIBDW
	Dwfl_Module *m = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	if (!m && s->reports < SYMBOLS_MAX_REPORTS) {
		report(s);
		m = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	}
	if (m) {
		Dwarf_Addr start = 0;
		const char *mainfile = NULL;
		const char *mname = dwfl_module_info(m, NULL, &start, NULL,
						     NULL, NULL, &mainfile,
						     NULL);
		Dwarf_Addr bias = 0;
		if (!dwfl_module_getelf(m, &bias))
			bias = start;
		snprintf(room->module, sizeof(room->module), "%s",
			 mainfile ? mainfile : mname ? mname : "?");
		f->module = room->module;
		f->offset = addr - bias;
		const unsigned char *bits = NULL;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(m, &bits, &vaddr);
		if (n > 0 && bits) {
			size_t k = 0;
			for (int i = 0; i < n &&
			     k + 3 <= sizeof(room->build_id); i++)
				k += (size_t)snprintf(room->build_id + k,
						      sizeof(room->build_id) -
							      k,
						      "%02x", bits[i]);
			f->build_id = room->build_id;
		}
		GElf_Off off;
		GElf_Sym sym;
		const char *fn = dwfl_module_addrinfo(m, pc, &off, &sym, NULL,
						      NULL, NULL);
		if (fn) {
			demangle(fn, room->function, sizeof(room->function));
			f->function = room->function;
		}
		Dwfl_Line *l = dwfl_module_getsrc(m, pc);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL,
						     NULL, NULL) : NULL;
		if (file) {
			snprintf(room->file, sizeof(room->file), "%s", file);
			f->file = room->file;
			f->line = line;
		}
		return;
	}
#endif
	name_from_maps(s->pid, pc, f, room);
	(void)demangle;
}

/* Whether f was named from a JIT's perf map (not kept: its memory is
 * reused for other code). */
static bool named_from_jit(const struct sites_symbols *s,
			   const struct sample_site_frame *f)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)s->pid);
	return f->module && !strcmp(f->module, path);
}

static char *dup_or_null(const char *v)
{
	return v ? xstrdup(v) : NULL;
}

/* v into room's field, f's pointer at it; NULL stays NULL. */
static const char *put(char *field, size_t n, const char *v)
{
	if (!v)
		return NULL;
	snprintf(field, n, "%s", v);
	return field;
}

void sites_symbols_name(struct sites_symbols *s, uint64_t addr,
			struct sample_site_frame *f,
			struct sites_frame_names *room)
{
	memset(f, 0, sizeof(*f));
	f->address = addr;
	if (!addr)
		return;
	if (!s->cache)
		s->cache = xcalloc(SYMBOLS_CACHE_SLOTS, sizeof(*s->cache));
	uint32_t mask = SYMBOLS_CACHE_SLOTS - 1;
	uint32_t i = (uint32_t)((addr * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
	while (s->cache[i].key && s->cache[i].key != addr)
		i = (i + 1) & mask;
	struct named *c = &s->cache[i];
	if (c->key == addr) {
		f->module = put(room->module, sizeof(room->module), c->module);
		f->build_id = put(room->build_id, sizeof(room->build_id),
				  c->build_id);
		f->function = put(room->function, sizeof(room->function),
				  c->function);
		f->file = put(room->file, sizeof(room->file), c->file);
		f->offset = c->offset;
		f->line = c->line;
		return;
	}
	/* a JIT's map first: its code lies in anonymous memory that libdw
	 * may take for a library's (a page mapped in the gap after a
	 * module's segments reads as that module's) */
	if (!name_from_jit(s, addr - 1, f, room))
		name_uncached(s, addr, f, room);
	if (s->cached >= SYMBOLS_CACHE_SLOTS / 2 || named_from_jit(s, f))
		return; /* full: named each time from now on */
	/* an address with no module yet may be mapped later: not kept */
	if (!f->module)
		return;
	*c = (struct named){
		.key = addr, .offset = f->offset, .line = f->line,
		.module = dup_or_null(f->module),
		.build_id = dup_or_null(f->build_id),
		.function = dup_or_null(f->function),
		.file = dup_or_null(f->file),
	};
	s->cached++;
}
