/* gate.c - the CI gates: --gpu targets that cannot run, --require SASS, --require-ptx.
 * Findings are aggregated per object, so a 2,000-container library gives one line per
 * missing architecture, not 2,000. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ws_compat.h"
#include "ws_gate.h"
#include "ws_report.h"
#include "ws_util.h"

#define WS_MAX_FINDINGS 10000

void ws_findings_add(struct ws_findings *f, const char *check, const char *where, const char *fmt, ...)
{
	if (f->n >= WS_MAX_FINDINGS) {
		f->dropped++;
		return;
	}
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (f->n >= UINT32_MAX - 1 || !ws_grow((void **)&f->v, &f->cap, (uint32_t)f->n + 1, sizeof *f->v))
		return;
	struct ws_finding *v = f->v;
	v[f->n].check = ws_strdup(check);
	v[f->n].where = ws_strdup(where);
	v[f->n].what = ws_strdup(what);
	f->n++;
}

void ws_findings_free(struct ws_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].check);
		free(f->v[i].where);
		free(f->v[i].what);
	}
	free(f->v);
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

void ws_gate_check(const struct ws_artifact *a, const struct ws_config *cfg,
		   const struct ws_target *targets, size_t nt, struct ws_findings *out)
{
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		const char *name = ws_object_name(a, o);
		for (size_t t = 0; t < nt && o->verdicts && a->verdicts; t++) {
			if (!ws_verdict_fails(o->verdicts[t]) || ws_object_excused(a, o, t))
				continue;
			ws_findings_add(out, "gpu", name, "%s on %s%s%s%s: %s", ws_verdict_name(o->verdicts[t]),
					targets[t].name, targets[t].label[0] ? " (" : "", targets[t].label,
					targets[t].label[0] ? ")" : "", o->judged[t].why ? o->judged[t].why : "");
		}
		for (size_t r = 0; r < cfg->nrequire; r++) {
			uint32_t considered, missing = ws_object_require_sass(o, &cfg->require[r], cfg->strict, &considered);
			/* what the maintainer adds: nvcc's -gencode for the arch, or torch's arch list */
			if (missing)
				ws_findings_add(out, "require", name, "no SASS %s in %u of the %u containers with "
						"kernels it needs there (build with -gencode arch=compute_%u,code=sm_%u, or "
						"TORCH_CUDA_ARCH_LIST=\"%u.%u\" for a torch extension)", cfg->require[r].name,
						missing, considered, cfg->require[r].cc, cfg->require[r].cc,
						cfg->require[r].cc / 10, cfg->require[r].cc % 10);
		}
		if (cfg->require_ptx) {
			unsigned missing = 0, considered = 0;
			bool link_only = ws_object_link_only(o);
			for (uint32_t k = 0; k < o->nfatbins; k++)
				if (ws_fatbin_carries_code(&o->fatbins[k], link_only)) {
					considered++;
					missing += !has_ptx(&o->fatbins[k]);
				}
			if (missing)
				ws_findings_add(out, "require-ptx", name, "no PTX in %u of %u containers with kernels "
						"(build the newest arch as code=[sm_XY,compute_XY], or end TORCH_CUDA_ARCH_LIST "
						"with +PTX)", missing, considered);
		}
	}
}
