/* ws_condameta.h - a conda environment's record of one installed package, conda-meta/NAME-VERSION-BUILD.json
 * (core/condameta.c) */
#ifndef WS_CONDAMETA_H
#define WS_CONDAMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

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

#endif
