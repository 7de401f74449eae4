/* rank.c - for a rank of torch builds (remedy.c's ws_builds_rank): which have both their
 * companions in the table, torchvision and torchaudio, worked out once per release and
 * platform, each release a few binary searches in an index of the companion's rows
 * (ranking asked at every comparison, over the whole table, and was quadratic in rows).
 * How a companion goes with a torch is remedy.c's to say (the fit given). No I/O here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rank.h"

static bool same_name(const char *a, const char *b)
{
	return ws_pypi_name_eq(a, strlen(a), b, strlen(b));
}


/* A companion's rows, grouped by what pinned_companion() asks to be equal (platform,
 * variant, index), and within a group by how they name the torch they accept: "torch>=X"
 * (the lowest X of the group answers for all of them), "torch==X" (sorted by X, found by
 * a binary search), and a torchaudio that pins nothing (sorted by its minor series). So a
 * release costs a few binary searches, never a walk over the companion's rows (5,000
 * releases against 25,000 torchvision rows took 79 s). fit() stays the test of a row. */
enum fit_kind { FIT_AT_LEAST, FIT_EXACT, FIT_SERIES, FIT_NONE };

static enum fit_kind kind_of(const struct ws_build *r)
{
	if (!strncmp(r->requires, "torch>=", 7))
		return FIT_AT_LEAST;
	if (!strncmp(r->requires, "torch==", 7))
		return FIT_EXACT;
	if (!r->requires[0] && same_name(r->package, "torchaudio"))
		return FIT_SERIES;
	return FIT_NONE;                          /* goes with no torch */
}

/* "2.8.1" -> 3 ("2.8"), as remedy.c's same_minor() reads a series; the whole string when
 * it has no second dot. */
static size_t series_len(const char *v)
{
	const char *a = strchr(v, '.'), *b = a ? strchr(a + 1, '.') : NULL;
	return b ? (size_t)(b - v) : strlen(v);
}

static int series_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* The string a row is sorted by within its kind. */
static const char *key_of(const struct ws_build *r, enum fit_kind k)
{
	return k == FIT_SERIES ? r->version : r->requires + 7;
}

static int group_cmp(const struct ws_build *x, const struct ws_build *y)
{
	int c = strcmp(x->platform, y->platform);
	if (!c)
		c = strcmp(x->variant, y->variant);
	return c ? c : strcmp(x->index, y->index);
}

static int by_group(const void *p, const void *q)
{
	const struct ws_build *x = *(const struct ws_build *const *)p, *y = *(const struct ws_build *const *)q;
	enum fit_kind kx = kind_of(x), ky = kind_of(y);
	int c = group_cmp(x, y);
	if (c || kx != ky)
		return c ? c : (kx > ky) - (kx < ky);
	if (kx == FIT_SERIES) {
		const char *a = key_of(x, kx), *b = key_of(y, ky);
		return series_cmp(a, series_len(a), b, series_len(b));
	}
	return strcmp(key_of(x, kx), key_of(y, ky));
}

struct fit_group {
	size_t lo[FIT_NONE + 1];       /* where each kind's rows start in rows; lo[FIT_NONE] ends */
	const struct ws_build *lowest; /* the "torch>=" row of the lowest X, or NULL */
};

struct companion_ix {
	const struct ws_build **rows;  /* by group, kind, key */
	size_t n;
	struct fit_group *groups;
	size_t ngroups;
};

static int companion_ix_build(struct companion_ix *ix, const struct ws_builds *b, const char *companion)
{
	const uint32_t *rows;
	size_t n = ws_builds_of_package(b, companion, &rows);
	memset(ix, 0, sizeof *ix);
	ix->rows = ws_calloc(n ? n : 1, sizeof *ix->rows);
	ix->groups = ws_calloc(n ? n : 1, sizeof *ix->groups);
	if (!ix->rows || !ix->groups)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (kind_of(&b->rows[rows[i]]) != FIT_NONE)
			ix->rows[ix->n++] = &b->rows[rows[i]];
	qsort(ix->rows, ix->n, sizeof *ix->rows, by_group);
	for (size_t i = 0; i < ix->n;) {
		struct fit_group *g = &ix->groups[ix->ngroups++];
		size_t end = i;
		while (end < ix->n && !group_cmp(ix->rows[i], ix->rows[end]))
			end++;
		for (int k = 0; k <= FIT_NONE; k++) {
			size_t at = i;
			while (at < end && kind_of(ix->rows[at]) < (enum fit_kind)k)
				at++;
			g->lo[k] = at;
		}
		for (size_t j = g->lo[FIT_AT_LEAST]; j < g->lo[FIT_EXACT]; j++)
			if (!g->lowest || ws_version_cmp(key_of(ix->rows[j], FIT_AT_LEAST), key_of(g->lowest, FIT_AT_LEAST)) < 0)
				g->lowest = ix->rows[j];
		i = end;
	}
	return 0;
}

static void companion_ix_free(struct companion_ix *ix)
{
	free(ix->rows);
	free(ix->groups);
}

/* The first of rows[lo..hi) whose key is not below key (FIT_SERIES: by series). */
static size_t first_at(const struct companion_ix *ix, size_t lo, size_t hi, enum fit_kind k, const char *key)
{
	size_t lk = series_len(key);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = key_of(ix->rows[mid], k);
		int c = k == FIT_SERIES ? series_cmp(m, series_len(m), key, lk) : strcmp(m, key);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool group_fits(const struct companion_ix *ix, const struct fit_group *g, const struct ws_build *t,
		       ws_companion_fit_fn *fit)
{
	if (g->lowest && fit(g->lowest, t->version))
		return true;
	for (int k = FIT_EXACT; k <= FIT_SERIES; k++)
		for (size_t j = first_at(ix, g->lo[k], g->lo[k + 1], (enum fit_kind)k, t->version); j < g->lo[k + 1]; j++) {
			const char *m = key_of(ix->rows[j], (enum fit_kind)k);
			if (k == FIT_EXACT ? strcmp(m, t->version) != 0
					   : series_cmp(m, series_len(m), t->version, series_len(t->version)) != 0)
				break;
			if (fit(ix->rows[j], t->version))
				return true;
		}
	return false;
}

/* Whether the table has a companion build that goes with torch build t, as
 * pinned_companion() finds one: t's platform, variant and index, and fit(). */
static bool has_companion(const struct companion_ix *ix, const struct ws_build *t, ws_companion_fit_fn *fit, uint64_t *lookups)
{
	size_t lo = 0, hi = ix->ngroups;
	if (lookups)
		++*lookups;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (group_cmp(ix->rows[ix->groups[mid].lo[0]], t) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->ngroups && !group_cmp(ix->rows[ix->groups[lo].lo[0]], t) &&
	       group_fits(ix, &ix->groups[lo], t, fit);
}

struct release_row {
	const struct ws_build *r;
	uint32_t pos;                  /* in the rank's rows */
};

/* Builds that share a release, platform, variant and index share the answer. */
static int same_set(const struct ws_build *x, const struct ws_build *y)
{
	int c = strcmp(x->version, y->version);
	return c ? c : group_cmp(x, y);
}

static int by_release(const void *x, const void *y)
{
	const struct release_row *p = x, *q = y;
	int c = same_set(p->r, q->r);
	return c ? c : (p->pos > q->pos) - (p->pos < q->pos);
}

/* Fills s->complete for every row of platform (all when NULL): rows of one release,
 * platform, variant and index share the answer; *lookups counts the releases looked up (has_companion). */
int ws_rank_sets_fill(struct ws_rank_sets *s, const char *platform, uint64_t *lookups, ws_companion_fit_fn *fit)
{
	struct release_row *order = ws_calloc(s->n ? s->n : 1, sizeof *order);
	size_t m = 0;
	if (!order)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct ws_build *r = &s->b->rows[s->rows[i]];
		if (!platform || !strcmp(r->platform, platform))
			order[m++] = (struct release_row){r, (uint32_t)i};
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
		if (!i || same_set(order[i].r, order[i - 1].r)) {
			const struct ws_build *t = order[i].r;
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

