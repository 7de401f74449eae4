/* condameta.c - the few facts wheelscan needs from a conda-meta/<pkg>.json record of a conda
 * environment: the package's name, version and build string, and the files it installed
 * with their sha256 and size (paths_data), else the plain "files" list.
 *
 * Read with the bounded JSON reader of jsonread.c; the entry count is bounded here. The
 * files are strangers' bytes like any other input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_condameta.h"
#include "ws_jsonread.h"
#include "ws_util.h"

#define STRING_MAX 4096
#define FILES_MAX 1000000

/* ---- the record ------------------------------------------------------------------- */

static bool add_file(struct ws_conda_pkg *pkg, const char *path)
{
	if (pkg->nfiles >= FILES_MAX)
		return false;
	if (!ws_grow((void **)&pkg->files, &pkg->files_cap, (uint32_t)pkg->nfiles + 1, sizeof *pkg->files))
		return false;
	struct ws_conda_file *f = &pkg->files[pkg->nfiles];
	memset(f, 0, sizeof *f);
	f->size = -1;
	if (!(f->path = ws_strdup(path)))
		return false;
	pkg->nfiles++;
	return true;
}

struct path_ctx {
	struct ws_conda_pkg *pkg;
	char path[STRING_MAX], sha[80], sha_in_prefix[80];
	int64_t size;
	bool placeholder;
};

static bool path_member(struct ws_jp *j, const char *key, void *vctx)
{
	struct path_ctx *c = vctx;
	if (!strcmp(key, "_path"))
		return ws_jp_string(j, c->path, sizeof c->path);
	if (!strcmp(key, "sha256"))
		return ws_jp_string(j, c->sha, sizeof c->sha);
	if (!strcmp(key, "sha256_in_prefix"))
		return ws_jp_string(j, c->sha_in_prefix, sizeof c->sha_in_prefix);
	if (!strcmp(key, "size_in_bytes"))
		return ws_jp_number(j, &c->size);
	if (!strcmp(key, "prefix_placeholder")) {
		c->placeholder = true;
		return ws_jp_skip_value(j);
	}
	return ws_jp_skip_value(j);
}

/* One object of paths_data.paths. */
static bool path_item(struct ws_jp *j, void *vpkg)
{
	struct ws_conda_pkg *pkg = vpkg;
	struct path_ctx *c = ws_calloc(1, sizeof *c);
	if (!c)
		return ws_jp_fail(j, "out of memory");
	c->pkg = pkg;
	c->size = -1;
	bool ok = ws_jp_object(j, path_member, c);
	if (ok && c->path[0]) {
		if (!add_file(pkg, c->path)) {
			free(c);
			return ws_jp_fail(j, "too many files");
		}
		struct ws_conda_file *f = &pkg->files[pkg->nfiles - 1];
		/* conda rewrites the install prefix inside some files: their sha256 is of the
		 * package's copy, sha256_in_prefix (newer conda) of the installed one */
		const char *sha = c->sha_in_prefix[0] ? c->sha_in_prefix : c->placeholder ? "" : c->sha;
		if (strlen(sha) == 64)
			memcpy(f->sha256, sha, 65);
		f->size = c->placeholder && !c->sha_in_prefix[0] ? -1 : c->size;
	}
	free(c);
	return ok;
}

static bool paths_data_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_conda_pkg *pkg = ctx;
	if (!strcmp(key, "paths")) {
		pkg->have_paths_data = true;
		return ws_jp_array(j, path_item, pkg);
	}
	return ws_jp_skip_value(j);
}

/* One string of the plain "files" list. */
static bool file_item(struct ws_jp *j, void *vpkg)
{
	char path[STRING_MAX];
	if (!ws_jp_string(j, path, sizeof path))
		return false;
	return add_file(vpkg, path) || ws_jp_fail(j, "too many files");
}

static bool top_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct ws_conda_pkg *pkg = ctx;
	char buf[256];
	if (!strcmp(key, "name") || !strcmp(key, "version") || !strcmp(key, "build")) {
		if (!ws_jp_string(j, buf, sizeof buf))
			return false;
		char **slot = key[0] == 'n' ? &pkg->name : key[0] == 'v' ? &pkg->version : &pkg->build;
		free(*slot);
		*slot = ws_strdup(buf);
		return true;
	}
	if (!strcmp(key, "paths_data")) {
		/* the files with hashes win over the plain list */
		for (size_t i = 0; i < pkg->nfiles; i++)
			free(pkg->files[i].path);
		pkg->nfiles = 0;
		return ws_jp_object(j, paths_data_member, pkg);
	}
	if (!strcmp(key, "paths") && !pkg->have_paths_data) {
		/* a package's info/paths.json: the same objects at the top level */
		pkg->have_paths_data = true;
		return ws_jp_array(j, path_item, pkg);
	}
	if (!strcmp(key, "files") && !pkg->have_paths_data)
		return ws_jp_array(j, file_item, pkg);
	return ws_jp_skip_value(j);
}

int ws_conda_parse(struct ws_conda_pkg *pkg, const char *p, size_t n, struct ws_err *err)
{
	struct ws_jp j = {.start = p, .p = p, .end = p + n};
	memset(pkg, 0, sizeof *pkg);
	bool ok = ws_jp_object(&j, top_member, pkg);
	if (ok) {
		ws_jp_skip_ws(&j);
		if (j.p != j.end)
			ok = ws_jp_fail(&j, "trailing bytes");
	}
	if (!ok) {
		ws_err_set(err, WS_E_FORMAT, "conda-meta record: %s", j.err[0] ? j.err : "malformed");
		ws_conda_free(pkg);
		return -1;
	}
	return 0;
}

void ws_conda_free(struct ws_conda_pkg *pkg)
{
	for (size_t i = 0; i < pkg->nfiles; i++)
		free(pkg->files[i].path);
	free(pkg->files);
	free(pkg->name);
	free(pkg->version);
	free(pkg->build);
	memset(pkg, 0, sizeof *pkg);
}
