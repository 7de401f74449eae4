/* run.c - the pipeline over all inputs: a pool of threads scans and judges
 * artifacts while the main thread reports them strictly in input order (so
 * output is deterministic whatever --jobs is) and draws the progress bar. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws_builds.h"
#include "ws_builds_load.h"
#include "ws_cli.h"
#include "ws_compat.h"
#include "ws_db.h"
#include "ws_decode.h"
#include "ws_decodeq.h"
#include "ws_env.h"
#include "ws_filemap.h"
#include "ws_gate.h"
#include "ws_image.h"
#include "ws_inputs.h"
#include "ws_live.h"
#include "ws_quote.h"
#include "ws_report.h"
#include "ws_run.h"
#include "ws_sandbox.h"
#include "ws_source.h"
#include "ws_util.h"
#include "ws_zip.h"
#include "ws_zipstream.h"

struct job {
	struct runner *R;
	const struct ws_input *in;
	struct ws_result res;
	uint64_t progress;                 /* compressed bytes read so far (zip members), atomic */
	bool done;                         /* atomic */
	struct ws_group g;                 /* the file's task, and below it everything it spawns */
	/* --db: the file as stat saw it before the scan, and what the store holds of it */
	bool stat_ok;
	uint64_t st_size;
	int64_t st_mtime_ns;
	struct ws_artifact *stored;        /* loaded by the main thread; the task uses or frees it */
	struct ws_db_stored st;
	bool from_store;                   /* reported from the store: the file was not scanned */
};

struct runner {
	struct ws_config *cfg;
	struct job *jobs;
	size_t njobs;
	struct ws_pool *pool;
	struct ws_decoders *decoders;      /* lent to every scan and payload task */
	const struct ws_target *targets;
	size_t nt;
	bool coverage;                     /* targets are a coverage map: judged, never gates */
	int driver_cuda;
	struct ws_live *live;
	struct ws_live_info live_info;
	pthread_mutex_t live_mu;           /* one worker process: loads go one at a time */
	/* under live_mu: the time the loads took so far (--live-budget bounds it), and the
	 * results of each container loaded, by sha256, so identical ones are not loaded again */
	long long live_spent_ms, live_budget_ms;
	unsigned live_load_ms;             /* the per-load limit */
	struct live_seen *seen;
	size_t nseen;
	uint32_t seen_cap;
	size_t queued_from, queued_to;     /* the files in the pool: reported .. queued */
	atomic_uint_fast64_t done_bytes;
	atomic_size_t done_files;
	uint64_t total_bytes;
	bool progress_tty;                 /* stderr is a terminal: redraw the bar in place */
	time_t progress_last;              /* not a terminal: when the last line was written */
	struct ws_db *db;                  /* --db: used by the main thread only */
	bool db_failed;                    /* a store error was reported: the store is left alone */
	struct ws_db_counts counts;
	atomic_size_t files_read;          /* inputs read (scanned or hashed), for the store's summary */
	struct ws_builds builds;           /* the build table the remedies come from */
	struct ws_remedy_ctx remedy;       /* .builds NULL: no table, no remedies */
};

/* ---- the live check hook: called by the scanner with each container's bytes ---- */

struct live_ctx {
	struct runner *R;
};

struct live_seen {
	char sha256[65];
	int *live, *live_nojit;            /* R->nt each; live_nojit may be NULL */
};

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One load within what is left of the budget: the per-load limit, or less when less is
 * left; a load cut short by the budget, or not started, is WS_LIVE_BUDGET, not a timeout. */
static int live_load_budgeted(struct runner *R, int dev, const uint8_t *p, size_t n, bool nojit)
{
	long long left = R->live_budget_ms - R->live_spent_ms;
	if (left <= 0)
		return WS_LIVE_BUDGET;
	bool cut = left < (long long)R->live_load_ms;
	ws_live_set_timeout(R->live, cut ? (unsigned)left : R->live_load_ms);
	long long t0 = mono_ms();
	int r = ws_live_load(R->live, dev, p, n, nojit);
	R->live_spent_ms += mono_ms() - t0;
	return r == WS_LIVE_TIMEOUT && cut ? WS_LIVE_BUDGET : r;
}

static void live_container(void *ctx, struct ws_object *o, struct ws_fatbin *f, const uint8_t *p, size_t n)
{
	struct runner *R = ((struct live_ctx *)ctx)->R;
	(void)o;
	f->live = ws_calloc(R->nt, sizeof *f->live);
	if (R->cfg->live_nojit)
		f->live_nojit = ws_calloc(R->nt, sizeof *f->live_nojit);
	if (!f->live)
		return;
	for (size_t t = 0; t < R->nt; t++) {
		f->live[t] = WS_LIVE_NOT_RUN;
		if (f->live_nojit)
			f->live_nojit[t] = WS_LIVE_NOT_RUN;
	}
	char sha[65];
	if (ws_sha256_mem(p, n, sha, NULL, 0) < 0)
		sha[0] = '\0';
	pthread_mutex_lock(&R->live_mu);
	/* the same bytes were loaded before (a library vendored twice, a container repeated):
	 * their results stand, and a hanging container costs its timeout once */
	for (size_t i = 0; sha[0] && i < R->nseen; i++)
		if (!strcmp(R->seen[i].sha256, sha)) {
			memcpy(f->live, R->seen[i].live, R->nt * sizeof *f->live);
			if (f->live_nojit && R->seen[i].live_nojit)
				memcpy(f->live_nojit, R->seen[i].live_nojit, R->nt * sizeof *f->live_nojit);
			pthread_mutex_unlock(&R->live_mu);
			return;
		}
	for (size_t t = 0; t < R->nt; t++) {
		int dev = R->live_info.target_device ? R->live_info.target_device[t] : -1;
		if (dev < 0)
			continue;
		/* Whether the container is relocatable (__nv_relfatbin) is known only once the
		 * section table is read, which a stream brings last: load every container here,
		 * and set the relocatable ones aside when comparing. */
		f->live[t] = live_load_budgeted(R, dev, p, n, false);
		if (f->live_nojit && ws_live_has_nojit(R->live))
			f->live_nojit[t] = live_load_budgeted(R, dev, p, n, true);
	}
	if (sha[0] && R->nseen < UINT32_MAX - 1 &&
	    ws_grow((void **)&R->seen, &R->seen_cap, (uint32_t)R->nseen + 1, sizeof *R->seen)) {
		struct live_seen *s = &R->seen[R->nseen];
		memcpy(s->sha256, sha, sizeof sha);
		s->live = ws_calloc(R->nt, sizeof *s->live);
		s->live_nojit = f->live_nojit ? ws_calloc(R->nt, sizeof *s->live_nojit) : NULL;
		if (s->live && (!f->live_nojit || s->live_nojit)) {
			memcpy(s->live, f->live, R->nt * sizeof *s->live);
			if (s->live_nojit)
				memcpy(s->live_nojit, f->live_nojit, R->nt * sizeof *s->live_nojit);
			R->nseen++;
		} else {
			free(s->live);
			free(s->live_nojit);
		}
	}
	pthread_mutex_unlock(&R->live_mu);
}

/* Prediction vs measurement for one container and target; true on disagreement. */
static bool live_disagrees(enum ws_verdict v, int live, bool nojit)
{
	if (live < 0 || v == WS_V_NONE)
		return false;                    /* not run, skipped, crash, timeout; or nothing to run */
	bool predicted_ok = nojit ? (v == WS_V_NATIVE || v == WS_V_COMPATIBLE)
				  : (v == WS_V_NATIVE || v == WS_V_COMPATIBLE || v == WS_V_JIT);
	return predicted_ok != (live == 0);
}

static size_t live_compare(const struct runner *R, struct ws_artifact *a, struct ws_findings *fs)
{
	size_t mismatches = 0;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		for (uint32_t k = 0; k < o->nfatbins; k++) {
			struct ws_fatbin *f = &o->fatbins[k];
			if (!f->live || !f->verdicts)
				continue;
			if (f->role == WS_ROLE_LINK_INPUT) {  /* not loadable alone, not compared */
				for (size_t t = 0; t < R->nt; t++) {
					if (f->live[t] != WS_LIVE_NOT_RUN)
						f->live[t] = WS_LIVE_SKIPPED;
					if (f->live_nojit && f->live_nojit[t] != WS_LIVE_NOT_RUN)
						f->live_nojit[t] = WS_LIVE_SKIPPED;
				}
				continue;
			}
			for (size_t t = 0; t < R->nt; t++) {
				for (int pass = 0; pass < 2; pass++) {
					const int *lv = pass ? f->live_nojit : f->live;
					if (!lv || !live_disagrees(f->verdicts[t], lv[t], pass))
						continue;
					char where[1024];
					snprintf(where, sizeof where, "%s [%s @0x%llx]", ws_object_name(a, o), f->section,
						 (unsigned long long)f->offset);
					mismatches += ws_findings_add(fs, WS_CHECK_LIVE_MISMATCH, where,
								      "predicted %s on %s, driver%s says %s",
								      ws_verdict_name(f->verdicts[t]), R->targets[t].name,
								      pass ? " without JIT" : "", ws_curesult_name(lv[t]));
				}
			}
		}
	}
	/* A load that did not answer (timeout, crash, the budget spent) confirms nothing: per
	 * target, one finding says so, and the run fails as a check that could not pass. */
	for (size_t t = 0; t < R->nt; t++) {
		unsigned judged = 0, timeout = 0, crash = 0, budget = 0;
		const char *first = NULL;
		for (uint32_t i = 0; i < a->nobjects; i++) {
			const struct ws_object *o = &a->objects[i];
			for (uint32_t k = 0; k < o->nfatbins; k++) {
				const struct ws_fatbin *f = &o->fatbins[k];
				if (!f->live || !f->verdicts || f->role == WS_ROLE_LINK_INPUT || f->verdicts[t] == WS_V_NONE ||
				    f->live[t] == WS_LIVE_NOT_RUN)
					continue;
				judged++;
				bool miss = false;
				for (int pass = 0; pass < 2; pass++) {
					const int *lv = pass ? f->live_nojit : f->live;
					if (!lv)
						continue;
					timeout += lv[t] == WS_LIVE_TIMEOUT;
					crash += lv[t] == WS_LIVE_CRASH;
					budget += lv[t] == WS_LIVE_BUDGET;
					miss |= lv[t] == WS_LIVE_TIMEOUT || lv[t] == WS_LIVE_CRASH || lv[t] == WS_LIVE_BUDGET;
				}
				if (miss && !first)
					first = ws_object_name(a, o);
			}
		}
		if (!first)
			continue;
		char how[96];
		snprintf(how, sizeof how, "%s%s%s%s%s", timeout ? "timeout" : "", timeout && (crash || budget) ? ", " : "",
			 crash ? "crash" : "", crash && budget ? ", " : "", budget ? "--live-budget spent" : "");
		ws_findings_add(fs, WS_CHECK_LIVE_UNCONFIRMED, first, "%s: not measured (%s) for %u load%s of %u container%s: "
				"the live check did not confirm the prediction", R->targets[t].name, how,
				timeout + crash + budget, timeout + crash + budget == 1 ? "" : "s", judged, judged == 1 ? "" : "s");
	}
	return mismatches;
}

/* ---- scanning one path ---------------------------------------------------------- */

/* Hashes a private file mapping, giving each hashed chunk's pages back at once so
 * that hashing a 2 GB file does not make it all resident. */
static void hash_mapping(struct ws_artifact *a, uint8_t *p, size_t n)
{
	struct ws_digest *d = ws_digest_new("sha256");
	uint8_t md[WS_DIGEST_MAX];
	if (!d)
		return;
	ws_digest_mapping(d, p, n);
	size_t len = ws_digest_final(d, md);
	ws_digest_free(d);
	if (len == 32)
		ws_hex(md, 32, a->sha256);
}

/* The zip reader's options for one input: members, their read-ahead and their payloads
 * are tasks on the scan's pool (the pool's byte budget bounds the payloads held). */
static void zip_opts(struct ws_zip_opts *zo, struct ws_scan_opts *mo, const struct ws_scan_opts *so,
		     const struct ws_config *cfg)
{
	*mo = *so;
	ws_zip_opts_default(zo);
	zo->scan = mo;
	zo->verify_record = cfg->verify;
	zo->pool = so->pool;
	zo->group = so->group;
	zo->nested = true;
}

/* Standard input's spool: an unlinked file in $TMPDIR (else /tmp; a memfd where neither
 * takes O_TMPFILE), made before the sandbox, which creates no file, and written only through
 * this descriptor (ws_sandbox_keep_spool). Pages of a file go back to the disk, so a big
 * input costs disk (up to --max-member-size), not memory. One "-" per run (cli.c). */
static int stdin_spool = -1;

static int spool_open(void)
{
	if (stdin_spool >= 0)
		return stdin_spool;
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && dir && *dir)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = memfd_create("wheelscan-stdin", MFD_CLOEXEC);
	return stdin_spool = fd;
}

/* Writes all of p[0..n) to fd; -1 with errno. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* "-": standard input. A tarball or a Debian package streams from the pipe; anything else is
 * spooled within the member limit (a pipe cannot be read twice, and a zip's directory comes
 * last), then mapped and scanned as a file's bytes are. Empty input, or bytes of no format
 * wheelscan reads (an HTML error page of a failed download), are errors: nothing was judged. */
static struct ws_artifact *scan_stdin(struct ws_artifact *a, const struct ws_config *cfg,
				      const struct ws_scan_opts *so)
{
	uint64_t max = cfg->lim.max_member_bytes, n = 0;
	uint8_t head[WS_SNIFF_BYTES];
	size_t nhead = 0;
	while (nhead < sizeof head) {
		ssize_t r = read(STDIN_FILENO, head + nhead, sizeof head - nhead);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ws_artifact_fail(a, "-", WS_E_IO, "cannot read standard input: %s", strerror(errno));
			return a;
		}
		if (r == 0)
			break;
		nhead += (size_t)r;
	}
	if (nhead == 0) {
		ws_artifact_error(a, "-", "standard input is empty: nothing was judged");
		return a;
	}
	enum ws_pack pk = ws_pack_sniff(head, nhead);
	if (pk == WS_PACK_TAR || pk == WS_PACK_DEB || pk == WS_PACK_COMPRESSED) {
		ws_pack_scan_fd(a, STDIN_FILENO, head, nhead, pk == WS_PACK_DEB ? pk : WS_PACK_TAR, so);
		return a;
	}
	enum ws_content c = ws_sniff(head, nhead);
	if (c == WS_CONTENT_OTHER) {
		size_t i = 0;
		while (i < nhead && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
			i++;
		ws_artifact_error(a, "-", "standard input (%zu%s bytes) is of no format wheelscan reads%s: nothing "
				  "was judged", nhead, nhead == sizeof head ? "+" : "",
				  i < nhead && head[i] == '<' ? " (it starts like an HTML page: a failed download?)" : "");
		return a;
	}
	int fd = spool_open();
	if (fd < 0) {
		ws_artifact_fail(a, "-", WS_E_IO, "cannot spool standard input: %s", strerror(errno));
		return a;
	}
	stdin_spool = -1;                          /* this scan's now; closing it frees the spool */
	uint8_t *buf = NULL;
	if (write_all(fd, head, nhead) < 0)
		goto io;
	if ((n = nhead) > max) {
		ws_artifact_fail(a, "-", WS_E_LIMIT, "standard input is larger than the %llu-byte member limit "
				  "(--max-member-size)", (unsigned long long)max);
		goto out;
	}
	if (!(buf = malloc((size_t)1 << 20))) {
		ws_artifact_fail(a, "-", WS_E_MEMORY, "out of memory reading standard input");
		close(fd);
		return a;
	}
	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf, (size_t)1 << 20);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ws_artifact_fail(a, "-", WS_E_IO, "cannot read standard input: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		if ((uint64_t)r > max - n || n + (uint64_t)r > SIZE_MAX) {
			ws_artifact_fail(a, "-", WS_E_LIMIT, "standard input is larger than the %llu-byte member limit "
					  "(--max-member-size)", (unsigned long long)max);
			goto out;
		}
		if (write_all(fd, buf, (size_t)r) < 0)
			goto io;
		n += (uint64_t)r;
	}
	free(buf);
	buf = NULL;
	a->size = n;
	ws_budget_add_input(so->budget, n);
	struct ws_filemap fm;
	if (ws_filemap_open(&fm, fd, (size_t)n) < 0) {
		ws_artifact_fail(a, "-", WS_E_IO, "cannot map the spool of standard input: %s", strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	hash_mapping(a, fm.p, fm.len);
	if (c == WS_CONTENT_ZIP) {
		struct ws_scan_opts mo;
		struct ws_zip_opts zo;
		zip_opts(&zo, &mo, so, cfg);
		zo.hash_file = false;                  /* hashed above */
		ws_zip_scan_memory(a, fm.p, fm.len, &zo);
	} else {
		struct ws_scan_opts mo = *so;
		mo.drop_behind = true;
		a->type = ws_content_name(c);
		ws_scan_memory(a, NULL, fm.p, fm.len, &mo);
	}
	ws_filemap_close(&fm);
	return a;
io:
	ws_artifact_fail(a, "-", WS_E_IO, "cannot spool standard input (%s): %s",
			 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return a;
}

struct ws_artifact *ws_scan_path(const char *path, const struct ws_config *cfg,
				 const struct ws_scan_opts *so, uint64_t *progress)
{
	struct ws_artifact *a = calloc(1, sizeof *a);
	if (!a || !(a->path = ws_strdup(path))) {
		free(a);
		return NULL;
	}
	a->type = "other";
	if (!strcmp(path, "-"))
		return scan_stdin(a, cfg, so);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0) {
		/* still the artifact the name promises, with its real size and the error */
		int e = errno;
		a->type = ws_name_type(path);
		if (stat(path, &st) == 0)
			a->size = (uint64_t)st.st_size;
		else
			a->size_unknown = true;
		ws_artifact_fail(a, path, WS_E_IO, "cannot open: %s", strerror(e));
		return a;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && ws_image_is_layout(path)) {
		close(fd);                           /* an OCI image layout: one artifact */
		ws_image_scan_dir(a, path, so, progress);
		return a;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ws_artifact_fail(a, path, WS_E_IO, S_ISDIR(st.st_mode) ? "is a directory (use -r)" : "not a regular file");
		close(fd);
		return a;
	}
	a->size = (uint64_t)st.st_size;
	ws_budget_add_input(so->budget, a->size);   /* what its entries may decode scales with it */
	uint8_t head[WS_SNIFF_BYTES];
	ssize_t got = pread(fd, head, sizeof head, 0);
	if (got < 0) {
		a->type = ws_name_type(path);
		ws_artifact_fail(a, path, WS_E_IO, "cannot read: %s", strerror(errno));
		close(fd);
		return a;
	}
	enum ws_content c = ws_sniff(head, (size_t)got);
	const char *claim = ws_name_claim(path, c, head, (size_t)got);
	if (claim) {
		/* never "no device code" about bytes that are not what they say they are */
		ws_artifact_error(a, path, "%s", claim);
		close(fd);
		return a;
	}
	/* tarballs, Debian and conda packages: by name (which then must hold) or by content */
	enum ws_pack pk = ws_pack_by_name(path), pc = ws_pack_sniff(head, (size_t)got);
	if (pk == WS_PACK_NONE && (pc == WS_PACK_TAR || pc == WS_PACK_DEB))
		pk = pc;
	if (pk != WS_PACK_NONE) {
		close(fd);
		a->type = ws_pack_type(pk);
		if (got == 0)
			ws_artifact_error(a, path, "empty file named as a %s package", ws_pack_type(pk));
		else
			ws_pack_scan_file(a, path, pk, so, progress);
		return a;
	}
	if (c == WS_CONTENT_ZIP) {
		close(fd);
		struct ws_scan_opts mo;
		struct ws_zip_opts zo;
		zip_opts(&zo, &mo, so, cfg);
		zo.progress = progress;
		ws_zip_scan_file(a, path, &zo);
		size_t pl = strlen(path);
		if (pl >= 4 && !strcasecmp(path + pl - 4, ".whl") && strcmp(a->type, "wheel") != 0 && !a->nerrors)
			ws_artifact_error(a, path, "not a wheel: no .dist-info/WHEEL or RECORD at the top of the zip");
		return a;
	}
	a->type = ws_content_name(c);
	if (st.st_size == 0) {
		close(fd);
		return a;
	}
	/* one file is held to the member limit: a 20 GiB sparse ELF is not hashed whole */
	uint64_t file_max = so->lim ? so->lim->max_member_bytes : (uint64_t)8 << 30;
	if ((uint64_t)st.st_size > file_max) {
		char sz[48];
		ws_artifact_fail(a, path, WS_E_LIMIT, "file is %llu bytes, over the %s limit for one file"
				 " (--max-member-size): not read", (unsigned long long)st.st_size,
				 ws_fmt_size(sz, sizeof sz, file_max));
		close(fd);
		return a;
	}
	/* A private writable mapping: libelf may never write to it, but if it did,
	 * the write would land in our copy and not fault or reach the file. */
	struct ws_filemap fm;
	int mrc = ws_filemap_open(&fm, fd, (size_t)st.st_size);
	close(fd);
	if (mrc < 0) {
		ws_artifact_fail(a, path, WS_E_IO, "cannot map: %s", strerror(errno));
		return a;
	}
	madvise(fm.p, fm.len, MADV_SEQUENTIAL);
	hash_mapping(a, fm.p, fm.len);
	if (c != WS_CONTENT_OTHER) {
		struct ws_scan_opts mo = *so;
		mo.drop_behind = true;
		ws_scan_memory(a, NULL, fm.p, fm.len, &mo);
	}
	if (ws_filemap_close(&fm)) {
		a->sha256[0] = '\0';               /* not the digest of any one state of the file */
		ws_artifact_fail(a, path, WS_E_IO, "the file shrank while it was read: what lay past its new end "
				  "was not read, so this report of it is incomplete");
	}
	return a;
}

/* --verify-db: the stored result stands only if the file's sha256 is the stored one. */
static bool store_still_good(struct runner *R, struct job *j)
{
	if (!R->cfg->verify_db)
		return true;
	atomic_fetch_add(&R->files_read, 1);
	int fd = open(j->in->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char hex[65], err[256];
	uint64_t size;
	bool same = fd >= 0 && ws_sha256_fd(fd, hex, &size, err, sizeof err) == 0 && !strcmp(hex, j->st.sha256);
	if (fd >= 0)
		close(fd);
	return same;
}

static void process(struct runner *R, struct job *j, uint64_t *progress)
{
	struct ws_budget budget = {0};       /* one per artifact, over all its members and threads */
	struct ws_scan_opts so = {.lim = &R->cfg->lim, .want_kernels = R->cfg->want_kernels, .budget = &budget};
	/* kernel names are shown only in JSON, -v and --kernels; otherwise hashes will do */
	so.list_kernels = ((R->cfg->format == WS_FMT_JSON || R->cfg->format == WS_FMT_JSONL) &&
			  R->cfg->detail >= WS_DETAIL_CONTAINER) || R->cfg->verbose > 0 || R->cfg->kernels || R->db;   /* a store keeps the names */
	/* members and payloads are tasks below this file's, on the same pool */
	so.offload = &ws_pool_offload;
	so.pool = R->pool;
	so.group = &j->g;
	so.decoders = R->decoders;
	struct live_ctx lc = {R};
	if (R->live && R->nt) {
		so.on_container = live_container;
		so.on_container_ctx = &lc;
	}
	struct ws_artifact *a;
	j->res.from_tree = j->in->from_tree;
	if (j->stored && !store_still_good(R, j)) {
		ws_artifact_free(j->stored);
		j->stored = NULL;
	}
	if (j->stored) {
		/* unchanged since the store read it: its model, judged again for this run */
		a = j->stored;
		j->stored = NULL;
		j->from_store = true;
		goto judge;
	}
	if (!j->in->error)
		atomic_fetch_add(&R->files_read, 1);
	if (j->in->error) {                  /* a directory the walk could not read */
		if ((a = ws_calloc(1, sizeof *a)) && !(a->path = ws_strdup(j->in->path))) {
			free(a);
			a = NULL;
		}
		if ((j->res.a = a)) {
			a->type = "directory";
			a->size_unknown = true;
			ws_artifact_error(a, a->path, "%s", j->in->error);
		}
		return;
	}
	switch (j->in->kind) {
	case WS_INPUT_DIST:
		a = ws_scan_distribution(j->in->path, j->in->site, R->cfg->verify, &so);
		break;
	case WS_INPUT_CONDA:
		a = ws_scan_conda_package(j->in->path, j->in->site, R->cfg->verify, &so);
		break;
	case WS_INPUT_LOOSE:
		a = ws_scan_loose(j->in->path, j->in->site, j->in->files, j->in->nfiles, &so);
		break;
	default:
		a = ws_scan_path(j->in->path, R->cfg, &so, progress);
		if (a)
			ws_torch_extension_facts(a);
		break;
	}
judge:
	j->res.a = a;
	if (!a)
		return;
	struct ws_judge_opts jo = {.driver_cuda = R->driver_cuda, .strict = R->cfg->strict,
				   .remedy = R->remedy.builds && !R->coverage ? &R->remedy : NULL};
	if (ws_judge(a, R->targets, R->nt, &jo) < 0)
		ws_artifact_fail(a, a->path, WS_E_MEMORY, "out of memory judging");
	ws_gate_check(a, R->cfg, R->targets, R->coverage ? 0 : R->nt, &j->res.findings);
	if (R->live)
		j->res.live_mismatches = live_compare(R, a, &j->res.findings);
}

/* ---- the store (main thread) ------------------------------------------------------ */

static void store_failed(struct runner *R)
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
static void store_prepare(struct runner *R, struct job *j)
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
		store_failed(R);
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
		store_failed(R);
	}
}

/* After an artifact is reported: stored (scanned) or marked seen (from the store). */
static void store_result(struct runner *R, struct job *j)
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
		store_failed(R);
}

static void file_task(void *arg)
{
	struct job *j = arg;
	process(j->R, j, &j->progress);
	atomic_fetch_add(&j->R->done_bytes, j->in->size);
	atomic_fetch_add(&j->R->done_files, 1);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
}

/* ---- progress ------------------------------------------------------------------- */

static void draw_progress(struct runner *R, bool final)
{
	size_t files = atomic_load(&R->done_files);
	uint64_t bytes = atomic_load(&R->done_bytes);
	/* plus what the archives in flight have read so far: only the queued ones can be */
	for (size_t i = R->queued_from; i < R->queued_to && !final; i++)
		if (!__atomic_load_n(&R->jobs[i].done, __ATOMIC_ACQUIRE))
			bytes += __atomic_load_n(&R->jobs[i].progress, __ATOMIC_RELAXED);
	double frac = R->total_bytes ? (double)bytes / (double)R->total_bytes : (double)files / (double)R->njobs;
	if (frac > 1)
		frac = 1;
	char bar[31];
	int fill = (int)(frac * 30);
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = '\0';
	/* A terminal gets one line redrawn in place; a log gets plain lines (no \r, no escape
	 * codes), one every 10 seconds and the last. */
	if (!R->progress_tty) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!final && now.tv_sec - R->progress_last < 10)
			return;
		R->progress_last = now.tv_sec;
	}
	/* MiB, as the report counts sizes */
	fprintf(stderr, "%s[%s] %3d%%  %zu/%zu files  %.1f/%.1f MiB%s", R->progress_tty ? "\r" : "", bar,
		(int)(frac * 100), files, R->njobs, (double)bytes / 1048576, (double)R->total_bytes / 1048576,
		final || !R->progress_tty ? "\n" : "");
	fflush(stderr);
}

/* ---- live start-up -------------------------------------------------------------- */

/* Opens the driver. With --gpu auto, or no --gpu at all (bare), the devices it finds join
 * the named targets, and its CUDA version becomes the --driver. A bare run without a driver
 * says nothing here (the report shows a coverage map instead); --gpu auto says it once. */
static void start_live(struct runner *R, bool bare, struct ws_target **owned, size_t *nowned)
{
	static char note[512];
	struct ws_config *cfg = R->cfg;
	R->live_info.tried = true;
	unsigned flags = WS_LIVE_PROBE | (cfg->live_nojit ? WS_LIVE_NOJIT_PASS : 0);
	R->live = ws_live_open(flags, note, sizeof note);
	if (!R->live) {
		R->live_info.note = note;
		if (cfg->live)
			fprintf(stderr, "wheelscan: --live: %s; nothing can be measured, so the prediction is not checked\n",
				note);
		else if (!bare)
			fprintf(stderr, "wheelscan: %s; %s\n", note, cfg->gpu_auto && !cfg->ntargets ?
				"no GPU to judge" : "printing the prediction only");
		return;
	}
	R->live_load_ms = ws_live_timeout(R->live);
	R->live_budget_ms = (long long)(cfg->live_budget_s ? cfg->live_budget_s : WS_LIVE_DEFAULT_BUDGET_S) * 1000;
	R->live_info.driver_cuda = ws_live_driver_version(R->live);
	R->live_info.ndevices = ws_live_devices(R->live, &R->live_info.devices);
	if (cfg->gpu_auto && R->live_info.ndevices == 0)
		fprintf(stderr, "wheelscan: --gpu auto: the CUDA driver found no device\n");
	if (cfg->gpu_auto || bare) {
		/* The named targets, then the devices not named already. */
		size_t cap = cfg->ntargets + R->live_info.ndevices;
		struct ws_target *t = ws_calloc(cap ? cap : 1, sizeof *t);
		size_t n = 0;
		for (size_t k = 0; t && k < cfg->ntargets; k++)
			t[n++] = cfg->targets[k];
		for (size_t d = 0; t && d < R->live_info.ndevices; d++) {
			const struct ws_device *dev = &R->live_info.devices[d];
			unsigned cc = (unsigned)(dev->cc_major * 10 + dev->cc_minor);
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				dup |= t[k].cc == cc;
			if (dup)
				continue;
			snprintf(t[n].name, sizeof t[n].name, "sm_%u", cc);
			t[n].cc = (uint16_t)cc;
			snprintf(t[n].label, sizeof t[n].label, "%.47s", dev->name);
			n++;
		}
		*owned = t;
		*nowned = n;
		R->targets = t;
		R->nt = n;
		if (!cfg->driver_given)
			R->driver_cuda = R->live_info.driver_cuda;
	}
	R->live_info.target_device = ws_calloc(R->nt ? R->nt : 1, sizeof(int));
	for (size_t t = 0; R->live_info.target_device && t < R->nt; t++) {
		R->live_info.target_device[t] = -1;
		for (size_t d = 0; d < R->live_info.ndevices; d++) {
			const struct ws_device *dev = &R->live_info.devices[d];
			if ((unsigned)(dev->cc_major * 10 + dev->cc_minor) == R->targets[t].cc) {
				R->live_info.target_device[t] = (int)d;
				break;
			}
		}
	}
}

/* ---- the sandbox ---------------------------------------------------------------- */

/* Reads beneath the -r trees and the inputs named one by one; nothing else once inside.
 * What libraries would load lazily from elsewhere is loaded first: OpenSSL's
 * configuration, the time zone (libzip's mktime). Fails only when out of memory. */
static int enter_sandbox(const struct ws_config *cfg, const struct ws_inputs *in, bool live)
{
	size_t n = cfg->ndirs + in->nlinks_out;
	for (size_t i = 0; i < in->n; i++)
		n += !in->v[i].from_tree;
	const char **paths = ws_calloc(n ? n : 1, sizeof *paths);
	if (!paths) {
		fprintf(stderr, "wheelscan: out of memory\n");
		return -1;
	}
	n = 0;
	for (size_t i = 0; i < cfg->ndirs; i++)
		paths[n++] = cfg->dirs[i];
	for (size_t i = 0; i < in->n; i++)
		if (!in->v[i].from_tree)
			paths[n++] = in->v[i].path;
	for (size_t i = 0; i < in->nlinks_out; i++)     /* links in a tree to files out of it */
		paths[n++] = in->links_out[i];
	tzset();
	ws_digest_free(ws_digest_new("sha256"));
	struct ws_sandbox_status st;
	if (ws_sandbox_enter(paths, n, live, &st) < 0)
		fprintf(stderr, "wheelscan: warning: no seccomp sandbox (%s); going on without it\n", st.seccomp_note);
	free(paths);
	return 0;
}

/* ---- the cure -------------------------------------------------------------------- */

/* The build table and the context remedies are chosen in: the driver given, and the
 * interpreter of --python (its commands then run "PYTHON -m pip"). A table that --builds
 * names and that cannot be read is a usage error; the bundled one failing only loses the
 * remedies, and says so. */
int ws_remedy_setup(struct ws_builds *b, struct ws_remedy_ctx *ctx, const struct ws_config *cfg)
{
	char err[512];
	memset(ctx, 0, sizeof *ctx);
	if (ws_builds_load(cfg->builds, b, err, sizeof err) < 0) {
		fprintf(stderr, "wheelscan: %s\n", err);
		if (cfg->builds)
			return -1;
		return 0;
	}
	ctx->builds = b;
	ctx->driver_cuda = cfg->driver_cuda;
	ctx->python_exe = cfg->python;
	return 0;
}

/* ---- the run -------------------------------------------------------------------- */

/* --live with no driver, or with no device of any target: nothing can be measured (said
 * once here), and the run never passes. */
static bool live_measures_nothing(const struct runner *R)
{
	if (!R->cfg->live)
		return false;
	if (!R->live)
		return true;
	bool none = true;
	for (size_t t = 0; R->live_info.target_device && t < R->nt; t++)
		none &= R->live_info.target_device[t] < 0;
	if (none)
		fprintf(stderr, "wheelscan: --live: the CUDA driver found no device of the GPUs named; nothing can "
			"be measured, so the prediction is not checked\n");
	return none;
}

/* What must exist before the sandbox, which opens and creates no file: the inputs' absolute
 * paths and the store's descriptors, standard input's spool, the SIGBUS guard, the --sbom-in
 * document; then the sandbox itself. 0, or the exit status to end the run with. */
static int prepare_sandbox(struct runner *R, struct ws_inputs *in)
{
	const struct ws_config *cfg = R->cfg;
	if (R->db) {
		for (size_t i = 0; i < in->n; i++)
			if (!in->v[i].from_tree && strcmp(in->v[i].path, "-") != 0)
				in->v[i].abs_path = realpath(in->v[i].path, NULL);
		int fds[8];
		ws_sandbox_keep_store(fds, ws_db_descriptors(R->db, fds, sizeof fds / sizeof *fds));
	}
	/* standard input's spool is made now: the sandbox creates no file */
	for (size_t i = 0; i < in->n; i++)
		if (!in->v[i].from_tree && !strcmp(in->v[i].path, "-") && spool_open() >= 0)
			ws_sandbox_keep_spool(stdin_spool);
	/* A file cut short while it is mapped must not end the scan with SIGBUS. */
	if (ws_filemap_guard() < 0)
		fprintf(stderr, "wheelscan: warning: cannot catch SIGBUS (%s): a file that shrinks while "
			"it is read will end the scan\n", strerror(errno));
	if (cfg->sbom_in && ws_cdx_load_bom(cfg->sbom_in) < 0)
		return WS_EXIT_INPUT;
	if (cfg->sandbox && enter_sandbox(cfg, in, R->live != NULL) < 0)
		return WS_EXIT_USAGE;
	return 0;
}

/* A finished job, in input order: its errors on stderr, the exit status they and its
 * findings make (status is the run's so far), its report and its store row; then freed. */
static int report_job(struct runner *R, struct job *j, struct ws_report *rep, int status)
{
	if (!j->res.a) {
		fprintf(stderr, "wheelscan: out of memory scanning '%s'\n", ws_q_text(j->in->path));
		return 3;
	}
	for (uint32_t e = 0; e < j->res.a->nerrors; e++) {
		const struct ws_error *er = &j->res.a->errors[e];
		fprintf(stderr, "wheelscan: '%s': %s\n", ws_q_text(er->where), ws_q_text(er->message));
		if (ws_errcode_status(er->code) > status)
			status = ws_errcode_status(er->code);
	}
	if (!j->res.a->nerrors && j->res.findings.n && status == 0)
		status = 1;
	ws_report_artifact(rep, &j->res);
	store_result(R, j);
	ws_artifact_free(j->res.a);
	j->res.a = NULL;
	ws_findings_free(&j->res.findings);
	return status;
}

/* No input to judge: said, and a check (a gate was asked for) fails; status is the run's so far. */
static int nothing_judged(const struct ws_config *cfg, const struct ws_inputs *in, int status)
{
	bool check = cfg->nrequire || cfg->require_ptx || cfg->ntargets || cfg->live || cfg->gpu_auto_asked;
	if (in->nlisted)
		fprintf(stderr, "wheelscan: nothing was judged: share %u/%u of the %zu inputs is empty\n",
			cfg->shard_k, cfg->shard_n, in->nlisted);
	else {
		fprintf(stderr, "wheelscan: nothing was judged: no input files%s\n",
			check ? ", so the check fails" : "");
		if (check && status == 0)
			status = WS_EXIT_CHECK;
	}
	return status;
}

/* The store's run closed: what is gone marked (only after a whole tree), the counts said,
 * and a store that failed makes the exit status WS_EXIT_INPUT. */
static int store_end(struct runner *R, const struct ws_inputs *in, int status)
{
	const struct ws_config *cfg = R->cfg;
	R->counts.skipped = in->nskipped;
	/* only a whole tree says what is gone: not operands, lists, a failed store, or a
	 * walk that could not read some directory (its files are not gone) */
	bool marks = cfg->ndirs > 0 && cfg->npaths == 0 && !cfg->files_from && !R->db_failed;
	for (size_t i = 0; i < in->n; i++)
		marks &= !in->v[i].error;
	if (!R->db_failed && ws_db_run_end(R->db, &R->counts, status, marks, cfg) < 0)
		store_failed(R);
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

/* The store opened and its run begun; false (said on stderr) when it cannot be. */
static bool store_begin(struct runner *R, bool coverage_mode)
{
	char err[1200];
	if (!(R->db = ws_db_open(R->cfg->db, true, false, err, sizeof err)) ||
	    ws_db_run_begin(R->db, R->cfg, R->targets, R->nt, coverage_mode) < 0) {
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(R->db ? ws_db_error(R->db) : err));
		return false;
	}
	return true;
}

/* One job per input, in input order. */
static bool make_jobs(struct runner *R, struct ws_inputs *in)
{
	R->njobs = in->n;
	R->jobs = ws_calloc(in->n ? in->n : 1, sizeof *R->jobs);
	if (!R->jobs)
		return false;
	for (size_t i = 0; i < in->n; i++) {
		R->jobs[i].R = R;
		R->jobs[i].in = &in->v[i];
		R->total_bytes += in->v[i].size;
	}
	return true;
}

/* Whether the progress bar is drawn (asked for, or stderr is a terminal), and its clock. */
static bool progress_begin(struct runner *R, size_t ninputs)
{
	const struct ws_config *cfg = R->cfg;
	bool progress = cfg->progress == 1 || (cfg->progress == -1 && isatty(STDERR_FILENO) && !cfg->quiet
					       && ninputs > 0);
	R->progress_tty = isatty(STDERR_FILENO);
	if (!R->progress_tty) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		R->progress_last = now.tv_sec;           /* the first plain line after 10 s */
	}
	return progress;
}

/* The jobs on the pool, each reported as soon as it and those before it are done. */
static int run_jobs(struct runner *R, const struct ws_inputs *in, struct ws_report *rep, bool progress, int status)
{
	/* Files go to the pool in input order, at most `window` ahead of the report: memory
	 * holds that many finished artifacts at most, whatever the number of inputs. */
	R->pool = ws_pool_new(R->cfg->jobs);
	R->decoders = ws_decoders_new();
	size_t width = (size_t)ws_pool_width(R->pool), window = width == 1 ? 1 : 2 * width, added = 0;
	for (size_t i = 0; i < in->n; i++) {
		for (; added < in->n && added < i + window; added++) {
			store_prepare(R, &R->jobs[added]);
			ws_group_init(&R->jobs[added].g, NULL);
			ws_pool_add(R->pool, &R->jobs[added].g, file_task, &R->jobs[added]);
		}
		R->queued_from = i;
		R->queued_to = added;
		/* the store's batch is held through a short wait, committed before a long one */
		if (R->db && !R->db_failed && !ws_group_wait_ms(R->pool, &R->jobs[i].g, 20) && ws_db_idle(R->db) < 0)
			store_failed(R);
		if (progress)
			while (!ws_group_wait_ms(R->pool, &R->jobs[i].g, 200))
				draw_progress(R, false);
		else
			ws_group_wait(R->pool, &R->jobs[i].g);
		if (progress && R->progress_tty)
			fprintf(stderr, "\r\033[K");
		status = report_job(R, &R->jobs[i], rep, status);
	}
	ws_pool_free(R->pool);
	ws_decoders_free(R->decoders);
	return status;
}

/* The jobs, and what the live check kept of them. */
static void free_jobs(struct runner *R)
{
	free(R->jobs);
	free(R->live_info.target_device);
	for (size_t i = 0; i < R->nseen; i++) {
		free(R->seen[i].live);
		free(R->seen[i].live_nojit);
	}
	free(R->seen);
}

int ws_run(struct ws_config *cfg)
{
	struct runner R = {.cfg = cfg, .targets = cfg->targets, .nt = cfg->ntargets,
			   .driver_cuda = cfg->driver_cuda};
	struct ws_target *auto_targets = NULL;
	size_t nauto = 0;
	int status = 0;

	/* Without --gpu the answer is for this machine's GPUs when a driver finds any, else a
	 * coverage map over every compute capability of the GPU table. */
	bool bare = cfg->ntargets == 0 && !cfg->gpu_auto && !cfg->live;
	struct ws_target coverage[WS_MAX_TARGETS];
	bool coverage_mode = false;
	/* The driver's workers are forked before any thread exists and before the sandbox. */
	if (cfg->live || cfg->gpu_auto || bare)
		start_live(&R, bare, &auto_targets, &nauto);
	bool auto_failed = cfg->gpu_auto_asked && (!R.live || R.live_info.ndevices == 0);
	if (ws_remedy_setup(&R.builds, &R.remedy, cfg) < 0) {
		ws_live_close(R.live);
		free(auto_targets);
		return WS_EXIT_USAGE;
	}
	R.remedy.driver_cuda = R.driver_cuda;     /* the live driver's, when one was found */
	/* --live that can measure nothing (no driver, or no device of any target) never passes */
	bool live_failed = live_measures_nothing(&R);
	if (bare && (!R.live || R.nt == 0)) {
		R.nt = ws_coverage_targets(coverage);
		R.targets = coverage;
		R.coverage = coverage_mode = true;
		ws_live_close(R.live);
		R.live = NULL;
	}

	/* The store is opened (and its -wal and -shm files created) before the sandbox,
	 * which refuses to create files; writing to the open descriptors stays allowed. */
	if (cfg->db) {
		if (!store_begin(&R, coverage_mode)) {
			ws_db_close(R.db);
			ws_live_close(R.live);
			free(auto_targets);
			ws_builds_free(&R.builds);
			return WS_EXIT_INPUT;
		}
	}
	struct ws_inputs in;
	int irc = ws_inputs_collect(cfg, &in);
	if (irc < 0) {
		ws_db_close(R.db);
		ws_live_close(R.live);
		free(auto_targets);
		ws_builds_free(&R.builds);
		return irc == -2 ? WS_EXIT_INPUT : WS_EXIT_USAGE;
	}
	/* Strangers' bytes are decoded in the sandbox, entered once the inputs are listed and
	 * before the pool's threads start. The live check's spawner and workers were forked
	 * above and stay outside it: the driver needs its devices. */
	int prc = prepare_sandbox(&R, &in);
	if (prc != 0) {
		ws_inputs_free(&in);
		ws_db_close(R.db);
		ws_live_close(R.live);
		free(auto_targets);
		ws_builds_free(&R.builds);
		return prc;
	}
	if (getenv("WHEELSCAN_SANDBOX_TEST"))
		ws_sandbox_selftest(in.n ? in.v[0].path : NULL);
	for (size_t i = 0; i < in.nskipped; i++)
		fprintf(stderr, "wheelscan: skipped %s\n", ws_q_text(in.skipped[i]));

	if (!make_jobs(&R, &in)) {
		fprintf(stderr, "wheelscan: out of memory\n");
		ws_inputs_free(&in);
		ws_builds_free(&R.builds);
		return 3;
	}
	pthread_mutex_init(&R.live_mu, NULL);

	struct ws_report rep = {.cfg = cfg, .out = stdout, .targets = R.targets, .ntargets = R.nt,
				.driver_cuda = R.driver_cuda, .coverage = coverage_mode,
				.skipped = (const char *const *)in.skipped, .nskipped = in.nskipped,
				.live = R.live_info.tried && !coverage_mode ? &R.live_info : NULL,
				.remedy = R.remedy.builds ? &R.remedy : NULL};
	rep.color = cfg->color == 1 || (cfg->color == -1 && isatty(STDOUT_FILENO));
	bool progress = progress_begin(&R, in.n);
	ws_report_begin(&rep);

	status = run_jobs(&R, &in, &rep, progress, status);
	if (progress && in.n)
		draw_progress(&R, true);
	ws_report_end(&rep);
	if (rep.live_mismatches && status == 0)
		status = 1;
	if (rep.sbom_failed)
		status = WS_EXIT_INPUT;          /* --sbom-in could not be read: nothing annotated */
	/* A check that judged nothing passes nothing: say so, and fail it. An empty share of a
	 * list that is not empty (--shard) is no failure: the other shares judge the inputs. */
	if (in.n == 0)
		status = nothing_judged(cfg, &in, status);
	if ((auto_failed || live_failed) && status != WS_EXIT_INPUT)
		status = WS_EXIT_NO_GPU;         /* --gpu auto or --live never passes without a GPU to judge */
	if (R.db)
		status = store_end(&R, &in, status);
	ws_report_free(&rep);
	free_jobs(&R);
	free(auto_targets);
	ws_live_close(R.live);
	ws_inputs_free(&in);
	pthread_mutex_destroy(&R.live_mu);
	ws_builds_free(&R.builds);
	return status;
}
