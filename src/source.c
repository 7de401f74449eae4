/* source.c - the one driver over sources that yield members: limits, package checksums,
 * sniffing, and dispatch of each member to the object scanner or, for an archive inside
 * an archive, to a nested source one level deep, of the format the opener (ws_open.h)
 * chooses. A random-access source's members run as tasks (source_random.c); an artifact's
 * own source is opened by its format and handed to the driver by the walk (walk.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drive.h"
#include "ws_open.h"
#include "ws_quote.h"
#include "ws_source.h"
#include "ws_zipstream.h"

#define MAX_LEVEL 2                  /* the artifact's own members, and one nested archive */

/* ---- one member's stream: limits, digest, text for the checks ------------------------ */

struct mread {
	struct ws_drive *d;
	struct ws_reader *up;
	const char *where;             /* "label!name", sanitised; the label in zip style */
	const char *shown;             /* the member's name, sanitised (zip style names it) */
	bool zip_style, random;        /* a random-access member (ws_rsource): its member limit
					* does not end the walk */
	uint64_t got;                  /* bytes read from up */
	uint8_t head[WS_SNIFF_BYTES];
	size_t nhead, hpos;
	struct ws_digest *dg;
	char *text;                    /* kept for a package check */
	size_t ntext, text_max;
	bool text_over;
	bool end, failed;
	struct ws_err err;
};

static void stop_at_limit(struct mread *m, bool total, uint64_t v)
{
	char sz[48];
	ws_fmt_size(sz, sizeof sz, v);
	if (total && m->zip_style)
		ws_err_set(&m->err, WS_E_LIMIT, "member '%s' stopped: the archive inflates past the %s total limit",
			   m->shown, sz);
	else if (total)
		ws_err_set(&m->err, WS_E_LIMIT, "archive inflates past the %s total limit", sz);
	else if (m->zip_style)
		ws_err_set(&m->err, WS_E_LIMIT, "member '%s' inflates past the %s limit", m->shown, sz);
	else
		ws_err_set(&m->err, WS_E_LIMIT, "member inflates past the %s limit", sz);
	m->failed = true;
	if (total || !m->random)
		m->d->stopped = true;
	if (total)
		__atomic_store_n(&m->d->root->stopped, true, __ATOMIC_RELAXED);
}

/* A stream's size is known only as it is read: the budget learns of its bytes as they come,
 * before the entries they hold are decoded. */
static void count_input(struct ws_drive *d)
{
	uint64_t now = ws_archive_bytes_read(d->input_src);
	if (now > d->input_seen) {
		ws_budget_add_input(d->scan.budget, now - d->input_seen);
		d->input_seen = now;
	}
}

/* Reads from the source, counting and hashing. */
static long up_read(struct mread *m, uint8_t *buf, size_t n)
{
	if (m->failed)
		return -1;
	if (m->end)
		return 0;
	long r = m->up->read(m->up->ctx, buf, n, m->up->err);
	if (r < 0) {
		const struct ws_err *e = m->up->err;
		if (e && e->code)
			ws_err_set(&m->err, e->code, "%s", e->msg);
		else
			ws_err_set(&m->err, WS_E_IO, "cannot read the member");
		m->failed = true;
		return -1;
	}
	if (r == 0) {
		m->end = true;
		return 0;
	}
	const struct ws_limits *lim = &m->d->lim;
	if (m->d->input_src)
		count_input(m->d);
	m->got += (uint64_t)r;
	uint64_t total = __atomic_add_fetch(&m->d->root->total, (uint64_t)r, __ATOMIC_RELAXED);
	if (m->got > lim->max_member_bytes) {
		stop_at_limit(m, false, lim->max_member_bytes);
		return -1;
	}
	if (total > lim->max_total_bytes) {
		stop_at_limit(m, true, lim->max_total_bytes);
		return -1;
	}
	if (m->dg)
		ws_digest_update(m->dg, buf, (size_t)r);
	if (m->text_max && !m->text_over) {
		if ((uint64_t)m->ntext + (uint64_t)r > m->text_max) {
			m->text_over = true;
		} else {
			char *t = realloc(m->text, m->ntext + (size_t)r + 1);
			if (!t) {
				m->text_over = true;
			} else {
				m->text = t;
				memcpy(t + m->ntext, buf, (size_t)r);
				m->ntext += (size_t)r;
				t[m->ntext] = 0;
			}
		}
	}
	return r;
}

/* struct ws_reader's read: the sniffed head first, then the rest. */
static long mread_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct mread *m = ctx;
	if (m->hpos < m->nhead) {
		size_t k = m->nhead - m->hpos < n ? m->nhead - m->hpos : n;
		memcpy(buf, m->head + m->hpos, k);
		m->hpos += k;
		return (long)k;
	}
	long r = up_read(m, buf, n);
	if (r < 0 && err && err != &m->err)
		ws_err_set(err, m->err.code, "%s", m->err.msg);
	return r;
}

/* struct ws_reader's reread: offsets are the member's, whatever the head buffered. */
static int mread_reread(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct mread *m = ctx;
	return m->up->reread(m->up->ctx, off, buf, n, err);
}

static bool scannable(enum ws_content c)
{
	return c == WS_CONTENT_ELF || c == WS_CONTENT_CUBIN || c == WS_CONTENT_AR || c == WS_CONTENT_FATBIN ||
	       c == WS_CONTENT_PTX || c == WS_CONTENT_PE;
}

/* ---- the driver ------------------------------------------------------------------------ */

void ws_drive_init(struct ws_drive *d, struct ws_artifact *a, const struct ws_scan_opts *so)
{
	memset(d, 0, sizeof *d);
	d->a = a;
	d->label = a->path ? a->path : "-";
	if (so)
		d->scan = *so;
	else
		d->scan.want_kernels = true;
	if (so && so->lim)
		d->lim = *so->lim;
	else
		ws_limits_default(&d->lim);
	d->scan.lim = &d->lim;
	d->root = d;
	if (!d->scan.budget) {                   /* the artifact is this walk's */
		d->scan.budget = &d->own_budget;
		ws_budget_add_input(d->scan.budget, a->size);
	}
}

/* The limit message of one member whose size field declares more than the limit: it is
 * refused before a byte is inflated, so it says "declares" (stop_at_limit says "inflates
 * past" of what was read). */
void ws_drive_member_over(struct ws_drive *d, struct ws_artifact *a, const char *where, const char *shown,
			  bool zip_style, uint64_t declared, bool file)
{
	char sz[48];
	ws_fmt_size(sz, sizeof sz, d->lim.max_member_bytes);
	if (file)                              /* a file on disk: its size is no claim */
		ws_artifact_fail(a, where, WS_E_LIMIT, "file is %llu bytes, over the %s limit for one file"
				 " (--max-member-size): not read", (unsigned long long)declared, sz);
	else if (zip_style)
		ws_artifact_fail(a, where, WS_E_LIMIT, "member '%s' declares %llu bytes, over the %s limit", shown,
				 (unsigned long long)declared, sz);
	else
		ws_artifact_fail(a, where, WS_E_LIMIT, "member declares %llu bytes, over the %s limit",
				 (unsigned long long)declared, sz);
}

/* An image's JSON member, told by its first bytes: they start the text kept for the check
 * (over when the member is larger than max, or memory is short). */
static void keep_head_as_text(struct mread *m, size_t max)
{
	m->text_max = max;
	if (m->nhead > max)
		m->text_over = true;
	else if ((m->text = malloc(m->nhead + 1))) {
		memcpy(m->text, m->head, m->nhead);
		m->text[m->ntext = m->nhead] = 0;
	} else {
		m->text_over = true;
	}
}

/* A member that is an archive, opened as a source and driven one level down (a layer of an
 * image is not a level). where (len bytes) is rewritten in the driver's way for a zip's
 * member. True when its members were driven. */
static bool drive_nested(struct ws_drive *d, struct mread *m, const struct ws_archive_format *f, struct ws_open_in *in,
			 char *where, size_t len, int level, bool layer)
{
	struct ws_artifact *a = d->a;
	bool zip_style = m->zip_style, archive = false;
	struct ws_err e = { 0 };
	if (zip_style) {
		/* a zip always named what goes wrong in an archive it holds in the
		 * driver's way, and counted the archive as one member scanned */
		ws_fmt(where, len, "%s!%s", d->label, m->shown);
		m->zip_style = false;
		a->members_scanned++;
	}
	const char *name = in->name;
	struct ws_source *src = f->source(in, &e);
	if (!src) {
		if (!m->failed)
			ws_artifact_fail(a, where, e.code, "%s", e.msg);
	} else {
		size_t nl = strlen(name);
		char *prefix = ws_malloc(nl + 2);
		if (prefix) {
			memcpy(prefix, name, nl);
			memcpy(prefix + nl, "!", 2);
			a->members_scanned += !zip_style;
			archive = true;
			d->layer_levels += layer;
			ws_drive_source(d, src, prefix, level + 1);
			d->layer_levels -= layer;
			free(prefix);
		}
		ws_source_close(src);
	}
	return archive;
}

/* ---- the checks that ride along (struct ws_drive_check, ws_source.h) ------------------------- */

bool ws_drive_add_check(struct ws_drive *d, struct ws_drive_check *c)
{
	if (!c)
		return true;
	if (d->nchecks >= WS_DRIVE_CHECKS) {
		c->ops->free(c);
		return false;
	}
	d->checks[d->nchecks++] = c;
	return true;
}

const char *ws_drive_algo(struct ws_drive *d, const char *name, bool *wants)
{
	const char *algo = NULL;
	for (unsigned i = 0; i < d->nchecks; i++) {
		const char *x = d->checks[i]->ops->algo(d->checks[i], name);
		if (wants)
			wants[i] = x != NULL;
		if (x && !algo)
			algo = x;
	}
	return algo;
}

void ws_drive_tell(struct ws_drive *d, struct ws_told *t, const bool *told)
{
	for (unsigned i = 0; i < d->nchecks; i++)
		if (!told || told[i])
			d->checks[i]->ops->member(d->checks[i], d->a, d->label, t);
}

/* The check that gets this member's text (the first that wants it), or -1; *max its limit. */
static int text_owner(struct ws_drive *d, const char *name, const uint8_t *head, size_t nhead, size_t *max)
{
	for (unsigned i = 0; i < d->nchecks; i++) {
		const struct ws_drive_check_ops *o = d->checks[i]->ops;
		size_t k = o->wants_text ? o->wants_text(d->checks[i], name, head, nhead) : 0;
		if (k) {
			*max = k;
			return (int)i;
		}
	}
	return -1;
}

static bool checks_layer(struct ws_drive *d, const char *name)
{
	for (unsigned i = 0; i < d->nchecks; i++)
		if (d->checks[i]->ops->layer && d->checks[i]->ops->layer(d->checks[i], name))
			return true;
	return false;
}

/* What a sequential source's own member asked of the checks. */
struct asked {
	const char *algo;              /* the digest taken */
	bool wants[WS_DRIVE_CHECKS];   /* a check asked for a digest */
	int owner;                     /* the check that gets the text, or -1 */
};

/* A sequential source's own member, read to its end or not: told to the checks that asked
 * for its digest or its text; the digest only to those that asked for its algorithm. */
static void tell_checks(struct ws_drive *d, struct mread *m, const struct asked *q, const char *name,
			const char *where, bool archive)
{
	uint8_t md[WS_DIGEST_MAX];
	size_t dl = !m->failed && m->dg ? ws_digest_final(m->dg, md) : 0;
	for (unsigned i = 0; i < d->nchecks; i++) {
		struct ws_drive_check *c = d->checks[i];
		bool own = q->owner == (int)i;
		if (!q->wants[i] && !own)
			continue;
		const char *x = q->wants[i] ? c->ops->algo(c, name) : NULL;
		bool same = x && q->algo && !strcmp(x, q->algo);
		struct ws_told t = { .name = name, .where = where, .state = m->failed ? WS_MEMBER_UNREAD : WS_MEMBER_READ,
				     .md = md, .dl = same ? dl : 0, .size = m->got, .archive = archive };
		if (own) {
			t.text_max = m->text_max;
			t.text = m->text;
			t.ntext = m->ntext;
			t.text_over = m->text_over;
			m->text = NULL;
		}
		c->ops->member(c, d->a, d->label, &t);
		free(t.text);                    /* a check takes it over: NULL by now */
	}
}

/* One member: counted, hashed, sniffed and scanned or opened as a nested source. out is
 * NULL for a sequential source's member (the package checks are told here), else a
 * random-access member's (its task tells them, in member order, once merged). */
int ws_drive_member(struct ws_drive *d, const char *name, struct ws_reader *r, uint64_t size, int level,
		    uint8_t *scratch, struct mout *out)
{
	struct ws_artifact *a = d->a;
	bool zip_style = out && out->zip_style;
	char nb[WS_NAME_SHOWN], where[WS_NAME_SHOWN + 512];
	ws_sanitize(nb, sizeof nb, name, strlen(name));
	if (zip_style)
		ws_fmt(where, sizeof where, "%s", d->label);
	else
		ws_fmt(where, sizeof where, "%s!%s", d->label, nb);
	if (size != UINT64_MAX && size > d->lim.max_member_bytes) {
		ws_drive_member_over(d, a, where, nb, zip_style, size, false);
		if (!out)
			d->stopped = true;
		return -1;
	}
	struct mread *m = ws_calloc(1, sizeof *m);
	if (!m) {
		ws_artifact_fail(a, where, WS_E_MEMORY, "out of memory");
		d->stopped = true;
		return -1;
	}
	m->d = d;
	m->up = r;
	m->where = where;
	m->shown = nb;
	m->zip_style = zip_style;
	m->random = out != NULL;
	/* a package's checksums are of its own members, not of what they hold */
	struct asked q = { .owner = -1 };
	const char *algo = level == 1 && !out ? ws_drive_algo(d, name, q.wants) : NULL;
	q.algo = algo;
	if (algo)
		m->dg = strcmp(algo, "md5") == 0 ? ws_digest_new_md5() : ws_digest_new(algo);
	else if (out && !out->hashed)
		m->dg = out->dg;                      /* the task's: it finishes and frees it */
	while (m->nhead < sizeof m->head) {
		long k = up_read(m, m->head + m->nhead, sizeof m->head - m->nhead);
		if (k <= 0)
			break;
		m->nhead += (size_t)k;
	}
	/* a manifest's text, asked for once its first bytes are known (an image's blob may be
	 * a manifest or a layer) */
	size_t text_max = 0;
	if (level == 1 && !out && (q.owner = text_owner(d, name, m->head, m->nhead, &text_max)) >= 0)
		keep_head_as_text(m, text_max);
	bool archive = false;
	struct ws_reader rd = { .read = mread_read, .reread = r->reread ? mread_reread : NULL, .ctx = m, .err = &m->err };
	bool sniff = !m->failed && !(out && out->hash_only);
	/* an archive in the member: the opener says which, as it does for a file */
	struct ws_open_in in = { .from = WS_FROM_MEMBER, .name = name, .head = m->head, .nhead = m->nhead, .fd = -1,
				 .rd = &rd };
	const struct ws_archive_format *f = sniff ? ws_open(&in) : NULL;
	enum ws_content c = sniff ? ws_sniff(m->head, m->nhead) : WS_CONTENT_OTHER;
	bool layer = level == 1 && checks_layer(d, name);
	if (f && out && !out->nest) {
		/* left alone: a source that reads no archives inside (an installed file) */
	} else if (f && level < MAX_LEVEL + d->layer_levels) {
		archive = drive_nested(d, m, f, &in, where, sizeof where, level, layer);
	} else if (f) {
		/* a bounded walk: never opened, and never taken for "no device code" (a
		 * compressed file of any name may hold a library, "libx.so.gz") */
		ws_artifact_fail(a, where, WS_E_UNSUPPORTED, "archive nested more than one level deep: not read");
	} else if (scannable(c)) {
		uint32_t first = a->nobjects;
		a->members_scanned++;
		if (d->scan_member)
			d->scan_member(d->scan_member_ctx, a, name, &rd, size, &d->scan);
		else
			ws_scan_stream(a, name, &rd, size, &d->scan);
		/* the rest of the member: counted (bombs stop here too) and hashed for the checks */
		while (!m->end && !m->failed && (!out || out->drain))
			if (up_read(m, scratch, SCRATCH) < 0)
				break;
		/* a stream of unknown length (one compressed file) is as long as it was */
		for (uint32_t i = first; i < a->nobjects && m->end; i++)
			if (!a->objects[i].size && a->objects[i].member && !strcmp(a->objects[i].member, name))
				a->objects[i].size = m->got;
	}
	/* a sequential source's next member starts where this one ends; a random-access
	 * member is read to its end only for a check */
	while (!m->end && !m->failed && (!out || out->drain))
		if (up_read(m, scratch, SCRATCH) < 0)
			break;
	if (level == 1)
		a->bytes_inflated += m->got;
	if (!m->failed && !out && size != UINT64_MAX && m->got != size) {
		/* a stream that ends early (a truncated compressed tarball); a random-access
		 * source checks its members' sizes itself */
		ws_err_set(&m->err, WS_E_FORMAT, "member ends after %llu bytes, not the %llu its header declares",
			   (unsigned long long)m->got, (unsigned long long)size);
		m->failed = true;
	}
	if (out) {
		out->end = m->end;
		out->failed = m->failed;
	}
	int rc = 0;
	if (m->failed) {
		ws_artifact_report(a, where, &m->err);    /* unless the scanner has, naming the object */
		rc = -2;
	}
	if (!out)                                     /* known, not read: no digest to hold it to */
		tell_checks(d, m, &q, name, where, archive);
	if (!out)
		ws_digest_free(m->dg);
	free(m->text);
	free(m);
	return rc;
}

int ws_drive_source(struct ws_drive *d, struct ws_source *s, const char *prefix, int level)
{
	struct ws_artifact *a = d->a;
	uint32_t nerr0 = a->nerrors;
	uint64_t reported = 0;
	uint8_t *scratch = ws_malloc(SCRATCH);
	if (!scratch) {
		ws_artifact_fail(a, d->label, WS_E_MEMORY, "out of memory");
		return -1;
	}
	size_t pl = strlen(prefix);
	char *name = NULL;
	while (!d->stopped && !__atomic_load_n(&d->root->stopped, __ATOMIC_RELAXED)) {
		struct ws_member m;
		struct ws_err e = { 0 };
		int rc = ws_source_next(s, &m, &e);
		if (level == 1 && d->progress) {
			uint64_t now = ws_archive_bytes_read(s);
			__atomic_add_fetch(d->progress, now - reported, __ATOMIC_RELAXED);
			reported = now;
		}
		if (rc == 0)
			break;
		if (rc < 0) {
			char nb[WS_NAME_SHOWN], where[WS_NAME_SHOWN + 512];
			ws_sanitize(nb, sizeof nb, prefix, pl ? pl - 1 : 0);
			ws_fmt(where, sizeof where, pl ? "%s!%s" : "%s", d->label, nb);
			ws_artifact_fail(a, where, e.code ? e.code : WS_E_FORMAT, "%s", e.code ? e.msg : "unreadable archive");
			if (level == 1)
				d->stopped = true;
			break;
		}
		if (__atomic_add_fetch(&d->root->members, 1, __ATOMIC_RELAXED) > d->lim.max_members) {
			ws_artifact_fail(a, d->label, WS_E_LIMIT, "archive holds more than the limit of %u members",
					  d->lim.max_members);
			d->stopped = true;
			break;
		}
		for (unsigned i = 0; i < d->nchecks; i++) {
			const struct ws_drive_check_ops *o = d->checks[i]->ops;
			/* a layer's entries, of any type: which paths hide those of lower layers */
			if (level == 2 && d->layer_levels == 1 && pl && o->entry)
				o->entry(d->checks[i], prefix, m.name, m.dir);
			if (level == 1 && !pl && o->present)   /* there, whether or not it is read */
				o->present(d->checks[i], m.name);
		}
		if (!m.regular) {
			/* no scan, but whatever bytes it carries are counted against the limits */
			struct mread skip = { .d = d, .up = &m.rd };
			while (up_read(&skip, scratch, SCRATCH) > 0)
				;
			if (skip.failed) {
				ws_artifact_report(a, d->label, &skip.err);
				break;
			}
			continue;
		}
		/* a compressed file alone is named by the member that holds it */
		size_t nl = strlen(m.name);
		free(name);
		if (!(name = ws_malloc(pl + nl + 1))) {
			ws_artifact_fail(a, d->label, WS_E_MEMORY, "out of memory");
			d->stopped = true;
			break;
		}
		memcpy(name, prefix, pl);
		memcpy(name + pl, m.name, nl + 1);
		if (!nl && pl)
			name[pl - 1] = 0;
		if (level == 1 && s->independent && m.size != UINT64_MAX)
			ws_budget_add_input(d->scan.budget, m.size);   /* a file as stored */
		if (ws_path_escapes(m.name, false)) {
			char nb[WS_NAME_SHOWN];
			ws_sanitize(nb, sizeof nb, m.name, nl);
			ws_artifact_error(a, d->label, "member name '%s' escapes the archive", nb);
		}
		if (ws_drive_member(d, name, &m.rd, m.size, level, scratch, NULL) == -2 && !s->independent) {
			for (unsigned i = 0; level == 1 && i < d->nchecks; i++)
				if (d->checks[i]->ops->incomplete)
					d->checks[i]->ops->incomplete(d->checks[i]);
			break;                           /* the source cannot go past a broken member */
		}
	}
	free(name);
	free(scratch);
	return a->nerrors > nerr0 ? -1 : 0;
}

void ws_drive_finish(struct ws_drive *d)
{
	bool complete = !d->stopped && !(d->root && __atomic_load_n(&d->root->stopped, __ATOMIC_RELAXED));
	for (unsigned i = 0; i < d->nchecks; i++) {
		d->checks[i]->ops->finish(d->checks[i], d->a, d->label, complete);
		d->checks[i]->ops->free(d->checks[i]);
		d->checks[i] = NULL;
	}
	d->nchecks = 0;
}
