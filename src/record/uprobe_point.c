/*
 * uprobe_point.c - the first instruction of a function's straight-line
 * start that the kernel emulates under a uprobe (uprobe_point.h says
 * why, and what this does not do).
 *
 * Bounds: reads at most 128 bytes of the function and decodes at most
 * UPROBE_POINT_MAX_INSNS instructions; the ELF file is read through one
 * descriptor, closed before returning.
 */
#include "uprobe_point.h"

#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#if MEMTREND_HAVE_CAPSTONE && defined(__x86_64__)
#include <capstone/capstone.h>
#include <gelf.h>
#include <libelf.h>

/* Whether reg is %rdi or a part of it. */
static bool is_rdi(uint16_t reg)
{
	return reg == X86_REG_RDI || reg == X86_REG_EDI ||
	       reg == X86_REG_DI || reg == X86_REG_DIL;
}

uint64_t uprobe_point_offset_in(const uint8_t *code, size_t n)
{
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 0;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = cs_malloc(cs);
	uint64_t offset = 0, address = 0;
	const uint8_t *p = code;
	size_t left = n;
	for (int k = 0; k < UPROBE_POINT_MAX_INSNS &&
	     cs_disasm_iter(cs, &p, &left, &address, insn); k++) {
		const cs_detail *d = insn->detail;
		bool jump = false, stop = false;
		for (uint8_t g = 0; g < d->groups_count; g++) {
			uint8_t grp = d->groups[g];
			if (grp == CS_GRP_JUMP || grp == CS_GRP_CALL)
				jump = true;
			if (grp == CS_GRP_RET || grp == CS_GRP_INT ||
			    grp == CS_GRP_IRET)
				stop = true;
		}
		if (stop)
			break;
		if (jump) {
			/* relative (an immediate target): emulated; through a
			 * register or memory: single-stepped, and where it
			 * goes is not known here */
			const cs_x86 *x = &d->x86;
			if (x->op_count == 1 && x->operands[0].type ==
			    X86_OP_IMM && insn->address > 0)
				offset = insn->address;
			break;
		}
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;
		if (cs_regs_access(cs, insn, rr, &nr, rw, &nw) != CS_ERR_OK)
			break;
		bool writes = false;
		for (uint8_t w = 0; w < nw; w++)
			writes |= is_rdi(rw[w]);
		if (writes)
			break;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return offset;
}

/* function's address and type in the ELF's symbol tables (the dynamic
 * one first: what the loader binds); false when not defined there. */
static bool symbol_find(Elf *elf, const char *function, GElf_Addr *value,
			int *type)
{
	for (int want = SHT_DYNSYM; ; want = SHT_SYMTAB) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type !=
			    (unsigned)want || !sh.sh_entsize)
				continue;
			Elf_Data *data = elf_getdata(scn, NULL);
			size_t count = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; data && i < count; i++) {
				GElf_Sym sym;
				if (!gelf_getsym(data, (int)i, &sym) ||
				    sym.st_shndx == SHN_UNDEF || !sym.st_value)
					continue;
				const char *name = elf_strptr(elf, sh.sh_link,
							      sym.st_name);
				if (!name || strcmp(name, function) != 0)
					continue;
				*value = sym.st_value;
				*type = GELF_ST_TYPE(sym.st_info);
				return true;
			}
		}
		if (want == SHT_SYMTAB)
			return false;
	}
}

uint64_t uprobe_point_offset(const char *path, const char *function)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t offset = 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Addr value;
	int type;
	size_t nph = 0;
	if (elf && symbol_find(elf, function, &value, &type) &&
	    type == STT_FUNC && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
			    value < ph.p_vaddr ||
			    value >= ph.p_vaddr + ph.p_filesz)
				continue;
			uint8_t code[128];
			off_t at = (off_t)(value - ph.p_vaddr + ph.p_offset);
			size_t room = (size_t)(ph.p_vaddr + ph.p_filesz - value);
			ssize_t got = pread(fd, code, room < sizeof(code) ?
					    room : sizeof(code), at);
			if (got > 0)
				offset = uprobe_point_offset_in(code,
								(size_t)got);
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return offset;
}

#else /* no capstone, or not x86-64: the entry */

uint64_t uprobe_point_offset_in(const uint8_t *code, size_t n)
{
	(void)code, (void)n;
	return 0;
}

uint64_t uprobe_point_offset(const char *path, const char *function)
{
	(void)path, (void)function;
	return 0;
}

#endif
