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
/* A member the package holds, read or not (a link, a directory, one that failed): a
 * manifest row for it is not "missing". */
void ws_pkgcheck_present(struct ws_pkgcheck *c, const char *name);
/* The walk stopped before the package's end: rows no member matched are not missing. */
void ws_pkgcheck_incomplete(struct ws_pkgcheck *c);
/* A member read to its end: its digest as lower-case hex and its size. */
void ws_pkgcheck_digest(struct ws_pkgcheck *c, const char *name, const char *hex, uint64_t size);
/* How a random-access source's member came out, told in member order (ws_drive_random). */
enum ws_member_state {
	WS_MEMBER_UNREAD = 0,          /* not read to its end: skipped, or failed (already an error) */
	WS_MEMBER_ABSENT,              /* not there (a file RECORD lists that nobody installed) */
	WS_MEMBER_READ,                /* read to its end: md (dl bytes; 0 when no digest was
					* wanted) and size are the member's */
};
void ws_pkgcheck_member(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label, const char *name,
			enum ws_member_state st, const uint8_t *md, size_t dl, uint64_t size);

/* A distribution's own record as a package check (src/recordcheck.c): a wheel's RECORD
 * against its members, an installed distribution's RECORD or an installed conda
 * package's record (conda-meta) against its files. The rows are known before any member,
 * so each member is judged as it is told, and rows no member matched are listed missing
 * (a wheel) at the end. Sets a->record; a wheel's own RECORD files are not listed in it
 * (distinfo: "name-1.0.dist-info/"). Takes over rows or pkg. */
enum ws_record_kind { WS_RECORD_WHEEL, WS_RECORD_INSTALLED, WS_RECORD_CONDA };
struct ws_record_index;
struct ws_conda_pkg;
struct ws_pkgcheck *ws_pkgcheck_record(enum ws_record_kind kind, struct ws_record_index *rows, struct ws_conda_pkg *pkg,
				       const char *distinfo);

/* Compares, records mismatches on a (WS_E_INTEGRITY), sets a conda package's type, name
 * and version. */
void ws_pkgcheck_finish(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label);
void ws_pkgcheck_free(struct ws_pkgcheck *c);

/* The record check's own calls (src/recordcheck.c), reached through the ones above. */
struct ws_recordcheck;
struct ws_recordcheck *ws_recordcheck_new(enum ws_record_kind kind, struct ws_record_index *rows,
					  struct ws_conda_pkg *pkg, const char *distinfo);
const char *ws_recordcheck_algo(const struct ws_recordcheck *r, const char *name);
void ws_recordcheck_member(struct ws_recordcheck *r, struct ws_artifact *a, const char *label, const char *name,
			   enum ws_member_state st, const uint8_t *md, size_t dl, uint64_t size);
void ws_recordcheck_finish(struct ws_recordcheck *r, struct ws_artifact *a);
void ws_recordcheck_free(struct ws_recordcheck *r);

#endif
