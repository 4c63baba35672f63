/*
 * reaper.h - start a command so that everything it starts can be ended:
 * how memtrend starts the commands it is given (record's and check's --
 * COMMAND, check's --load, every --work-cmd reading). memtrend probe's
 * arms are copies of memtrend it starts itself (probe_arm.h).
 *
 * What it does: forks a reaper -- a copy of this process that is a child
 * subreaper (PR_SET_CHILD_SUBREAPER) and gets SIGTERM when the thread that
 * forked it dies (PR_SET_PDEATHSIG: memtrend killed with kill -9) -- which
 * starts the command as its own child and waits for it. Whatever the
 * command starts and orphans (a double fork, a daemon that calls setsid,
 * a shell's background job) is reparented to the reaper, not to init. When
 * the command exits, the reaper tells the caller its status at once, then
 * ends what is left of the tree: SIGTERM to every descendant (and to the
 * command's group when it has one), SIGKILL to what is still there after
 * the grace, again and again as orphans of those are reparented to it,
 * until it has no child left; then it exits as the command did. SIGTERM
 * to the reaper (reaper_finish(now), or the parent-death signal) does the
 * same without waiting for the command. The command's pid is its own: it
 * is what a recording measures.
 *
 * What it does not do: end what the command handed to another service
 * manager (systemd-run, a D-Bus activation), or survive a SIGKILL of the
 * reaper itself (the command then gets SIGKILL, its parent-death signal,
 * and what it orphaned goes to init). It writes nothing to stdout or
 * stderr: the caller says what went wrong.
 *
 * The reaper's signals: SIGINT, SIGHUP, SIGQUIT and SIGPIPE are ignored (a
 * terminal's Ctrl-C or hang-up reaches the reaper's process group, which
 * is memtrend's: the reaper must outlive it to end the tree); the command
 * starts with every signal at its default and none blocked. The reaper
 * keeps no descriptor of the caller's but its socket (close_range).
 */
#ifndef MEMTREND_REAPER_H
#define MEMTREND_REAPER_H

#include <stdbool.h>
#include <sys/types.h>

/* What to start. The descriptors are the caller's: each is dup'ed onto
 * the command's 0, 1 or 2; -1 leaves the caller's own, REAPER_DEVNULL
 * opens /dev/null. */
#define REAPER_DEVNULL (-2)
struct reaper_spec {
	const char *file;          /* the program; NULL: argv[0], searched
				      in PATH (execvp) */
	char *const *argv;
	bool own_group;            /* the command leads a process group of
				      its own: reaper_signal() and the end
				      reach the whole group; a terminal's
				      Ctrl-C none of it. Else it stays in
				      the caller's group, a terminal's
				      Ctrl-C reaches it as it reaches
				      memtrend. */
	int stdin_fd, stdout_fd, stderr_fd;
	int pass_fd;               /* > 2: a close-on-exec descriptor of
				      the caller's that the command
				      inherits at its number (record
				      --sites' region), and no other of
				      the caller's children does; 0:
				      none */
	char *const *envp;         /* the command's environment
				      (NULL-terminated); NULL: the
				      caller's */
	double grace_s;            /* SIGTERM to SIGKILL when ending what
				      is left; 0: SIGKILL at once; at most
				      60 */
	bool hold;                 /* the command is not reaped -- its
				      /proc entry stays, a zombie once it
				      exited -- until reaper_go(): for a
				      caller that must read it at least
				      once, however soon it exits */
};

struct reaper {
	pid_t pid;                 /* the reaper, the caller's child; 0 once
				      waited for */
	pid_t child;               /* the command (the reaper's child) */
	int fd;                    /* the caller's end of the reaper's
				      socket: readable once the command has
				      ended (reaper_poll); -1 when closed */
	int exec_errno;            /* reaper_spawn: the exec failed */
	bool ended;                /* the command's end was heard */
	int status;                /* its wait status (WIFEXITED...) once
				      ended; -1 while unknown */
};

/* Move fd off 0-2 (the result close-on-exec; fd closed), so that the
 * dup2 of a caller's descriptor onto the command's 0-2 never meets itself
 * (dup2(fd, fd) would keep O_CLOEXEC and the command would lose it).
 * For any descriptor that may be handed to reaper_spawn() as stdin_fd,
 * stdout_fd or stderr_fd. Returns the descriptor, or -1 (errno). */
int reaper_fd_above_stdio(int fd);

/* Start s->argv under a reaper. Returns 0 with *r filled, once the command
 * runs (its exec done); or an errno value with *r cleared (nothing left
 * running): r->exec_errno set when the command could not be executed
 * (ENOENT: no such command), else the reaper could not be started.
 * Safe from any thread; blocks for the fork and exec (a millisecond or
 * two). The socket and the reaper are the caller's to finish
 * (reaper_finish), also after a failure of its own. */
int reaper_spawn(const struct reaper_spec *s, struct reaper *r);

/* Has the command ended? Reads its status when the reaper has sent it
 * (non-blocking); true from then on (r->ended, r->status). A reaper gone
 * without a word counts as the command's end, status unknown (-1). */
bool reaper_poll(struct reaper *r);

/* With spec.hold: the command may be reaped from now on (its end is
 * heard only after this). 0, or -1 when the reaper is gone. */
int reaper_go(struct reaper *r);

/* Ask the reaper to send sig to the command (to its group when it has
 * one): the reaper is its parent, so the pid cannot have been reused.
 * Nothing once the command has ended. 0, or -1 when the reaper is gone. */
int reaper_signal(struct reaper *r, int sig);

/* Finish: with now, SIGTERM the reaper (it ends the command and its tree:
 * SIGTERM, SIGKILL after the grace); else let it end what the command
 * left. Waits for the reaper at most wait_s, then SIGKILLs it (it never
 * should need that). Closes the socket, fills r->status when it was not
 * heard yet (from the reaper's exit, which mirrors the command's), and
 * leaves r->pid 0. Returns 0, or -1 when the reaper was not ours to wait
 * for (a caller's waitpid(-1) or SIGCHLD ignored took it). Safe on a
 * struct that reaper_spawn() left cleared. Never blocks longer than
 * wait_s plus the reap of a SIGKILLed process. */
int reaper_finish(struct reaper *r, bool now, double wait_s);

#endif
