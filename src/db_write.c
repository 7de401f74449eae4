/* db_write.c - an artifact's rows in the results store: its wheel, RECORD counts, images,
 * errors, objects with their containers and entries, and the verdicts per target; each
 * artifact in its own savepoint of the batch (db.c), so one that fails leaves the others. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_store.h"
#include "ws_util.h"

static const char *dist_name(const struct ws_artifact *a)
{
	if (!a->wheel)
		return NULL;
	return a->wheel->meta_name ? a->wheel->meta_name : a->wheel->name;
}

static const char *dist_version(const struct ws_artifact *a)
{
	if (!a->wheel)
		return NULL;
	return a->wheel->meta_version ? a->wheel->meta_version : a->wheel->version;
}

static bool io_error(const struct ws_artifact *a)
{
	for (uint32_t i = 0; i < a->nerrors; i++)
		if (a->errors[i].code == WS_E_IO || a->errors[i].code == WS_E_MEMORY)
			return true;      /* may go away by itself: never served from the store */
	return false;
}

static int put_wheel(struct ws_db *db, int64_t id, const struct ws_wheel_info *w)
{
	sqlite3_stmt *s = ws_db_stmt(db, "INSERT INTO wheel VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	const char *v[] = {w->name, w->version, w->local, w->python_tag, w->abi_tag, w->platform_tag,
			   w->meta_name, w->meta_version};
	for (int i = 0; i < 8; i++)
		bind_text(s, 2 + i, v[i]);
	sqlite3_bind_int(s, 10, w->requires_cuda_major);
	sqlite3_bind_int(s, 11, w->requires_cuda_runtime);
	bind_text(s, 12, w->requires_torch);
	bind_text(s, 13, w->generator);
	return ws_db_done(db, s, "storing wheel facts");
}

static int put_record(struct ws_db *db, int64_t id, const char *kind, char **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sqlite3_stmt *s = ws_db_stmt(db, "INSERT INTO record_issue VALUES(?,?,?,?)");
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_text(s, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 3, (int64_t)i);
		bind_text(s, 4, v[i] ? v[i] : "");
		if (ws_db_done(db, s, "storing RECORD findings") < 0)
			return -1;
	}
	return 0;
}

/* The RECORD rows checked and those not read (an incomplete check), as two record_issue
 * rows whose name is the count, when there are any: the schema needs no new column. */
static int put_record_counts(struct ws_db *db, int64_t id, const struct ws_record *rec)
{
	char nr[24], nh[24];
	char *vr[1] = {nr}, *vh[1] = {nh};
	snprintf(nr, sizeof nr, "%zu", rec->nunread);
	snprintf(nh, sizeof nh, "%zu", rec->nhashed);
	return put_record(db, id, "not_read", vr, rec->nunread ? 1 : 0) < 0 ||
	       put_record(db, id, "hashed_rows", vh, rec->nhashed ? 1 : 0) < 0 ? -1 : 0;
}

/* A container image's images: names, manifest and config digests, layers in order. */
static int put_images(struct ws_db *db, int64_t id, const struct ws_artifact *a)
{
	for (uint32_t i = 0; i < a->nimages; i++) {
		const struct ws_image *im = &a->images[i];
		sqlite3_stmt *s = ws_db_stmt(db, "INSERT INTO image VALUES(?,?,?,?)");
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, i);
		sqlite3_bind_text(s, 3, im->manifest, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, im->config, -1, SQLITE_STATIC);
		if (ws_db_done(db, s, "storing images") < 0)
			return -1;
		for (uint32_t k = 0; k < im->nnames; k++) {
			if (!(s = ws_db_stmt(db, "INSERT INTO image_name VALUES(?,?,?,?)")))
				return -1;
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int64(s, 2, i);
			sqlite3_bind_int64(s, 3, k);
			bind_text(s, 4, im->names[k] ? im->names[k] : "");
			if (ws_db_done(db, s, "storing image names") < 0)
				return -1;
		}
		for (uint32_t k = 0; k < im->nlayers; k++) {
			const struct ws_image_layer *l = &im->layers[k];
			if (!(s = ws_db_stmt(db, "INSERT INTO image_layer VALUES(?,?,?,?,?,?)")))
				return -1;
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int64(s, 2, i);
			sqlite3_bind_int64(s, 3, k);
			bind_text(s, 4, l->member ? l->member : "");
			sqlite3_bind_text(s, 5, l->digest, -1, SQLITE_STATIC);
			sqlite3_bind_int64(s, 6, (int64_t)l->size);
			if (ws_db_done(db, s, "storing image layers") < 0)
				return -1;
		}
	}
	return 0;
}

static int put_errors(struct ws_db *db, int64_t id, const struct ws_artifact *a)
{
	size_t pl = strlen(a->path);
	for (uint32_t i = 0; i < a->nerrors; i++) {
		const struct ws_error *e = &a->errors[i];
		const char *where = e->where ? e->where : "";
		/* the path is the one this run used; a later run from elsewhere puts its own */
		bool has_path = !strncmp(where, a->path, pl);
		sqlite3_stmt *s = ws_db_stmt(db, "INSERT INTO error VALUES(?,?,?,?,?,?)");
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, i);
		sqlite3_bind_text(s, 3, has_path ? where + pl : where, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 4, has_path);
		bind_text(s, 5, e->message ? e->message : "");
		sqlite3_bind_int(s, 6, (int)e->code);
		if (ws_db_done(db, s, "storing errors") < 0)
			return -1;
	}
	return 0;
}

static int put_entry(struct ws_db *db, sqlite3_stmt *s, int64_t cid, uint32_t seq, const struct ws_entry *e)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	char suffix[2] = {e->suffix, 0};
	int i = 1;
	sqlite3_bind_int64(s, i++, cid);
	sqlite3_bind_int64(s, i++, seq);
	sqlite3_bind_int(s, i++, e->kind);
	sqlite3_bind_int(s, i++, e->arch);
	bind_text(s, i++, e->suffix ? suffix : NULL);
	sqlite3_bind_text(s, i++, e->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, i++, (int64_t)e->offset);
	sqlite3_bind_int64(s, i++, e->header_size);
	sqlite3_bind_int64(s, i++, (int64_t)e->payload_size);
	sqlite3_bind_int64(s, i++, (int64_t)e->flags);
	sqlite3_bind_int(s, i++, e->fmt_major);
	sqlite3_bind_int(s, i++, e->fmt_minor);
	sqlite3_bind_int(s, i++, (int)e->compression);
	sqlite3_bind_int64(s, i++, e->compressed_size);
	sqlite3_bind_int64(s, i++, (int64_t)e->uncompressed_size);
	sqlite3_bind_int64(s, i++, (int64_t)e->content_size);
	sqlite3_bind_int(s, i++, e->opaque);
	sqlite3_bind_int(s, i++, e->debug);
	sqlite3_bind_int(s, i++, e->relocatable);
	sqlite3_bind_int(s, i++, e->ptx_major);
	sqlite3_bind_int(s, i++, e->ptx_minor);
	sqlite3_bind_text(s, i++, e->ptx_target, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i++, e->elf_sm);
	sqlite3_bind_int(s, i++, e->toolkit);
	bind_text(s, i++, e->producer);
	bind_text(s, i++, e->tool_options);
	bind_text(s, i++, e->identifier);
	bind_text(s, i++, e->options);
	sqlite3_bind_int64(s, i++, e->nkernels);
	sqlite3_bind_int(s, i++, e->kernels_known);
	/* kernel indices as little-endian uint32, as many as nkernels */
	uint8_t *blob = NULL;
	if (e->nkernels && e->kernels) {
		if (!(blob = ws_malloc((size_t)e->nkernels * 4))) {
			ws_db_errorf(db, "%s: out of memory storing an entry", db->path);
			return -1;
		}
		for (uint32_t k = 0; k < e->nkernels; k++) {
			uint32_t v = e->kernels[k];
			blob[4 * k] = (uint8_t)v;
			blob[4 * k + 1] = (uint8_t)(v >> 8);
			blob[4 * k + 2] = (uint8_t)(v >> 16);
			blob[4 * k + 3] = (uint8_t)(v >> 24);
		}
		sqlite3_bind_blob64(s, i++, blob, (sqlite3_uint64)e->nkernels * 4, free);
	} else {
		sqlite3_bind_null(s, i++);
	}
	bind_text(s, i++, e->error);
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		ws_db_fail(db, "storing an entry");
		return -1;
	}
	return 0;
}

static int put_object(struct ws_db *db, int64_t aid, uint32_t seq, const struct ws_object *o)
{
	sqlite3_stmt *s = ws_db_stmt(db, "INSERT INTO object(artifact_id, seq, member, type, size, nkernels)"
				   " VALUES(?,?,?,?,?,?)");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, aid);
	sqlite3_bind_int64(s, 2, seq);
	bind_text(s, 3, o->member);
	bind_text(s, 4, ws_object_type_name(o->type));
	sqlite3_bind_int64(s, 5, (int64_t)o->size);
	sqlite3_bind_int64(s, 6, o->kernels.n);
	if (ws_db_done(db, s, "storing an object") < 0)
		return -1;
	int64_t oid = sqlite3_last_insert_rowid(db->h);
	if (o->kernels.n) {
		if (!(s = ws_db_stmt(db, "INSERT INTO kernel VALUES(?,?,?)")))
			return -1;
		for (uint32_t k = 0; k < o->kernels.n; k++) {
			char anon[32];
			/* a pool of hashes only (names not kept): distinct placeholders keep the count */
			const char *name = o->kernels.str && o->kernels.str[k] ? o->kernels.str[k]
										: ws_fmt(anon, sizeof anon, "#%u", k);
			sqlite3_reset(s);
			sqlite3_bind_int64(s, 1, oid);
			sqlite3_bind_int64(s, 2, k);
			sqlite3_bind_text(s, 3, name, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(s) != SQLITE_DONE) {
				ws_db_fail(db, "storing kernel names");
				ws_db_release(s);
				return -1;
			}
		}
		ws_db_release(s);
	}
	sqlite3_stmt *es = ws_db_stmt(db, "INSERT INTO entry VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
				    "?,?,?,?)");
	if (!es)
		return -1;
	for (uint32_t k = 0; k < o->nfatbins; k++) {
		const struct ws_fatbin *f = &o->fatbins[k];
		if (!(s = ws_db_stmt(db, "INSERT INTO container(object_id, seq, section, offset, size, relocatable,"
				   " nkernels, error) VALUES(?,?,?,?,?,?,?,?)")))
			goto fail;
		sqlite3_bind_int64(s, 1, oid);
		sqlite3_bind_int64(s, 2, k);
		sqlite3_bind_text(s, 3, f->section, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 4, (int64_t)f->offset);
		sqlite3_bind_int64(s, 5, (int64_t)f->size);
		sqlite3_bind_int(s, 6, f->relocatable);
		sqlite3_bind_int64(s, 7, f->nkernels);
		bind_text(s, 8, f->error);
		if (ws_db_done(db, s, "storing a container") < 0)
			goto fail;
		int64_t cid = sqlite3_last_insert_rowid(db->h);
		for (uint32_t e = 0; e < f->nentries; e++)
			if (put_entry(db, es, cid, e, &f->entries[e]) < 0)
				goto fail;
	}
	ws_db_release(es);
	return 0;
fail:
	ws_db_release(es);
	return -1;
}

/* Verdict rows of this run's targets: the artifact's (object -1), each object's and each
 * container's. Replaces rows of the same targets. */
static int put_verdicts(struct ws_db *db, int64_t aid, const struct ws_artifact *a)
{
	if (!db->nt || !a->verdicts || a->njudged != db->nt)
		return 0;
	sqlite3_stmt *s = ws_db_stmt(db, "INSERT OR REPLACE INTO verdict VALUES(?,?,?,?,?,?,?,?)");
	if (!s)
		return -1;
	for (int64_t oi = -1; oi < (int64_t)a->nobjects; oi++) {
		const struct ws_object *o = oi < 0 ? NULL : &a->objects[oi];
		uint32_t nf = o ? o->nfatbins : 0;
		for (int64_t fi = -1; fi < (int64_t)nf; fi++) {
			const enum ws_verdict *v = !o ? a->verdicts : fi < 0 ? o->verdicts : o->fatbins[fi].verdicts;
			if (!v)
				continue;
			for (size_t t = 0; t < db->nt; t++) {
				sqlite3_reset(s);
				sqlite3_bind_int64(s, 1, aid);
				sqlite3_bind_int64(s, 2, oi);
				sqlite3_bind_int64(s, 3, fi);
				sqlite3_bind_text(s, 4, db->targets[t].name, -1, SQLITE_STATIC);
				sqlite3_bind_int(s, 5, db->targets[t].cc);
				sqlite3_bind_int(s, 6, db->driver_cuda);
				sqlite3_bind_text(s, 7, ws_verdict_name(v[t]), -1, SQLITE_STATIC);
				bind_id(s, 8, db->run);
				if (sqlite3_step(s) != SQLITE_DONE) {
					ws_db_fail(db, "storing verdicts");
					ws_db_release(s);
					return -1;
				}
			}
		}
	}
	ws_db_release(s);
	return 0;
}

int ws_db_put_rows(struct ws_db *db, const char *key, const struct ws_artifact *a, const struct ws_db_meta *m,
		   int64_t *idp)
{
	sqlite3_stmt *s = ws_db_stmt(db, "DELETE FROM artifact WHERE path = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (ws_db_done(db, s, "replacing a stored artifact") < 0)
		return -1;
	if (!(s = ws_db_stmt(db, "INSERT INTO artifact(path, input_kind, from_tree, size, size_unknown, mtime_ns, sha256,"
			   " type, dist_name, dist_version, tool_version, schema_version, scan_opts, origin,"
			   " build_cuda_hint, members_scanned, bytes_inflated, record_checked, record_ok, nerrors,"
			   " io_error, first_run, changed_run, seen_run, removed_run, scanned_at)"
			   " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")))
		return -1;
	int i = 1;
	sqlite3_bind_text(s, i++, key, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i++, m->kind & 0xff);
	sqlite3_bind_int(s, i++, (m->kind >> 8) & 1);
	sqlite3_bind_int64(s, i++, (int64_t)m->size);
	sqlite3_bind_int(s, i++, a->size_unknown);
	sqlite3_bind_int64(s, i++, m->mtime_ns);
	sqlite3_bind_text(s, i++, a->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, i++, ws_artifact_type_name(a->type), -1, SQLITE_STATIC);
	bind_text(s, i++, dist_name(a));
	bind_text(s, i++, dist_version(a));
	sqlite3_bind_text(s, i++, m->tool_version, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i++, m->schema_version);
	sqlite3_bind_text(s, i++, m->scan_opts, -1, SQLITE_STATIC);
	bind_text(s, i++, a->origin);
	sqlite3_bind_int(s, i++, a->build_cuda_hint);
	sqlite3_bind_int64(s, i++, (int64_t)a->members_scanned);
	sqlite3_bind_int64(s, i++, (int64_t)a->bytes_inflated);
	sqlite3_bind_int(s, i++, a->record.checked);
	sqlite3_bind_int(s, i++, a->record.ok);
	sqlite3_bind_int64(s, i++, a->nerrors);
	sqlite3_bind_int(s, i++, io_error(a));
	bind_id(s, i++, m->first_run);
	bind_id(s, i++, m->changed_run);
	bind_id(s, i++, m->seen_run);
	bind_id(s, i++, m->removed_run);
	sqlite3_bind_text(s, i++, m->scanned_at, -1, SQLITE_STATIC);
	if (ws_db_done(db, s, "storing an artifact") < 0)
		return -1;
	int64_t id = sqlite3_last_insert_rowid(db->h);
	*idp = id;
	if (a->wheel && put_wheel(db, id, a->wheel) < 0)
		return -1;
	if (put_record(db, id, "mismatched", a->record.mismatched, a->record.nmismatched) < 0 ||
	    put_record(db, id, "missing", a->record.missing, a->record.nmissing) < 0 ||
	    put_record(db, id, "unlisted", a->record.unlisted, a->record.nunlisted) < 0 ||
	    put_record(db, id, "superseded", a->superseded, a->nsuperseded) < 0 ||
	    put_record(db, id, "unhashed", a->record.unhashed, a->record.nunhashed) < 0 ||
	    put_record_counts(db, id, &a->record) < 0 ||
	    put_errors(db, id, a) < 0 || put_images(db, id, a) < 0)
		return -1;
	for (uint32_t k = 0; k < a->nobjects; k++)
		if (put_object(db, id, k, &a->objects[k]) < 0)
			return -1;
	return 0;
}

int ws_db_put(struct ws_db *db, const char *key, const struct ws_artifact *a, int kind, uint64_t size,
	      int64_t mtime_ns, struct ws_db_counts *c)
{
	if (ws_db_write_begin(db) < 0)
		return -1;
	/* what the store held before: first seen, and whether this is a change */
	int64_t first = 0, changed = 0, seen = 0;
	bool existed = false, same = false;
	sqlite3_stmt *s = ws_db_stmt(db, "SELECT first_run, changed_run, sha256 = ? AND removed_run IS NULL, seen_run"
				   " FROM artifact WHERE path = ?");
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, a->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		existed = true;
		first = sqlite3_column_int64(s, 0);
		changed = sqlite3_column_int64(s, 1);
		same = sqlite3_column_int(s, 2) != 0;
		seen = sqlite3_column_int64(s, 3);
	} else if (rc != SQLITE_DONE) {
		ws_db_fail(db, "looking up a path");
		ws_db_release(s);
		goto fail;
	}
	ws_db_release(s);
	char at[40];
	ws_db_now_iso(at, sizeof at);
	struct ws_db_meta m = {.kind = kind, .size = size, .mtime_ns = mtime_ns, .tool_version = WS_VERSION,
			       .schema_version = WS_SCHEMA_VERSION, .scan_opts = db->scan_opts, .scanned_at = at,
			       .first_run = existed && first ? first : db->run,
			       .changed_run = existed && same && changed ? changed : db->run,
			       /* a concurrent run that began later may have seen it: keep the latest */
			       .seen_run = seen > db->run ? seen : db->run};
	int64_t id;
	if (ws_db_put_rows(db, key, a, &m, &id) < 0 || put_verdicts(db, id, a) < 0)
		goto fail;
	if (ws_db_write_end(db, true) < 0)
		return -1;
	if (!existed)
		c->added++;
	else if (!same)
		c->changed++;
	return 0;
fail:
	return ws_db_write_end(db, false);
}

int ws_db_seen(struct ws_db *db, const char *key, int64_t id, const struct ws_artifact *a)
{
	if (ws_db_write_begin(db) < 0)
		return -1;
	/* By path: a concurrent run may have stored a new scan of the file meanwhile (a new
	 * row), which this run has seen all the same. */
	sqlite3_stmt *s = ws_db_stmt(db, "UPDATE artifact SET seen_run = max(coalesce(seen_run, 0), ?) WHERE path = ?"
				   " RETURNING id");
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, db->run);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	int64_t now = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ws_db_fail(db, "marking an artifact seen");
	ws_db_release(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto fail;
	/* the verdicts judge the model this run loaded: stored only beside that same row */
	if (now == id && put_verdicts(db, id, a) < 0)
		goto fail;
	return ws_db_write_end(db, true);
fail:
	return ws_db_write_end(db, false);
}
