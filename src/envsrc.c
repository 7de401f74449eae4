/* envsrc.c - installed Python environments: the files a distribution's *.dist-info/RECORD
 * (or an installed conda package's conda-meta record) names, as one artifact (type
 * "installed"), and the files of an environment that no record owns, one artifact per
 * directory (type "directory": extensions built in place, a UI's custom nodes). inputs.c
 * decides which is which; this file lists the files and hands them to the driver as a
 * files source (source_files.c), with the record check (recordcheck.c) when verifying. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_env.h"
#include "ws_condameta.h"
#include "ws_pkgcheck.h"
#include "ws_os.h"
#include "ws_util.h"
#include "ws_wheelinfo.h"
#include "ws_record.h"
#include "ws_digest.h"
#include "ws_readfile.h"



/* The files one artifact reads, as the driver's files source wants them. */
struct file_list {
	char **paths, **names;
	const char **algos;
	size_t n;
	uint32_t cap, ncap, acap;
};

static bool list_add(struct file_list *l, const char *path, const char *name, const char *algo)
{
	uint32_t n = (uint32_t)l->n + 1;
	if (l->n >= UINT32_MAX - 1 || !ws_grow((void **)&l->paths, &l->cap, n, sizeof *l->paths) ||
	    !ws_grow((void **)&l->names, &l->ncap, n, sizeof *l->names) || !ws_grow((void **)&l->algos, &l->acap, n, sizeof *l->algos))
		return false;
	l->paths[l->n] = (char *)path;
	l->names[l->n] = (char *)name;
	l->algos[l->n] = algo;
	l->n++;
	return true;
}

static void list_free(struct file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->names);
	free(l->algos);
}

/* Hands the files to the driver as one random-access source (listed: the files a record
 * names, which may be missing; check: the record check, or NULL) and adds the sizes of
 * those found to a->size. */
static void drive_files(struct ws_artifact *a, struct file_list *l, bool listed, struct ws_drive_check *check,
			const struct ws_scan_opts *so)
{
	struct ws_err e = { 0 };
	struct ws_drive d;
	ws_drive_init(&d, a, so);
	ws_drive_add_check(&d, check);
	if (listed) {
		/* a distribution's installed files are read where they lie: nothing inflates, so
		 * the archive limits of all members and their count are not theirs; one file's
		 * is (a RECORD row naming a 12 GiB sparse file would have it read whole) */
		d.lim.max_total_bytes = UINT64_MAX;
		d.lim.max_members = UINT32_MAX;
	}
	struct ws_rsource *src = ws_files_rsource(l->paths, l->names, l->n, l->algos, listed, &e);
	if (!src) {
		ws_artifact_fail(a, d.label, e.code, "%s", e.msg);
	} else {
		src->nest = !listed;               /* an installed file is never read as an archive */
		ws_drive_random(&d, src);
		for (uint32_t i = 0; i < src->n; i++) {
			uint64_t size = ws_files_rsource_size(src, i);
			if (size != UINT64_MAX)
				a->size += size;
		}
	}
	ws_drive_finish(&d);
	ws_files_rsource_free(src);
	a->bytes_inflated = 0;                 /* files are read as they are, not inflated */
}

/* "torch-2.5.1+cu124.dist-info" -> name and version, for a distribution without METADATA. */
static void names_from_dir(struct ws_wheel_info *w, const char *distinfo)
{
	const char *base = strrchr(distinfo, '/');
	base = base ? base + 1 : distinfo;
	const char *end = strstr(base, ".dist-info");
	const char *dash = end ? memchr(base, '-', (size_t)(end - base)) : NULL;
	if (!end || !dash)
		return;
	if (!w->meta_name)
		w->meta_name = ws_strndup(base, (size_t)(dash - base));
	if (!w->meta_version)
		w->meta_version = ws_strndup(dash + 1, (size_t)(end - dash - 1));
}

/* An empty artifact for path; NULL when out of memory. */
static struct ws_artifact *new_artifact(const char *path, enum ws_artifact_type type)
{
	struct ws_artifact *a = ws_calloc(1, sizeof *a);
	if (!a || !(a->path = ws_strdup(path))) {
		free(a);
		return NULL;
	}
	a->type = type;
	return a;
}

struct ws_artifact *ws_scan_distribution(const char *distinfo, const char *site, bool verify,
					 const struct ws_scan_opts *so)
{
	struct ws_artifact *a = new_artifact(distinfo, WS_ART_INSTALLED);
	char path[4096];
	size_t len = 0;
	if (!a)
		return NULL;
	if (!(a->wheel = ws_calloc(1, sizeof *a->wheel)))
		return a;
	snprintf(path, sizeof path, "%s/METADATA", distinfo);
	char *meta = ws_read_small(path, WS_METADATA_MAX, &len);
	if (meta)
		ws_wheel_parse_metadata(a->wheel, meta, len);
	free(meta);
	names_from_dir(a->wheel, distinfo);

	snprintf(path, sizeof path, "%s/RECORD", distinfo);
	char *text = ws_read_small(path, WS_RECORD_MAX, &len);
	struct ws_record_index rec = {0};
	if (!text) {
		ws_artifact_fail(a, path, WS_E_IO, "cannot read: %s", strerror(errno));
		return a;
	}
	struct ws_err rerr = {0};
	if (ws_record_parse(&rec, text, len, &rerr) < 0) {
		ws_artifact_fail(a, path, rerr.code, "%s", rerr.msg);
		free(text);
		return a;
	}
	free(text);
	a->record.checked = verify;
	struct file_list l = { 0 };
	for (uint32_t r = 0; r < rec.n; r++) {
		const struct ws_record_line *L = &rec.line[r];
		char *full;
		if (!ws_record_row_inside(L->path))
			continue;                    /* scripts in ../../bin and the like: outside the tree */
		if (snprintf(path, sizeof path, "%s/%s", site, L->path) >= (int)sizeof path)
			continue;
		bool hash = verify && L->algo[0] && ws_digest_known(L->algo);
		if (!(full = ws_strdup(path)) || !list_add(&l, full, L->path, hash ? L->algo : NULL)) {
			free(full);
			ws_artifact_fail(a, a->path, WS_E_MEMORY, "out of memory");
			list_free(&l);
			ws_record_index_free(&rec);
			return a;
		}
	}
	/* the check takes the rows over (the names point into them until the walk ends) */
	struct ws_drive_check *check = NULL;
	if (verify && !(check = ws_record_check(WS_RECORD_INSTALLED, &rec, NULL, NULL)))
		ws_artifact_fail(a, a->path, WS_E_MEMORY, "out of memory");
	drive_files(a, &l, true, check, so);
	if (!check)
		ws_record_conclude(&a->record);
	list_free(&l);
	ws_record_index_free(&rec);
	return a;
}

/* "py3.11_cuda12.4_cudnn9.1.0_0" -> 12040: the CUDA a conda build string names. */
static int build_cuda(const char *build)
{
	const char *c = build ? strstr(build, "cuda") : NULL;
	unsigned major = 0, minor = 0;
	if (!c || sscanf(c + 4, "%u.%u", &major, &minor) != 2 || major > 99 || minor > 9)
		return 0;
	return (int)(major * 1000 + minor * 10);
}

struct ws_artifact *ws_scan_conda_package(const char *record, const char *prefix, bool verify,
					  const struct ws_scan_opts *so)
{
	struct ws_artifact *a = new_artifact(record, WS_ART_INSTALLED);
	struct ws_conda_pkg pkg;
	char path[4096];
	struct ws_err err = {0};
	size_t len = 0;
	if (!a)
		return NULL;
	char *text = ws_read_small(record, WS_RECORD_MAX, &len);
	if (!text) {
		ws_artifact_fail(a, record, WS_E_IO, "cannot read: %s", strerror(errno));
		return a;
	}
	int rc = ws_conda_parse(&pkg, text, len, &err);
	free(text);
	if (rc < 0) {
		ws_artifact_fail(a, record, err.code, "%s", err.msg);
		return a;
	}
	if ((a->wheel = ws_calloc(1, sizeof *a->wheel))) {
		a->wheel->meta_name = pkg.name ? ws_strdup(pkg.name) : NULL;
		a->wheel->meta_version = pkg.version ? ws_strdup(pkg.version) : NULL;
		a->build_cuda_hint = build_cuda(pkg.build);
	}
	a->record.checked = verify;
	struct file_list l = { 0 };
	for (size_t i = 0; i < pkg.nfiles; i++) {
		const struct ws_conda_file *F = &pkg.files[i];
		char *full;
		if (!ws_record_row_inside(F->path) ||
		    snprintf(path, sizeof path, "%s/%s", prefix, F->path) >= (int)sizeof path)
			continue;
		bool hash = verify && F->sha256[0];
		if (!(full = ws_strdup(path)) || !list_add(&l, full, F->path, hash ? "sha256" : NULL)) {
			free(full);
			ws_artifact_fail(a, a->path, WS_E_MEMORY, "out of memory");
			list_free(&l);
			ws_conda_free(&pkg);
			return a;
		}
	}
	/* the check takes the record over (the names point into it until the walk ends) */
	struct ws_drive_check *check = NULL;
	if (verify && !(check = ws_record_check(WS_RECORD_CONDA, NULL, &pkg, NULL)))
		ws_artifact_fail(a, a->path, WS_E_MEMORY, "out of memory");
	drive_files(a, &l, true, check, so);
	if (!check)
		ws_record_conclude(&a->record);
	list_free(&l);
	ws_conda_free(&pkg);
	return a;
}

struct ws_artifact *ws_scan_loose(const char *dir, const char *site, char *const *files, size_t nfiles,
				  const struct ws_scan_opts *so)
{
	struct ws_artifact *a = new_artifact(dir, WS_ART_DIRECTORY);
	size_t sl = strlen(site);
	if (!a)
		return NULL;
	/* the files are below site (inputs.c groups them so): members are named below it */
	for (size_t i = 0; i < nfiles; i++)
		if (strncmp(files[i], site, sl) != 0 || files[i][sl] != '/') {
			ws_artifact_fail(a, files[i], WS_E_IO, "not below '%s'", site);
			return a;
		}
	struct file_list l = { 0 };
	for (size_t i = 0; i < nfiles; i++) {
		char *full = ws_strdup(files[i]);
		if (!full || !list_add(&l, full, files[i] + sl + 1, NULL)) {
			free(full);
			ws_artifact_fail(a, dir, WS_E_MEMORY, "out of memory");
			list_free(&l);
			return a;
		}
	}
	drive_files(a, &l, false, NULL, so);
	list_free(&l);
	return a;
}

/* The interpreter's purelib and platlib, asked without importing anything but sysconfig:
 * the child runs `PYTHON -c CODE` (no shell) and prints one path a line. */
int ws_python_site_dirs(const char *python, char ***dirs, size_t *ndirs, struct ws_err *err)
{
	static const char code[] = "import sysconfig\np = sysconfig.get_paths()\n"
				   "print(p['purelib'])\nprint(p['platlib'])\n";
	const char *argv[] = {python, "-I", "-c", code, NULL};
	char out[16384], why[256];
	*dirs = NULL;
	*ndirs = 0;
	int rc = ws_spawn_capture(argv, out, sizeof out, why, sizeof why);
	if (rc == -1)
		return ws_err_set(err, WS_E_IO, "%s", why);
	if (rc != 0)
		return ws_err_set(err, WS_E_FORMAT, "'%s' did not say where its packages are (%s)", python, why);
	for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool dup = false;
		struct stat sb;
		for (size_t i = 0; i < *ndirs && !dup; i++)
			dup = !strcmp((*dirs)[i], line);
		if (dup || !ws_path_absolute(line) || stat(line, &sb) != 0 || !S_ISDIR(sb.st_mode))
			continue;                  /* platlib == purelib, or not created yet */
		if (!ws_strv_push(dirs, ndirs, line))
			return ws_err_set(err, WS_E_MEMORY, "out of memory");
	}
	if (!*ndirs)
		return ws_err_set(err, WS_E_FORMAT, "'%s' names no package directory that exists", python);
	return 0;
}

void ws_torch_extension_facts(struct ws_artifact *a)
{
	static const char dir[] = "/torch_extensions/";
	const char *p = a->path ? strstr(a->path, dir) : NULL;
	char name[128] = "", py[32] = "", cu[32] = "";
	unsigned pv = 0, cv = 0;
	if (!p)
		return;
	p += sizeof dir - 1;
	/* torch >= 1.11: torch_extensions/py311_cu124/NAME/NAME.so; before: torch_extensions/NAME/ */
	if (sscanf(p, "py%u_cu%u/%127[^/]/", &pv, &cv, name) == 3 || sscanf(p, "py%u_cpu/%127[^/]/", &pv, name) == 2 ||
	    sscanf(p, "%127[^/]/", name) == 1) {
		if (pv >= 1000)
			pv = 0;
		if (pv)
			snprintf(py, sizeof py, "Python %u.%u", pv / 100 ? pv / 100 : pv / 10, pv / 100 ? pv % 100 : pv % 10);
		if (cv >= 100 && cv < 1000) {
			a->build_cuda_hint = (int)(cv / 10 * 1000 + cv % 10 * 10);
			snprintf(cu, sizeof cu, "CUDA %u.%u", cv / 10, cv % 10);
		}
		size_t len = strlen(name) + 96;
		if ((a->origin = ws_malloc(len)))
			snprintf(a->origin, len, "torch extension '%s', built in place%s%s%s%s", name,
				 py[0] || cu[0] ? " for " : "", py, py[0] && cu[0] ? " and " : "", cu);
	}
}
