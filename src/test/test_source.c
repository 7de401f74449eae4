/* test_source.c - the source interface (src/ws_source.h): formats by content and by
 * name, the libarchive source on a file and on a stream (member names, sizes, bytes), a
 * package's wrapper read in place, the driver's limits and nesting, and a random-access
 * source's members run as tasks (order, limits, the RECORD check, members that are others). Run from the
 * repository root (the fixtures are read from testdata/). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "ws_pkgcheck.h"
#include "ws_pool.h"
#include "ws_source.h"
#include "ws_util.h"
#include "ws_record.h"
#include "ws_digest.h"

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
	CHECK_EQ_STR(ws_artifact_type_name(ws_pack_type(WS_PACK_DEB)), "deb");
	CHECK_EQ_STR(ws_artifact_type_name(ws_pack_type(WS_PACK_COMPRESSED)), "tar");
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

	/* a file gone between the walk and its read fails as a member; the others are read */
	char tmpl[] = "/tmp/ws-test-src-XXXXXX", path[256];
	char *dir = mkdtemp(tmpl);
	const char *copies[][2] = { { "testdata/fixtures/multi.so", "a.so" }, { "testdata/fixtures/multi.so", "b.so" },
				    { "testdata/fixtures/libk.a", "c.a" } };
	for (int i = 0; dir && i < 3; i++) {
		size_t len;
		uint8_t *p = slurp(copies[i][0], &len);
		snprintf(path, sizeof path, "%s/%s", dir, copies[i][1]);
		FILE *f = fopen(path, "wb");
		if (f && p)
			fwrite(p, 1, len, f);
		if (f)
			fclose(f);
		free(p);
	}
	struct ws_limits lim;
	ws_limits_default(&lim);
	struct ws_scan_opts so = { .lim = &lim, .want_kernels = true };
	struct ws_drive d;
	struct ws_artifact *a = artifact(dir ? dir : "?");
	ws_drive_init(&d, a, &so);
	memset(&e, 0, sizeof e);
	s = dir ? ws_dir_open(dir, 100, &e) : NULL;
	CHECK(s && s->independent, "a directory source: %s", e.msg);
	snprintf(path, sizeof path, "%s/b.so", dir ? dir : "?");
	unlink(path);
	if (s)
		ws_drive_source(&d, s, "", 1);
	ws_source_close(s);
	ws_drive_finish(&d);
	CHECK(a->nobjects == 3 && !strcmp(a->objects[0].member, "a.so") && !strcmp(a->objects[2].member, "c.a(k2_86.o)"),
	      "the files around the vanished one are read (%u objects)", a->nobjects);
	snprintf(path, sizeof path, "%s!b.so", dir ? dir : "?");
	CHECK(a->nerrors == 1 && a->errors[0].code == WS_E_IO && !strcmp(a->errors[0].where, path),
	      "the vanished file is an io error: %s", a->nerrors ? a->errors[0].where : "");
	ws_artifact_free(a);
	for (int i = 0; dir && i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, copies[i][1]);
		unlink(path);
	}
	if (dir)
		rmdir(dir);

	/* the same as a random-access source: a file not there fails as a member, unless the
	 * files are a record's list, where it is absent (the record check says missing) */
	char *files[] = { "testdata/fixtures/multi.so", "testdata/fixtures/no-such-file.so", "testdata/fixtures/libk.a" };
	char *names[] = { "multi.so", "no-such-file.so", "libk.a" };
	for (int listed = 0; listed < 2; listed++) {
		struct ws_pool *pool = ws_pool_new(2);
		a = artifact("testdata/fixtures");
		so.pool = pool;
		ws_drive_init(&d, a, &so);
		struct ws_rsource *rs = ws_files_rsource(files, names, 3, NULL, listed, &e);
		CHECK(rs != NULL, "a files source: %s", e.msg);
		if (rs)
			ws_drive_random(&d, rs);
		ws_drive_finish(&d);
		CHECK(rs && ws_files_rsource_size(rs, 1) == UINT64_MAX && ws_files_rsource_size(rs, 0) > 0, "sizes as opened");
		ws_files_rsource_free(rs);
		CHECK(a->nobjects == 3 && !strcmp(a->objects[0].member, "multi.so") && !strcmp(a->objects[2].member, "libk.a(k2_86.o)"),
		      "listed %d: the files around the missing one are read (%u objects)", listed, a->nobjects);
		if (listed)
			CHECK(a->nerrors == 0, "listed: a missing file is no error (%u)", a->nerrors);
		else
			CHECK(a->nerrors == 1 && a->errors[0].code == WS_E_IO &&
			      !strcmp(a->errors[0].where, "testdata/fixtures!no-such-file.so"), "the missing file is an io error");
		ws_artifact_free(a);
		ws_pool_free(pool);
	}
}


/* ---- a random-access source in memory ------------------------------------------------ */

#define RN 12
struct mem_rs {
	struct ws_rsource s;
	char *names[RN];
	uint64_t size[RN], cost[RN];
	uint32_t same_as[RN];
	uint8_t *data[RN];
	int opens[RN];                 /* atomic */
	int runners, firsts;           /* atomic */
	int overlaps;                  /* a runner given a member while it held one (atomic) */
	bool absent[RN];
};
struct mem_runner {
	struct mem_rs *rs;
	uint32_t i;
	uint64_t pos;
	bool open;
	struct ws_err err;
};

static long rs_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct mem_runner *h = ctx;
	uint64_t left = h->rs->size[h->i] - h->pos;
	size_t k = n < 1000 ? n : 1000;           /* small reads: a limit falls mid-member */
	if (k > left)
		k = (size_t)left;
	memcpy(buf, h->rs->data[h->i] + h->pos, k);
	h->pos += k;
	return (long)k;
}

static void *rs_runner_open(struct ws_rsource *s, bool first, const struct ws_scan_opts *so, struct ws_err *err)
{
	struct mem_rs *rs = s->impl;
	struct mem_runner *h = calloc(1, sizeof *h);
	h->rs = rs;
	__atomic_add_fetch(&rs->runners, 1, __ATOMIC_RELAXED);
	if (first)
		__atomic_add_fetch(&rs->firsts, 1, __ATOMIC_RELAXED);
	return h;
}

static void rs_runner_close(struct ws_rsource *s, void *runner)
{
	free(runner);
}

static int rs_open(struct ws_rsource *s, void *runner, uint32_t i, struct ws_digest *dg, struct ws_member *m,
		   struct ws_err *err)
{
	struct mem_rs *rs = s->impl;
	struct mem_runner *h = runner;
	__atomic_add_fetch(&rs->opens[i], 1, __ATOMIC_RELAXED);
	if (rs->absent[i])
		return 0;
	if (h->open)                           /* counted here, checked on the main thread */
		__atomic_add_fetch(&rs->overlaps, 1, __ATOMIC_RELAXED);
	h->i = i;
	h->pos = 0;
	h->open = true;
	memset(m, 0, sizeof *m);
	m->name = s->names[i];
	m->size = rs->size[i];
	m->regular = true;
	m->rd = (struct ws_reader){ .read = rs_read, .ctx = h, .err = &h->err };
	return 1;
}

static int rs_close(struct ws_rsource *s, void *runner, struct ws_err *err)
{
	struct mem_runner *h = runner;
	h->open = false;
	return 0;
}

static const struct ws_rsource_ops rs_ops = { rs_runner_open, rs_runner_close, rs_open, rs_close, NULL };

/* Member i: i + 1 KiB of bytes, the largest last, so that largest-first runs them backwards. */
static void mem_rs_init(struct mem_rs *rs)
{
	memset(rs, 0, sizeof *rs);
	rs->s = (struct ws_rsource){ .ops = &rs_ops, .impl = rs, .n = RN, .names = rs->names, .size = rs->size,
				     .cost = rs->cost, .same_as = rs->same_as, .nest = true };
	for (uint32_t i = 0; i < RN; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "lib/m%02u.so", i);
		rs->names[i] = strdup(nm);
		rs->size[i] = rs->cost[i] = (uint64_t)(i + 1) << 10;
		rs->data[i] = malloc(rs->size[i]);
		for (uint64_t k = 0; k < rs->size[i]; k++)
			rs->data[i][k] = (uint8_t)(i * 7 + k);
		rs->same_as[i] = UINT32_MAX;
	}
}

static void mem_rs_free(struct mem_rs *rs)
{
	for (uint32_t i = 0; i < RN; i++) {
		free(rs->names[i]);
		free(rs->data[i]);
	}
}

/* The scanner double: one object per member, named by it; reads a few bytes only. */
static int obj_scan(void *ctx, struct ws_artifact *a, const char *member, struct ws_reader *r, uint64_t size,
		    const struct ws_scan_opts *opt)
{
	uint8_t buf[100];
	r->read(r->ctx, buf, sizeof buf, r->err);
	struct ws_object *o = ws_artifact_add_object(a);
	if (o)
		o->member = strdup(member);
	return 0;
}

/* The driver sniffs before it scans: members that should reach the double carry an ELF magic. */
static void mem_rs_elf(struct mem_rs *rs)
{
	for (uint32_t i = 0; i < RN; i++)
		memcpy(rs->data[i], "\177ELF\2\1\1\0", 8);
}

static void drive_mem(struct mem_rs *rs, struct ws_artifact *a, struct ws_limits *lim, struct ws_pool *pool,
		      struct ws_drive_check *check, struct ws_drive *d)
{
	struct ws_scan_opts so = { .lim = lim, .pool = pool };
	ws_drive_init(d, a, &so);
	d->scan_member = obj_scan;
	ws_drive_add_check(d, check);
	ws_drive_random(d, &rs->s);
}

/* Objects arrive in member order whatever runs where; each member is opened once, by at
 * most one runner per thread, at most one of them the driver's own. */
static void test_random_order(void)
{
	for (int jobs = 1; jobs <= 2; jobs++) {
		struct ws_pool *pool = ws_pool_new(jobs);
		struct mem_rs rs;
		struct ws_limits lim;
		struct ws_drive d;
		mem_rs_init(&rs);
		mem_rs_elf(&rs);
		ws_limits_default(&lim);
		struct ws_artifact *a = artifact("mem.zip");
		drive_mem(&rs, a, &lim, pool, NULL, &d);
		bool order = a->nobjects == RN;
		for (uint32_t i = 0; order && i < RN; i++)
			order = !strcmp(a->objects[i].member, rs.names[i]);
		CHECK(order, "jobs %d: %u objects in member order", jobs, a->nobjects);
		int once = 1;
		for (uint32_t i = 0; i < RN; i++)
			once &= rs.opens[i] == 1;
		CHECK(once, "jobs %d: every member opened once", jobs);
		CHECK(rs.overlaps == 0, "jobs %d: one member at a time per runner", jobs);
		/* with one thread the driver's runner takes every member; with more, the pool's
		 * runners may take them all before it starts (then it opens nothing) */
		CHECK((jobs == 1 ? rs.firsts == 1 : rs.firsts <= 1) && rs.runners >= 1 && rs.runners <= jobs,
		      "jobs %d: %d runners, %d first", jobs, rs.runners, rs.firsts);
		CHECK(a->nerrors == 0 && a->members_scanned == RN, "jobs %d: %u errors, %llu scanned", jobs, a->nerrors,
		      (unsigned long long)a->members_scanned);
		ws_drive_finish(&d);
		ws_artifact_free(a);
		mem_rs_free(&rs);
		ws_pool_free(pool);
	}
}

/* The total limit hit mid-way under two jobs: a limit error on each member that crossed
 * it, the members not begun are skipped, the walk is stopped, and the bytes read stay
 * within a read per runner of the limit. Bytes drained for a check count as much as bytes
 * scanned. */
static void test_random_limit(void)
{
	struct ws_pool *pool = ws_pool_new(2);
	for (int style = 0; style < 2; style++) {
		struct mem_rs rs;
		struct ws_limits lim;
		struct ws_drive d;
		mem_rs_init(&rs);
		rs.s.drain = true;
		rs.s.zip_style = style;
		ws_limits_default(&lim);
		lim.max_total_bytes = 40 << 10;        /* of 78 KiB in all; the largest go first */
		struct ws_artifact *a = artifact("mem.zip");
		drive_mem(&rs, a, &lim, pool, NULL, &d);
		uint32_t limits = 0, opened = 0;
		for (uint32_t i = 0; i < a->nerrors; i++)
			limits += a->errors[i].code == WS_E_LIMIT;
		for (uint32_t i = 0; i < RN; i++)
			opened += rs.opens[i];
		CHECK(d.stopped && limits >= 1 && limits <= 3 && limits == a->nerrors, "style %d: %u limit errors of %u", style,
		      limits, a->nerrors);
		CHECK(opened < RN, "style %d: members after the limit are skipped (%u opened)", style, opened);
		CHECK(d.total > lim.max_total_bytes && d.total <= lim.max_total_bytes + 2 * 1000, "style %d: %llu bytes read",
		      style, (unsigned long long)d.total);
		if (style)
			CHECK(a->nerrors && !strcmp(a->errors[a->nerrors - 1].where, "mem.zip") &&
			      strstr(a->errors[a->nerrors - 1].message, "members after it were skipped"),
			      "zip style ends with the summary: %s", a->nerrors ? a->errors[a->nerrors - 1].message : "");
		else
			CHECK(a->nerrors && !strncmp(a->errors[0].where, "mem.zip!lib/m", 13) &&
			      !strcmp(a->errors[0].message, "archive inflates past the 40 KiB total limit"),
			      "driver style names the member: %s: %s", a->nerrors ? a->errors[0].where : "",
			      a->nerrors ? a->errors[0].message : "");
		ws_drive_finish(&d);
		ws_artifact_free(a);
		mem_rs_free(&rs);
	}
	/* the member limit ends only its member */
	struct mem_rs rs;
	struct ws_limits lim;
	struct ws_drive d;
	mem_rs_init(&rs);
	mem_rs_elf(&rs);
	rs.s.size = NULL;                          /* not known before opening */
	ws_limits_default(&lim);
	lim.max_member_bytes = 10 << 10;
	struct ws_artifact *a = artifact("mem.zip");
	drive_mem(&rs, a, &lim, pool, NULL, &d);
	CHECK(!d.stopped && a->nerrors == 2 && a->nobjects == 10, "two members past the limit, the rest read: %u errors, %u objects",
	      a->nerrors, a->nobjects);
	ws_drive_finish(&d);
	ws_artifact_free(a);
	mem_rs_free(&rs);
	ws_pool_free(pool);
}

/* The RECORD check on a random-access source: a member that matches, one that differs, one
 * that is absent, one that is another member (not opened, judged by the other's digest). */
static void test_random_record(void)
{
	struct ws_pool *pool = ws_pool_new(2);
	struct mem_rs rs;
	struct ws_limits lim;
	struct ws_drive d;
	mem_rs_init(&rs);
	rs.absent[2] = true;
	rs.same_as[3] = 1;
	rs.size[3] = rs.size[1];
	memcpy(rs.data[3], rs.data[1], rs.size[1]);
	rs.s.n = 4;
	char text[1024], b64[64];
	size_t len = 0;
	for (uint32_t i = 0; i < 4; i++) {
		uint8_t md[WS_DIGEST_MAX];
		struct ws_digest *dg = ws_digest_new("sha256");
		ws_digest_update(dg, rs.data[i], rs.size[i]);
		ws_b64url_nopad(md, ws_digest_final(dg, md), b64, sizeof b64);
		ws_digest_free(dg);
		if (i == 0)
			b64[0] = b64[0] == 'A' ? 'B' : 'A';   /* member 0 differs from its row */
		len += (size_t)snprintf(text + len, sizeof text - len, "%s,sha256=%s,%llu\n", rs.names[i], b64,
					(unsigned long long)rs.size[i]);
	}
	struct ws_record_index rec = { 0 };
	struct ws_err err = {0};
	CHECK(ws_record_parse(&rec, text, len, &err) == 0, "RECORD: %s", err.msg);
	struct ws_drive_check *check = ws_record_check(WS_RECORD_INSTALLED, &rec, NULL, NULL);
	struct ws_artifact *a = artifact("x.dist-info");
	ws_limits_default(&lim);
	drive_mem(&rs, a, &lim, pool, check, &d);
	ws_drive_finish(&d);
	CHECK(rs.opens[3] == 0 && rs.opens[1] == 1, "a member that is another is not opened (%d, %d)", rs.opens[3], rs.opens[1]);
	CHECK(a->record.checked && !a->record.ok, "record checked, not ok");
	CHECK(a->record.nmismatched == 1 && !strcmp(a->record.mismatched[0], "lib/m00.so"), "m00 mismatched (%zu)",
	      (size_t)a->record.nmismatched);
	CHECK(a->record.nmissing == 1 && !strcmp(a->record.missing[0], "lib/m02.so"), "m02 missing (%zu)",
	      (size_t)a->record.nmissing);
	/* an installed file that differs was read: listed, judged, not an error */
	CHECK(a->nerrors == 0, "no error: %s", a->nerrors ? a->errors[0].message : "");
	ws_artifact_free(a);
	rs.s.n = RN;
	mem_rs_free(&rs);
	ws_pool_free(pool);
}

int main(void)
{
	test_random_order();
	test_random_limit();
	test_random_record();
	test_files();
	test_sniff();
	test_file_source();
	test_deb_stream();
	test_drive();
	return ws_test_done();
}
