/* scan_path.c - one path (or standard input) to a judged artifact's objects: the file
 * opened and its first bytes read, the format the opener (ws_open.h) chooses walked, and
 * what no format bids for scanned as a bare object (ELF, PE, fatbin, cubin, PTX, ar: the
 * core's sniffer says which); standard input spooled first, when its format wants it whole
 * or it is an object, to a file made before the sandbox. */
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

#include "ws_filemap.h"
#include "ws_open.h"
#include "ws_run.h"
#include "ws_util.h"
#include "ws_zipstream.h"
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

/* The opener's options for one input. */
static struct ws_open_opts open_opts(const struct ws_config *cfg, const struct ws_scan_opts *so, uint64_t *progress)
{
	return (struct ws_open_opts){ .so = so, .progress = progress, .verify = cfg->verify };
}

/* Standard input's spool: an unlinked file in $TMPDIR (else /tmp; a memfd where neither
 * takes O_TMPFILE), made before the sandbox, which creates no file, and written only through
 * this descriptor (ws_sandbox_keep_spool). Pages of a file go back to the disk, so a big
 * input costs disk (up to --max-member-size), not memory. One "-" per run (cli.c). */
static int stdin_spool = -1;

int ws_stdin_spool_open(void)
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
	/* a format that streams (a tarball, a Debian package) reads the pipe as it comes */
	struct ws_open_in in = { .from = WS_FROM_STDIN, .name = "-", .head = head, .nhead = nhead, .fd = STDIN_FILENO };
	struct ws_open_opts oo = open_opts(cfg, so, NULL);
	const struct ws_archive_format *f = ws_open(&in);
	if (f && !f->whole) {
		ws_walk(a, f, &in, &oo);
		return a;
	}
	enum ws_content c = ws_sniff(head, nhead);
	if (!f && c == WS_CONTENT_OTHER) {
		size_t i = 0;
		while (i < nhead && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
			i++;
		ws_artifact_error(a, "-", "standard input (%zu%s bytes) is of no format wheelscan reads%s: nothing "
				  "was judged", nhead, nhead == sizeof head ? "+" : "",
				  i < nhead && head[i] == '<' ? " (it starts like an HTML page: a failed download?)" : "");
		return a;
	}
	int fd = ws_stdin_spool_open();
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
	if (f) {
		in.mem = fm.p;                         /* hashed above */
		in.len = fm.len;
		ws_walk(a, f, &in, &oo);
	} else {
		struct ws_scan_opts mo = *so;
		mo.drop_behind = true;
		a->type = ws_content_type(c);
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
	a->type = WS_ART_OTHER;
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
	struct ws_open_opts oo = open_opts(cfg, so, progress);
	const struct ws_archive_format *f;
	struct ws_open_in in = { .from = WS_FROM_DIR, .name = path, .fd = -1 };
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (f = ws_open(&in))) {
		close(fd);                           /* a directory that is one artifact (an OCI layout) */
		ws_walk(a, f, &in, &oo);
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
	/* an archive, a package: the opener's formats bid by name and by content */
	in = (struct ws_open_in){ .from = WS_FROM_FILE, .name = path, .head = head, .nhead = (size_t)got, .fd = -1 };
	if ((f = ws_open(&in))) {
		close(fd);
		ws_walk(a, f, &in, &oo);
		return a;
	}
	a->type = ws_content_type(c);
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
