/* recordcheck.c - a distribution's own record as a check of the driver (struct ws_drive_check): a wheel's RECORD against
 * the members the zip source yields, an installed distribution's RECORD and an installed
 * conda package's record (conda-meta) against the files the files source yields. The rows
 * are read before any member, so each member is judged as the driver tells it, in member
 * order; the rules of one row against one file are record.c's. */
#include <stdlib.h>
#include <string.h>

#include "ws_condameta.h"
#include "ws_pkgcheck.h"
#include "ws_util.h"
#include "ws_record.h"
#include "ws_digest.h"


struct ws_recordcheck {
	struct ws_drive_check check;         /* first: the driver's handle */
	enum ws_record_kind kind;
	struct ws_record_index rec;    /* WHEEL, INSTALLED */
	struct ws_conda_pkg pkg;       /* CONDA */
	uint32_t *by_path;             /* CONDA: file indices sorted by path */
	uint8_t *state;                /* per row (CONDA: per file): what its file came to */
	char *distinfo;                /* WHEEL: "name-1.0.dist-info/" */
};

static int cmp_file(const void *x, const void *y, void *ctx)
{
	const struct ws_conda_pkg *p = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp(p->files[a].path, p->files[b].path);
	return c ? c : (a > b) - (a < b);      /* the first row of a path is the one that counts */
}

/* A row's state: never told (a wheel's is missing), told unread, or read or absent (either
 * is a verdict on the row); a later copy of a member never takes a verdict back. */
enum { ROW_UNTOLD, ROW_UNREAD, ROW_DONE };

static void record_free(struct ws_drive_check *c);
static const struct ws_drive_check_ops record_ops;

struct ws_drive_check *ws_record_check(enum ws_record_kind kind, struct ws_record_index *rows, struct ws_conda_pkg *pkg,
				 const char *distinfo)
{
	/* everything is allocated before rows or pkg are taken: on failure they stay the caller's */
	struct ws_recordcheck *r = ws_calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->check.ops = &record_ops;
	r->kind = kind;
	bool ok = true;
	if (kind == WS_RECORD_WHEEL)
		ok = (r->distinfo = ws_strdup(distinfo ? distinfo : "")) != NULL;
	if (ok && kind != WS_RECORD_CONDA && rows && rows->n)
		ok = (r->state = ws_calloc(rows->n, sizeof *r->state)) != NULL;
	else if (ok && kind == WS_RECORD_CONDA && pkg && pkg->nfiles)
		ok = pkg->nfiles < UINT32_MAX && (r->by_path = ws_calloc(pkg->nfiles, sizeof *r->by_path)) &&
		     (r->state = ws_calloc(pkg->nfiles, sizeof *r->state));
	if (!ok) {
		record_free(&r->check);
		return NULL;
	}
	if (rows) {
		r->rec = *rows;
		memset(rows, 0, sizeof *rows);
	}
	if (pkg) {
		r->pkg = *pkg;
		memset(pkg, 0, sizeof *pkg);
	}
	if (r->by_path) {
		for (size_t i = 0; i < r->pkg.nfiles; i++)
			r->by_path[i] = (uint32_t)i;
		qsort_r(r->by_path, r->pkg.nfiles, sizeof *r->by_path, cmp_file, &r->pkg);
	}
	return &r->check;
}

static const struct ws_conda_file *conda_file(const struct ws_recordcheck *r, const char *name)
{
	size_t lo = 0, hi = r->pkg.nfiles;
	while (lo < hi) {                       /* the first row with this path */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(r->pkg.files[r->by_path[mid]].path, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->pkg.nfiles && !strcmp(r->pkg.files[r->by_path[lo]].path, name))
		return &r->pkg.files[r->by_path[lo]];
	return NULL;
}

static const char *record_algo(struct ws_drive_check *c, const char *name)
{
	const struct ws_recordcheck *r = (const struct ws_recordcheck *)c;
	if (r->kind == WS_RECORD_CONDA) {
		const struct ws_conda_file *f = conda_file(r, name);
		return f && f->sha256[0] ? "sha256" : NULL;
	}
	int64_t k = ws_record_find(&r->rec, name);
	if (k < 0)
		return NULL;
	const char *algo = r->rec.line[k].algo;
	return algo[0] && ws_digest_known(algo) ? algo : NULL;
}

/* A wheel's RECORD does not list itself, nor its signatures. */
static bool own_record(const struct ws_recordcheck *r, const char *name)
{
	size_t pl = strlen(r->distinfo);
	return pl && strncmp(name, r->distinfo, pl) == 0 &&
	       (!strcmp(name + pl, "RECORD") || !strcmp(name + pl, "RECORD.jws") || !strcmp(name + pl, "RECORD.p7s"));
}

static void conda_member(struct ws_recordcheck *r, struct ws_artifact *a, const char *label, const char *name,
			 enum ws_member_state st, const uint8_t *md, size_t dl, uint64_t size)
{
	struct ws_record *rec = &a->record;
	const struct ws_conda_file *f = conda_file(r, name);
	char hex[WS_DIGEST_MAX * 2 + 1] = "";
	if (!f)
		return;
	uint8_t *rs = &r->state[f - r->pkg.files];
	*rs = st == WS_MEMBER_UNREAD && *rs != ROW_DONE ? ROW_UNREAD : ROW_DONE;
	if (st == WS_MEMBER_ABSENT) {
		ws_strv_push(&rec->missing, &rec->nmissing, f->path);
		return;
	}
	if (st != WS_MEMBER_READ)
		return;
	if (dl)
		ws_hex(md, dl, hex);
	/* an installed file changed since: judged as read and listed, not an error (record.c) */
	bool bad = (f->sha256[0] && strcmp(hex, f->sha256) != 0) || (f->size >= 0 && (uint64_t)f->size != size);
	if (bad)
		ws_strv_push(&rec->mismatched, &rec->nmismatched, f->path);
}

static void record_member(struct ws_drive_check *c, struct ws_artifact *a, const char *label, struct ws_told *t)
{
	struct ws_recordcheck *r = (struct ws_recordcheck *)c;
	struct ws_record *rec = &a->record;
	const char *name = t->name;
	enum ws_member_state st = t->state;
	const uint8_t *md = t->md;
	size_t dl = t->dl;
	uint64_t size = t->size;
	free(t->text);                          /* never asked for */
	t->text = NULL;
	if (r->kind == WS_RECORD_CONDA) {
		conda_member(r, a, label, name, st, md, dl, size);
		return;
	}
	int64_t k = ws_record_find(&r->rec, name);
	if (k < 0) {
		if (r->kind == WS_RECORD_WHEEL && !own_record(r, name))
			ws_strv_push(&rec->unlisted, &rec->nunlisted, name);
		return;
	}
	const struct ws_record_line *row = &r->rec.line[k];
	if (st == WS_MEMBER_ABSENT) {
		ws_strv_push(&rec->missing, &rec->nmissing, row->path);
		return;
	}
	if (r->state)
		r->state[k] = st == WS_MEMBER_UNREAD && r->state[k] != ROW_DONE ? ROW_UNREAD : ROW_DONE;
	if (st != WS_MEMBER_READ)
		return;                               /* unreadable: already an error of its own */
	char digest[WS_DIGEST_MAX * 2] = "";
	if (dl && !ws_b64url_nopad(md, dl, digest, sizeof digest))
		digest[0] = '\0';
	ws_record_verify(a, label, row, name, digest, size, r->kind == WS_RECORD_INSTALLED);
}

/* The rows no member matched, and the record's verdict (complete or not: a row is judged
 * by what was told of it). */
static void record_finish(struct ws_drive_check *c, struct ws_artifact *a, const char *label, bool complete)
{
	struct ws_recordcheck *r = (struct ws_recordcheck *)c;
	struct ws_record *rec = &a->record;
	size_t n = r->kind == WS_RECORD_CONDA ? r->pkg.nfiles : r->rec.n;
	for (size_t k = 0; r->state && k < n; k++) {
		bool hashed = r->kind == WS_RECORD_CONDA ? r->pkg.files[k].sha256[0] != 0 : r->rec.line[k].algo[0] != 0;
		if (r->state[k] == ROW_UNTOLD && r->kind == WS_RECORD_WHEEL)
			ws_strv_push(&rec->missing, &rec->nmissing, r->rec.line[k].path);
		/* PEP 427: every file but RECORD (and its signatures) has a hash; one without
		 * is a member nothing checks, so the record is not "ok" (an installed RECORD
		 * lists .pyc and INSTALLER files without one, as pip writes them) */
		else if (r->kind == WS_RECORD_WHEEL && !hashed && !own_record(r, r->rec.line[k].path))
			ws_strv_push(&rec->unhashed, &rec->nunhashed, r->rec.line[k].path);
		/* an installed row outside the tree (../../bin) is never told, and not counted */
		if (!hashed || (r->state[k] == ROW_UNTOLD && r->kind != WS_RECORD_WHEEL))
			continue;
		rec->nhashed++;
		rec->nunread += r->state[k] == ROW_UNREAD;
	}
	rec->checked = true;
	ws_record_conclude(rec);
}

static void record_free(struct ws_drive_check *c)
{
	struct ws_recordcheck *r = (struct ws_recordcheck *)c;
	ws_record_index_free(&r->rec);
	ws_conda_free(&r->pkg);
	free(r->by_path);
	free(r->state);
	free(r->distinfo);
	free(r);
}

static const struct ws_drive_check_ops record_ops = {
	.algo = record_algo, .member = record_member, .finish = record_finish, .free = record_free,
};
