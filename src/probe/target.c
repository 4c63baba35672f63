/*
 * target.c - process selection (target.h).
 *
 * Bounds on work: a name scan or a descendant scan reads every process's
 * stat (and, for names, cmdline) once: O(processes), a few ms on a busy
 * host. The recorder therefore rescans at a lower rate than it samples.
 */
#include "target.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

bool target_matches(const regex_t *re, const struct proc_identity *id)
{
	if (regexec(re, id->comm, 0, NULL, 0) == 0)
		return true;
	return id->cmdline && *id->cmdline &&
	       regexec(re, id->cmdline, 0, NULL, 0) == 0;
}

static bool in_list(pid_t pid, const pid_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == pid)
			return true;
	return false;
}

bool target_excluded(pid_t pid, const pid_t *exclude, size_t n_exclude)
{
	return in_list(pid, exclude, n_exclude);
}

bool target_name_eligible(const regex_t *re, const struct proc_identity *id,
			  const pid_t *exclude, size_t n_exclude)
{
	/* Kernel threads have no command line: never a service. */
	bool reaper = n_exclude && id->ppid == exclude[0];
	return !reaper && !in_list(id->pid, exclude, n_exclude) &&
	       id->cmdline && *id->cmdline && target_matches(re, id);
}

int target_ancestors(struct probe *p, pid_t pid, pid_t **out, size_t *n)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	/* Bounded: pid namespaces nest at most a few levels deep, and a
	 * chain of parents cannot be longer than the process count. */
	for (int depth = 0; pid > 0 && depth < 4096; depth++) {
		xgrow((void **)out, &cap, *n + 1, sizeof(pid_t));
		(*out)[(*n)++] = pid;
		struct proc_identity id;
		if (probe_identity_read(p, pid, &id) != PROBE_OK)
			break;
		pid = id.ppid;
		proc_identity_release(&id);
	}
	return 0;
}

int target_descendants(struct probe *p, pid_t root, pid_t **out, size_t *n)
{
	pid_t *pids;
	size_t np;
	*out = NULL;
	*n = 0;
	if (probe_list_pids(p, &pids, &np))
		return -1;
	pid_t *ppid = xcalloc(np ? np : 1, sizeof(pid_t));
	for (size_t i = 0; i < np; i++) {
		struct proc_identity id;
		if (probe_identity_read(p, pids[i], &id) == PROBE_OK) {
			ppid[i] = id.ppid;
			proc_identity_release(&id);
		}
	}
	/* Grow the set until no process joins: a fixed point, at most
	 * depth-of-tree passes (each pass is O(np) with a linear search in
	 * the set, fine for the few descendants a service has). */
	size_t cap = 0;
	bool grew = true;
	while (grew) {
		grew = false;
		for (size_t i = 0; i < np; i++) {
			if (pids[i] == root || in_list(pids[i], *out, *n))
				continue;
			if (ppid[i] == root || in_list(ppid[i], *out, *n)) {
				xgrow((void **)out, &cap, *n + 1,
				      sizeof(pid_t));
				(*out)[(*n)++] = pids[i];
				grew = true;
			}
		}
	}
	free(ppid);
	free(pids);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static bool is_shell(const char *name)
{
	static const char *const shells[] = {"sh", "bash", "dash", "zsh",
					     "ksh", "mksh", "ash"};
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(name, shells[i]))
			return true;
	return false;
}

const char *target_shell_script(char *const argv[])
{
	assert(argv && argv[0]);
	if (!is_shell(base_name(argv[0])))
		return NULL;
	bool c = false;
	for (size_t i = 1; argv[i]; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			return c && argv[i + 1] ? argv[i + 1] : NULL;
		if (a[0] != '-' && a[0] != '+')
			return c ? a : NULL;
		if (!strcmp(a + 1, "o") || !strcmp(a + 1, "O")) {
			if (!argv[i + 1])
				return NULL;
			i++;   /* -o OPTION: its argument */
			continue;
		}
		if (a[1] != '-' && strchr(a + 1, 'c'))
			c = true;
	}
	return NULL;
}

/* A word of a shell script: what runs of [^ \t\n;&|()] make; its offset
 * from s, its length in *len (0 at a separator or the end). */
static size_t script_word(const char *s, size_t *len)
{
	size_t i = 0;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	size_t j = i;
	/* "2>&1" is one word: an & after > or < is not a separator */
	while (s[j] && (!strchr(" \t\n;&|()", s[j]) ||
			(s[j] == '&' && j > i && strchr("<>", s[j - 1]))))
		j++;
	*len = j - i;
	return i;
}

/* A word that names a program plainly: no quotes, expansions or globs. */
static bool plain_word(const char *w, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-+/@:,", w[i]))
			return false;
	return true;
}

/* An assignment (NAME=VALUE) or a redirection (2>log, >/dev/null, <in,
 * 2>&1): words before or around a command that are not the command. */
static bool not_command_word(const char *w, size_t len)
{
	size_t i = 0;
	while (i < len && ((w[i] >= 'a' && w[i] <= 'z') ||
			   (w[i] >= 'A' && w[i] <= 'Z') || w[i] == '_' ||
			   (i && w[i] >= '0' && w[i] <= '9')))
		i++;
	if (i && i < len && w[i] == '=')
		return true;
	for (i = 0; i < len && w[i] >= '0' && w[i] <= '9'; i++)
		;
	return i < len && (w[i] == '>' || w[i] == '<');
}

/* A reserved word after which a command starts. */
static bool keyword(const char *w, size_t len)
{
	static const char *const kw[] = {"then", "do", "else", "{", "!",
					 "time"};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i]) == len && !strncmp(w, kw[i], len))
			return true;
	return false;
}

/* The program the last "exec PROGRAM" of script names, into buf: the
 * process the shell becomes. False when there is none (or it is not a
 * plain word: "$@", a quoted path). */
static bool script_exec(const char *script, char *buf, size_t n)
{
	bool found = false, at_start = true;
	const char *p = script;
	while (*p) {
		size_t len, off = script_word(p, &len);
		const char *w = p + off;
		if (!len) {
			/* a separator: a new command starts after it */
			if (!w[0])
				break;
			at_start = strchr(";&|(\n", w[0]) != NULL;
			p = w + 1;
			continue;
		}
		p = w + len;
		if (!at_start || len != 4 || strncmp(w, "exec", 4)) {
			at_start = at_start && (not_command_word(w, len) ||
						keyword(w, len));
			continue;
		}
		/* exec [-a NAME] [-cl] [assignments, redirections] PROGRAM */
		at_start = false;
		for (;;) {
			size_t l2, o2 = script_word(p, &l2);
			const char *x = p + o2;
			if (!l2)
				break;
			p = x + l2;
			if (l2 == 2 && !strncmp(x, "-a", 2)) {
				size_t l3, o3 = script_word(p, &l3);
				p += o3 + l3;
				continue;
			}
			if (x[0] == '-' || not_command_word(x, l2))
				continue;
			const char *slash = x + l2;
			while (slash > x && slash[-1] != '/')
				slash--;
			size_t bl = l2 - (size_t)(slash - x);
			if (plain_word(x, l2) && bl) {
				snprintf(buf, n, "%.*s", (int)bl, slash);
				found = true;
			}
			break;
		}
	}
	return found;
}

bool target_script_execs(const char *script)
{
	char buf[64];
	return script_exec(script, buf, sizeof(buf));
}

char *target_command_name(char *const argv[], char *buf, size_t n)
{
	assert(argv && argv[0] && n > 0);
	const char *name = base_name(argv[0]);
	const char *script = target_shell_script(argv);
	if (script && script_exec(script, buf, n) && strcmp(buf, "env"))
		return buf;
	if (!strcmp(name, "env")) {
		/* env's own options take no argument but -u NAME, -C DIR,
		 * -S STRING (and their long forms with '='); NAME=VALUE
		 * words set the environment. */
		for (size_t i = 1; argv[i]; i++) {
			const char *a = argv[i];
			if (!strcmp(a, "-u") || !strcmp(a, "-C") ||
			    !strcmp(a, "-S")) {
				if (!argv[i + 1])
					break;
				i++;
				continue;
			}
			if (!strcmp(a, "--")) {
				if (argv[i + 1])
					name = base_name(argv[i + 1]);
				break;
			}
			if (a[0] == '-' || strchr(a, '='))
				continue;
			name = base_name(a);
			break;
		}
	}
	snprintf(buf, n, "%s", name);
	return buf;
}
