/* ws_db.h - the results store (--db FILE): an SQLite file that keeps every scanned
 * artifact's model (objects, containers, entries, kernels, errors), the verdicts of the
 * targets it was judged on, and one row per run. A later run reports an unchanged file
 * from it instead of reading it again, judges new targets from the stored containers,
 * --report prints from it alone and --merge joins per-shard stores. */
#ifndef WS_DB_H
#define WS_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_cli.h"
#include "ws_compat.h"
#include "wheelscan.h"

/* The store's schema (PRAGMA user_version); older stores are migrated on open. */
#define WS_DB_VERSION 1

struct ws_db;

/* What the store holds about one path, enough to decide whether to read the file again. */
struct ws_db_stored {
	int64_t id;
	uint64_t size;
	int64_t mtime_ns;
	char sha256[65];
	bool current;         /* same tool, schema and scan options, and no I/O error: reusable */
};

/* Counts of one run, for its history row and the summary line. */
struct ws_db_counts {
	uint64_t scanned, reused, skipped, added, changed, removed, failed;
};

/* Opens (creating when absent and create is set) and migrates the store. On failure
 * returns NULL with a one-line reason in err: a file that is not a store, a corrupt
 * one, one written by a newer wheelscan (format), one that cannot be opened or that
 * another run holds locked too long (io). */
struct ws_db *ws_db_open(const char *path, bool create, bool readonly, struct ws_err *err);
/* A read-only store from bytes in memory (the fuzz target's way in); NULL with err. */
struct ws_db *ws_db_open_memory(const uint8_t *p, size_t n, struct ws_err *err);
void ws_db_close(struct ws_db *db);
/* The descriptors SQLite holds on the store, its -wal and its -shm (found in /proc/self/fd
 * by their paths), at most max of them: the only ones the sandbox lets writes reach. */
size_t ws_db_descriptors(struct ws_db *db, int *fds, size_t max);
/* The last error, one line, "" when none. */
const char *ws_db_error(const struct ws_db *db);


/* Starts this run's history row. Returns 0, or -1 (see ws_db_error). */
int ws_db_run_begin(struct ws_db *db, const struct ws_config *cfg, const struct ws_target *t, size_t nt,
		    bool coverage);
/* Ends it: counts, status, and (when marks_removed) every row of this run's share of the
 * tree that the run did not see is marked removed (never deleted). */
int ws_db_run_end(struct ws_db *db, struct ws_db_counts *c, int status, bool marks_removed,
		  const struct ws_config *cfg);

/* Starts (begin) or ends a read transaction: a lookup and the load of what it found see
 * one state of the store, whatever a concurrent run writes meanwhile. */
int ws_db_snapshot(struct ws_db *db, bool begin);
/* Looks up key (the path below the scan root). Returns 1 found, 0 not, -1 error. */
int ws_db_lookup(struct ws_db *db, const char *key, struct ws_db_stored *st);
/* Rebuilds the stored artifact id as the scanner left it (before judgement), named path;
 * NULL on error (see ws_db_error) or out of memory. */
struct ws_artifact *ws_db_load(struct ws_db *db, int64_t id, const char *path);

/* Stores a freshly scanned, judged artifact under key, replacing any earlier row; size and
 * mtime are those stat gave before the scan. Counts added/changed. Its rows are one
 * savepoint of a batch's transaction, committed when the batch is full or old, or at
 * ws_db_idle. */
int ws_db_put(struct ws_db *db, const char *key, const struct ws_artifact *a, int kind, uint64_t size,
	      int64_t mtime_ns, struct ws_db_counts *c);
/* An artifact reported from the store: this run saw it, and its verdicts on this run's
 * targets are stored (one savepoint of the batch, as ws_db_put). */
int ws_db_seen(struct ws_db *db, const char *key, int64_t id, const struct ws_artifact *a);
/* Commits the open batch, if any: before the run waits for a scan, so that no other run
 * waits on the store meanwhile (also at the run's end and at close). -1 on error. */
int ws_db_idle(struct ws_db *db);
/* For db_load.c: the handle's prepared statement for sql, a string literal (statements are
 * cached by its address), reset and given back with ws_db_release. NULL on error. */
struct sqlite3_stmt *ws_db_stmt(struct ws_db *db, const char *sql);
void ws_db_release(struct sqlite3_stmt *s);

/* --report: prints the stored artifacts through the usual writers. Exit status. */
int ws_db_report(struct ws_config *cfg);
/* --merge: merges the stores cfg->paths into cfg->db. Exit status. */
int ws_db_merge(struct ws_config *cfg);

/* ---- for db_load.c, db_report.c, db_merge.c ---- */
struct sqlite3;
struct sqlite3 *ws_db_handle(struct ws_db *db);
/* Records the connection's last error as the store's error (prefix: what was being done). */
void ws_db_fail(struct ws_db *db, const char *what);
/* Sets the store's error to a message of one's own; the store's path is not added. */
void ws_db_errorf(struct ws_db *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Puts the artifact's rows with the given metadata (used by put and merge). */
struct ws_db_meta {
	int kind;
	uint64_t size;
	int64_t mtime_ns;
	const char *tool_version;
	int schema_version;
	const char *scan_opts;
	const char *scanned_at;
	int64_t first_run, changed_run, seen_run, removed_run; /* 0: NULL */
};
int ws_db_put_rows(struct ws_db *db, const char *key, const struct ws_artifact *a, const struct ws_db_meta *m,
		   int64_t *id);

#endif
