/*
 * render_books.c - the region breakdown (`report` of a vmmap summary, a
 * smaps snapshot) and `memtrend books` as text and JSON (render.h; JSON
 * fields documented in docs/books.md). Formats what the callers computed;
 * the only figures worked out here are display ones (shares, sums of
 * families, the books ratio). Every region name, process name and command
 * line is escaped: render_escape_terminal() for text, render_escape_utf8() before
 * jansson for JSON.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "units.h"

const char *const books_cap_source_names[] = {
	"footprint", "pid", "name", "all", "plateau",
};

/* ---- small formatters -------------------------------------------------- */


static char *percent(char *buf, size_t n, double share)
{
	if (!isfinite(share))
		snprintf(buf, n, "-");
	else if (share > 0 && share < 0.005)
		snprintf(buf, n, "<1 %%");
	else
		snprintf(buf, n, "%.0f %%", share * 100);
	return buf;
}

static json_t *bytes_or_null(double v)
{
	return isfinite(v) ? json_integer((json_int_t)llround(v)) :
			     json_null();
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *safe_string(const char *s)
{
	char b[4096];
	return json_string(render_escape_utf8(b, sizeof(b), s ? s : ""));
}

static json_t *string_or_null(const char *s)
{
	return s && *s ? safe_string(s) : json_null();
}

static int dump(FILE *out, json_t *root)
{
	int rc = render_json_dump(root, out);
	json_decref(root);
	return rc;
}

/* ---- regions ----------------------------------------------------------- */

/* The family holding most of the footprint; -1 when nothing is charged. */
static int largest_family(const struct region_breakdown *b)
{
	int best = -1;
	for (int i = 0; i < REGION_FAMILY_COUNT; i++) {
		double v = b->f[i].footprint;
		if (isfinite(v) && v > 0 &&
		    (best < 0 || v > b->f[best].footprint))
			best = i;
	}
	return best;
}

static char *escaped(char *buf, size_t n, const char *s, bool terminal)
{
	return terminal ? render_escape_terminal(buf, n, s) : render_escape_utf8(buf, n, s);
}

char *render_regions_conclusion(char *buf, size_t n,
				const struct region_breakdown *b,
				bool terminal)
{
	char t[32], x[32], p[16], h[32], name[REGION_NAME_MAX * 4 + 8];
	double total = regions_total_footprint(b);
	int fam = largest_family(b);
	if (fam < 0) {
		snprintf(buf, n, "footprint %s: no family holds any of it",
			 render_size1(t, sizeof(t), total, false));
		return buf;
	}
	double v = b->f[fam].footprint;
	const char *top = b->top[fam];
	char shown[sizeof(name) + 4] = "";
	if (*top)
		snprintf(shown, sizeof(shown), " (%s)",
			 escaped(name, sizeof(name), top, terminal));
	char heap[64] = "";
	if (fam != REGION_HEAP)
		snprintf(heap, sizeof(heap), "; host heap %s",
			 render_size1(h, sizeof(h), b->f[REGION_HEAP].footprint,
			       false));
	snprintf(buf, n, "footprint %s: %s (%s) in %s%s%s",
		 render_size1(t, sizeof(t), total, false),
		 render_size1(x, sizeof(x), v, false),
		 percent(p, sizeof(p), total > 0 ? v / total : NAN),
		 region_family_titles[fam], shown, heap);
	return buf;
}

/* "grew +4.1 GiB: +4.0 GiB (98 %) in anonymous (NAME)" for a delta. */
static char *growth_conclusion(char *buf, size_t n,
			       const struct region_breakdown *d, bool terminal)
{
	char t[32], x[32], p[16], name[REGION_NAME_MAX * 4 + 8];
	double total = regions_total_footprint(d);
	int fam = largest_family(d);
	if (fam < 0 || !(total > 0)) {
		snprintf(buf, n, "footprint change %s: no family grew",
			 render_size1(t, sizeof(t), total, true));
		return buf;
	}
	double v = d->f[fam].footprint;
	char shown[sizeof(name) + 4] = "";
	if (*d->top[fam])
		snprintf(shown, sizeof(shown), " (largest now: %s)",
			 escaped(name, sizeof(name), d->top[fam], terminal));
	snprintf(buf, n, "footprint grew %s: %s (%s) in %s%s",
		 render_size1(t, sizeof(t), total, true),
		 render_size1(x, sizeof(x), v, true),
		 percent(p, sizeof(p), v / total), region_family_titles[fam],
		 shown);
	return buf;
}

static void regions_text(FILE *out, const char *title,
			 const struct region_breakdown *b,
			 const struct region_breakdown *d)
{
	char e[1024], c[REGION_NAME_MAX * 4 + 512];
	fprintf(out, "regions of %s\n", render_escape_terminal(e, sizeof(e), title));
	if (b->source_note)
		fprintf(out, "  %s\n",
			render_escape_terminal(e, sizeof(e), b->source_note));
	fprintf(out, "\n  %-20s %11s %11s %11s %11s %11s %11s %8s%s  %s\n",
		"family", "footprint", "resident", "dirty", "swap", "virtual",
		"pss", "mappings", d ? "      growth" : "", "largest");
	for (int i = 0; i < REGION_FAMILY_COUNT; i++) {
		const struct region_figures *f = &b->f[i];
		char s[7][32], g[32] = "", name[REGION_NAME_MAX * 4 + 8];
		const char *top = b->top[i];
		if (!*top && f->mappings > 0)
			top = "(no name)";
		if (d)
			snprintf(g, sizeof(g), " %11s",
				 render_size1(s[6], sizeof(s[6]), d->f[i].footprint,
				       true));
		fprintf(out, "  %-20s %11s %11s %11s %11s %11s %11s %8lld%s  "
			"%s\n", region_family_titles[i],
			render_size1(s[0], 32, f->footprint, false),
			render_size1(s[1], 32, f->rss, false),
			render_size1(s[2], 32, f->private_dirty, false),
			render_size1(s[3], 32, f->swap, false),
			render_size1(s[4], 32, f->size, false),
			render_size1(s[5], 32, f->pss, false), f->mappings, g,
			render_escape_terminal(name, sizeof(name), top));
	}
	char t[32], pk[32];
	double total = regions_total_footprint(b);
	fprintf(out, "  %-20s %11s", "total", render_size1(t, sizeof(t), total,
						    false));
	if (isnan(b->footprint))
		fprintf(out, "  (sum of the families)");
	else if (isfinite(b->footprint_peak))
		fprintf(out, "  (peak %s)", render_size1(pk, sizeof(pk),
						  b->footprint_peak, false));
	fprintf(out, "\n\n  %s\n",
		render_regions_conclusion(c, sizeof(c), b, true));
	if (d)
		fprintf(out, "  %s\n", growth_conclusion(c, sizeof(c), d,
							 true));
	else
		fprintf(out, "  (one snapshot shows where memory sits, not "
			"which allocations grew it)\n");
}

static json_t *families_json(const struct region_breakdown *b)
{
	json_t *o = json_object();
	for (int i = 0; i < REGION_FAMILY_COUNT; i++) {
		const struct region_figures *f = &b->f[i];
		json_t *x = json_object();
		json_object_set_new(x, "footprint_bytes",
				    bytes_or_null(f->footprint));
		json_object_set_new(x, "resident_bytes", bytes_or_null(f->rss));
		json_object_set_new(x, "dirty_bytes",
				    bytes_or_null(f->private_dirty));
		json_object_set_new(x, "swap_bytes", bytes_or_null(f->swap));
		json_object_set_new(x, "virtual_bytes", bytes_or_null(f->size));
		json_object_set_new(x, "pss_bytes", bytes_or_null(f->pss));
		json_object_set_new(x, "mappings",
				    json_integer((json_int_t)f->mappings));
		json_object_set_new(x, "largest", string_or_null(b->top[i]));
		json_object_set_new(x, "largest_footprint_bytes", *b->top[i] ?
				    bytes_or_null(b->top_footprint[i]) :
				    json_null());
		json_object_set_new(o, region_family_names[i], x);
	}
	return o;
}

static json_t *conclusion_json(const struct region_breakdown *b,
			       bool growth)
{
	char c[REGION_NAME_MAX * 4 + 512];
	double total = regions_total_footprint(b);
	int fam = largest_family(b);
	json_t *o = json_object();
	json_object_set_new(o, "text", json_string(growth ?
		growth_conclusion(c, sizeof(c), b, false) :
		render_regions_conclusion(c, sizeof(c), b, false)));
	json_object_set_new(o, "family", fam < 0 ? json_null() :
			    json_string(region_family_names[fam]));
	json_object_set_new(o, "family_bytes", fam < 0 ? json_null() :
			    bytes_or_null(b->f[fam].footprint));
	json_object_set_new(o, "share", fam < 0 || !(total > 0) ?
			    json_null() :
			    num_or_null(b->f[fam].footprint / total));
	json_object_set_new(o, "host_heap_bytes",
			    bytes_or_null(b->f[REGION_HEAP].footprint));
	return o;
}

static json_t *regions_json(const char *title,
			    const struct region_breakdown *b,
			    const struct region_breakdown *d)
{
	json_t *root = json_object();
	json_object_set_new(root, "memtrend_version",
			    json_string(MEMTREND_VERSION));
	json_object_set_new(root, "title", safe_string(title));
	json_object_set_new(root, "source", string_or_null(b->source_note));
	json_object_set_new(root, "footprint_bytes",
			    bytes_or_null(regions_total_footprint(b)));
	json_object_set_new(root, "footprint_from",
			    json_string(isnan(b->footprint) ? "families" :
					"source"));
	json_object_set_new(root, "footprint_peak_bytes",
			    bytes_or_null(b->footprint_peak));
	json_object_set_new(root, "families", families_json(b));
	json_object_set_new(root, "conclusion", conclusion_json(b, false));
	if (d) {
		json_t *g = json_object();
		json_object_set_new(g, "footprint_bytes",
				    bytes_or_null(regions_total_footprint(d)));
		json_object_set_new(g, "families", families_json(d));
		json_object_set_new(g, "conclusion", conclusion_json(d, true));
		json_object_set_new(root, "growth", g);
	} else {
		json_object_set_new(root, "growth", json_null());
	}
	return root;
}

int render_regions(FILE *out, const char *title,
		   const struct region_breakdown *b,
		   const struct region_breakdown *delta, bool json)
{
	if (json)
		return dump(out, regions_json(title ? title : "", b, delta));
	regions_text(out, title ? title : "", b, delta);
	return ferror(out) ? -1 : 0;
}

/* ---- books ------------------------------------------------------------- */

static char *cap_text(char *buf, size_t n, const struct books_process *p)
{
	char e[256];
	switch (p->cap_source) {
	case BOOKS_CAP_PID:
		snprintf(buf, n, "--cap %d=", (int)p->pid);
		break;
	case BOOKS_CAP_NAME:
		snprintf(buf, n, "--cap %s=",
			 render_escape_terminal(e, sizeof(e), p->cap_from));
		break;
	case BOOKS_CAP_ALL:
		snprintf(buf, n, "--cap");
		break;
	case BOOKS_CAP_PLATEAU:
		snprintf(buf, n, "plateau in %s",
			 render_escape_terminal(e, sizeof(e), p->cap_from));
		break;
	default:
		snprintf(buf, n, "no cap: footprint");
		break;
	}
	return buf;
}

int render_books_text(FILE *out, const struct books_report *r)
{
	char a[32], b[32], c[32], d[32], e[256], src[320];
	const struct sys_mem *m = &r->sys;
	fprintf(out, "memtrend books: %zu process%s%s, MemTotal %s\n\n", r->n,
		r->n == 1 ? "" : "es", r->all_processes ? " (all readable)" :
		"", render_size1(a, sizeof(a), m->mem_total, false));
	fprintf(out, "  %-8s %-18s %11s %11s %11s %11s  %s\n", "PID", "NAME",
		"FOOTPRINT", "SWAP", "CAP", "ON BOOKS", "CAP FROM");
	for (size_t i = 0; i < r->listed && i < r->n; i++) {
		const struct books_process *p = &r->procs[i];
		fprintf(out, "  %-8d %-18s %11s %11s %11s %11s  %s%s\n",
			(int)p->pid, render_escape_terminal(e, 19, p->comm),
			render_size1(a, sizeof(a), p->footprint, false),
			render_size1(b, sizeof(b), p->swap, false),
			render_size1(c, sizeof(c), p->cap, false),
			render_size1(d, sizeof(d), p->books, false),
			cap_text(src, sizeof(src), p),
			p->over_cap ? " (footprint above its cap)" : "");
	}
	if (r->listed < r->n)
		fprintf(out, "  ... %zu more (--all lists every one; the sums "
			"below count them)\n", r->n - r->listed);
	if (r->skipped_denied)
		fprintf(out, "  (%zu process%s not readable, not counted)\n",
			r->skipped_denied, r->skipped_denied == 1 ? "" : "es");

	fprintf(out, "\n  sums over %zu process%s: footprint %s, swap %s "
		"(shared memory counts in each process that maps it)\n",
		r->n, r->n == 1 ? "" : "es",
		render_size1(a, sizeof(a), r->footprint_sum, false),
		render_size1(b, sizeof(b), r->swap_sum, false));
	if (isfinite(m->mem_total) && m->mem_total > 0) {
		double ratio = r->books_sum / m->mem_total;
		fprintf(out, "  caps on the books: %s of %s, %.2gx%s\n",
			render_size1(a, sizeof(a), r->books_sum, false),
			render_size1(b, sizeof(b), m->mem_total, false), ratio,
			ratio > 1 ? ": more is promised than the machine "
			"holds" : "");
	} else {
		fprintf(out, "  caps on the books: %s (MemTotal unknown)\n",
			render_size1(a, sizeof(a), r->books_sum, false));
	}
	double avail = isfinite(m->mem_available) && m->mem_total > 0 ?
			       m->mem_available / m->mem_total : NAN;
	if (isfinite(m->swap_total) && m->swap_total > 0 &&
	    isfinite(m->swap_free)) {
		double used = m->swap_total - m->swap_free;
		fprintf(out, "  swap %s used (%s of %s) while %s is free "
			"(MemAvailable): judge by swap, not the free share\n",
			percent(c, sizeof(c), used / m->swap_total),
			render_size1(a, sizeof(a), used, false),
			render_size1(b, sizeof(b), m->swap_total, false),
			percent(d, sizeof(d), avail));
	} else {
		fprintf(out, "  no swap; %s is free (MemAvailable)\n",
			percent(d, sizeof(d), avail));
	}
	return ferror(out) ? -1 : 0;
}

int render_books_json(FILE *out, const struct books_report *r)
{
	const struct sys_mem *m = &r->sys;
	json_t *root = json_object();
	json_object_set_new(root, "memtrend_version",
			    json_string(MEMTREND_VERSION));
	json_object_set_new(root, "mem_total_bytes",
			    bytes_or_null(m->mem_total));
	json_object_set_new(root, "mem_available_bytes",
			    bytes_or_null(m->mem_available));
	json_object_set_new(root, "swap_total_bytes",
			    bytes_or_null(m->swap_total));
	double used = m->swap_total - m->swap_free;
	json_object_set_new(root, "swap_used_bytes", bytes_or_null(used));
	json_object_set_new(root, "swap_used_share", m->swap_total > 0 ?
			    num_or_null(used / m->swap_total) : json_null());
	json_object_set_new(root, "mem_available_share", m->mem_total > 0 ?
			    num_or_null(m->mem_available / m->mem_total) :
			    json_null());
	json_object_set_new(root, "all_processes",
			    json_boolean(r->all_processes));
	json_t *a = json_array();
	for (size_t i = 0; i < r->listed && i < r->n; i++) {
		const struct books_process *p = &r->procs[i];
		json_t *o = json_object();
		json_object_set_new(o, "pid", json_integer(p->pid));
		json_object_set_new(o, "name", safe_string(p->comm));
		json_object_set_new(o, "cmdline", string_or_null(p->cmdline));
		json_object_set_new(o, "footprint_bytes",
				    bytes_or_null(p->footprint));
		json_object_set_new(o, "swap_bytes", bytes_or_null(p->swap));
		json_object_set_new(o, "rss_bytes", bytes_or_null(p->rss));
		json_object_set_new(o, "cap_bytes", bytes_or_null(p->cap));
		json_object_set_new(o, "cap_source", json_string(
			books_cap_source_names[p->cap_source]));
		json_object_set_new(o, "cap_from", string_or_null(p->cap_from));
		json_object_set_new(o, "books_bytes", bytes_or_null(p->books));
		json_object_set_new(o, "over_cap", json_boolean(p->over_cap));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "processes", a);
	json_object_set_new(root, "listed", json_integer(
		(json_int_t)(r->listed < r->n ? r->listed : r->n)));
	json_t *s = json_object();
	json_object_set_new(s, "processes", json_integer((json_int_t)r->n));
	json_object_set_new(s, "footprint_bytes",
			    bytes_or_null(r->footprint_sum));
	json_object_set_new(s, "swap_bytes", bytes_or_null(r->swap_sum));
	json_object_set_new(s, "books_bytes", bytes_or_null(r->books_sum));
	json_object_set_new(s, "books_ratio", m->mem_total > 0 ?
			    num_or_null(r->books_sum / m->mem_total) :
			    json_null());
	json_object_set_new(root, "sums", s);
	json_t *k = json_object();
	json_object_set_new(k, "denied",
			    json_integer((json_int_t)r->skipped_denied));
	json_object_set_new(k, "kernel_or_zombie",
			    json_integer((json_int_t)r->skipped_kernel));
	json_object_set_new(root, "skipped", k);
	return dump(out, root);
}
