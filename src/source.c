/* source.c - the one driver over sources that yield members: limits, package checksums,
 * sniffing, and dispatch of each member to the object scanner or, for an archive inside
 * an archive, to a nested source one level deep. Also tells archive formats by their
 * first bytes and by name, and scans tar-family, deb and conda files and streams. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_image.h"
#include "ws_pkgcheck.h"
#include "ws_source.h"
#include "ws_util.h"
#include "ws_zip.h"
#include "ws_zipstream.h"

#define SCRATCH ((size_t)256 << 10)
#define NAME_SHOWN 160
#define MAX_LEVEL 2                  /* the artifact's own members, and one nested archive */

/* From source_archive.c: the top source of a file, hashing what it reads. */
struct ws_source *ws_archive_open_fd_hashed(int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
					    bool hash, struct ws_err *err);
bool ws_archive_file_digest(struct ws_source *src, char hex[65]);

/* ---- formats by content and by name -------------------------------------------------- */

static bool tar_header(const uint8_t *p, size_t n)
{
	if (n < 512 || !p[0])
		return false;
	if (memcmp(p + 257, "ustar", 5) == 0)
		return true;
	/* a v7 tar: the header's checksum field (octal) equals the sum of its bytes with
	 * the field itself counted as spaces */
	uint64_t want = 0;
	int digits = 0;
	for (int i = 148; i < 156; i++) {
		if (p[i] >= '0' && p[i] <= '7') {
			want = want * 8 + (uint64_t)(p[i] - '0');
			digits++;
		} else if (p[i] != ' ' && p[i] != 0) {
			return false;
		} else if (digits) {
			break;
		}
	}
	uint64_t sum = 0;
	for (int i = 0; i < 512; i++)
		sum += i >= 148 && i < 156 ? ' ' : p[i];
	return digits > 0 && sum == want;
}

enum ws_pack ws_pack_sniff(const uint8_t *p, size_t n)
{
	if (n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)
		return WS_PACK_COMPRESSED;
	if (n >= 4 && memcmp(p, "BZh", 3) == 0 && p[3] >= '1' && p[3] <= '9')
		return WS_PACK_COMPRESSED;
	if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
		return WS_PACK_COMPRESSED;
	if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
		return WS_PACK_COMPRESSED;
	if (n >= 4 && (memcmp(p, "PK\3\4", 4) == 0 || memcmp(p, "PK\5\6", 4) == 0))
		return WS_PACK_ZIP;
	if (n >= 21 && memcmp(p, "!<arch>\ndebian-binary", 21) == 0)
		return WS_PACK_DEB;
	if (tar_header(p, n))
		return WS_PACK_TAR;
	return WS_PACK_NONE;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcasecmp(s + n - k, suffix) == 0;
}

enum ws_pack ws_pack_by_name(const char *path)
{
	static const char *const tars[] = { ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz",
					    ".tar.xz", ".txz", ".tar.zst", ".tzst" };
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof tars / sizeof *tars; i++)
		if (ends_with(base, tars[i]))
			return WS_PACK_TAR;
	if (ends_with(base, ".deb"))
		return WS_PACK_DEB;
	if (ends_with(base, ".conda"))
		return WS_PACK_CONDA;
	return WS_PACK_NONE;
}

const char *ws_pack_type(enum ws_pack k)
{
	switch (k) {
	case WS_PACK_DEB: return "deb";
	case WS_PACK_CONDA: return "conda";
	case WS_PACK_ZIP: return "zip";
	default: return "tar";
	}
}

/* ---- one member's stream: limits, digest, text for the checks ------------------------ */

struct mread {
	struct ws_drive *d;
	struct ws_reader *up;
	const char *where;             /* "label!name", sanitised */
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
	if (total)
		ws_err_set(&m->err, WS_E_LIMIT, "archive inflates past the %s total limit", sz);
	else
		ws_err_set(&m->err, WS_E_LIMIT, "member inflates past the %s limit", sz);
	m->failed = true;
	m->d->stopped = true;
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
	m->got += (uint64_t)r;
	uint64_t total = __atomic_add_fetch(&m->d->total, (uint64_t)r, __ATOMIC_RELAXED);
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

bool ws_source_nested(const uint8_t *head, size_t nhead)
{
	return ws_pack_sniff(head, nhead) != WS_PACK_NONE;
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
}

static int drive_member(struct ws_drive *d, const char *name, struct ws_reader *r, uint64_t size, int level,
			uint8_t *scratch)
{
	struct ws_artifact *a = d->a;
	char nb[NAME_SHOWN], where[NAME_SHOWN + 512];
	ws_sanitize(nb, sizeof nb, name, strlen(name));
	ws_fmt(where, sizeof where, "%s!%s", d->label, nb);
	if (size != UINT64_MAX && size > d->lim.max_member_bytes) {
		char sz[48];
		ws_artifact_fail(a, where, WS_E_LIMIT, "member inflates past the %s limit",
				  ws_fmt_size(sz, sizeof sz, d->lim.max_member_bytes));
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
	/* a package's checksums are of its own members, not of what they hold */
	const char *algo = level == 1 ? ws_pkgcheck_algo(d->check, name) : NULL;
	bool img_hash = level == 1 && ws_imgcheck_hash(d->image, name);
	if (!algo && img_hash)
		algo = "sha256";
	if (algo)
		m->dg = strcmp(algo, "md5") == 0 ? ws_digest_new_md5() : ws_digest_new(algo);
	m->text_max = level == 1 ? ws_pkgcheck_wants_text(d->check, name) : 0;
	while (m->nhead < sizeof m->head) {
		long k = up_read(m, m->head + m->nhead, sizeof m->head - m->nhead);
		if (k <= 0)
			break;
		m->nhead += (size_t)k;
	}
	/* an image's JSON is told by its first bytes: a blob may be a manifest or a layer */
	size_t img_text = level == 1 && !m->text_max ? ws_imgcheck_wants_text(d->image, name, m->head, m->nhead) : 0;
	if (img_text) {
		m->text_max = img_text;
		if (m->nhead > img_text)
			m->text_over = true;
		else if ((m->text = malloc(m->nhead + 1))) {
			memcpy(m->text, m->head, m->nhead);
			m->text[m->ntext = m->nhead] = 0;
		} else {
			m->text_over = true;
		}
	}
	bool archive = false;
	struct ws_reader rd = { .read = mread_read, .reread = r->reread ? mread_reread : NULL, .ctx = m, .err = &m->err };
	enum ws_pack pk = m->failed ? WS_PACK_NONE : ws_pack_sniff(m->head, m->nhead);
	enum ws_content c = m->failed ? WS_CONTENT_OTHER : ws_sniff(m->head, m->nhead);
	bool layer = level == 1 && ws_imgcheck_layer(d->image, name);
	if (pk != WS_PACK_NONE && level < MAX_LEVEL + d->layer_levels) {
		struct ws_err e = { 0 };
		struct ws_source *src = ws_archive_open_reader(&rd, pk, &e);
		if (!src) {
			if (!m->failed)
				ws_artifact_fail(a, where, e.code, "%s", e.msg);
		} else {
			size_t nl = strlen(name);
			char *prefix = ws_malloc(nl + 2);
			if (prefix) {
				memcpy(prefix, name, nl);
				memcpy(prefix + nl, "!", 2);
				a->members_scanned++;
				archive = true;
				d->layer_levels += layer;
				ws_drive_source(d, src, prefix, level + 1);
				d->layer_levels -= layer;
				free(prefix);
			}
			ws_source_close(src);
		}
	} else if (pk != WS_PACK_NONE) {
		/* a bounded walk: never opened, and never taken for "no device code" (a
		 * compressed file of any name may hold a library, "libx.so.gz") */
		ws_artifact_fail(a, where, WS_E_UNSUPPORTED, "archive nested more than one level deep: not read");
	} else if (scannable(c)) {
		uint32_t first = a->nobjects;
		a->members_scanned++;
		ws_scan_stream(a, name, &rd, size, &d->scan);
		/* the rest of the member: counted (bombs stop here too) and hashed for the checks */
		while (!m->end && !m->failed)
			if (up_read(m, scratch, SCRATCH) < 0)
				break;
		/* a stream of unknown length (one compressed file) is as long as it was */
		for (uint32_t i = first; i < a->nobjects && m->end; i++)
			if (!a->objects[i].size && a->objects[i].member && !strcmp(a->objects[i].member, name))
				a->objects[i].size = m->got;
	}
	while (!m->end && !m->failed)
		if (up_read(m, scratch, SCRATCH) < 0)
			break;
	if (level == 1)
		a->bytes_inflated += m->got;
	if (!m->failed && size != UINT64_MAX && m->got != size) {
		/* a stream that ends early (a truncated compressed tarball) */
		ws_err_set(&m->err, WS_E_FORMAT, "member ends after %llu bytes, not the %llu its header declares",
			   (unsigned long long)m->got, (unsigned long long)size);
		m->failed = true;
	}
	int rc = 0;
	if (m->failed) {
		ws_artifact_report(a, where, &m->err);    /* unless the scanner has, naming the object */
		if (img_hash || img_text)                 /* known, not read: no digest to hold it to */
			ws_imgcheck_member(d->image, a, d->label, name, "", m->got, archive, NULL, 0, false);
		rc = -2;
	} else {
		char hex[WS_DIGEST_MAX * 2 + 1] = "";
		if (m->dg) {
			uint8_t md[WS_DIGEST_MAX];
			size_t dl = ws_digest_final(m->dg, md);
			if (dl && dl <= 32) {
				ws_hex(md, dl, hex);
				ws_pkgcheck_digest(d->check, name, hex, m->got);
			}
		}
		if (img_text) {
			ws_imgcheck_member(d->image, a, d->label, name, m->dg ? hex : "", m->got, archive, m->text,
					   m->ntext, m->text_over);
			m->text = NULL;
		} else if (img_hash) {
			ws_imgcheck_member(d->image, a, d->label, name, m->dg ? hex : "", m->got, archive, NULL, 0, false);
		} else if (m->text_max) {
			if (m->text_over)
				ws_artifact_fail(a, where, WS_E_LIMIT, "too large to read as a package manifest");
			else if (m->text) {
				ws_pkgcheck_text(d->check, a, d->label, name, m->text, m->ntext);
				m->text = NULL;
			}
		}
	}
	ws_digest_free(m->dg);
	free(m->text);
	free(m);
	return rc;
}

int ws_drive_member(struct ws_drive *d, const char *name, struct ws_reader *r, uint64_t size, int level)
{
	uint8_t *scratch = ws_malloc(SCRATCH);
	if (!scratch) {
		ws_artifact_fail(d->a, d->label, WS_E_MEMORY, "out of memory");
		return -1;
	}
	int rc = drive_member(d, name, r, size, level, scratch);
	free(scratch);
	return rc < 0 ? -1 : 0;
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
	while (!d->stopped) {
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
			char nb[NAME_SHOWN], where[NAME_SHOWN + 512];
			ws_sanitize(nb, sizeof nb, prefix, pl ? pl - 1 : 0);
			ws_fmt(where, sizeof where, pl ? "%s!%s" : "%s", d->label, nb);
			ws_artifact_fail(a, where, e.code ? e.code : WS_E_FORMAT, "%s", e.code ? e.msg : "unreadable archive");
			if (level == 1)
				d->stopped = true;
			break;
		}
		if (__atomic_add_fetch(&d->members, 1, __ATOMIC_RELAXED) > d->lim.max_members) {
			ws_artifact_fail(a, d->label, WS_E_LIMIT, "archive holds more than the limit of %u members",
					  d->lim.max_members);
			d->stopped = true;
			break;
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
		if (ws_path_escapes(m.name, false)) {
			char nb[NAME_SHOWN];
			ws_sanitize(nb, sizeof nb, m.name, nl);
			ws_artifact_error(a, d->label, "member name '%s' escapes the archive", nb);
		}
		if (drive_member(d, name, &m.rd, m.size, level, scratch) == -2 && !s->independent)
			break;                           /* the source cannot go past a broken member */
	}
	free(name);
	free(scratch);
	return a->nerrors > nerr0 ? -1 : 0;
}

void ws_drive_finish(struct ws_drive *d)
{
	ws_imgcheck_finish(d->image, d->a, d->label, !d->stopped);
	ws_imgcheck_free(d->image);
	d->image = NULL;
	ws_pkgcheck_finish(d->check, d->a, d->label);
	ws_pkgcheck_free(d->check);
	d->check = NULL;
}

/* ---- whole files and streams ------------------------------------------------------------ */

static int pack_scan(struct ws_artifact *a, int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
		     bool hash, const struct ws_scan_opts *so, uint64_t *progress)
{
	uint32_t nerr0 = a->nerrors;
	struct ws_err e = { 0 };
	struct ws_drive d;
	a->type = ws_pack_type(kind);
	ws_drive_init(&d, a, so);
	d.progress = progress;
	struct ws_source *src = ws_archive_open_fd_hashed(fd, head, nhead, kind, hash, &e);
	if (!src) {
		ws_artifact_fail(a, d.label, e.code, "%s", e.msg);
		return -1;
	}
	d.check = ws_pkgcheck_new(kind, a->path);
	if (kind == WS_PACK_TAR)                      /* docker save and OCI layouts are tarballs */
		d.image = ws_imgcheck_new();
	ws_drive_source(&d, src, "", 1);
	if (hash && (d.stopped || !ws_archive_file_digest(src, a->sha256)))
		a->sha256[0] = 0;
	if (!a->size)
		a->size = ws_archive_bytes_read(src);
	ws_drive_finish(&d);
	ws_source_close(src);
	return a->nerrors > nerr0 ? -1 : 0;
}

/* The file's sha256 as a task beside the walk (the walk's thread decompresses and scans). */
struct file_hash {
	const char *path;
	char hex[65];
	int rc;
};

static void hash_task(void *arg)
{
	struct file_hash *h = arg;
	char err[WS_ERRMAX];
	int fd = open(h->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	h->rc = fd < 0 ? -1 : ws_sha256_fd(fd, h->hex, NULL, err, sizeof err);
	if (fd >= 0)
		close(fd);
}

int ws_pack_scan_file(struct ws_artifact *a, const char *path, enum ws_pack kind, const struct ws_scan_opts *so,
		      uint64_t *progress)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ws_artifact_fail(a, path, WS_E_IO, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0)
		a->size = (uint64_t)st.st_size;
	struct file_hash fh = { .path = path, .rc = -1 };
	struct ws_group g;
	bool beside = so && so->pool && ws_pool_width(so->pool) > 1;
	if (beside) {
		ws_group_init(&g, so->group);
		ws_pool_add(so->pool, &g, hash_task, &fh);
	}
	int rc = pack_scan(a, fd, NULL, 0, kind, !beside, so, progress);
	if (beside) {
		ws_group_wait(so->pool, &g);
		if (fh.rc == 0)
			memcpy(a->sha256, fh.hex, sizeof a->sha256);
	}
	if (!a->sha256[0]) {
		/* the walk stopped early: the file's digest is still the file's */
		char err[WS_ERRMAX];
		if (lseek(fd, 0, SEEK_SET) != 0 || ws_sha256_fd(fd, a->sha256, NULL, err, sizeof err) != 0)
			a->sha256[0] = 0;
	}
	close(fd);
	return rc;
}

int ws_pack_scan_fd(struct ws_artifact *a, int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
		    const struct ws_scan_opts *so)
{
	return pack_scan(a, fd, head, nhead, kind, true, so, NULL);
}

/* ---- the zip reader's nested members ----------------------------------------------------- */

int ws_source_zip_member(struct ws_artifact *t, const char *name, struct ws_reader *r, uint64_t size,
			 const struct ws_scan_opts *so, uint64_t *total, uint64_t *members)
{
	struct ws_drive d;
	ws_drive_init(&d, t, so);
	/* what the archive has read so far counts against the same limits: each nested member
	 * must not get a whole budget of its own */
	uint64_t t0 = __atomic_load_n(total, __ATOMIC_RELAXED), m0 = __atomic_load_n(members, __ATOMIC_RELAXED);
	d.total = t0;
	d.members = m0;
	int rc = ws_drive_member(&d, name, r, size, 1);
	__atomic_add_fetch(total, d.total - t0, __ATOMIC_RELAXED);
	__atomic_add_fetch(members, d.members - m0, __ATOMIC_RELAXED);
	ws_drive_finish(&d);
	return rc;
}
