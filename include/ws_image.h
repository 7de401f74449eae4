/* ws_image.h - container images: the JSON documents that describe them (src/core/imagemeta.c:
 * OCI image indexes and manifests, docker save's manifest.json) and the check that
 * follows an image's blobs through the member driver (src/source_image.c).
 *
 * An image is read as any tarball is, member by member, once: its layers are nested
 * sources of the driver, and an object in a layer is named by the layer's member and its
 * path inside ("blobs/sha256/<hex>!usr/lib/libx.so", "<id>/layer.tar!usr/lib/libx.so").
 * Which blobs are layers of which image is known only when the manifests are read, and
 * docker writes manifest.json last, so every blob's sha256 and size are kept (not its
 * bytes) and the images are put together after the walk. */
#ifndef WS_IMAGE_H
#define WS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

#define WS_IMAGE_JSON_MAX ((size_t)4 << 20)   /* one manifest, index or manifest.json */
#define WS_IMAGE_INDEX_DEPTH 4                /* index.json -> index -> ... -> manifest */

/* A descriptor: what an index or a manifest points at. */
struct ws_imgdesc {
	char *digest;                  /* as written: "sha256:<64 hex>" when valid */
	int64_t size;                  /* -1 when absent */
	char *ref_name;                /* org.opencontainers.image.ref.name, or NULL */
	char *image_name;              /* io.containerd.image.name (docker 25+), or NULL */
};

enum ws_imgdoc_kind { WS_IMGDOC_OTHER = 0, WS_IMGDOC_INDEX, WS_IMGDOC_MANIFEST };

/* One OCI (or docker v2) document: an index (manifests) or a manifest (config, layers).
 * Anything else that parses (a config) is OTHER. */
struct ws_imgdoc {
	enum ws_imgdoc_kind kind;
	struct ws_imgdesc config;
	struct ws_imgdesc *layers, *manifests;
	uint32_t nlayers, nmanifests, layers_cap, manifests_cap;
	char **diff_ids;               /* a config's rootfs.diff_ids: sha256 of each layer's tar */
	uint32_t ndiff_ids, diff_ids_cap;
};

/* docker save's manifest.json: one entry per image. */
struct ws_docker_entry {
	char *config;                  /* a path in the archive */
	char **tags;                   /* RepoTags */
	char **layers;                 /* paths in the archive */
	uint32_t ntags, nlayers, tags_cap, layers_cap;
};

struct ws_docker_manifest {
	struct ws_docker_entry *v;
	uint32_t n, cap;
};

/* Parse p[0..n) (at most WS_IMAGE_JSON_MAX, strict JSON, bounded depth, strings and
 * counts); 0, or -1 with a reason in err. */
int ws_imgdoc_parse(struct ws_imgdoc *d, const char *p, size_t n, struct ws_err *err);
void ws_imgdoc_free(struct ws_imgdoc *d);
int ws_docker_manifest_parse(struct ws_docker_manifest *m, const char *p, size_t n, struct ws_err *err);
void ws_docker_manifest_free(struct ws_docker_manifest *m);
/* "sha256:" and 64 lower-case hex digits: the only digests wheelscan follows. */
bool ws_digest_valid(const char *digest);

/* An OCI layout directory (holding oci-layout) is one artifact of type "image": the
 * opener's oci-layout format (src/image_layout.c, ws_open.h). */

#endif
