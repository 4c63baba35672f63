/*
 * machine.h - the machine's memory figures as data: what the probe reads
 * from /proc/meminfo and /proc/pressure/memory, the store keeps and the
 * renderers show (`books`). A type only; no code.
 */
#ifndef MEMTREND_MACHINE_H
#define MEMTREND_MACHINE_H

/* NAN when absent. */
struct sys_mem {
	double mem_total, mem_available, swap_total, swap_free;
	double psi_some_avg10, psi_full_avg10;  /* percent */
	double psi_some_total, psi_full_total;  /* microseconds stalled */
};

#endif
