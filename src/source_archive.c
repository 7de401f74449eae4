/* source_archive.c - the libarchive source: tar (plain, gzip, bzip2, xz, zstd), Debian
 * packages (ar around control.tar.* and data.tar.*), conda packages (a zip around
 * info-*.tar.* and pkg-*.tar.*), zips read from their local headers, and single
 * compressed files, each yielded member by member from a file or a pull stream.
 *
 *   bytes (fd, or a ws_reader)  --read callback: hash, count-->  libarchive filter+format
 *     package: wrapper member (data.tar.xz) --archive_read_data--> inner libarchive (tar)
 *       -> members: archive_read_data into the caller's buffer, nothing on disk
 *
 * Only the filters and formats compiled into libarchive are enabled (never an external
 * program, which the sandbox would refuse anyway). Memory: one 256 KiB read buffer per
 * level plus libarchive's decoder state (zstd's window is the largest, 8 MiB at most
 * for the levels that tar.zst writers use; libarchive caps it itself).
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ws_quote.h"
#include "ws_source.h"
#include "ws_digest.h"

#define READ_BUF ((size_t)256 << 10)

/* One libarchive handle with where its bytes come from. */
struct level {
	struct archive *ar;
	int fd;                        /* file mode, or -1 */
	struct ws_reader *up;          /* stream mode */
	struct archive *outer;         /* inner archive of a package: reads outer's entry */
	const uint8_t *head;           /* bytes already read from fd (stdin), served first */
	size_t nhead, hpos;
	uint8_t *buf;
	uint64_t raw;                  /* bytes handed to libarchive */
	struct ws_digest *hash;        /* sha256 of the raw bytes (file mode), or NULL */
	struct ws_err uperr;           /* why the bytes below failed */
};

struct asrc {
	struct ws_source s;
	struct level top;
	struct level inner;            /* packages: the current control/data/info/pkg tarball */
	bool in_inner;
	char *inner_prefix;            /* "control.tar.xz!" or "" */
	bool saw_data;                 /* deb: data.tar.* was read */
	bool saw_control;              /* deb: control.tar.* was read */
	bool saw_debian_binary;
	char *name;                    /* the current member's name, "./" dropped */
	struct archive *cur;           /* the handle the current member is read from */
	struct ws_err err;             /* a member read's failure */
	bool own_fd;                   /* top.fd was opened here */
};

static const char *ar_msg(struct archive *ar)
{
	const char *m = archive_error_string(ar);
	/* libarchive's zip reader passes zlib's code on bare: say what it means */
	if (m && !strncmp(m, "ZIP decompression failed", 24))
		return "corrupt deflate data (zlib could not inflate the member)";
	return m && *m ? m : "malformed archive";
}

static la_ssize_t read_cb(struct archive *ar, void *ud, const void **out)
{
	struct level *l = ud;
	(void)ar;
	*out = l->buf;
	if (l->hpos < l->nhead) {
		size_t k = l->nhead - l->hpos;
		*out = l->head + l->hpos;
		l->hpos = l->nhead;
		l->raw += k;
		if (l->hash)
			ws_digest_update(l->hash, l->head, k);
		return (la_ssize_t)k;
	}
	la_ssize_t got;
	if (l->outer) {
		got = archive_read_data(l->outer, l->buf, READ_BUF);
		if (got < 0)
			ws_err_set(&l->uperr, WS_E_FORMAT, "%s", ar_msg(l->outer));
	} else if (l->up) {
		long r = l->up->read(l->up->ctx, l->buf, READ_BUF, &l->uperr);
		if (r < 0 && !l->uperr.code)
			ws_err_set(&l->uperr, WS_E_IO, "cannot read the member");
		got = r;
	} else {
		do
			got = read(l->fd, l->buf, READ_BUF);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			ws_err_set(&l->uperr, WS_E_IO, "cannot read: %s", strerror(errno));
	}
	if (got < 0) {
		archive_set_error(ar, EIO, "%s", l->uperr.msg);
		return -1;
	}
	l->raw += (uint64_t)got;
	if (l->hash && got > 0)
		ws_digest_update(l->hash, l->buf, (size_t)got);
	return got;
}

static void level_fini(struct level *l)
{
	if (l->ar)
		archive_read_free(l->ar);
	l->ar = NULL;
	free(l->buf);
	l->buf = NULL;
	ws_digest_free(l->hash);
	l->hash = NULL;
}

/* Enables what kind is read as and opens it; -1 with err set. */
static int level_open(struct level *l, enum ws_pack kind, struct ws_err *err)
{
	if (!(l->buf = ws_malloc(READ_BUF)) || !(l->ar = archive_read_new()))
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	struct archive *ar = l->ar;
	archive_read_support_filter_gzip(ar);
	archive_read_support_filter_bzip2(ar);
	archive_read_support_filter_xz(ar);
	archive_read_support_filter_zstd(ar);
	switch (kind) {
	case WS_PACK_DEB:
		archive_read_support_format_ar(ar);
		break;
	case WS_PACK_ZIP:
	case WS_PACK_CONDA:
		archive_read_support_format_zip_streamable(ar);
		break;
	case WS_PACK_COMPRESSED:
		archive_read_support_format_tar(ar);
		archive_read_support_format_raw(ar);
		break;
	default:
		archive_read_support_format_tar(ar);
		break;
	}
	if (archive_read_open(ar, l, NULL, read_cb, NULL) != ARCHIVE_OK) {
		if (l->uperr.code)
			return ws_err_set(err, l->uperr.code, "%s", l->uperr.msg);
		ws_err_set(err, WS_E_FORMAT, "%s", ar_msg(ar));
		return archive_errno(ar) == EILSEQ ? -2 : -1;       /* -2: not this format at all */
	}
	return 0;
}

static const char *kind_word(enum ws_pack k)
{
	switch (k) {
	case WS_PACK_DEB: return "not a Debian package";
	case WS_PACK_CONDA: return "not a conda package";
	case WS_PACK_ZIP: return "not a zip archive";
	case WS_PACK_COMPRESSED: return "not a compressed file";
	default: return "not a tar archive";
	}
}

/* The member's bytes: ctx is the source. */
static long member_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct asrc *s = ctx;
	la_ssize_t got = archive_read_data(s->cur, buf, n);
	if (got >= 0)
		return (long)got;
	struct level *l = s->cur == s->inner.ar ? &s->inner : &s->top;
	if (l->uperr.code)
		ws_err_set(&s->err, l->uperr.code, "%s", l->uperr.msg);
	else if (s->in_inner && s->top.uperr.code)
		ws_err_set(&s->err, s->top.uperr.code, "%s", s->top.uperr.msg);
	else
		ws_err_set(&s->err, WS_E_FORMAT, "%s", ar_msg(s->cur));
	if (err)
		ws_err_set(err, s->err.code, "%s", s->err.msg);
	return -1;
}

/* A wrapper member of a package that holds its payload tarball. */
static bool inner_tarball(const struct asrc *s, const char *name)
{
	if (s->s.pack == WS_PACK_DEB)
		return !strncmp(name, "data.tar", 8) || !strncmp(name, "control.tar", 11);
	if (s->s.pack == WS_PACK_CONDA)
		return (!strncmp(name, "pkg-", 4) || !strncmp(name, "info-", 5)) && strstr(name, ".tar");
	return false;
}

static const char *strip_dot(const char *n)
{
	while (n[0] == '.' && n[1] == '/')
		n += 2;
	while (n[0] == '/' && n[1] == '/')
		n++;
	return n;
}

static int fill_member(struct asrc *s, struct archive *ar, struct archive_entry *e, const char *prefix,
		       struct ws_member *m, struct ws_err *err)
{
	const char *nm = archive_entry_pathname(e);
	if (!nm)
		nm = "";
	free(s->name);
	size_t pl = strlen(prefix);
	const char *base = strip_dot(nm);
	if (s->s.format && !strcmp(s->s.format, "raw"))
		base = "";                              /* one compressed file: named by its holder */
	if (!(s->name = ws_malloc(pl + strlen(base) + 1)))
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	memcpy(s->name, prefix, pl);
	strcpy(s->name + pl, base);
	s->cur = ar;
	memset(&s->err, 0, sizeof s->err);
	m->name = s->name;
	m->size = archive_entry_size_is_set(e) && archive_entry_size(e) >= 0 ? (uint64_t)archive_entry_size(e) : UINT64_MAX;
	/* A hard link normally has no data of its own; one that carries data (pax size) is
	 * what an extractor writes to the target, so it is read like a file. */
	bool hardlink = archive_entry_hardlink(e) != NULL;
	m->regular = hardlink ? archive_entry_size_is_set(e) && archive_entry_size(e) > 0
			      : archive_entry_filetype(e) == AE_IFREG;
	m->dir = !hardlink && archive_entry_filetype(e) == AE_IFDIR;
	m->rd = (struct ws_reader){ .read = member_read, .ctx = s, .err = &s->err };
	return 1;
}

static int asrc_next(struct ws_source *src, struct ws_member *m, struct ws_err *err)
{
	struct asrc *s = src->impl;
	struct archive_entry *e;
	for (;;) {
		if (s->in_inner) {
			int rc = archive_read_next_header(s->inner.ar, &e);
			if (rc == ARCHIVE_OK || rc == ARCHIVE_WARN)
				return fill_member(s, s->inner.ar, e, s->inner_prefix, m, err);
			if (rc != ARCHIVE_EOF) {
				struct level *l = &s->inner;
				if (l->uperr.code)
					return ws_err_set(err, l->uperr.code, "%s", l->uperr.msg);
				return ws_err_set(err, WS_E_FORMAT, "%s: %s", s->inner_prefix[0] ? s->inner_prefix : "payload",
						  ar_msg(l->ar));
			}
			level_fini(&s->inner);
			memset(&s->inner, 0, sizeof s->inner);
			s->in_inner = false;
		}
		int rc = archive_read_next_header(s->top.ar, &e);
		if (rc == ARCHIVE_EOF) {
			if (s->s.pack == WS_PACK_DEB && !s->saw_data)
				return ws_err_set(err, WS_E_FORMAT, "not a Debian package: no data.tar member");
			if (s->s.pack == WS_PACK_DEB && !s->saw_debian_binary)
				return ws_err_set(err, WS_E_FORMAT, "not a Debian package: no debian-binary member");
			return 0;
		}
		if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
			if (s->top.uperr.code)
				return ws_err_set(err, s->top.uperr.code, "%s", s->top.uperr.msg);
			/* the first header decides whether this is the format at all: libarchive says
			 * "wrong format" with EILSEQ (its ARCHIVE_ERRNO_FILE_FORMAT on Linux) */
			if (!s->s.format && archive_errno(s->top.ar) == EILSEQ)
				return ws_err_set(err, WS_E_FORMAT, "%s: %s", kind_word(s->s.pack), ar_msg(s->top.ar));
			return ws_err_set(err, WS_E_FORMAT, "%s", ar_msg(s->top.ar));
		}
		if (!s->s.format) {
			int code = archive_format(s->top.ar) & ARCHIVE_FORMAT_BASE_MASK;
			s->s.format = code == ARCHIVE_FORMAT_RAW ? "raw" : code == ARCHIVE_FORMAT_ZIP ? "zip" :
				      code == ARCHIVE_FORMAT_AR ? "ar" : "tar";
		}
		const char *nm = archive_entry_pathname(e);
		if (!nm)
			nm = "";
		if (s->s.pack == WS_PACK_DEB && !strcmp(nm, "debian-binary"))
			s->saw_debian_binary = true;
		if (!inner_tarball(s, nm)) {
			if (s->s.pack == WS_PACK_DEB)
				continue;                   /* debian-binary, signatures */
			return fill_member(s, s->top.ar, e, "", m, err);
		}
		/* a package's payload: read its members in place of the wrapper */
		bool control = s->s.pack == WS_PACK_DEB && !strncmp(nm, "control.tar", 11);
		if (s->s.pack == WS_PACK_DEB) {
			/* dpkg reads control.tar, then the one data.tar, and refuses anything else:
			 * what it would not install is not judged as if it would */
			char nb[128];
			ws_sanitize(nb, sizeof nb, nm, strlen(nm));
			if (control && s->saw_data)
				return ws_err_set(err, WS_E_FORMAT, "not a valid Debian package: '%s' comes after"
						  " data.tar (dpkg refuses this order)", nb);
			if (!control && s->saw_data)
				return ws_err_set(err, WS_E_FORMAT, "not a valid Debian package: a second data member"
						  " '%s' (dpkg refuses it; only the first was read)", nb);
			if (!control && !s->saw_control)
				return ws_err_set(err, WS_E_FORMAT, "not a valid Debian package: '%s' comes before"
						  " control.tar (dpkg refuses this order)", nb);
			s->saw_control |= control;
		}
		if (s->s.pack == WS_PACK_DEB && !control)
			s->saw_data = true;
		free(s->inner_prefix);
		s->inner_prefix = NULL;
		if (control) {
			char *p = ws_malloc(strlen(nm) + 2);
			if (p) {
				strcpy(p, nm);
				strcat(p, "!");
			}
			s->inner_prefix = p;
		} else {
			s->inner_prefix = ws_strdup("");
		}
		if (!s->inner_prefix)
			return ws_err_set(err, WS_E_MEMORY, "out of memory");
		memset(&s->inner, 0, sizeof s->inner);
		s->inner.fd = -1;
		s->inner.outer = s->top.ar;
		struct ws_err ie = { 0 };
		if (level_open(&s->inner, WS_PACK_TAR, &ie) < 0) {
			level_fini(&s->inner);
			char nb[128];
			ws_sanitize(nb, sizeof nb, nm, strlen(nm));
			return ws_err_set(err, ie.code, "%s: %s", nb, ie.msg);
		}
		s->in_inner = true;
	}
}

static void asrc_close(struct ws_source *src)
{
	struct asrc *s = src->impl;
	level_fini(&s->inner);
	level_fini(&s->top);
	if (s->own_fd)
		close(s->top.fd);
	free(s->inner_prefix);
	free(s->name);
	free(s);
}

static const struct ws_source_ops asrc_ops = { .next = asrc_next, .close = asrc_close };

static struct asrc *asrc_new(enum ws_pack kind, struct ws_err *err)
{
	struct asrc *s = ws_calloc(1, sizeof *s);
	if (!s) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return NULL;
	}
	s->s.ops = &asrc_ops;
	s->s.pack = kind;
	s->s.impl = s;
	s->top.fd = -1;
	return s;
}

static struct ws_source *asrc_start(struct asrc *s, enum ws_pack kind, struct ws_err *err)
{
	struct ws_err oe = { 0 };
	int rc = level_open(&s->top, kind, &oe);
	if (rc < 0) {
		ws_err_set(err, oe.code, rc == -2 ? "%s: %s" : "%s%s", rc == -2 ? kind_word(kind) : "", oe.msg);
		asrc_close(&s->s);
		return NULL;
	}
	return &s->s;
}

/* ---- formats by content and by name: the bidders' helpers (source_pack.c, zipsrc.c) -- */

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

/* a name that is more than its extension: ".deb" alone names no package */
static bool has_ext(const char *s, const char *ext)
{
	return strlen(s) > strlen(ext) && ws_ends_with_nocase(s, ext);
}

enum ws_pack ws_pack_by_name(const char *path)
{
	static const char *const tars[] = { ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz",
					    ".tar.xz", ".txz", ".tar.zst", ".tzst" };
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof tars / sizeof *tars; i++)
		if (has_ext(base, tars[i]))
			return WS_PACK_TAR;
	if (has_ext(base, ".deb"))
		return WS_PACK_DEB;
	if (has_ext(base, ".conda"))
		return WS_PACK_CONDA;
	return WS_PACK_NONE;
}

enum ws_artifact_type ws_pack_type(enum ws_pack k)
{
	switch (k) {
	case WS_PACK_DEB: return WS_ART_DEB;
	case WS_PACK_CONDA: return WS_ART_CONDA;
	case WS_PACK_ZIP: return WS_ART_ZIP;
	default: return WS_ART_TAR;
	}
}

struct ws_source *ws_archive_open_file(const char *path, int fd, enum ws_pack kind, struct ws_err *err)
{
	struct asrc *s = asrc_new(kind, err);
	if (!s)
		return NULL;
	if (fd < 0) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
			ws_err_set(err, WS_E_IO, "cannot open: %s", strerror(errno));
			asrc_close(&s->s);
			return NULL;
		}
		s->own_fd = true;
	}
	s->top.fd = fd;
	return asrc_start(s, kind, err);
}

struct ws_source *ws_archive_open_reader(struct ws_reader *r, enum ws_pack kind, struct ws_err *err)
{
	struct asrc *s = asrc_new(kind, err);
	if (!s)
		return NULL;
	s->top.up = r;
	return asrc_start(s, kind, err);
}

/* Internal to the pack scanner (source.c): a file source with a head already read, and
 * the file's digest of the bytes it reads when hash. */
struct ws_source *ws_archive_open_fd_hashed(int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
					    bool hash, struct ws_err *err);
struct ws_source *ws_archive_open_fd_hashed(int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
					    bool hash, struct ws_err *err)
{
	struct asrc *s = asrc_new(kind, err);
	if (!s)
		return NULL;
	s->top.fd = fd;
	s->top.head = head;
	s->top.nhead = nhead;
	s->top.hash = hash ? ws_digest_new("sha256") : NULL;
	return asrc_start(s, kind, err);
}

/* Reads the rest of the file (a tar's end padding) so that its digest covers every byte,
 * and writes it as hex; false when it cannot. */
bool ws_archive_file_digest(struct ws_source *src, char hex[65]);
bool ws_archive_file_digest(struct ws_source *src, char hex[65])
{
	struct asrc *s = src->impl;
	struct level *l = &s->top;
	if (!l->hash)
		return false;
	const void *p;
	for (;;) {
		la_ssize_t got = read_cb(l->ar, l, &p);
		if (got < 0)
			return false;
		if (got == 0)
			break;
	}
	uint8_t md[WS_DIGEST_MAX];
	size_t n = ws_digest_final(l->hash, md);
	ws_digest_free(l->hash);
	l->hash = NULL;
	if (n != 32)
		return false;
	ws_hex(md, 32, hex);
	return true;
}

uint64_t ws_archive_bytes_read(const struct ws_source *src)
{
	const struct asrc *s = src->impl;
	return s->top.raw;
}

void ws_source_close(struct ws_source *s)
{
	if (s)
		s->ops->close(s);
}
