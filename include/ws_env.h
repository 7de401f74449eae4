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

/* A conda environment's record of one package (conda-meta/NAME-VERSION-BUILD.json). */
struct ws_conda_file {
	char *path;                    /* relative to the environment's prefix */
	char sha256[65];               /* hex of the installed file, "" when not known */
	int64_t size;                  /* -1 when not known */
};
struct ws_conda_pkg {
	char *name, *version, *build;
	struct ws_conda_file *files;
	size_t nfiles;
	uint32_t files_cap;            /* room in files */
	bool have_paths_data;          /* the files came with hashes (paths_data) */
};
/* Parses a conda-meta record (strict JSON, bounded). A file whose prefix conda rewrote at
 * install time keeps its hash only when the record has sha256_in_prefix. 0, or -1 with
 * the reason in err (pkg left empty). */
int ws_conda_parse(struct ws_conda_pkg *pkg, const char *p, size_t n, struct ws_err *err);
void ws_conda_free(struct ws_conda_pkg *pkg);
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
