/* db_store.h - what the files of the results store share (db.c: opening, statements,
 * batches, runs and lookups; db_write.c: an artifact's rows): the handle itself and the
 * helpers every write uses. Private to the store: callers use ws_db.h. */
#ifndef WS_DB_STORE_H
#define WS_DB_STORE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ws_db.h"

struct ws_db {
	sqlite3 *h;
	char path[1024];
	char err[512];
	int64_t run;                       /* this run's history row, 0 before ws_db_run_begin */
	const struct ws_target *targets;   /* verdict rows are written for these */
	size_t nt;
	int driver_cuda;
	char scan_opts[160];
	/* Writes go in batches: one transaction holds up to BATCH_MAX artifacts or BATCH_MS
	 * of them (each in its own savepoint, so that one that fails leaves the others), and
	 * ends before the run waits for a scan (ws_db_idle), so another run is never kept
	 * waiting on a lock nobody uses. A commit per artifact cost 6 times the scan of
	 * 50,000 small files. */
	bool batch;
	unsigned batch_n;
	struct timespec batch_t0;
	/* prepared statements by their SQL text's address (every one a string literal) */
	struct { const char *sql; sqlite3_stmt *s; } cache[64];
	unsigned ncache;
};

/* Steps a statement that returns no row and releases it; -1 (the store failed) otherwise. */
int ws_db_done(struct ws_db *db, sqlite3_stmt *s, const char *what);
/* The time now, UTC, as 2025-01-31T12:00:00.123456Z. */
void ws_db_now_iso(char *buf, size_t len);
/* One artifact's writes begin, inside the batch's transaction (opened if none is) ... */
int ws_db_write_begin(struct ws_db *db);
/* ... and end: kept (the batch committed when full or old), or undone alone. */
int ws_db_write_end(struct ws_db *db, bool ok);

static inline void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static inline void bind_id(sqlite3_stmt *s, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

#endif
