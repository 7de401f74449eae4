/* db.c - the results store: opening (WAL, busy timeout, schema version and migrations,
 * a clear refusal of anything that is not a sound store), the run history, and writing
 * one artifact per transaction. Reading artifacts back is db_load.c's. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws_db.h"
#include "ws_inputs.h"
#include "ws_util.h"
#include "db_store.h"

#define BATCH_MAX 1000
#define BATCH_MS 250

/* Each step takes user_version from its index to index + 1, in one transaction. A new
 * column or table goes into a new step; a step is never edited once released. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE run("
	" id INTEGER PRIMARY KEY,"
	" started TEXT NOT NULL, ended TEXT,"
	" tool_version TEXT NOT NULL, schema_version INTEGER NOT NULL,"
	" targets TEXT NOT NULL, driver_cuda INTEGER, shard TEXT, scan_opts TEXT,"
	" scanned INTEGER NOT NULL DEFAULT 0, reused INTEGER NOT NULL DEFAULT 0,"
	" skipped INTEGER NOT NULL DEFAULT 0, added INTEGER NOT NULL DEFAULT 0,"
	" changed INTEGER NOT NULL DEFAULT 0, removed INTEGER NOT NULL DEFAULT 0,"
	" failed INTEGER NOT NULL DEFAULT 0, status INTEGER);"
	"CREATE TABLE artifact("
	" id INTEGER PRIMARY KEY,"
	" path TEXT NOT NULL UNIQUE,"
	" input_kind INTEGER NOT NULL, from_tree INTEGER NOT NULL,"
	" size INTEGER NOT NULL, size_unknown INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,"
	" sha256 TEXT NOT NULL, type TEXT NOT NULL,"
	" dist_name TEXT, dist_version TEXT,"
	" tool_version TEXT NOT NULL, schema_version INTEGER NOT NULL, scan_opts TEXT NOT NULL,"
	" origin TEXT, build_cuda_hint INTEGER NOT NULL,"
	" members_scanned INTEGER NOT NULL, bytes_inflated INTEGER NOT NULL,"
	" record_checked INTEGER NOT NULL, record_ok INTEGER NOT NULL,"
	" nerrors INTEGER NOT NULL, io_error INTEGER NOT NULL,"
	" first_run INTEGER, changed_run INTEGER, seen_run INTEGER, removed_run INTEGER,"
	" scanned_at TEXT NOT NULL);"
	"CREATE TABLE wheel("
	" artifact_id INTEGER PRIMARY KEY REFERENCES artifact(id) ON DELETE CASCADE,"
	" name TEXT, version TEXT, local TEXT, python_tag TEXT, abi_tag TEXT, platform_tag TEXT,"
	" meta_name TEXT, meta_version TEXT, requires_cuda_major INTEGER, requires_cuda_runtime INTEGER,"
	" requires_torch TEXT, generator TEXT);"
	"CREATE TABLE record_issue("
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" kind TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL,"
	" PRIMARY KEY(artifact_id, kind, seq)) WITHOUT ROWID;"
	"CREATE TABLE error("
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, where_rel TEXT NOT NULL, where_has_path INTEGER NOT NULL,"
	" message TEXT NOT NULL, code INTEGER NOT NULL,"
	" PRIMARY KEY(artifact_id, seq)) WITHOUT ROWID;"
	"CREATE TABLE object("
	" id INTEGER PRIMARY KEY,"
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, member TEXT, type TEXT NOT NULL, size INTEGER NOT NULL,"
	" nkernels INTEGER NOT NULL, UNIQUE(artifact_id, seq));"
	"CREATE TABLE kernel("
	" object_id INTEGER NOT NULL REFERENCES object(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL, name TEXT NOT NULL,"
	" PRIMARY KEY(object_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE container("
	" id INTEGER PRIMARY KEY,"
	" object_id INTEGER NOT NULL REFERENCES object(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, section TEXT NOT NULL, offset INTEGER NOT NULL, size INTEGER NOT NULL,"
	" relocatable INTEGER NOT NULL, nkernels INTEGER NOT NULL, error TEXT,"
	" UNIQUE(object_id, seq));"
	"CREATE TABLE entry("
	" container_id INTEGER NOT NULL REFERENCES container(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, kind INTEGER NOT NULL, arch INTEGER NOT NULL, suffix TEXT,"
	" name TEXT NOT NULL, offset INTEGER NOT NULL, header_size INTEGER NOT NULL,"
	" payload_size INTEGER NOT NULL, flags INTEGER NOT NULL, fmt_major INTEGER NOT NULL,"
	" fmt_minor INTEGER NOT NULL, compression INTEGER NOT NULL, compressed_size INTEGER NOT NULL,"
	" uncompressed_size INTEGER NOT NULL, content_size INTEGER NOT NULL, opaque INTEGER NOT NULL,"
	" debug INTEGER NOT NULL, relocatable INTEGER NOT NULL, ptx_major INTEGER NOT NULL,"
	" ptx_minor INTEGER NOT NULL, ptx_target TEXT NOT NULL, elf_sm INTEGER NOT NULL,"
	" toolkit INTEGER NOT NULL, producer TEXT, tool_options TEXT, identifier TEXT, options TEXT,"
	" nkernels INTEGER NOT NULL, kernels_known INTEGER NOT NULL, kernels BLOB, error TEXT,"
	" PRIMARY KEY(container_id, seq)) WITHOUT ROWID;"
	"CREATE TABLE verdict("
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" object_seq INTEGER NOT NULL, container_seq INTEGER NOT NULL,"
	" target TEXT NOT NULL, cc INTEGER NOT NULL, driver_cuda INTEGER NOT NULL,"
	" verdict TEXT NOT NULL, run_id INTEGER,"
	" PRIMARY KEY(artifact_id, object_seq, container_seq, target)) WITHOUT ROWID;"
	"CREATE TABLE image("
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" seq INTEGER NOT NULL, manifest TEXT NOT NULL, config TEXT NOT NULL,"
	" PRIMARY KEY(artifact_id, seq)) WITHOUT ROWID;"
	"CREATE TABLE image_name("
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" image_seq INTEGER NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL,"
	" PRIMARY KEY(artifact_id, image_seq, seq)) WITHOUT ROWID;"
	"CREATE TABLE image_layer("
	" artifact_id INTEGER NOT NULL REFERENCES artifact(id) ON DELETE CASCADE,"
	" image_seq INTEGER NOT NULL, seq INTEGER NOT NULL, member TEXT NOT NULL,"
	" digest TEXT NOT NULL, size INTEGER NOT NULL,"
	" PRIMARY KEY(artifact_id, image_seq, seq)) WITHOUT ROWID;"
	"CREATE INDEX object_by_artifact ON object(artifact_id);"
	"CREATE INDEX container_by_object ON container(object_id);"
	"CREATE INDEX entry_by_arch ON entry(kind, arch);"
	"CREATE INDEX verdict_by_target ON verdict(target, verdict);",
};
#define NMIGRATIONS (sizeof migrations / sizeof *migrations)
_Static_assert(NMIGRATIONS == WS_DB_VERSION, "one migration step per schema version");

sqlite3 *ws_db_handle(struct ws_db *db)
{
	return db->h;
}

const char *ws_db_error(const struct ws_db *db)
{
	return db->err;
}

void ws_db_errorf(struct ws_db *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(db->err, sizeof db->err, fmt, ap);
	va_end(ap);
}

void ws_db_fail(struct ws_db *db, const char *what)
{
	int rc = sqlite3_extended_errcode(db->h);
	const char *why = sqlite3_errmsg(db->h);
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
		ws_db_errorf(db, "%s: %s: %s (another wheelscan run holds it; try again when it ends)", db->path, what, why);
	else if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
		ws_db_errorf(db, "%s: %s: %s (the store is damaged: restore it or move it away; it is never "
			"rebuilt silently)", db->path, what, why);
	else
		ws_db_errorf(db, "%s: %s: %s", db->path, what, why);
}

static int exec(struct ws_db *db, const char *sql, const char *what)
{
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
		ws_db_fail(db, what);
		return -1;
	}
	return 0;
}

/* Runs a one-integer query; -1 on error. */
static int query_int(struct ws_db *db, const char *sql, int64_t *v, const char *what)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db->h, sql, -1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(db, what);
		return -1;
	}
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE) {
		ws_db_fail(db, what);
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	return 0;
}

/* Brings the schema to WS_DB_VERSION. The version is read again under the write lock, so
 * that two runs opening a new store at once create it once. */
static int migrate(struct ws_db *db)
{
	int64_t ver = 0, tables = 0;
	if (query_int(db, "PRAGMA user_version", &ver, "reading the schema version") < 0)
		return -1;
	if (ver > WS_DB_VERSION) {
		ws_db_errorf(db, "%s: store schema %lld is newer than this wheelscan's (%d): use a newer wheelscan",
			db->path, (long long)ver, WS_DB_VERSION);
		return -1;
	}
	if (ver == WS_DB_VERSION)
		return 0;
	if (exec(db, "BEGIN IMMEDIATE", "locking the store to create its schema") < 0)
		return -1;
	if (query_int(db, "PRAGMA user_version", &ver, "reading the schema version") < 0 ||
	    query_int(db, "SELECT count(*) FROM sqlite_master", &tables, "reading the schema") < 0)
		goto fail;
	if (ver == 0 && tables > 0) {
		ws_db_errorf(db, "%s: an SQLite database, but not a wheelscan store (tables without a schema version)",
			db->path);
		goto fail;
	}
	for (; ver < WS_DB_VERSION; ver++) {
		char sql[64];
		if (exec(db, migrations[ver], "creating the schema") < 0)
			goto fail;
		snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)ver + 1);
		if (exec(db, sql, "setting the schema version") < 0)
			goto fail;
	}
	return exec(db, "COMMIT", "committing the schema");
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* WAL mode, once per store (it persists). Switching needs the file to itself, and SQLite
 * does not wait for that through the busy handler: a new store opened by two runs at
 * once retries here. */
static int set_wal(struct ws_db *db, int busy_ms)
{
	for (int waited = 0;; waited += 10) {
		sqlite3_stmt *s;
		if (sqlite3_prepare_v2(db->h, "PRAGMA journal_mode=WAL", -1, &s, NULL) != SQLITE_OK) {
			ws_db_fail(db, "switching to WAL");
			return -1;
		}
		int rc = sqlite3_step(s);
		const unsigned char *mode = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
		bool wal = mode && !strcmp((const char *)mode, "wal");
		sqlite3_finalize(s);
		if (wal)
			return 0;
		if (((rc & 0xff) != SQLITE_BUSY && rc != SQLITE_ROW) || waited >= busy_ms) {
			ws_db_fail(db, "switching to WAL");
			return -1;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* A store is a stranger's file too: SQL it carries is not trusted, and only tables and
 * indexes may be in it (a view in place of a table, or a trigger, could make every read
 * loop without end). */
static int harden(struct ws_db *db)
{
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	int64_t n = 0;
	if (query_int(db, "SELECT count(*) FROM sqlite_master WHERE type NOT IN ('table', 'index')", &n,
		      "reading the schema") < 0)
		return -1;
	if (n) {
		ws_db_errorf(db, "%s: not a wheelscan store (it holds views or triggers)", db->path);
		return -1;
	}
	return 0;
}

/* The kind of error an open that failed in SQLite (or in a check of what it read) met: the
 * file could not be read or locked (io), is not a store or is damaged (format), or memory. */
static enum ws_errcode open_code(struct ws_db *db)
{
	switch (db->h ? sqlite3_errcode(db->h) & 0xff : SQLITE_NOMEM) {
	case SQLITE_NOMEM:
		return WS_E_MEMORY;
	case SQLITE_BUSY: case SQLITE_LOCKED: case SQLITE_IOERR: case SQLITE_CANTOPEN: case SQLITE_READONLY:
	case SQLITE_PERM: case SQLITE_FULL: case SQLITE_PROTOCOL:
		return WS_E_IO;
	default:
		return WS_E_FORMAT;
	}
}

struct ws_db *ws_db_open(const char *path, bool create, bool readonly, struct ws_err *err)
{
	struct ws_db *db = ws_calloc(1, sizeof *db);
	if (!db) {
		ws_err_set(err, WS_E_MEMORY, "%s: out of memory", path);
		return NULL;
	}
	snprintf(db->path, sizeof db->path, "%s", path);
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (!exists && !create) {
		ws_err_set(err, WS_E_IO, "%s: cannot open store: %s", path, strerror(errno));
		free(db);
		return NULL;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		ws_err_set(err, WS_E_FORMAT, "%s: not a store (not a regular file)", path);
		free(db);
		return NULL;
	}
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &db->h, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		ws_err_set(err, open_code(db) == WS_E_MEMORY ? WS_E_MEMORY : WS_E_IO, "%s: cannot open store: %s", path,
			   db->h ? sqlite3_errmsg(db->h) : "out of memory");
		sqlite3_close(db->h);
		free(db);
		return NULL;
	}
	/* Two runs on one store: a writer waits for the other's transaction (each is one
	 * artifact, milliseconds), and gives up with a clear message after this long. */
	const char *busy = getenv("WHEELSCAN_DB_BUSY_MS");
	int busy_ms = busy && *busy ? atoi(busy) : 60000;
	sqlite3_busy_timeout(db->h, busy_ms);
	/* The -wal file stays when the last connection closes (truncated, not unlinked): a
	 * sandboxed run may not unlink, and a store then opens without creating files. */
	int one = 1;
	sqlite3_file_control(db->h, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	sqlite3_extended_result_codes(db->h, 1);
	int64_t dummy = 0;
	/* The first read is where a file that is not a database says so. */
	if (query_int(db, "SELECT count(*) FROM sqlite_master", &dummy, "reading the store") < 0 || harden(db) < 0 ||
	    (!readonly && set_wal(db, busy_ms) < 0) ||
	    exec(db, "PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY", "setting up") < 0 ||
	    (!readonly && exec(db, "PRAGMA synchronous=NORMAL", "setting up") < 0) ||
	    (!readonly && migrate(db) < 0))
		goto fail;
	int64_t ver = 0;
	if (query_int(db, "PRAGMA user_version", &ver, "reading the schema version") < 0)
		goto fail;
	if (ver != WS_DB_VERSION) {
		ws_db_errorf(db, "%s: store schema %lld, this wheelscan reads %d%s", path, (long long)ver, WS_DB_VERSION,
			ver == 0 ? " (not a wheelscan store)" : "");
		goto fail;
	}
	/* Opens the -wal and -shm files now, before any sandbox forbids creating them. */
	if (query_int(db, "SELECT count(*) FROM run", &dummy, "reading the run history") < 0)
		goto fail;
	return db;
fail:
	ws_err_set(err, open_code(db), "%s", db->err);
	sqlite3_close(db->h);
	free(db);
	return NULL;
}

size_t ws_db_descriptors(struct ws_db *db, int *fds, size_t max)
{
	const char *main_path = sqlite3_db_filename(db->h, "main");
	size_t n = 0, ml = main_path ? strlen(main_path) : 0;
	DIR *d = ml ? opendir("/proc/self/fd") : NULL;
	if (!d)
		return 0;
	int self = dirfd(d);
	struct dirent *e;
	while (n < max && (e = readdir(d)) != NULL) {
		char link[64], target[PATH_MAX];
		int fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == self)
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t tl = readlink(link, target, sizeof target - 1);
		if (tl < 0 || (size_t)tl < ml || memcmp(target, main_path, ml) != 0)
			continue;
		target[tl] = 0;
		if (!strcmp(target + ml, "") || !strcmp(target + ml, "-wal") || !strcmp(target + ml, "-shm"))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

struct ws_db *ws_db_open_memory(const uint8_t *p, size_t n, struct ws_err *err)
{
	struct ws_db *db = ws_calloc(1, sizeof *db);
	unsigned char *copy = n ? sqlite3_malloc64(n) : NULL;
	if (!db || (n && !copy) || sqlite3_open_v2(":memory:", &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
						    NULL) != SQLITE_OK) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		sqlite3_free(copy);
		if (db)
			sqlite3_close(db->h);
		free(db);
		return NULL;
	}
	snprintf(db->path, sizeof db->path, "(memory)");
	if (n)
		memcpy(copy, p, n);
	int64_t ver = 0;
	if (sqlite3_deserialize(db->h, "main", copy, (sqlite3_int64)n, (sqlite3_int64)n,
				SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK || harden(db) < 0 ||
	    query_int(db, "PRAGMA user_version", &ver, "reading the schema version") < 0 || ver != WS_DB_VERSION) {
		ws_err_set(err, db->err[0] ? open_code(db) : WS_E_FORMAT, "%s", db->err[0] ? db->err : "not a store of this version");
		sqlite3_close(db->h);
		free(db);
		return NULL;
	}
	return db;
}

void ws_db_close(struct ws_db *db)
{
	if (!db)
		return;
	ws_db_idle(db);
	for (unsigned i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].s);
	/* Everything into the main file and the -wal emptied, so that the .db file alone
	 * can be copied (a shard's store to the merging machine). Not waiting: while
	 * another run uses the store, this is its job when it ends. */
	sqlite3_busy_timeout(db->h, 0);
	sqlite3_exec(db->h, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	sqlite3_close(db->h);
	free(db);
}

void ws_db_now_iso(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	char day[24];
	strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%.19s.%06dZ", day, (int)(ts.tv_nsec / 1000 % 1000000));
}

/* The options that change what a scan stores ("k1 v1 e268435456 ..."): a stored row
 * scanned with other options is read again. */
static void db_scan_opts(const struct ws_config *cfg, char *buf, size_t len)
{
	const struct ws_limits *l = &cfg->lim;
	snprintf(buf, len, "k%d v%d e%llu m%llu t%llu n%u c%u K%u s%u M%u", cfg->want_kernels, cfg->verify,
		 (unsigned long long)l->max_entry_bytes, (unsigned long long)l->max_member_bytes,
		 (unsigned long long)l->max_total_bytes, l->max_entries, l->max_containers, l->max_kernels,
		 l->max_sections, l->max_members);
}

/* ---- statements --------------------------------------------------------------------- */

/* The statement for sql, prepared once per store handle and reset for each use; given
 * back with release() (never finalized by the caller). */
static sqlite3_stmt *prep(struct ws_db *db, const char *sql)
{
	for (unsigned i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql)
			return db->cache[i].s;
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) {
		ws_db_fail(db, "preparing a statement");
		return NULL;
	}
	if (db->ncache < sizeof db->cache / sizeof *db->cache) {
		db->cache[db->ncache].sql = sql;
		db->cache[db->ncache++].s = s;
	} else {
		sqlite3_finalize(s);             /* unreachable: the set is fixed and smaller */
		ws_db_errorf(db, "%s: internal: too many statements", db->path);
		return NULL;
	}
	return s;
}

/* Gives a statement from prep() back: reset, bindings cleared (a bound string is the
 * caller's only until then). */
static void release(sqlite3_stmt *s)
{
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
}

/* Steps a statement that returns no row and releases it. */
int ws_db_done(struct ws_db *db, sqlite3_stmt *s, const char *what)
{
	int rc = s ? sqlite3_step(s) : SQLITE_ERROR;
	if (s && rc != SQLITE_DONE && rc != SQLITE_ROW)
		ws_db_fail(db, what);
	release(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

sqlite3_stmt *ws_db_stmt(struct ws_db *db, const char *sql)
{
	return prep(db, sql);
}

void ws_db_release(sqlite3_stmt *s)
{
	release(s);
}

/* ---- batched writes ----------------------------------------------------------------- */

int ws_db_idle(struct ws_db *db)
{
	if (!db || !db->batch)
		return 0;
	db->batch = false;
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		ws_db_fail(db, "committing artifacts");
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* One artifact's writes begin: inside the batch's transaction (opened if none is). */
int ws_db_write_begin(struct ws_db *db)
{
	if (!db->batch) {
		if (exec(db, "BEGIN IMMEDIATE", "locking the store") < 0)
			return -1;
		db->batch = true;
		db->batch_n = 0;
		clock_gettime(CLOCK_MONOTONIC, &db->batch_t0);
	}
	return exec(db, "SAVEPOINT artifact", "locking the store");
}

/* ... and end: kept (the batch committed when full or old), or undone alone. */
int ws_db_write_end(struct ws_db *db, bool ok)
{
	if (!ok) {
		sqlite3_exec(db->h, "ROLLBACK TO artifact; RELEASE artifact", NULL, NULL, NULL);
		return -1;
	}
	if (exec(db, "RELEASE artifact", "committing an artifact") < 0) {
		sqlite3_exec(db->h, "ROLLBACK TO artifact; RELEASE artifact", NULL, NULL, NULL);
		return -1;
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (int64_t)(now.tv_sec - db->batch_t0.tv_sec) * 1000 + (now.tv_nsec - db->batch_t0.tv_nsec) / 1000000;
	if (++db->batch_n >= BATCH_MAX || ms >= BATCH_MS)
		return ws_db_idle(db);
	return 0;
}

/* ---- runs -------------------------------------------------------------------------- */

int ws_db_run_begin(struct ws_db *db, const struct ws_config *cfg, const struct ws_target *t, size_t nt,
		    bool coverage)
{
	char started[40], shard[32] = "", targets[1024] = "";
	ws_db_now_iso(started, sizeof started);
	db_scan_opts(cfg, db->scan_opts, sizeof db->scan_opts);
	/* a coverage map's CCs are not targets anyone named: no verdict rows for them */
	db->targets = coverage ? NULL : t;
	db->nt = coverage ? 0 : nt;
	db->driver_cuda = cfg->driver_cuda;
	size_t w = 0;
	for (size_t i = 0; i < db->nt && w < sizeof targets; i++)
		w += (size_t)snprintf(targets + w, sizeof targets - w, "%s%s", i ? "," : "", t[i].name);
	if (cfg->shard_n > 1)
		snprintf(shard, sizeof shard, "%u/%u", cfg->shard_k, cfg->shard_n);
	sqlite3_stmt *s = prep(db, "INSERT INTO run(started, tool_version, schema_version, targets, driver_cuda,"
				   " shard, scan_opts) VALUES(?,?,?,?,?,?,?)");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, started, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, WS_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, WS_SCHEMA_VERSION);
	sqlite3_bind_text(s, 4, targets, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 5, cfg->driver_cuda);
	bind_text(s, 6, shard[0] ? shard : NULL);
	sqlite3_bind_text(s, 7, db->scan_opts, -1, SQLITE_TRANSIENT);
	if (ws_db_done(db, s, "starting the run's history row") < 0)
		return -1;
	db->run = sqlite3_last_insert_rowid(db->h);
	return 0;
}

/* SQL function ws_in_share(path): whether this run's --shard covers the path. */
static void in_share_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct ws_config *cfg = sqlite3_user_data(ctx);
	const unsigned char *p = sqlite3_value_text(argv[0]);
	sqlite3_result_int(ctx, p && ws_inputs_in_shard(cfg, (const char *)p));
}

int ws_db_run_end(struct ws_db *db, struct ws_db_counts *c, int status, bool marks_removed,
		  const struct ws_config *cfg)
{
	char ended[40];
	ws_db_now_iso(ended, sizeof ended);
	if (ws_db_idle(db) < 0 || exec(db, "BEGIN IMMEDIATE", "locking the store to end the run") < 0)
		return -1;
	if (marks_removed) {
		/* Only rows this run could have seen: its share of the tree. A later run that
		 * began before this one ended may have seen a row already (seen_run is the latest). */
		if (sqlite3_create_function(db->h, "ws_in_share", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, (void *)cfg,
					    in_share_fn, NULL, NULL) != SQLITE_OK) {
			ws_db_fail(db, "registering a function");
			goto fail;
		}
		sqlite3_stmt *s = prep(db, "UPDATE artifact SET removed_run = ?1 WHERE removed_run IS NULL"
					   " AND (seen_run IS NULL OR seen_run < ?1) AND ws_in_share(path)");
		if (!s)
			goto fail;
		sqlite3_bind_int64(s, 1, db->run);
		if (ws_db_done(db, s, "marking removed files") < 0)
			goto fail;
		c->removed = (uint64_t)sqlite3_changes(db->h);
	}
	sqlite3_stmt *s = prep(db, "UPDATE run SET ended=?, scanned=?, reused=?, skipped=?, added=?, changed=?,"
				   " removed=?, failed=?, status=? WHERE id=?");
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, ended, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, (int64_t)c->scanned);
	sqlite3_bind_int64(s, 3, (int64_t)c->reused);
	sqlite3_bind_int64(s, 4, (int64_t)c->skipped);
	sqlite3_bind_int64(s, 5, (int64_t)c->added);
	sqlite3_bind_int64(s, 6, (int64_t)c->changed);
	sqlite3_bind_int64(s, 7, (int64_t)c->removed);
	sqlite3_bind_int64(s, 8, (int64_t)c->failed);
	sqlite3_bind_int(s, 9, status);
	sqlite3_bind_int64(s, 10, db->run);
	if (ws_db_done(db, s, "ending the run's history row") < 0)
		goto fail;
	return exec(db, "COMMIT", "committing the run's end");
fail:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* ---- lookups ------------------------------------------------------------------------ */

int ws_db_snapshot(struct ws_db *db, bool begin)
{
	if (db->batch)
		return 0;                      /* the batch's transaction is the snapshot */
	return exec(db, begin ? "BEGIN" : "COMMIT", begin ? "starting a read" : "ending a read");
}

int ws_db_lookup(struct ws_db *db, const char *key, struct ws_db_stored *st)
{
	sqlite3_stmt *s = prep(db, "SELECT id, size, mtime_ns, sha256, tool_version = ? AND schema_version = ?"
				   " AND scan_opts = ? AND io_error = 0 AND removed_run IS NULL"
				   " FROM artifact WHERE path = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, WS_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, WS_SCHEMA_VERSION);
	sqlite3_bind_text(s, 3, db->scan_opts, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		memset(st, 0, sizeof *st);
		st->id = sqlite3_column_int64(s, 0);
		st->size = (uint64_t)sqlite3_column_int64(s, 1);
		st->mtime_ns = sqlite3_column_int64(s, 2);
		const unsigned char *sha = sqlite3_column_text(s, 3);
		snprintf(st->sha256, sizeof st->sha256, "%s", sha ? (const char *)sha : "");
		st->current = sqlite3_column_int(s, 4) != 0;
	} else if (rc != SQLITE_DONE) {
		ws_db_fail(db, "looking up a path");
	}
	release(s);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
