/* image_layers.c - an image's layers lie on one another: an entry of a later layer
 * replaces a lower layer's file of the same path, a whiteout ".wh.NAME" deletes it, an
 * opaque directory ".wh..wh..opq" hides all below it. The names that hide are kept as the
 * layers stream by (hashes only, HIDING_MAX of them); once the images are known, an object
 * that every image holding it has hidden is not in any final filesystem, and is set aside
 * (a->superseded) rather than judged. */
#include <stdlib.h>
#include <string.h>

#include "image_check.h"

/* "<layer>\n<path>" into key (false when it does not fit: such a path is never hidden) */
static bool hide_key(char *key, size_t len, const char *layer, size_t ll, const char *path, size_t pl)
{
	if (ll + 1 + pl >= len)
		return false;
	memcpy(key, layer, ll);
	key[ll] = '\n';
	memcpy(key + ll + 1, path, pl);
	key[ll + 1 + pl] = 0;
	return true;
}

static void hide(struct ws_imgcheck *c, struct ws_strpool *p, const char *layer, size_t ll, const char *path, size_t pl)
{
	char key[8192];
	if (c->hides.n + c->opaque.n + c->dirs.n >= HIDING_MAX) {
		c->hides_over = true;
		return;
	}
	if (hide_key(key, sizeof key, layer, ll, path, pl) && ws_strpool_intern(p, key, ll + 1 + pl) == UINT32_MAX)
		c->hides_over = true;            /* out of memory: claim nothing hidden */
}

void ws_imgcheck_entry(struct ws_imgcheck *c, const char *layer, const char *path, bool dir)
{
	if (!c || !path)
		return;
	size_t ll = strlen(layer);
	if (ll && layer[ll - 1] == '!')
		ll--;
	while (*path == '/')                    /* "/usr/lib/x" and "usr/lib/x" are one path */
		path++;
	size_t pl = strlen(path);
	while (pl > 1 && path[pl - 1] == '/')
		pl--;
	if (!pl)
		return;
	const char *slash = memrchr(path, '/', pl);
	size_t dl = slash ? (size_t)(slash - path) : 0;        /* the entry's directory */
	const char *base = slash ? slash + 1 : path;
	size_t bl = pl - (size_t)(base - path);
	if (bl >= 4 && !memcmp(base, ".wh.", 4)) {
		/* overlayfs' whiteouts as the OCI image spec writes them: ".wh..wh..opq" hides the
		 * directory's lower contents, ".wh.NAME" deletes NAME; other ".wh..wh." names are
		 * aufs' own bookkeeping */
		if (bl == 12 && !memcmp(base, ".wh..wh..opq", 12)) {
			hide(c, &c->opaque, layer, ll, path, dl);
		} else if (bl > 4 && !(bl >= 8 && !memcmp(base, ".wh..wh.", 8))) {
			char target[8192];
			if (pl < sizeof target) {
				memcpy(target, path, dl);
				size_t tl = dl;
				if (dl)
					target[tl++] = '/';
				memcpy(target + tl, base + 4, bl - 4);
				tl += bl - 4;
				hide(c, &c->hides, layer, ll, target, tl);
			}
		}
		return;
	}
	/* a directory merges with the one below, and hides a file of its own path */
	hide(c, dir ? &c->dirs : &c->hides, layer, ll, path, pl);
}

/* Lookups of layer entries one archive's supersession pass may make (a hostile archive may
 * name one layer in 1000 images of 100 layers each): past it, the objects left are judged. */
#define HIDE_LOOKUPS_MAX ((uint64_t)20 << 20)

/* Where each layer sits in each image: the layer's member names (pool index) lead to a
 * chain of (image, position) refs, the last position of a layer in an image only (a layer
 * applied twice lays its files down again). */
struct layer_refs {
	struct ws_strpool names;
	uint32_t *head;                /* names index -> first ref + 1, 0: none */
	uint32_t *image, *pos, *next;  /* per ref; next: ref + 1 */
	uint32_t n;
	uint64_t lookups;
};

/* Whether a layer of im after position k hides path p (pl bytes): replaces or deletes it
 * or a directory above it, or makes a directory above it opaque. */
static bool hidden_above(const struct ws_imgcheck *c, struct layer_refs *r, const struct ws_image *im, uint32_t k,
			 const char *p, size_t pl)
{
	char key[8192];
	for (uint32_t j = k + 1; j < im->nlayers; j++) {
		const char *ln = im->layers[j].member;
		size_t ll = strlen(ln);
		r->lookups++;
		if (hide_key(key, sizeof key, ln, ll, p, pl) && ws_strpool_find(&c->dirs, key, ll + 1 + pl) != UINT32_MAX)
			return true;                        /* a directory where the file was */
		for (size_t n = pl; n; ) {
			/* p itself, then each directory above it */
			r->lookups += 2;
			if (hide_key(key, sizeof key, ln, ll, p, n) && ws_strpool_find(&c->hides, key, ll + 1 + n) != UINT32_MAX)
				return true;
			const char *up = memrchr(p, '/', n);
			n = up ? (size_t)(up - p) : 0;
			if (hide_key(key, sizeof key, ln, ll, p, n) && ws_strpool_find(&c->opaque, key, ll + 1 + n) != UINT32_MAX)
				return true;
		}
	}
	return false;
}

/* An object in a layer that no image holding the layer keeps: a later layer of each
 * replaces or deletes its path. Images that do not hold the layer do not count; a layer
 * no image names keeps its objects. */
static bool superseded(const struct ws_imgcheck *c, struct layer_refs *r, const struct ws_artifact *a, const char *member)
{
	const char *bang = strchr(member, '!');
	if (!bang || !bang[1])
		return false;
	uint32_t li = ws_strpool_find(&r->names, member, (size_t)(bang - member));
	if (li == UINT32_MAX || !r->head[li])
		return false;
	const char *p = bang + 1;
	while (*p == '/')
		p++;
	const char *end = strchr(p, '!');                    /* a wheel's member: its wheel's path */
	size_t pl = end ? (size_t)(end - p) : strlen(p);
	for (uint32_t f = r->head[li]; f; f = r->next[f - 1])
		if (!hidden_above(c, r, &a->images[r->image[f - 1]], r->pos[f - 1], p, pl))
			return false;                       /* this image keeps it */
	return true;
}

static bool index_layers(struct layer_refs *r, const struct ws_artifact *a)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < a->nimages; i++)
		total += a->images[i].nlayers;
	if (total >= UINT32_MAX / 4)
		return false;
	uint32_t t = (uint32_t)total ? (uint32_t)total : 1;
	r->head = ws_calloc(t, sizeof *r->head);
	r->image = ws_calloc(t, sizeof *r->image);
	r->pos = ws_calloc(t, sizeof *r->pos);
	r->next = ws_calloc(t, sizeof *r->next);
	if (!r->head || !r->image || !r->pos || !r->next)
		return false;
	for (uint32_t i = 0; i < a->nimages; i++) {
		const struct ws_image *im = &a->images[i];
		for (uint32_t k = im->nlayers; k-- > 0;) {          /* last position first */
			const char *m = im->layers[k].member;
			uint32_t li = ws_strpool_intern(&r->names, m, strlen(m));
			if (li == UINT32_MAX)
				return false;
			if (r->head[li] && r->image[r->head[li] - 1] == i)
				continue;                   /* a later position of this image is in */
			r->image[r->n] = i;
			r->pos[r->n] = k;
			r->next[r->n] = r->head[li];
			r->head[li] = ++r->n;
		}
	}
	return true;
}

/* Moves the objects of no image's final filesystem out of a->objects, into a->superseded. */
void ws_imgcheck_drop_superseded(struct ws_imgcheck *c, struct ws_artifact *a)
{
	if (!c->hides.n && !c->opaque.n && !c->dirs.n)
		return;
	if (c->hides_over) {
		ws_artifact_fail(a, c->label, WS_E_LIMIT, "layers hold more than %u entries that replace or delete files: "
				  "every layer's objects are judged, also those a later layer hides", HIDING_MAX);
		return;
	}
	struct layer_refs r = { 0 };
	if (!index_layers(&r, a)) {
		ws_artifact_fail(a, c->label, WS_E_MEMORY, "out of memory: every layer's objects are judged, also those "
				  "a later layer hides");
	} else {
		uint32_t w = 0;
		for (uint32_t i = 0; i < a->nobjects; i++) {
			struct ws_object *o = &a->objects[i];
			if (r.lookups > HIDE_LOOKUPS_MAX) {
				if (r.lookups != UINT64_MAX)
					ws_artifact_fail(a, c->label, WS_E_LIMIT, "the layers' replaced and deleted files take more "
							  "than %llu lookups: the objects left are judged, also those a later layer hides",
							  (unsigned long long)HIDE_LOOKUPS_MAX);
				r.lookups = UINT64_MAX;
			} else if (o->member && superseded(c, &r, a, o->member) &&
				   ws_strv_push(&a->superseded, &a->nsuperseded, o->member)) {
				ws_object_clear(o);
				continue;
			}
			if (w != i)
				a->objects[w] = *o;
			w++;
		}
		a->nobjects = w;
	}
	ws_strpool_free(&r.names);
	free(r.head);
	free(r.image);
	free(r.pos);
	free(r.next);
}
