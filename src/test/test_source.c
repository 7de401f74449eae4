/* test_source.c - the source interface (include/ws_source.h): formats by content and by
 * name, the libarchive source on a file and on a stream (member names, sizes, bytes), a
 * package's wrapper read in place, and the driver's limits and nesting. Run from the
 * repository root (the fixtures are read from testdata/). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "ws_source.h"
#include "ws_util.h"

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	*n = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (len > 0 && (p = malloc((size_t)len)) && fread(p, 1, (size_t)len, f) == (size_t)len)
		*n = (size_t)len;
	fclose(f);
	return p;
}

/* Reads a member to its end into a fresh buffer. */
static uint8_t *read_all(struct ws_member *m, size_t *n)
{
	size_t cap = 1 << 16, len = 0;
	uint8_t *p = malloc(cap);
	for (;;) {
		if (len == cap)
			p = realloc(p, cap *= 2);
		long k = m->rd.read(m->rd.ctx, p + len, 777, m->rd.err);   /* odd chunks */
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	*n = len;
	return p;
}

static void test_sniff(void)
{
	size_t n;
	const char *tars[] = { "pkg.tar", "pkg.tar.gz", "pkg.tar.bz2", "pkg.tar.xz", "pkg.tar.zst" };
	enum ws_pack want[] = { WS_PACK_TAR, WS_PACK_COMPRESSED, WS_PACK_COMPRESSED, WS_PACK_COMPRESSED, WS_PACK_COMPRESSED };
	for (int i = 0; i < 5; i++) {
		char path[128];
		snprintf(path, sizeof path, "testdata/archives/%s", tars[i]);
		uint8_t *p = slurp(path, &n);
		CHECK(p && ws_pack_sniff(p, n < WS_SNIFF_BYTES ? n : WS_SNIFF_BYTES) == want[i], "%s sniffs as %d", tars[i], want[i]);
		free(p);
	}
	uint8_t *p = slurp("testdata/archives/wscan-cuda_1.0_amd64.deb", &n);
	CHECK(p && ws_pack_sniff(p, n) == WS_PACK_DEB, "a .deb sniffs as deb");
	free(p);
	p = slurp("testdata/fixtures/libk.a", &n);
	CHECK(p && ws_pack_sniff(p, n) == WS_PACK_NONE, "a static library is no package");
	free(p);
	p = slurp("testdata/fixtures/multi.so", &n);
	CHECK(p && ws_pack_sniff(p, n) == WS_PACK_NONE, "an ELF file is no archive");
	free(p);
	CHECK_EQ_INT(ws_pack_by_name("a/b/x.TGZ"), WS_PACK_TAR);
	CHECK_EQ_INT(ws_pack_by_name("x.tar.zst"), WS_PACK_TAR);
	CHECK_EQ_INT(ws_pack_by_name("x_1.0_amd64.deb"), WS_PACK_DEB);
	CHECK_EQ_INT(ws_pack_by_name("x-1.0-0.conda"), WS_PACK_CONDA);
	CHECK_EQ_INT(ws_pack_by_name("x.whl"), WS_PACK_NONE);
	CHECK_EQ_INT(ws_pack_by_name(".tar"), WS_PACK_NONE);       /* a name that is only the suffix */
	CHECK_EQ_STR(ws_pack_type(WS_PACK_DEB), "deb");
	CHECK_EQ_STR(ws_pack_type(WS_PACK_COMPRESSED), "tar");
}

/* The file source: members in order, "./" dropped, sizes and bytes as stored. */
static void test_file_source(void)
{
	struct ws_err e = { 0 };
	struct ws_source *s = ws_archive_open_file("testdata/archives/pkg.tar.gz", -1, WS_PACK_TAR, &e);
	CHECK(s != NULL, "open: %s", e.msg);
	if (!s)
		return;
	size_t sn;
	uint8_t *so = slurp("testdata/fixtures/multi.so", &sn);
	const char *names[] = { "", "usr/", "usr/lib/", "usr/lib/libmulti.so", "usr/lib/libmulti.so.1", "usr/lib/libk.a",
				"dist/", "dist/example.whl", "README" };
	struct ws_member m;
	int k = 0, rc;
	while ((rc = ws_source_next(s, &m, &e)) == 1) {
		CHECK(k < 9 && strcmp(m.name, names[k]) == 0, "member %d is '%s'", k, m.name);
		if (!strcmp(m.name, "usr/lib/libmulti.so")) {
			size_t n;
			uint8_t *p = read_all(&m, &n);
			CHECK(m.regular && m.size == sn && n == sn && so && memcmp(p, so, n) == 0, "libmulti.so's bytes");
			free(p);
		}
		if (!strcmp(m.name, "usr/lib/libmulti.so.1") || !strcmp(m.name, "usr/"))
			CHECK(!m.regular, "'%s' is no regular file", m.name);
		k++;
	}
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(k, 9);
	CHECK_EQ_STR(s->format, "tar");
	CHECK(ws_archive_bytes_read(s) > 30000, "the compressed bytes were read");
	ws_source_close(s);
	free(so);
	s = ws_archive_open_file("testdata/hostile/tar-not-tar.tar.gz", -1, WS_PACK_TAR, &e);
	int got = s ? ws_source_next(s, &m, &e) : -1;
	CHECK(got == -1 && e.code == WS_E_FORMAT && strstr(e.msg, "not a tar archive"), "a 404 page: %s", e.msg);
	ws_source_close(s);
	memset(&e, 0, sizeof e);
	CHECK(ws_archive_open_file("/nonexistent.tar", -1, WS_PACK_TAR, &e) == NULL && e.code == WS_E_IO, "no file: io");
}

struct mem {
	const uint8_t *p;
	size_t n, pos;
};

static long mem_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct mem *m = ctx;
	(void)err;
	size_t k = m->n - m->pos < n ? m->n - m->pos : n;
	if (k > 1000)
		k = 1000;
	memcpy(buf, m->p + m->pos, k);
	m->pos += k;
	return (long)k;
}

/* A .deb from a stream: the wrapper is read in place, control members carry their tarball. */
static void test_deb_stream(void)
{
	size_t n;
	uint8_t *p = slurp("testdata/archives/wscan-cuda_1.0_amd64.deb", &n);
	struct mem mm = { p, n, 0 };
	struct ws_reader r = { .read = mem_read, .ctx = &mm };
	struct ws_err e = { 0 };
	struct ws_source *s = ws_archive_open_reader(&r, WS_PACK_DEB, &e);
	CHECK(s != NULL, "open: %s", e.msg);
	struct ws_member m;
	char seen[512] = "";
	while (s && ws_source_next(s, &m, &e) == 1)
		if (m.regular && strlen(seen) + strlen(m.name) + 2 < sizeof seen) {
			strcat(seen, m.name);
			strcat(seen, " ");
		}
	CHECK_EQ_STR(seen, "control.tar.gz!control control.tar.gz!md5sums usr/lib/x86_64-linux-gnu/libmulti.so "
			   "usr/share/doc/wscan-cuda/changelog.Debian.gz ");
	ws_source_close(s);
	free(p);
}

static struct ws_artifact *artifact(const char *path)
{
	struct ws_artifact *a = calloc(1, sizeof *a);
	if (a)
		a->path = strdup(path);
	return a;
}

/* Drives the file at path (a tar) into a fresh artifact with limits lim. */
static struct ws_artifact *drive(const char *path, const struct ws_limits *lim, struct ws_drive *d)
{
	struct ws_scan_opts so = { .lim = lim, .want_kernels = true };
	struct ws_artifact *a = artifact(path);
	ws_drive_init(d, a, &so);
	struct ws_err e = { 0 };
	struct ws_source *s = ws_archive_open_file(path, -1, WS_PACK_TAR, &e);
	CHECK(s != NULL, "open %s: %s", path, e.msg);
	if (s)
		ws_drive_source(d, s, "", 1);
	ws_source_close(s);
	ws_drive_finish(d);
	return a;
}

/* The driver: a limit stops the walk with one error of kind limit; a third level is not
 * opened; nested members are named outer!inner. */
static void test_drive(void)
{
	struct ws_limits lim;
	struct ws_drive d;
	ws_limits_default(&lim);
	lim.max_total_bytes = 100000;
	struct ws_artifact *a = drive("testdata/archives/pkg.tar", &lim, &d);
	CHECK(d.stopped && a->nerrors == 1 && a->errors[0].code == WS_E_LIMIT, "one limit error (%u errors)", a->nerrors);
	CHECK(d.total <= lim.max_total_bytes + (256 << 10), "stopped within a read of the limit: %llu",
	      (unsigned long long)d.total);
	ws_artifact_free(a);
	ws_limits_default(&lim);
	a = drive("testdata/hostile/tar-deep.tar", &lim, &d);
	CHECK(a->nerrors == 1 && a->errors[0].code == WS_E_UNSUPPORTED && a->nobjects == 0, "three levels: not read");
	CHECK(a->nerrors == 1 && strcmp(a->errors[0].where, "testdata/hostile/tar-deep.tar!a.tar!b.tar") == 0,
	      "named outer!inner: %s", a->nerrors ? a->errors[0].where : "");
	ws_artifact_free(a);
	a = drive("testdata/archives/nested.tar", &lim, &d);
	CHECK(a->nerrors == 0 && a->nobjects == 2, "nested.tar: %u objects, %u errors", a->nobjects, a->nerrors);
	CHECK(a->nobjects == 2 && !strcmp(a->objects[0].member, "inner.tar.gz!usr/lib/libmulti.so") &&
	      !strcmp(a->objects[1].member, "libmulti.so.gz") && a->objects[1].size == 63880, "nested names and sizes");
	ws_artifact_free(a);
}

/* Files on disk: a directory walked in name order, and a list whose missing file fails
 * as a member while the others are still read. */
static void test_files(void)
{
	struct ws_err e = { 0 };
	struct ws_source *s = ws_dir_open("testdata/archives/", 1000, &e);
	CHECK(s != NULL, "walk: %s", e.msg);
	struct ws_member m;
	char prev[256] = "";
	int n = 0, sorted = 1;
	while (s && ws_source_next(s, &m, &e) == 1) {
		sorted &= strcmp(prev, m.name) < 0;
		snprintf(prev, sizeof prev, "%s", m.name);
		n++;
	}
	CHECK(n == 11 && sorted, "%d files, in order", n);
	ws_source_close(s);
	CHECK(ws_dir_open("testdata/archives", 3, &e) == NULL && e.code == WS_E_LIMIT, "max_files holds");

	char *files[] = { "testdata/fixtures/multi.so", "testdata/fixtures/no-such-file.so", "testdata/fixtures/libk.a" };
	struct ws_artifact *a = artifact("testdata/fixtures");
	struct ws_limits lim;
	ws_limits_default(&lim);
	struct ws_scan_opts so = { .lim = &lim, .want_kernels = true };
	struct ws_drive d;
	ws_drive_init(&d, a, &so);
	memset(&e, 0, sizeof e);
	s = ws_files_open(files, 3, strlen("testdata/fixtures/"), &e);
	CHECK(s && s->independent, "a files source");
	if (s)
		ws_drive_source(&d, s, "", 1);
	ws_source_close(s);
	ws_drive_finish(&d);
	CHECK(a->nobjects == 3 && !strcmp(a->objects[0].member, "multi.so") && !strcmp(a->objects[2].member, "libk.a(k2_86.o)"),
	      "the files around the missing one are read (%u objects)", a->nobjects);
	CHECK(a->nerrors == 1 && a->errors[0].code == WS_E_IO &&
	      !strcmp(a->errors[0].where, "testdata/fixtures!no-such-file.so"), "the missing file is an io error");
	ws_artifact_free(a);
}

int main(void)
{
	test_files();
	test_sniff();
	test_file_source();
	test_deb_stream();
	test_drive();
	return ws_test_done();
}
