/* zipsrc.c - wheels and zips through libzip, as a random-access source of the one driver
 * (ws_source.h): open the archive (libzip's errors in this project's words), list its
 * members, choose the dist-info and read METADATA / WHEEL / RECORD from it, and open member
 * i as a stream (zipstream.c: inflate, CRC-32, the entry's declared size, read-ahead); the
 * zip format of the opener (ws_open.h): its bidder and its steps around the walk. The
 * driver runs the members as tasks on the pool, counts the limits, hashes each member for
 * the RECORD check (recordcheck.c) and merges in central-directory order; the whole file's
 * sha256 is taken in steps beside the members, where they leave a thread idle. A zip in a
 * member is read by libarchive from its local headers (source_archive.c).
 *
 * Memory per runner: two 256 KiB buffers and one inflate state, whatever the member sizes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "ws_open.h"
#include "ws_pkgcheck.h"
#include "ws_quote.h"
#include "ws_zip.h"
#include "ws_wheelinfo.h"
#include "ws_record.h"
#include "ws_readfile.h"
#include "ws_zipstream.h"


/* One archive: the source the driver reads, and what was read before it. */
struct zip_job {
	struct ws_rsource s;
	struct ws_artifact *a;
	const char *label;           /* a->path, or "(memory)" */
	struct ws_zsrc src;
	struct ws_zip_opts o;
	zip_t *za;                   /* the opener's handle, lent to the first runner */
	struct ws_zip_budget bg;     /* progress of every member stream */
	struct ws_pool *pool;        /* large members read ahead here when it has threads */
	char **names;                /* libzip's strings (list_members) */
	uint64_t *size, *cost;
	bool *dir;
	struct ws_record_index rec;
	bool have_rec;
	char *di;                    /* "name-1.0.dist-info/" chosen for the facts */
	zip_uint64_t n;
	struct ws_hash_steps *hash;  /* the file's sha256, taken beside the members */
	struct ws_limits lim;
	struct ws_zbuf b;            /* the opener's, while the dist-info is read */
	struct ws_scan_opts mo;      /* the scan options of zip_opts_of */
};

void ws_zip_opts_default(struct ws_zip_opts *o)
{
	memset(o, 0, sizeof *o);
	o->verify_record = true;
	o->hash_file = true;
}

static const char *shown(char buf[WS_NAME_SHOWN], const char *name)
{
	ws_sanitize(buf, WS_NAME_SHOWN, name, strlen(name));
	return buf;
}

/* ---- the source: one runner per thread, each its own zip_t ------------------------------ */

/* libzip handles are not shared between threads: a runner opens its own, but the first
 * borrows the opener's, which nobody else touches meanwhile. */
struct zip_runner {
	zip_t *za;
	bool own;
	struct ws_zbuf b;
	struct ws_mstream ms;        /* the member being read */
	zip_stat_t st;
	char shown[WS_NAME_SHOWN];
	struct ws_pool *pool;
	struct ws_group *group;      /* the runners': read-ahead waits run their payloads */
};

static void *zr_open(struct ws_rsource *s, bool first, const struct ws_scan_opts *so, struct ws_err *err)
{
	struct zip_job *j = s->impl;
	struct zip_runner *h = ws_calloc(1, sizeof *h);
	struct ws_err e = {0};
	if (!h || !ws_zbuf_init(&h->b)) {
		if (h)
			ws_zbuf_fini(&h->b);
		free(h);
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return NULL;
	}
	h->za = first ? j->za : ws_zip_open_source(&j->src, 0, &e);
	h->own = !first;
	if (!h->za) {
		ws_zbuf_fini(&h->b);
		free(h);
		ws_err_set(err, WS_E_IO, "cannot reopen the archive");
		return NULL;
	}
	h->pool = so->pool;
	h->group = so->group;
	return h;
}

static void zr_close(struct ws_rsource *s, void *runner)
{
	struct zip_runner *h = runner;
	ws_zbuf_fini(&h->b);
	if (h->own)
		zip_discard(h->za);
	free(h);
}

static int zm_open(struct ws_rsource *s, void *runner, uint32_t i, struct ws_digest *dg, struct ws_member *m,
		   struct ws_err *err)
{
	struct zip_job *j = s->impl;
	struct zip_runner *h = runner;
	shown(h->shown, j->names[i]);
	zip_stat_init(&h->st);
	if (zip_stat_index(h->za, i, 0, &h->st) != 0 || !(h->st.valid & ZIP_STAT_SIZE))
		return ws_err_set(err, WS_E_FORMAT, "cannot read the entry of member '%s'", h->shown);
	if (ws_mstream_open(&h->ms, &j->bg, h->za, i, &h->st, h->shown, &h->b, NULL, false) != 0) {
		ws_err_set(err, h->ms.error.code, "%s", h->ms.error.msg);
		ws_mstream_close(&h->ms);
		return -1;
	}
	/* the stream hashes what it inflates; with read-ahead the reader does, so that a long
	 * member's inflate and its hash run on two threads */
	h->ms.dg = dg;
	if (ws_pool_width(h->pool) > 1 && h->st.size >= WS_ZIP_READAHEAD_MIN)
		ws_mstream_readahead(&h->ms, true, h->pool, h->group);
	memset(m, 0, sizeof *m);
	m->name = j->names[i];
	m->size = h->st.size;
	m->regular = true;
	m->hashed = dg != NULL;
	m->rd = (struct ws_reader){ .read = ws_mstream_read, .reread = ws_mstream_reread, .ctx = &h->ms,
				    .err = &h->ms.error };
	return 1;
}

/* The entry's own claims, once the member has been inflated to its end. */
static int zm_close(struct ws_rsource *s, void *runner, struct ws_err *err)
{
	struct zip_runner *h = runner;
	struct ws_mstream *m = &h->ms;
	int rc = 0;
	ws_mstream_stop_readahead(m);
	m->dg = NULL;                          /* the driver's */
	if (m->end && !m->failed) {
		if (m->produced != h->st.size)
			rc = ws_err_set(err, WS_E_INTEGRITY, "member '%s' inflates to %llu bytes, not the %llu its entry declares",
					h->shown, (unsigned long long)m->produced, (unsigned long long)h->st.size);
		else if ((h->st.valid & ZIP_STAT_CRC) && m->crc != h->st.crc)
			rc = ws_err_set(err, WS_E_INTEGRITY, "member '%s' fails its crc-32 check (zip says %08x, data gives %08x)",
					h->shown, (unsigned)h->st.crc, (unsigned)m->crc);
	}
	ws_mstream_close(m);
	return rc;
}

static int hash_whole(const struct ws_zsrc *src, char hex[65])
{
	struct ws_hash_steps *h = ws_hash_steps_new(src->path, src->mem, src->len);
	while (h && ws_hash_steps_next(h) == 1)
		;
	return ws_hash_steps_end(h, hex, NULL);
}

static bool zip_hash_step(struct ws_rsource *s)
{
	struct zip_job *j = s->impl;
	if (!j->hash && !(j->hash = ws_hash_steps_new(j->src.path, j->src.mem, j->src.len)))
		return false;                  /* reported as out of memory at the end */
	return ws_hash_steps_next(j->hash) == 1;
}

static const struct ws_rsource_ops zip_ops = {
	.runner_open = zr_open,
	.runner_close = zr_close,
	.open = zm_open,
	.close = zm_close,
};

static const struct ws_rsource_ops zip_ops_hashed = {
	.runner_open = zr_open,
	.runner_close = zr_close,
	.open = zm_open,
	.close = zm_close,
	.beside_step = zip_hash_step,
};

/* ---- archive ----------------------------------------------------------- */


/* Picks the dist-info directory and reads METADATA, WHEEL and RECORD from it. */
static void read_distinfo(struct zip_job *j, zip_t *za, struct ws_zbuf *b, bool *wheel)
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
			const char *nm = j->names[i];
			if (!ws_distinfo_file(nm, "RECORD", &pl) && !ws_distinfo_file(nm, "WHEEL", &pl))
				continue;
			const char *dash = memchr(nm, '-', pl);
			if (pass == 0 && (!have_fn || !dash || !ws_pypi_name_eq(nm, (size_t)(dash - nm), fn.name, strlen(fn.name))))
				continue;
			j->di = ws_strndup(nm, pl);
			break;
		}
	}
	if (!j->di)
		goto out;
	pl = strlen(j->di);
	for (zip_uint64_t i = 0; i < j->n; i++) {
		const char *nm = j->names[i];
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
		struct ws_err err = {0};
		char nb[WS_NAME_SHOWN];
		size_t len = 0;
		if (found[f] < 0 || (f == 0 && !j->o.verify_record))
			continue;
		const char *nm = j->names[found[f]];
		char *p = ws_mstream_slurp(&j->bg, za, (zip_uint64_t)found[f], shown(nb, nm), f == 0 ? (uint64_t)WS_RECORD_MAX : (uint64_t)WS_METADATA_MAX, &len, b,
				   &err);
		if (!p) {
			ws_artifact_fail(a, j->label, err.code, "cannot read '%s': %s", nb, err.msg);
			continue;
		}
		if (f == 0) {
			if (ws_record_parse(&j->rec, p, len, &err) == 0)
				j->have_rec = true;
			else
				ws_artifact_fail(a, j->label, err.code, "%s", err.msg);
		} else if (f == 1) {
			ws_wheel_parse_wheelfile(w, p, len);
		} else {
			ws_wheel_parse_metadata(w, p, len);
		}
		free(p);
	}
	/* a body's dist-info directory may drop the local label METADATA's version keeps */
	const char *plus = !have_fn && !w->local && w->meta_version ? strchr(w->meta_version, '+') : NULL;
	if (plus && plus[1])
		w->local = ws_strdup(plus + 1);
	if (j->o.verify_record && found[0] < 0)
		ws_artifact_fail(a, j->label, WS_E_INTEGRITY, "wheel has no RECORD in '%s'", j->di);
out:
	free(fn.name); free(fn.version); free(fn.local);
	free(fn.python_tag); free(fn.abi_tag); free(fn.platform_tag);
}

/* The member list: names, declared and compressed sizes, directories. */
static bool list_members(struct zip_job *j)
{
	size_t n = (size_t)j->n;
	if (!n)
		return true;
	if (!(j->names = ws_calloc(n, sizeof *j->names)) || !(j->size = ws_calloc(n, sizeof *j->size)) ||
	    !(j->cost = ws_calloc(n, sizeof *j->cost)) || !(j->dir = ws_calloc(n, sizeof *j->dir)))
		return false;
	for (zip_uint64_t i = 0; i < j->n; i++) {
		zip_stat_t st;
		zip_stat_init(&st);
		bool ok = zip_stat_index(j->za, i, 0, &st) == 0;
		const char *nm = ok && (st.valid & ZIP_STAT_NAME) ? st.name : "";
		/* The name's own bytes when they are UTF-8, as RECORD and Python's zipfile have
		 * them: libzip's guess reads a name with a control byte (ESC) as CP437 and gives
		 * "\u2190[2J", which RECORD never lists. Other names stay libzip's CP437 reading. */
		const char *raw = ok ? zip_get_name(j->za, i, ZIP_FL_ENC_RAW) : NULL;
		if (raw && ws_utf8_valid(raw, strlen(raw)))
			nm = raw;
		size_t len = strlen(nm);
		/* libzip's own string, kept until zip_discard (zipf_close, after every use): a
		 * copy cost 24 to 40 bytes a member more (issue 40: 1,000,000 members) */
		j->names[i] = (char *)nm;
		j->size[i] = ok && (st.valid & ZIP_STAT_SIZE) ? st.size : UINT64_MAX;
		j->cost[i] = ok && (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
		j->dir[i] = len > 0 && nm[len - 1] == '/';
	}
	return true;
}

/* Opens the archive for libzip into j->za; on failure records why on j->a (a better reason
 * than libzip's where one is known), with the file's sha256 still taken when wanted. */
static bool open_archive(struct zip_job *j, const struct ws_zsrc *src)
{
	struct ws_artifact *a = j->a;
	struct ws_err oe = {0};
	j->za = ws_zip_open_source(src, ZIP_CHECKCONS, &oe);
	if (j->za)
		return true;
	uint64_t got = 0;
	char sz[32];
	char dup[WS_NAME_SHOWN];
	/* a better reason than libzip's replaces its */
	if (ws_zip_truncated(src, &got)) {   /* "not a zip archive" would blame the wrong thing */
		oe.code = 0;
		ws_err_set(&oe, WS_E_FORMAT, "truncated or incomplete (%s; the zip directory is missing)",
			   ws_fmt_human(sz, sizeof sz, got));
	} else if (ws_zip_duplicate_name(src, dup, sizeof dup)) {   /* libzip: "File already exists" */
		oe.code = 0;
		ws_err_set(&oe, WS_E_FORMAT, "duplicate member name '%s'", dup);
	}
	ws_artifact_fail(a, j->label, oe.code, "%s", oe.msg);
	if (j->o.hash_file && hash_whole(src, a->sha256) != 0)
		a->sha256[0] = '\0';
	return false;
}

/* ---- the zip format of the opener (ws_open.h) ------------------------------------------ */

/* A file or standard input whose first bytes are a zip's (ws_sniff); a member by the
 * archive sniffer, read by libarchive from its local headers (a stream has no directory). */
static int zip_bid(const struct ws_open_in *in)
{
	if (in->from == WS_FROM_MEMBER)
		return ws_pack_sniff(in->head, in->nhead) == WS_PACK_ZIP ? WS_BID_CONTENT : 0;
	if (in->from == WS_FROM_DIR)
		return 0;
	return ws_sniff(in->head, in->nhead) == WS_CONTENT_ZIP ? WS_BID_WEAK : 0;
}

static struct ws_source *zip_member_source(const struct ws_open_in *in, struct ws_err *err)
{
	return ws_archive_open_reader(in->rd, WS_PACK_ZIP, err);
}

/* The zip reader's options when the opener chose it: members, their read-ahead and their
 * payloads are tasks on the scan's pool (the pool's byte budget bounds the payloads held). */
static void zip_opts_of(struct zip_job *j, const struct ws_open_opts *o, const struct ws_open_in *in)
{
	ws_zip_opts_default(&j->o);
	j->mo = o->so ? *o->so : (struct ws_scan_opts){ .want_kernels = true };
	j->o.scan = &j->mo;
	j->o.verify_record = o->verify;
	j->o.pool = j->mo.pool;
	j->o.group = j->mo.group;
	j->o.nested = true;
	j->o.progress = o->progress;
	j->o.hash_file = in->from != WS_FROM_STDIN;   /* standard input's spool is hashed as it is mapped */
}

/* Everything before the members: the archive opened, its members listed and their layout
 * checked, the dist-info read; then the members are the driver's, RECORD checked as they
 * pass (recordcheck.c) and the file's sha256 taken beside them. -1: nothing to walk. */
static int zipf_open(struct ws_walk *w)
{
	struct ws_artifact *a = w->a;
	struct zip_job *j = w->impl = ws_calloc(1, sizeof *j);
	if (!j) {
		ws_artifact_fail(a, a->path ? a->path : "(memory)", WS_E_MEMORY, "out of memory");
		return -1;
	}
	j->a = a;
	if (w->in->from == WS_FROM_FILE && w->in->name && !w->in->mem)
		j->src = (struct ws_zsrc){ .path = w->in->name };
	else
		j->src = (struct ws_zsrc){ .mem = w->in->mem, .len = w->in->len };
	const struct ws_zsrc *src = &j->src;
	bool wheel = false;
	if (w->o && w->o->zip)
		j->o = *w->o->zip;
	else if (w->o)
		zip_opts_of(j, w->o, w->in);
	else
		ws_zip_opts_default(&j->o);
	struct ws_scan_opts *so = &w->scan;
	*so = (struct ws_scan_opts){ .want_kernels = true };
	if (j->o.scan)
		*so = *j->o.scan;
	if (so->lim)
		j->lim = *so->lim;
	else
		ws_limits_default(&j->lim);
	so->lim = &j->lim;
	so->pool = j->pool = j->o.pool ? j->o.pool : ws_pool_new(1);   /* no threads: everything in place */
	so->group = j->o.group;
	j->bg.progress = j->o.progress;
	j->label = a->path ? a->path : "(memory)";
	/* what the file is, even when it cannot be opened: a wheel by its name until read */
	if (a->type == WS_ART_NONE || a->type == WS_ART_OTHER)
		a->type = a->path && ws_name_type(a->path) == WS_ART_WHEEL ? WS_ART_WHEEL : WS_ART_ZIP;

	if (src->path) {
		struct stat sb;
		if (stat(src->path, &sb) == 0)
			a->size = (uint64_t)sb.st_size;
	} else {
		a->size = src->len;
	}
	if (a->size > j->lim.max_total_bytes) {  /* it would pass the total limit: not hashed whole first */
		char sz[48];
		ws_artifact_fail(a, j->label, WS_E_LIMIT, "file is %llu bytes, over the %s total limit of one archive"
				 " (--max-total-size): not read", (unsigned long long)a->size,
				 ws_fmt_size(sz, sizeof sz, j->lim.max_total_bytes));
		return -1;
	}
	if (!open_archive(j, src))
		return -1;
	zip_int64_t n = zip_get_num_entries(j->za, 0);
	if (n < 0 || (uint64_t)n > j->lim.max_members) {
		ws_artifact_fail(a, j->label, WS_E_LIMIT, "archive holds %lld members, more than the limit of %u", (long long)n,
				  j->lim.max_members);
		return -1;
	}
	j->n = (zip_uint64_t)n;
	if (!list_members(j) || !ws_zbuf_init(&j->b)) {
		ws_artifact_fail(a, j->label, WS_E_MEMORY, "out of memory");
		return -1;
	}
	/* before any member is inflated: members sharing data are a bomb, not an archive */
	struct ws_err le = {0};
	if (ws_zip_check_layout(src, j->n, (const char *const *)j->names, &le) != 0) {
		ws_artifact_fail(a, j->label, le.code, "%s", le.msg);
		if (j->o.hash_file && hash_whole(src, a->sha256) != 0)
			a->sha256[0] = '\0';
		return -1;
	}
	read_distinfo(j, j->za, &j->b, &wheel);
	a->type = wheel ? WS_ART_WHEEL : WS_ART_ZIP;
	ws_zbuf_fini(&j->b);                 /* each runner keeps its own */

	j->s = (struct ws_rsource){ .ops = j->o.hash_file ? &zip_ops_hashed : &zip_ops, .impl = j, .n = (uint32_t)j->n,
				    .names = j->names, .size = j->size, .cost = j->cost, .skip = j->dir,
				    .windows_names = true, .nest = j->o.nested, .drain = j->o.verify_record,
				    .zip_style = true };
	w->rsrc = &j->s;
	w->label = j->label;
	w->scan_member = j->o.scan_member;
	w->scan_member_ctx = j->o.scan_member_ctx;
	struct ws_drive_check *rc = NULL;
	if (j->have_rec && j->o.verify_record && !(rc = ws_record_check(WS_RECORD_WHEEL, &j->rec, NULL, j->di)))
		ws_artifact_fail(a, j->label, WS_E_MEMORY, "out of memory");
	ws_walk_check(w, rc);
	return 0;
}

/* The file's sha256, its steps finished where the members left some. */
static void zip_after(struct ws_walk *w)
{
	struct zip_job *j = w->impl;
	char hex[65];
	if (!j->o.hash_file)
		return;
	if (!j->hash)                          /* the driver stopped before it began (a limit) */
		while (zip_hash_step(&j->s))
			;
	struct ws_err he = { 0 };
	if (ws_hash_steps_end(j->hash, hex, &he) == 0)
		memcpy(j->a->sha256, hex, sizeof j->a->sha256);
	else
		ws_artifact_fail(j->a, j->label, WS_E_IO, "cannot hash the file: %s", he.msg);
}

static void zipf_close(struct ws_walk *w)
{
	struct zip_job *j = w->impl;
	struct ws_artifact *a = w->a;
	if (!j)
		return;
	free(j->names);                      /* the strings are libzip's */
	free(j->size);
	free(j->cost);
	free(j->dir);
	free(j->di);
	ws_record_index_free(&j->rec);
	ws_zbuf_fini(&j->b);
	if (j->za)
		zip_discard(j->za);
	free(j);
	w->impl = NULL;
	/* a file the opener chose: a .whl must be a wheel (the zip API says nothing of names) */
	const char *path = w->in->name;
	size_t pl = path ? strlen(path) : 0;
	if (w->in->from == WS_FROM_FILE && !(w->o && w->o->zip) && pl >= 4 && !strcasecmp(path + pl - 4, ".whl") &&
	    a->type != WS_ART_WHEEL && !a->nerrors)
		ws_artifact_error(a, path, "not a wheel: no .dist-info/WHEEL or RECORD at the top of the zip");
}

const struct ws_archive_format ws_format_zip = {
	.name = "zip", .bid = zip_bid, .whole = true, .source = zip_member_source,
	.open = zipf_open, .after = zip_after, .close = zipf_close,
};
