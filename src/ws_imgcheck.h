/* ws_imgcheck.h - the image check over the member driver (src/source_image.c, src/image_layers.c): every
 * blob followed by digest, the images put together after the walk */
#ifndef WS_IMGCHECK_H
#define WS_IMGCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

/* ---- the check over the member driver (src/source_image.c) ---------------------------- */

struct ws_imgcheck;
struct ws_imgcheck *ws_imgcheck_new(void);
/* A member that is a layer's wrapper, not a level of nesting: blobs and layer.tar. */
bool ws_imgcheck_layer(const struct ws_imgcheck *c, const char *name);
/* A member read to its end: hex its sha256 ("" when not hashed), its size, whether it was
 * opened as an archive, and its JSON text (malloc'd, taken over; NULL when none, or too
 * large: over set). */
void ws_imgcheck_member(struct ws_imgcheck *c, struct ws_artifact *a, const char *label, const char *name,
			const char *hex, uint64_t size, bool archive, char *text, size_t ntext, bool over);
/* An entry of a layer (layer: the layer's member; path: the entry's name inside it, any
 * type; dir: a directory). Only the names that hide what lower layers hold are kept (a
 * file, a link, a whiteout ".wh.NAME", an opaque directory's ".wh..wh..opq"), as keyed
 * hashes: once the images are known, an object in a layer whose path a later layer of
 * every image that holds it replaces or deletes is not in the image's final filesystem,
 * and is moved out of the judged objects into a->superseded (src/image_layers.c). */
void ws_imgcheck_entry(struct ws_imgcheck *c, const char *layer, const char *path, bool dir);
/* Once the members are read: when the archive is an image (manifest.json, or oci-layout),
 * sets a->type "image" and a->images, and records what does not hold (digests, sizes,
 * missing blobs, layers that are not tarballs) on a. complete: every member was read (a
 * walk stopped at a limit says nothing of blobs it did not reach). */
void ws_imgcheck_finish(struct ws_imgcheck *c, struct ws_artifact *a, const char *label, bool complete);
void ws_imgcheck_free(struct ws_imgcheck *c);
/* The check as a plug-in of the driver (struct ws_drive_check, ws_source.h), which then calls the
 * functions above through it; NULL for NULL. */
struct ws_drive_check;
struct ws_drive_check *ws_imgcheck_check(struct ws_imgcheck *c);

#endif
