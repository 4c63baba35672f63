/*
 * render_pprof.c - the allocation sites' growth as a pprof profile
 * (`report --pprof FILE`, docs/sites.md): the protobuf that `go tool
 * pprof`, Grafana Pyroscope and speedscope read (its messages:
 * proto/profile.proto, packed by protobuf-c), written uncompressed
 * (every reader takes it so; gzip is optional in the format).
 *
 * One sample per analysed site of every target with sites, three values
 * each (sample_type): growth_per_hour and growth_per_request (bytes; a
 * site's growth where it is significant, else 0: render_site_value(),
 * the rule the folded stacks and the icicle graph share) and live (its
 * live bytes at the window's end); growth_per_hour is the default. The
 * sample's locations are its frames, the leaf first; a frame is a
 * location per (module, address), with one line: its function (named as
 * the folded stacks name an unnamed frame: module+offset) and its source
 * line; modules are mappings with their build ids. Each sample is
 * labelled with its target's name and its site's trend.
 *
 * What it does not do: analyse (sites.c did), name frames (the recorder
 * did), or compress. The only file that includes protobuf-c's headers.
 * Work and memory: O(frames) with hashed lookups (strmap), the packed
 * profile built in memory.
 */
#include "render_pprof.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "profile.pb-c.h"
#include "render_sites.h"
#include "strmap.h"

/* The profile under construction. Messages live in growing arrays and
 * refer to each other by ids (1 up, as the format wants: 0 is none);
 * the pointer arrays the packer reads are made at the end, when nothing
 * moves any more. */
struct pprof_builder {
	struct strmap string_index;
	char **strings;
	size_t n_strings, cap_strings;
	struct strmap mapping_index, function_index, location_index;
	Perftools__Profiles__Mapping *mappings;
	size_t n_mappings, cap_mappings;
	Perftools__Profiles__Function *functions;
	size_t n_functions, cap_functions;
	Perftools__Profiles__Location *locations;
	Perftools__Profiles__Line *lines;   /* one per location */
	size_t n_locations, cap_locations, cap_lines;
	Perftools__Profiles__Sample *samples;
	Perftools__Profiles__Label *labels; /* SAMPLE_LABELS per sample */
	size_t n_samples, cap_samples, cap_labels;
};

enum { SAMPLE_VALUES = 3, SAMPLE_LABELS = 2 };

/* s's index in the string table (added when new); "" and NULL are 0. */
static int64_t string_id(struct pprof_builder *b, const char *s)
{
	if (!s || !*s)
		return 0;
	size_t i = strmap_get(&b->string_index, s);
	if (i != SIZE_MAX)
		return (int64_t)i;
	xgrow((void **)&b->strings, &b->cap_strings, b->n_strings + 1,
	      sizeof(*b->strings));
	b->strings[b->n_strings] = xstrdup(s);
	strmap_put(&b->string_index, s, b->n_strings);
	return (int64_t)b->n_strings++;
}

/* The mapping of f's module (its path and build id); 0 without one. */
static uint64_t mapping_id(struct pprof_builder *b,
			   const struct series_site_frame *f)
{
	if (!f->module)
		return 0;
	size_t i = strmap_get(&b->mapping_index, f->module);
	if (i != SIZE_MAX)
		return i + 1;
	xgrow((void **)&b->mappings, &b->cap_mappings, b->n_mappings + 1,
	      sizeof(*b->mappings));
	Perftools__Profiles__Mapping *m = &b->mappings[b->n_mappings];
	perftools__profiles__mapping__init(m);
	m->id = b->n_mappings + 1;
	m->filename = string_id(b, f->module);
	m->build_id = string_id(b, f->build_id);
	strmap_put(&b->mapping_index, f->module, b->n_mappings);
	return ++b->n_mappings;
}

/* The function a frame is in: its name (or, unnamed, the frame as a
 * label names it: module+0xOFF) and its source file. */
static uint64_t function_id(struct pprof_builder *b,
			    const struct series_site_frame *f)
{
	char name[512], key[1100];
	if (f->function)
		snprintf(name, sizeof(name), "%s", f->function);
	else
		render_site_frame_label(name, sizeof(name), f);
	snprintf(key, sizeof(key), "%s\x1f%s", name, f->file ? f->file : "");
	size_t i = strmap_get(&b->function_index, key);
	if (i != SIZE_MAX)
		return i + 1;
	xgrow((void **)&b->functions, &b->cap_functions, b->n_functions + 1,
	      sizeof(*b->functions));
	Perftools__Profiles__Function *fn = &b->functions[b->n_functions];
	perftools__profiles__function__init(fn);
	fn->id = b->n_functions + 1;
	fn->name = fn->system_name = string_id(b, name);
	fn->filename = string_id(b, f->file);
	strmap_put(&b->function_index, key, b->n_functions);
	return ++b->n_functions;
}

/* The location of a frame: one per module and address (per function
 * and line where the address is not known). */
static uint64_t location_id(struct pprof_builder *b,
			    const struct series_site_frame *f)
{
	uint64_t map = mapping_id(b, f), fn = function_id(b, f);
	char key[64];
	if (f->address)
		snprintf(key, sizeof(key), "%" PRIu64 "@%" PRIx64, map,
			 f->address);
	else
		snprintf(key, sizeof(key), "f%" PRIu64 ":%d", fn, f->line);
	size_t i = strmap_get(&b->location_index, key);
	if (i != SIZE_MAX)
		return i + 1;
	xgrow((void **)&b->locations, &b->cap_locations, b->n_locations + 1,
	      sizeof(*b->locations));
	xgrow((void **)&b->lines, &b->cap_lines, b->n_locations + 1,
	      sizeof(*b->lines));
	Perftools__Profiles__Location *loc = &b->locations[b->n_locations];
	perftools__profiles__location__init(loc);
	loc->id = b->n_locations + 1;
	loc->mapping_id = map;
	loc->address = f->address;
	Perftools__Profiles__Line *line = &b->lines[b->n_locations];
	perftools__profiles__line__init(line);
	line->function_id = fn;
	line->line = f->line > 0 ? f->line : 0;
	strmap_put(&b->location_index, key, b->n_locations);
	return ++b->n_locations;
}

/* A sample of site sf of target s; false when its values are all 0. */
static bool add_sample(struct pprof_builder *b, const struct series *s,
		       const struct site_finding *sf)
{
	int64_t v[SAMPLE_VALUES] = {
		(int64_t)rint(render_site_value(sf, FOLDED_PER_HOUR)),
		(int64_t)rint(render_site_value(sf, FOLDED_PER_REQUEST)),
		(int64_t)rint(render_site_value(sf, FOLDED_LIVE))};
	if (!v[0] && !v[1] && !v[2])
		return false;
	assert(sf->site < s->n_sites);
	const struct series_site *site = &s->sites[sf->site];
	xgrow((void **)&b->samples, &b->cap_samples, b->n_samples + 1,
	      sizeof(*b->samples));
	xgrow((void **)&b->labels, &b->cap_labels,
	      (b->n_samples + 1) * SAMPLE_LABELS, sizeof(*b->labels));
	Perftools__Profiles__Sample *x = &b->samples[b->n_samples];
	perftools__profiles__sample__init(x);
	x->n_location_id = site->n_frames;
	x->location_id = xcalloc(site->n_frames ? site->n_frames : 1,
				 sizeof(*x->location_id));
	for (size_t k = 0; k < site->n_frames; k++)
		x->location_id[k] = location_id(b, &site->frames[k]);
	x->n_value = SAMPLE_VALUES;
	x->value = xmalloc(sizeof(v));
	memcpy(x->value, v, sizeof(v));
	Perftools__Profiles__Label *l = &b->labels[b->n_samples * SAMPLE_LABELS];
	const char *keys[SAMPLE_LABELS] = {"target", "trend"};
	const char *vals[SAMPLE_LABELS] = {s->name ? s->name : "?",
					   site_trend_name(sf->trend)};
	for (size_t k = 0; k < SAMPLE_LABELS; k++) {
		perftools__profiles__label__init(&l[k]);
		l[k].key = string_id(b, keys[k]);
		l[k].str = string_id(b, vals[k]);
	}
	b->n_samples++;
	return true;
}

static void builder_release(struct pprof_builder *b)
{
	for (size_t i = 0; i < b->n_strings; i++)
		free(b->strings[i]);
	free(b->strings);
	for (size_t i = 0; i < b->n_samples; i++) {
		free(b->samples[i].location_id);
		free(b->samples[i].value);
	}
	free(b->samples);
	free(b->labels);
	free(b->mappings);
	free(b->functions);
	free(b->locations);
	free(b->lines);
	strmap_release(&b->string_index);
	strmap_release(&b->mapping_index);
	strmap_release(&b->function_index);
	strmap_release(&b->location_index);
}

/* An array of pointers to the n elements of size size at base. */
static void **pointers(void *base, size_t n, size_t size)
{
	void **p = xcalloc(n ? n : 1, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = (char *)base + i * size;
	return p;
}

int render_pprof(FILE *out, const struct dataset *d,
		 const struct target_findings *f, size_t n, const char *comment,
		 size_t *samples)
{
	assert(n == d->n_targets);
	struct pprof_builder b = {0};
	/* the string table's entry 0 is "" (string_id() never adds it) */
	xgrow((void **)&b.strings, &b.cap_strings, 1, sizeof(*b.strings));
	b.strings[b.n_strings++] = xstrdup("");
	Perftools__Profiles__ValueType types[SAMPLE_VALUES];
	const char *type_names[SAMPLE_VALUES] = {"growth_per_hour",
						 "growth_per_request", "live"};
	for (size_t k = 0; k < SAMPLE_VALUES; k++) {
		perftools__profiles__value_type__init(&types[k]);
		types[k].type = string_id(&b, type_names[k]);
		types[k].unit = string_id(&b, "bytes");
	}
	double first = NAN, last = NAN;
	for (size_t i = 0; i < n; i++) {
		const struct sites_finding *x = &f[i].sites;
		if (!x->recorded)
			continue;
		for (size_t r = 0; r < x->n_ranked; r++)
			add_sample(&b, &d->targets[i], &x->ranked[r]);
		const struct series *s = &d->targets[i];
		if (s->n) {
			first = isnan(first) || s->t[0] < first ? s->t[0] :
				first;
			last = isnan(last) || s->t[s->n - 1] > last ?
			       s->t[s->n - 1] : last;
		}
	}
	int64_t comment_id = string_id(&b, comment);
	Perftools__Profiles__Profile p;
	perftools__profiles__profile__init(&p);
	Perftools__Profiles__ValueType *type_ptrs[SAMPLE_VALUES];
	for (size_t k = 0; k < SAMPLE_VALUES; k++)
		type_ptrs[k] = &types[k];
	p.n_sample_type = SAMPLE_VALUES;
	p.sample_type = type_ptrs;
	p.default_sample_type = types[0].type;
	/* now that nothing moves: each sample's labels, each location's
	 * line, the pointer arrays */
	Perftools__Profiles__Label **label_ptrs = (Perftools__Profiles__Label **)
		pointers(b.labels, b.n_samples * SAMPLE_LABELS,
			 sizeof(*b.labels));
	for (size_t i = 0; i < b.n_samples; i++) {
		b.samples[i].n_label = SAMPLE_LABELS;
		b.samples[i].label = label_ptrs + i * SAMPLE_LABELS;
	}
	Perftools__Profiles__Line **line_ptrs = (Perftools__Profiles__Line **)
		pointers(b.lines, b.n_locations, sizeof(*b.lines));
	for (size_t i = 0; i < b.n_locations; i++) {
		b.locations[i].n_line = 1;
		b.locations[i].line = line_ptrs + i;
	}
	for (size_t i = 0; i < b.n_mappings; i++) {
		/* what the recorder could name in its files, it named */
		b.mappings[i].has_functions = true;
		b.mappings[i].has_filenames = true;
		b.mappings[i].has_line_numbers = true;
	}
	p.n_sample = b.n_samples;
	p.sample = (Perftools__Profiles__Sample **)pointers(
		b.samples, b.n_samples, sizeof(*b.samples));
	p.n_mapping = b.n_mappings;
	p.mapping = (Perftools__Profiles__Mapping **)pointers(
		b.mappings, b.n_mappings, sizeof(*b.mappings));
	p.n_location = b.n_locations;
	p.location = (Perftools__Profiles__Location **)pointers(
		b.locations, b.n_locations, sizeof(*b.locations));
	p.n_function = b.n_functions;
	p.function = (Perftools__Profiles__Function **)pointers(
		b.functions, b.n_functions, sizeof(*b.functions));
	p.n_string_table = b.n_strings;
	p.string_table = b.strings;
	p.n_comment = comment_id ? 1 : 0;
	p.comment = &comment_id;
	if (isfinite(first)) {
		p.time_nanos = (int64_t)(first * 1e9);
		p.duration_nanos = (int64_t)((last - first) * 1e9);
	}
	size_t len = perftools__profiles__profile__get_packed_size(&p);
	uint8_t *buf = xmalloc(len ? len : 1);
	size_t packed = perftools__profiles__profile__pack(&p, buf);
	assert(packed == len);
	int rc = fwrite(buf, 1, packed, out) == packed && !ferror(out) ? 0 : -1;
	if (samples)
		*samples = b.n_samples;
	free(buf);
	free(label_ptrs);
	free(line_ptrs);
	free(p.sample);
	free(p.mapping);
	free(p.location);
	free(p.function);
	builder_release(&b);
	return rc;
}
