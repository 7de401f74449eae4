/* source_image.c - container images: docker save archives (manifest.json, legacy
 * <id>/layer.tar or docker 25+'s OCI blobs) and OCI image layouts (oci-layout,
 * index.json, blobs/sha256/<hex>), as a tarball or as a directory.
 *
 * The tarball is walked once by the member driver (source.c) like any tarball; this check
 * rides along: it asks for the sha256 of every blob and layer as it streams, keeps the
 * JSON documents (at most WS_IMAGE_JSON_MAX each, parsed at once, their text dropped),
 * and after the walk puts the images together from index.json / manifest.json, whatever
 * order the members came in. Then every blob's digest is compared with its name, every
 * descriptor's size with the blob's, and every layer must be a blob of the archive that
 * read as a tarball. A layer is a wrapper, not a level of nesting: a wheel in a layer is
 * read (src/source.c). A directory layout is read through the files source
 * (source_files.c) and the same driver (image_layout.c); what later layers replace or
 * delete is image_layers.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_quote.h"
#include "ws_digest.h"

#include "image_check.h"

static const struct ws_drive_check_ops image_ops;

struct ws_imgcheck *ws_imgcheck_new(void)
{
	struct ws_imgcheck *c = ws_calloc(1, sizeof(struct ws_imgcheck));
	if (c)
		c->check.ops = &image_ops;
	if (c)
		c->names.hash_only = c->hides.hash_only = c->opaque.hash_only = c->dirs.hash_only = true;
	return c;
}

static bool hex64(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool ws_imgcheck_layer(const struct ws_imgcheck *c, const char *name)
{
	return c && (!strncmp(name, BLOBS, sizeof BLOBS - 1) || ws_ends_with(name, "/layer.tar"));
}

/* A member whose sha256 is wanted: a blob, a legacy layer.tar, a config "<hex>.json". */
static bool imgcheck_hash(const struct ws_imgcheck *c, const char *name)
{
	/* docker's legacy config: "<64 hex>.json" at the top */
	return ws_imgcheck_layer(c, name) || (c && ws_ends_with(name, ".json") && hex64(name, strlen(name) - 5));
}

/* The most bytes of this member to keep as JSON, once its first bytes are known. */
static size_t imgcheck_wants_text(const struct ws_imgcheck *c, const char *name, const uint8_t *head, size_t nhead)
{
	if (!c)
		return 0;
	if (!strcmp(name, "manifest.json") || !strcmp(name, "index.json"))
		return WS_IMAGE_JSON_MAX;
	if (!strcmp(name, "oci-layout"))
		return LAYOUT_MAX;
	/* a blob, or a legacy "<hex>.json" config (a legacy layer.tar is never JSON) */
	bool blob = !strncmp(name, BLOBS, sizeof BLOBS - 1);
	if (!blob && (!imgcheck_hash(c, name) || ws_imgcheck_layer(c, name)))
		return 0;
	size_t i = 0;
	while (i < nhead && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	return i < nhead && head[i] == '{' ? WS_IMAGE_JSON_MAX : 0;    /* a manifest, an index, a config */
}

static void fail_at(struct ws_artifact *a, const char *label, const char *member, enum ws_errcode code, const char *msg)
{
	char nb[WS_NAME_SHOWN], where[WS_NAME_SHOWN + 512];
	ws_sanitize(nb, sizeof nb, member, strlen(member));
	ws_fmt(where, sizeof where, "%s!%s", label, nb);
	ws_artifact_fail(a, where, code, "%s", msg);
}

void ws_imgcheck_member(struct ws_imgcheck *c, struct ws_artifact *a, const char *label, const char *name,
			const char *hex, uint64_t size, bool archive, char *text, size_t ntext, bool over)
{
	struct ws_err err = {0};
	char msg[WS_ERRMAX + 64];
	if (!c) {
		free(text);
		return;
	}
	if (!strcmp(name, "oci-layout")) {
		c->layout = true;
	} else if (!strcmp(name, "index.json") || !strcmp(name, "manifest.json")) {
		bool idx = name[0] == 'i';
		if (idx)
			c->saw_index = true;
		else
			c->saw_docker = true;
		if (over) {
			ws_fmt(msg, sizeof msg, "larger than the %zu MiB limit for image JSON", WS_IMAGE_JSON_MAX >> 20);
			fail_at(a, label, name, WS_E_LIMIT, msg);
		} else if (text && idx && !c->have_index) {
			if (ws_imgdoc_parse(&c->index, text, ntext, &err) == 0)
				c->have_index = true;
			else
				fail_at(a, label, name, err.code, err.msg);
		} else if (text && !idx && !c->have_docker) {
			if (ws_docker_manifest_parse(&c->docker, text, ntext, &err) == 0)
				c->have_docker = true;
			else
				fail_at(a, label, name, err.code, err.msg);
		}
	}
	if (imgcheck_hash(c, name) && ws_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v)) {
		struct blob *b = &c->v[c->n];
		memset(b, 0, sizeof *b);
		if ((b->name = ws_strdup(name))) {
			ws_fmt(b->hex, sizeof b->hex, "%s", hex ? hex : "");
			b->size = size;
			b->archive = archive;
			b->over = over;
			if (text && !over && c->json_total + ntext > JSON_TOTAL_MAX) {
				ws_fmt(msg, sizeof msg, "not read: the archive's image JSON passes %zu MiB in all",
				       JSON_TOTAL_MAX >> 20);
				b->doc_err = ws_strdup(msg);
			} else if (text && !over && (b->doc = ws_calloc(1, sizeof *b->doc))) {
				c->json_total += ntext;
				memset(&err, 0, sizeof err);
				if (ws_imgdoc_parse(b->doc, text, ntext, &err) < 0) {
					free(b->doc);
					b->doc = NULL;
					b->doc_err = ws_strdup(err.msg);
				}
			}
			c->n++;
		}
	}
	free(text);
}

/* ---- putting the images together ------------------------------------------------------- */

static int cmp_blob(const void *x, const void *y)
{
	return strcmp(((const struct blob *)x)->name, ((const struct blob *)y)->name);
}

static struct blob *find_blob(struct ws_imgcheck *c, const char *name)
{
	struct blob key = { .name = (char *)name };
	return c->n ? bsearch(&key, c->v, c->n, sizeof *c->v, cmp_blob) : NULL;
}

static struct blob *find_digest(struct ws_imgcheck *c, const char *digest)
{
	char name[sizeof BLOBS + 64];
	ws_fmt(name, sizeof name, BLOBS "%s", digest + 7);
	return find_blob(c, name);
}

/* The name an image goes by in messages. */
static const char *image_label(const struct ws_image *im, char *buf, size_t len)
{
	if (im && im->nnames)
		ws_sanitize(buf, len, im->names[0], strlen(im->names[0]));
	else if (im && im->manifest[0])
		ws_fmt(buf, len, "%.19s", im->manifest);
	else if (im && im->config[0])
		ws_fmt(buf, len, "%.19s", im->config);
	else
		ws_fmt(buf, len, "untagged");
	return buf;
}

/* A stranger's string, made printable and short, for a message. */
static const char *san(char *buf, size_t len, const char *s)
{
	ws_sanitize(buf, len, s ? s : "", s ? strlen(s) : 0);
	return buf;
}

static void image_fail(struct ws_imgcheck *c, const struct ws_image *im, const char *member, enum ws_errcode code,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void image_fail(struct ws_imgcheck *c, const struct ws_image *im, const char *member, enum ws_errcode code,
		       const char *fmt, ...)
{
	char nb[WS_NAME_SHOWN], il[WS_NAME_SHOWN], msg[WS_ERRMAX], where[WS_NAME_SHOWN + 512];
	if (++c->nfail > FAILS_SHOWN) {
		if (c->nfail == FAILS_SHOWN + 1)
			ws_artifact_fail(c->a, c->label, code, "more errors in the image's manifests, not listed");
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (member)
		ws_fmt(where, sizeof where, "%s!%s", c->label, san(nb, sizeof nb, member));
	else
		ws_fmt(where, sizeof where, "%s", c->label);
	ws_artifact_fail(c->a, where, code, "image %s: %s", image_label(im, il, sizeof il), msg);
}

/* Counts one descriptor or layer followed; false past the bound (said once). */
static bool follow(struct ws_imgcheck *c)
{
	if (++c->followed <= FOLLOW_MAX)
		return true;
	if (!c->over)
		ws_artifact_fail(c->a, c->label, WS_E_LIMIT, "manifests name more than %u images, indexes and layers",
				  FOLLOW_MAX);
	c->over = true;
	return false;
}

static struct ws_image *new_image(struct ws_imgcheck *c, uint32_t *cap)
{
	struct ws_artifact *a = c->a;
	if (a->nimages >= IMAGES_MAX) {
		if (!c->over)
			ws_artifact_fail(a, c->label, WS_E_LIMIT, "more than %u images", IMAGES_MAX);
		c->over = true;
		return NULL;
	}
	if (!ws_grow((void **)&a->images, cap, a->nimages + 1, sizeof *a->images))
		return NULL;
	struct ws_image *im = &a->images[a->nimages++];
	memset(im, 0, sizeof *im);
	return im;
}

/* Gives im the name, unless it has it, or the name or the archive's names are past
 * their bounds (said once each: the report lists fewer names than the archive gives). */
static void add_name(struct ws_imgcheck *c, struct ws_image *im, const char *name)
{
	if (!name || !*name || im->nnames >= NAMES_MAX)
		return;
	size_t len = strlen(name);
	if (len > NAME_LEN_MAX) {
		if (!c->long_said)
			image_fail(c, im, NULL, WS_E_LIMIT, "a name of %zu bytes is not kept (at most %d)", len, NAME_LEN_MAX);
		c->long_said = true;
		return;
	}
	char key[16 + NAME_LEN_MAX + 1];
	int kl = snprintf(key, sizeof key, "%u %s", (unsigned)(im - c->a->images), name);
	uint32_t n0 = c->names.n;
	if (kl < 0 || (size_t)kl >= sizeof key || ws_strpool_find(&c->names, key, (size_t)kl) != UINT32_MAX)
		return;
	if (c->name_bytes + len + 1 > NAME_BYTES_MAX) {
		if (!c->names_said)
			ws_artifact_fail(c->a, c->label, WS_E_LIMIT, "image names pass %zu KiB in all; the rest are not listed",
					  NAME_BYTES_MAX >> 10);
		c->names_said = true;
		return;
	}
	if (ws_strpool_intern(&c->names, key, (size_t)kl) == UINT32_MAX || c->names.n == n0)
		return;
	char **v = realloc(im->names, (im->nnames + 1) * sizeof *v);
	if (!v)
		return;
	im->names = v;
	if ((v[im->nnames] = ws_strdup(name))) {
		im->nnames++;
		c->name_bytes += len + 1;
	}
}

/* The image already made of a manifest (by_manifest) or with a config (by_config), or
 * NULL. */
static struct ws_image *image_by(struct ws_imgcheck *c, const struct ws_strpool *p, const uint32_t *of, const char *digest)
{
	uint32_t i = ws_strpool_find(p, digest, strlen(digest));
	return i == UINT32_MAX ? NULL : &c->a->images[of[i]];
}

/* Files image idx under digest in p, unless an earlier image holds it. */
static void image_file(struct ws_strpool *p, uint32_t **of, uint32_t *cap, const char *digest, uint32_t idx)
{
	uint32_t n0 = p->n;
	if (!digest[0] || !ws_grow((void **)of, cap, n0 + 1, sizeof **of))
		return;
	uint32_t i = ws_strpool_intern(p, digest, strlen(digest));
	if (i != UINT32_MAX && p->n > n0)
		(*of)[i] = idx;
}

/* A layer of im: the blob must be there, of the size the manifest gives, and a tarball. */
static void add_layer(struct ws_imgcheck *c, struct ws_image *im, struct blob *b, const char *member, int64_t size)
{
	char sb[WS_NAME_SHOWN];
	uint32_t idx = (uint32_t)(im - c->a->images);
	if (!follow(c))
		return;
	if (!b) {
		if (c->complete)
			image_fail(c, im, NULL, WS_E_FORMAT, "layer %s is not in the archive", san(sb, sizeof sb, member));
		return;
	}
	if (!b->user)
		b->user = (int32_t)idx + 1;
	struct ws_image_layer *v = realloc(im->layers, (im->nlayers + 1) * sizeof *v);
	if (!v)
		return;
	im->layers = v;
	struct ws_image_layer *l = &v[im->nlayers];
	memset(l, 0, sizeof *l);
	if (!(l->member = ws_strdup(b->name)))
		return;
	im->nlayers++;
	l->size = b->size;
	if (!b->hex[0])
		return;                             /* not read: its error is said */
	ws_fmt(l->digest, sizeof l->digest, "sha256:%s", b->hex);
	if (size >= 0 && (uint64_t)size != b->size)
		image_fail(c, im, b->name, WS_E_INTEGRITY, "layer is %llu bytes, not the %lld its manifest gives",
			   (unsigned long long)b->size, (long long)size);
	if (!b->archive)
		image_fail(c, im, b->name, WS_E_FORMAT, "layer is not a tar archive");
}

/* A descriptor's digest must be one wheelscan follows, and its blob in the archive. */
static struct blob *descriptor_blob(struct ws_imgcheck *c, const struct ws_image *im, const struct ws_imgdesc *d,
				    const char *what)
{
	char sb[WS_NAME_SHOWN];
	if (!ws_digest_valid(d->digest)) {
		image_fail(c, im, NULL, WS_E_FORMAT, "%s digest '%s' is not sha256:<64 hex>", what, san(sb, sizeof sb, d->digest));
		return NULL;
	}
	struct blob *b = find_digest(c, d->digest);
	if (!b && c->complete)
		image_fail(c, im, NULL, WS_E_FORMAT, "%s %s is not in the archive", what, d->digest);
	/* bytes that do not hash to the digest are not the document it names: not followed
	 * (check_digests says so once), so no index can name itself, and a blob named by many
	 * descriptors costs one message, not one per path to it */
	if (b && b->hex[0] && strcmp(b->hex, d->digest + 7))
		return NULL;
	if (b && b->hex[0] && d->size >= 0 && (uint64_t)d->size != b->size && !b->size_said &&
	    (b->size_said = true))
		image_fail(c, im, b->name, WS_E_INTEGRITY, "%s is %llu bytes, not the %lld its descriptor gives", what,
			   (unsigned long long)b->size, (long long)d->size);
	return b;
}

/* One descriptor of an index: a manifest (an image) or an index (depth more). */
static void resolve(struct ws_imgcheck *c, const struct ws_imgdesc *d, const char *name, int depth, uint32_t *cap)
{
	const char *nm = d->image_name ? d->image_name : d->ref_name ? d->ref_name : name;
	struct ws_image probe = { 0 };
	if (!follow(c))
		return;
	char *names[1] = { (char *)nm };
	if (nm) {
		probe.names = names;
		probe.nnames = 1;
	} else if (ws_digest_valid(d->digest)) {
		ws_fmt(probe.manifest, sizeof probe.manifest, "%s", d->digest);
	}
	struct blob *b = descriptor_blob(c, &probe, d, "manifest");
	if (!b)
		return;
	if (b->said)
		return;                             /* named again by another index */
	if (!b->doc) {
		b->said = true;
		if (b->over)
			image_fail(c, &probe, b->name, WS_E_LIMIT, "manifest is larger than the %zu MiB limit for image JSON",
				   WS_IMAGE_JSON_MAX >> 20);
		else if (b->hex[0])
			image_fail(c, &probe, b->name, WS_E_FORMAT, "manifest: %s", b->doc_err ? b->doc_err : "not JSON");
		return;
	}
	if (b->doc->kind == WS_IMGDOC_INDEX) {
		if (depth >= WS_IMAGE_INDEX_DEPTH) {
			b->said = true;
			image_fail(c, &probe, b->name, WS_E_FORMAT, "image indexes nested more than %d deep", WS_IMAGE_INDEX_DEPTH);
			return;
		}
		for (uint32_t i = 0; i < b->doc->nmanifests && !c->over; i++)
			resolve(c, &b->doc->manifests[i], nm, depth + 1, cap);
		return;
	}
	if (b->doc->kind != WS_IMGDOC_MANIFEST) {
		b->said = true;
		image_fail(c, &probe, b->name, WS_E_FORMAT, "not an image manifest or index");
		return;
	}
	/* one manifest under several names (a tag each) is one image */
	struct ws_image *im = image_by(c, &c->by_manifest, c->image_of, d->digest);
	if (im) {
		add_name(c, im, nm);
		return;
	}
	if (!(im = new_image(c, cap)))
		return;
	uint32_t idx = (uint32_t)(im - c->a->images);
	ws_fmt(im->manifest, sizeof im->manifest, "%s", d->digest);
	add_name(c, im, nm);
	image_file(&c->by_manifest, &c->image_of, &c->image_of_cap, im->manifest, idx);
	if (!b->user)
		b->user = (int32_t)idx + 1;
	const struct ws_imgdoc *m = b->doc;
	struct blob *cb = descriptor_blob(c, im, &m->config, "config");
	if (cb) {
		ws_fmt(im->config, sizeof im->config, "%s", m->config.digest);
		image_file(&c->by_config, &c->image_of_config, &c->image_of_config_cap, im->config, idx);
		if (!cb->user)
			cb->user = (int32_t)idx + 1;
	}
	for (uint32_t i = 0; i < m->nlayers && !c->over; i++) {
		const struct ws_imgdesc *ld = &m->layers[i];
		im = &c->a->images[idx];
		struct blob *lb = ws_digest_valid(ld->digest) ? find_digest(c, ld->digest) : NULL;
		char sb[WS_NAME_SHOWN];
		if (!ws_digest_valid(ld->digest))
			image_fail(c, im, NULL, WS_E_FORMAT, "layer digest '%s' is not sha256:<64 hex>", san(sb, sizeof sb, ld->digest));
		else
			add_layer(c, im, lb, ld->digest, ld->size);
	}
}

/* "blobs/sha256/<hex>" or "<hex>.json" -> "sha256:<hex>"; else "". */
static void digest_of_path(const char *path, char out[72])
{
	out[0] = 0;
	size_t n = strlen(path);
	if (!strncmp(path, BLOBS, sizeof BLOBS - 1) && hex64(path + sizeof BLOBS - 1, n - (sizeof BLOBS - 1)))
		ws_fmt(out, 72, "sha256:%s", path + sizeof BLOBS - 1);
	else if (ws_ends_with(path, ".json") && hex64(path, n - 5))
		ws_fmt(out, 72, "sha256:%.64s", path);
}

static void docker_images(struct ws_imgcheck *c, uint32_t *cap)
{
	for (uint32_t i = 0; i < c->docker.n && follow(c); i++) {
		const struct ws_docker_entry *e = &c->docker.v[i];
		char config[72] = "", sb[WS_NAME_SHOWN];
		if (e->config)
			digest_of_path(e->config, config);
		/* docker 25+ writes index.json too: the same image, named by its tags here */
		struct ws_image *im = config[0] ? image_by(c, &c->by_config, c->image_of_config, config) : NULL;
		if (im) {
			for (uint32_t k = 0; k < e->ntags; k++)
				add_name(c, im, e->tags[k]);
			continue;
		}
		if (!(im = new_image(c, cap)))
			return;
		uint32_t idx = (uint32_t)(im - c->a->images);
		for (uint32_t k = 0; k < e->ntags; k++)
			add_name(c, &c->a->images[idx], e->tags[k]);
		im = &c->a->images[idx];
		if (e->config) {
			struct blob *cb = ws_path_escapes(e->config, false) ? NULL : find_blob(c, e->config);
			if (ws_path_escapes(e->config, false))
				image_fail(c, im, NULL, WS_E_FORMAT, "config '%s' points outside the archive", san(sb, sizeof sb, e->config));
			else if (!cb && c->complete)
				image_fail(c, im, NULL, WS_E_FORMAT, "config %s is not in the archive", san(sb, sizeof sb, e->config));
			else if (cb && !cb->user)
				cb->user = (int32_t)idx + 1;
			memcpy(im->config, config, sizeof im->config);
			image_file(&c->by_config, &c->image_of_config, &c->image_of_config_cap, im->config, idx);
		}
		/* the legacy layout's only checksums: the config's diff_ids, one per layer.tar */
		const struct blob *cb = e->config && !ws_path_escapes(e->config, false) ? find_blob(c, e->config) : NULL;
		const struct ws_imgdoc *cfg = cb ? cb->doc : NULL;
		bool diff_ids = cfg && cfg->ndiff_ids == e->nlayers;
		for (uint32_t k = 0; k < e->nlayers && !c->over; k++) {
			im = &c->a->images[idx];
			const char *lp = e->layers[k];
			if (ws_path_escapes(lp, false)) {
				image_fail(c, im, NULL, WS_E_FORMAT, "layer '%s' points outside the archive", san(sb, sizeof sb, lp));
				continue;
			}
			struct blob *lb = find_blob(c, lp);
			add_layer(c, im, lb, lp, -1);
			if (diff_ids && lb && lb->hex[0] && ws_ends_with(lp, "/layer.tar") &&
			    (strncmp(cfg->diff_ids[k], "sha256:", 7) != 0 || strcmp(cfg->diff_ids[k] + 7, lb->hex) != 0))
				image_fail(c, im, lb->name, WS_E_INTEGRITY, "layer's sha256 is %.12s..., not the diff_id %.19s... its config gives",
					   lb->hex, san(sb, sizeof sb, cfg->diff_ids[k]));
		}
	}
}

/* Every blob named by its digest must hash to it; so must a legacy "<hex>.json" config. */
static void check_digests(struct ws_imgcheck *c)
{
	char want[72], msg[WS_ERRMAX];
	for (uint32_t i = 0; i < c->n; i++) {
		const struct blob *b = &c->v[i];
		if (!b->hex[0])
			continue;
		if (!strncmp(b->name, BLOBS, sizeof BLOBS - 1) &&
		    !hex64(b->name + sizeof BLOBS - 1, strlen(b->name) - (sizeof BLOBS - 1))) {
			fail_at(c->a, c->label, b->name, WS_E_FORMAT, "blob name is not a sha256 digest");
			continue;
		}
		digest_of_path(b->name, want);
		if (!want[0] || !strcmp(want + 7, b->hex))
			continue;
		char il[WS_NAME_SHOWN];
		const struct ws_image *im = b->user ? &c->a->images[b->user - 1] : NULL;
		ws_fmt(msg, sizeof msg, "blob's sha256 is %.12s..., not the %.19s... its name gives%s%s", b->hex, want,
		       im ? " (image " : "", im ? image_label(im, il, sizeof il) : "");
		if (im)
			strncat(msg, ")", sizeof msg - strlen(msg) - 1);
		fail_at(c->a, c->label, b->name, WS_E_INTEGRITY, msg);
	}
}

void ws_imgcheck_finish(struct ws_imgcheck *c, struct ws_artifact *a, const char *label, bool complete)
{
	if (!c || !(c->saw_docker || c->layout))
		return;                             /* a tarball, not an image */
	a->type = WS_ART_IMAGE;
	c->a = a;
	c->complete = complete;
	c->label = label;
	if (c->n)
		qsort(c->v, c->n, sizeof *c->v, cmp_blob);
	uint32_t cap = 0;
	if (c->layout && !c->saw_index && c->complete)
		ws_artifact_error(a, label, "OCI image layout without index.json");
	if (c->have_index)
		for (uint32_t i = 0; i < c->index.nmanifests && !c->over; i++)
			resolve(c, &c->index.manifests[i], NULL, 1, &cap);
	if (c->have_docker)
		docker_images(c, &cap);
	check_digests(c);
	ws_imgcheck_drop_superseded(c, a);
}

void ws_imgcheck_free(struct ws_imgcheck *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		if (c->v[i].doc)
			ws_imgdoc_free(c->v[i].doc);
		free(c->v[i].doc);
		free(c->v[i].doc_err);
	}
	free(c->v);
	ws_strpool_free(&c->by_manifest);
	ws_strpool_free(&c->by_config);
	ws_strpool_free(&c->names);
	ws_strpool_free(&c->hides);
	ws_strpool_free(&c->opaque);
	ws_strpool_free(&c->dirs);
	free(c->image_of);
	free(c->image_of_config);
	if (c->have_index)
		ws_imgdoc_free(&c->index);
	if (c->have_docker)
		ws_docker_manifest_free(&c->docker);
	free(c);
}

/* ---- the check's face to the driver (struct ws_drive_check) --------------------------------- */

struct ws_drive_check *ws_imgcheck_check(struct ws_imgcheck *c)
{
	return c ? &c->check : NULL;
}

static struct ws_imgcheck *img_of(struct ws_drive_check *c)
{
	return (struct ws_imgcheck *)c;
}

static const char *img_algo(struct ws_drive_check *c, const char *name)
{
	return imgcheck_hash(img_of(c), name) ? "sha256" : NULL;
}

static size_t img_wants_text(struct ws_drive_check *c, const char *name, const uint8_t *head, size_t nhead)
{
	return imgcheck_wants_text(img_of(c), name, head, nhead);
}

/* A member known: read to its end (its digest, and its JSON when it asked for it), or not
 * read (no digest to hold it to). */
static void img_member(struct ws_drive_check *c, struct ws_artifact *a, const char *label, struct ws_told *t)
{
	char hex[WS_DIGEST_MAX * 2 + 1] = "";
	char *text = t->text;
	t->text = NULL;
	if (t->state != WS_MEMBER_READ) {
		free(text);
		ws_imgcheck_member(img_of(c), a, label, t->name, "", t->size, t->archive, NULL, 0, false);
		return;
	}
	if (t->dl && t->dl <= 32)
		ws_hex(t->md, t->dl, hex);
	if (t->text_max)
		ws_imgcheck_member(img_of(c), a, label, t->name, hex, t->size, t->archive, text, t->ntext, t->text_over);
	else {
		free(text);
		ws_imgcheck_member(img_of(c), a, label, t->name, hex, t->size, t->archive, NULL, 0, false);
	}
}

static void img_finish(struct ws_drive_check *c, struct ws_artifact *a, const char *label, bool complete)
{
	ws_imgcheck_finish(img_of(c), a, label, complete);
}

static void img_free(struct ws_drive_check *c)
{
	ws_imgcheck_free(img_of(c));
}

static bool img_layer(struct ws_drive_check *c, const char *name)
{
	return ws_imgcheck_layer(img_of(c), name);
}

static void img_entry(struct ws_drive_check *c, const char *layer, const char *path, bool dir)
{
	ws_imgcheck_entry(img_of(c), layer, path, dir);
}

static const struct ws_drive_check_ops image_ops = {
	.algo = img_algo, .wants_text = img_wants_text, .member = img_member, .finish = img_finish,
	.free = img_free, .layer = img_layer, .entry = img_entry,
};
