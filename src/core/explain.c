/* explain.c - the sentences behind a verdict: why a group of containers gets its verdict
 * on a target, and what build or driver would help. Pure functions of the model and the
 * tables in compat.c; src/core/judge.c calls them and stores what they write in the model. */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_compat.h"

/* ---- explanations and advice --------------------------------------------------------- */

/* Appends printf output to buf at *pos, never past len. */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (*pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos = (size_t)n < len - *pos ? *pos + (size_t)n : len - 1;
}

/* "sm_90a" / "compute_120" / "lto_100f" for an entry, from its numbers (not file text). */
static const char *entry_name(const struct ws_entry *e, char *buf, size_t len)
{
	const char *prefix = e->kind == WS_KIND_SASS ? "sm_" : e->kind == WS_KIND_PTX ? "compute_" :
			     e->kind == WS_KIND_LTOIR ? "lto_" : "kind?_";
	char s = ws_entry_suffix(e);
	snprintf(buf, len, "%s%u%s", prefix, e->arch, s == 'a' ? "a" : s == 'f' ? "f" : "");
	return buf;
}

/* Newest entry of a kind (highest arch); with serving, only those that can serve t. */
static const struct ws_entry *newest(const struct ws_fatbin *f, uint16_t kind,
				     const struct ws_target *t, int driver_cuda, enum ws_verdict want)
{
	const struct ws_entry *best = NULL;
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct ws_entry *e = &f->entries[i];
		if (e->kind != kind || e->opaque)
			continue;
		if (t && ws_entry_verdict(e, t, driver_cuda) != want)
			continue;
		if (!best || e->arch > best->arch)
			best = e;
	}
	return best;
}

static void explain_fail(const struct ws_fatbin *f, const struct ws_target *t,
			 char *buf, size_t len, size_t *pos)
{
	const struct ws_entry *sass = newest(f, WS_KIND_SASS, NULL, 0, WS_V_NONE);
	const struct ws_entry *ptx = newest(f, WS_KIND_PTX, NULL, 0, WS_V_NONE);
	const struct ws_entry *lto = newest(f, WS_KIND_LTOIR, NULL, 0, WS_V_NONE);
	char n1[32];
	unsigned cc = t->cc, opaque = 0;

	for (uint32_t i = 0; i < f->nentries; i++)
		opaque += f->entries[i].opaque;
	if (sass) {
		append(buf, len, pos, "newest SASS %s", entry_name(sass, n1, sizeof n1));
		/* an arch-specific cubin for the right major: say why it does not count */
		for (uint32_t i = 0; i < f->nentries; i++) {
			const struct ws_entry *e = &f->entries[i];
			if (e->kind == WS_KIND_SASS && !e->opaque && ws_entry_suffix(e) == 'a' &&
			    e->arch / 10 == cc / 10 && e->arch != cc) {
				append(buf, len, pos, " (%s runs only on %u.%u)", entry_name(e, n1, sizeof n1),
				       e->arch / 10, e->arch % 10);
				break;
			}
		}
	} else {
		append(buf, len, pos, "no SASS");
	}
	if (ptx) {
		char s = ws_entry_suffix(ptx);
		append(buf, len, pos, ", newest PTX %s", entry_name(ptx, n1, sizeof n1));
		if (s == 'a')
			append(buf, len, pos, " (arch-specific: %u.%u only)", ptx->arch / 10, ptx->arch % 10);
		else if (s == 'f')
			append(buf, len, pos, " (family-specific: %u.%u and newer %u.x only)", ptx->arch / 10,
			       ptx->arch % 10, ptx->arch / 10);
	} else {
		append(buf, len, pos, ", no PTX");
	}
	if (lto)
		append(buf, len, pos, ", LTO-IR %s needs linking first", entry_name(lto, n1, sizeof n1));
	if (opaque)
		append(buf, len, pos, ", %u undecoded entr%s", opaque, opaque == 1 ? "y" : "ies");
	if (cc % 10)
		append(buf, len, pos, "; %s needs SASS sm_%u..sm_%u or PTX <= compute_%u",
		       t->name, cc - cc % 10, cc, cc);
	else
		append(buf, len, pos, "; %s needs SASS %s or PTX <= compute_%u", t->name, t->name, cc);
}

static void explain_one(const struct ws_fatbin *f, enum ws_verdict v, const struct ws_target *t,
			int driver_cuda, char *buf, size_t len)
{
	const struct ws_entry *e;
	char n1[32], c1[16], c2[16];
	unsigned im, in;
	size_t pos = 0;
	int need;

	switch (v) {
	case WS_V_NONE:
		append(buf, len, &pos, "no kernels in this container (e.g. nvcc's device-link stub): it cannot fail a launch");
		return;
	case WS_V_NATIVE:
	case WS_V_COMPATIBLE:
		e = newest(f, WS_KIND_SASS, t, driver_cuda, v);
		if (!e)
			break;
		if (v == WS_V_NATIVE)
			append(buf, len, &pos, "SASS %s runs natively on %s", entry_name(e, n1, sizeof n1), t->name);
		else
			append(buf, len, &pos, "SASS %s runs on %s (same major, lower minor)",
			       entry_name(e, n1, sizeof n1), t->name);
		return;
	case WS_V_JIT:
		e = newest(f, WS_KIND_PTX, t, driver_cuda, WS_V_JIT);
		if (!e)
			break;
		append(buf, len, &pos, "no SASS for %s; PTX %s is JIT-compiled at first load (slow first launch,"
		       " cached in ~/.nv/ComputeCache)", t->name, entry_name(e, n1, sizeof n1));
		ws_entry_isa(e, &im, &in);
		need = ws_isa_need_cuda(im, in);
		if (driver_cuda <= 0 && need > 0 && need != INT_MAX)
			append(buf, len, &pos, "; needs a driver for CUDA >= %s (PTX ISA %u.%u)",
			       ws_cuda_str(need, c1, sizeof c1), im, in);
		return;
	case WS_V_PTX_TOO_NEW:
		/* the PTX closest to usable: lowest driver need */
		e = NULL;
		need = INT_MAX;
		for (uint32_t i = 0; i < f->nentries; i++) {
			const struct ws_entry *x = &f->entries[i];
			if (ws_entry_verdict(x, t, driver_cuda) != WS_V_PTX_TOO_NEW)
				continue;
			ws_entry_isa(x, &im, &in);
			if (!e || ws_isa_need_cuda(im, in) < need) {
				e = x;
				need = ws_isa_need_cuda(im, in);
			}
		}
		if (!e)
			break;
		ws_entry_isa(e, &im, &in);
		if (need == INT_MAX)
			append(buf, len, &pos, "PTX %s has ISA %u.%u, newer than any CUDA release wheelscan knows; "
			       "driver supports %s", entry_name(e, n1, sizeof n1), im, in,
			       ws_cuda_str(driver_cuda, c2, sizeof c2));
		else
			append(buf, len, &pos, "PTX %s has ISA %u.%u, needs a CUDA %s driver; driver supports %s",
			       entry_name(e, n1, sizeof n1), im, in, ws_cuda_str(need, c1, sizeof c1),
			       ws_cuda_str(driver_cuda, c2, sizeof c2));
		if (!newest(f, WS_KIND_SASS, NULL, 0, WS_V_NONE))
			append(buf, len, &pos, " (no SASS)");
		return;
	default:
		break;
	}
	explain_fail(f, t, buf, len, &pos);
}

void ws_explain(const struct ws_fatbin *const *fatbins, size_t nf, const struct ws_target *t,
		int driver_cuda, char *buf, size_t len)
{
	const struct ws_fatbin *w = NULL;
	enum ws_verdict wv = WS_V_NONE;

	if (!buf || !len)
		return;
	buf[0] = 0;
	if (!t)
		return;
	/* explain the worst container: that is the one that decides the roll-up */
	for (size_t i = 0; i < nf; i++) {
		enum ws_verdict v;
		if (!fatbins || !fatbins[i])
			continue;
		v = ws_fatbin_verdict(fatbins[i], t, driver_cuda);
		if (!w || ws_verdict_rank(v) > ws_verdict_rank(wv)) {
			w = fatbins[i];
			wv = v;
		}
	}
	if (!w) {
		snprintf(buf, len, "no device code");
		return;
	}
	explain_one(w, wv, t, driver_cuda, buf, len);
}

/* Parses a wheel local tag "cu124" / "cu92" / "cu12" (major only). Returns the CUDA
 * version (12040), with *major_only set for "cuNN" tags with NN in 10..19; 0 if not a tag. */
int ws_cuda_tag_parse(const char *tag, bool *major_only)
{
	size_t k = 0;
	unsigned v = 0;
	*major_only = false;
	if (!tag || tolower((unsigned char)tag[0]) != 'c' || tolower((unsigned char)tag[1]) != 'u')
		return 0;
	tag += 2;
	while (k < 4 && isdigit((unsigned char)tag[k]))
		v = v * 10 + (unsigned)(tag[k++] - '0');
	if (isalnum((unsigned char)tag[k]))
		return 0;
	if (k == 3)
		return (int)(v / 10 * 1000 + v % 10 * 10);       /* cu124 -> 12.4 */
	if (k == 2 && v >= 10 && v <= 19) {
		*major_only = true;                          /* cu12 -> 12.x */
		return (int)(v * 1000);
	}
	if (k == 2)
		return (int)(v / 10 * 1000 + v % 10 * 10);       /* cu92 -> 9.2 */
	return 0;
}

/* The local tag of a CUDA version: "cu128", or "cu13" for a major-only style. */
/* The tag of a CUDA version: "cu128", or "cu13" for a major-only style. */
static void cuda_tag(int cuda, bool major_only, char *buf, size_t len)
{
	if (major_only)
		snprintf(buf, len, "cu%d", cuda / 1000);
	else
		snprintf(buf, len, "cu%d%d", cuda / 1000, cuda % 1000 / 10);
}

int ws_advise(const struct ws_target *t, const char *local_tag, char *buf, size_t len)
{
	int first, last, tag = 0;
	bool major_only = false;
	char c1[16], c2[16], want[16], have[16];
	size_t pos = 0;

	if (!t || !buf || !len)
		return -1;
	buf[0] = 0;
	first = ws_first_toolkit_for_arch(t->cc, 0);
	last = ws_last_toolkit_for_arch(t->cc);
	if (!first)
		return -1;
	/* doc/compat-rules.md §6: the toolkit window that can emit SASS for this CC */
	if (last)
		append(buf, len, &pos, "needs a build made with CUDA %s to %s", ws_cuda_str(first, c1, sizeof c1),
		       ws_cuda_str(last, c2, sizeof c2));
	else
		append(buf, len, &pos, "needs a build made with CUDA >= %s", ws_cuda_str(first, c1, sizeof c1));
	if (t->cc == 101)
		append(buf, len, &pos, " (sm_101 is called sm_110 from CUDA 13.0)");
	else if (last)
		append(buf, len, &pos, " (CUDA %d dropped %s)", last / 1000 + 1, t->name);

	if (local_tag && (tag = ws_cuda_tag_parse(local_tag, &major_only)) != 0) {
		int tag_hi = major_only ? tag + 990 : tag;
		cuda_tag(tag, major_only, have, sizeof have);
		if (tag_hi < first) {
			cuda_tag(first, major_only, want, sizeof want);
			append(buf, len, &pos, ", e.g. +%s instead of +%s", want, have);
		} else if (last && tag > last) {
			cuda_tag(last, major_only, want, sizeof want);
			append(buf, len, &pos, ", e.g. +%s instead of +%s", want, have);
		} else if (major_only && tag < first) {
			append(buf, len, &pos, "; a +%s build qualifies only if made with CUDA >= %s", have,
			       ws_cuda_str(first, c1, sizeof c1));
		} else {
			append(buf, len, &pos, "; CUDA of this +%s build can target %s, the build left it out",
			       have, t->name);
		}
	}
	return 0;
}

uint32_t ws_advise_build(const struct ws_target *t, int build_cuda, bool major_only, bool has_ptx,
			 const char *local_tag, const char *build_words, char *buf, size_t len)
{
	int first, last, tag = 0, build_hi;
	bool tag_major = false;
	char b[16], c1[16], c2[16], want[16];
	size_t pos = 0;

	if (!t || !buf || !len)
		return 0;
	buf[0] = 0;
	first = ws_first_toolkit_for_arch(t->cc, 0);
	last = ws_last_toolkit_for_arch(t->cc);
	if (!build_cuda || !first) {
		ws_advise(t, local_tag, buf, len);
		return 0;
	}
	if (local_tag)
		tag = ws_cuda_tag_parse(local_tag, &tag_major);
	if (major_only)
		snprintf(b, sizeof b, "%d.x", build_cuda / 1000);
	else
		ws_cuda_str(build_cuda, b, sizeof b);
	/* how sure the version is: "12.5 or 12.6 (from its PTX ISA 8.5)" when only the PTX said */
	const char *bw = build_words ? build_words : b;
	/* build_words: the version is a lower bound (read from the PTX ISA): only "may predate" */
	build_hi = build_words ? INT_MAX : major_only ? build_cuda + 990 : build_cuda;
	if (build_hi < first || ((major_only || build_words) && build_cuda < first)) {
		/* doc/compat-rules.md §6: the toolkit that built it cannot emit code for this GPU */
		append(buf, len, &pos, "built with CUDA %s, which %s %s (CUDA %s+): ", bw,
		       build_hi < first ? "predates" : "may predate", t->name, ws_cuda_str(first, c1, sizeof c1));
		if (tag) {
			cuda_tag(first, tag_major, want, sizeof want);
			append(buf, len, &pos, "use a +%s build", want);
		} else {
			append(buf, len, &pos, "use a build made with CUDA >= %s", c1);
		}
		return WS_R_PREDATES;
	}
	if (last && build_cuda > last) {
		/* doc/compat-rules.md §6: the toolkit that built it no longer emits code for this GPU */
		append(buf, len, &pos, "built with CUDA %s, which dropped %s (last in CUDA %s): use a build made with "
		       "CUDA %s to %s", bw, t->name, ws_cuda_str(last, c2, sizeof c2), ws_cuda_str(first, c1, sizeof c1), c2);
		if (tag) {
			cuda_tag(last, tag_major, want, sizeof want);
			append(buf, len, &pos, ", e.g. +%s", want);
		}
		return WS_R_DROPPED;
	}
	append(buf, len, &pos, "built with CUDA %s, which supports %s, but left it out and has no %sPTX: "
	       "ask for a build with %s or PTX", bw, t->name, has_ptx ? "usable " : "", t->name);
	return WS_R_LEFT_OUT;
}
