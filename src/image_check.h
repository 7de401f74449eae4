/* image_check.h - the image check's state, shared by its two files: source_image.c (blobs,
 * manifests and digests, the images put together) and image_layers.c (which objects a
 * later layer replaces or deletes). Private to them: callers use ws_image.h. */
#ifndef WS_IMAGE_CHECK_H
#define WS_IMAGE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_image.h"
#include "ws_imgcheck.h"
#include "ws_source.h"
#include "ws_util.h"

#define LAYOUT_MAX 4096                     /* oci-layout: {"imageLayoutVersion": "1.0.0"} */
/* what one archive's manifests may make us follow: each descriptor costs a lookup, each
 * layer an entry in the report, and an index may name itself many times over */
#define IMAGES_MAX 1000
/* Names (tags) kept per image (a 4 MiB manifest.json can tag one config 90,000 times),
 * the longest name kept (docker refuses a reference over 255 bytes) and the bytes of
 * names kept per archive: an index named many times over names every image under it
 * each time, and every name is a copy in the report. */
#define NAMES_MAX 256
#define NAME_LEN_MAX 255
#define NAME_BYTES_MAX ((size_t)1 << 20)
#define FOLLOW_MAX 100000
#define FAILS_SHOWN 32
/* Names kept of layers' entries that hide lower layers' (keyed hashes, 16 bytes or so
 * each); the member limit bounds them too. Past it, nothing is taken for superseded. */
#define HIDING_MAX ((uint32_t)1 << 22)
#define JSON_TOTAL_MAX ((size_t)16 << 20)   /* blobs' JSON parsed and kept, all of them */
#define BLOBS "blobs/sha256/"

struct blob {
	char *name;                    /* the member: "blobs/sha256/<hex>", "<id>/layer.tar" */
	char hex[65];                  /* sha256 as read; "" when the member could not be read */
	uint64_t size;
	bool archive;                  /* opened as a tarball */
	bool over;                     /* JSON past the limit */
	struct ws_imgdoc *doc;         /* parsed JSON, or NULL */
	char *doc_err;                 /* why its JSON did not parse */
	int32_t user;                  /* 1 + the first image that uses it, 0 none */
	bool said;                     /* what is wrong with it was said once */
	bool size_said;                /* a descriptor's other size for it was said once */
};

struct ws_imgcheck {
	struct ws_drive_check check;         /* first: the driver's handle (ws_source.h) */
	struct blob *v;
	uint32_t n, cap;
	bool layout, saw_index, saw_docker;
	bool have_index, have_docker;
	struct ws_imgdoc index;
	struct ws_docker_manifest docker;
	/* the walk after the members */
	struct ws_artifact *a;
	const char *label;
	bool complete;
	uint32_t followed;             /* descriptors and layers followed, all images */
	bool over;                     /* FOLLOW_MAX was reached and said */
	uint32_t nfail;                /* image errors said: a few dozen tell the story */
	size_t json_total;             /* bytes of blob JSON parsed (JSON_TOTAL_MAX) */
	/* keyed sets, so that a name or a manifest is placed in one lookup however many */
	struct ws_strpool by_manifest;  /* manifest digests: image of each in image_of */
	struct ws_strpool by_config;    /* config digests: the first image of each in image_of_config */
	struct ws_strpool names;        /* "<image index> <name>": every name given, hashes only */
	uint32_t *image_of, *image_of_config;
	uint32_t image_of_cap, image_of_config_cap;
	size_t name_bytes;              /* NAME_BYTES_MAX */
	bool long_said, names_said;
	/* "<layer>\n<path>" of every layer entry that replaces or deletes a path (a file, a
	 * link, a whiteout's target), and of every opaque directory: hashes only */
	struct ws_strpool hides, opaque, dirs;  /* dirs: a directory hides a lower file of its path */
	bool hides_over;
};

/* Once the images are known: the objects that every image holding them has replaced or
 * deleted in a later layer move from a->objects to a->superseded (image_layers.c). */
void ws_imgcheck_drop_superseded(struct ws_imgcheck *c, struct ws_artifact *a);

#endif
