/* pkgcheck.c - the checksums a package carries, checked against its members as they
 * stream: a .deb's md5sums (control.tar) against data.tar's files, a conda package's
 * info/paths.json sha256 and sizes against its files, and info/index.json's name and
 * version. The manifest may come before or after the files it lists (a .conda's pkg
 * tarball often comes first), so every member's digest is kept (a path and 64 hex
 * digits) and compared once the package is read. A distribution's RECORD (a wheel's,
 * an installed one's) is the same kind of check with its rows known first:
 * recordcheck.c, reached through the same calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_env.h"
#include "ws_pkgcheck.h"
#include "ws_util.h"
#include "ws_zip.h"

#define MANIFEST_MAX ((size_t)64 << 20)     /* md5sums, paths.json: the largest seen are ~10 MB */
#define INDEX_MAX ((size_t)1 << 20)
#define NAME_SHOWN 160

struct seen {
	char *path;
	char hex[65];
	uint64_t size;
};

struct ws_pkgcheck {
	struct ws_recordcheck *record; /* a RECORD: everything below is unused */
	enum ws_pack kind;
	const char *algo;              /* "md5" (deb) or "sha256" (conda) */
	struct seen *v;
	uint32_t n, cap;
	struct ws_conda_pkg paths;     /* conda: info/paths.json */
	bool have_paths;
	char *md5sums;                 /* deb: the md5sums file */
	size_t md5len;
	bool conda;                    /* info/index.json was found */
	char *name, *version;
};

struct ws_pkgcheck *ws_pkgcheck_new(enum ws_pack kind, const char *path)
{
	size_t pl = path ? strlen(path) : 0;
	bool tarbz2 = pl > 8 && !strcmp(path + pl - 8, ".tar.bz2");
	if (kind != WS_PACK_DEB && kind != WS_PACK_CONDA && !(kind == WS_PACK_TAR && tarbz2))
		return NULL;
	struct ws_pkgcheck *c = ws_calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->kind = kind;
	c->algo = kind == WS_PACK_DEB ? "md5" : "sha256";
	return c;
}

struct ws_pkgcheck *ws_pkgcheck_record(enum ws_record_kind kind, struct ws_record_index *rows, struct ws_conda_pkg *pkg,
				       const char *distinfo)
{
	struct ws_pkgcheck *c = ws_calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (!(c->record = ws_recordcheck_new(kind, rows, pkg, distinfo))) {
		free(c);
		return NULL;
	}
	return c;
}

/* Debian's control.tar holds "./md5sums" (older ones "md5sums"). */
static bool is_md5sums(const char *name)
{
	const char *bang = strchr(name, '!');
	if (!bang || strncmp(name, "control.tar", 11) != 0)
		return false;
	return !strcmp(bang + 1, "md5sums");
}

size_t ws_pkgcheck_wants_text(const struct ws_pkgcheck *c, const char *name)
{
	if (!c || c->record)
		return 0;
	if (c->kind == WS_PACK_DEB)
		return is_md5sums(name) ? MANIFEST_MAX : 0;
	if (!strcmp(name, "info/paths.json"))
		return MANIFEST_MAX;
	if (!strcmp(name, "info/index.json"))
		return INDEX_MAX;
	return 0;
}

const char *ws_pkgcheck_algo(const struct ws_pkgcheck *c, const char *name)
{
	if (!c)
		return NULL;
	if (c->record)
		return ws_recordcheck_algo(c->record, name);
	if (c->kind == WS_PACK_DEB && !strncmp(name, "control.tar", 11))
		return NULL;                        /* control files are not in md5sums */
	return c->algo;
}

void ws_pkgcheck_text(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label, const char *name,
		      char *p, size_t n)
{
	char err[WS_ERRMAX];
	if (c->kind == WS_PACK_DEB) {
		free(c->md5sums);
		c->md5sums = p;
		c->md5len = n;
		return;
	}
	if (!strcmp(name, "info/index.json")) {
		struct ws_conda_pkg idx;
		c->conda = true;
		if (ws_conda_parse(&idx, p, n, err, sizeof err) == 0) {
			free(c->name);
			free(c->version);
			c->name = idx.name ? ws_strdup(idx.name) : NULL;
			c->version = idx.version ? ws_strdup(idx.version) : NULL;
			ws_conda_free(&idx);
		} else {
			ws_artifact_error(a, label, "info/index.json: %s", err);
		}
	} else if (!c->have_paths) {
		if (ws_conda_parse(&c->paths, p, n, err, sizeof err) == 0)
			c->have_paths = true;
		else
			ws_artifact_error(a, label, "info/paths.json: %s", err);
	}
	free(p);
}

void ws_pkgcheck_digest(struct ws_pkgcheck *c, const char *name, const char *hex, uint64_t size)
{
	if (!c || c->record || !ws_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v))
		return;
	struct seen *s = &c->v[c->n];
	if (!(s->path = ws_strdup(name)))
		return;
	snprintf(s->hex, sizeof s->hex, "%s", hex);
	s->size = size;
	c->n++;
}

void ws_pkgcheck_member(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label, const char *name,
			enum ws_member_state st, const uint8_t *md, size_t dl, uint64_t size)
{
	if (!c)
		return;
	if (c->record) {
		ws_recordcheck_member(c->record, a, label, name, st, md, dl, size);
	} else if (st == WS_MEMBER_READ && dl && dl <= 32) {
		char hex[65];
		ws_hex(md, dl, hex);
		ws_pkgcheck_digest(c, name, hex, size);
	}
}

static int cmp_seen(const void *x, const void *y)
{
	return strcmp(((const struct seen *)x)->path, ((const struct seen *)y)->path);
}

/* The members named path, sorted together: the first and (in *count) how many. A tarball
 * may hold one path many times and an extractor keeps the last, so every copy is checked. */
static const struct seen *find_seen(const struct ws_pkgcheck *c, const char *path, size_t *count)
{
	struct seen key = { .path = (char *)path };
	const struct seen *s = c->n ? bsearch(&key, c->v, c->n, sizeof *c->v, cmp_seen) : NULL;
	*count = 0;
	if (!s)
		return NULL;
	while (s > c->v && !strcmp(s[-1].path, path))
		s--;
	while (s + *count < c->v + c->n && !strcmp(s[*count].path, path))
		(*count)++;
	return s;
}

static void mismatch(struct ws_artifact *a, const char *label, const char *path, const char *what)
{
	char nb[NAME_SHOWN], where[NAME_SHOWN + 512];
	ws_sanitize(nb, sizeof nb, path, strlen(path));
	ws_fmt(where, sizeof where, "%s!%s", label, nb);
	ws_artifact_fail(a, where, WS_E_INTEGRITY, "%s", what);
}

/* md5sums: "<32 hex>  <path>" per line, path relative to the package root. */
static void check_md5sums(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label)
{
	char *p = c->md5sums, *end = p + c->md5len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;
		if (le - p > 34 && p[32] == ' ') {
			char hex[33], *path = p + 33;
			memcpy(hex, p, 32);
			hex[32] = 0;
			for (int i = 0; i < 32; i++)
				if (hex[i] >= 'A' && hex[i] <= 'F')
					hex[i] = (char)(hex[i] - 'A' + 'a');
			if (*path == ' ' || *path == '*')
				path++;
			*le = 0;
			while (path[0] == '.' && path[1] == '/')
				path += 2;
			size_t k = 0, copies;
			const struct seen *s = find_seen(c, path, &copies);
			while (k < copies && !(s[k].hex[0] && strcmp(s[k].hex, hex) != 0))
				k++;
			if (k < copies)
				mismatch(a, label, path, "does not match its md5sums entry");
		}
		p = le + 1;
	}
}

static void check_paths(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label)
{
	for (size_t i = 0; i < c->paths.nfiles; i++) {
		const struct ws_conda_file *f = &c->paths.files[i];
		size_t copies;
		const struct seen *v = find_seen(c, f->path, &copies);
		for (size_t k = 0; k < copies; k++) {
			const struct seen *s = &v[k];
			if (!s->hex[0])
				continue;            /* links and directories are not members with bytes */
			if (f->size >= 0 && (uint64_t)f->size != s->size) {
				char msg[128];
				ws_fmt(msg, sizeof msg, "is %llu bytes, not the %lld info/paths.json gives",
				       (unsigned long long)s->size, (long long)f->size);
				mismatch(a, label, f->path, msg);
				break;
			} else if (f->sha256[0] && strcmp(f->sha256, s->hex) != 0) {
				mismatch(a, label, f->path, "does not match its sha256 in info/paths.json");
				break;
			}
		}
	}
}

void ws_pkgcheck_finish(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label)
{
	if (!c)
		return;
	if (c->record) {
		ws_recordcheck_finish(c->record, a);
		return;
	}
	if (c->n)
		qsort(c->v, c->n, sizeof *c->v, cmp_seen);
	if (c->md5sums)
		check_md5sums(c, a, label);
	if (c->have_paths)
		check_paths(c, a, label);
	if (c->conda) {
		a->type = "conda";
		if (!a->wheel)
			a->wheel = ws_calloc(1, sizeof *a->wheel);
		if (a->wheel) {
			a->wheel->meta_name = c->name;
			a->wheel->meta_version = c->version;
			c->name = c->version = NULL;
		}
	}
}

void ws_pkgcheck_free(struct ws_pkgcheck *c)
{
	if (!c)
		return;
	ws_recordcheck_free(c->record);
	for (uint32_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	ws_conda_free(&c->paths);
	free(c->md5sums);
	free(c->name);
	free(c->version);
	free(c);
}
