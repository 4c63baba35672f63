/*
 * cmd_books.c - `memtrend books`: do the books. For each live process
 * (given by PID, matched by --name, or every readable one): its footprint
 * (anon + swap + shmem from /proc/PID/status), its swap and its cap -- the
 * most it is expected to claim -- from --cap, from the plateau level of a
 * recording (--from FILE), else its current footprint. The caps are summed
 * against MemTotal ("caps on the books: 121.6 GiB of 64 GiB, 1.9x"), and
 * swap used is shown beside MemAvailable, the two figures to read
 * together.
 *
 * What it does not do: sample over time (one reading per process), read
 * smaps (the status figures suffice and cost ~15 us a process), or decide
 * anything about growth itself: plateaus come from analysis_run() on the
 * recordings given. Work: O(processes) reads of stat, cmdline and status;
 * O(processes x caps) to bind caps; the recordings are read whole.
 * Exit codes: 0 ok, 2 bad usage or no such process, 3 run-time failure.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cmd.h"
#include "cli_options.h"
#include "common.h"
#include "csv.h"
#include "probe.h"
#include "render.h"
#include "store.h"
#include "target.h"
#include "units.h"

#define BOOKS_DEFAULT_TOP 20

struct cap_arg;
/* What books' options are parsed into (defaults in cmd_books()). */
struct books_args {
	struct cli_strings names, froms;  /* --name, --from */
	struct cap_arg *caps;             /* --cap, owned */
	size_t n_caps, caps_cap;
	size_t top;
	bool all, json;
};
#define BA struct books_args

static int parse_cap_arg(const struct cli_option *row, const char *arg,
			 void *field);

/* books' options: getopt_long, the parser, --help and the man page check
 * all read this table (cli_options.h). */
const struct cli_option books_options[] = {
	CLI_SECTION("options"),
	CLI_STRINGS(0, "name", BA, names, "REGEX", "processes whose name or "
		"command line matches (POSIX ERE); repeatable", 0),
	CLI_CALLBACK(0, "cap", "PID=SIZE|NAME=SIZE|SIZE", "the cap of that "
		"process; of every process whose name (comm) is NAME; of every "
		"process given by PID or --name (repeatable; PID= before NAME= "
		"before a bare SIZE)", parse_cap_arg, 0),
	CLI_STRINGS(0, "from", BA, froms, "FILE", "a recording (or CSV): the "
		"plateau level of a target whose PID (same start time) or "
		"name matches a live process is its cap, unless --cap gives "
		"one; repeatable", 0),
	CLI_COUNT(0, "top", BA, top, "N", "list the N largest (default 20); "
		"sums count all", 1, CLI_COUNT_MAX, "a positive count"),
	CLI_FLAG(0, "all", BA, all, "list every process"),
	CLI_FLAG(0, "json", BA, json, "print JSON (fields: docs/books.md)"),
	CLI_HELP_ROW,
	CLI_END_ROW,
};

static const struct cli_command books_command = {
	.name = "books",
	.usage =
"usage: memtrend books [PID... | --name REGEX...] [options]\n"
"\n"
"Do the books: each process's footprint (anon + swap + shmem) and the most\n"
"it is expected to claim (its cap), summed against the machine's memory,\n"
"with swap used beside MemAvailable. Without PID or --name: every process\n"
"you can read.\n",
	.options = books_options,
	.notes =
"\n"
"A process without a cap counts with its current footprint; one above its\n"
"cap counts with its footprint. SIZE: 60.8GiB, 21GB, 4096 (bytes).\n"
"Exit codes: 0 ok, 2 usage or no such process, 3 run-time failure.\n",
};

/* ---- caps ------------------------------------------------------------- */

struct cap_arg {
	enum books_cap_source kind; /* PID, NAME or ALL */
	pid_t pid;
	char name[256];           /* BOOKS_CAP_NAME: the name to match */
	double bytes;
	bool used;
};

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* --cap PID=SIZE|NAME=SIZE|SIZE, repeatable (field: the struct
 * books_args). */
static int parse_cap_arg(const struct cli_option *row, const char *arg,
			 void *field)
{
	static const struct cli_option size_row = {.kind = CLI_OPTION,
		.name = "cap", .type = CLI_T_SIZE, .lo = 0, .lo_open = true,
		.hi = INFINITY, .what = "a size (e.g. 60.8GiB)"};
	(void)row;
	struct books_args *a = field;
	xgrow((void **)&a->caps, &a->caps_cap, a->n_caps + 1,
	      sizeof(*a->caps));
	struct cap_arg *c = &a->caps[a->n_caps];
	memset(c, 0, sizeof(*c));
	size_t len;
	if (cli_named_value(&size_row, "name or PID", arg, &len, &c->bytes))
		return -1;
	if (!len) {
		c->kind = BOOKS_CAP_ALL;
	} else if (all_digits(arg, len)) {
		long v = strtol(arg, NULL, 10);
		if (v <= 0 || v > 0x7fffffff)
			return error("--cap: '%.*s' is no PID", (int)len, arg);
		c->kind = BOOKS_CAP_PID;
		c->pid = (pid_t)v;
	} else {
		c->kind = BOOKS_CAP_NAME;
		if (len >= sizeof(c->name))
			return error("--cap: the name '%.*s...' is too long",
				     40, arg);
		memcpy(c->name, arg, len);
		c->name[len] = '\0';
	}
	a->n_caps++;
	return 0;
}

/* ---- plateaus from recordings ---------------------------------------- */

struct plateau_ref {
	int64_t pid;
	unsigned long long start_ticks; /* 0: unknown (a CSV) */
	char *comm;                     /* owned; NULL when unknown */
	double level;
	const char *file;               /* borrowed from argv */
};

struct plateaus {
	struct plateau_ref *v;
	size_t n, cap;
};

/* Read one recording or CSV, analyse each target, keep the plateaus. */
static int plateaus_read(const char *path, struct plateaus *pl)
{
	if (access(path, R_OK))
		return error("--from: cannot read '%s': %m", path);
	struct dataset d;
	int rc = store_is_recording(path) ? store_read_dataset(path, NULL, &d)
					  : csv_read_file(path, &d);
	if (rc)
		return -1;
	struct analysis_options o;
	analysis_options_init(&o);
	size_t found = 0;
	for (size_t t = 0; t < d.n_targets; t++) {
		const struct series *s = &d.targets[t];
		struct target_findings f;
		analysis_run(s, &o, &f);
		if (f.plateau.found && isfinite(f.plateau.level)) {
			found++;
			for (size_t i = 0; i < s->n_incs; i++) {
				xgrow((void **)&pl->v, &pl->cap, pl->n + 1,
				      sizeof(*pl->v));
				const struct incarnation *in = &s->incs[i];
				pl->v[pl->n++] = (struct plateau_ref){
					.pid = in->pid,
					.start_ticks = in->start_ticks,
					.comm = in->comm ? xstrdup(in->comm) :
							   NULL,
					.level = f.plateau.level,
					.file = path,
				};
			}
		}
		analysis_release(&f);
	}
	if (!found)
		note("--from %s: no target reached a plateau (%zu target%s)",
		     path, d.n_targets, d.n_targets == 1 ? "" : "s");
	dataset_release(&d);
	return 0;
}

static void plateaus_release(struct plateaus *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i].comm);
	free(pl->v);
}

/* The plateau of this incarnation (same pid and, where recorded, start
 * time), else of a target with the same name (a restarted service). */
static const struct plateau_ref *plateau_for(const struct plateaus *pl,
					     const struct proc_identity *id)
{
	for (size_t i = 0; i < pl->n; i++) {
		const struct plateau_ref *r = &pl->v[i];
		if (r->pid == id->pid &&
		    (r->start_ticks == 0 || r->start_ticks == id->start_ticks))
			return r;
	}
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].comm && !strcmp(pl->v[i].comm, id->comm))
			return &pl->v[i];
	return NULL;
}

/* ---- selection -------------------------------------------------------- */

struct pid_set {
	pid_t *v;
	size_t n, cap;
};

static void pid_add(struct pid_set *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return;
	xgrow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = pid;
}

static bool pid_in(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* Add every process matching one of the patterns (not memtrend itself or
 * its ancestors, whose command lines hold the pattern). 0, or an exit
 * code. */
static int select_by_name(struct probe *p, char **patterns, size_t n_pat,
			  struct pid_set *out)
{
	regex_t *re = xcalloc(n_pat, sizeof(*re));
	size_t compiled = 0;
	int rc = EXIT_OK;
	for (; compiled < n_pat; compiled++) {
		int e = regcomp(&re[compiled], patterns[compiled],
				REG_EXTENDED | REG_NOSUB);
		if (e) {
			char msg[256];
			regerror(e, &re[compiled], msg, sizeof(msg));
			error("bad --name pattern '%s': %s", patterns[compiled],
			      msg);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	pid_t *exclude = NULL, *all = NULL;
	size_t n_exclude = 0, n_all = 0;
	if (target_ancestors(p, getpid(), &exclude, &n_exclude))
		n_exclude = 0;
	if (probe_list_pids(p, &all, &n_all)) {
		free(exclude);
		rc = EXIT_RUNTIME;
		goto out;
	}
	size_t *hits = xcalloc(n_pat, sizeof(*hits));
	for (size_t i = 0; i < n_all; i++) {
		if (pid_in(exclude, n_exclude, all[i]))
			continue;
		struct proc_identity id;
		if (probe_identity_read(p, all[i], &id) != PROBE_OK)
			continue;
		for (size_t k = 0; k < n_pat; k++) {
			if (target_matches(&re[k], &id)) {
				hits[k]++;
				pid_add(out, all[i]);
			}
		}
		proc_identity_release(&id);
	}
	for (size_t k = 0; k < n_pat; k++) {
		if (!hits[k]) {
			error("--name '%s': no process matches", patterns[k]);
			rc = EXIT_USAGE;
		}
	}
	free(hits);
	free(all);
	free(exclude);
out:
	for (size_t i = 0; i < compiled; i++)
		regfree(&re[i]);
	free(re);
	return rc;
}

/* ---- the books -------------------------------------------------------- */

static int cmp_footprint(const void *a, const void *b)
{
	const struct books_process *x = a, *y = b;
	if (x->footprint != y->footprint)
		return x->footprint < y->footprint ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void bind_cap(struct books_process *bp, const struct proc_identity *id,
		     struct cap_arg *caps, size_t n_caps,
		     const struct plateaus *pl)
{
	static const enum books_cap_source order[] = {
		BOOKS_CAP_PID, BOOKS_CAP_NAME, BOOKS_CAP_ALL,
	};
	bp->cap = NAN;
	bp->cap_source = BOOKS_CAP_FOOTPRINT;
	bp->cap_from = NULL;
	for (size_t o = 0; o < ARRAY_SIZE(order) && isnan(bp->cap); o++) {
		/* the last one given wins, as options usually do */
		for (size_t i = n_caps; i-- > 0;) {
			struct cap_arg *c = &caps[i];
			if (c->kind != order[o])
				continue;
			if ((c->kind == BOOKS_CAP_PID && c->pid != id->pid) ||
			    (c->kind == BOOKS_CAP_NAME &&
			     strcmp(c->name, id->comm)))
				continue;
			c->used = true;
			bp->cap = c->bytes;
			bp->cap_source = c->kind;
			bp->cap_from = c->kind == BOOKS_CAP_NAME ? c->name :
								   NULL;
			break;
		}
	}
	if (isnan(bp->cap)) {
		const struct plateau_ref *r = plateau_for(pl, id);
		if (r) {
			bp->cap = r->level;
			bp->cap_source = BOOKS_CAP_PLATEAU;
			bp->cap_from = r->file;
		}
	}
	/* A plateau is a median of readings: the current one may sit a
	 * reading's noise above it without being "over". */
	double slack = bp->cap_source == BOOKS_CAP_PLATEAU ? 0.01 * bp->cap
							  : 0;
	bp->over_cap = !isnan(bp->cap) && bp->footprint > bp->cap + slack;
	bp->books = isnan(bp->cap) || bp->over_cap ? bp->footprint : bp->cap;
}

int cmd_books(int argc, char **argv)
{
	_Static_assert(BOOKS_DEFAULT_TOP == 20, "books_options' help says 20");
	struct books_args a = {.top = BOOKS_DEFAULT_TOP};
	struct pid_set sel = {0};
	struct plateaus pl = {0};
	struct books_process *procs = NULL;
	size_t n_procs = 0;
	struct probe *probe = NULL;
	int rc = EXIT_USAGE;
	int first = cli_parse(&books_command, "", argc, argv, &a);
	/* what the parse gathered is freed at out */
	char **names = (char **)a.names.v, **froms = (char **)a.froms.v;
	size_t n_names = a.names.n, n_froms = a.froms.n;
	struct cap_arg *caps = a.caps;
	size_t n_caps = a.n_caps;
	size_t top = a.top;
	bool all = a.all, json = a.json;
	if (first == CLI_PARSE_HELP) {
		rc = EXIT_OK;
		goto out;
	}
	if (first < 0)
		goto out;
	for (int i = first; i < argc; i++) {
		size_t len = strlen(argv[i]);
		long v = all_digits(argv[i], len) && len < 11 ?
				 strtol(argv[i], NULL, 10) : 0;
		if (v <= 0 || v > 0x7fffffff) {
			error("books: '%s' is not a PID (a process name goes "
			      "with --name)", argv[i]);
			goto out;
		}
		pid_add(&sel, (pid_t)v);
	}
	size_t n_explicit = sel.n;
	bool every = sel.n == 0 && n_names == 0;
	for (size_t i = 0; i < n_caps; i++) {
		if (caps[i].kind == BOOKS_CAP_ALL && every) {
			error("--cap SIZE without PID= or NAME= applies to "
			      "the processes given by PID or --name; with "
			      "none given, bind it: --cap PID=SIZE or --cap "
			      "NAME=SIZE");
			goto out;
		}
	}

	probe = probe_new(NULL, NULL);
	if (!probe) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	for (size_t i = 0; i < n_froms; i++)
		if (plateaus_read(froms[i], &pl))
			goto out; /* bad input: exit 2 */
	if (n_names) {
		int r = select_by_name(probe, names, n_names, &sel);
		if (r) {
			rc = r;
			goto out;
		}
	}
	if (every) {
		pid_t *all_pids;
		size_t n_all;
		if (probe_list_pids(probe, &all_pids, &n_all)) {
			rc = EXIT_RUNTIME;
			goto out;
		}
		for (size_t i = 0; i < n_all; i++)
			if (all_pids[i] != getpid())
				pid_add(&sel, all_pids[i]);
		free(all_pids);
	}

	struct books_report r = { .all_processes = every };
	procs = xcalloc(sel.n ? sel.n : 1, sizeof(*procs));
	for (size_t i = 0; i < sel.n; i++) {
		pid_t pid = sel.v[i];
		bool explicit_pid = i < n_explicit;
		struct probe_proc *pp;
		int st = probe_proc_open(probe, pid, &pp);
		if (st == PROBE_GONE) {
			if (explicit_pid) {
				error("no process with PID %d", (int)pid);
				goto out;
			}
			continue; /* exited since it was listed */
		}
		if (st == PROBE_DENIED) {
			if (explicit_pid) {
				error("PID %d: its status is not readable",
				      (int)pid);
				rc = EXIT_RUNTIME;
				goto out;
			}
			r.skipped_denied++;
			continue;
		}
		if (st == PROBE_NOFILE && explicit_pid)
			error("PID %d: its files cannot be opened: the "
			      "open-file limit is reached", (int)pid);
		if (st != PROBE_OK) {
			if (!explicit_pid)
				continue; /* the probe said why; go on */
			rc = EXIT_RUNTIME;
			goto out;
		}
		struct proc_mem m;
		st = probe_proc_read(pp, &m);
		const struct proc_identity *id = probe_proc_identity(pp);
		if (st == PROBE_OK && isfinite(m.footprint)) {
			struct books_process *bp = &procs[n_procs++];
			bp->pid = pid;
			memcpy(bp->comm, id->comm, sizeof(bp->comm));
			bp->comm[sizeof(bp->comm) - 1] = '\0';
			bp->cmdline = id->cmdline && *id->cmdline ?
					      xstrdup(id->cmdline) : NULL;
			bp->footprint = m.footprint;
			bp->swap = m.swap;
			bp->rss = m.rss;
			bind_cap(bp, id, caps, n_caps, &pl);
		} else if (st == PROBE_OK || st == PROBE_GONE) {
			/* a kernel thread has no memory of its own; a zombie
			 * has given its back */
			if (explicit_pid) {
				error("PID %d has no memory of its own (a "
				      "kernel thread, or it has exited)",
				      (int)pid);
				probe_proc_close(pp);
				goto out;
			}
			r.skipped_kernel++;
		} else if (st == PROBE_DENIED) {
			r.skipped_denied++;
		} else {
			probe_proc_close(pp);
			rc = EXIT_RUNTIME;
			goto out;
		}
		probe_proc_close(pp);
	}
	for (size_t i = 0; i < n_caps; i++) {
		if (caps[i].used)
			continue;
		if (caps[i].kind == BOOKS_CAP_PID)
			warning("--cap %d=: no such process among those "
				"counted", (int)caps[i].pid);
		else if (caps[i].kind == BOOKS_CAP_NAME)
			warning("--cap %s=: no process named so among those "
				"counted (NAME is matched against the full "
				"comm)", caps[i].name);
	}

	qsort(procs, n_procs, sizeof(*procs), cmp_footprint);
	for (size_t i = 0; i < n_procs; i++) {
		r.footprint_sum += procs[i].footprint;
		if (isfinite(procs[i].swap))
			r.swap_sum += procs[i].swap;
		r.books_sum += procs[i].books;
	}
	r.procs = procs;
	r.n = n_procs;
	r.listed = all || top > n_procs ? n_procs : top;
	probe_sys_read(probe, &r.sys);
	int wrc = json ? render_books_json(stdout, &r) :
			 render_books_text(stdout, &r);
	if (fflush(stdout) || wrc) {
		error("cannot write the books");
		rc = EXIT_RUNTIME;
		goto out;
	}
	rc = EXIT_OK;
out:
	for (size_t i = 0; i < n_procs; i++)
		free((char *)procs[i].cmdline);
	free(procs);
	free(caps);
	free(names);
	free(froms);
	free(sel.v);
	plateaus_release(&pl);
	probe_free(probe);
	return rc;
}
