/* rank.h - between remedy.c and rank.c (src/core): which torch builds of a rank have
 * both companions in the table. */
#ifndef WS_RANK_H
#define WS_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_builds.h"

/* Whether companion build r accepts torch_version (remedy.c's fits_torch). rank.c's index
 * relies on its shape: "torch>=X" accepts every torch from X on, "torch==X" only X, and a
 * torchaudio that pins nothing only torch of its own minor series. */
typedef bool ws_companion_fit_fn(const struct ws_build *r, const char *torch_version);

/* Whether each row of a rank has both companions in the table: a set that can be
 * installed together (a newer torch without a torchaudio leaves the installed one behind,
 * mismatched). */
struct ws_rank_sets {
	const struct ws_builds *b;
	const uint32_t *rows;          /* the package's rows */
	size_t n;
	int8_t *complete;              /* per row of rows: 1 when it has both companions */
};

/* Fills s->complete (s->n entries, zeroed) for s's rows on platform (all when NULL);
 * *lookups (may be NULL) counts the releases looked up. 0, or -1 out of memory. */
int ws_rank_sets_fill(struct ws_rank_sets *s, const char *platform, uint64_t *lookups, ws_companion_fit_fn *fit);
/* Whether torch build r, one of s's rows, has both companions. */
bool ws_rank_complete(const struct ws_rank_sets *s, const struct ws_build *r);

#endif
