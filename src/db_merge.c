/* db_merge.c - --db ALL --merge a.db b.db ...: joins stores (one per shard or machine)
 * into one. Artifacts are keyed by their path below the scan root; of two rows for one
 * path the later scan wins, an equal one is kept once. Run history rows come along (a
 * run already present is not copied twice), and the artifacts' run references with them. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_db.h"
#include "ws_util.h"

struct run_map {
	int64_t *old, *new;
	size_t n;
	uint32_t cap;
};

static int64_t map_run(const struct run_map *m, int64_t old)
{
	for (size_t i = 0; old && i < m->n; i++)
		if (m->old[i] == old)
			return m->new[i];
	return 0;
}

/* Copies src's run rows into dst (or finds the same run there); fills the id map. */
static int merge_runs(struct ws_db *dst, struct ws_db *src, struct run_map *m)
{
	static const char cols[] = "started, ended, tool_version, schema_version, targets, driver_cuda, shard,"
				   " scan_opts, scanned, reused, skipped, added, changed, removed, failed, status";
	char sql[512];
	sqlite3_stmt *s, *find = NULL, *ins = NULL;
	snprintf(sql, sizeof sql, "SELECT id, %s FROM run ORDER BY id", cols);
	if (sqlite3_prepare_v2(ws_db_handle(src), sql, -1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(src, "reading runs");
		return -1;
	}
	snprintf(sql, sizeof sql, "INSERT INTO run(%s) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", cols);
	if (sqlite3_prepare_v2(ws_db_handle(dst), "SELECT id FROM run WHERE started IS ?1 AND tool_version IS ?3"
			       " AND targets IS ?5 AND shard IS ?7", -1, &find, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ws_db_handle(dst), sql, -1, &ins, NULL) != SQLITE_OK) {
		ws_db_fail(dst, "copying runs");
		goto fail;
	}
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_reset(find);
		sqlite3_reset(ins);
		for (int c = 1; c <= 16; c++) {
			sqlite3_bind_value(ins, c, sqlite3_column_value(s, c));
			if (c == 1 || c == 3 || c == 5 || c == 7)
				sqlite3_bind_value(find, c, sqlite3_column_value(s, c));
		}
		int64_t id = 0;
		int f = sqlite3_step(find);
		if (f == SQLITE_ROW) {
			id = sqlite3_column_int64(find, 0);
		} else if (f != SQLITE_DONE || sqlite3_step(ins) != SQLITE_DONE) {
			ws_db_fail(dst, "copying runs");
			goto fail;
		} else {
			id = sqlite3_last_insert_rowid(ws_db_handle(dst));
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
	sqlite3_finalize(find);
	sqlite3_finalize(ins);
	return 0;
fail:
	sqlite3_finalize(s);
	sqlite3_finalize(find);
	sqlite3_finalize(ins);
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

/* The later of the two rows for one path: src's when dst has none or an older scan. */
static int src_wins(struct ws_db *dst, const char *path, const char *scanned_at)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(ws_db_handle(dst), "SELECT scanned_at >= ? FROM artifact WHERE path = ?", -1, &s,
			       NULL) != SQLITE_OK) {
		ws_db_fail(dst, "looking up a path");
		return -1;
	}
	sqlite3_bind_text(s, 1, scanned_at, -1, SQLITE_STATIC);
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
	if (merge_runs(dst, src, &m) < 0)
		goto out;
	if (sqlite3_prepare_v2(ws_db_handle(src), "SELECT id, path, input_kind, from_tree, size, mtime_ns,"
			       " tool_version, schema_version, scan_opts, scanned_at, first_run, changed_run,"
			       " seen_run, removed_run FROM artifact ORDER BY path", -1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(src, "reading artifacts");
		goto out;
	}
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 1);
		const char *at = (const char *)sqlite3_column_text(s, 9);
		if (!path || !at) {
			ws_db_errorf(src, "the store is damaged: an artifact without a path or scan time");
			goto out;
		}
		if (sqlite3_exec(ws_db_handle(dst), "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
			ws_db_fail(dst, "locking the store");
			goto out;
		}
		int wins = src_wins(dst, path, at);
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
		if (wins < 0 || sqlite3_exec(ws_db_handle(dst), "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
			if (wins >= 0)
				ws_db_fail(dst, "committing an artifact");
			sqlite3_exec(ws_db_handle(dst), "ROLLBACK", NULL, NULL, NULL);
			goto out;
		}
		*(wins ? copied : kept) += 1;
	}
	if (rc != SQLITE_DONE) {
		ws_db_fail(src, "reading artifacts");
		goto out;
	}
	status = 0;
out:
	sqlite3_finalize(s);
	free(m.old);
	free(m.new);
	return status;
}

int ws_db_merge(struct ws_config *cfg)
{
	char err[1200];
	struct ws_db *dst = ws_db_open(cfg->db, true, false, err, sizeof err);
	if (!dst) {
		fprintf(stderr, "wheelscan: store %s\n", err);
		return WS_EXIT_INPUT;
	}
	int status = WS_EXIT_OK;
	for (size_t i = 0; i < cfg->npaths; i++) {
		struct ws_db *src = ws_db_open(cfg->paths[i], false, false, err, sizeof err);
		size_t copied = 0, kept = 0;
		if (!src) {
			fprintf(stderr, "wheelscan: store %s\n", err);
			status = WS_EXIT_INPUT;
			continue;
		}
		if (merge_one(dst, src, &copied, &kept) < 0) {
			fprintf(stderr, "wheelscan: merging %s: %s%s\n", cfg->paths[i], ws_db_error(src),
				ws_db_error(dst));
			status = WS_EXIT_INPUT;
		} else if (!cfg->quiet) {
			fprintf(stderr, "wheelscan: merged %s: %zu artifacts taken, %zu kept (as new or newer)\n",
				cfg->paths[i], copied, kept);
		}
		ws_db_close(src);
	}
	ws_db_close(dst);
	return status;
}
