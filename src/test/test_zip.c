/* test_zip.c - zips and wheels: streamed inflate, CRC and size checks, RECORD, limits, threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "tap.h"
#include "wheelscan.h"
#include "ws_inflate.h"
#include "ws_pool.h"
#include "ws_scan.h"
#include "ws_util.h"
#include "ws_zip.h"
#include "ws_digest.h"
#include "ws_readfile.h"

/* One pool per thread count, kept for the whole run (the threads are reused). */
static struct ws_pool *pool_for(int jobs)
{
	static struct ws_pool *pools[8];
	if (!pools[jobs])
		pools[jobs] = ws_pool_new(jobs);
	return pools[jobs];
}

/* ---- a tiny zip writer, so tests control every byte -------------------- */

struct zw {
	uint8_t *p;
	size_t len, cap;
	uint8_t *cd;
	size_t cdlen, cdcap;
	uint16_t n;
};

static void put(uint8_t **p, size_t *len, size_t *cap, const void *s, size_t n)
{
	if (*len + n > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < *len + n)
			c *= 2;
		*p = realloc(*p, c);
		*cap = c;
	}
	if (n)
		memcpy(*p + *len, s, n);
	*len += n;
}

static void le16(uint8_t *b, unsigned v) { b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); }
static void le32(uint8_t *b, uint32_t v) { le16(b, v & 0xffff); le16(b + 2, v >> 16); }

/* Adds a member whose data (already compressed with method) is comp[0..clen). */
static void zw_raw(struct zw *w, const char *name, unsigned method, const uint8_t *comp, size_t clen, uint32_t crc,
		   uint32_t usize)
{
	uint8_t h[30] = { 'P', 'K', 3, 4 }, c[46] = { 'P', 'K', 1, 2 };
	size_t nl = strlen(name);
	uint32_t off = (uint32_t)w->len;
	le16(h + 4, 20); le16(h + 8, method); le32(h + 14, crc); le32(h + 18, (uint32_t)clen);
	le32(h + 22, usize); le16(h + 26, (unsigned)nl);
	put(&w->p, &w->len, &w->cap, h, sizeof h);
	put(&w->p, &w->len, &w->cap, name, nl);
	put(&w->p, &w->len, &w->cap, comp, clen);
	le16(c + 4, 20); le16(c + 6, 20); le16(c + 10, method); le32(c + 16, crc); le32(c + 20, (uint32_t)clen);
	le32(c + 24, usize); le16(c + 28, (unsigned)nl); le32(c + 42, off);
	put(&w->cd, &w->cdlen, &w->cdcap, c, sizeof c);
	put(&w->cd, &w->cdlen, &w->cdcap, name, nl);
	w->n++;
}

static size_t deflate_raw(const uint8_t *p, size_t n, uint8_t **out)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	size_t cap = deflateBound(&zs, n) + 16;
	*out = malloc(cap);
	zs.next_in = (Bytef *)p;
	zs.avail_in = (uInt)n;
	zs.next_out = *out;
	zs.avail_out = (uInt)cap;
	deflate(&zs, Z_FINISH);
	size_t r = zs.total_out;
	deflateEnd(&zs);
	return r;
}

static void zw_add(struct zw *w, const char *name, const void *data, size_t n, bool deflated)
{
	uint32_t crc = (uint32_t)crc32(0, data, (uInt)n);
	if (deflated) {
		uint8_t *c;
		size_t cl = deflate_raw(data, n, &c);
		zw_raw(w, name, 8, c, cl, crc, (uint32_t)n);
		free(c);
	} else {
		zw_raw(w, name, 0, data, n, crc, (uint32_t)n);
	}
}

static void zw_str(struct zw *w, const char *name, const char *s, bool deflated)
{
	zw_add(w, name, s, strlen(s), deflated);
}

static void zw_finish(struct zw *w)
{
	uint8_t e[22] = { 'P', 'K', 5, 6 };
	uint32_t cdoff = (uint32_t)w->len;
	le16(e + 8, w->n); le16(e + 10, w->n); le32(e + 12, (uint32_t)w->cdlen); le32(e + 16, cdoff);
	put(&w->p, &w->len, &w->cap, w->cd, w->cdlen);
	put(&w->p, &w->len, &w->cap, e, sizeof e);
	free(w->cd);
	w->cd = NULL;
}

/* A RECORD row for data, as wheel builders write it. */
static void record_row(char *rec, size_t cap, const char *name, const void *data, size_t n)
{
	struct ws_digest *d = ws_digest_new("sha256");
	uint8_t md[WS_DIGEST_MAX];
	char b64[100];
	ws_digest_update(d, data, n);
	size_t dl = ws_digest_final(d, md);
	ws_digest_free(d);
	ws_b64url_nopad(md, dl, b64, sizeof b64);
	size_t l = strlen(rec);
	snprintf(rec + l, cap - l, "%s,sha256=%s,%zu\n", name, b64, n);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long l = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(l > 0 ? (size_t)l : 1);
	*n = fread(p, 1, (size_t)l, f);
	fclose(f);
	return p;
}

static struct ws_artifact *new_art(const char *path)
{
	struct ws_artifact *a = calloc(1, sizeof *a);
	if (path)
		a->path = strdup(path);
	return a;
}

static bool has_error(const struct ws_artifact *a, const char *needle)
{
	for (uint32_t i = 0; i < a->nerrors; i++)
		if (strstr(a->errors[i].message, needle))
			return true;
	return false;
}

static void dump_errors(const struct ws_artifact *a)
{
	for (uint32_t i = 0; i < a->nerrors; i++)
		fprintf(stderr, "  error: %s: %s\n", a->errors[i].where, a->errors[i].message);
}

/* ---- a scanner double: reads the member through the reader and keeps what it saw */

struct seen {
	char name[64];
	uint64_t size, got;
	uint32_t crc;
	int rereads_ok;
};

struct dbl {
	size_t chunk;                /* read size asked for */
	uint64_t stop_after;         /* stop reading after this many bytes (0: read all) */
	bool reread;                 /* exercise reread */
	struct seen s[16];
	int n;
	pthread_mutex_t mu;
};

static int dbl_scan(void *ctx, struct ws_artifact *a, const char *member, struct ws_reader *r, uint64_t size,
		    const struct ws_scan_opts *opt)
{
	struct dbl *d = ctx;
	struct seen s;
	memset(&s, 0, sizeof s);
	snprintf(s.name, sizeof s.name, "%s", member);
	s.size = size;
	uint8_t *buf = malloc(d->chunk);
	uint8_t head[100];
	size_t headn = 0;
	struct ws_err err = {0};
	long k;
	while ((k = r->read(r->ctx, buf, d->chunk, &err)) > 0) {
		s.crc = (uint32_t)crc32(s.crc, buf, (uInt)k);
		if (headn < sizeof head) {
			size_t c = (size_t)k < sizeof head - headn ? (size_t)k : sizeof head - headn;
			memcpy(head + headn, buf, c);
			headn += c;
		}
		s.got += (uint64_t)k;
		if (d->stop_after && s.got >= d->stop_after)
			break;
	}
	if (d->reread && r->reread && headn >= 50) {
		uint8_t again[40];
		struct ws_err rerr = {0};
		s.rereads_ok = r->reread(r->ctx, 10, again, sizeof again, &rerr) == 0 &&
			       memcmp(again, head + 10, sizeof again) == 0;
		/* a reread going back (to before where the last one ended) starts over */
		s.rereads_ok = s.rereads_ok && r->reread(r->ctx, 3, again, sizeof again, &rerr) == 0 &&
			       memcmp(again, head + 3, sizeof again) == 0;
	}
	free(buf);
	struct ws_object *o = ws_artifact_add_object(a);
	o->member = strdup(member);
	o->type = WS_OBJ_ELF_SO;
	o->size = s.got;
	pthread_mutex_lock(&d->mu);
	if (d->n < 16)
		d->s[d->n++] = s;
	pthread_mutex_unlock(&d->mu);
	return k < 0 ? -1 : 0;
}

static const struct seen *find_seen(const struct dbl *d, const char *name)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->s[i].name, name) == 0)
			return &d->s[i];
	return NULL;
}

static void init_dbl(struct dbl *d, size_t chunk)
{
	memset(d, 0, sizeof *d);
	pthread_mutex_init(&d->mu, NULL);
	d->chunk = chunk;
}

/* A fake ELF shared object: a header that sniffs as ELF, then pseudo-random bytes. */
static uint8_t *fake_elf(size_t n, unsigned seed)
{
	uint8_t *p = malloc(n);
	uint32_t s = seed;
	for (size_t i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		p[i] = (i % 4096 < 2048) ? (uint8_t)(s >> 16) : (uint8_t)"cuda kernel "[i % 12];
	}
	memcpy(p, "\177ELF\2\1\1", 7);
	memset(p + 7, 0, 13);
	le16(p + 16, 3);   /* ET_DYN */
	le16(p + 18, 62);  /* EM_X86_64 */
	return p;
}

static const char METADATA[] =
	"Metadata-Version: 2.1\nName: demo\nVersion: 1.0+cu124\n"
	"Requires-Dist: numpy>=1.0\nRequires-Dist: nvidia-cublas-cu12==12.4.5.8; platform_system == \"Linux\"\n"
	"\nRequires-Dist: nvidia-fake-cu99 (in the description: ignored)\n";
static const char WHEELF[] = "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.44.0)\nRoot-Is-Purelib: false\n";

struct wheel_parts {
	uint8_t *elf, *elf2;
	size_t elfn, elf2n;
};

/* Builds demo-1.0+cu124: a deflated ELF, a stored ELF, python, data; RECORD
 * rows may be tampered through the flags. */
static void build_wheel(struct zw *w, struct wheel_parts *wp, bool tamper, bool missing_unlisted, bool escape)
{
	static char rec[8192];
	const char *py = "print('hello')\n";
	wp->elfn = 9u << 20;                    /* over the 8 MiB read-ahead threshold */
	wp->elf = fake_elf(wp->elfn, 1);
	wp->elf2n = 200000;
	wp->elf2 = fake_elf(wp->elf2n, 2);
	memset(w, 0, sizeof *w);
	rec[0] = '\0';
	zw_str(w, "demo/__init__.py", py, true);
	record_row(rec, sizeof rec, "demo/__init__.py", py, strlen(py));
	zw_add(w, "demo/lib/libdemo.so.1", wp->elf, wp->elfn, true);
	if (tamper) {
		/* RECORD describes other bytes than the member holds */
		uint8_t c = wp->elf[wp->elfn / 2];
		wp->elf[wp->elfn / 2] ^= 1;
		record_row(rec, sizeof rec, "demo/lib/libdemo.so.1", wp->elf, wp->elfn);
		wp->elf[wp->elfn / 2] = c;
	} else {
		record_row(rec, sizeof rec, "demo/lib/libdemo.so.1", wp->elf, wp->elfn);
	}
	zw_add(w, "demo/bin/tool", wp->elf2, wp->elf2n, false);
	record_row(rec, sizeof rec, "demo/bin/tool", wp->elf2, wp->elf2n);
	/* a large member nothing scans: hashed only */
	wp->elf[0] = 'X';
	zw_add(w, "demo/data.bin", wp->elf, wp->elfn - 12345, true);
	record_row(rec, sizeof rec, "demo/data.bin", wp->elf, wp->elfn - 12345);
	wp->elf[0] = 0x7f;
	if (missing_unlisted) {
		zw_str(w, "demo/extra.py", "x = 1\n", true);
		strcat(rec, "demo/gone.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\n");
	}
	if (escape) {
		zw_add(w, "../evil.so", wp->elf2, 100, true);
		record_row(rec, sizeof rec, "../evil.so", wp->elf2, 100);
		/* ".." further down the name escapes too */
		zw_add(w, "demo/../../evil2.so", wp->elf2, 100, true);
		record_row(rec, sizeof rec, "demo/../../evil2.so", wp->elf2, 100);
	}
	zw_str(w, "demo-1.0+cu124.dist-info/METADATA", METADATA, true);
	record_row(rec, sizeof rec, "demo-1.0+cu124.dist-info/METADATA", METADATA, strlen(METADATA));
	zw_str(w, "demo-1.0+cu124.dist-info/WHEEL", WHEELF, false);
	record_row(rec, sizeof rec, "\"demo-1.0+cu124.dist-info/WHEEL\"", WHEELF, strlen(WHEELF));
	strcat(rec, "demo-1.0+cu124.dist-info/RECORD,,\n");
	zw_str(w, "demo-1.0+cu124.dist-info/RECORD", rec, true);
	zw_finish(w);
}

static void free_parts(struct zw *w, struct wheel_parts *wp)
{
	free(w->p);
	free(wp->elf);
	free(wp->elf2);
}

static void test_inflate(void)
{
	size_t n = 3u << 20;
	uint8_t *src = fake_elf(n, 7), *comp, *out = malloc(n), buf[70000];
	size_t cl = deflate_raw(src, n, &comp), ip = 0, got = 0;
	struct ws_inflate *z = ws_inflate_new();
	enum ws_inflate_status st = WS_INFLATE_MORE;
	int steps = 0;
	srand(3);
	while (st == WS_INFLATE_MORE && steps++ < 1000000) {
		size_t oc = 1 + (size_t)rand() % sizeof buf, ic = (size_t)rand() % 3000, used, made;
		if (ic > cl - ip)
			ic = cl - ip;
		memset(buf, 0xa5, sizeof buf);     /* the window must live in the state, not here */
		st = ws_inflate_step(z, comp + ip, ic, &used, buf, oc, &made);
		ip += used;
		if (got + made > n)
			break;
		memcpy(out + got, buf, made);
		got += made;
	}
	CHECK_EQ_INT(st, WS_INFLATE_END);
	CHECK_EQ_INT(got, n);
	CHECK_EQ_INT(ip, cl);
	CHECK(memcmp(out, src, n) == 0, "inflated bytes differ (%s)", ws_inflate_backend());
	CHECK_EQ_INT(ws_crc32(ws_crc32(0, src, 1000), src + 1000, n - 1000), (uint32_t)crc32(0, src, (uInt)n));
	CHECK_EQ_INT(ws_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
	/* garbage is an error, not a hang */
	ws_inflate_reset(z);
	uint8_t bad[64];
	size_t used, made;
	memset(bad, 0xff, sizeof bad);
	st = ws_inflate_step(z, bad, sizeof bad, &used, buf, sizeof buf, &made);
	CHECK_EQ_INT(st, WS_INFLATE_ERROR);
	ws_inflate_free(z);
	ws_inflate_free(NULL);
	free(src);
	free(comp);
	free(out);
}

static void test_digest(void)
{
	uint8_t md[WS_DIGEST_MAX];
	char b64[100], hex[129];
	struct ws_digest *d = ws_digest_new("sha256");
	size_t dl = ws_digest_final(d, md);
	ws_digest_free(d);
	CHECK_EQ_INT(dl, 32);
	ws_b64url_nopad(md, dl, b64, sizeof b64);
	CHECK_EQ_STR(b64, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");   /* sha256 of "" in RECORD form */
	d = ws_digest_new("sha256");
	ws_digest_update(d, "ab", 2);
	ws_digest_update(d, "c", 1);
	dl = ws_digest_final(d, md);
	ws_digest_free(d);
	ws_hex(md, dl, hex);
	CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_EQ_INT(ws_b64url_nopad((const uint8_t *)"\xfb\xff", 2, b64, sizeof b64), 3);
	CHECK_EQ_STR(b64, "-_8");
	CHECK_EQ_INT(ws_b64url_nopad((const uint8_t *)"abcd", 4, b64, 6), 0);     /* needs 7 with the NUL */
	CHECK(ws_digest_new("md5") == NULL, "is false");
	CHECK(ws_digest_known("sha512") && !ws_digest_known("sha1"), "is false");
	d = ws_digest_new("sha512");
	CHECK_EQ_INT(ws_digest_final(d, md), 64);
	ws_digest_free(d);
	ws_digest_free(NULL);
}

/* A file hashed a step at a time, mapped or from memory, gives the one-pass digest, and a
 * file that is gone says why. */
static void test_hash_steps(void)
{
	size_t n = (3u << 20) + (1u << 19) + 5;        /* steps of 1 MiB and a short last one */
	uint8_t *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 2654435761u >> 13);
	char want[65], got[65];
	struct ws_err err = {0};
	CHECK_EQ_INT(ws_sha256_mem(p, n, want, FRESH(err)), 0);
	char path[] = "/tmp/ws-test-hash-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, p, n) == (ssize_t)n, "wrote the file");
	close(fd);
	for (int mem = 0; mem < 2; mem++) {
		struct ws_hash_steps *h = ws_hash_steps_new(mem ? NULL : path, p, n);
		int steps = 0, r;
		while ((r = ws_hash_steps_next(h)) == 1)
			steps++;
		CHECK(r == 0 && steps == 3, "%s: %d steps before the last, then %d", mem ? "memory" : "file", steps, r);
		memset(got, 0, sizeof got);
		CHECK_EQ_INT(ws_hash_steps_end(h, got, FRESH(err)), 0);
		CHECK_EQ_STR(got, want);
	}
	unlink(path);
	struct ws_hash_steps *h = ws_hash_steps_new(path, NULL, 0);
	CHECK_EQ_INT(ws_hash_steps_next(h), -1);
	CHECK_EQ_INT(ws_hash_steps_end(h, got, FRESH(err)), -1);
	CHECK(strstr(err.msg, "No such file") != NULL, "%s", err.msg);
	free(p);
}

static void check_wheel_facts(const struct ws_artifact *a, const char *name_expect)
{
	CHECK_EQ_STR(ws_artifact_type_name(a->type), "wheel");
	CHECK(a->wheel != NULL, "is false");
	if (!a->wheel)
		return;
	CHECK_EQ_STR(a->wheel->name, name_expect);
	CHECK_EQ_STR(a->wheel->version, "1.0+cu124");
	CHECK_EQ_STR(a->wheel->local, "cu124");
	CHECK_EQ_STR(a->wheel->meta_name, "demo");
	CHECK_EQ_STR(a->wheel->meta_version, "1.0+cu124");
	CHECK_EQ_INT(a->wheel->requires_cuda_major, 12);
	CHECK_EQ_STR(a->wheel->generator, "bdist_wheel (0.44.0)");
}

static void test_good_wheel(void)
{
	struct zw w;
	struct wheel_parts wp;
	build_wheel(&w, &wp, false, false, false);
	for (int jobs = 1; jobs <= 4; jobs += 3) {
		for (int chunk = 0; chunk < 2; chunk++) {
			struct dbl d;
			init_dbl(&d, chunk ? 1u << 20 : 1000);
			d.reread = true;
			struct ws_zip_opts o;
			ws_zip_opts_default(&o);
			o.scan_member = dbl_scan;
			o.scan_member_ctx = &d;
			o.pool = pool_for(jobs);
			uint64_t progress = 0;
			o.progress = &progress;
			struct ws_artifact *a = new_art(NULL);
			int rc = ws_zip_scan_memory(a, w.p, w.len, &o);
			CHECK_EQ_INT(rc, 0);
			dump_errors(a);
			check_wheel_facts(a, "demo");          /* from the dist-info name: no file name */
			CHECK(a->record.checked && a->record.ok, "record checked %d ok %d", a->record.checked, a->record.ok);
			CHECK_EQ_INT(a->members_scanned, 2);
			CHECK_EQ_INT(d.n, 2);
			const struct seen *s = find_seen(&d, "demo/lib/libdemo.so.1");
			CHECK(s && s->got == wp.elfn && s->size == wp.elfn && s->crc == crc32(0, wp.elf, (uInt)wp.elfn),
			      "deflated member seen wrong (jobs %d chunk %d)", jobs, chunk);
			CHECK(s && s->rereads_ok, "reread of deflated member");
			s = find_seen(&d, "demo/bin/tool");
			CHECK(s && s->got == wp.elf2n && s->crc == crc32(0, wp.elf2, (uInt)wp.elf2n), "stored member seen wrong");
			CHECK(s && s->rereads_ok, "reread of stored member");
			/* objects arrive in central-directory order whatever the thread count */
			CHECK_EQ_INT(a->nobjects, 2);
			if (a->nobjects == 2) {
				CHECK_EQ_STR(a->objects[0].member, "demo/lib/libdemo.so.1");
				CHECK_EQ_STR(a->objects[1].member, "demo/bin/tool");
			}
			CHECK(a->bytes_inflated > wp.elfn + wp.elf2n, "bytes_inflated %llu", (unsigned long long)a->bytes_inflated);
			CHECK(progress > 0 && progress <= w.len, "progress %llu of %zu", (unsigned long long)progress, w.len);
			struct ws_digest *dg = ws_digest_new("sha256");
			uint8_t md[WS_DIGEST_MAX];
			char hex[65];
			ws_digest_update(dg, w.p, w.len);
			ws_hex(md, ws_digest_final(dg, md), hex);
			ws_digest_free(dg);
			CHECK_EQ_STR(a->sha256, hex);
			CHECK_EQ_INT(a->size, w.len);
			ws_artifact_free(a);
		}
	}
	/* from a file: the name gives the tags */
	char path[] = "/tmp/ws-test-zip-XXXXXX";
	char *dir = mkdtemp(path), file[256];
	snprintf(file, sizeof file, "%s/demo-1.0+cu124-cp311-cp311-linux_x86_64.whl", dir);
	FILE *f = fopen(file, "wb");
	fwrite(w.p, 1, w.len, f);
	fclose(f);
	struct dbl d;
	init_dbl(&d, 65536);
	struct ws_zip_opts o;
	ws_zip_opts_default(&o);
	o.scan_member = dbl_scan;
	o.scan_member_ctx = &d;
	o.pool = pool_for(2);
	struct ws_artifact *a = new_art(file);
	CHECK_EQ_INT(ws_zip_scan_file(a, file, &o), 0);
	check_wheel_facts(a, "demo");
	CHECK_EQ_STR(a->wheel->python_tag, "cp311");
	CHECK_EQ_STR(a->wheel->platform_tag, "linux_x86_64");
	CHECK(a->record.ok, "is false");
	ws_artifact_free(a);
	for (int jobs = 1; jobs <= 2; jobs++) {
		/* --no-verify: nothing hashed, the early stop is not drained, still no error */
		init_dbl(&d, 4096);
		d.stop_after = 8192;
		o.verify_record = false;
		o.hash_file = false;
		o.pool = pool_for(jobs);
		a = new_art(file);
		CHECK_EQ_INT(ws_zip_scan_file(a, file, &o), 0);
		CHECK(!a->record.checked, "is false");
		CHECK_EQ_STR(a->sha256, "");
		CHECK(a->bytes_inflated < wp.elfn, "no-verify drained the rest: %llu", (unsigned long long)a->bytes_inflated);
		ws_artifact_free(a);
		/* the scanner stopping early does not stop verification */
		init_dbl(&d, 4096);
		d.stop_after = 8192;
		o.verify_record = true;
		a = new_art(file);
		CHECK_EQ_INT(ws_zip_scan_file(a, file, &o), 0);
		CHECK(a->record.checked && a->record.ok, "is false");
		CHECK(a->bytes_inflated > 2 * wp.elfn, "verification read everything: %llu", (unsigned long long)a->bytes_inflated);
		ws_artifact_free(a);
	}
	unlink(file);
	rmdir(dir);
	a = new_art("/nonexistent/x.whl");
	CHECK_EQ_INT(ws_zip_scan_file(a, "/nonexistent/x.whl", &o), -1);
	CHECK(a->nerrors >= 1, "is false");
	ws_artifact_free(a);
	free_parts(&w, &wp);
}

/* RECORD itself edited (the tamper tests change a member instead): a digest that differs
 * from the member's in its first or only in its last character is a mismatch, so is a size
 * one larger than the member, and a row hashed with md5 (wheels may not use it); the
 * untouched rows still match. */
static void test_record_digest_edit(void)
{
	const char *py = "print('hello')\n", *other = "x = 2\n";
	static const char *const want[] = { "RECORD hash mismatch for 'demo/__init__.py'",
		"RECORD hash mismatch for 'demo/__init__.py'",
		"RECORD size mismatch for 'demo/__init__.py' (RECORD says 16, member has 15)",
		"RECORD gives 'demo/__init__.py' a hash wheels may not use (md5)" };
	for (int where = 0; where < 4; where++) {
		static char rec[4096];
		struct zw w;
		memset(&w, 0, sizeof w);
		rec[0] = '\0';
		zw_str(&w, "demo/__init__.py", py, true);
		record_row(rec, sizeof rec, "demo/__init__.py", py, strlen(py));
		char *d = strstr(rec, "sha256=") + 7, *end = strchr(d, ',');
		if (where < 2) {
			char *c = where ? end - 1 : d;
			*c = *c == 'A' ? 'B' : 'A';
		} else if (where == 2) {
			snprintf(end, 8, ",%zu\n", strlen(py) + 1);
		} else {
			memcpy(d - 7, "md5=AA", 6);           /* same length: "sha256=" -> "md5=AA" + digest */
			memmove(d - 1, d, strlen(d) + 1);
		}
		zw_str(&w, "demo/other.py", other, true);
		record_row(rec, sizeof rec, "demo/other.py", other, strlen(other));
		zw_str(&w, "demo-1.0+cu124.dist-info/METADATA", METADATA, true);
		record_row(rec, sizeof rec, "demo-1.0+cu124.dist-info/METADATA", METADATA, strlen(METADATA));
		zw_str(&w, "demo-1.0+cu124.dist-info/WHEEL", WHEELF, false);
		record_row(rec, sizeof rec, "demo-1.0+cu124.dist-info/WHEEL", WHEELF, strlen(WHEELF));
		strcat(rec, "demo-1.0+cu124.dist-info/RECORD,,\n");
		zw_str(&w, "demo-1.0+cu124.dist-info/RECORD", rec, true);
		zw_finish(&w);
		struct dbl dd;
		struct ws_zip_opts o;
		ws_zip_opts_default(&o);
		o.scan_member = dbl_scan;
		o.scan_member_ctx = &dd;
		init_dbl(&dd, 100000);
		struct ws_artifact *a = new_art("t.whl");
		CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
		CHECK(a->record.checked && !a->record.ok, "edit %d accepted", where);
		CHECK_EQ_INT(a->record.nmismatched, 1);
		if (a->record.nmismatched)
			CHECK_EQ_STR(a->record.mismatched[0], "demo/__init__.py");
		CHECK(has_error(a, want[where]), "edit %d: no error '%s'", where, want[where]);
		ws_artifact_free(a);
		free(w.p);
	}
}

static void test_record_problems(void)
{
	struct zw w;
	struct wheel_parts wp;
	struct dbl d;
	struct ws_zip_opts o;
	ws_zip_opts_default(&o);
	o.scan_member = dbl_scan;
	o.scan_member_ctx = &d;

	build_wheel(&w, &wp, true, false, false);
	for (int jobs = 1; jobs <= 3; jobs += 2) {
		init_dbl(&d, 100000);
		o.pool = pool_for(jobs);
		struct ws_artifact *a = new_art("t.whl");
		CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
		CHECK(a->record.checked && !a->record.ok, "is false");
		CHECK_EQ_INT(a->record.nmismatched, 1);
		if (a->record.nmismatched)
			CHECK_EQ_STR(a->record.mismatched[0], "demo/lib/libdemo.so.1");
		CHECK(has_error(a, "RECORD hash mismatch for 'demo/lib/libdemo.so.1'"), "is false");
		CHECK_EQ_INT(a->record.nmissing + a->record.nunlisted, 0);
		ws_artifact_free(a);
	}
	free_parts(&w, &wp);

	build_wheel(&w, &wp, false, true, true);
	init_dbl(&d, 100000);
	o.pool = pool_for(1);
	struct ws_artifact *a = new_art("t.whl");
	int rc = ws_zip_scan_memory(a, w.p, w.len, &o);
	CHECK_EQ_INT(rc, -1);                        /* the escaping name is an error */
	CHECK(has_error(a, "member name '../evil.so' escapes the archive"), "is false");
	CHECK(has_error(a, "member name 'demo/../../evil2.so' escapes the archive"), "nested .. not caught");
	CHECK(find_seen(&d, "../evil.so") != NULL, "escaping member still scanned");
	CHECK(!a->record.ok, "is false");
	CHECK_EQ_INT(a->record.nmismatched, 0);
	CHECK_EQ_INT(a->record.nmissing, 1);
	CHECK_EQ_INT(a->record.nunlisted, 1);
	if (a->record.nmissing && a->record.nunlisted) {
		CHECK_EQ_STR(a->record.missing[0], "demo/gone.py");
		CHECK_EQ_STR(a->record.unlisted[0], "demo/extra.py");
	}
	ws_artifact_free(a);
	free_parts(&w, &wp);
}

static void test_corrupt(void)
{
	struct dbl d;
	struct ws_zip_opts o;
	ws_zip_opts_default(&o);
	o.scan_member = dbl_scan;
	o.scan_member_ctx = &d;
	init_dbl(&d, 65536);
	const char *text = "hello, stored world, this member is stored without compression\n";

	/* a flipped byte in a stored member: the CRC catches it */
	struct zw w = { 0 };
	zw_str(&w, "a.txt", text, false);
	zw_finish(&w);
	uint8_t *hit = memmem(w.p, w.len, "stored world", 12);
	hit[0] ^= 0x20;
	struct ws_artifact *a = new_art("c.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	CHECK(has_error(a, "member 'a.txt' fails its crc-32 check"), "is false");
	CHECK_EQ_STR(ws_artifact_type_name(a->type), "zip");
	CHECK(a->wheel == NULL && !a->record.checked, "is false");
	ws_artifact_free(a);

	/* the same zip intact is clean */
	hit[0] ^= 0x20;
	a = new_art("c.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), 0);
	CHECK_EQ_INT(a->bytes_inflated, strlen(text));
	ws_artifact_free(a);

	/* truncated: half the file */
	a = new_art("c.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len / 2, &o), -1);
	CHECK(a->nerrors >= 1, "is false");
	ws_artifact_free(a);
	/* no central directory: cut at its start */
	uint8_t *cd = memmem(w.p, w.len, "PK\1\2", 4);
	a = new_art("c.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, (size_t)(cd - w.p), &o), -1);
	CHECK(has_error(a, "truncated or incomplete ("), "is false");
	CHECK(has_error(a, "; the zip directory is missing)"), "is false");
	CHECK(!strcmp(ws_artifact_type_name(a->type), "zip"), "type %s", ws_artifact_type_name(a->type));
	ws_artifact_free(a);
	free(w.p);

	/* a deflated member with damaged data: corrupt deflate or a CRC mismatch, never silence */
	uint8_t *elf = fake_elf(500000, 9);
	memset(&w, 0, sizeof w);
	zw_add(&w, "lib/x.so", elf, 500000, true);
	zw_finish(&w);
	for (size_t off = 1000; off < 200000; off += 37000) {
		w.p[30 + 8 + off] ^= 0x55;
		a = new_art("d.zip");
		init_dbl(&d, 65536);
		CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
		CHECK(a->nerrors >= 1, "is false");
		ws_artifact_free(a);
		w.p[30 + 8 + off] ^= 0x55;
	}
	/* declared size smaller than the data: stopped at the declared size */
	uint8_t *cdp = memmem(w.p, w.len, "PK\1\2", 4);
	le32(w.p + 22, 1000);
	le32(cdp + 24, 1000);
	a = new_art("d.zip");
	init_dbl(&d, 65536);
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	CHECK(has_error(a, "inflates past its declared size of 1000 bytes"), "is false");
	ws_artifact_free(a);
	free(w.p);

	/* an unknown compression method */
	memset(&w, 0, sizeof w);
	zw_raw(&w, "weird.bin", 97, (const uint8_t *)"abcdef", 6, 0, 6);
	zw_finish(&w);
	a = new_art("m.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	CHECK(has_error(a, "weird.bin"), "is false");
	ws_artifact_free(a);
	free(w.p);

	/* an empty zip is fine */
	memset(&w, 0, sizeof w);
	zw_finish(&w);
	a = new_art("e.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), 0);
	CHECK_EQ_STR(ws_artifact_type_name(a->type), "zip");
	CHECK_EQ_INT(a->members_scanned, 0);
	ws_artifact_free(a);
	free(w.p);
	free(elf);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_bomb(void)
{
	/* 100 MiB of zeros deflate to ~100 KiB: streamed through zlib so the test stays small */
	const size_t total = 100u << 20, piece = 1u << 20;
	uint8_t *zeros = calloc(1, piece), *comp = malloc(1u << 20);
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	zs.next_out = comp;
	zs.avail_out = 1u << 20;
	uint32_t crc = 0;
	for (size_t done = 0; done < total; done += piece) {
		zs.next_in = zeros;
		zs.avail_in = (uInt)piece;
		deflate(&zs, done + piece == total ? Z_FINISH : Z_NO_FLUSH);
		crc = (uint32_t)crc32(crc, zeros, (uInt)piece);
	}
	size_t cl = zs.total_out;
	deflateEnd(&zs);
	struct zw w = { 0 };
	zw_raw(&w, "bomb.bin", 8, comp, cl, crc, (uint32_t)total);
	zw_raw(&w, "bomb2.bin", 8, comp, cl, crc, (uint32_t)total);
	zw_finish(&w);

	struct ws_limits lim;
	ws_limits_default(&lim);
	lim.max_member_bytes = 10u << 20;
	struct ws_scan_opts so = { .lim = &lim };
	struct ws_zip_opts o;
	ws_zip_opts_default(&o);
	o.scan = &so;
	struct ws_artifact *a = new_art("bomb.zip");
	double t0 = now();
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	double t = now() - t0;
	CHECK(has_error(a, "member 'bomb.bin' declares 104857600 bytes, over the 10 MiB limit"), "is false");
	CHECK(a->bytes_inflated == 0, "inflated %llu", (unsigned long long)a->bytes_inflated);
	CHECK(t < 2.0, "took %.2f s", t);
	ws_artifact_free(a);

	/* a lying header: declared 5 MiB, the data holds 100 MiB */
	uint8_t *cdp = memmem(w.p, w.len, "PK\1\2", 4);
	le32(w.p + 22, 5u << 20);
	le32(cdp + 24, 5u << 20);
	a = new_art("bomb.zip");
	t0 = now();
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	t = now() - t0;
	CHECK(has_error(a, "member 'bomb.bin' inflates past its declared size of 5 MiB"), "is false");
	CHECK(a->bytes_inflated <= 5u << 20, "inflated %llu", (unsigned long long)a->bytes_inflated);
	CHECK(t < 2.0, "took %.2f s", t);
	ws_artifact_free(a);

	/* the total cap: two honest 100 MiB members against a 150 MiB total */
	le32(w.p + 22, (uint32_t)total);
	le32(cdp + 24, (uint32_t)total);
	lim.max_member_bytes = 1u << 30;
	lim.max_total_bytes = 150u << 20;
	for (int jobs = 1; jobs <= 2; jobs++) {
		o.pool = pool_for(jobs);
		a = new_art("bomb.zip");
		CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
		CHECK(has_error(a, "archive inflates past the 150 MiB total limit"), "is false");
		CHECK(a->bytes_inflated <= (150u << 20) + (1u << 20), "inflated %llu", (unsigned long long)a->bytes_inflated);
		ws_artifact_free(a);
	}
	/* too many members */
	lim.max_members = 1;
	a = new_art("bomb.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	CHECK(has_error(a, "more than the limit of 1"), "is false");
	ws_artifact_free(a);
	free(w.p);
	free(zeros);
	free(comp);
}

/* With the real scanner: a zip of fixtures reads the same as the fixtures themselves. */
static void test_real_scanner(void)
{
	const char *fx[] = { "testdata/fixtures/multi.so", "testdata/fixtures/sm_90.cubin",
			     "testdata/fixtures/arch-plain.fatbin", "testdata/fixtures/k_sm90.ptx" };
	struct zw w = { 0 };
	struct ws_artifact *ref = new_art("ref");
	struct ws_limits lim;
	ws_limits_default(&lim);
	struct ws_scan_opts so = { .lim = &lim, .want_kernels = true };
	int nfx = 0;
	for (int i = 0; i < 4; i++) {
		size_t n;
		uint8_t *p = slurp(fx[i], &n);
		if (!p)
			continue;
		nfx++;
		zw_add(&w, fx[i] + 18, p, n, i % 2 == 0);
		ws_scan_memory(ref, fx[i] + 18, p, n, &so);
		free(p);
	}
	zw_str(&w, "README.txt", "no device code here\n", true);
	zw_finish(&w);
	/* The fixtures are committed: a missing one is a broken checkout, not a skip. */
	CHECK(nfx >= 4, "fixtures missing: only %d of the real-scanner fixtures read", nfx);
	if (nfx >= 4) {
		for (int jobs = 1; jobs <= 2; jobs++) {
			struct ws_zip_opts o;
			ws_zip_opts_default(&o);
			o.scan = &so;
			o.pool = pool_for(jobs);
			struct ws_artifact *a = new_art("fx.zip");
			int rc = ws_zip_scan_memory(a, w.p, w.len, &o);
			CHECK_EQ_INT(rc, 0);
			dump_errors(a);
			CHECK_EQ_INT(a->members_scanned, 4);
			CHECK_EQ_INT(a->nobjects, ref->nobjects);
			for (uint32_t k = 0; k < a->nobjects && k < ref->nobjects; k++) {
				CHECK_EQ_STR(a->objects[k].member, ref->objects[k].member);
				CHECK_EQ_INT(a->objects[k].nfatbins, ref->objects[k].nfatbins);
				uint32_t ea = 0, er = 0;
				for (uint32_t f = 0; f < a->objects[k].nfatbins; f++)
					ea += a->objects[k].fatbins[f].nentries;
				for (uint32_t f = 0; f < ref->objects[k].nfatbins; f++)
					er += ref->objects[k].fatbins[f].nentries;
				CHECK_EQ_INT(ea, er);
				CHECK_EQ_INT(a->objects[k].kernels.n, ref->objects[k].kernels.n);
			}
			CHECK(ref->nobjects >= 4 && ref->objects[0].nfatbins >= 1, "fixtures decode to something");
			ws_artifact_free(a);
		}
	}
	ws_artifact_free(ref);
	free(w.p);

	/* the project's fixture wheels */
	struct { const char *path; int rc; bool ok; size_t mism, miss, unl; } wh[] = {
		{ "testdata/fixtures/example.whl", 0, true, 0, 0, 0 },
		{ "testdata/fixtures/tampered.whl", -1, false, 1, 0, 0 },
		{ "testdata/fixtures/record-missing.whl", 0, false, 0, 1, 0 },
		{ "testdata/fixtures/record-unlisted.whl", 0, false, 0, 0, 1 },
	};
	for (size_t i = 0; i < sizeof wh / sizeof *wh; i++) {
		if (access(wh[i].path, R_OK) != 0)
			continue;
		struct ws_zip_opts o;
		ws_zip_opts_default(&o);
		o.scan = &so;
		struct ws_artifact *a = new_art(wh[i].path);
		int rc = ws_zip_scan_file(a, wh[i].path, &o);
		CHECK(rc == wh[i].rc, "%s: rc %d", wh[i].path, rc);
		CHECK_EQ_STR(ws_artifact_type_name(a->type), "wheel");
		CHECK(a->record.checked && a->record.ok == wh[i].ok, "%s: record ok %d", wh[i].path, a->record.ok);
		CHECK(a->record.nmismatched == wh[i].mism && a->record.nmissing == wh[i].miss &&
		      a->record.nunlisted == wh[i].unl, "%s: %zu/%zu/%zu", wh[i].path, a->record.nmismatched,
		      a->record.nmissing, a->record.nunlisted);
		CHECK(a->members_scanned >= 1, "%s: nothing scanned", wh[i].path);
		CHECK(strlen(a->sha256) == 64, "is false");
		ws_artifact_free(a);
	}
}

/* A directory entry alone, for a member whose local header is already in w->p at off. */
static void zw_cd_only(struct zw *w, const char *name, unsigned method, size_t clen, uint32_t crc, uint32_t usize,
		       uint32_t off)
{
	uint8_t c[46] = { 'P', 'K', 1, 2 };
	size_t nl = strlen(name);
	le16(c + 4, 20); le16(c + 6, 20); le16(c + 10, method); le32(c + 16, crc); le32(c + 20, (uint32_t)clen);
	le32(c + 24, usize); le16(c + 28, (unsigned)nl); le32(c + 42, off);
	put(&w->cd, &w->cdlen, &w->cdcap, c, sizeof c);
	put(&w->cd, &w->cdlen, &w->cdcap, name, nl);
	w->n++;
}

/* Members whose data overlap (a member quoting the next one's local header, as the
 * "better zip bomb" does) are refused before anything is inflated; duplicate names are
 * named; an archive that cannot be opened keeps its type. */
static void test_layout(void)
{
	struct ws_zip_opts o;
	ws_zip_opts_default(&o);
	o.verify_record = false;
	/* b.so's header and data, quoted whole as a.so's stored data */
	struct zw inner = { 0 };
	uint8_t *elf = malloc(4096);           /* no object: nothing to judge, only to read */
	memset(elf, 'x', 4096);
	zw_add(&inner, "b.so", elf, 4096, false);
	size_t qlen = inner.len;
	struct zw w = { 0 };
	zw_raw(&w, "a.so", 0, inner.p, qlen, (uint32_t)crc32(0, inner.p, (uInt)qlen), (uint32_t)qlen);
	zw_cd_only(&w, "b.so", 0, 4096, (uint32_t)crc32(0, elf, 4096), 4096, 30 + 4);
	zw_finish(&w);
	struct ws_artifact *a = new_art("quoted.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	CHECK(has_error(a, "member 'a.so' overlaps member 'b.so'"), "is false");
	CHECK(a->bytes_inflated == 0 && a->members_scanned == 0, "read %llu bytes", (unsigned long long)a->bytes_inflated);
	CHECK(!strcmp(ws_artifact_type_name(a->type), "zip"), "type %s", ws_artifact_type_name(a->type));
	ws_artifact_free(a);
	free(w.p);
	free(inner.p);
	free(inner.cd);

	/* the same two members side by side: nothing overlaps */
	memset(&w, 0, sizeof w);
	zw_add(&w, "a.so", elf, 4096, false);
	zw_add(&w, "b.so", elf, 4096, false);
	zw_finish(&w);
	a = new_art("plain.zip");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), 0);
	CHECK(a->nerrors == 0, "%u errors", (unsigned)a->nerrors);
	ws_artifact_free(a);
	free(w.p);

	/* one name twice: libzip refuses it as "File already exists" */
	memset(&w, 0, sizeof w);
	zw_str(&w, "pkg/x.so", "one", false);
	zw_str(&w, "pkg/x.so", "two", false);
	zw_finish(&w);
	a = new_art("dup-1.0-py3-none-any.whl");
	CHECK_EQ_INT(ws_zip_scan_memory(a, w.p, w.len, &o), -1);
	CHECK(has_error(a, "duplicate member name 'pkg/x.so'"), "is false");
	CHECK(!has_error(a, "already exists"), "is false");
	CHECK(!strcmp(ws_artifact_type_name(a->type), "wheel"), "type %s", ws_artifact_type_name(a->type));
	ws_artifact_free(a);
	free(w.p);
	free(elf);
}

int main(void)
{
	test_inflate();
	test_digest();
	test_hash_steps();
	test_good_wheel();
	test_record_problems();
	test_record_digest_edit();
	test_corrupt();
	test_bomb();
	test_layout();
	test_real_scanner();
	return ws_test_done();
}
