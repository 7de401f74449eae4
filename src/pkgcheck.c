/* pkgcheck.c - the checksums a package carries, checked against its members as they
 * stream: a .deb's md5sums (control.tar) against data.tar's files, a conda package's
 * info/paths.json sha256 and sizes against its files, and info/index.json's name and
 * version. The manifest may come before or after the files it lists (a .conda's pkg
 * tarball often comes first), so every member path's digest is kept and compared once
 * the package is read: one record per path (keyed by its 64-bit keyed hash, not its
 * bytes), however often a tarball repeats it, at most SEEN_MAX of them. A distribution's RECORD (a wheel's,
 * an installed one's) is the same kind of check with its rows known first:
 * recordcheck.c, reached through the same calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_env.h"
#include "ws_pkgcheck.h"
#include "ws_quote.h"
#include "ws_util.h"
#include "ws_zip.h"

#define MANIFEST_MAX ((size_t)64 << 20)     /* md5sums, paths.json: the largest seen are ~10 MB */
#define INDEX_MAX ((size_t)1 << 20)
#define NAME_SHOWN 160
/* Paths kept per package (about 80 bytes each): the largest packages seen hold ~100,000
 * files. Past it the check is incomplete, and says so. */
#define SEEN_MAX ((uint32_t)1 << 18)

/* One member path, however many copies the tarball holds: an extractor keeps the last,
 * and every copy is held to the manifest, so the last copy's digest and size are kept,
 * and whether an earlier one differed from it (and an earlier size that did). */
struct seen {
	char hex[65];                  /* the last copy's */
	bool mixed;                    /* an earlier copy's digest or size differs */
	uint32_t copies;
	uint64_t size;                 /* the last copy's */
	uint64_t odd_size;             /* an earlier copy's size that differs (size_mixed) */
	bool size_mixed;
};

struct ws_pkgcheck {
	struct ws_recordcheck *record; /* a RECORD: everything below is unused */
	enum ws_pack kind;
	const char *algo;              /* "md5" (deb) or "sha256" (conda) */
	struct ws_strpool paths_seen;  /* hash_only: index i is v[i] */
	struct seen *v;
	uint32_t cap;
	bool over;                     /* SEEN_MAX reached: said at the end */
	struct ws_conda_pkg paths;     /* conda: info/paths.json */
	bool have_paths;
	char *md5sums;                 /* deb: the md5sums file */
	size_t md5len;
	bool conda;                    /* info/index.json was found */
	char *name, *version;
	bool incomplete;               /* the walk stopped early: absent paths are not missing */
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
	c->paths_seen.hash_only = true;
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
	struct ws_err err = {0};
	if (c->kind == WS_PACK_DEB) {
		free(c->md5sums);
		c->md5sums = p;
		c->md5len = n;
		return;
	}
	if (!strcmp(name, "info/index.json")) {
		struct ws_conda_pkg idx;
		c->conda = true;
		if (ws_conda_parse(&idx, p, n, &err) == 0) {
			free(c->name);
			free(c->version);
			c->name = idx.name ? ws_strdup(idx.name) : NULL;
			c->version = idx.version ? ws_strdup(idx.version) : NULL;
			ws_conda_free(&idx);
		} else {
			ws_artifact_fail(a, label, err.code, "info/index.json: %s", err.msg);
		}
	} else if (!c->have_paths) {
		if (ws_conda_parse(&c->paths, p, n, &err) == 0)
			c->have_paths = true;
		else
			ws_artifact_fail(a, label, err.code, "info/paths.json: %s", err.msg);
	}
	free(p);
}

/* The record of path, made (with no copy read yet) when there is none; NULL past SEEN_MAX. */
static struct seen *seen_slot(struct ws_pkgcheck *c, const char *name)
{
	struct ws_strpool *p = &c->paths_seen;
	uint32_t n0 = p->n, i = ws_strpool_find(p, name, strlen(name));
	if (i == UINT32_MAX) {
		if (n0 >= SEEN_MAX) {
			c->over = true;
			return NULL;
		}
		if (!ws_grow((void **)&c->v, &c->cap, n0 + 1, sizeof *c->v) ||
		    (i = ws_strpool_intern(p, name, strlen(name))) == UINT32_MAX)
			return NULL;
		memset(&c->v[i], 0, sizeof c->v[i]);
	}
	return &c->v[i];
}

void ws_pkgcheck_present(struct ws_pkgcheck *c, const char *name)
{
	if (!c || c->record || c->over)
		return;
	seen_slot(c, name);
}

void ws_pkgcheck_incomplete(struct ws_pkgcheck *c)
{
	if (c)
		c->incomplete = true;
}

void ws_pkgcheck_digest(struct ws_pkgcheck *c, const char *name, const char *hex, uint64_t size)
{
	if (!c || c->record || c->over)
		return;
	struct seen *s = seen_slot(c, name);
	if (!s)
		return;
	if (s->copies && (s->size != size || strcmp(s->hex, hex) != 0)) {
		s->mixed = true;
		if (s->size != size && !s->size_mixed) {
			s->size_mixed = true;
			s->odd_size = s->size;
		}
	}
	if (s->copies < UINT32_MAX)
		s->copies++;
	snprintf(s->hex, sizeof s->hex, "%s", hex);
	s->size = size;
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

/* The record of the member path, or NULL. */
static const struct seen *find_seen(const struct ws_pkgcheck *c, const char *path)
{
	uint32_t i = ws_strpool_find(&c->paths_seen, path, strlen(path));
	return i == UINT32_MAX ? NULL : &c->v[i];
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
			const struct seen *s = find_seen(c, path);
			if (!s && !c->incomplete && !c->over)
				mismatch(a, label, path, "is listed in md5sums but not in the package");
			if (s && !s->copies)
				;                           /* there, not read (an error says why) */
			else if (s && strcmp(s->hex, hex) != 0) {
				mismatch(a, label, path, "does not match its md5sums entry");
			} else if (s && s->mixed) {
				char msg[128];
				ws_fmt(msg, sizeof msg, "an earlier copy (of %u) does not match its md5sums entry", s->copies);
				mismatch(a, label, path, msg);
			}
		}
		p = le + 1;
	}
}

static void check_paths(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label)
{
	for (size_t i = 0; i < c->paths.nfiles; i++) {
		const struct ws_conda_file *f = &c->paths.files[i];
		const struct seen *s = find_seen(c, f->path);
		char msg[160];
		if (!s && !c->incomplete && !c->over)
			mismatch(a, label, f->path, "is listed in info/paths.json but not in the package");
		if (!s || !s->copies)
			continue;                       /* absent, or there and not read */
		if (f->size >= 0 && (uint64_t)f->size != s->size) {
			ws_fmt(msg, sizeof msg, "is %llu bytes, not the %lld info/paths.json gives",
			       (unsigned long long)s->size, (long long)f->size);
			mismatch(a, label, f->path, msg);
		} else if (f->sha256[0] && strcmp(f->sha256, s->hex) != 0) {
			mismatch(a, label, f->path, "does not match its sha256 in info/paths.json");
		} else if (s->mixed && f->size >= 0 && s->size_mixed) {
			ws_fmt(msg, sizeof msg, "an earlier copy (of %u) is %llu bytes, not the %lld info/paths.json gives",
			       s->copies, (unsigned long long)s->odd_size, (long long)f->size);
			mismatch(a, label, f->path, msg);
		} else if (s->mixed && f->sha256[0]) {
			ws_fmt(msg, sizeof msg, "an earlier copy (of %u) does not match its sha256 in info/paths.json",
			       s->copies);
			mismatch(a, label, f->path, msg);
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
	if (c->over && (c->md5sums || c->have_paths))
		ws_artifact_fail(a, label, WS_E_LIMIT, "more than %u member paths: the %s check is incomplete", SEEN_MAX,
				 c->md5sums ? "md5sums" : "info/paths.json");
	if (c->md5sums)
		check_md5sums(c, a, label);
	if (c->have_paths)
		check_paths(c, a, label);
	if (c->conda) {
		a->type = WS_ART_CONDA;
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
	ws_strpool_free(&c->paths_seen);
	free(c->v);
	ws_conda_free(&c->paths);
	free(c->md5sums);
	free(c->name);
	free(c->version);
	free(c);
}
