/* fuzz_archive.c - libFuzzer target: the libarchive source and the member driver
 * (ws_archive_open_reader + ws_drive_source + the package checks): tar in every filter,
 * .deb, .conda (zip), nested archives one level deep, with small limits. The format is
 * chosen as wheelscan chooses it, by content (a zip is read as a .conda, the superset);
 * the input is handed over in chunks of 1 to 64 KiB bytes, varied by its length. */
#include "fuzz.h"
#include "ws_image.h"
#include "ws_imgcheck.h"
#include "ws_pkgcheck.h"
#include "ws_source.h"

struct mem {
	const uint8_t *p;
	size_t n, pos, chunk;
};

static long mem_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct mem *m = ctx;
	(void)err;
	size_t k = m->n - m->pos;
	if (k > n)
		k = n;
	if (k > m->chunk)
		k = m->chunk;
	memcpy(buf, m->p + m->pos, k);
	m->pos += k;
	return (long)k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_limits lim;
	fuzz_archive_limits(&lim);
	struct ws_scan_opts so = {.lim = &lim, .want_kernels = true};
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	enum ws_pack kind = ws_pack_sniff(p, size < WS_SNIFF_BYTES ? size : WS_SNIFF_BYTES);
	if (kind == WS_PACK_NONE || kind == WS_PACK_COMPRESSED)
		kind = WS_PACK_TAR;
	else if (kind == WS_PACK_ZIP)
		kind = WS_PACK_CONDA;
	static const size_t chunks[] = {1, 7, 512, 4096, 65536};
	struct mem m = {.p = p, .n = size, .chunk = chunks[size % 5]};
	struct ws_reader r = {.read = mem_read, .ctx = &m};
	struct ws_artifact *a = fuzz_artifact();
	struct ws_drive d;
	ws_drive_init(&d, a, &so);
	if (kind == WS_PACK_TAR)                    /* a tarball may be a container image */
		ws_drive_add_check(&d, ws_imgcheck_check(ws_imgcheck_new()));
	ws_drive_add_check(&d, ws_pkgcheck_new(kind, size & 1 ? "fuzz.tar.bz2" : "fuzz.tar"));
	struct ws_err e = {0};
	struct ws_source *src = ws_archive_open_reader(&r, kind, &e);
	if (src) {
		ws_drive_source(&d, src, "", 1);
		ws_source_close(src);
	} else if (!e.code) {
		abort();                            /* a failed open always says why */
	}
	ws_drive_finish(&d);
	if (d.total > lim.max_total_bytes + (1u << 20) || a->bytes_inflated > lim.max_total_bytes + (1u << 20))
		abort();                            /* the limits must hold (one read past them at most) */
	ws_artifact_free(a);
	fuzz_ro_free(&ro);
	return 0;
}
