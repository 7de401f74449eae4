/* ws_pkgcheck.h - the checks a package or a distribution carries, as plug-ins of the
 * driver (struct ws_drive_check, ws_source.h): a .deb's md5sums, a conda package's info/paths.json
 * (src/pkgcheck.c), and a distribution's own record (src/recordcheck.c). */
#ifndef WS_PKGCHECK_H
#define WS_PKGCHECK_H

#include "wheelscan.h"
#include "ws_source.h"

/* A package's own checksums, checked against the members the driver streams: a .deb's
 * md5sums (control.tar) against data.tar's files, a conda package's info/paths.json sha256
 * and sizes against its files, and info/index.json's name and version (at the end: the
 * artifact's type "conda", its name and version). NULL when the package kind carries no
 * checksums (or out of memory). path: the file's name (a ".tar.bz2" may be a legacy conda
 * package). */
struct ws_drive_check *ws_pkgcheck_new(enum ws_pack kind, const char *path);

/* A distribution's own record (src/recordcheck.c): a wheel's RECORD against its members,
 * an installed distribution's RECORD or an installed conda package's record (conda-meta)
 * against its files. The rows are known before any member, so each member is judged as it
 * is told, and rows no member matched are listed missing (a wheel) at the end. Sets
 * a->record; a wheel's own RECORD files are not listed in it (distinfo:
 * "name-1.0.dist-info/"). Takes over rows or pkg (on success only). NULL: out of memory. */
enum ws_record_kind { WS_RECORD_WHEEL, WS_RECORD_INSTALLED, WS_RECORD_CONDA };
struct ws_record_index;
struct ws_conda_pkg;
struct ws_drive_check *ws_record_check(enum ws_record_kind kind, struct ws_record_index *rows, struct ws_conda_pkg *pkg,
				 const char *distinfo);

#endif
