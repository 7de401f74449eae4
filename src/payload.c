/* payload.c - LZ4 and zstd entry payloads, decoded with hard output caps.
 *
 * The compressed stream is payload[0 : compressed_size], followed by zero
 * padding to payload_size. LZ4 is a raw block (no frame, no size prefix);
 * zstd is a standard frame whose content size equals uncompressed_size.
 * Both verified on every entry of the CUDA 13.0 lib64 (fatbin-format.md (d)).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <lz4.h>
#include <zstd.h>

#include "ws_decode.h"
#include "ws_util.h"

/* The most either format can expand: LZ4 at most ~255:1; a zstd block of
 * 128 KiB can be one 4-byte RLE block, so ~32768:1 (plus frame overhead). A
 * claim beyond that is a lie, refused before anything is allocated. */
#define LZ4_MAX_RATIO 255u
#define ZSTD_MAX_RATIO 32768u

/* One zstd context per thread, kept across entries: creating one per entry costs more
 * than decoding a small cubin. Freed when the thread ends. */
static pthread_key_t dctx_key;
static pthread_once_t dctx_once = PTHREAD_ONCE_INIT;
static void dctx_free(void *p) { ZSTD_freeDCtx(p); }
static void dctx_init(void) { pthread_key_create(&dctx_key, dctx_free); }

static ZSTD_DCtx *thread_dctx(void)
{
	pthread_once(&dctx_once, dctx_init);
	ZSTD_DCtx *d = pthread_getspecific(dctx_key);
	if (!d && (d = ZSTD_createDCtx()) != NULL && pthread_setspecific(dctx_key, d) != 0) {
		ZSTD_freeDCtx(d);
		d = NULL;
	}
	return d;
}

/* Checks the header's compressed and decompressed sizes before anything is allocated. */
static int check_claim(const struct ws_entry *e, size_t n, const struct ws_limits *lim,
		       char *err, size_t errlen)
{
	uint64_t csz = e->compressed_size, usz = e->uncompressed_size, bound;
	if (csz == 0 || csz > n)
		return ws_fmt(err, errlen, "compressed size %llu exceeds the payload of %zu bytes",
			      (unsigned long long)csz, n), -1;
	if (usz == 0)
		return ws_fmt(err, errlen, "compressed entry declares no decompressed size"), -1;
	if (usz > lim->max_entry_bytes)
		return ws_fmt(err, errlen, "declared decompressed size %llu exceeds the %llu-byte entry limit",
			      (unsigned long long)usz, (unsigned long long)lim->max_entry_bytes), -1;
	unsigned ratio = e->compression == WS_COMP_LZ4 ? LZ4_MAX_RATIO : ZSTD_MAX_RATIO;
	if (!ws_mul_u64(csz, ratio, &bound) || !ws_add_u64(bound, 1024, &bound) || usz > bound)
		return ws_fmt(err, errlen, "declared decompressed size %llu is impossible for %llu %s bytes",
			      (unsigned long long)usz, (unsigned long long)csz,
			      ws_compression_name(e->compression)), -1;
	if (usz > INT32_MAX && e->compression == WS_COMP_LZ4)
		return ws_fmt(err, errlen, "LZ4 entry larger than 2 GiB"), -1;
	return 0;
}

int ws_payload_decode(const struct ws_entry *e, const uint8_t *p, size_t n,
		      const struct ws_limits *lim, const uint8_t **out, size_t *outlen,
		      bool *owned, char *err, size_t errlen)
{
	*owned = false;
	if (e->compression == WS_COMP_NONE) {
		*out = p;
		*outlen = n;
		return 0;
	}
	if (check_claim(e, n, lim, err, errlen) < 0)
		return -1;
	uint64_t csz = e->compressed_size, usz = e->uncompressed_size;
	uint8_t *buf = ws_malloc((size_t)usz);
	if (!buf)
		return ws_fmt(err, errlen, "out of memory for %llu decompressed bytes",
			      (unsigned long long)usz), -1;
	if (e->compression == WS_COMP_LZ4) {
		int r = LZ4_decompress_safe((const char *)p, (char *)buf, (int)csz, (int)usz);
		if (r < 0 || (uint64_t)r != usz) {
			free(buf);
			return r < 0 ? (ws_fmt(err, errlen, "corrupt LZ4 data"), -1)
				     : (ws_fmt(err, errlen, "LZ4 data decodes to %d bytes, header says %llu",
					       r, (unsigned long long)usz), -1);
		}
	} else {
		unsigned long long fcs = ZSTD_getFrameContentSize(p, (size_t)csz);
		if (fcs == ZSTD_CONTENTSIZE_ERROR) {
			free(buf);
			return ws_fmt(err, errlen, "corrupt zstd frame header"), -1;
		}
		if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usz) {
			free(buf);
			return ws_fmt(err, errlen, "zstd frame holds %llu bytes, header says %llu",
				      fcs, (unsigned long long)usz), -1;
		}
		ZSTD_DCtx *dctx = thread_dctx();
		size_t r = dctx ? ZSTD_decompressDCtx(dctx, buf, (size_t)usz, p, (size_t)csz)
				: ZSTD_decompress(buf, (size_t)usz, p, (size_t)csz);
		if (ZSTD_isError(r) || r != usz) {
			free(buf);
			return ZSTD_isError(r) ? (ws_fmt(err, errlen, "corrupt zstd data: %s",
							 ZSTD_getErrorName(r)), -1)
					       : (ws_fmt(err, errlen, "zstd data decodes to %zu bytes, header says %llu",
							 r, (unsigned long long)usz), -1);
		}
	}
	*out = buf;
	*outlen = (size_t)usz;
	*owned = true;
	return 0;
}

int ws_payload_stream(const struct ws_entry *e, const uint8_t *p, size_t n, const struct ws_limits *lim,
		      ws_chunk_fn sink, void *ctx, char *err, size_t errlen)
{
	if (e->compression != WS_COMP_ZSTD)
		return ws_fmt(err, errlen, "internal: only zstd entries are streamed"), -1;
	if (check_claim(e, n, lim, err, errlen) < 0)
		return -1;
	ZSTD_DCtx *d = thread_dctx();
	uint8_t *buf = ws_malloc(WS_STREAM_CHUNK);
	if (!d || !buf) {
		free(buf);
		return ws_fmt(err, errlen, "out of memory for a zstd stream"), -1;
	}
	ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
	ZSTD_inBuffer in = {p, e->compressed_size, 0};
	uint64_t total = 0;
	int rc = 0;
	size_t r = 1;
	while (r != 0) {
		ZSTD_outBuffer out = {buf, WS_STREAM_CHUNK, 0};
		r = ZSTD_decompressStream(d, &out, &in);
		if (ZSTD_isError(r)) {
			rc = (ws_fmt(err, errlen, "corrupt zstd data: %s", ZSTD_getErrorName(r)), -1);
			break;
		}
		total += out.pos;
		if (total > e->uncompressed_size) {
			rc = (ws_fmt(err, errlen, "zstd data decodes past the %llu bytes the header says",
				    (unsigned long long)e->uncompressed_size), -1);
			break;
		}
		if (out.pos && sink(ctx, buf, out.pos) < 0) {
			rc = -1;
			err[0] = '\0';                     /* the sink says why */
			break;
		}
		if (r != 0 && in.pos == in.size && out.pos == 0) {
			rc = (ws_fmt(err, errlen, "zstd data ends early"), -1);
			break;
		}
	}
	if (rc == 0 && total != e->uncompressed_size)
		rc = (ws_fmt(err, errlen, "zstd data decodes to %llu bytes, header says %llu",
			    (unsigned long long)total, (unsigned long long)e->uncompressed_size), -1);
	free(buf);
	return rc;
}
