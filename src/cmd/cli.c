/*
 * cli.c - what the subcommands share (cmd.h): the report of a dataset
 * (`report`, `demo`), the invocation string for a recording's meta, and
 * the terminal's character set. Lives apart from the cmd_*.c files so
 * that no subcommand calls another.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "common.h"
#include "render.h"
#include "render_pprof.h"
#include "render_sites.h"

char *cli_join_argv(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = xmalloc(len), *p = s;
	for (int i = 0; i < argc; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	*p = '\0';
	return s;
}

/* UTF-8 when the locale says so (LC_ALL, else LC_CTYPE, else LANG). The
 * process's locale is left alone: the recorder's regexes must behave as
 * they do under `record`. */
bool cli_locale_utf8(void)
{
	const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return false;
}


static int html_open(struct report_html *h)
{
	if (!strcmp(h->path, "-")) {
		h->f = stdout;
		return 0;
	}
	size_t len = strlen(h->path) + 32;
	h->tmp = xmalloc(len);
	snprintf(h->tmp, len, "%s.tmp.%ld", h->path, (long)getpid());
	h->f = fopen(h->tmp, "wx");
	if (!h->f) {
		error("--html: cannot create '%s': %m", h->tmp);
		free(h->tmp);
		h->tmp = NULL;
		return -1;
	}
	return 0;
}

/* Finish the page: 0, or -1 after an error (nothing left behind). */
static int html_close(struct report_html *h, int render_rc)
{
	if (h->f == stdout)
		return render_rc;
	int rc = render_rc;
	if (fclose(h->f) && !rc)
		rc = error("--html: cannot write '%s': %m", h->tmp);
	else if (rc)
		error("--html: cannot write '%s'", h->tmp);
	if (!rc && rename(h->tmp, h->path))
		rc = error("--html: cannot rename '%s' to '%s': %m", h->tmp,
			   h->path);
	if (rc)
		unlink(h->tmp);
	free(h->tmp);
	h->tmp = NULL;
	h->f = NULL;
	return rc;
}

/* Columns of the terminal on stdout; 80 when unknown. */
static int terminal_columns(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

int cli_report_dataset(const struct dataset *d, const struct report_options *o,
		   struct report_html *h)
{
	struct target_findings *f = xcalloc(d->n_targets ? d->n_targets : 1,
					    sizeof(*f));
	for (size_t i = 0; i < d->n_targets; i++)
		analysis_run(&d->targets[i], &o->analysis, &f[i]);
	int rc = cli_report_findings(d, f, o, h);
	for (size_t i = 0; i < d->n_targets; i++)
		analysis_release(&f[i]);
	free(f);
	return rc;
}

/* --folded: the sites' stacks to stdout; a recording without sites is
 * bad input (exit 2), one whose sites do not grow prints nothing and
 * says so. Returns -1 on a write error, else an exit code. */
static int report_folded(const struct dataset *d,
			 const struct target_findings *f,
			 const struct report_options *o)
{
	size_t with_sites = 0, lines = 0;
	for (size_t i = 0; i < d->n_targets; i++)
		with_sites += f[i].sites.recorded;
	if (!with_sites) {
		error("--folded: no target of '%s' has allocation sites: "
		      "record it with --sites (docs/sites.md)",
		      d->source ? d->source : "the input");
		return EXIT_USAGE;
	}
	if (render_folded(stdout, d, f, d->n_targets,
			  (enum folded_value)o->folded, &lines))
		return -1;
	if (!lines)
		note("--folded: no analysed site %s", o->folded == FOLDED_LIVE ?
		     "holds live bytes" : "grows significantly: nothing to "
		     "draw (--folded live draws where the heap is)");
	return 0;
}

/* --pprof FILE: the sites' profile, written whole or not at all (to
 * FILE.tmp.PID, then renamed); a recording without sites is bad input
 * (exit 2). Returns an exit code. */
static int report_pprof(const struct dataset *d,
			const struct target_findings *f, const char *path)
{
	size_t with_sites = 0, samples = 0;
	for (size_t i = 0; i < d->n_targets; i++)
		with_sites += f[i].sites.recorded;
	if (!with_sites) {
		error("--pprof: no target of '%s' has allocation sites: "
		      "record it with --sites (docs/sites.md)",
		      d->source ? d->source : "the input");
		return EXIT_USAGE;
	}
	size_t len = strlen(path) + 32;
	char *tmp = xmalloc(len);
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	FILE *out = fopen(tmp, "wx");
	if (!out) {
		error("--pprof: cannot create '%s': %m", tmp);
		free(tmp);
		return EXIT_RUNTIME;
	}
	char comment[600];
	snprintf(comment, sizeof(comment), "memtrend report --pprof %s: "
		 "allocation sites; growth only where significant "
		 "(docs/sites.md)", d->source ? d->source : "-");
	int rc = render_pprof(out, d, f, d->n_targets, comment, &samples);
	if (fclose(out) || rc)
		rc = error("--pprof: cannot write '%s': %m", tmp);
	if (!rc && rename(tmp, path))
		rc = error("--pprof: cannot rename '%s' to '%s': %m", tmp,
			   path);
	if (rc)
		unlink(tmp);
	free(tmp);
	if (rc)
		return EXIT_RUNTIME;
	if (!samples)
		note("--pprof: no analysed site grows or holds live bytes: "
		     "'%s' has no samples", path);
	return EXIT_OK;
}

int cli_report_findings(const struct dataset *d,
			const struct target_findings *f,
			const struct report_options *o, struct report_html *h)
{
	if (o->pprof) {
		int prc = report_pprof(d, f, o->pprof);
		if (prc)
			return prc;
	}
	if (h && html_open(h))
		return EXIT_RUNTIME;
	int rc = 0, html_rc = 0;
	bool html_on_stdout = h && h->f == stdout;
	if (h)
		html_rc = html_close(h, render_html(h->f, d, f, d->n_targets,
						    &h->opt));
	if (html_on_stdout) {
		rc = html_rc;
	} else if (o->format == REPORT_JSON) {
		rc = render_json(stdout, d, f, d->n_targets);
	} else if (o->format == REPORT_FOLDED) {
		rc = report_folded(d, f, o);
		if (rc > 0)
			return rc;
	} else {
		struct render_options ro = {.color = o->color,
					    .plot = o->plot,
					    .utf8 = cli_locale_utf8(),
					    .width = terminal_columns(),
					    .top = o->top};
		rc = render_text(stdout, d, f, d->n_targets, &ro);
	}
	/* --fail-on: the gate of report, for recordings made elsewhere */
	size_t gated = 0;
	for (size_t i = 0; i < d->n_targets; i++)
		gated += (o->fail_on >> f[i].verdict) & 1u;
	if (fflush(stdout) || rc) {
		error("cannot write the report");
		return EXIT_RUNTIME;
	}
	if (html_rc)
		return EXIT_RUNTIME;
	if (gated) {
		note("--fail-on: %zu of %zu targets have a verdict it names",
		     gated, d->n_targets);
		return EXIT_GATE_FAILED;
	}
	return EXIT_OK;
}
