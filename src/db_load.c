/* db_load.c - rebuilds an artifact from the store as the scanner left it (objects,
 * containers, entries, kernel names, errors, wheel facts, RECORD findings), so that the
 * same judge and writers serve it as if the file had been read. The store is a file like
 * any other: every count, index and string from it is checked before use. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_db.h"
#include "ws_util.h"

struct loader {
	struct ws_db *db;
	bool bad;           /* the rows contradict each other: the store is damaged */
};

/* The store's cached statement for sql (a literal: cached by its address); given back
 * with ws_db_release, never finalized here. */
static sqlite3_stmt *prep(struct loader *L, const char *sql)
{
	return ws_db_stmt(L->db, sql);
}

static char *col_str(sqlite3_stmt *s, int i, bool *oom)
{
	const unsigned char *v = sqlite3_column_text(s, i);
	if (!v)
		return NULL;
	char *c = ws_strdup((const char *)v);
	if (!c)
		*oom = true;
	return c;
}

static void col_fixed(sqlite3_stmt *s, int i, char *buf, size_t len)
{
	const unsigned char *v = sqlite3_column_text(s, i);
	snprintf(buf, len, "%s", v ? (const char *)v : "");
}

static uint64_t col_u64(sqlite3_stmt *s, int i)
{
	return (uint64_t)sqlite3_column_int64(s, i);
}

/* An integer column that must fit max; marks the store bad otherwise. */
static uint32_t col_bounded(struct loader *L, sqlite3_stmt *s, int i, uint64_t max)
{
	int64_t v = sqlite3_column_int64(s, i);
	if (v < 0 || (uint64_t)v > max) {
		L->bad = true;
		return 0;
	}
	return (uint32_t)v;
}

/* Steps s: 1 a row, 0 done, -1 error (recorded). */
static int step(struct loader *L, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	ws_db_fail(L->db, "reading a stored artifact");
	return -1;
}

static int load_entry(struct loader *L, sqlite3_stmt *s, struct ws_entry *e, uint32_t nkernels_pool, bool *oom)
{
	int i = 2;
	e->kind = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	e->arch = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	const unsigned char *suf = sqlite3_column_text(s, i++);
	e->suffix = suf && (suf[0] == 'a' || suf[0] == 'f') ? (char)suf[0] : 0;
	col_fixed(s, i++, e->name, sizeof e->name);
	e->offset = col_u64(s, i++);
	e->header_size = col_bounded(L, s, i++, UINT32_MAX);
	e->payload_size = col_u64(s, i++);
	e->flags = col_u64(s, i++);
	e->fmt_major = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	e->fmt_minor = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	e->compression = (enum ws_compression)col_bounded(L, s, i++, WS_COMP_ZSTD);
	e->compressed_size = col_bounded(L, s, i++, UINT32_MAX);
	e->uncompressed_size = col_u64(s, i++);
	e->content_size = col_u64(s, i++);
	e->opaque = sqlite3_column_int(s, i++) != 0;
	e->debug = sqlite3_column_int(s, i++) != 0;
	e->relocatable = sqlite3_column_int(s, i++) != 0;
	e->ptx_major = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	e->ptx_minor = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	col_fixed(s, i++, e->ptx_target, sizeof e->ptx_target);
	e->elf_sm = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	e->toolkit = (uint16_t)col_bounded(L, s, i++, UINT16_MAX);
	e->producer = col_str(s, i++, oom);
	e->tool_options = col_str(s, i++, oom);
	e->identifier = col_str(s, i++, oom);
	e->options = col_str(s, i++, oom);
	uint32_t nk = col_bounded(L, s, i++, nkernels_pool);
	e->kernels_known = sqlite3_column_int(s, i++) != 0;
	const uint8_t *blob = sqlite3_column_blob(s, i);
	int blen = sqlite3_column_bytes(s, i++);
	if (nk) {
		/* exactly nk indices, each naming a kernel of the object's pool */
		if (!blob || (uint64_t)blen != (uint64_t)nk * 4) {
			L->bad = true;
			return -1;
		}
		if (!(e->kernels = ws_calloc(nk, sizeof *e->kernels))) {
			*oom = true;
			return -1;
		}
		for (uint32_t k = 0; k < nk; k++) {
			e->kernels[k] = ws_le32(blob + 4 * (size_t)k);
			if (e->kernels[k] >= nkernels_pool) {
				L->bad = true;
				return -1;
			}
		}
		e->nkernels = nk;
	}
	e->error = col_str(s, i++, oom);
	return L->bad || *oom ? -1 : 0;
}

static int load_object(struct loader *L, int64_t oid, struct ws_object *o, bool *oom)
{
	sqlite3_stmt *s = prep(L, "SELECT name FROM kernel WHERE object_id = ? ORDER BY idx");
	int rc = -1;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, oid);
	int r;
	while ((r = step(L, s)) == 1) {
		const unsigned char *name = sqlite3_column_text(s, 0);
		uint32_t n = o->kernels.n;
		uint32_t k = ws_strpool_intern(&o->kernels, name ? (const char *)name : "", name ? strlen((const char *)name) : 0);
		if (k == UINT32_MAX) {
			*oom = true;
			goto out;
		}
		if (k != n) {                  /* a name twice: the indices would shift */
			L->bad = true;
			goto out;
		}
	}
	if (r < 0)
		goto out;
	ws_db_release(s);
	if (!(s = prep(L, "SELECT id, section, offset, size, relocatable, nkernels, error FROM container"
			  " WHERE object_id = ? ORDER BY seq")))
		return -1;
	sqlite3_bind_int64(s, 1, oid);
	sqlite3_stmt *es = prep(L, "SELECT * FROM entry WHERE container_id = ? ORDER BY seq");
	if (!es)
		goto out;
	while ((r = step(L, s)) == 1) {
		struct ws_fatbin *f = ws_object_add_fatbin(o);
		if (!f) {
			*oom = true;
			goto out_es;
		}
		col_fixed(s, 1, f->section, sizeof f->section);
		f->offset = col_u64(s, 2);
		f->size = col_u64(s, 3);
		f->relocatable = sqlite3_column_int(s, 4) != 0;
		f->nkernels = (uint32_t)col_u64(s, 5);
		f->error = col_str(s, 6, oom);
		sqlite3_reset(es);
		sqlite3_bind_int64(es, 1, sqlite3_column_int64(s, 0));
		while ((r = step(L, es)) == 1) {
			uint32_t cap = f->nentries;
			if (f->nentries >= UINT32_MAX / 2 ||
			    !ws_grow((void **)&f->entries, &cap, f->nentries + 1, sizeof *f->entries)) {
				*oom = true;
				goto out_es;
			}
			struct ws_entry *e = &f->entries[f->nentries++];
			memset(e, 0, sizeof *e);
			if (load_entry(L, es, e, o->kernels.n, oom) < 0)
				goto out_es;
		}
		if (r < 0)
			goto out_es;
	}
	rc = r < 0 || *oom || L->bad ? -1 : 0;
out_es:
	ws_db_release(es);
out:
	ws_db_release(s);
	return rc;
}

static int load_record(struct loader *L, int64_t id, struct ws_artifact *a, bool *oom)
{
	struct ws_record *rec = &a->record;
	sqlite3_stmt *s = prep(L, "SELECT kind, name FROM record_issue WHERE artifact_id = ? ORDER BY kind, seq");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int r;
	while ((r = step(L, s)) == 1) {
		const char *kind = (const char *)sqlite3_column_text(s, 0);
		const char *name = (const char *)sqlite3_column_text(s, 1);
		char ***v = NULL;
		size_t *n = NULL;
		if (kind && (!strcmp(kind, "not_read") || !strcmp(kind, "hashed_rows"))) {
			/* a count, stored as the row's name (db.c put_record_counts) */
			char *end;
			unsigned long long c = strtoull(name ? name : "", &end, 10);
			if (!name || !*name || *end) {
				L->bad = true;
				break;
			}
			*(kind[0] == 'n' ? &rec->nunread : &rec->nhashed) = (size_t)c;
			continue;
		}
		if (kind && !strcmp(kind, "mismatched"))
			v = &rec->mismatched, n = &rec->nmismatched;
		else if (kind && !strcmp(kind, "missing"))
			v = &rec->missing, n = &rec->nmissing;
		else if (kind && !strcmp(kind, "unlisted"))
			v = &rec->unlisted, n = &rec->nunlisted;
		else if (kind && !strcmp(kind, "unhashed"))
			v = &rec->unhashed, n = &rec->nunhashed;
		else if (kind && !strcmp(kind, "superseded"))      /* an image's, kept with these */
			v = &a->superseded, n = &a->nsuperseded;
		if (!v) {
			L->bad = true;
			break;
		}
		if (!ws_strv_push(v, n, name ? name : "")) {
			*oom = true;
			break;
		}
	}
	ws_db_release(s);
	return r < 0 || L->bad || *oom ? -1 : 0;
}

static int load_errors(struct loader *L, int64_t id, struct ws_artifact *a, bool *oom)
{
	sqlite3_stmt *s = prep(L, "SELECT where_rel, where_has_path, message, code FROM error"
				  " WHERE artifact_id = ? ORDER BY seq");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int r;
	while ((r = step(L, s)) == 1) {
		const char *rel = (const char *)sqlite3_column_text(s, 0);
		const char *msg = (const char *)sqlite3_column_text(s, 2);
		int code = sqlite3_column_int(s, 3);
		if (code < WS_E_FORMAT || code > WS_E_MEMORY) {
			L->bad = true;
			break;
		}
		char where[2048];
		snprintf(where, sizeof where, "%s%s", sqlite3_column_int(s, 1) ? a->path : "", rel ? rel : "");
		ws_artifact_fail(a, where, (enum ws_errcode)code, "%s", msg ? msg : "");
	}
	ws_db_release(s);
	return r < 0 || L->bad ? -1 : 0;
}

static int load_wheel(struct loader *L, int64_t id, struct ws_artifact *a, bool *oom)
{
	sqlite3_stmt *s = prep(L, "SELECT * FROM wheel WHERE artifact_id = ?");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int r = step(L, s);
	if (r == 1) {
		struct ws_wheel_info *w = ws_calloc(1, sizeof *w);
		if (!w) {
			*oom = true;
		} else {
			a->wheel = w;
			char **v[] = {&w->name, &w->version, &w->local, &w->python_tag, &w->abi_tag, &w->platform_tag,
				      &w->meta_name, &w->meta_version};
			for (int i = 0; i < 8; i++)
				*v[i] = col_str(s, 1 + i, oom);
			w->requires_cuda_major = sqlite3_column_int(s, 9);
			w->requires_cuda_runtime = sqlite3_column_int(s, 10);
			w->requires_torch = col_str(s, 11, oom);
			w->generator = col_str(s, 12, oom);
		}
	}
	ws_db_release(s);
	return r < 0 || *oom ? -1 : 0;
}

/* A container image's images as put_images wrote them: rows numbered 0, 1, ... in order,
 * names and layers pointing at an image that exists. */
static int load_images(struct loader *L, int64_t id, struct ws_artifact *a, bool *oom)
{
	sqlite3_stmt *s = prep(L, "SELECT seq, manifest, config FROM image WHERE artifact_id = ? ORDER BY seq");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	uint32_t cap = 0;
	int r;
	while ((r = step(L, s)) == 1) {
		if (col_bounded(L, s, 0, UINT32_MAX - 1) != a->nimages || L->bad) {
			L->bad = true;
			break;
		}
		if (!ws_grow((void **)&a->images, &cap, a->nimages + 1, sizeof *a->images)) {
			*oom = true;
			break;
		}
		struct ws_image *im = &a->images[a->nimages++];
		memset(im, 0, sizeof *im);
		col_fixed(s, 1, im->manifest, sizeof im->manifest);
		col_fixed(s, 2, im->config, sizeof im->config);
	}
	ws_db_release(s);
	if (r < 0 || L->bad || *oom)
		return -1;
	if (!a->nimages)
		return 0;
	if (!(s = prep(L, "SELECT image_seq, name FROM image_name WHERE artifact_id = ? ORDER BY image_seq, seq")))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((r = step(L, s)) == 1) {
		struct ws_image *im = &a->images[col_bounded(L, s, 0, a->nimages - 1)];
		const char *name = (const char *)sqlite3_column_text(s, 1);
		size_t n = im->nnames;
		if (L->bad || im->nnames == UINT32_MAX) {
			L->bad = true;
			break;
		}
		if (!ws_strv_push(&im->names, &n, name ? name : "")) {
			*oom = true;
			break;
		}
		im->nnames = (uint32_t)n;
	}
	ws_db_release(s);
	if (r < 0 || L->bad || *oom)
		return -1;
	if (!(s = prep(L, "SELECT image_seq, member, digest, size FROM image_layer WHERE artifact_id = ?"
			  " ORDER BY image_seq, seq")))
		return -1;
	sqlite3_bind_int64(s, 1, id);
	uint32_t lcap = 0, last = UINT32_MAX;
	while ((r = step(L, s)) == 1) {
		uint32_t i = col_bounded(L, s, 0, a->nimages - 1);
		struct ws_image *im = &a->images[i];
		if (i != last)
			lcap = im->nlayers;       /* layers of each image arrive together */
		last = i;
		if (L->bad || !ws_grow((void **)&im->layers, &lcap, im->nlayers + 1, sizeof *im->layers)) {
			*oom = !L->bad;
			break;
		}
		struct ws_image_layer *l = &im->layers[im->nlayers++];
		memset(l, 0, sizeof *l);
		l->member = col_str(s, 1, oom);
		col_fixed(s, 2, l->digest, sizeof l->digest);
		l->size = col_u64(s, 3);
		if (*oom)
			break;
	}
	ws_db_release(s);
	return r < 0 || L->bad || *oom ? -1 : 0;
}

struct ws_artifact *ws_db_load(struct ws_db *db, int64_t id, const char *path)
{
	struct loader L = {.db = db};
	bool oom = false;
	ws_db_errorf(db, "%s", "");         /* a failure below always leaves its own reason */
	struct ws_artifact *a = ws_calloc(1, sizeof *a);
	if (!a || !(a->path = ws_strdup(path))) {
		free(a);
		return NULL;
	}
	sqlite3_stmt *s = prep(&L, "SELECT type, sha256, size, size_unknown, origin, build_cuda_hint, members_scanned,"
				   " bytes_inflated, record_checked, record_ok FROM artifact WHERE id = ?");
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	if (step(&L, s) != 1) {
		ws_db_release(s);
		goto fail;
	}
	const char *type = (const char *)sqlite3_column_text(s, 0);
	int at = ws_artifact_type_lookup(type ? type : "unknown");
	if (at < 0)                        /* no scan writes it */
		L.bad = true;
	else
		a->type = (enum ws_artifact_type)at;
	col_fixed(s, 1, a->sha256, sizeof a->sha256);
	a->size = col_u64(s, 2);
	a->size_unknown = sqlite3_column_int(s, 3) != 0;
	a->origin = col_str(s, 4, &oom);
	a->build_cuda_hint = sqlite3_column_int(s, 5);
	a->members_scanned = col_u64(s, 6);
	a->bytes_inflated = col_u64(s, 7);
	a->record.checked = sqlite3_column_int(s, 8) != 0;
	a->record.ok = sqlite3_column_int(s, 9) != 0;
	ws_db_release(s);
	if (at < 0 || oom || load_wheel(&L, id, a, &oom) < 0 || load_record(&L, id, a, &oom) < 0 ||
	    load_errors(&L, id, a, &oom) < 0 || load_images(&L, id, a, &oom) < 0)
		goto fail;
	if (!(s = prep(&L, "SELECT id, member, type, size FROM object WHERE artifact_id = ? ORDER BY seq")))
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	int r;
	while ((r = step(&L, s)) == 1) {
		struct ws_object *o = ws_artifact_add_object(a);
		if (!o) {
			oom = true;
			break;
		}
		o->member = col_str(s, 1, &oom);
		const char *t = (const char *)sqlite3_column_text(s, 2);
		int ot = ws_object_type_lookup(t ? t : "");
		o->size = col_u64(s, 3);
		if (ot < 0) {                  /* no scan writes it */
			L.bad = true;
			break;
		}
		o->type = (enum ws_object_type)ot;
		if (load_object(&L, sqlite3_column_int64(s, 0), o, &oom) < 0)
			break;
	}
	ws_db_release(s);
	if (r != 0)
		goto fail;
	return a;
fail:
	if (L.bad)
		ws_db_errorf(db, "the store is damaged: the rows of '%s' contradict each other (restore it or "
			     "move it away)", path);
	else if (oom)
		ws_db_errorf(db, "out of memory reading '%s' from the store", path);
	else if (!ws_db_error(db)[0])
		ws_db_errorf(db, "the store is damaged: '%s' cannot be read back (restore it or move it away)", path);
	ws_artifact_free(a);
	return NULL;
}
