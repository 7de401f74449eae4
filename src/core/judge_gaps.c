/* judge_gaps.c - per-kernel gaps: the entry the driver would load from a container for a
 * target, and the kernels of an object that no loadable image serves there (a library
 * whose containers run, but not all of its kernels). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_steps.h"
#include "ws_util.h"

/* The entry the driver loads from f for t (doc/compat-rules.md §2: the best SASS, else the
 * newest PTX it can JIT), or NULL. */
const struct ws_entry *ws_judge_picked_entry(const struct ws_fatbin *f, const struct ws_target *t, int driver_cuda)
{
	const struct ws_entry *best = NULL;
	int best_rank = 0;
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct ws_entry *e = &f->entries[i];
		enum ws_verdict v = ws_entry_verdict(e, t, driver_cuda);
		int r = v == WS_V_NATIVE ? 3 : v == WS_V_COMPATIBLE ? 2 : v == WS_V_JIT ? 1 : 0;
		if (r && (r > best_rank || (r == best_rank && e->arch > best->arch))) {
			best = e;
			best_rank = r;
		}
	}
	return best;
}

/* Kernels that f's other images hold and the picked one lacks, as pool indices in *gap.
 * mark is a zeroed scratch array of the pool's size, left zeroed. */
static int find_gap(const struct ws_object *o, const struct ws_fatbin *f, const struct ws_entry *pick,
		    uint8_t *mark, struct ws_gap *gap)
{
	int rc = 0;
	uint32_t cap = 0;
	for (uint32_t k = 0; k < pick->nkernels; k++)
		if (pick->kernels[k] < o->kernels.n)
			mark[pick->kernels[k]] = 1;
	for (uint32_t i = 0; i < f->nentries && rc == 0; i++) {
		const struct ws_entry *e = &f->entries[i];
		if (e == pick || !loadable_entry(e))
			continue;
		for (uint32_t k = 0; k < e->nkernels; k++) {
			uint32_t x = e->kernels[k];
			if (x >= o->kernels.n || mark[x])
				continue;
			if (!ws_grow((void **)&gap->kernels, &cap, gap->n + 1u, sizeof *gap->kernels)) {
				rc = -1;
				break;
			}
			gap->kernels[gap->n++] = x;
			mark[x] = 2;
		}
	}
	for (uint32_t k = 0; k < pick->nkernels; k++)
		if (pick->kernels[k] < o->kernels.n)
			mark[pick->kernels[k]] = 0;
	for (uint32_t k = 0; k < gap->n; k++)
		mark[gap->kernels[k]] = 0;
	return rc;
}

/* Fills f->gaps[k] for every container the object needs on target k. */
int ws_judge_gaps(struct ws_object *o, size_t k, const struct ws_target *t, int driver_cuda,
		      uint8_t **mark, size_t nt)
{
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		struct ws_fatbin *f = &o->fatbins[i];
		if (f->roles[k] != WS_ROLE_REQUIRED || !serves(f->verdicts[k]) || f->nentries < 2 ||
		    !kernels_all_known(f))
			continue;
		const struct ws_entry *pick = ws_judge_picked_entry(f, t, driver_cuda);
		if (!pick)
			continue;
		if (!*mark && !(*mark = ws_calloc(o->kernels.n ? o->kernels.n : 1, 1)))
			return -1;
		if (!f->gaps && !(f->gaps = ws_calloc(nt, sizeof *f->gaps)))
			return -1;
		if (find_gap(o, f, pick, *mark, &f->gaps[k]) < 0)
			return -1;
		o->judged[k].kernel_gaps += f->gaps[k].n;
	}
	if (o->judged[k].kernel_gaps)
		o->judged[k].reasons |= WS_R_KERNEL_GAPS;
	return 0;
}
