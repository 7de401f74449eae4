/* readfile.c - the few places that read files whole or hash them by descriptor: small
 * dist-info and conda records, and a file's SHA-256. Kept apart from the decoders and
 * the model, which never open anything (src/test/layers.sh checks that). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_filemap.h"
#include "ws_util.h"
#include "ws_digest.h"
#include "ws_readfile.h"

char *ws_read_small(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *p = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		errno = EFBIG;
	} else if ((p = ws_malloc((size_t)st.st_size + 1))) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, p + got, (size_t)st.st_size - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		p[got] = 0;
		*len = got;
	}
	close(fd);
	return p;
}

/* A regular file's digest through a guarded mapping (no copy out of the kernel, pages
 * given back as they are hashed): 1 done, 0 not mappable (read it instead), -1 failed. */
static int sha256_mapped(int fd, char hex[65], uint64_t *size, struct ws_err *err)
{
	struct stat st;
	struct ws_filemap fm;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX ||
	    ws_filemap_open(&fm, fd, (size_t)st.st_size) != 0)
		return 0;
	struct ws_digest *d = ws_digest_new("sha256");
	uint8_t md[WS_DIGEST_MAX];
	if (d)
		ws_digest_mapping(d, fm.p, fm.len);
	bool cut = ws_filemap_close(&fm);
	size_t len = d ? ws_digest_final(d, md) : 0;
	ws_digest_free(d);
	if (cut)
		return ws_err_set(err, WS_E_IO, "the file shrank while it was read");
	if (len != 32)
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	ws_hex(md, 32, hex);
	if (size)
		*size = (uint64_t)st.st_size;
	return 1;
}

int ws_sha256_fd(int fd, char hex[65], uint64_t *size, struct ws_err *err)
{
	int m = sha256_mapped(fd, hex, size, err);
	if (m != 0)
		return m > 0 ? 0 : -1;
	enum { CHUNK = 1 << 20 };
	uint8_t *buf = ws_malloc(CHUNK);
	struct ws_digest *d = ws_digest_new("sha256");
	uint64_t total = 0;
	int rc = -1;
	if (!buf || !d) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t k = pread(fd, buf, CHUNK, (off_t)total);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			ws_err_set(err, WS_E_IO, "read error: %s", strerror(errno));
			goto out;
		}
		if (k == 0)
			break;
		ws_digest_update(d, buf, (size_t)k);
		total += (uint64_t)k;
	}
	uint8_t md[WS_DIGEST_MAX];
	if (ws_digest_final(d, md) != 32) {
		ws_err_set(err, WS_E_MEMORY, "sha-256 failed");
		goto out;
	}
	ws_hex(md, 32, hex);
	if (size)
		*size = total;
	rc = 0;
out:
	ws_digest_free(d);
	free(buf);
	return rc;
}

#define HASH_STEP ((size_t)1 << 20)
#define HASH_RELEASE ((size_t)4 << 20)   /* pages go back this many bytes at a time */

struct ws_hash_steps {
	struct ws_digest *d;
	struct ws_filemap fm;
	bool mapped;
	const uint8_t *p;
	size_t len, off, released;
	int rc;                        /* 1 more to do, 0 done, -1 failed */
	char hex[65];
	struct ws_err err;
};

static int steps_fail(struct ws_hash_steps *h, enum ws_errcode code, const char *why)
{
	ws_err_set(&h->err, code, "%s", why);
	return h->rc = -1;
}

struct ws_hash_steps *ws_hash_steps_new(const char *path, const uint8_t *p, size_t n)
{
	struct ws_hash_steps *h = ws_calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->rc = 1;
	h->p = p;
	h->len = n;
	if (!(h->d = ws_digest_new("sha256"))) {
		steps_fail(h, WS_E_MEMORY, "out of memory");
		return h;
	}
	if (!path)
		return h;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0) {
		steps_fail(h, WS_E_IO, strerror(errno));
		return h;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX &&
	    ws_filemap_open(&h->fm, fd, (size_t)st.st_size) == 0) {
		h->mapped = true;
		h->p = h->fm.p;
		h->len = h->fm.len;
	} else {                               /* not mappable: read through at once */
		h->rc = ws_sha256_fd(fd, h->hex, NULL, &h->err) == 0 ? 0 : -1;
	}
	close(fd);
	return h;
}

int ws_hash_steps_next(struct ws_hash_steps *h)
{
	if (h->rc != 1)
		return h->rc;
	size_t k = h->len - h->off < HASH_STEP ? h->len - h->off : HASH_STEP;
	ws_digest_update(h->d, h->p + h->off, k);
	h->off += k;
	if (h->mapped && (h->off - h->released >= HASH_RELEASE || h->off == h->len)) {
		/* the mapping is private and read-only for us: its pages can go back at once */
		madvise(h->fm.p + h->released, h->off - h->released, MADV_DONTNEED);
		h->released = h->off;
	}
	if (h->off < h->len)
		return 1;
	uint8_t md[WS_DIGEST_MAX];
	if (ws_digest_final(h->d, md) != 32)
		return steps_fail(h, WS_E_MEMORY, "sha-256 failed");
	ws_hex(md, 32, h->hex);
	return h->rc = 0;
}

int ws_hash_steps_end(struct ws_hash_steps *h, char hex[65], struct ws_err *err)
{
	if (!h)
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	bool cut = h->mapped && ws_filemap_close(&h->fm);
	int rc = h->rc;
	if (rc == 1)
		ws_err_set(err, WS_E_IO, "the hash was not finished");
	else if (cut)
		ws_err_set(err, WS_E_IO, "the file shrank while it was read");
	else if (rc < 0)
		ws_err_set(err, h->err.code, "%s", h->err.msg);
	else
		memcpy(hex, h->hex, 65);
	ws_digest_free(h->d);
	free(h);
	return rc == 0 && !cut ? 0 : -1;
}
