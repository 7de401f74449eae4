/* imagemeta.c - the JSON that describes container images: OCI image indexes
 * (index.json, and indexes in blobs), OCI and docker v2 manifests (config and layers,
 * each a descriptor with digest and size), and docker save's manifest.json (Config,
 * RepoTags, Layers). Read with the bounded reader of jsonread.c: a document is at most
 * WS_IMAGE_JSON_MAX bytes, strings 4 KiB, lists 100000 entries; whatever else a document
 * holds is stepped over. What the values mean is checked by the caller. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_image.h"
#include "ws_jsonread.h"
#include "ws_util.h"

#define STRING_MAX 4096
#define LIST_MAX 100000

bool ws_digest_valid(const char *d)
{
	if (!d || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 7 + 64)
		return false;
	for (const char *p = d + 7; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

/* A string value kept as a new allocation in *slot (replacing what was there). */
static bool string_dup(struct ws_jp *j, char **slot)
{
	char *buf = ws_malloc(STRING_MAX);
	if (!buf)
		return ws_jp_fail(j, "out of memory");
	bool ok = ws_jp_string(j, buf, STRING_MAX);
	if (ok) {
		free(*slot);
		if (!(*slot = ws_strdup(buf)))
			ok = ws_jp_fail(j, "out of memory");
	}
	free(buf);
	return ok;
}

static void desc_free(struct ws_imgdesc *d)
{
	free(d->digest);
	free(d->ref_name);
	free(d->image_name);
	memset(d, 0, sizeof *d);
	d->size = -1;
}

static bool annotation(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_imgdesc *d = ctx;
	if (!strcmp(key, "org.opencontainers.image.ref.name"))
		return string_dup(j, &d->ref_name);
	if (!strcmp(key, "io.containerd.image.name"))
		return string_dup(j, &d->image_name);
	return ws_jp_skip_value(j);
}

static bool desc_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_imgdesc *d = ctx;
	if (!strcmp(key, "digest"))
		return string_dup(j, &d->digest);
	if (!strcmp(key, "size"))
		return ws_jp_number(j, &d->size);
	if (!strcmp(key, "annotations"))
		return ws_jp_object(j, annotation, d);
	return ws_jp_skip_value(j);
}

struct list {
	struct ws_imgdesc **v;
	uint32_t *n, *cap;
};

static bool desc_item(struct ws_jp *j, void *ctx)
{
	struct list *l = ctx;
	if (*l->n >= LIST_MAX)
		return ws_jp_fail(j, "too many entries");
	if (!ws_grow((void **)l->v, l->cap, *l->n + 1, sizeof **l->v))
		return ws_jp_fail(j, "out of memory");
	struct ws_imgdesc *d = &(*l->v)[(*l->n)++];
	memset(d, 0, sizeof *d);
	d->size = -1;
	ws_jp_skip_ws(j);
	if (j->p >= j->end || *j->p != '{')
		return ws_jp_fail(j, "a descriptor is not an object");
	return ws_jp_object(j, desc_member, d);
}

static bool str_item(struct ws_jp *j, void *ctx);

struct strs {
	char ***v;
	uint32_t *n, *cap;
};

static bool rootfs_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_imgdoc *d = ctx;
	if (!strcmp(key, "diff_ids") && !d->ndiff_ids) {
		struct strs s = { &d->diff_ids, &d->ndiff_ids, &d->diff_ids_cap };
		return ws_jp_array(j, str_item, &s);
	}
	return ws_jp_skip_value(j);
}

static bool doc_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_imgdoc *d = ctx;
	if (!strcmp(key, "rootfs")) {
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == '{')
			return ws_jp_object(j, rootfs_member, d);
	}
	if (!strcmp(key, "manifests") && !d->nmanifests) {
		d->kind = WS_IMGDOC_INDEX;
		struct list l = { &d->manifests, &d->nmanifests, &d->manifests_cap };
		return ws_jp_array(j, desc_item, &l);
	}
	if (!strcmp(key, "layers") && !d->nlayers) {
		if (d->kind == WS_IMGDOC_OTHER)
			d->kind = WS_IMGDOC_MANIFEST;
		struct list l = { &d->layers, &d->nlayers, &d->layers_cap };
		return ws_jp_array(j, desc_item, &l);
	}
	if (!strcmp(key, "config")) {
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == '{') {     /* an image config's "config" is an object too */
			desc_free(&d->config);
			return ws_jp_object(j, desc_member, &d->config);
		}
	}
	return ws_jp_skip_value(j);
}

static int finish(struct ws_jp *j, bool ok, const char *what, struct ws_err *err)
{
	if (ok) {
		ws_jp_skip_ws(j);
		if (j->p != j->end)
			ok = ws_jp_fail(j, "trailing bytes");
	}
	if (ok)
		return 0;
	return ws_err_set(err, WS_E_FORMAT, "%s: %s", what, j->err[0] ? j->err : "malformed");
}

int ws_imgdoc_parse(struct ws_imgdoc *d, const char *p, size_t n, struct ws_err *err)
{
	memset(d, 0, sizeof *d);
	d->config.size = -1;
	if (n > WS_IMAGE_JSON_MAX) {
		ws_err_set(err, WS_E_LIMIT, "image JSON of %zu bytes is over the %zu-byte limit", n, WS_IMAGE_JSON_MAX);
		return -1;
	}
	struct ws_jp j = { .start = p, .p = p, .end = p + n };
	if (finish(&j, ws_jp_object(&j, doc_member, d), "image JSON", err) < 0) {
		ws_imgdoc_free(d);
		return -1;
	}
	if (d->kind == WS_IMGDOC_MANIFEST && !d->config.digest)
		d->kind = WS_IMGDOC_OTHER;              /* layers without a config: not a manifest */
	return 0;
}

void ws_imgdoc_free(struct ws_imgdoc *d)
{
	for (uint32_t i = 0; i < d->nlayers; i++)
		desc_free(&d->layers[i]);
	for (uint32_t i = 0; i < d->nmanifests; i++)
		desc_free(&d->manifests[i]);
	for (uint32_t i = 0; i < d->ndiff_ids; i++)
		free(d->diff_ids[i]);
	free(d->diff_ids);
	free(d->layers);
	free(d->manifests);
	desc_free(&d->config);
	memset(d, 0, sizeof *d);
}

/* ---- docker save's manifest.json ------------------------------------------------------ */

static bool str_item(struct ws_jp *j, void *ctx)
{
	struct strs *s = ctx;
	if (*s->n >= LIST_MAX)
		return ws_jp_fail(j, "too many entries");
	if (!ws_grow((void **)s->v, s->cap, *s->n + 1, sizeof **s->v))
		return ws_jp_fail(j, "out of memory");
	char **slot = &(*s->v)[*s->n];
	*slot = NULL;
	if (!string_dup(j, slot))
		return false;
	(*s->n)++;
	return true;
}

static bool entry_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_docker_entry *e = ctx;
	if (!strcmp(key, "Config"))
		return string_dup(j, &e->config);
	if (!strcmp(key, "RepoTags") && !e->ntags) {
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == 'n')       /* "RepoTags": null for an untagged image */
			return ws_jp_skip_value(j);
		struct strs s = { &e->tags, &e->ntags, &e->tags_cap };
		return ws_jp_array(j, str_item, &s);
	}
	if (!strcmp(key, "Layers") && !e->nlayers) {
		struct strs s = { &e->layers, &e->nlayers, &e->layers_cap };
		return ws_jp_array(j, str_item, &s);
	}
	return ws_jp_skip_value(j);
}

static bool entry_item(struct ws_jp *j, void *ctx)
{
	struct ws_docker_manifest *m = ctx;
	if (m->n >= LIST_MAX)
		return ws_jp_fail(j, "too many entries");
	if (!ws_grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v))
		return ws_jp_fail(j, "out of memory");
	struct ws_docker_entry *e = &m->v[m->n++];
	memset(e, 0, sizeof *e);
	return ws_jp_object(j, entry_member, e);
}

int ws_docker_manifest_parse(struct ws_docker_manifest *m, const char *p, size_t n, struct ws_err *err)
{
	memset(m, 0, sizeof *m);
	if (n > WS_IMAGE_JSON_MAX) {
		ws_err_set(err, WS_E_LIMIT, "manifest.json of %zu bytes is over the %zu-byte limit", n, WS_IMAGE_JSON_MAX);
		return -1;
	}
	struct ws_jp j = { .start = p, .p = p, .end = p + n };
	if (finish(&j, ws_jp_array(&j, entry_item, m), "manifest.json", err) < 0) {
		ws_docker_manifest_free(m);
		return -1;
	}
	return 0;
}

void ws_docker_manifest_free(struct ws_docker_manifest *m)
{
	for (uint32_t i = 0; i < m->n; i++) {
		struct ws_docker_entry *e = &m->v[i];
		free(e->config);
		for (uint32_t k = 0; k < e->ntags; k++)
			free(e->tags[k]);
		for (uint32_t k = 0; k < e->nlayers; k++)
			free(e->layers[k]);
		free(e->tags);
		free(e->layers);
	}
	free(m->v);
	memset(m, 0, sizeof *m);
}
