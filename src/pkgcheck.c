/* pkgcheck.c - the checksums a package carries, checked against its members as they
 * stream: a .deb's md5sums (control.tar) against data.tar's files, a conda package's
 * info/paths.json sha256 and sizes against its files, and info/index.json's name and
 * version. The manifest may come before or after the files it lists (a .conda's pkg
 * tarball often comes first), so every member path's digest is kept and compared once
 * the package is read: one record per path (keyed by its 64-bit keyed hash, not its
 * bytes), however often a tarball repeats it, at most SEEN_MAX of them. A plug-in of the
 * driver (struct ws_drive_check). A distribution's RECORD (a wheel's, an installed one's) is the
 * same kind of check with its rows known first: recordcheck.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_condameta.h"
#include "ws_pkgcheck.h"
#include "ws_quote.h"
#include "ws_digest.h"

#define MANIFEST_MAX ((size_t)64 << 20)     /* md5sums, paths.json: the largest seen are ~10 MB */
#define INDEX_MAX ((size_t)1 << 20)
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
	struct ws_drive_check check;         /* first: the driver's handle */
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

/* Debian's control.tar holds "./md5sums" (older ones "md5sums"). */
static bool is_md5sums(const char *name)
{
	const char *bang = strchr(name, '!');
	if (!bang || strncmp(name, "control.tar", 11) != 0)
		return false;
	return !strcmp(bang + 1, "md5sums");
}

static struct ws_pkgcheck *pkg_of(struct ws_drive_check *c)
{
	return (struct ws_pkgcheck *)c;
}

static size_t pkg_wants_text(struct ws_drive_check *cc, const char *name, const uint8_t *head, size_t nhead)
{
	const struct ws_pkgcheck *c = pkg_of(cc);
	if (c->kind == WS_PACK_DEB)
		return is_md5sums(name) ? MANIFEST_MAX : 0;
	if (!strcmp(name, "info/paths.json"))
		return MANIFEST_MAX;
	if (!strcmp(name, "info/index.json"))
		return INDEX_MAX;
	return 0;
}

static const char *pkg_algo(struct ws_drive_check *cc, const char *name)
{
	const struct ws_pkgcheck *c = pkg_of(cc);
	if (c->kind == WS_PACK_DEB && !strncmp(name, "control.tar", 11))
		return NULL;                        /* control files are not in md5sums */
	return c->algo;
}

static void pkg_text(struct ws_pkgcheck *c, struct ws_artifact *a, const char *label, const char *name,
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

/* A member the package holds, read or not (a link, a directory, one that failed): a
 * manifest row for it is not "missing". */
static void pkg_present(struct ws_drive_check *cc, const char *name)
{
	struct ws_pkgcheck *c = pkg_of(cc);
	if (c->over)
		return;
	seen_slot(c, name);
}

/* The walk stopped before the package's end: rows no member matched are not missing. */
static void pkg_incomplete(struct ws_drive_check *cc)
{
	pkg_of(cc)->incomplete = true;
}

/* A member read to its end: its digest as lower-case hex and its size. */
static void pkg_digest(struct ws_pkgcheck *c, const char *name, const char *hex, uint64_t size)
{
	if (c->over)
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

/* A member read to its end: its digest kept; a manifest's text (md5sums, paths.json,
 * index.json) read, or refused when it was too large to keep. */
static void pkg_member(struct ws_drive_check *cc, struct ws_artifact *a, const char *label, struct ws_told *t)
{
	struct ws_pkgcheck *c = pkg_of(cc);
	char *text = t->text;
	t->text = NULL;
	if (t->state != WS_MEMBER_READ) {
		free(text);
		return;
	}
	if (t->dl && t->dl <= 32) {
		char hex[65];
		ws_hex(t->md, t->dl, hex);
		pkg_digest(c, t->name, hex, t->size);
	}
	if (t->text_max && t->text_over) {
		free(text);
		ws_artifact_fail(a, t->where ? t->where : label, WS_E_LIMIT, "too large to read as a package manifest");
	} else if (t->text_max && text) {
		pkg_text(c, a, label, t->name, text, t->ntext);
	} else {
		free(text);
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
	char nb[WS_NAME_SHOWN], where[WS_NAME_SHOWN + 512];
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

static void pkg_finish(struct ws_drive_check *cc, struct ws_artifact *a, const char *label, bool complete)
{
	struct ws_pkgcheck *c = pkg_of(cc);
	if (!complete)
		c->incomplete = true;
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

static void pkg_free(struct ws_drive_check *cc)
{
	struct ws_pkgcheck *c = pkg_of(cc);
	ws_strpool_free(&c->paths_seen);
	free(c->v);
	ws_conda_free(&c->paths);
	free(c->md5sums);
	free(c->name);
	free(c->version);
	free(c);
}

static const struct ws_drive_check_ops pkg_ops = {
	.algo = pkg_algo, .wants_text = pkg_wants_text, .member = pkg_member, .finish = pkg_finish,
	.free = pkg_free, .present = pkg_present, .incomplete = pkg_incomplete,
};

struct ws_drive_check *ws_pkgcheck_new(enum ws_pack kind, const char *path)
{
	size_t pl = path ? strlen(path) : 0;
	bool tarbz2 = pl > 8 && !strcmp(path + pl - 8, ".tar.bz2");
	if (kind != WS_PACK_DEB && kind != WS_PACK_CONDA && !(kind == WS_PACK_TAR && tarbz2))
		return NULL;
	struct ws_pkgcheck *c = ws_calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->check.ops = &pkg_ops;
	c->kind = kind;
	c->algo = kind == WS_PACK_DEB ? "md5" : "sha256";
	c->paths_seen.hash_only = true;
	return &c->check;
}
