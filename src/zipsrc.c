/* zipsrc.c - wheels and zips through libzip: each member streamed, scanned and checked
 * against RECORD.
 *
 * Per archive:  open (libzip checks the central directory against the local headers)
 *               -> names, dist-info METADATA / WHEEL / RECORD read first
 *               -> members as tasks on the pool (one runner per thread, each its own zip_t),
 *                  each a member stream (zipstream.c: inflate, CRC-32, limits, digest)
 *                  -> the first 4 KiB sniffed -> ws_scan_stream when device code may be inside
 *               -> results merged in central-directory order, RECORD verdicts last.
 * Memory per runner: two 256 KiB buffers and one inflate state, whatever the member sizes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "ws_inflate.h"
#include "ws_source.h"
#include "ws_util.h"
#include "ws_zip.h"
#include "ws_zipstream.h"

#define RECORD_MAX ((uint64_t)64 << 20)
#define META_MAX ((uint64_t)16 << 20)
#define MAX_THREADS 64
#define NAME_SHOWN 160                   /* member names are cut to this in messages */


/* What one member left behind, merged into the artifact in index order. */
struct mres {
	char *name;
	uint64_t comp_size;
	int64_t rec;                 /* RECORD row, -1 if unlisted */
	struct ws_artifact *tmp;     /* objects and errors of this member */
	bool dir, scanned, complete;
	char digest[WS_DIGEST_MAX * 2];
	uint64_t size;               /* bytes inflated */
};

struct job {
	struct ws_artifact *a;
	const char *label;           /* a->path, or "(memory)" */
	struct ws_zsrc src;
	struct ws_zip_opts o;
	struct ws_limits lim;
	struct ws_scan_opts scan;
	struct ws_record_index rec;
	bool have_rec;
	char *di;                    /* "name-1.0.dist-info/" chosen for the facts */
	zip_uint64_t n;
	struct mres *res;
	struct ws_zip_budget bg;     /* limits and totals every member stream shares */
	uint64_t members_seen;       /* the zip's members and those of archives inside (atomic) */
	/* members as tasks on the shared pool */
	int pool_width;              /* threads that may run tasks at once (1: all in place) */
	struct ws_group members;     /* the runners, and under them read-ahead and payloads */
	uint32_t *task;              /* member indices, largest first; HASH_TASK hashes the file */
	uint32_t ntask, next;
	char file_hex[65];
	char file_err[WS_ERRMAX];
	int file_rc;
};
#define HASH_TASK UINT32_MAX

void ws_zip_opts_default(struct ws_zip_opts *o)
{
	memset(o, 0, sizeof *o);
	o->verify_record = true;
	o->hash_file = true;
}

static const char *shown(char buf[NAME_SHOWN], const char *name)
{
	ws_sanitize(buf, NAME_SHOWN, name, strlen(name));
	return buf;
}

/* ---- one member, start to end ------------------------------------------ */

static int default_scan(void *ctx, struct ws_artifact *a, const char *member, struct ws_reader *r, uint64_t size,
			const struct ws_scan_opts *opt)
{
	return ws_scan_stream(a, member, r, size, opt);
}

static bool scannable(enum ws_content c)
{
	return c == WS_CONTENT_ELF || c == WS_CONTENT_CUBIN || c == WS_CONTENT_AR || c == WS_CONTENT_FATBIN ||
	       c == WS_CONTENT_PTX || c == WS_CONTENT_PE;
}

static void do_member(struct job *j, zip_t *za, zip_uint64_t i, struct ws_zbuf *b)
{
	struct mres *r = &j->res[i];
	char nb[NAME_SHOWN], sz[48];
	const char *name = shown(nb, r->name);
	zip_stat_t st;
	struct ws_mstream m;

	if (r->dir || __atomic_load_n(&j->bg.over_total, __ATOMIC_RELAXED))
		return;
	struct ws_artifact *t = r->tmp = ws_calloc(1, sizeof *r->tmp);
	if (!t)
		return;
	t->path = j->a->path;                 /* borrowed: the scanner names errors with it */
	if (ws_path_escapes(r->name, true))
		ws_artifact_error(t, j->label, "member name '%s' escapes the archive", name);
	zip_stat_init(&st);
	if (zip_stat_index(za, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
		ws_artifact_error(t, j->label, "cannot read the entry of member '%s'", name);
		return;
	}
	if (st.size > j->lim.max_member_bytes) {
		ws_artifact_fail(t, j->label, WS_E_LIMIT, "member '%s' inflates past the %s limit", name,
				  ws_fmt_size(sz, sizeof sz, j->lim.max_member_bytes));
		return;
	}
	const struct ws_record_line *rl = r->rec >= 0 ? &j->rec.line[r->rec] : NULL;
	const char *algo = j->o.verify_record && rl && ws_digest_known(rl->algo) ? rl->algo : NULL;
	if (ws_mstream_open(&m, &j->bg, za, i, &st, name, b, algo, false) == 0) {
		/* sniff: the first bytes say whether the scanner wants this member */
		while (m.out_len < WS_SNIFF_BYTES && !m.end && !m.failed) {
			long k = ws_mstream_fill(&m, b->out + m.out_len, WS_ZIP_OUT_BUF - m.out_len);
			if (k > 0)
				m.out_len += (size_t)k;
		}
		bool scan = !m.failed && scannable(ws_sniff(b->out, m.out_len));
		bool nested = !scan && !m.failed && j->o.nested && ws_source_nested(b->out, m.out_len);
		/* large members read ahead on the pool when it has threads; the hash runs
		 * beside the scanner, or beside the inflate when nothing scans */
		if (j->pool_width > 1 && !m.failed && !m.end && st.size >= WS_ZIP_READAHEAD_MIN && (scan || j->o.verify_record))
			ws_mstream_readahead(&m, !scan, j->o.pool, &j->members);
		if (nested) {
			struct ws_reader rd = { .read = ws_mstream_read, .ctx = &m, .err = &m.error };
			r->scanned = true;
			ws_source_zip_member(t, r->name, &rd, st.size, &j->scan, &j->bg.total, &j->members_seen);
			if (__atomic_load_n(&j->bg.total, __ATOMIC_RELAXED) > j->lim.max_total_bytes)
				__atomic_store_n(&j->bg.over_total, 1, __ATOMIC_RELAXED);
		} else if (scan) {
			struct ws_reader rd = { .read = ws_mstream_read, .reread = ws_mstream_reread, .ctx = &m,
						.err = &m.error };
			ws_zip_member_fn fn = j->o.scan_member ? j->o.scan_member : default_scan;
			r->scanned = true;
			fn(j->o.scan_member_ctx, t, r->name, &rd, st.size, &j->scan);   /* its problems are on t */
		}
		/* The scanner may stop early; verification needs every byte hashed. */
		if (m.pp) {
			if (j->o.verify_record)
				while (ws_mstream_next_block(&m))
					;
			ws_mstream_stop_readahead(&m);
		} else if (j->o.verify_record) {
			while (!m.end && !m.failed) {
				m.out_pos = m.out_len = 0;
				ws_mstream_fill(&m, b->out, WS_ZIP_OUT_BUF);
			}
		}
	}
	if (m.failed) {
		ws_artifact_report(t, j->label, &m.error);   /* unless the scanner has, naming the object */
	} else if (m.end) {
		if ((st.valid & ZIP_STAT_SIZE) && m.produced != st.size)
			ws_artifact_fail(t, j->label, WS_E_INTEGRITY, "member '%s' inflates to %llu bytes, not the %llu its entry declares",
					  name, (unsigned long long)m.produced, (unsigned long long)st.size);
		else if ((st.valid & ZIP_STAT_CRC) && m.crc != st.crc)
			ws_artifact_fail(t, j->label, WS_E_INTEGRITY, "member '%s' fails its crc-32 check (zip says %08x, data gives %08x)",
					  name, (unsigned)st.crc, (unsigned)m.crc);
		else
			r->complete = true;
		if (r->complete && m.dg) {
			uint8_t md[WS_DIGEST_MAX];
			size_t dl = ws_digest_final(m.dg, md);
			if (!dl || !ws_b64url_nopad(md, dl, r->digest, sizeof r->digest))
				r->digest[0] = '\0';
		}
	}
	r->size = m.produced;
	ws_mstream_close(&m);
}

/* ---- threads ----------------------------------------------------------- */

static int hash_source(const struct ws_zsrc *s, char hex[65], char *err, size_t errlen)
{
	if (!s->path)
		return ws_sha256_mem(s->mem, s->len, hex, err, errlen);
	int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ws_fmt(err, errlen, "%s", strerror(errno));
		return -1;
	}
	int rc = ws_sha256_fd(fd, hex, NULL, err, errlen);
	close(fd);
	return rc;
}

/* A runner takes members off the shared list until none are left, with its own zip_t
 * (libzip handles are not shared between threads) opened on first use; the first runner
 * borrows the opener's handle, which nobody else touches meanwhile. */
struct runner {
	struct job *j;
	zip_t *za;
};

static void run_tasks(void *arg)
{
	struct runner *w = arg;
	struct job *j = w->j;
	struct ws_zbuf b = { 0 };
	zip_t *za = w->za;
	bool own = false, bufs = false;
	for (;;) {
		uint32_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (k >= j->ntask)
			break;
		uint32_t t = j->task[k];
		if (t == HASH_TASK) {
			j->file_rc = hash_source(&j->src, j->file_hex, j->file_err, sizeof j->file_err);
			continue;
		}
		if (!za) {
			char err[WS_ERRMAX];
			za = ws_zip_open_source(&j->src, 0, err, sizeof err);
			own = za != NULL;
		}
		if (!bufs)
			bufs = ws_zbuf_init(&b);
		if (!za || !bufs) {
			struct mres *r = &j->res[t];
			char nb[NAME_SHOWN];
			if ((r->tmp = ws_calloc(1, sizeof *r->tmp)))
				ws_artifact_fail(r->tmp, j->label, WS_E_IO, "cannot read member '%s': %s", shown(nb, r->name),
						  za ? "out of memory" : "cannot reopen the archive");
			continue;
		}
		do_member(j, za, t, &b);
	}
	ws_zbuf_fini(&b);
	if (own)
		zip_discard(za);
}

static int cmp_task(const void *x, const void *y, void *ctx)
{
	const struct job *j = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t sa = a == HASH_TASK ? UINT64_MAX : j->res[a].comp_size;
	uint64_t sb = b == HASH_TASK ? UINT64_MAX : j->res[b].comp_size;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Runs every member (and the file hash when asked) as tasks: one runner per thread the
 * pool has (never more than there are members), all pulling from one list. With one
 * thread everything runs here, in central-directory order. */
static void run_members(struct job *j, zip_t *za, bool hash_task)
{
	j->task = ws_calloc((size_t)j->n + 1, sizeof *j->task);
	if (!j->task) {
		ws_artifact_fail(j->a, j->label, WS_E_MEMORY, "out of memory");
		return;
	}
	j->ntask = 0;
	if (hash_task)
		j->task[j->ntask++] = HASH_TASK;
	for (zip_uint64_t i = 0; i < j->n; i++)
		if (!j->res[i].dir)
			j->task[j->ntask++] = (uint32_t)i;
	/* largest first: the long members start early and the threads finish together */
	int runners = j->pool_width;
	if (runners > 1)
		qsort_r(j->task, j->ntask, sizeof *j->task, cmp_task, j);
	if ((uint32_t)runners > j->ntask)
		runners = j->ntask ? (int)j->ntask : 1;
	if (runners > MAX_THREADS)
		runners = MAX_THREADS;
	struct runner w[MAX_THREADS];
	for (int t = 1; t < runners; t++) {
		w[t] = (struct runner){ .j = j };
		ws_pool_add(j->o.pool, &j->members, run_tasks, &w[t]);
	}
	w[0] = (struct runner){ .j = j, .za = za };
	run_tasks(&w[0]);
	ws_group_wait(j->o.pool, &j->members);
}

/* ---- archive ----------------------------------------------------------- */

/* PEP 503-like comparison of a distribution name with a dist-info prefix. */
static bool same_dist(const char *a, size_t al, const char *b, size_t bl)
{
	size_t i = 0, k = 0;
	for (; i < al && k < bl; i++, k++) {
		char x = a[i], y = b[k];
		if (x == '-' || x == '.')
			x = '_';
		if (y == '-' || y == '.')
			y = '_';
		if (x >= 'A' && x <= 'Z')
			x = (char)(x - 'A' + 'a');
		if (y >= 'A' && y <= 'Z')
			y = (char)(y - 'A' + 'a');
		if (x != y)
			return false;
	}
	return i == al && k == bl;
}

/* Picks the dist-info directory and reads METADATA, WHEEL and RECORD from it. */
static void read_distinfo(struct job *j, zip_t *za, struct ws_zbuf *b, bool *wheel)
{
	struct ws_artifact *a = j->a;
	struct ws_wheel_info fn = { 0 };
	bool have_fn = a->path && ws_wheel_parse_filename(&fn, a->path) == 0;
	const char *files[] = { "RECORD", "WHEEL", "METADATA" };
	int64_t found[3] = { -1, -1, -1 };
	size_t pl = 0;

	/* the dist-info of the distribution the file name says, else the first one */
	for (int pass = 0; pass < 2 && !j->di; pass++) {
		for (zip_uint64_t i = 0; i < j->n; i++) {
			const char *nm = j->res[i].name;
			if (!ws_distinfo_file(nm, "RECORD", &pl) && !ws_distinfo_file(nm, "WHEEL", &pl))
				continue;
			const char *dash = memchr(nm, '-', pl);
			if (pass == 0 && (!have_fn || !dash || !same_dist(nm, (size_t)(dash - nm), fn.name, strlen(fn.name))))
				continue;
			j->di = ws_strndup(nm, pl);
			break;
		}
	}
	if (!j->di)
		goto out;
	pl = strlen(j->di);
	for (zip_uint64_t i = 0; i < j->n; i++) {
		const char *nm = j->res[i].name;
		if (strncmp(nm, j->di, pl) != 0)
			continue;
		for (int f = 0; f < 3; f++)
			if (found[f] < 0 && strcmp(nm + pl, files[f]) == 0)
				found[f] = (int64_t)i;
	}
	*wheel = true;
	struct ws_wheel_info *w = a->wheel = ws_calloc(1, sizeof *a->wheel);
	if (!w) {
		ws_artifact_fail(a, j->label, WS_E_MEMORY, "out of memory");
		goto out;
	}
	if (have_fn) {
		*w = fn;
		memset(&fn, 0, sizeof fn);
	} else {
		/* no wheel file name (a pip cache body): "{name}-{version}.dist-info/" */
		size_t sl = pl - 11;
		const char *dash = memchr(j->di, '-', sl);
		if (dash && dash > j->di && dash + 1 < j->di + sl) {
			w->name = ws_strndup(j->di, (size_t)(dash - j->di));
			w->version = ws_strndup(dash + 1, sl - (size_t)(dash + 1 - j->di));
			const char *plus = w->version ? strchr(w->version, '+') : NULL;
			if (plus && plus[1])
				w->local = ws_strdup(plus + 1);
		}
	}
	for (int f = 0; f < 3; f++) {
		char err[WS_ERRMAX], nb[NAME_SHOWN];
		size_t len = 0;
		if (found[f] < 0 || (f == 0 && !j->o.verify_record))
			continue;
		const char *nm = j->res[found[f]].name;
		char *p = ws_mstream_slurp(&j->bg, za, (zip_uint64_t)found[f], shown(nb, nm), f == 0 ? RECORD_MAX : META_MAX, &len, b,
				   err, sizeof err);
		if (!p) {
			ws_artifact_error(a, j->label, "cannot read '%s': %s", nb, err);
			continue;
		}
		if (f == 0) {
			if (ws_record_parse(&j->rec, p, len, err, sizeof err) == 0)
				j->have_rec = true;
			else
				ws_artifact_error(a, j->label, "%s", err);
		} else if (f == 1) {
			ws_wheel_parse_wheelfile(w, p, len);
		} else {
			ws_wheel_parse_metadata(w, p, len);
		}
		free(p);
	}
	if (j->o.verify_record && found[0] < 0)
		ws_artifact_fail(a, j->label, WS_E_INTEGRITY, "wheel has no RECORD in '%s'", j->di);
out:
	free(fn.name); free(fn.version); free(fn.local);
	free(fn.python_tag); free(fn.abi_tag); free(fn.platform_tag);
}

/* Moves one member's objects and errors into the artifact, then judges it against RECORD. */
static void merge_member(struct job *j, struct mres *r, bool *seen)
{
	struct ws_artifact *a = j->a;
	if (r->tmp) {
		struct ws_artifact *t = r->tmp;
		for (uint32_t k = 0; k < t->nobjects; k++) {
			struct ws_object *d = ws_artifact_add_object(a);
			if (!d) {
				ws_object_clear(&t->objects[k]);
				continue;
			}
			*d = t->objects[k];
		}
		free(t->objects);
		t->objects = NULL;
		t->nobjects = 0;
		for (uint32_t k = 0; k < t->nerrors; k++)
			ws_artifact_fail(a, t->errors[k].where, t->errors[k].code, "%s", t->errors[k].message);
		t->path = NULL;
		ws_artifact_free(t);
		r->tmp = NULL;
	}
	if (r->scanned)
		a->members_scanned++;
	a->bytes_inflated += r->size;
	if (!j->have_rec || !j->o.verify_record || r->dir)
		return;
	struct ws_record *rec = &a->record;
	if (r->rec < 0) {
		size_t pl = strlen(j->di);
		bool own = strncmp(r->name, j->di, pl) == 0 &&
			   (strcmp(r->name + pl, "RECORD") == 0 || strcmp(r->name + pl, "RECORD.jws") == 0 ||
			    strcmp(r->name + pl, "RECORD.p7s") == 0);
		if (!own)
			ws_strv_push(&rec->unlisted, &rec->nunlisted, r->name);
		return;
	}
	seen[r->rec] = true;
	if (!r->complete)
		return;                           /* unreadable: already an error of its own */
	ws_record_verify(a, j->label, &j->rec.line[r->rec], r->name, r->digest, r->size, false);
}

static int zip_scan(struct ws_artifact *a, const struct ws_zsrc *src, const struct ws_zip_opts *opt)
{
	struct job j = { .a = a, .src = *src };
	char err[WS_ERRMAX];
	zip_t *za = NULL;
	struct ws_zbuf b = { 0 };
	uint32_t nerr0 = a->nerrors;
	bool wheel = false;

	if (opt)
		j.o = *opt;
	else
		ws_zip_opts_default(&j.o);
	if (j.o.scan)
		j.scan = *j.o.scan;
	else
		j.scan.want_kernels = true;
	if (j.scan.lim)
		j.lim = *j.scan.lim;
	else
		ws_limits_default(&j.lim);
	j.scan.lim = &j.lim;
	j.bg.lim = &j.lim;
	j.bg.progress = j.o.progress;
	j.label = a->path ? a->path : "(memory)";
	if (!j.o.pool)
		j.o.pool = ws_pool_new(1);        /* no threads: everything in place */
	j.pool_width = ws_pool_width(j.o.pool);
	ws_group_init(&j.members, j.o.group);
	/* members' payload tasks hang below this archive's runners */
	j.scan.pool = j.o.pool;
	j.scan.group = &j.members;
	if (!a->type)
		a->type = "zip";

	if (src->path) {
		struct stat sb;
		if (stat(src->path, &sb) == 0)
			a->size = (uint64_t)sb.st_size;
	} else {
		a->size = src->len;
	}
	za = ws_zip_open_source(src, ZIP_CHECKCONS, err, sizeof err);
	if (!za) {
		ws_artifact_error(a, j.label, "%s", err);
		if (j.o.hash_file && hash_source(src, a->sha256, err, sizeof err) != 0)
			a->sha256[0] = '\0';
		goto out;
	}
	zip_int64_t n = zip_get_num_entries(za, 0);
	if (n < 0 || (uint64_t)n > j.lim.max_members) {
		ws_artifact_fail(a, j.label, WS_E_LIMIT, "archive holds %lld members, more than the limit of %u", (long long)n,
				  j.lim.max_members);
		goto out;
	}
	j.n = (zip_uint64_t)n;
	j.members_seen = j.n;
	if (n && !(j.res = ws_calloc((size_t)n, sizeof *j.res))) {
		ws_artifact_fail(a, j.label, WS_E_MEMORY, "out of memory");
		goto out;
	}
	for (zip_uint64_t i = 0; i < j.n; i++) {
		zip_stat_t st;
		zip_stat_init(&st);
		const char *nm = zip_stat_index(za, i, 0, &st) == 0 && (st.valid & ZIP_STAT_NAME) ? st.name : "";
		size_t len = strlen(nm);
		j.res[i].name = ws_strdup(nm);
		j.res[i].comp_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
		j.res[i].dir = len > 0 && nm[len - 1] == '/';
		j.res[i].rec = -1;
		if (!j.res[i].name) {
			ws_artifact_fail(a, j.label, WS_E_MEMORY, "out of memory");
			goto out;
		}
	}
	if (!ws_zbuf_init(&b)) {
		ws_artifact_fail(a, j.label, WS_E_MEMORY, "out of memory");
		goto out;
	}
	read_distinfo(&j, za, &b, &wheel);
	a->type = wheel ? "wheel" : "zip";
	if (j.have_rec)
		for (zip_uint64_t i = 0; i < j.n; i++)
			j.res[i].rec = ws_record_find(&j.rec, j.res[i].name);

	ws_zbuf_fini(&b);                    /* each runner keeps its own */
	run_members(&j, za, j.o.hash_file);
	if (j.o.hash_file && j.file_rc == 0)
		memcpy(a->sha256, j.file_hex, sizeof a->sha256);
	if (j.o.hash_file && j.file_rc != 0)
		ws_artifact_fail(a, j.label, WS_E_IO, "cannot hash the file: %s", j.file_err);

	/* merge in central-directory order: the output does not depend on jobs */
	bool *seen = j.have_rec && j.rec.n ? ws_calloc(j.rec.n, sizeof *seen) : NULL;
	if (j.have_rec && j.rec.n && !seen) {
		ws_artifact_fail(a, j.label, WS_E_MEMORY, "out of memory");
		j.have_rec = false;
	}
	for (zip_uint64_t i = 0; i < j.n; i++)
		merge_member(&j, &j.res[i], seen);
	if (__atomic_load_n(&j.bg.over_total, __ATOMIC_RELAXED)) {
		char sz[48];
		ws_artifact_fail(a, j.label, WS_E_LIMIT, "archive inflates past the %s total limit; members after it were skipped",
				  ws_fmt_size(sz, sizeof sz, j.lim.max_total_bytes));
	}
	if (j.have_rec && j.o.verify_record) {
		struct ws_record *rec = &a->record;
		for (uint32_t k = 0; k < j.rec.n; k++)
			if (!seen[k])
				ws_strv_push(&rec->missing, &rec->nmissing, j.rec.line[k].path);
		rec->checked = true;
		ws_record_conclude(rec);
	}
	free(seen);
out:
	if (j.res)
		for (zip_uint64_t i = 0; i < j.n; i++) {
			free(j.res[i].name);
			if (j.res[i].tmp) {
				j.res[i].tmp->path = NULL;
				ws_artifact_free(j.res[i].tmp);
			}
		}
	free(j.res);
	free(j.task);
	free(j.di);
	ws_record_index_free(&j.rec);
	ws_zbuf_fini(&b);
	if (za)
		zip_discard(za);
	return a->nerrors > nerr0 ? -1 : 0;
}

int ws_zip_scan_file(struct ws_artifact *a, const char *path, const struct ws_zip_opts *o)
{
	struct ws_zsrc s = { .path = path };
	return zip_scan(a, &s, o);
}

int ws_zip_scan_memory(struct ws_artifact *a, const uint8_t *p, size_t n, const struct ws_zip_opts *o)
{
	struct ws_zsrc s = { .mem = p, .len = n };
	return zip_scan(a, &s, o);
}
