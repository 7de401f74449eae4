/* ws_pkgcheck.h - a package's own checksums (src/pkgcheck.c): Debian md5sums and conda
 * info/paths.json, checked against the members the driver streams; conda name/version. */
#ifndef WS_PKGCHECK_H
#define WS_PKGCHECK_H

#include "wheelscan.h"
#include "ws_source.h"

/* NULL when the package kind carries no checksums (or out of memory). path: the file's
 * name (a ".tar.bz2" may be a legacy conda package). */
struct ws_pkgcheck *ws_pkgcheck_new(enum ws_pack kind, const char *path);
/* The most bytes of this member to keep as text for the check (0: none wanted). */
size_t ws_pkgcheck_wants_text(const struct ws_pkgcheck *c, const char *name);
/* The digest to compute over this member, or NULL. */
const char *ws_pkgcheck_algo(const struct ws_pkgcheck *c, const char *name);
/* The member's text (malloc'd, NUL-terminated; taken over). */
void ws_pkgcheck_text(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label, const char *name,
		      char *p, size_t n);
/* A member read to its end: its digest as lower-case hex and its size. */
void ws_pkgcheck_digest(struct ws_pkgcheck *c, const char *name, const char *hex, uint64_t size);
/* Compares, records mismatches on a (WS_E_INTEGRITY), sets a conda package's type, name
 * and version. */
void ws_pkgcheck_finish(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label);
void ws_pkgcheck_free(struct ws_pkgcheck *c);

#endif
