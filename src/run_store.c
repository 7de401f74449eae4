/* run_store.c - the results store inside a run (--db): opened before the sandbox, a file's
 * stored model looked up before it is queued (and trusted only if its size and mtime, or
 * with --verify-db its sha256, are the stored ones), each reported artifact stored or
 * marked seen, and the run closed with its counts. The main thread's only, but for
 * ws_run_store_still_good, which a file's task calls. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_quote.h"
#include "ws_readfile.h"
#include "run_state.h"

/* --verify-db: the stored result stands only if the file's sha256 is the stored one. */
bool ws_run_store_still_good(struct runner *R, struct job *j)
{
	if (!R->cfg->verify_db)
		return true;
	atomic_fetch_add(&R->files_read, 1);
	int fd = open(j->in->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char hex[65];
	uint64_t size;
	bool same = fd >= 0 && ws_sha256_fd(fd, hex, &size, NULL) == 0 && !strcmp(hex, j->st.sha256);
	if (fd >= 0)
		close(fd);
	return same;
}

void ws_run_store_failed(struct runner *R)
{
	if (!R->db_failed)
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(ws_db_error(R->db)));
	R->db_failed = true;
}

/* The store's key for an input: a file found by -r, its path below the scan root (so that
 * shards and machines with other roots agree), or with several roots its path with the
 * root as spelled (A/lib.so and B/lib.so are two files, not one that changes every run);
 * a file named on the command line, its absolute path (its bare name would let a/x.tar
 * answer for b/x.tar of the same size and mtime). */
static const char *store_key(const struct runner *R, const struct ws_input *in)
{
	if (in->abs_path)
		return in->abs_path;
	if (in->from_tree && R->cfg->ndirs > 1)
		return in->path[0] == '.' && in->path[1] == '/' ? in->path + 2 : in->path;
	return in->path + in->key_off;
}

/* Before a file is queued: its size and mtime now, and its stored model when the store
 * holds one that this run may report without reading the file. */
void ws_run_store_prepare(struct runner *R, struct job *j)
{
	const struct ws_input *in = j->in;
	struct stat st;
	if (!R->db || R->db_failed || in->error || in->kind != WS_INPUT_FILE || !strcmp(in->path, "-"))
		return;
	if (stat(in->path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	j->stat_ok = true;
	j->st_size = (uint64_t)st.st_size;
	j->st_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (R->live)
		return;                        /* the live check must load the file's containers */
	if (ws_db_snapshot(R->db, true) < 0) {
		ws_run_store_failed(R);
		return;
	}
	int rc = ws_db_lookup(R->db, store_key(R, in), &j->st);
	if (rc == 1 && j->st.current &&
	    (R->cfg->verify_db || (j->st.size == j->st_size && j->st.mtime_ns == j->st_mtime_ns)) &&
	    !(j->stored = ws_db_load(R->db, j->st.id, in->path)))
		rc = -1;
	if (ws_db_snapshot(R->db, false) < 0 || rc < 0) {
		ws_artifact_free(j->stored);
		j->stored = NULL;
		ws_run_store_failed(R);
	}
}

/* After an artifact is reported: stored (scanned) or marked seen (from the store). */
void ws_run_store_result(struct runner *R, struct job *j)
{
	const struct ws_input *in = j->in;
	struct ws_artifact *a = j->res.a;
	if (!R->db || R->db_failed || !strcmp(in->path, "-"))
		return;
	if (a->nerrors)
		R->counts.failed++;
	int rc;
	if (j->from_store) {
		R->counts.reused++;
		rc = ws_db_seen(R->db, store_key(R, in), j->st.id, a);
	} else {
		R->counts.scanned++;
		/* without a stat before the scan the row can never match a later stat: read again */
		rc = ws_db_put(R->db, store_key(R, in), a, (int)in->kind | (in->from_tree ? 1 << 8 : 0),
			       j->stat_ok ? j->st_size : a->size, j->stat_ok ? j->st_mtime_ns : -1, &R->counts);
	}
	if (rc < 0)
		ws_run_store_failed(R);
}

/* The store's run closed: what is gone marked (only after a whole tree), the counts said,
 * and a store that failed makes the exit status WS_EXIT_INPUT. */
int ws_run_store_end(struct runner *R, const struct ws_inputs *in, int status)
{
	const struct ws_config *cfg = R->cfg;
	R->counts.skipped = in->nskipped;
	/* only a whole tree says what is gone: not operands, lists, a failed store, or a
	 * walk that could not read some directory (its files are not gone) */
	bool marks = cfg->ndirs > 0 && cfg->npaths == 0 && !cfg->files_from && !R->db_failed;
	for (size_t i = 0; i < in->n; i++)
		marks &= !in->v[i].error;
	if (!R->db_failed && ws_db_run_end(R->db, &R->counts, status, marks, cfg) < 0)
		ws_run_store_failed(R);
	if (R->db_failed)
		status = WS_EXIT_INPUT;
	else if (!cfg->quiet)
		fprintf(stderr, "wheelscan: store %s: %zu files read, %llu scanned, %llu from the store, "
			"%llu added, %llu changed, %llu removed\n", ws_q_text(cfg->db), atomic_load(&R->files_read),
			(unsigned long long)R->counts.scanned, (unsigned long long)R->counts.reused,
			(unsigned long long)R->counts.added, (unsigned long long)R->counts.changed,
			(unsigned long long)R->counts.removed);
	ws_db_close(R->db);
	return status;
}

/* The store's own files (the database, its -wal and -shm) left out of the inputs: a store
 * inside the tree it records would otherwise scan itself and find it "changed" on every
 * run. Known by identity (device and inode of the descriptors SQLite holds, and of the
 * path), not by name: a link or another spelling of the path is the same file. */
void ws_run_store_drop_own(struct runner *R, struct ws_inputs *in)
{
	struct { dev_t dev; ino_t ino; } own[8];
	size_t nown = 0;
	int fds[8];
	size_t nfd = ws_db_descriptors(R->db, fds, 7);
	struct stat st;
	for (size_t k = 0; k < nfd; k++)
		if (fstat(fds[k], &st) == 0 && S_ISREG(st.st_mode))
			own[nown].dev = st.st_dev, own[nown++].ino = st.st_ino;
	if (stat(R->cfg->db, &st) == 0)      /* where /proc cannot be read */
		own[nown].dev = st.st_dev, own[nown++].ino = st.st_ino;
	for (size_t i = 0; i < in->n;) {
		const struct ws_input *v = &in->v[i];
		bool mine = false;
		if (v->kind == WS_INPUT_FILE && !v->error && strcmp(v->path, "-") && stat(v->path, &st) == 0)
			for (size_t k = 0; k < nown && !mine; k++)
				mine = own[k].dev == st.st_dev && own[k].ino == st.st_ino;
		if (!mine) {
			i++;
			continue;
		}
		if (!v->from_tree)               /* named, not found: say why it is not in the report */
			fprintf(stderr, "wheelscan: '%s' is the store itself (--db): not scanned\n", ws_q_text(v->path));
		ws_inputs_drop(in, i);
	}
}

/* The store opened and its run begun; false (said on stderr) when it cannot be. */
bool ws_run_store_begin(struct runner *R, bool coverage_mode)
{
	struct ws_err err = {0};
	if (!(R->db = ws_db_open(R->cfg->db, true, false, &err)) ||
	    ws_db_run_begin(R->db, R->cfg, R->targets, R->nt, coverage_mode) < 0) {
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(R->db ? ws_db_error(R->db) : err.msg));
		return false;
	}
	return true;
}
