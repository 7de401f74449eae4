/* alternatives.c - groups of alternatives: objects whose names differ only by a CUDA
 * version token (libfoo_cuda118.so, libfoo_cuda121.so: the user's CUDA runtime loads one),
 * and a group's verdict, the best variant's. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_steps.h"
#include "ws_util.h"

/* Finds a CUDA version token in a file name: "cuda118", "cu124", "cu12" standing alone
 * (not inside a longer word or number). Sets *at and *len to the digits. */
static int cuda_token(const char *name, size_t *at, size_t *len, bool *major_only)
{
	for (size_t i = 0; name[i]; i++) {
		if (tolower((unsigned char)name[i]) != 'c' || tolower((unsigned char)name[i + 1]) != 'u')
			continue;
		if (i > 0 && isalnum((unsigned char)name[i - 1]) && !isdigit((unsigned char)name[i - 1]))
			continue;
		size_t d = i + 2;
		if (!strncasecmp(name + d, "da", 2))
			d += 2;
		size_t n = 0;
		while (isdigit((unsigned char)name[d + n]))
			n++;
		if (n < 2 || n > 3 || isalpha((unsigned char)name[d + n]))
			continue;
		char tag[8];
		snprintf(tag, sizeof tag, "cu%.*s", (int)n, name + d);
		int v = ws_cuda_tag_parse(tag, major_only);
		if (!v)
			continue;
		*at = d;
		*len = n;
		return v;
	}
	return 0;
}

struct alt_key {
	char *key;
	uint32_t obj;
	int cuda;
};

static int cmp_alt(const void *x, const void *y)
{
	const struct alt_key *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return a->cuda < b->cuda ? -1 : a->cuda > b->cuda;
}

int ws_judge_find_alternatives(struct ws_artifact *a)
{
	struct alt_key *v = ws_calloc(a->nobjects ? a->nobjects : 1, sizeof *v);
	size_t n = 0;
	uint32_t alts_cap = a->nalts;        /* the room known to be in a->alts */
	int rc = -1;
	if (!v)
		return -1;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		struct ws_object *o = &a->objects[i];
		size_t at, len;
		bool major_only;
		if (!o->member || !o->nfatbins)
			continue;
		const char *base = strrchr(o->member, '/');
		base = base ? base + 1 : o->member;
		int cuda = cuda_token(base, &at, &len, &major_only);
		if (!cuda)
			continue;
		size_t off = (size_t)(base - o->member) + at;
		char *key = ws_strdup(o->member);
		if (!key)
			goto out;
		memset(key + off, '*', len);
		memmove(key + off + 1, key + off + len, strlen(key + off + len) + 1);
		v[n++] = (struct alt_key){key, i, cuda};
		o->alt_cuda = cuda;
		o->alt_major_only = major_only;
	}
	qsort(v, n, sizeof *v, cmp_alt);
	for (size_t s = 0, e; s < n; s = e) {
		bool distinct = false;
		for (e = s + 1; e < n && !strcmp(v[e].key, v[s].key); e++)
			distinct |= v[e].cuda != v[s].cuda;
		if (!distinct)
			continue;
		if (!ws_grow((void **)&a->alts, &alts_cap, a->nalts + 1u, sizeof *a->alts))
			goto out;
		struct ws_altgroup *g = &a->alts[a->nalts];
		memset(g, 0, sizeof *g);
		if (!(g->objects = ws_calloc(e - s, sizeof *g->objects)))
			goto out;
		g->pattern = v[s].key;
		v[s].key = NULL;
		a->nalts++;
		for (size_t x = s; x < e; x++) {
			g->objects[g->n++] = v[x].obj;
			a->objects[v[x].obj].alt_group = a->nalts;
		}
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
	return rc;
}

/* The verdict of a group: the best variant's (one is loaded; the user's CUDA runtime picks
 * it). With a known driver, variants of a newer CUDA major than the driver's cannot load. */
enum ws_verdict ws_judge_group_verdict(const struct ws_artifact *a, const struct ws_altgroup *g, size_t k,
				     int driver_cuda, uint32_t *best_obj)
{
	enum ws_verdict best = WS_V_NONE;
	for (int pass = 0; pass < 2 && best == WS_V_NONE; pass++)
		for (uint32_t i = 0; i < g->n; i++) {
			const struct ws_object *o = &a->objects[g->objects[i]];
			enum ws_verdict v = o->verdicts[k];
			if (v == WS_V_NONE || (pass == 0 && driver_cuda > 0 && o->alt_cuda / 1000 > driver_cuda / 1000))
				continue;
			if (best == WS_V_NONE || ws_verdict_rank(v) <= ws_verdict_rank(best)) {
				best = v;
				*best_obj = g->objects[i];
			}
		}
	return best;
}
