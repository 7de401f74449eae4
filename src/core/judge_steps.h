/* judge_steps.h - the steps of judging that live beside judge.c (judge_gaps.c: the kernels
 * no image serves; judge_advice.c: the sentences and advice; alternatives.c: groups of
 * variants by CUDA version), and the small facts all of them ask. Private to the core. */
#ifndef WS_JUDGE_STEPS_H
#define WS_JUDGE_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_compat.h"

static inline bool loadable_entry(const struct ws_entry *e)
{
	return !e->opaque && (e->kind == WS_KIND_SASS || e->kind == WS_KIND_PTX);
}

static inline bool serves(enum ws_verdict v)
{
	return v == WS_V_NATIVE || v == WS_V_COMPATIBLE || v == WS_V_JIT || v == WS_V_PTX_TOO_NEW;
}

static inline bool kernels_all_known(const struct ws_fatbin *f)
{
	for (uint32_t i = 0; i < f->nentries; i++)
		if (loadable_entry(&f->entries[i]) && (!f->entries[i].kernels_known || f->entries[i].error))
			return false;
	return true;
}

/* What rule 4 found: the serving helpers' kernels and the oldest arch of the rest. */
struct helper {
	uint32_t kernels;          /* the serving containers' kernels (for the why) */
	bool kernels_unknown;      /* some were not decoded (--no-kernels) */
	uint16_t from;             /* the oldest arch of the rest built for newer GPUs, 0 if none */
	uint16_t upto;             /* the newest arch of the rest built for older GPUs, 0 if none */
};

/* The entry the driver loads from f for t (the best SASS, else the newest PTX it can JIT), or NULL (judge_gaps.c). */
const struct ws_entry *ws_judge_picked_entry(const struct ws_fatbin *f, const struct ws_target *t, int driver_cuda);
/* The kernels of object o that no image serves on target k (judge_gaps.c). */
int ws_judge_gaps(struct ws_object *o, size_t k, const struct ws_target *t, int driver_cuda, uint8_t **mark, size_t nt);
/* The arch list of a container, "sm_50+sm_60+compute_50", without repeats (judge_advice.c). */
void ws_judge_arch_list(const struct ws_fatbin *f, char *buf, size_t len);
/* Why and advice for a failing or JIT object on target k (judge_advice.c). */
int ws_judge_describe_object(struct ws_object *o, size_t k, const struct ws_target *t, enum ws_verdict v, const struct ws_judge_opts *opt, const struct ws_wheel_info *wheel, int build_hint);
/* The CUDA runtime release object o links against (1000*major+10*minor), from the firmest
 * word there is: its cubins' ptxas notes, its file name's CUDA token, the runtime its wheel
 * pins, its local version tag, its packaging, its wheel's CUDA requirements; *source names
 * the one used. 0 when nothing says (judge_advice.c). */
int ws_judge_object_runtime(const struct ws_object *o, const struct ws_wheel_info *wheel, int build_hint,
			     const char **source);
/* The sentence for an object of link inputs only (judge_advice.c). */
int ws_judge_describe_link_only(struct ws_object *o, size_t k);
/* The sentence when only a helper serves t (judge_advice.c). */
int ws_judge_describe_helper(struct ws_judgement *j, const struct ws_target *t, const struct helper *h);
/* Groups the objects whose names differ by a CUDA version token (alternatives.c). */
int ws_judge_find_alternatives(struct ws_artifact *a);
/* An artifact judged compatible on t: which older SASS of t's major serve it (judge_advice.c) */
void ws_judge_compatible_sass(struct ws_artifact *a, size_t k, const struct ws_target *t);
/* The verdict of a group of alternatives: the best variant's (alternatives.c). */
enum ws_verdict ws_judge_group_verdict(const struct ws_artifact *a, const struct ws_altgroup *g, size_t k, int driver_cuda, uint32_t *best_obj);

#endif
