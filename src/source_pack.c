/* source_pack.c - tar-family, deb and conda files and streams as one artifact each: the
 * archive's top source opened (its bytes hashed as they are read, when wanted) and driven
 * by the member driver (source.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drive.h"
#include "ws_image.h"
#include "ws_pkgcheck.h"
#include "ws_quote.h"
#include "ws_source.h"
#include "ws_util.h"
#include "ws_zip.h"
#include "ws_zipstream.h"

/* From source_archive.c: the top source of a file, hashing what it reads. */
struct ws_source *ws_archive_open_fd_hashed(int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
					    bool hash, struct ws_err *err);
bool ws_archive_file_digest(struct ws_source *src, char hex[65]);

static int pack_scan(struct ws_artifact *a, int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
		     bool hash, bool stream, const struct ws_scan_opts *so, uint64_t *progress)
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
	if (stream)
		d.input_src = src;
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
	int fd = open(h->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	h->rc = fd < 0 ? -1 : ws_sha256_fd(fd, h->hex, NULL, NULL);
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
	/* an archive larger than all its members may inflate to passes the total limit
	 * anyway; refused unread, a sparse 20 GiB .tar is not hashed whole first */
	uint64_t max = so && so->lim ? so->lim->max_total_bytes : (uint64_t)32 << 30;
	if (a->size > max) {
		char sz[48];
		ws_artifact_fail(a, path, WS_E_LIMIT, "file is %llu bytes, over the %s total limit of one archive"
				 " (--max-total-size): not read", (unsigned long long)a->size, ws_fmt_size(sz, sizeof sz, max));
		close(fd);
		return -1;
	}
	struct file_hash fh = { .path = path, .rc = -1 };
	struct ws_group g;
	bool beside = so && so->pool && ws_pool_width(so->pool) > 1;
	if (beside) {
		ws_group_init(&g, so->group);
		ws_pool_add(so->pool, &g, hash_task, &fh);
	}
	int rc = pack_scan(a, fd, NULL, 0, kind, !beside, false, so, progress);
	if (beside) {
		ws_group_wait(so->pool, &g);
		if (fh.rc == 0)
			memcpy(a->sha256, fh.hex, sizeof a->sha256);
	}
	if (!a->sha256[0]) {
		/* the walk stopped early: the file's digest is still the file's */
		if (lseek(fd, 0, SEEK_SET) != 0 || ws_sha256_fd(fd, a->sha256, NULL, NULL) != 0)
			a->sha256[0] = 0;
	}
	close(fd);
	return rc;
}

int ws_pack_scan_fd(struct ws_artifact *a, int fd, const uint8_t *head, size_t nhead, enum ws_pack kind,
		    const struct ws_scan_opts *so)
{
	return pack_scan(a, fd, head, nhead, kind, true, true, so, NULL);
}
