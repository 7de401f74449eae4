/* gate.c - the CI gates: --gpu targets that cannot run, --require SASS, --require-ptx.
 * Findings are aggregated per object, so a 2,000-container library gives one line per
 * missing architecture, not 2,000; and per group of alternatives (libfoo_cuda118.so,
 * libfoo_cuda121.so, ...), so that eleven variants missing the same thing are one line.
 * Each finding carries its check ID (ws_checks.h); the rules drop the ignored ones here,
 * before anything is printed or counted for the exit status. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_compat.h"
#include "ws_gate.h"
#include "ws_util.h"

#define WS_MAX_FINDINGS 10000

static void push(struct ws_findings *f, enum ws_check id, const char *artifact, const char *where, const char *fmt,
		 va_list ap)
{
	if (f->n >= WS_MAX_FINDINGS) {
		f->dropped++;
		return;
	}
	char what[512];
	vsnprintf(what, sizeof what, fmt, ap);
	if (f->n >= UINT32_MAX - 1 || !ws_grow((void **)&f->v, &f->cap, (uint32_t)f->n + 1, sizeof *f->v))
		return;
	struct ws_finding *v = &f->v[f->n];
	memset(v, 0, sizeof *v);
	v->id = id;
	v->artifact = artifact ? ws_strdup(artifact) : NULL;
	v->where = ws_strdup(where);
	v->what = ws_strdup(what);
	f->n++;
}

bool ws_findings_add(struct ws_findings *f, enum ws_check id, const char *where, const char *fmt, ...)
{
	if (ws_check_ignored(f->rules, id, f->artifact, where)) {
		f->ignored++;
		return false;
	}
	va_list ap;
	va_start(ap, fmt);
	push(f, id, NULL, where, fmt, ap);
	va_end(ap);
	return true;
}

void ws_findings_note(struct ws_findings *f, const char *artifact, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	push(f, WS_CHECK_LIVE_MISMATCH, artifact, where, fmt, ap);
	va_end(ap);
}

void ws_findings_free(struct ws_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].artifact);
		free(f->v[i].where);
		free(f->v[i].what);
	}
	free(f->v);
	free(f->cells);
	memset(f, 0, sizeof *f);
}

const char *ws_object_name(const struct ws_artifact *a, const struct ws_object *o)
{
	return o->member ? o->member : a->path;
}

static bool has_ptx(const struct ws_fatbin *f)
{
	for (uint32_t i = 0; i < f->nentries; i++)
		if (f->entries[i].kind == WS_KIND_PTX)
			return true;
	return false;
}

/* The objects one finding speaks for: one object, or the variants of a group. */
struct unit {
	const char *name;              /* the member, or the group's pattern */
	const uint32_t *objects;
	uint32_t n;
};

/* Counts over a unit: containers missing / considered, and variants missing. */
struct tally {
	uint32_t missing, considered, variants;
};

static void cell_add(struct ws_findings *out, size_t col, const struct tally *t, bool kept)
{
	if (!out->cells || col >= out->ncells)
		return;
	struct ws_gate_cell *c = &out->cells[col];
	c->missing += t->missing;
	c->considered += t->considered;
	if (t->missing)
		kept ? c->kept++ : c->ignored++;
}

/* ", in 11 of its 11 variants" after a group's finding; nothing for one object. */
static const char *variants(const struct unit *u, uint32_t n, char *buf, size_t len)
{
	if (u->n < 2)
		return "";
	snprintf(buf, len, ", in %u of its %u variants", n, u->n);
	return buf;
}

static void check_unit(const struct ws_artifact *a, const struct ws_config *cfg, const struct ws_target *targets,
		       size_t nt, const struct unit *u, struct ws_findings *out)
{
	char vb[64];
	for (size_t t = 0; t < nt && a->verdicts; t++) {
		/* an alternative fails only when no variant runs (ws_object_excused): one line
		 * for the group, with the reason of its first failing variant */
		uint32_t failing = 0;
		const struct ws_object *first = NULL;
		for (uint32_t k = 0; k < u->n; k++) {
			const struct ws_object *o = &a->objects[u->objects[k]];
			if (!o->verdicts || !ws_verdict_fails(o->verdicts[t]) || ws_object_excused(a, o, t))
				continue;
			failing++;
			first = first ? first : o;
		}
		if (first)
			ws_findings_add(out, WS_CHECK_WILL_NOT_RUN, u->name, "%s on %s%s%s%s: %s%s",
					ws_verdict_name(first->verdicts[t]), targets[t].name, targets[t].label[0] ? " (" : "",
					targets[t].label, targets[t].label[0] ? ")" : "",
					first->judged[t].why ? first->judged[t].why : "", variants(u, failing, vb, sizeof vb));
	}
	for (size_t r = 0; r < cfg->nrequire; r++) {
		struct tally s = {0};
		for (uint32_t k = 0; k < u->n; k++) {
			uint32_t considered, missing = ws_object_require_sass(&a->objects[u->objects[k]], &cfg->require[r],
									      cfg->strict, &considered);
			s.missing += missing;
			s.considered += considered;
			s.variants += missing != 0;
		}
		bool kept = false;
		/* what the maintainer adds: nvcc's -gencode for the arch, or torch's arch list */
		if (s.missing)
			kept = ws_findings_add(out, WS_CHECK_MISSING_SASS, u->name, "no SASS %s in %u of the %u containers "
					       "with kernels it needs there%s (build with -gencode arch=compute_%u,code=sm_%u, or "
					       "TORCH_CUDA_ARCH_LIST=\"%u.%u\" for a torch extension)", cfg->require[r].name,
					       s.missing, s.considered, variants(u, s.variants, vb, sizeof vb), cfg->require[r].cc,
					       cfg->require[r].cc, cfg->require[r].cc / 10, cfg->require[r].cc % 10);
		cell_add(out, r, &s, kept);
	}
	if (cfg->require_ptx) {
		struct tally s = {0};
		for (uint32_t k = 0; k < u->n; k++) {
			const struct ws_object *o = &a->objects[u->objects[k]];
			uint32_t missing = 0;
			bool link_only = ws_object_link_only(o);
			for (uint32_t i = 0; i < o->nfatbins; i++)
				if (ws_fatbin_carries_code(&o->fatbins[i], link_only)) {
					s.considered++;
					missing += !has_ptx(&o->fatbins[i]);
				}
			s.missing += missing;
			s.variants += missing != 0;
		}
		bool kept = false;
		if (s.missing)
			kept = ws_findings_add(out, WS_CHECK_MISSING_PTX, u->name, "no PTX in %u of %u containers with kernels%s "
					       "(build the newest arch as code=[sm_XY,compute_XY], or end TORCH_CUDA_ARCH_LIST "
					       "with +PTX)", s.missing, s.considered, variants(u, s.variants, vb, sizeof vb));
		cell_add(out, cfg->nrequire, &s, kept);
	}
}

void ws_gate_check(const struct ws_artifact *a, const struct ws_config *cfg,
		   const struct ws_target *targets, size_t nt, struct ws_findings *out)
{
	out->rules = &cfg->rules;
	out->artifact = a->path;
	size_t ncells = cfg->nrequire + (cfg->require_ptx ? 1 : 0);
	if (ncells && !out->cells && (out->cells = ws_calloc(ncells, sizeof *out->cells)))
		out->ncells = ncells;
	/* which group each object is in, if any: a group is checked once, at its first variant */
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_altgroup *grp = NULL;
		bool first = false;
		for (uint32_t g = 0; g < a->nalts && !grp; g++)
			for (uint32_t k = 0; k < a->alts[g].n; k++)
				if (a->alts[g].objects[k] == i) {
					grp = &a->alts[g];
					first = k == 0;
					break;
				}
		if (grp && !first)
			continue;
		struct unit u = grp ? (struct unit){grp->pattern, grp->objects, grp->n}
				    : (struct unit){ws_object_name(a, &a->objects[i]), &i, 1};
		check_unit(a, cfg, targets, nt, &u, out);
	}
}
