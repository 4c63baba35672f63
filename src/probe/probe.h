/*
 * probe.h - the one interface through which memtrend reads the machine.
 *
 * The Linux implementation (probe_linux.c) reads /proc and /sys under a
 * configurable root, so tests point it at fixture trees. A figure the
 * kernel does not provide or does not let us read is NAN ("absent"), never
 * a failure: old kernels lack RssShmem, containers hide PSI, smaps_rollup
 * needs ptrace access. Every byte figure is in bytes (kB fields * 1024).
 *
 * A probe knows nothing of samples, stores or analyses. Cost contract: a
 * process handle keeps /proc/PID/status open and re-reads it with pread at
 * offset 0 (about 2-14 us) instead of open+read+close; likewise the probe
 * keeps /proc/meminfo and /proc/pressure/memory open. smaps_rollup is read
 * only on request (it costs ~13 us per MiB resident).
 *
 * Identity: a process handle is bound to one incarnation (pid, start time
 * from /proc/PID/stat field 22). Reads through its kept fds fail with
 * PROBE_GONE once that incarnation exits, even if the PID is reused.
 */
#ifndef MEMTREND_PROBE_H
#define MEMTREND_PROBE_H

#include "machine.h"
#include "sample.h"
#include "series.h" /* SERIES_GPU_DEVICES */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum probe_status {
	PROBE_OK = 0,
	PROBE_ERROR = -1,   /* unexpected failure; message printed */
	PROBE_GONE = -2,    /* the process (incarnation) no longer exists */
	PROBE_DENIED = -3,  /* permission denied (e.g. smaps_rollup w/o ptrace) */
	PROBE_NOFILE = -4,  /* the open-file limit was reached (EMFILE or
			       ENFILE); nothing printed: the caller says it
			       once, not once per process */
};

/* The sample types (struct proc_mem, proc_smaps, cgroup_mem,
 * proc_identity) are in src/model/sample.h: the store and the live
 * consumers speak them without seeing the probe. */

struct probe;         /* per machine: roots, kept-open system files */
struct probe_proc;    /* per process incarnation: kept-open fds */
struct probe_cgroup;  /* per memory cgroup: kept-open fds */

/* proc_root: NULL means $MEMTREND_PROC_ROOT or "/proc"; sys_root: NULL means
 * $MEMTREND_SYS_ROOT or "/sys". Returns NULL (message printed) on failure. */
struct probe *probe_new(const char *proc_root, const char *sys_root);
void probe_free(struct probe *p);
const char *probe_proc_root(const struct probe *p);

/* System figures; never fails for absent files (they give NAN). */
int probe_sys_read(struct probe *p, struct sys_mem *out);
/* Boot time (Unix seconds) from /proc/stat btime; NAN when absent. */
double probe_boot_time(struct probe *p);

/* Read identity of pid without opening a handle. PROBE_GONE if no such
 * process. cmdline is allocated: free with proc_identity_release(). */
int probe_identity_read(struct probe *p, pid_t pid, struct proc_identity *id);
void proc_identity_release(struct proc_identity *id);

/* List PIDs under the proc root (numeric directory names), ascending.
 * *pids is allocated (free()); returns 0 or -1. */
int probe_list_pids(struct probe *p, pid_t **pids, size_t *n);
/* The owner of PROC_ROOT/PID (the process's effective uid; root for a
 * process that is not dumpable). 0, or -1 when it is gone (no message). */
int probe_proc_uid(struct probe *p, pid_t pid, uid_t *uid);

/* Open a handle for pid: reads its identity and opens status (kept open).
 * PROBE_GONE if it does not exist, PROBE_DENIED if status is unreadable. */
int probe_proc_open(struct probe *p, pid_t pid, struct probe_proc **out);
/* probe_proc_open() of seen->pid, whose identity the caller has just
 * read (probe_identity_read(): a scan that chose it by it): when the
 * process is still that incarnation (the same start time), its command
 * line is seen's, copied, not read again -- the dearest file of the
 * identity (the kernel reads it out of the process's memory), half of
 * `record --all`'s first scan's /proc reads. A successor on the pid
 * gets its own, read. */
int probe_proc_open_seen(struct probe *p, const struct proc_identity *seen,
			 struct probe_proc **out);
void probe_proc_close(struct probe_proc *pp);
const struct proc_identity *probe_proc_identity(const struct probe_proc *pp);
/* Memory figures through the kept fd. PROBE_GONE once the incarnation has
 * exited (also when it is a zombie: all figures absent then). */
int probe_proc_read(struct probe_proc *pp, struct proc_mem *out);
/* smaps_rollup (opened lazily, kept open). PROBE_DENIED when unreadable
 * (no ptrace access): the caller notes it once and carries on. */
int probe_proc_read_smaps(struct probe_proc *pp, struct proc_smaps *out);
/* Still the same incarnation? (stat re-read; false when gone or reused) */
bool probe_proc_alive(struct probe_proc *pp);

/* The memory cgroup of a process: v2 (unified "0::/path") or v1 (the line
 * whose controllers include "memory"), resolved under sys_root/fs/cgroup
 * (v2: .../fs/cgroup/PATH or .../fs/cgroup/unified/PATH; v1:
 * .../fs/cgroup/memory/PATH). *out is NULL (no error) when the process has
 * no readable memory cgroup. The caller owns *out. */
int probe_cgroup_open(struct probe *p, pid_t pid, struct probe_cgroup **out);
void probe_cgroup_close(struct probe_cgroup *cg);
/* The path of a process's memory cgroup as /proc/PID/cgroup names it
 * ("/system.slice/nginx.service"), chosen as probe_cgroup_open() chooses:
 * the v1 line whose controllers include "memory" when there is one, the
 * unified "0::" line otherwise. Nothing is opened under the sys root, so
 * a path outside our namespace ("/../x") comes back as it is. *path is
 * allocated (free()), NULL when the process has no cgroup line. PROBE_OK,
 * PROBE_GONE, or PROBE_ERROR with a message. */
int probe_cgroup_path(struct probe *p, pid_t pid, char **path);
/* The key probe_cgroup_open() gives pid's memory cgroup when it opens
 * it ("v1:/path" or "v2:/path"), read from /proc/PID/cgroup alone:
 * nothing is opened under the sys root. A caller that holds an open
 * cgroup of that key already has pid's (the same key is the same
 * folder) and need not open its files again -- `record --all`'s first
 * scan otherwise opened and closed three files per process, most of
 * them in one cgroup. A key that matches nothing held says nothing:
 * open it (probe_cgroup_open() may then choose v2 when v1's files do
 * not open). *key allocated, NULL when the process has no usable
 * cgroup line. PROBE_OK, PROBE_GONE, or PROBE_ERROR with a message. */
int probe_cgroup_key_of(struct probe *p, pid_t pid, char **key);
/* "v1:/path" or "v2:/path": stable key for deduplication and storage. */
const char *probe_cgroup_key(const struct probe_cgroup *cg);
int probe_cgroup_read(struct probe_cgroup *cg, struct cgroup_mem *out);

/* ---- TCP connections (probe_net.c) ------------------------------------ */

/* ESTABLISHED TCP connections whose LOCAL port is one of
 * ports[0..n_ports-1], IPv4 and IPv6, read from PROC_ROOT/PID/net/tcp and
 * PROC_ROOT/PID/net/tcp6 (the process's own network namespace; a missing
 * tcp6 file is fine). When pids (n_pids >= 1) have readable fd directories
 * (PROC_ROOT/PID/fd/N -> "socket:[INODE]"), only sockets whose inode belongs
 * to one of those processes count (so a client on the same machine, or
 * another server in the namespace, is not counted) and *restricted is set
 * true; otherwise every matching socket counts and *restricted is set false.
 * Returns PROBE_OK with *count, PROBE_GONE if the first pid's net files are
 * gone, PROBE_ERROR with a message.
 *
 * In detail:
 *   - the net files are those of pids[0]: the pids are taken to share its
 *     network namespace. With n_pids == 0, PROC_ROOT/net/tcp{,6} (the
 *     caller's own namespace) are read, unrestricted;
 *   - a pid whose PROC_ROOT/PID directory is gone is skipped (its sockets
 *     went with it); one that exists without a readable fd directory
 *     (another user's process, a fixture without fd/) makes the count
 *     unrestricted;
 *   - restricted, a connection still waiting in an accept queue (inode 0:
 *     no process holds it yet) counts when one of the pids holds a LISTEN
 *     socket on the same local port;
 *   - LISTEN, TIME_WAIT and every other state never count; a line that does
 *     not parse is skipped.
 * Work: O(lines of tcp + tcp6 + fds of the pids); memory, per call: one
 * 64 KiB read buffer, 16 bytes per socket on a wanted port and a sorted
 * inode array (8 bytes per socket fd). */
int probe_tcp_established(struct probe *p, const pid_t *pids, size_t n_pids,
			  const uint16_t *ports, size_t n_ports,
			  double *count, bool *restricted);

#endif
