/* loadindex.c - the provider index of the load resolution (ws_loadres.h): every shared
 * object of the environment by its normalised path and by its soname (or file name), each
 * an open-addressing table keyed by the keyed hash of ws_hash64, so that resolving a needed
 * library is one probe. Paths are the installed ones: a wheel's .data/purelib and
 * .data/platlib folders are the site folder. */
#include <stdlib.h>
#include <string.h>

#include "ws_loadres.h"
#include "ws_util.h"
#include "loadres_state.h"

/* ---- paths ------------------------------------------------------------------- */

/* "pkg-1.0.data/platlib/x/y.so" -> "x/y.so": a wheel's install scheme folders are the site
 * folder once installed */
const char *ws_load_installed_path(const char *m)
{
	const char *d = strstr(m, ".data/");
	if (d && !memchr(m, '/', (size_t)(d - m))) {
		const char *r = d + 6;
		if (!strncmp(r, "purelib/", 8))
			return r + 8;
		if (!strncmp(r, "platlib/", 8))
			return r + 8;
	}
	return m;
}

/* Normalises "a/./b/../c" in place; false when ".." leaves the root (outside). */
bool ws_load_normalise(char *p)
{
	size_t starts[512], depth = 0, o = 0;
	const char *seg = p;
	char *out = p;
	while (*seg) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			if (!depth)
				return false;
			o = starts[--depth];
		} else if (len && !(len == 1 && seg[0] == '.')) {
			if (depth >= sizeof starts / sizeof *starts)
				return false;
			starts[depth++] = o;
			if (o)
				out[o++] = '/';
			memmove(out + o, seg, len);   /* o never passes seg: the output only shrinks */
			o += len;
		}
		if (!end)
			break;
		seg = end + 1;
	}
	out[o] = 0;
	return true;
}

void ws_load_lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static uint64_t key_hash(const char *s)
{
	return ws_hash64(s, strlen(s));
}

static uint32_t *slot(uint32_t *tab, size_t cap, const struct ent *e, const char *k, bool by_path)
{
	size_t i = (size_t)key_hash(k) & (cap - 1);
	for (;; i = (i + 1) & (cap - 1)) {
		if (!tab[i])
			return &tab[i];
		const struct ent *x = &e[tab[i] - 1];
		if (!strcmp(by_path ? x->path : x->key, k))
			return &tab[i];
	}
}

const struct ent *ws_load_by_path(const struct index *ix, const char *path)
{
	uint32_t *s = slot(ix->by_path, ix->cap, ix->e, path, true);
	return *s ? &ix->e[*s - 1] : NULL;
}

uint32_t ws_load_first_of_key(const struct index *ix, const char *k)
{
	uint32_t *s = slot(ix->by_key, ix->cap, ix->e, k, false);
	return *s;
}

/* ---- the index ------------------------------------------------------------------ */


int ws_load_index_build(struct index *ix, const struct ws_load_dist *d, size_t nd)
{
	size_t n = 0;
	for (size_t i = 0; i < nd; i++)
		n += d[i].nlibs;
	if (n >= UINT32_MAX / 4)
		return -1;
	ix->e = ws_calloc(n ? n : 1, sizeof *ix->e);
	ix->cap = 16;
	while (ix->cap < 2 * n)
		ix->cap *= 2;
	ix->by_path = ws_calloc(ix->cap, sizeof *ix->by_path);
	ix->by_key = ws_calloc(ix->cap, sizeof *ix->by_key);
	ix->seen = ws_calloc(n ? n : 1, sizeof *ix->seen);
	ix->needers = ws_calloc(n ? n : 1, sizeof *ix->needers);
	if (!ix->e || !ix->by_path || !ix->by_key || !ix->seen || !ix->needers)
		return -1;
	for (size_t i = 0; i < nd; i++)
		for (uint32_t k = 0; k < d[i].nlibs; k++) {
			const struct ws_dynlib *l = &d[i].libs[k];
			if (!l->member)
				continue;
			struct ent *e = &ix->e[ix->n];
			e->dist = i;
			e->lib = l;
			if (!(e->path = ws_strdup(ws_load_installed_path(l->member))))
				return -1;
			if (l->pe)
				ws_load_lower(e->path);
			if (!ws_load_normalise(e->path) || !e->path[0]) {
				free(e->path);            /* a name that leaves its root: not indexed */
				e->path = NULL;
				continue;
			}
			const char *base = strrchr(e->path, '/');
			base = base ? base + 1 : e->path;
			e->key = l->soname && !l->pe ? l->soname : base;
			uint32_t *ps = slot(ix->by_path, ix->cap, ix->e, e->path, true);
			if (*ps) {
				free(e->path);            /* the same path twice (two wheels of one dist) */
				e->path = NULL;
				continue;
			}
			*ps = (uint32_t)ix->n + 1;
			uint32_t *ks = slot(ix->by_key, ix->cap, ix->e, e->key, false);
			if (*ks) {                        /* append: dist order decides which is first */
				struct ent *x = &ix->e[*ks - 1];
				while (x->next_key)
					x = &ix->e[x->next_key - 1];
				x->next_key = (uint32_t)ix->n + 1;
			} else {
				*ks = (uint32_t)ix->n + 1;
			}
			ix->n++;
		}
	return 0;
}

