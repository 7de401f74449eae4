/* judge_advice.c - the sentences of a judgement: why an object fails or JITs on a target
 * (its deciding containers grouped by arch list, the largest described), what would fix
 * it (the driver, or the build to install, from the CUDA version it was built with), and
 * the notes for objects of link inputs only and for helpers that alone serve a GPU. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_steps.h"
#include "ws_util.h"

/* The arch list of a container, "sm_50+sm_60+compute_50", in entry order as the decoder
 * named them, without repeats. A repeat is looked for among the names already written
 * (a few dozen fit), so a hostile container of 4,096 entries costs 4,096 short scans. */
void ws_judge_arch_list(const struct ws_fatbin *f, char *buf, size_t len)
{
	const char *seen[32];
	size_t nseen = 0, pos = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < f->nentries && pos + 1 < len && nseen < 32; i++) {
		const char *n = f->entries[i].name;
		bool dup = false;
		for (size_t j = 0; j < nseen && !dup; j++)
			dup = !strcmp(seen[j], n);
		if (dup)
			continue;
		int w = snprintf(buf + pos, len - pos, "%s%s", pos ? "+" : "", n);
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += (size_t)w;
		seen[nseen++] = n;
	}
}

struct group {
	char key[160];
	uint32_t first;            /* container index of the first member */
	uint32_t n;
};

static int cmp_group_key(const void *x, const void *y)
{
	return strcmp(((const struct group *)x)->key, ((const struct group *)y)->key);
}

static int cmp_group_size(const void *x, const void *y)
{
	const struct group *a = x, *b = y;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

int ws_judge_object_runtime(const struct ws_object *o, const struct ws_wheel_info *wheel, int build_hint,
			     const char **source)
{
	struct ws_build_cuda bc;
	bool major_only = false;
	ws_object_build_cuda(o, &bc);       /* the release most cubins name (doc/builds.md) */
	*source = "the ptxas notes of its cubins";
	if (bc.cuda && !bc.from_isa)
		return bc.cuda;
	*source = "its file name";
	if (o->alt_group && o->alt_cuda)
		return o->alt_cuda;
	*source = "the CUDA runtime its wheel requires";
	if (wheel && wheel->requires_cuda_runtime)
		return wheel->requires_cuda_runtime;
	*source = "its wheel's local version";
	if (wheel && wheel->local) {
		int c = ws_cuda_tag_parse(wheel->local, &major_only);
		if (c)
			return c;
	}
	*source = "its packaging";
	if (build_hint)
		return build_hint;
	*source = "its wheel's CUDA requirements";
	if (wheel && wheel->requires_cuda_major)
		return wheel->requires_cuda_major * 1000;
	*source = NULL;
	return 0;
}

/* Why and advice when the driver's CUDA major is older than the runtime's (judge_advice.c). */
static int judge_describe_runtime(struct ws_judgement *j, const struct ws_target *t, int runtime, const char *source,
			      int driver_cuda)
{
	char why[384], adv[384], c1[16], c2[16], c3[16];
	int need = ws_runtime_driver_floor(runtime), last_branch = 0, last = ws_gpu_last_driver(t->cc, &last_branch);
	char branch[32] = "";
	/* a branch is named only where this GPU can have it (§4b) */
	if (ws_driver_branch_for(need) && !(last && need > last) && !ws_cc_integrated(t->cc))
		snprintf(branch, sizeof branch, " (R%d or newer)", ws_driver_branch_for(need));
	snprintf(why, sizeof why, "built with CUDA %s (%s): a CUDA %d runtime needs a driver for CUDA >= %s%s, and "
		 "this driver supports CUDA %s", ws_cuda_str(runtime, c1, sizeof c1), source, runtime / 1000,
		 ws_cuda_str(need, c2, sizeof c2), branch, ws_cuda_str(driver_cuda, c3, sizeof c3));
	if (last && need > last)
		snprintf(adv, sizeof adv, "a build made with CUDA %d.x or older: no driver for %s runs CUDA >= %s (R%d, the "
			 "last branch for %s GPUs, supports CUDA %s)", last / 1000, t->name, c2, last_branch,
			 ws_cc_family(t->cc), ws_cuda_str(last, c3, sizeof c3));
	else
		snprintf(adv, sizeof adv, "install a driver for CUDA >= %s%s, or a build made with CUDA %d.x or older", c2,
			 branch, driver_cuda / 1000);
	free(j->why);
	free(j->advice);
	j->why = ws_strdup(why);
	j->advice = ws_strdup(adv);
	j->build_cuda = runtime;
	return j->why && j->advice ? 0 : -1;
}

static bool any_ptx(const struct ws_fatbin *const *fb, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (uint32_t e = 0; e < fb[i]->nentries; e++)
			if (fb[i]->entries[e].kind == WS_KIND_PTX && !fb[i]->entries[e].opaque)
				return true;
	return false;
}

/* The driver and PTX that JIT needs on target k: over every required container that JITs. */
static void jit_needs(struct ws_object *o, size_t k, const struct ws_target *t, int driver_cuda)
{
	struct ws_judgement *j = &o->judged[k];
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct ws_entry *pe;
		unsigned ma, mi;
		if (o->fatbins[i].roles[k] != WS_ROLE_REQUIRED || o->fatbins[i].verdicts[k] != WS_V_JIT ||
		    !(pe = ws_judge_picked_entry(&o->fatbins[i], t, driver_cuda)))
			continue;
		ws_entry_isa(pe, &ma, &mi);
		int need = ws_isa_need_cuda(ma, mi);
		if (need > j->jit_driver_cuda && need < 100000)
			j->jit_driver_cuda = need;
		if (pe->arch > j->jit_from)
			j->jit_from = pe->arch;
	}
}

/* Advice when the driver is too old for the PTX: the driver the newest such PTX needs, or
 * SASS for t. */
static void ptx_too_new_advice(const struct ws_fatbin *const *fb, size_t nfb, const struct ws_target *t, int driver_cuda,
			       char *adv, size_t len)
{
	char c1[16], c2[16];
	int need = 0;
	for (size_t i = 0; i < nfb; i++)
		for (uint32_t e = 0; e < fb[i]->nentries; e++) {
			const struct ws_entry *en = &fb[i]->entries[e];
			unsigned ma, mi;
			if (ws_entry_verdict(en, t, driver_cuda) != WS_V_PTX_TOO_NEW)
				continue;
			ws_entry_isa(en, &ma, &mi);
			int c = ws_isa_need_cuda(ma, mi);
			if (c > need)
				need = c;
		}
	int last_branch = 0, last = ws_gpu_last_driver(t->cc, &last_branch);
	if (need > 0 && need < 100000 && last && need > last)
		/* §4b: no driver for this GPU reads that ISA; name none */
		snprintf(adv, len, "a build with SASS for %s: no driver for %s reads this PTX, which needs CUDA >= %s "
			 "(R%d, the last branch for %s GPUs, supports CUDA %s)", t->name, t->name,
			 ws_cuda_str(need, c1, sizeof c1), last_branch, ws_cc_family(t->cc), ws_cuda_str(last, c2, sizeof c2));
	else if (need > 0 && need < 100000)
		snprintf(adv, len, "a driver for CUDA >= %s (this one supports %s), or a build with "
			 "SASS for %s", ws_cuda_str(need, c1, sizeof c1),
			 ws_cuda_str(driver_cuda, c2, sizeof c2), t->name);
	else
		snprintf(adv, len, "a newer driver (this one supports %s), or a build with SASS for %s",
			 ws_cuda_str(driver_cuda, c2, sizeof c2), t->name);
}

/* Advice when no image serves t: the build to install, from the CUDA version this object
 * was built with, read from the firmest source there is (reasons added to the judgement). */
static void rebuild_advice(struct ws_object *o, size_t k, const struct ws_target *t, const struct ws_fatbin *const *fb,
			   size_t nfb, const struct ws_wheel_info *wheel, int build_hint, char *adv, size_t len)
{
	struct ws_judgement *j = &o->judged[k];
	bool has_ptx = any_ptx(fb, nfb), major_only = false, from_isa = false;
	unsigned im = 0, in = 0;
	char words[96];
	const char *build_words = NULL;
	struct ws_build_cuda bc;
	ws_object_build_cuda(o, &bc);
	int build = bc.cuda;
	from_isa = bc.from_isa;
	im = bc.isa_major;
	in = bc.isa_minor;
	/* the PTX ISA is a lower bound: a firmer word comes first (the library's own name,
	 * libx_cuda126.so; the pinned runtime), else the bound is named as one */
	if (from_isa && o->alt_group && !o->alt_major_only && o->alt_cuda >= build) {
		build = o->alt_cuda;
		from_isa = false;
	} else if (from_isa && wheel && wheel->requires_cuda_runtime >= build) {
		build = wheel->requires_cuda_runtime;
		from_isa = false;
	}
	if (from_isa) {
		char c1[16];
		int next = ws_isa_need_cuda(im, in + 1);   /* the first CUDA of the next ISA */
		ws_cuda_str(build, c1, sizeof c1);
		if (next > build && next - build <= 20 && next % 1000 / 10 == build % 1000 / 10 + 2)
			snprintf(words, sizeof words, "%s or %d.%d (from its PTX ISA %u.%u)", c1, build / 1000,
				 build % 1000 / 10 + 1, im, in);
		else
			snprintf(words, sizeof words, "%s or newer (from its PTX ISA %u.%u)", c1, im, in);
		build_words = words;
	}
	if (!build && wheel && wheel->local)
		build = ws_cuda_tag_parse(wheel->local, &major_only);
	if (!build && wheel && wheel->requires_cuda_runtime)
		build = wheel->requires_cuda_runtime;
	if (!build)
		build = build_hint;
	if (!build && wheel && wheel->requires_cuda_major) {
		build = wheel->requires_cuda_major * 1000;
		major_only = true;
	}
	j->build_cuda = build;
	j->reasons |= ws_advise_build(t, build, major_only, has_ptx, wheel ? wheel->local : NULL, build_words, adv,
				      len);
}

/* why and advice for a failing or JIT object on target k. */
int ws_judge_describe_object(struct ws_object *o, size_t k, const struct ws_target *t, enum ws_verdict v,
			   const struct ws_judge_opts *opt, const struct ws_wheel_info *wheel, int build_hint)
{
	struct ws_judgement *j = &o->judged[k];
	char why[768], adv[384], list[160];
	size_t ng = 0, nmembers = 0;
	struct group *g = NULL;
	const struct ws_fatbin **fb = NULL;
	int rc = -1;

	if (j->reasons & WS_R_DRIVER_GPU) {
		char c1[16], c2[16];
		int first = ws_first_toolkit_for_arch(t->cc, 0);
		snprintf(why, sizeof why, "a driver for CUDA %s cannot run %s at all: that GPU needs CUDA %s or newer",
			 ws_cuda_str(opt->driver_cuda, c1, sizeof c1), t->name, ws_cuda_str(first, c2, sizeof c2));
		snprintf(adv, sizeof adv, "install a driver for CUDA >= %s (R%d or newer); no rebuild helps with "
			 "this driver", c2, ws_driver_branch_for(first));
		j->why = ws_strdup(why);
		j->advice = ws_strdup(adv);
		return j->why && j->advice ? 0 : -1;
	}
	if (j->reasons & WS_R_DRIVER_RUNTIME) {
		const char *source = NULL;
		int runtime = ws_judge_object_runtime(o, wheel, build_hint, &source);
		return judge_describe_runtime(j, t, runtime, source ? source : "", opt->driver_cuda);
	}
	if (!ws_verdict_fails(v) && v != WS_V_JIT)
		return 0;
	/* The containers that decide the verdict, grouped by arch list: the largest group is
	 * described, the others counted. */
	g = ws_calloc(o->nfatbins ? o->nfatbins : 1, sizeof *g);
	fb = ws_calloc(o->nfatbins ? o->nfatbins : 1, sizeof *fb);
	if (!g || !fb)
		goto out;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		if (o->fatbins[i].roles[k] != WS_ROLE_REQUIRED || o->fatbins[i].verdicts[k] != v)
			continue;
		ws_judge_arch_list(&o->fatbins[i], g[ng].key, sizeof g[ng].key);
		g[ng].first = i;
		g[ng].n = 1;
		ng++;
	}
	nmembers = ng;
	if (ng == 0) {
		rc = 0;
		goto out;
	}
	qsort(g, ng, sizeof *g, cmp_group_key);
	size_t w = 0;
	for (size_t i = 0; i < ng; i++) {
		if (w && !strcmp(g[w - 1].key, g[i].key)) {
			g[w - 1].n++;
			if (g[i].first < g[w - 1].first)
				g[w - 1].first = g[i].first;
		} else {
			g[w++] = g[i];
		}
	}
	ng = w;
	qsort(g, ng, sizeof *g, cmp_group_size);
	size_t nfb = 0;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		if (o->fatbins[i].roles[k] != WS_ROLE_REQUIRED || o->fatbins[i].verdicts[k] != v)
			continue;
		ws_judge_arch_list(&o->fatbins[i], list, sizeof list);
		if (!strcmp(list, g[0].key))
			fb[nfb++] = &o->fatbins[i];
	}
	char expl[512];
	ws_explain(fb, nfb, t, opt->driver_cuda, expl, sizeof expl);
	size_t pos = (size_t)snprintf(why, sizeof why, "%u of %u containers with kernels", g[0].n, j->with_kernels);
	if (ng > 1 && pos < sizeof why)
		pos += (size_t)snprintf(why + pos, sizeof why - pos, " (%s)", g[0].key);
	if (pos < sizeof why)
		pos += (size_t)snprintf(why + pos, sizeof why - pos, ": %s", expl);
	if (ng > 1 && pos < sizeof why)
		snprintf(why + pos, sizeof why - pos, "; %zu more in %zu other arch list%s", nmembers - g[0].n,
			 ng - 1, ng == 2 ? "" : "s");
	if (!(j->why = ws_strdup(why)))
		goto out;
	if (v == WS_V_JIT) {
		jit_needs(o, k, t, opt->driver_cuda);
		rc = 0;
		goto out;
	}
	/* kernels were assumed, not read, in a failing container (--no-kernels) */
	for (uint32_t i = 0; i < o->nfatbins; i++)
		if (o->fatbins[i].roles[k] == WS_ROLE_REQUIRED && ws_verdict_fails(o->fatbins[i].verdicts[k]) &&
		    o->fatbins[i].nkernels == 0)
			j->reasons |= WS_R_KERNELS_ASSUMED;
	if (v == WS_V_PTX_TOO_NEW) {
		ptx_too_new_advice(fb, nfb, t, opt->driver_cuda, adv, sizeof adv);
	} else {
		rebuild_advice(o, k, t, fb, nfb, wheel, build_hint, adv, sizeof adv);
	}
	if (!(j->advice = ws_strdup(adv)))
		goto out;
	rc = 0;
out:
	free(g);
	free(fb);
	return rc;
}

int ws_judge_describe_link_only(struct ws_object *o, size_t k)
{
	uint32_t link = 0;
	for (uint32_t i = 0; i < o->nfatbins; i++)
		link += o->fatbins[i].role == WS_ROLE_LINK_INPUT;
	if (!link || link != o->nfatbins)
		return 0;
	o->judged[k].reasons |= WS_R_LINK_INPUTS_ONLY;
	o->judged[k].why = ws_strdup("link inputs only (relocatable device code or LTO-IR): not loaded as they "
				     "are, judged where they are linked");
	return o->judged[k].why ? 0 : -1;
}

/* Rule 4's why, in place of the arch-list sentence: what the verdict rests on. */
int ws_judge_describe_helper(struct ws_judgement *j, const struct ws_target *t, const struct helper *h)
{
	char why[256], rest_s[96];
	uint32_t rest = j->with_kernels - j->serving;
	const char *s = rest == 1 ? "s" : "";
	if (h->from && !h->upto)
		snprintf(rest_s, sizeof rest_s, "start%s at sm_%u", s, h->from);
	else if (!h->from)
		snprintf(rest_s, sizeof rest_s, "stop%s at sm_%u", s, h->upto);
	else
		snprintf(rest_s, sizeof rest_s, "are built for sm_%u and older or sm_%u and newer", h->upto, h->from);
	char kernels[48];
	if (h->kernels_unknown)
		snprintf(kernels, sizeof kernels, "kernels not decoded");
	else
		snprintf(kernels, sizeof kernels, "%u kernel%s", h->kernels, h->kernels == 1 ? "" : "s");
	if (j->serving == 1)
		snprintf(why, sizeof why, "only a helper container (1 of %u, %s) has code for %s; the other "
			 "%u %s", j->with_kernels, kernels, t->name, rest, rest_s);
	else
		snprintf(why, sizeof why, "only %u helper containers (%u of %u, %s) have code for %s; the "
			 "other %u %s", j->serving, j->serving, j->with_kernels, kernels, t->name, rest, rest_s);
	char *w = ws_strdup(why);
	if (!w)
		return -1;
	free(j->why);
	j->why = w;
	return 0;
}

/* The older SASS of the target's major that the driver loads: plain sm_XY, or family
 * sm_XYf; an arch-specific sm_XYa runs on its own GPU alone, so it never serves another. */
void ws_judge_compatible_sass(struct ws_artifact *a, size_t k, const struct ws_target *t)
{
	struct ws_judgement *j = &a->judged[k];
	const struct ws_entry *lo = NULL, *hi = NULL;
	j->compatible_lo[0] = j->compatible_hi[0] = 0;
	if (a->verdicts[k] != WS_V_COMPATIBLE)
		return;
	for (uint32_t o = 0; o < a->nobjects; o++)
		for (uint32_t f = 0; f < a->objects[o].nfatbins; f++) {
			const struct ws_fatbin *fb = &a->objects[o].fatbins[f];
			for (uint32_t e = 0; e < fb->nentries; e++) {
				const struct ws_entry *en = &fb->entries[e];
				char plain[24], family[24];
				snprintf(plain, sizeof plain, "sm_%u", (unsigned)en->arch);
				snprintf(family, sizeof family, "sm_%uf", (unsigned)en->arch);
				if (en->kind != WS_KIND_SASS || (strcmp(en->name, plain) && strcmp(en->name, family)) ||
				    en->arch / 10 != t->cc / 10 || en->arch >= t->cc)
					continue;
				if (!lo || en->arch < lo->arch)
					lo = en;
				if (!hi || en->arch > hi->arch)
					hi = en;
			}
		}
	if (!hi)
		return;
	snprintf(j->compatible_lo, sizeof j->compatible_lo, "%s", lo->name);
	snprintf(j->compatible_hi, sizeof j->compatible_hi, "%s", hi->name);
}
