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

#if MEMTREND_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#if MEMTREND_HAVE_CXA_DEMANGLE
/* The C++ runtime's demangler (libstdc++'s ABI), declared for C. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len,
		     int *status);
#endif

struct sites_symbols {
	pid_t pid;
#if MEMTREND_HAVE_LIBDW
	Dwfl *dwfl;                /* NULL: could not be made */
	int reports;               /* maps read so far (bounded) */
#endif
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
#if MEMTREND_HAVE_LIBDW
	report(s);
#endif
	return s;
}

void sites_symbols_free(struct sites_symbols *s)
{
	if (!s)
		return;
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

void sites_symbols_name(struct sites_symbols *s, uint64_t addr,
			struct sample_site_frame *f,
			struct sites_frame_names *room)
{
	memset(f, 0, sizeof(*f));
	f->address = addr;
	if (!addr)
		return;
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
