/*
 * probe_alloc.c - a process's allocator from its mapped libraries, its
 * thread count, the check that a file is an ELF shared object this
 * machine's loader can preload, and the check (run inside an arm's
 * process) that a preloaded library was loaded and supplies malloc
 * (probe_alloc.h). Reads files and the loader's list of loaded objects;
 * loads nothing itself.
 */
#include "probe_alloc.h"

#include <assert.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

const char *probe_allocator_name(enum probe_allocator a)
{
	switch (a) {
	case PROBE_ALLOC_GLIBC: return "glibc";
	case PROBE_ALLOC_JEMALLOC: return "jemalloc";
	case PROBE_ALLOC_MIMALLOC: return "mimalloc";
	case PROBE_ALLOC_TCMALLOC: return "tcmalloc";
	}
	return "?";
}

enum probe_allocator probe_allocator_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	static const struct {
		const char *prefix;
		enum probe_allocator a;
	} known[] = {
		{"libjemalloc", PROBE_ALLOC_JEMALLOC},
		{"libmimalloc", PROBE_ALLOC_MIMALLOC},
		{"libtcmalloc", PROBE_ALLOC_TCMALLOC},
	};
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strncmp(base, known[i].prefix, strlen(known[i].prefix)))
			return known[i].a;
	return PROBE_ALLOC_GLIBC;
}

int probe_alloc_parse_maps(const char *path, struct probe_alloc_info *info)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return error("cannot read '%s': %s", path, strerror(errno));
	info->allocator = PROBE_ALLOC_GLIBC;
	info->path[0] = '\0';
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* "start-end perms offset dev inode   path": the path is
		 * what follows the fifth field, and starts with '/'. */
		char *p = line;
		for (int field = 0; field < 5 && p; field++) {
			p = strchr(p, ' ');
			if (p)
				while (*p == ' ')
					p++;
		}
		if (!p || *p != '/')
			continue;
		enum probe_allocator a = probe_allocator_of_path(p);
		if (a != PROBE_ALLOC_GLIBC) {
			info->allocator = a;
			snprintf(info->path, sizeof(info->path), "%s", p);
			break;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* Threads: of a status file; -1 when absent. */
static long status_threads(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[256];
	long n = -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8)) {
			char *end;
			long v = strtol(line + 8, &end, 10);
			if (end != line + 8 && v > 0)
				n = v;
			break;
		}
	fclose(f);
	return n;
}

int probe_alloc_detect(const char *proc_root, pid_t pid,
		       struct probe_alloc_info *info)
{
	if (!proc_root)
		proc_root = "/proc";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid);
	if (access(path, F_OK))
		return error("no process with PID %d", (int)pid);
	info->threads = status_threads(path);
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid);
	return probe_alloc_parse_maps(path, info);
}

/* This machine's ELF class and machine: those of the code running now
 * (a library of another class or architecture is refused by the loader).
 * 0 for a machine not listed here: not checked. */
#define NATIVE_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)
#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__s390x__)
#define NATIVE_MACHINE EM_S390
#else
#define NATIVE_MACHINE 0
#endif

/* Bounds on what the check reads: program headers (real files have a
 * dozen), the dynamic section (real ones hold a few dozen entries). */
#define CHECK_MAX_PHNUM 4096
#define CHECK_MAX_DYNAMIC (1024 * 1024)

static const char *class_name(unsigned c)
{
	return c == ELFCLASS32 ? "32-bit" : c == ELFCLASS64 ? "64-bit" : "?";
}

/* Whether the dynamic section at [off, off + size) of fd marks a program
 * (DT_FLAGS_1 with DF_1_PIE: what glibc's loader refuses to preload,
 * "cannot dynamically load position-independent executable"). 1, 0, or
 * -1 when it cannot be read. */
static int dynamic_is_pie(int fd, off_t off, size_t size)
{
	if (size > CHECK_MAX_DYNAMIC)
		size = CHECK_MAX_DYNAMIC;
	ElfW(Dyn) *d = xmalloc(size ? size : 1);
	ssize_t got = pread(fd, d, size, off);
	int rc = got < 0 ? -1 : 0;
	for (size_t i = 0; rc == 0 && (i + 1) * sizeof(*d) <= (size_t)got;
	     i++) {
		if (d[i].d_tag == DT_NULL)
			break;
		if (d[i].d_tag == DT_FLAGS_1 && (d[i].d_un.d_val & DF_1_PIE))
			rc = 1;
	}
	free(d);
	return rc;
}

int probe_alloc_check_library(const char *path)
{
	/* O_NONBLOCK: a FIFO is never waited on (it is refused below). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return error("allocator '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return error("allocator '%s' is not a regular file", path);
	}
	/* e_ident, then e_type and e_machine: the same offsets in ELF32
	 * and ELF64. */
	Elf64_Ehdr h;
	ssize_t n = pread(fd, &h, sizeof(h), 0);
	int rc = 0;
	if (n < (ssize_t)(EI_NIDENT + sizeof(h.e_type)) ||
	    memcmp(h.e_ident, ELFMAG, SELFMAG)) {
		rc = error("allocator '%s' is not an ELF file (a shared "
			   "library such as libjemalloc.so.2 is needed)", path);
		goto out;
	}
	if (h.e_ident[EI_DATA] != ELFDATA2LSB &&
	    h.e_ident[EI_DATA] != ELFDATA2MSB) {
		rc = error("allocator '%s': unknown ELF byte order", path);
		goto out;
	}
	uint16_t type = h.e_type, machine = h.e_machine;
	bool swap = (h.e_ident[EI_DATA] == ELFDATA2MSB) !=
		    (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (swap) {
		type = (uint16_t)((type >> 8) | (type << 8));
		machine = (uint16_t)((machine >> 8) | (machine << 8));
	}
	if (type != ET_DYN) {
		rc = error("allocator '%s' is an ELF file but not a shared "
			   "object (e_type %u; ET_DYN needed)", path,
			   (unsigned)type);
		goto out;
	}
	/* What the loader would refuse, so that the arm would run on
	 * glibc's malloc under the library's name: another class, byte
	 * order or machine. */
	if (h.e_ident[EI_CLASS] != NATIVE_CLASS) {
		rc = error("allocator '%s' is a %s library; this machine "
			   "runs %s ones", path,
			   class_name(h.e_ident[EI_CLASS]),
			   class_name(NATIVE_CLASS));
		goto out;
	}
	if (swap || (NATIVE_MACHINE && machine != NATIVE_MACHINE)) {
		rc = error("allocator '%s' is built for another machine (ELF "
			   "machine %u%s; this one is %u)", path,
			   (unsigned)machine, swap ? ", other byte order" : "",
			   (unsigned)NATIVE_MACHINE);
		goto out;
	}
	/* The native class from here: this machine's own types. */
	ElfW(Ehdr) eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 ||
	    eh.e_phnum > CHECK_MAX_PHNUM) {
		rc = error("allocator '%s': a damaged ELF file (its program "
			   "headers cannot be read)", path);
		goto out;
	}
	size_t ph_size = (size_t)eh.e_phnum * sizeof(ElfW(Phdr));
	ElfW(Phdr) *ph = xmalloc(ph_size);
	bool dynamic = false;
	int pie = 0;
	if (pread(fd, ph, ph_size, (off_t)eh.e_phoff) != (ssize_t)ph_size) {
		pie = -1;
	} else {
		for (size_t i = 0; i < eh.e_phnum && pie == 0; i++)
			if (ph[i].p_type == PT_DYNAMIC) {
				dynamic = true;
				pie = dynamic_is_pie(fd, (off_t)ph[i].p_offset,
						     (size_t)ph[i].p_filesz);
			}
	}
	free(ph);
	if (pie < 0)
		rc = error("allocator '%s': a damaged ELF file (its program "
			   "headers cannot be read)", path);
	else if (pie)
		rc = error("allocator '%s' is a program (a position-"
			   "independent executable), not a library: the "
			   "loader cannot preload it", path);
	else if (!dynamic)
		rc = error("allocator '%s' has no dynamic section: not a "
			   "shared library the loader can preload", path);
out:
	close(fd);
	return rc;
}

/* Whether two paths name one file (the same device and inode): a
 * library may be named through a link (libmimalloc.so.2 ->
 * libmimalloc.so.2.0). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

struct find_loaded {
	const char *path;
	bool found;
};

static int find_loaded_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct find_loaded *f = ctx;
	if (info->dlpi_name && *info->dlpi_name &&
	    same_file(info->dlpi_name, f->path))
		f->found = true;
	return f->found;
}

/* The file the symbol `name` resolves into in this process's global
 * scope (what a call to it from the program reaches), or NULL. */
static const char *symbol_file(const char *name)
{
	void *sym = dlsym(RTLD_DEFAULT, name);
	Dl_info di;
	if (!sym || !dladdr(sym, &di) || !di.dli_fname)
		return NULL;
	return di.dli_fname;
}

int probe_alloc_check_loaded(const char *path, char *why, size_t n)
{
	assert(path && why && n > 0);
	why[0] = '\0';
	struct find_loaded f = {.path = path};
	dl_iterate_phdr(find_loaded_cb, &f);
	if (!f.found) {
		snprintf(why, n, "the loader did not load it (its message, "
			 "if any, is above)");
		return -1;
	}
	static const char *const entry[] = {"malloc", "free"};
	for (size_t i = 0; i < ARRAY_SIZE(entry); i++) {
		const char *file = symbol_file(entry[i]);
		if (!same_file(file, path)) {
			snprintf(why, n, "it was loaded, but %s is still "
				 "%s's: not an allocator", entry[i],
				 file && *file ? file : "another object");
			return -1;
		}
	}
	return 0;
}
