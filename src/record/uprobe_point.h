/*
 * uprobe_point.h - where on a function a uprobe that only reads its
 * first argument costs the probed process one trap instead of two
 * (record --sites -p's free probe; docs/sites.md, "Cost").
 *
 * A uprobe replaces an instruction with a breakpoint; the kernel then
 * either emulates the instruction it replaced (x86-64: relative jumps,
 * conditional jumps and calls, among a few) or single-steps a copy of it
 * out of line, a second trap, which in a VM cost 10-25 us where the
 * first costs about 1 (bench j). glibc's free begins with `test %rdi,
 * %rdi`, jemalloc's with `mov %rdi,%rax`: both single-stepped. The first
 * relative jump or call of the function's straight-line start is reached
 * by every call, before anything else has happened, and when no
 * instruction before it writes %rdi the argument is still there: a probe
 * there sees every call, with one trap.
 *
 * Decoding is capstone's; the function's bytes are read from its ELF
 * file (libelf: its dynamic or static symbol table, the load segment
 * that holds it). What it does not do: decide whether to probe, attach,
 * or handle anything but x86-64 (elsewhere, and without capstone, the
 * offset is 0: the entry, as before).
 */
#ifndef MEMTREND_UPROBE_POINT_H
#define MEMTREND_UPROBE_POINT_H

#include <stddef.h>
#include <stdint.h>

/* The offset from function's entry in the ELF file at path where a
 * uprobe reading only the first argument register is emulated; 0 (the
 * entry) when there is none within the first UPROBE_POINT_MAX_INSNS
 * instructions, the function is not found, is an indirect function
 * (IFUNC), or a write of the register, a return or an indirect jump
 * comes first. */
#define UPROBE_POINT_MAX_INSNS 16
uint64_t uprobe_point_offset(const char *path, const char *function);
/* The same on code already read: n bytes of the function from its entry
 * (the unit test's table of instruction sequences). */
uint64_t uprobe_point_offset_in(const uint8_t *code, size_t n);

#endif
