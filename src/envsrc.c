/* envsrc.c - installed Python environments: a distribution's files, found through its
 * *.dist-info/RECORD, verified against it and scanned as one artifact (type "installed");
 * and the files of an environment that no RECORD owns, one artifact per directory (type
 * "directory": extensions built in place, a UI's custom nodes). inputs.c decides which
 * is which; this file reads them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws_env.h"
#include "ws_filemap.h"
#include "ws_source.h"
#include "ws_util.h"
#include "ws_zip.h"

#define METADATA_MAX ((size_t)16 << 20)
#define RECORD_MAX ((size_t)64 << 20)


/* What reading one file gave. */
struct file_result {
	bool found;                       /* it exists and is a regular file */
	uint64_t size;
	char digest[WS_DIGEST_MAX * 2];   /* urlsafe base64 of the asked hash, "" if none */
};

/* The files one artifact has read. Rows can spell one file many ways ("a/b.so",
 * "a//b.so", "a/./b.so"): each is scanned once, and hashed once per kind of digest, so a
 * RECORD of many such rows does not read a large file once per row. Files reached through
 * a symbolic link are read under each name as before (a conda package lists libfoo.so,
 * libfoo.so.1 and its target, and each is reported). */
struct seen_files {
	struct ws_strpool scanned;              /* "dev:ino" */
	struct ws_strpool hashed;               /* "dev:ino:algo:hex", indexing digests */
	char (*digests)[WS_DIGEST_MAX * 2];
	uint32_t cap;
};

static void seen_free(struct seen_files *s)
{
	ws_strpool_free(&s->scanned);
	ws_strpool_free(&s->hashed);
	free(s->digests);
}

/* The index of key in pool, and whether it was added now (out of memory: added, no index). */
static bool first_time(struct ws_strpool *pool, const char *key, uint32_t *idx)
{
	uint32_t n = pool->n;
	*idx = ws_strpool_intern(pool, key, strlen(key));
	return *idx == n || *idx == UINT32_MAX;
}

/* Reads one file of an environment: hashes it with algo (if not NULL) and scans it into a
 * as object `member` when its content is something wheelscan reads. Errors go on a. */
static void read_file(struct ws_artifact *a, const char *path, const char *member, const char *algo, bool hex,
		      const struct ws_scan_opts *so, struct seen_files *seen, struct file_result *res)
{
	memset(res, 0, sizeof *res);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	bool linked = fd < 0 && errno == ELOOP;
	if (linked)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a link inside the environment: read its file */
	if (fd < 0) {
		if (errno != ENOENT)
			ws_artifact_fail(a, path, WS_E_IO, "cannot open: %s", strerror(errno));
		return;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	res->found = true;
	res->size = (uint64_t)st.st_size;
	bool scan = true;
	uint32_t hidx = UINT32_MAX;
	if (seen && !linked) {
		char key[128];
		uint32_t idx;
		snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
		scan = first_time(&seen->scanned, key, &idx);
		if (algo) {
			size_t kl = strlen(key);
			snprintf(key + kl, sizeof key - kl, ":%.32s:%d", algo, hex);
			if (!first_time(&seen->hashed, key, &hidx)) {
				memcpy(res->digest, seen->digests[hidx], sizeof res->digest);
				algo = NULL;         /* hashed before */
			} else if (hidx != UINT32_MAX) {
				if (ws_grow((void **)&seen->digests, &seen->cap, hidx + 1, sizeof *seen->digests))
					seen->digests[hidx][0] = '\0';
				else
					hidx = UINT32_MAX;
			}
		}
		if (!scan && !algo) {
			close(fd);
			return;
		}
	}
	struct ws_digest *d = algo ? ws_digest_new(algo) : NULL;
	struct ws_filemap fm = { .p = NULL, .slot = -1 };
	if (st.st_size > 0 && ws_filemap_open(&fm, fd, (size_t)st.st_size) < 0)
		ws_artifact_fail(a, path, WS_E_IO, "cannot map: %s", strerror(errno));
	close(fd);
	uint8_t *p = fm.p;
	if (p) {
		size_t n = fm.len;
		if (d)
			ws_digest_mapping(d, p, n);
		enum ws_content c = ws_sniff(p, n < WS_SNIFF_BYTES ? n : WS_SNIFF_BYTES);
		if (scan && c != WS_CONTENT_OTHER && c != WS_CONTENT_ZIP) {
			struct ws_scan_opts mo = *so;
			mo.drop_behind = true;
			ws_scan_memory(a, member, p, n, &mo);
			a->members_scanned++;
		}
		if (ws_filemap_close(&fm)) {
			ws_artifact_fail(a, path, WS_E_IO, "the file shrank while it was read: what lay past its new "
					  "end was not read, so this report of it is incomplete");
			ws_digest_free(d);
			d = NULL;                     /* no digest of any one state of the file */
		}
	}
	if (d) {
		uint8_t md[WS_DIGEST_MAX];
		size_t len = ws_digest_final(d, md);
		if (hex)
			ws_hex(md, len, res->digest);
		else
			ws_b64url_nopad(md, len, res->digest, sizeof res->digest);
		ws_digest_free(d);
		if (hidx != UINT32_MAX)
			memcpy(seen->digests[hidx], res->digest, sizeof res->digest);
	}
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
static struct ws_artifact *new_artifact(const char *path, const char *type)
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
	struct ws_artifact *a = new_artifact(distinfo, "installed");
	char path[4096], shown[160];
	size_t len = 0;
	if (!a)
		return NULL;
	if (!(a->wheel = ws_calloc(1, sizeof *a->wheel)))
		return a;
	snprintf(path, sizeof path, "%s/METADATA", distinfo);
	char *meta = ws_read_small(path, METADATA_MAX, &len);
	if (meta)
		ws_wheel_parse_metadata(a->wheel, meta, len);
	free(meta);
	names_from_dir(a->wheel, distinfo);

	snprintf(path, sizeof path, "%s/RECORD", distinfo);
	char *text = ws_read_small(path, RECORD_MAX, &len);
	struct ws_record_index rec = {0};
	char err[WS_ERRMAX];
	if (!text) {
		ws_artifact_fail(a, path, WS_E_IO, "cannot read: %s", strerror(errno));
		return a;
	}
	if (ws_record_parse(&rec, text, len, err, sizeof err) < 0) {
		ws_artifact_error(a, path, "%s", err);
		free(text);
		return a;
	}
	free(text);
	a->record.checked = verify;
	struct seen_files seen = {0};
	for (uint32_t r = 0; r < rec.n; r++) {
		const struct ws_record_line *L = &rec.line[r];
		struct file_result res;
		if (!ws_record_row_inside(L->path))
			continue;                    /* scripts in ../../bin and the like: outside the tree */
		if (snprintf(path, sizeof path, "%s/%s", site, L->path) >= (int)sizeof path)
			continue;
		bool hash = verify && L->algo[0] && ws_digest_known(L->algo);
		read_file(a, path, L->path, hash ? L->algo : NULL, false, so, &seen, &res);
		ws_sanitize(shown, sizeof shown, L->path, strlen(L->path));
		if (!res.found) {
			if (verify)
				ws_strv_push(&a->record.missing, &a->record.nmissing, L->path);
			continue;
		}
		a->size += res.size;
		if (!verify)
			continue;
		ws_record_verify(a, a->path, L, L->path, hash ? res.digest : "", res.size, true);
	}
	seen_free(&seen);
	ws_record_conclude(&a->record);
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
	struct ws_artifact *a = new_artifact(record, "installed");
	struct ws_conda_pkg pkg;
	char path[4096], shown[160], err[WS_ERRMAX];
	size_t len = 0;
	if (!a)
		return NULL;
	char *text = ws_read_small(record, RECORD_MAX, &len);
	if (!text) {
		ws_artifact_fail(a, record, WS_E_IO, "cannot read: %s", strerror(errno));
		return a;
	}
	int rc = ws_conda_parse(&pkg, text, len, err, sizeof err);
	free(text);
	if (rc < 0) {
		ws_artifact_error(a, record, "%s", err);
		return a;
	}
	if ((a->wheel = ws_calloc(1, sizeof *a->wheel))) {
		a->wheel->meta_name = pkg.name ? ws_strdup(pkg.name) : NULL;
		a->wheel->meta_version = pkg.version ? ws_strdup(pkg.version) : NULL;
		a->build_cuda_hint = build_cuda(pkg.build);
	}
	a->record.checked = verify;
	struct seen_files seen = {0};
	for (size_t i = 0; i < pkg.nfiles; i++) {
		const struct ws_conda_file *F = &pkg.files[i];
		struct file_result res;
		if (!ws_record_row_inside(F->path) ||
		    snprintf(path, sizeof path, "%s/%s", prefix, F->path) >= (int)sizeof path)
			continue;
		bool hash = verify && F->sha256[0];
		read_file(a, path, F->path, hash ? "sha256" : NULL, true, so, &seen, &res);
		ws_sanitize(shown, sizeof shown, F->path, strlen(F->path));
		if (!res.found) {
			if (verify)
				ws_strv_push(&a->record.missing, &a->record.nmissing, F->path);
			continue;
		}
		a->size += res.size;
		bool bad = false;
		if (hash && strcmp(res.digest, F->sha256) != 0) {
			ws_artifact_fail(a, a->path, WS_E_INTEGRITY, "installed file '%s' differs from its conda record (sha256 mismatch)", shown);
			bad = true;
		} else if (verify && F->size >= 0 && (uint64_t)F->size != res.size) {
			ws_artifact_fail(a, a->path, WS_E_INTEGRITY, "installed file '%s' differs from its conda record (%lld bytes recorded, "
					  "the file has %llu)", shown, (long long)F->size, (unsigned long long)res.size);
			bad = true;
		}
		if (bad)
			ws_strv_push(&a->record.mismatched, &a->record.nmismatched, F->path);
	}
	seen_free(&seen);
	ws_record_conclude(&a->record);
	ws_conda_free(&pkg);
	return a;
}

struct ws_artifact *ws_scan_loose(const char *dir, const char *site, char *const *files, size_t nfiles,
				  const struct ws_scan_opts *so)
{
	struct ws_artifact *a = new_artifact(dir, "directory");
	size_t sl = strlen(site);
	if (!a)
		return NULL;
	/* the files are below site (inputs.c groups them so): members are named below it */
	for (size_t i = 0; i < nfiles; i++) {
		struct stat st;
		if (strncmp(files[i], site, sl) != 0 || files[i][sl] != '/') {
			ws_artifact_fail(a, files[i], WS_E_IO, "not below '%s'", site);
			return a;
		}
		if (stat(files[i], &st) == 0)
			a->size += (uint64_t)st.st_size;
	}
	struct ws_err e = { 0 };
	struct ws_source *src = ws_files_open(files, nfiles, sl + 1, &e);
	if (!src) {
		ws_artifact_fail(a, dir, e.code, "%s", e.msg);
		return a;
	}
	struct ws_drive d;
	ws_drive_init(&d, a, so);
	ws_drive_source(&d, src, "", 1);
	ws_drive_finish(&d);
	ws_source_close(src);
	a->bytes_inflated = 0;                 /* files are read as they are, not inflated */
	return a;
}

/* The interpreter's purelib and platlib, asked without importing anything but sysconfig:
 * the child runs `PYTHON -c CODE` (no shell) and prints one path a line. */
int ws_python_site_dirs(const char *python, char ***dirs, size_t *ndirs, char *err, size_t errlen)
{
	static const char code[] = "import sysconfig\np = sysconfig.get_paths()\n"
				   "print(p['purelib'])\nprint(p['platlib'])\n";
	int fds[2];
	char out[16384];
	size_t got = 0;
	*dirs = NULL;
	*ndirs = 0;
	if (pipe(fds) != 0) {
		ws_fmt(err, errlen, "cannot run '%s': %s", python, strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		ws_fmt(err, errlen, "cannot run '%s': %s", python, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execlp(python, python, "-I", "-c", code, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r = read(fds[0], out + got, sizeof out - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == sizeof out - 1)
			break;
	}
	close(fds[0]);
	out[got] = 0;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		ws_fmt(err, errlen, "'%s' did not say where its packages are (%s %d)", python,
		       WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -1;
	}
	for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool dup = false;
		struct stat sb;
		for (size_t i = 0; i < *ndirs && !dup; i++)
			dup = !strcmp((*dirs)[i], line);
		if (dup || line[0] != '/' || stat(line, &sb) != 0 || !S_ISDIR(sb.st_mode))
			continue;                  /* platlib == purelib, or not created yet */
		if (!ws_strv_push(dirs, ndirs, line))
			return -1;
	}
	if (!*ndirs) {
		ws_fmt(err, errlen, "'%s' names no package directory that exists", python);
		return -1;
	}
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
