/* db_merge.c - --db ALL --merge a.db b.db ...: joins stores (one per shard or machine)
 * into one. Artifacts are keyed by their path below the scan root; of two rows for one
 * path the later scan wins, an equal one is kept once. Run history rows come along (a
 * run already present is not copied twice), and the artifacts' run references with them. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_db.h"
#include "ws_quote.h"

/* src's run ids (ascending: read in id order) and what they became in dst. */
#define MERGE_BATCH 1000

struct run_map {
	int64_t *old, *new;
	size_t n;
	uint32_t cap;
};

static int64_t map_run(const struct run_map *m, int64_t old)
{
	size_t lo = 0, hi = m->n;
	while (old && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->old[mid] == old)
			return m->new[mid];
		if (m->old[mid] < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* dst's runs by what makes two rows one run (started, tool version, targets, shard):
 * a hash table, so that merging a store of many runs costs one lookup per run, not a
 * scan of dst's whole history for each. */
struct run_keys {
	struct rk { uint64_t h; int64_t id; char *key; size_t len; } *slot;
	size_t nslot, n;
};

/* The key of columns c[0..3] of s: each NULL or its text, length-prefixed. */
static char *run_key(sqlite3_stmt *s, const int c[4], size_t *len)
{
	size_t n = 0;
	for (int i = 0; i < 4; i++)
		n += 1 + sizeof(size_t) + (size_t)sqlite3_column_bytes(s, c[i]);
	char *k = ws_malloc(n ? n : 1), *p = k;
	if (!k)
		return NULL;
	for (int i = 0; i < 4; i++) {
		bool null = sqlite3_column_type(s, c[i]) == SQLITE_NULL;
		const unsigned char *t = null ? NULL : sqlite3_column_text(s, c[i]);
		size_t l = null ? 0 : (size_t)sqlite3_column_bytes(s, c[i]);
		*p++ = null ? 'N' : 'T';
		memcpy(p, &l, sizeof l);
		p += sizeof l;
		if (l)
			memcpy(p, t, l);
		p += l;
	}
	*len = n;
	return k;
}

static struct rk *rk_find(const struct run_keys *t, const char *k, size_t len, uint64_t h)
{
	for (size_t i = h & (t->nslot - 1);; i = (i + 1) & (t->nslot - 1)) {
		struct rk *e = &t->slot[i];
		if (!e->key || (e->h == h && e->len == len && !memcmp(e->key, k, len)))
			return e;
	}
}

/* Adds key -> id (taking key); false when out of memory (key freed). */
static bool rk_add(struct run_keys *t, char *key, size_t len, int64_t id)
{
	if ((t->n + 1) * 2 > t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 1024;
		struct rk *old = t->slot, *nw = ws_calloc(ns, sizeof *nw);
		if (!nw) {
			free(key);
			return false;
		}
		size_t on = t->nslot;
		t->slot = nw;
		t->nslot = ns;
		for (size_t i = 0; i < on; i++)
			if (old[i].key)
				*rk_find(t, old[i].key, old[i].len, old[i].h) = old[i];
		free(old);
	}
	uint64_t h = ws_hash64(key, len);
	struct rk *e = rk_find(t, key, len, h);
	if (e->key) {
		free(key);                     /* dst holds one run twice: the first answers */
		return true;
	}
	*e = (struct rk){ .h = h, .id = id, .key = key, .len = len };
	t->n++;
	return true;
}

static void rk_free(struct run_keys *t)
{
	for (size_t i = 0; i < t->nslot; i++)
		free(t->slot[i].key);
	free(t->slot);
}

/* Copies src's run rows into dst (or finds the same run there); fills the id map. One
 * transaction for them all. */
static int merge_runs(struct ws_db *dst, struct ws_db *src, struct run_map *m)
{
	static const char cols[] = "started, ended, tool_version, schema_version, targets, driver_cuda, shard,"
				   " scan_opts, scanned, reused, skipped, added, changed, removed, failed, status";
	static const int src_key[4] = { 1, 3, 5, 7 }, dst_key[4] = { 1, 2, 3, 4 };
	char sql[512];
	sqlite3_stmt *s = NULL, *have = NULL, *ins = NULL;
	struct run_keys keys = { 0 };
	bool in_tx = false;
	if (sqlite3_exec(ws_db_handle(dst), "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		ws_db_fail(dst, "locking the store");
		return -1;
	}
	in_tx = true;
	if (sqlite3_prepare_v2(ws_db_handle(dst), "SELECT id, started, tool_version, targets, shard FROM run", -1, &have,
			       NULL) != SQLITE_OK) {
		ws_db_fail(dst, "reading runs");
		goto fail;
	}
	int rc;
	while ((rc = sqlite3_step(have)) == SQLITE_ROW) {
		size_t len;
		char *k = run_key(have, dst_key, &len);
		if (!k || !rk_add(&keys, k, len, sqlite3_column_int64(have, 0))) {
			ws_db_errorf(dst, "out of memory merging");
			goto fail;
		}
	}
	if (rc != SQLITE_DONE) {
		ws_db_fail(dst, "reading runs");
		goto fail;
	}
	snprintf(sql, sizeof sql, "SELECT id, %s FROM run ORDER BY id", cols);
	if (sqlite3_prepare_v2(ws_db_handle(src), sql, -1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(src, "reading runs");
		goto fail;
	}
	snprintf(sql, sizeof sql, "INSERT INTO run(%s) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", cols);
	if (sqlite3_prepare_v2(ws_db_handle(dst), sql, -1, &ins, NULL) != SQLITE_OK) {
		ws_db_fail(dst, "copying runs");
		goto fail;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t len;
		char *k = run_key(s, src_key, &len);
		if (!k) {
			ws_db_errorf(dst, "out of memory merging");
			goto fail;
		}
		struct rk *e = keys.nslot ? rk_find(&keys, k, len, ws_hash64(k, len)) : NULL;
		int64_t id = 0;
		if (e && e->key) {
			id = e->id;
			free(k);
		} else {
			sqlite3_reset(ins);
			for (int c = 1; c <= 16; c++)
				sqlite3_bind_value(ins, c, sqlite3_column_value(s, c));
			if (sqlite3_step(ins) != SQLITE_DONE) {
				free(k);
				ws_db_fail(dst, "copying runs");
				goto fail;
			}
			id = sqlite3_last_insert_rowid(ws_db_handle(dst));
			if (!rk_add(&keys, k, len, id)) {   /* a later row of src may be the same run */
				ws_db_errorf(dst, "out of memory merging");
				goto fail;
			}
		}
		uint32_t cap = m->cap;
		if (!ws_grow((void **)&m->old, &cap, (uint32_t)m->n + 1, sizeof *m->old) ||
		    !ws_grow((void **)&m->new, &m->cap, (uint32_t)m->n + 1, sizeof *m->new)) {
			ws_db_errorf(dst, "out of memory merging");
			goto fail;
		}
		m->old[m->n] = sqlite3_column_int64(s, 0);
		m->new[m->n++] = id;
	}
	if (rc != SQLITE_DONE) {
		ws_db_fail(src, "reading runs");
		goto fail;
	}
	sqlite3_finalize(s);
	sqlite3_finalize(have);
	sqlite3_finalize(ins);
	rk_free(&keys);
	if (sqlite3_exec(ws_db_handle(dst), "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		ws_db_fail(dst, "committing runs");
		sqlite3_exec(ws_db_handle(dst), "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
fail:
	sqlite3_finalize(s);
	sqlite3_finalize(have);
	sqlite3_finalize(ins);
	rk_free(&keys);
	if (in_tx)
		sqlite3_exec(ws_db_handle(dst), "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int copy_verdicts(struct ws_db *dst, int64_t to, struct ws_db *src, int64_t from, const struct run_map *m)
{
	sqlite3_stmt *s, *ins = NULL;
	if (sqlite3_prepare_v2(ws_db_handle(src), "SELECT object_seq, container_seq, target, cc, driver_cuda,"
			       " verdict, run_id FROM verdict WHERE artifact_id = ?", -1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(src, "reading verdicts");
		return -1;
	}
	sqlite3_bind_int64(s, 1, from);
	if (sqlite3_prepare_v2(ws_db_handle(dst), "INSERT INTO verdict VALUES(?,?,?,?,?,?,?,?)", -1, &ins, NULL)
	    != SQLITE_OK) {
		ws_db_fail(dst, "copying verdicts");
		sqlite3_finalize(s);
		return -1;
	}
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, to);
		for (int c = 0; c < 6; c++)
			sqlite3_bind_value(ins, 2 + c, sqlite3_column_value(s, c));
		int64_t run = map_run(m, sqlite3_column_int64(s, 6));
		if (run)
			sqlite3_bind_int64(ins, 8, run);
		else
			sqlite3_bind_null(ins, 8);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			ws_db_fail(dst, "copying verdicts");
			rc = SQLITE_ERROR;
			break;
		}
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ERROR)
		ws_db_fail(src, "reading verdicts");
	sqlite3_finalize(s);
	sqlite3_finalize(ins);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* When a row was last known true: its scan, or the end of the run that found the file gone
 * (a removal is news about the path as much as a scan: a shard store's removal must win
 * over the other store's older row of the same scan). */
#define KNOWN_AT "coalesce((SELECT coalesce(r.ended, r.started) FROM run r WHERE r.id = artifact.removed_run)," \
		 " artifact.scanned_at)"

/* The later of the two rows for one path: src's when dst has none or older news of it. */
static int src_wins(struct ws_db *dst, const char *path, const char *known_at)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(ws_db_handle(dst), "SELECT " KNOWN_AT " >= ? FROM artifact WHERE path = ?", -1, &s,
			       NULL) != SQLITE_OK) {
		ws_db_fail(dst, "looking up a path");
		return -1;
	}
	sqlite3_bind_text(s, 1, known_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	int wins = rc == SQLITE_DONE || (rc == SQLITE_ROW && !sqlite3_column_int(s, 0));
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		ws_db_fail(dst, "looking up a path");
		wins = -1;
	}
	sqlite3_finalize(s);
	return wins;
}

static int merge_one(struct ws_db *dst, struct ws_db *src, size_t *copied, size_t *kept)
{
	struct run_map m = {0};
	sqlite3_stmt *s = NULL;
	int status = -1;
	bool tx = false;
	unsigned batch = 0;
	if (merge_runs(dst, src, &m) < 0)
		goto out;
	if (sqlite3_prepare_v2(ws_db_handle(src), "SELECT id, path, input_kind, from_tree, size, mtime_ns,"
			       " tool_version, schema_version, scan_opts, scanned_at, first_run, changed_run,"
			       " seen_run, removed_run, " KNOWN_AT " FROM artifact ORDER BY path", -1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(src, "reading artifacts");
		goto out;
	}
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 1);
		const char *at = (const char *)sqlite3_column_text(s, 9);
		const char *known = (const char *)sqlite3_column_text(s, 14);
		if (!path || !at || !known) {
			ws_db_errorf(src, "the store is damaged: an artifact without a path or scan time");
			goto out;
		}
		/* a transaction per MERGE_BATCH artifacts, not one each (50,000 took 12 s) */
		if (!tx && sqlite3_exec(ws_db_handle(dst), "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
			ws_db_fail(dst, "locking the store");
			goto out;
		}
		tx = true;
		int wins = src_wins(dst, path, known);
		struct ws_artifact *a = NULL;
		if (wins > 0 && !(a = ws_db_load(src, sqlite3_column_int64(s, 0), path)))
			wins = -1;
		if (wins > 0) {
			struct ws_db_meta meta = {
				.kind = sqlite3_column_int(s, 2) | (sqlite3_column_int(s, 3) ? 1 << 8 : 0),
				.size = (uint64_t)sqlite3_column_int64(s, 4), .mtime_ns = sqlite3_column_int64(s, 5),
				.tool_version = (const char *)sqlite3_column_text(s, 6),
				.schema_version = sqlite3_column_int(s, 7),
				.scan_opts = (const char *)sqlite3_column_text(s, 8), .scanned_at = at,
				.first_run = map_run(&m, sqlite3_column_int64(s, 10)),
				.changed_run = map_run(&m, sqlite3_column_int64(s, 11)),
				.seen_run = map_run(&m, sqlite3_column_int64(s, 12)),
				.removed_run = map_run(&m, sqlite3_column_int64(s, 13))};
			int64_t id;
			if (!meta.tool_version || !meta.scan_opts) {
				ws_db_errorf(src, "the store is damaged: '%s' lacks its tool version", path);
				wins = -1;
			} else if (ws_db_put_rows(dst, path, a, &meta, &id) < 0 ||
				   copy_verdicts(dst, id, src, sqlite3_column_int64(s, 0), &m) < 0) {
				wins = -1;
			}
		}
		ws_artifact_free(a);
		if (wins < 0)
			goto out;
		*(wins ? copied : kept) += 1;
		if (++batch == MERGE_BATCH) {
			batch = 0;
			tx = false;
			if (sqlite3_exec(ws_db_handle(dst), "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
				ws_db_fail(dst, "committing artifacts");
				goto out;
			}
		}
	}
	if (rc != SQLITE_DONE) {
		ws_db_fail(src, "reading artifacts");
		goto out;
	}
	if (tx && sqlite3_exec(ws_db_handle(dst), "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		ws_db_fail(dst, "committing artifacts");
		goto out;
	}
	tx = false;
	status = 0;
out:
	if (tx)                                /* the batch is undone whole: the store stays one state */
		sqlite3_exec(ws_db_handle(dst), "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(s);
	free(m.old);
	free(m.new);
	return status;
}

int ws_db_merge(struct ws_config *cfg)
{
	struct ws_err err = {0};
	struct ws_db *dst = ws_db_open(cfg->db, true, false, &err);
	if (!dst) {
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(err.msg));
		return WS_EXIT_INPUT;
	}
	int status = WS_EXIT_OK;
	for (size_t i = 0; i < cfg->npaths; i++) {
		err.code = 0;
		struct ws_db *src = ws_db_open(cfg->paths[i], false, false, &err);
		size_t copied = 0, kept = 0;
		if (!src) {
			fprintf(stderr, "wheelscan: store %s\n", ws_q_text(err.msg));
			status = WS_EXIT_INPUT;
			continue;
		}
		if (merge_one(dst, src, &copied, &kept) < 0) {
			fprintf(stderr, "wheelscan: merging %s: %s%s\n", ws_q_text(cfg->paths[i]), ws_q_text(ws_db_error(src)),
				ws_q_text(ws_db_error(dst)));
			status = WS_EXIT_INPUT;
		} else if (!cfg->quiet) {
			fprintf(stderr, "wheelscan: merged %s: %zu artifacts taken, %zu kept (as new or newer)\n",
				ws_q_text(cfg->paths[i]), copied, kept);
		}
		ws_db_close(src);
	}
	ws_db_close(dst);
	return status;
}
