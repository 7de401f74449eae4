/* ws_env.h - installed Python environments (src/envsrc.c): distributions read through
 * their *.dist-info/RECORD, and the files no RECORD owns. */
#ifndef WS_ENV_H
#define WS_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"
#include "ws_scan.h"

/* One installed distribution as an artifact of type "installed": a->wheel from METADATA
 * (name and version from the directory name when it has none), every file RECORD lists
 * below site read once, hashed against RECORD when verify (a different hash or size is an
 * error on the artifact, as for a tampered wheel; a missing file is listed, not an
 * error), and scanned as object "<path in RECORD>" when it holds something wheelscan
 * reads. NULL only when out of memory. */
struct ws_artifact *ws_scan_distribution(const char *distinfo, const char *site, bool verify,
					 const struct ws_scan_opts *so);
/* Files of an environment that no RECORD owns, under dir: one artifact of type
 * "directory", its objects named by their path below site. */
struct ws_artifact *ws_scan_loose(const char *dir, const char *site, char *const *files, size_t nfiles,
				  const struct ws_scan_opts *so);

/* One conda package as an artifact of type "installed", read and verified as
 * ws_scan_distribution does with its RECORD. */
struct ws_artifact *ws_scan_conda_package(const char *record, const char *prefix, bool verify,
					  const struct ws_scan_opts *so);

/* A file in a torch extension cache (~/.cache/torch_extensions/py311_cu124/NAME/NAME.so):
 * sets a->origin and the CUDA its directory names as a->build_cuda_hint. */
void ws_torch_extension_facts(struct ws_artifact *a);

/* --python: the purelib and platlib directories of an interpreter (run without a shell,
 * in isolated mode, importing sysconfig only), existing ones, without repeats; *dirs is
 * malloc'd strings. 0, or -1 with the reason in err (io: it could not be run; format: it
 * named no directory; memory). Call before the sandbox. */
int ws_python_site_dirs(const char *python, char ***dirs, size_t *ndirs, struct ws_err *err);

#endif
