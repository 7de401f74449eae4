/* rank.c - for a rank of torch builds (remedy.c's ws_builds_rank): which have both their
 * companions in the table, torchvision and torchaudio, worked out once per release and
 * platform, each release reading only the companion rows of its minor series (issue 40:
 * ranking asked at every comparison, over the whole table, and was quadratic in rows).
 * How a companion goes with a torch is remedy.c's to say (the fit given). No I/O here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ws_builds.h"
#include "ws_util.h"
#include "rank.h"

static bool same_name(const char *a, const char *b)
{
	return ws_pypi_name_eq(a, strlen(a), b, strlen(b));
}


/* A companion's rows that can go with some torch, by the minor series they name (the
 * torch pin of "torch==X" / "torch>=X", a torchaudio's own version): fit() is
 * nonzero only within one series, so a release looks at its series' rows, not at every
 * row (5,000 releases against 25,000 torchvision rows took 79 s). Rows whose string has
 * no series ("torch==2") are looked at for every release. fit() stays the test. */
struct companion_ix {
	const struct ws_build **rows;  /* by series */
	size_t n;
	const struct ws_build **loose;
	size_t nloose;
};

/* "2.8.1" -> 3 ("2.8"), as same_minor() reads a series; 0 when there is none. */
static size_t series_len(const char *v)
{
	const char *a = strchr(v, '.'), *b = a ? strchr(a + 1, '.') : NULL;
	return !a ? 0 : b ? (size_t)(b - v) : strlen(v);
}

static const char *series_of(const struct ws_build *r)
{
	if (!strncmp(r->requires, "torch==", 7) || !strncmp(r->requires, "torch>=", 7))
		return r->requires + 7;
	if (!r->requires[0] && same_name(r->package, "torchaudio"))
		return r->version;
	return NULL;                              /* goes with no torch */
}

static int series_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

static int by_series(const void *x, const void *y)
{
	const char *a = series_of(*(const struct ws_build *const *)x), *b = series_of(*(const struct ws_build *const *)y);
	return series_cmp(a, series_len(a), b, series_len(b));
}

static int companion_ix_build(struct companion_ix *ix, const struct ws_builds *b, const char *companion)
{
	const uint32_t *rows;
	size_t n = ws_builds_of_package(b, companion, &rows);
	memset(ix, 0, sizeof *ix);
	ix->rows = ws_calloc(n ? n : 1, sizeof *ix->rows);
	ix->loose = ws_calloc(n ? n : 1, sizeof *ix->loose);
	if (!ix->rows || !ix->loose)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &b->rows[rows[i]];
		const char *sr = series_of(r);
		if (sr && series_len(sr))
			ix->rows[ix->n++] = r;
		else if (sr)
			ix->loose[ix->nloose++] = r;
	}
	qsort(ix->rows, ix->n, sizeof *ix->rows, by_series);
	return 0;
}

static void companion_ix_free(struct companion_ix *ix)
{
	free(ix->rows);
	free(ix->loose);
}

/* Whether the table has a companion build that goes with torch build t (as
 * pinned_companion() finds one: its platform, and fit()). */
static bool has_companion(const struct companion_ix *ix, const struct ws_build *t, ws_companion_fit_fn *fit, uint64_t *lookups)
{
	size_t lv = series_len(t->version), lo = 0, hi = ix->n;
	if (lookups)
		++*lookups;
	for (size_t i = 0; i < ix->nloose; i++)
		if (!strcmp(ix->loose[i]->platform, t->platform) && fit(ix->loose[i], t->version))
			return true;
	if (!lv) {                                /* no series: every row is a candidate */
		for (size_t i = 0; i < ix->n; i++)
			if (!strcmp(ix->rows[i]->platform, t->platform) && fit(ix->rows[i], t->version))
				return true;
		return false;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *sm = series_of(ix->rows[mid]);
		if (series_cmp(sm, series_len(sm), t->version, lv) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n; lo++) {
		const char *sm = series_of(ix->rows[lo]);
		if (series_cmp(sm, series_len(sm), t->version, lv))
			break;
		if (!strcmp(ix->rows[lo]->platform, t->platform) && fit(ix->rows[lo], t->version))
			return true;
	}
	return false;
}

struct release_row {
	const char *version, *platform;
	uint32_t pos;                  /* in the rank's rows */
};

static int by_release(const void *x, const void *y)
{
	const struct release_row *p = x, *q = y;
	int c = strcmp(p->version, q->version);
	if (!c)
		c = strcmp(p->platform, q->platform);
	return c ? c : (p->pos > q->pos) - (p->pos < q->pos);
}

/* Fills s->complete for every row of platform (all when NULL): rows of one release and
 * platform share the answer; *lookups counts the releases looked up (has_companion). */
int ws_rank_sets_fill(struct ws_rank_sets *s, const char *platform, uint64_t *lookups, ws_companion_fit_fn *fit)
{
	struct release_row *order = ws_calloc(s->n ? s->n : 1, sizeof *order);
	size_t m = 0;
	if (!order)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct ws_build *r = &s->b->rows[s->rows[i]];
		if (!platform || !strcmp(r->platform, platform))
			order[m++] = (struct release_row){r->version, r->platform, (uint32_t)i};
	}
	qsort(order, m, sizeof *order, by_release);
	struct companion_ix vision = {0}, audio = {0};
	int rc = 0;
	if (companion_ix_build(&vision, s->b, "torchvision") < 0 || companion_ix_build(&audio, s->b, "torchaudio") < 0) {
		rc = -1;
		m = 0;
	}
	int8_t known = 0;
	for (size_t i = 0; i < m; i++) {
		if (!i || strcmp(order[i].version, order[i - 1].version) || strcmp(order[i].platform, order[i - 1].platform)) {
			const struct ws_build *t = &s->b->rows[s->rows[order[i].pos]];
			uint64_t none = 0;                   /* one lookup per release, both companions */
			known = has_companion(&vision, t, fit, lookups) && has_companion(&audio, t, fit, &none);
		}
		s->complete[order[i].pos] = known;
	}
	companion_ix_free(&vision);
	companion_ix_free(&audio);
	free(order);
	return rc;
}

bool ws_rank_complete(const struct ws_rank_sets *s, const struct ws_build *r)
{
	uint32_t row = (uint32_t)(r - s->b->rows);
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->rows[mid] < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->rows[lo] == row && s->complete[lo] == 1;
}

