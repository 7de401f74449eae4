/* zipdir.c - the zip's central directory read a second time, beside libzip, for what
 * libzip does not say: where each member's data lies in the file. Two members whose data
 * share bytes are what the "better zip bomb" is made of (local headers quoted inside other
 * members' deflate data or extra fields, every member inflating one shared kernel): a
 * few hundred KB that inflate to terabytes. Such an archive is refused before any member
 * is read, as CPython's zipfile refuses "overlapped entries". The same reader tells a
 * truncated download (a local header first, no end-of-directory record) from a file that
 * is no zip at all.
 *
 * Only called on an archive libzip has opened with ZIP_CHECKCONS (the directory is where
 * the end record says, and every local header agrees with it), so a record that does not
 * parse here is an inconsistency too. Memory: 24 bytes per member and a 1 MiB window on
 * the directory, for the duration of the call (the duplicate-name search, on an archive
 * libzip refused, reads the whole directory). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_quote.h"
#include "ws_zipstream.h"

#define EOCD_LEN 22
#define EOCD_SCAN (EOCD_LEN + 65535)     /* the record and the longest comment */

struct zfile {
	const struct ws_zsrc *s;
	int fd;
	uint64_t size;
};

static bool zf_open(struct zfile *f, const struct ws_zsrc *s)
{
	struct stat st;
	f->s = s;
	f->fd = -1;
	if (!s->path) {
		f->size = s->len;
		return true;
	}
	if ((f->fd = open(s->path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(f->fd, &st) != 0) {
		if (f->fd >= 0)
			close(f->fd);
		f->fd = -1;
		return false;
	}
	f->size = (uint64_t)st.st_size;
	return true;
}

static void zf_close(struct zfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
}

/* n bytes at off, all of them or false. */
static bool zf_read(struct zfile *f, uint64_t off, void *buf, size_t n)
{
	if (off > f->size || n > f->size - off)
		return false;
	if (!f->s->path) {
		memcpy(buf, f->s->mem + off, n);
		return true;
	}
	for (size_t got = 0; got < n;) {
		ssize_t k = pread(f->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* The end-of-central-directory record: its offset, or -1 when the tail holds none. */
static int64_t find_eocd(struct zfile *f, uint8_t *rec)
{
	uint64_t len = f->size < EOCD_SCAN ? f->size : EOCD_SCAN;
	if (len < EOCD_LEN)
		return -1;
	uint8_t *tail = ws_malloc((size_t)len);
	int64_t at = -1;
	if (tail && zf_read(f, f->size - len, tail, (size_t)len)) {
		for (size_t i = (size_t)len - EOCD_LEN + 1; i-- > 0;)
			if (!memcmp(tail + i, "PK\5\6", 4)) {
				memcpy(rec, tail + i, EOCD_LEN);
				at = (int64_t)(f->size - len + i);
				break;
			}
	}
	free(tail);
	return at;
}

bool ws_zip_truncated(const struct ws_zsrc *s, uint64_t *size)
{
	struct zfile f;
	uint8_t head[4], rec[EOCD_LEN];
	if (!zf_open(&f, s))
		return false;
	*size = f.size;
	bool t = zf_read(&f, 0, head, 4) && !memcmp(head, "PK\3\4", 4) && find_eocd(&f, rec) < 0;
	zf_close(&f);
	return t;
}

struct span {
	uint64_t off, csize;
	const uint8_t *name;         /* in the directory's buffer */
	uint32_t idx;
	uint16_t nlen;
};

/* The directory's offset, size and entry count, through the zip64 records where the
 * classic ones say 0xffff.. */
static bool dir_bounds(struct zfile *f, uint64_t *cd_off, uint64_t *cd_size, uint64_t *count)
{
	uint8_t rec[EOCD_LEN], loc[20], r64[56];
	int64_t at = find_eocd(f, rec);
	if (at < 0)
		return false;
	*count = le16(rec + 10);
	*cd_size = le32(rec + 12);
	*cd_off = le32(rec + 16);
	if (*count != 0xffff && *cd_size != 0xffffffff && *cd_off != 0xffffffff)
		return true;
	if (at < 20 || !zf_read(f, (uint64_t)at - 20, loc, sizeof loc) || memcmp(loc, "PK\6\7", 4) ||
	    !zf_read(f, le64(loc + 8), r64, sizeof r64) || memcmp(r64, "PK\6\6", 4))
		return false;
	*count = le64(r64 + 32);
	*cd_size = le64(r64 + 40);
	*cd_off = le64(r64 + 48);
	return true;
}

/* One directory record at p (n bytes left): its member's header offset and compressed
 * size (zip64 extra field where the fixed fields are saturated); its length, 0 if bad. */
static size_t dir_entry(const uint8_t *p, size_t n, struct span *sp)
{
	if (n < 46 || memcmp(p, "PK\1\2", 4))
		return 0;
	size_t nl = le16(p + 28), xl = le16(p + 30), cl = le16(p + 32);
	if (46 + nl + xl + cl > n)
		return 0;
	uint64_t usize = le32(p + 24), csize = le32(p + 20), off = le32(p + 42);
	const uint8_t *x = p + 46 + nl, *xe = x + xl;
	while (xe - x >= 4) {
		uint16_t id = le16(x), sz = le16(x + 2);
		const uint8_t *v = x + 4, *ve = v + sz;
		if (ve > xe)
			break;
		if (id == 1) {
			/* in this order, each only when its fixed field is saturated */
			if (usize == 0xffffffff && ve - v >= 8) { usize = le64(v); v += 8; }
			if (csize == 0xffffffff && ve - v >= 8) { csize = le64(v); v += 8; }
			if (off == 0xffffffff && ve - v >= 8) { off = le64(v); v += 8; }
			break;
		}
		x = ve;
	}
	sp->off = off;
	sp->csize = csize;
	sp->nlen = (uint16_t)nl;
	return 46 + nl + xl + cl;
}

struct dir {
	uint8_t *cd;
	struct span *sp;
	uint64_t n, cd_off;
};

static void dir_free(struct dir *d)
{
	free(d->cd);
	free(d->sp);
}

/* The whole directory and one span per record (n: the count libzip read, or 0 for what
 * the end record says); 0, or -1 with err set. */
static int dir_load(struct zfile *f, uint64_t n, struct dir *d, struct ws_err *err)
{
	uint64_t cd_size = 0, count = 0;
	memset(d, 0, sizeof *d);
	if (!dir_bounds(f, &d->cd_off, &cd_size, &count) || (n && count != n) || cd_size > f->size ||
	    d->cd_off > f->size - cd_size || count > cd_size / 46) {
		ws_err_set(err, WS_E_FORMAT, "zip archive is inconsistent (its directory does not read as %llu members)",
		       (unsigned long long)(n ? n : count));
		return -1;
	}
	d->n = count;
	if (!(d->cd = ws_malloc((size_t)cd_size + 1)) || (count && !(d->sp = ws_calloc((size_t)count, sizeof *d->sp)))) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return -1;
	}
	if (!zf_read(f, d->cd_off, d->cd, (size_t)cd_size)) {
		ws_err_set(err, WS_E_IO, "cannot read the zip directory");
		return -1;
	}
	size_t pos = 0;
	for (uint64_t i = 0; i < count; i++) {
		size_t k = dir_entry(d->cd + pos, (size_t)cd_size - pos, &d->sp[i]);
		if (!k) {
			ws_err_set(err, WS_E_FORMAT, "zip archive is inconsistent (directory record %llu does not parse)",
			       (unsigned long long)i + 1);
			return -1;
		}
		d->sp[i].idx = (uint32_t)i;
		d->sp[i].name = d->cd + pos + 46;
		pos += k;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->nlen < y->nlen ? x->nlen : y->nlen);
	return c ? c : (int)x->nlen - (int)y->nlen;
}

bool ws_zip_duplicate_name(const struct ws_zsrc *s, char *name, size_t len)
{
	struct zfile f;
	struct dir d;
	struct ws_err err = {0};
	bool found = false;
	if (!zf_open(&f, s))
		return false;
	if (dir_load(&f, 0, &d, &err) == 0 && d.n > 1) {
		qsort(d.sp, (size_t)d.n, sizeof *d.sp, by_name);
		for (uint64_t i = 1; i < d.n && !found; i++)
			if (!by_name(&d.sp[i - 1], &d.sp[i])) {
				ws_sanitize(name, len, (const char *)d.sp[i].name, d.sp[i].nlen);
				found = true;
			}
	}
	dir_free(&d);
	zf_close(&f);
	return found;
}

/* Where one member's data lies, for the layout check: 24 bytes a member (the names are
 * the caller's), the directory itself read through a fixed window, not held. */
struct place {
	uint64_t off, csize;
	uint32_t idx;
};

static bool place_before(const struct place *x, const struct place *y)
{
	return x->off != y->off ? x->off < y->off : x->idx < y->idx;
}

static void sift_down(struct place *v, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && place_before(&v[c], &v[c + 1]))
			c++;
		if (!place_before(&v[i], &v[c]))
			break;
		struct place t = v[i];
		v[i] = v[c];
		v[c] = t;
	}
}

/* In place (glibc's qsort takes a copy of the array): a heap sort by offset. */
static void sort_places(struct place *v, size_t n)
{
	for (size_t k = n / 2; k-- > 0;)
		sift_down(v, k, n);
	for (size_t end = n; end-- > 1;) {
		struct place t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

#define DIR_WINDOW ((size_t)1 << 20)      /* > the longest record, 46 + 3 x 65,535 bytes */

/* Every record's place, the directory read DIR_WINDOW at a time; 0, or -1 with err. */
static int places_load(struct zfile *f, uint64_t n, struct place *v, uint64_t *cd_off_out, struct ws_err *err)
{
	uint64_t cd_off = 0, cd_size = 0, count = 0;
	if (!dir_bounds(f, &cd_off, &cd_size, &count) || count != n || cd_size > f->size ||
	    cd_off > f->size - cd_size || count > cd_size / 46) {
		ws_err_set(err, WS_E_FORMAT, "zip archive is inconsistent (its directory does not read as %llu members)",
			   (unsigned long long)n);
		return -1;
	}
	uint8_t *w = ws_malloc(DIR_WINDOW);
	if (!w) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return -1;
	}
	uint64_t at = 0;                            /* the window's start in the directory */
	size_t have = 0, pos = 0;                   /* bytes in the window, and read of them */
	int rc = 0;
	for (uint64_t i = 0; i < count && !rc; i++) {
		if (have - pos < 46 + 3 * 65535 && at + have < cd_size) {
			memmove(w, w + pos, have - pos);  /* slide: the record may run past the window */
			at += pos;
			have -= pos;
			pos = 0;
			uint64_t more = cd_size - at - have;
			size_t k = more < DIR_WINDOW - have ? (size_t)more : DIR_WINDOW - have;
			if (!zf_read(f, cd_off + at + have, w + have, k)) {
				ws_err_set(err, WS_E_IO, "cannot read the zip directory");
				rc = -1;
				break;
			}
			have += k;
		}
		struct span sp;
		size_t k = dir_entry(w + pos, have - pos, &sp);
		if (!k) {
			ws_err_set(err, WS_E_FORMAT, "zip archive is inconsistent (directory record %llu does not parse)",
				   (unsigned long long)i + 1);
			rc = -1;
			break;
		}
		v[i] = (struct place){sp.off, sp.csize, (uint32_t)i};
		pos += k;
	}
	free(w);
	*cd_off_out = cd_off;
	return rc;
}

int ws_zip_check_layout(const struct ws_zsrc *s, uint64_t n, const char *const *names, struct ws_err *err)
{
	struct zfile f;
	uint64_t cd_off = 0;
	int rc = -1;
	if (!n)
		return 0;
	if (n > UINT32_MAX) {
		ws_err_set(err, WS_E_LIMIT, "zip archive holds more than %u members", UINT32_MAX);
		return -1;
	}
	if (!zf_open(&f, s)) {
		ws_err_set(err, WS_E_IO, "cannot read the zip directory: %s", strerror(errno));
		return -1;
	}
	struct place *sp = ws_calloc((size_t)n, sizeof *sp);
	if (!sp) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		goto out;
	}
	if (places_load(&f, n, sp, &cd_off, err) < 0)
		goto out;
	sort_places(sp, (size_t)n);
	/* Each member's data, from the end of its own local header, must end before the next
	 * member's header begins (the last one's, before the directory). */
	for (uint64_t i = 0; i < n; i++) {
		uint8_t lh[30];
		char na[160], nb[160];
		ws_sanitize(na, sizeof na, names[sp[i].idx], strlen(names[sp[i].idx]));
		uint64_t limit = i + 1 < n ? sp[i + 1].off : cd_off;
		if (!zf_read(&f, sp[i].off, lh, sizeof lh) || memcmp(lh, "PK\3\4", 4)) {
			ws_err_set(err, WS_E_FORMAT, "zip archive is inconsistent (no local header for member '%s')", na);
			goto out;
		}
		uint64_t start = sp[i].off + 30 + le16(lh + 26) + le16(lh + 28);
		if (sp[i].csize > UINT64_MAX - start || start + sp[i].csize > limit) {
			if (i + 1 < n) {
				ws_sanitize(nb, sizeof nb, names[sp[i + 1].idx], strlen(names[sp[i + 1].idx]));
				ws_err_set(err, WS_E_FORMAT, "member '%s' overlaps member '%s' (their data share bytes of the file,"
				       " as in a zip bomb): the archive is not read", na, nb);
			} else {
				ws_err_set(err, WS_E_FORMAT, "member '%s' runs into the zip directory (as in a zip bomb):"
				       " the archive is not read", na);
			}
			goto out;
		}
	}
	rc = 0;
out:
	free(sp);
	zf_close(&f);
	return rc;
}
