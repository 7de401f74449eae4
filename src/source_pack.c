/* source_pack.c - the tar-family, deb and conda formats of the opener (ws_open.h): their
 * bidders (by name, then by content), their source (source_archive.c, libarchive) for a
 * file, a stream or a member, and their steps around the walk: the file's sha256 (a task
 * beside the walk, or the bytes as read), the package check (pkgcheck.c) and, a tarball
 * being what docker save and OCI layouts write, the image check (source_image.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_imgcheck.h"
#include "ws_open.h"
#include "ws_pkgcheck.h"
#include "ws_util.h"
#include "ws_readfile.h"
#include "ws_zipstream.h"

/* From source_archive.c: the top source of a file, hashing what it reads. */
struct ws_source *ws_archive_open_fd_hashed(int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
					    bool hash, struct ws_err *err);
bool ws_archive_file_digest(struct ws_source *src, char hex[65]);

/* ---- bids ------------------------------------------------------------------------------ */

/* A file by its name (which then must hold), else a tar or a deb by content; a stream or a
 * member by content only, where compressed data is a tarball or one compressed file. */
static int pack_bid(const struct ws_open_in *in, enum ws_pack mine)
{
	if (in->from == WS_FROM_DIR)
		return 0;
	enum ws_pack c = ws_pack_sniff(in->head, in->nhead);
	if (in->from == WS_FROM_FILE) {
		if (ws_pack_by_name(in->name) == mine)
			return WS_BID_NAME;
		return mine != WS_PACK_CONDA && c == mine ? WS_BID_CONTENT : 0;
	}
	if (mine == WS_PACK_TAR && c == WS_PACK_COMPRESSED)
		return WS_BID_CONTENT;
	return mine != WS_PACK_CONDA && c == mine ? WS_BID_CONTENT : 0;
}

static int tar_bid(const struct ws_open_in *in) { return pack_bid(in, WS_PACK_TAR); }
static int deb_bid(const struct ws_open_in *in) { return pack_bid(in, WS_PACK_DEB); }
static int conda_bid(const struct ws_open_in *in) { return pack_bid(in, WS_PACK_CONDA); }

/* A member: a tarball, one compressed file, a deb, as a source one level down. */
static struct ws_source *member_source(const struct ws_open_in *in, struct ws_err *err)
{
	return ws_archive_open_reader(in->rd, ws_pack_sniff(in->head, in->nhead), err);
}

/* ---- the walk of one file or stream ------------------------------------------------------ */

/* The file's sha256 as a task beside the walk (the walk's thread decompresses and scans). */
struct file_hash {
	const char *path;
	char hex[65];
	int rc;
};

static void hash_task(void *arg)
{
	struct file_hash *h = arg;
	int fd = open(h->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	h->rc = fd < 0 ? -1 : ws_sha256_fd(fd, h->hex, NULL, NULL);
	if (fd >= 0)
		close(fd);
}

struct pack {
	enum ws_pack kind;
	int fd;                        /* a file's, or -1 */
	bool hash;                     /* the source hashes the bytes it reads */
	bool beside;                   /* the hash task runs */
	struct ws_group g;
	struct file_hash fh;
};

/* A file: opened again by its path, refused unread past the total limit, hashed beside the
 * walk where the pool has threads. -1 when there is nothing to walk. */
static int open_file(struct ws_walk *w, struct pack *p)
{
	struct ws_artifact *a = w->a;
	const struct ws_scan_opts *so = w->o ? w->o->so : NULL;
	const char *path = w->in->name;
	if (!w->in->nhead) {
		ws_artifact_error(a, path, "empty file named as a %s package",
				    ws_artifact_type_name(ws_pack_type(p->kind)));
		return -1;
	}
	if ((p->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		ws_artifact_fail(a, path, WS_E_IO, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(p->fd, &st) == 0)
		a->size = (uint64_t)st.st_size;
	/* an archive larger than all its members may inflate to passes the total limit
	 * anyway; refused unread, a sparse 20 GiB .tar is not hashed whole first */
	uint64_t max = so && so->lim ? so->lim->max_total_bytes : (uint64_t)32 << 30;
	if (a->size > max) {
		char sz[48];
		ws_artifact_fail(a, path, WS_E_LIMIT, "file is %llu bytes, over the %s total limit of one archive"
				 " (--max-total-size): not read", (unsigned long long)a->size, ws_fmt_size(sz, sizeof sz, max));
		close(p->fd);
		p->fd = -1;
		return -1;
	}
	p->fh = (struct file_hash){ .path = path, .rc = -1 };
	p->beside = so && so->pool && ws_pool_width(so->pool) > 1;
	if (p->beside) {
		ws_group_init(&p->g, so->group);
		ws_pool_add(so->pool, &p->g, hash_task, &p->fh);
	}
	p->hash = !p->beside;
	return 0;
}

static int pack_open(struct ws_walk *w, enum ws_pack kind)
{
	struct ws_artifact *a = w->a;
	struct pack *p = w->impl = ws_calloc(1, sizeof *p);
	if (!p) {
		ws_artifact_fail(a, a->path ? a->path : "-", WS_E_MEMORY, "out of memory");
		return -1;
	}
	p->kind = kind;
	p->fd = -1;
	a->type = ws_pack_type(kind);
	bool file = w->in->from == WS_FROM_FILE;
	if (file && open_file(w, p) < 0)
		return -1;
	struct ws_err e = { 0 };
	if (file)
		w->src = ws_archive_open_fd_hashed(p->fd, NULL, 0, kind, p->hash, &e);
	else {
		p->hash = true;                  /* standard input: its head already read */
		w->src = ws_archive_open_fd_hashed(w->in->fd, w->in->head, w->in->nhead, kind, true, &e);
	}
	if (!w->src) {
		ws_artifact_fail(a, a->path ? a->path : "-", e.code, "%s", e.msg);
		return -1;
	}
	w->progress = file && w->o ? w->o->progress : NULL;
	w->input_stream = !file;
	/* the image's check first: its verdicts come before the package's */
	if (kind == WS_PACK_TAR)                      /* docker save and OCI layouts are tarballs */
		ws_walk_check(w, ws_imgcheck_check(ws_imgcheck_new()));
	ws_walk_check(w, ws_pkgcheck_new(kind, a->path));
	return 0;
}

static int tar_open(struct ws_walk *w) { return pack_open(w, WS_PACK_TAR); }
static int deb_open(struct ws_walk *w) { return pack_open(w, WS_PACK_DEB); }
static int conda_open(struct ws_walk *w) { return pack_open(w, WS_PACK_CONDA); }

static void pack_after(struct ws_walk *w)
{
	struct ws_artifact *a = w->a;
	struct pack *p = w->impl;
	if (p->hash && (w->d.stopped || !ws_archive_file_digest(w->src, a->sha256)))
		a->sha256[0] = 0;
	if (!a->size)
		a->size = ws_archive_bytes_read(w->src);
}

static void pack_close(struct ws_walk *w)
{
	struct ws_artifact *a = w->a;
	struct pack *p = w->impl;
	ws_source_close(w->src);
	if (!p)
		return;
	if (p->beside) {
		ws_group_wait(w->o->so->pool, &p->g);
		if (p->fh.rc == 0)
			memcpy(a->sha256, p->fh.hex, sizeof a->sha256);
	}
	if (p->fd >= 0 && !a->sha256[0]) {
		/* the walk stopped early: the file's digest is still the file's */
		if (lseek(p->fd, 0, SEEK_SET) != 0 || ws_sha256_fd(p->fd, a->sha256, NULL, NULL) != 0)
			a->sha256[0] = 0;
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

const struct ws_archive_format ws_format_tar = {
	.name = "tar", .bid = tar_bid, .source = member_source,
	.open = tar_open, .after = pack_after, .close = pack_close,
};
const struct ws_archive_format ws_format_deb = {
	.name = "deb", .bid = deb_bid, .source = member_source,
	.open = deb_open, .after = pack_after, .close = pack_close,
};
const struct ws_archive_format ws_format_conda = {
	.name = "conda", .bid = conda_bid,
	.open = conda_open, .after = pack_after, .close = pack_close,
};
