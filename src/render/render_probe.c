/*
 * render_probe.c - `memtrend probe`'s table and advice (render_probe.h).
 * The words for what probe_compare.c decided; sizes with one decimal in
 * binary units ("1.9 GiB", "210.0 MiB") as the field report quotes them.
 */
#include "render_probe.h"

#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "render.h"
#include "units.h"


/* A growing string. */
struct sb {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sb *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert(k >= 0);
	xgrow((void **)&b->s, &b->cap, b->len + (size_t)k + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)k;
}

/* What an arm changes, for the advice ("MALLOC_ARENA_MAX=2"). */
static void arm_change(struct sb *b, const struct probe_arm_readings *a)
{
	switch (a->role) {
	case PROBE_ROLE_TRIM:
		sb_printf(b, "malloc_trim(0) after each round");
		break;
	case PROBE_ROLE_ARENA_MAX:
		sb_printf(b, "MALLOC_ARENA_MAX=2");
		break;
	case PROBE_ROLE_ALLOCATOR: {
		/* "jemalloc varying": the allocator's name. */
		size_t k = strcspn(a->name, " ");
		sb_printf(b, "%.*s", (int)k, a->name);
		break;
	}
	default:
		sb_printf(b, "%s", a->name);
	}
}

/* How a user applies the best arm's change to a service. */
static void arm_how(struct sb *b, const struct probe_arm_readings *a)
{
	switch (a->role) {
	case PROBE_ROLE_TRIM:
		sb_printf(b, "call malloc_trim(0) after bursts of work");
		break;
	case PROBE_ROLE_ARENA_MAX:
		sb_printf(b, "set MALLOC_ARENA_MAX=2 in the service's "
			  "environment");
		break;
	case PROBE_ROLE_ALLOCATOR:
		sb_printf(b, "start the service with LD_PRELOAD=%s",
			  a->preload ? a->preload : "(the library)");
		break;
	default:
		sb_printf(b, "use it");
	}
}

char *render_probe_advice(const struct probe_report *r)
{
	const struct probe_advice *ad = r->advice;
	struct sb b = {0};
	char s1[32], s2[32];
	if (ad->kind == PROBE_ADVICE_NONE) {
		sb_printf(&b, "glibc's varying-size arm did not run: nothing "
			  "to compare.");
		return b.s;
	}
	const struct probe_arm_finding *v = &r->findings[ad->varying];
	const bool has_fixed = ad->fixed < r->n;
	if (ad->kind == PROBE_ADVICE_NOT_ALLOCATOR) {
		if (v->verdict == PROBE_VERDICT_GIVES_BACK)
			sb_printf(&b, "glibc gave back freed varying-size "
				  "buffers (kept %s)",
				  render_size1(s1, sizeof(s1), v->kept, false));
		else
			sb_printf(&b, "glibc kept %s of freed varying-size "
				  "buffers, about what one size keeps (%s)",
				  render_size1(s1, sizeof(s1), v->kept, false),
				  render_size1(s2, sizeof(s2),
					r->findings[ad->fixed].kept, false));
		sb_printf(&b, ": here the allocator does not explain memory "
			  "that is kept; look for a leak or a cache "
			  "(memtrend record, memtrend report).");
		return b.s;
	}
	sb_printf(&b, "glibc kept %s of freed varying-size buffers",
		  render_size1(s1, sizeof(s1), v->kept, false));
	if (has_fixed)
		sb_printf(&b, " (one size: %s)",
			  render_size1(s1, sizeof(s1), r->findings[ad->fixed].kept,
				false));
	if (v->verdict == PROBE_VERDICT_GROWS)
		sb_printf(&b, ", growing from %s after round 1 (%s per "
			  "round) with nothing leaked",
			  render_size1(s1, sizeof(s1), v->first, false),
			  render_size1(s2, sizeof(s2), v->slope_per_round, true));
	for (size_t i = 0; i < r->n; i++) {
		const struct probe_arm_readings *a = &r->arms[i];
		if (!a->ran || (a->role != PROBE_ROLE_TRIM &&
				a->role != PROBE_ROLE_ARENA_MAX &&
				a->role != PROBE_ROLE_ALLOCATOR))
			continue;
		sb_printf(&b, "; ");
		arm_change(&b, a);
		sb_printf(&b, " kept %s", render_size1(s1, sizeof(s1),
						 r->findings[i].kept, false));
	}
	if (ad->best < r->n) {
		sb_printf(&b, ". Least: ");
		arm_change(&b, &r->arms[ad->best]);
		if (isfinite(ad->kept_ratio) && ad->kept_ratio >= 1.05)
			sb_printf(&b, " (%.1fx less)", ad->kept_ratio);
		sb_printf(&b, ": ");
		arm_how(&b, &r->arms[ad->best]);
		if (ad->best_setting < r->n && ad->best_setting != ad->best) {
			sb_printf(&b, "; without a code change: ");
			arm_how(&b, &r->arms[ad->best_setting]);
			sb_printf(&b, " (kept %s)",
				  render_size1(s1, sizeof(s1),
					r->findings[ad->best_setting].kept,
					false));
		}
		sb_printf(&b, "; then record the service again.");
	} else {
		sb_printf(&b, ". No remedy arm ran to compare with.");
	}
	return b.s;
}

/* ---- text -------------------------------------------------------------- */

int render_probe_text(FILE *out, const struct probe_report *r)
{
	char a[32], b[32], c[32], d[32], e[32];
	char rounds_col[32];
	fprintf(out, "memtrend probe: %d thread%s, %ld round%s of %s-%s "
		"buffers, %s idle; capped arm at %s\n",
		r->threads, r->threads == 1 ? "" : "s", r->rounds,
		r->rounds == 1 ? "" : "s",
		render_size1(a, sizeof(a), r->min_size, false),
		render_size1(b, sizeof(b), r->max_size, false),
		units_format_duration(c, sizeof(c), r->idle_s),
		render_size1(d, sizeof(d), r->cap, false));
	if (r->like) {
		char esc[4200];
		fprintf(out, "set up like %s\n",
			render_escape_terminal(esc, sizeof(esc), r->like));
	}
	if (r->allocator_note)
		fprintf(out, "note: %s\n", r->allocator_note);
	snprintf(rounds_col, sizeof(rounds_col), "after %ld", r->rounds);
	fprintf(out, "\n%-22s %10s %10s %10s %10s %12s  %s\n", "arm",
		"baseline", "round 1", rounds_col, "after idle", "per round",
		"verdict");
	for (size_t i = 0; i < r->n; i++) {
		const struct probe_arm_readings *arm = &r->arms[i];
		const struct probe_arm_finding *f = &r->findings[i];
		char name[128];
		render_escape_terminal(name, sizeof(name), arm->name);
		if (!arm->ran) {
			char why[4 * 1400];
			fprintf(out, "%-22s %s: %s\n", name,
				arm->failed ? "failed" : "skipped",
				render_escape_terminal(why, sizeof(why),
						       arm->failed ?
						       arm->failed :
						       arm->skipped ?
						       arm->skipped : "?"));
			continue;
		}
		fprintf(out, "%-22s %10s %10s %10s %10s %12s  %s\n", name,
			render_size1(a, sizeof(a), arm->baseline, false),
			render_size1(b, sizeof(b), f->first, false),
			render_size1(c, sizeof(c), f->all, false),
			render_size1(d, sizeof(d), f->idle, false),
			render_size1(e, sizeof(e), f->slope_per_round, true),
			probe_verdict_name(f->verdict));
	}
	char *advice = render_probe_advice(r);
	char *esc = xmalloc(4 * strlen(advice) + 4);
	render_escape_terminal(esc, 4 * strlen(advice) + 4, advice);
	fprintf(out, "\n%s\n", esc);
	free(esc);
	free(advice);
	char dur[32];
	fprintf(out, "(footprint = anon + swap + shmem, read after each "
		"round's last free and after the idle period; took %s",
		units_format_duration(dur, sizeof(dur), r->elapsed_s));
	if (r->recording) {
		char rec[4200];
		fprintf(out, "; recording: %s",
			render_escape_terminal(rec, sizeof(rec), r->recording));
	}
	fprintf(out, ")\n");
	return fflush(out) || ferror(out) ? -1 : 0;
}

/* ---- JSON -------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_utf8(const char *s)
{
	if (!s)
		return json_null();
	size_t n = 3 * strlen(s) + 4;
	char *buf = xmalloc(n);
	json_t *j = json_string(render_escape_utf8(buf, n, s));
	free(buf);
	return j;
}

static const char *advice_kind_name(enum probe_advice_kind k)
{
	switch (k) {
	case PROBE_ADVICE_NONE: return "none";
	case PROBE_ADVICE_NOT_ALLOCATOR: return "not_allocator";
	case PROBE_ADVICE_ALLOCATOR: return "allocator";
	}
	return "?";
}

int render_probe_json(FILE *out, const struct probe_report *r)
{
	json_t *root = json_object();
	json_object_set_new(root, "threads", json_integer(r->threads));
	json_object_set_new(root, "rounds", json_integer(r->rounds));
	json_object_set_new(root, "min_size_bytes", json_real(r->min_size));
	json_object_set_new(root, "max_size_bytes", json_real(r->max_size));
	json_object_set_new(root, "idle_s", json_real(r->idle_s));
	json_object_set_new(root, "cap_bytes", json_real(r->cap));
	json_object_set_new(root, "like", str_utf8(r->like));
	json_object_set_new(root, "allocator_note", str_utf8(r->allocator_note));
	json_object_set_new(root, "recording", str_utf8(r->recording));
	json_object_set_new(root, "elapsed_s", json_real(r->elapsed_s));
	json_t *arms = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct probe_arm_readings *a = &r->arms[i];
		const struct probe_arm_finding *f = &r->findings[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", str_utf8(a->name));
		json_object_set_new(o, "role",
				    json_string(probe_role_name(a->role)));
		json_object_set_new(o, "preload", str_utf8(a->preload));
		json_object_set_new(o, "ran", json_boolean(a->ran));
		json_object_set_new(o, "skipped", str_utf8(a->skipped));
		json_object_set_new(o, "failed", str_utf8(a->failed));
		json_object_set_new(o, "elapsed_s", num_or_null(a->elapsed_s));
		json_object_set_new(o, "verdict",
				    json_string(probe_verdict_name(f->verdict)));
		if (a->ran) {
			json_object_set_new(o, "baseline_bytes",
					    num_or_null(a->baseline));
			json_object_set_new(o, "first_round_bytes",
					    num_or_null(f->first));
			json_object_set_new(o, "all_rounds_bytes",
					    num_or_null(f->all));
			json_object_set_new(o, "idle_bytes",
					    num_or_null(f->idle));
			json_object_set_new(o, "peak_bytes",
					    num_or_null(f->peak));
			json_object_set_new(o, "kept_bytes",
					    num_or_null(f->kept));
			json_object_set_new(o, "slope_bytes_per_round",
					    num_or_null(f->slope_per_round));
			json_object_set_new(o, "work_bytes",
					    num_or_null(a->work));
			json_object_set_new(o, "cap_bytes", num_or_null(a->cap));
			json_t *rs = json_array();
			for (size_t k = 0; k < a->n_rounds; k++)
				json_array_append_new(rs,
						      num_or_null(a->rounds[k]));
			json_object_set_new(o, "rounds_bytes", rs);
		}
		json_array_append_new(arms, o);
	}
	json_object_set_new(root, "arms", arms);
	const struct probe_advice *ad = r->advice;
	json_t *adv = json_object();
	json_object_set_new(adv, "kind", json_string(advice_kind_name(ad->kind)));
	json_object_set_new(adv, "varying", ad->varying < r->n ?
			    str_utf8(r->arms[ad->varying].name) : json_null());
	json_object_set_new(adv, "fixed", ad->fixed < r->n ?
			    str_utf8(r->arms[ad->fixed].name) : json_null());
	json_object_set_new(adv, "best", ad->best < r->n ?
			    str_utf8(r->arms[ad->best].name) : json_null());
	json_object_set_new(adv, "kept_ratio", num_or_null(ad->kept_ratio));
	char *text = render_probe_advice(r);
	json_object_set_new(adv, "text", str_utf8(text));
	free(text);
	json_object_set_new(root, "advice", adv);
	int rc = render_json_dump(root, out);
	json_decref(root);
	return rc;
}
