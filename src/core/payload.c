/* payload.c - LZ4 and zstd entry payloads, decoded with hard output caps.
 *
 * The compressed stream is payload[0 : compressed_size], followed by zero
 * padding to payload_size. LZ4 is a raw block (no frame, no size prefix);
 * zstd is a standard frame whose content size equals uncompressed_size.
 * Both verified on every entry of the CUDA 13.0 lib64 (doc/fatbin-format.md (d)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <lz4.h>
#define ZSTD_STATIC_LINKING_ONLY        /* the buffer-less decoder: stable since zstd 0.6 */
#include <zstd.h>

#include "ws_decode.h"
#include "ws_util.h"

/* The most either format can expand: LZ4 at most ~255:1; a zstd block of
 * 128 KiB can be one 4-byte RLE block, so ~32768:1 (plus frame overhead). A
 * claim beyond that is a lie, refused before anything is allocated. */
#define LZ4_MAX_RATIO 255u
#define ZSTD_MAX_RATIO 32768u
/* The largest window libzstd's stream decoder accepts by default (ZSTD_WINDOWLOG_LIMIT_DEFAULT). */
#define ZSTD_STREAM_WINDOW_MAX ((uint64_t)1 << 27)

/* Checks the header's compressed and decompressed sizes before anything is allocated. */
int ws_payload_check(const struct ws_entry *e, size_t n, const struct ws_limits *lim,
		       struct ws_err *err)
{
	uint64_t csz = e->compressed_size, usz = e->uncompressed_size, bound;
	if (csz == 0 || csz > n)
		return ws_err_set(err, WS_E_FORMAT, "compressed size %llu exceeds the payload of %zu bytes",
			      (unsigned long long)csz, n), -1;
	if (usz == 0)
		return ws_err_set(err, WS_E_FORMAT, "compressed entry declares no decompressed size"), -1;
	if (usz > lim->max_entry_bytes)
		return ws_err_set(err, WS_E_LIMIT, "declared decompressed size %llu exceeds the %llu-byte entry limit",
			      (unsigned long long)usz, (unsigned long long)lim->max_entry_bytes), -1;
	unsigned ratio = e->compression == WS_COMP_LZ4 ? LZ4_MAX_RATIO : ZSTD_MAX_RATIO;
	if (!ws_mul_u64(csz, ratio, &bound) || !ws_add_u64(bound, 1024, &bound) || usz > bound)
		return ws_err_set(err, WS_E_FORMAT, "declared decompressed size %llu is impossible for %llu %s bytes",
			      (unsigned long long)usz, (unsigned long long)csz,
			      ws_compression_name(e->compression)), -1;
	if (usz > INT32_MAX && e->compression == WS_COMP_LZ4)
		return ws_err_set(err, WS_E_LIMIT, "LZ4 entry larger than 2 GiB"), -1;
	return 0;
}

int ws_payload_decode(struct ws_decoder *dc, const struct ws_entry *e, const uint8_t *p, size_t n,
		      const struct ws_limits *lim, const uint8_t **out, size_t *outlen,
		      struct ws_err *err)
{
	if (e->compression == WS_COMP_NONE) {
		*out = p;
		*outlen = n;
		return 0;
	}
	if (ws_payload_check(e, n, lim, err) < 0)
		return -1;
	uint64_t csz = e->compressed_size, usz = e->uncompressed_size;
	uint8_t *buf = ws_decoder_buf(dc, WS_DBUF_DECODE, (size_t)usz);
	if (!buf)
		return ws_err_set(err, WS_E_MEMORY, "out of memory for %llu decompressed bytes",
			      (unsigned long long)usz), -1;
	if (e->compression == WS_COMP_LZ4) {
		int r = LZ4_decompress_safe((const char *)p, (char *)buf, (int)csz, (int)usz);
		if (r < 0 || (uint64_t)r != usz) {
			return r < 0 ? (ws_err_set(err, WS_E_FORMAT, "corrupt LZ4 data"), -1)
				     : (ws_err_set(err, WS_E_FORMAT, "LZ4 data decodes to %d bytes, header says %llu",
					       r, (unsigned long long)usz), -1);
		}
	} else {
		unsigned long long fcs = ZSTD_getFrameContentSize(p, (size_t)csz);
		if (fcs == ZSTD_CONTENTSIZE_ERROR) {
			return ws_err_set(err, WS_E_FORMAT, "corrupt zstd frame header"), -1;
		}
		if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usz) {
			return ws_err_set(err, WS_E_FORMAT, "zstd frame holds %llu bytes, header says %llu",
				      fcs, (unsigned long long)usz), -1;
		}
		ZSTD_DCtx *dctx = ws_decoder_zstd(dc);
		size_t r = dctx ? ZSTD_decompressDCtx(dctx, buf, (size_t)usz, p, (size_t)csz)
				: ZSTD_decompress(buf, (size_t)usz, p, (size_t)csz);
		if (ZSTD_isError(r) || r != usz) {
			return ZSTD_isError(r) ? (ws_err_set(err, WS_E_FORMAT, "corrupt zstd data: %s",
							 ZSTD_getErrorName(r)), -1)
					       : (ws_err_set(err, WS_E_FORMAT, "zstd data decodes to %zu bytes, header says %llu",
							 r, (unsigned long long)usz), -1);
		}
	}
	*out = buf;
	*outlen = (size_t)usz;
	return 0;
}

/* The window a zstd frame's decoder must keep (RFC 8878 3.1.1.1): the whole content for a
 * single-segment frame, else what the window descriptor says; 0 when p is no frame. */
static uint64_t zstd_window(const uint8_t *p, size_t n, uint64_t content)
{
	if (n < 6 || ws_le32(p) != 0xFD2FB528u)
		return 0;
	if (p[4] & 0x20)
		return content;
	uint64_t base = (uint64_t)1 << (10 + (p[5] >> 3));
	return base + base / 8 * (p[5] & 7);
}

bool ws_payload_stream_saves_memory(const struct ws_entry *e, const uint8_t *p, size_t n)
{
	if (e->compression != WS_COMP_ZSTD)
		return true;
	size_t csz = e->compressed_size < n ? e->compressed_size : n;
	unsigned long long fcs = ZSTD_getFrameContentSize(p, csz);
	uint64_t window = zstd_window(p, csz, fcs);
	/* a frame the stream decoder refuses (a wrong size, a window past its limit) stays
	 * the stream's to report */
	return fcs != e->uncompressed_size || window > ZSTD_STREAM_WINDOW_MAX || window < fcs;
}

/* A zstd frame decoded block by block into a ring the decoder owns, each block handed to
 * the sink where it lies: libzstd's stream decoder would decode into a ring of its own
 * of the same size (the window and one block, or the whole content if smaller) and copy
 * every block out, so this holds no more memory than it, copies nothing, and shares the
 * decoder's buffer with whole-entry decoding instead of keeping a second one. The ring
 * wraps as libzstd's own does (ZSTD_decompressStream's flush stage). */
static int zstd_ring(struct ws_decoder *dc, ZSTD_DCtx *d, const ZSTD_frameHeader *fh, const struct ws_entry *e,
		     const uint8_t *p, ws_chunk_fn sink, void *ctx, struct ws_err *serr, struct ws_err *err)
{
	size_t cap = ZSTD_decodingBufferSize_min(fh->windowSize, fh->frameContentSize);
	if (ZSTD_isError(cap))
		return ws_err_set(err, WS_E_FORMAT, "corrupt zstd data: %s", ZSTD_getErrorName(cap)), -1;
	/* never more than the entry says it holds and a block: a frame that claims a larger
	 * window or content fails at the entry's size before the ring could wrap */
	if (cap > e->uncompressed_size + fh->blockSizeMax)
		cap = (size_t)e->uncompressed_size + fh->blockSizeMax;
	uint8_t *ring = ws_decoder_buf(dc, WS_DBUF_DECODE, cap);
	if (!ring)
		return ws_err_set(err, WS_E_MEMORY, "out of memory for a zstd stream"), -1;
	size_t r = ZSTD_decompressBegin(d);
	if (ZSTD_isError(r))
		return ws_err_set(err, WS_E_FORMAT, "corrupt zstd data: %s", ZSTD_getErrorName(r)), -1;
	bool wraps = fh->frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN || cap < fh->frameContentSize;
	size_t in = 0, pos = 0, csz = e->compressed_size;
	uint64_t total = 0;
	for (size_t need; (need = ZSTD_nextSrcSizeToDecompress(d)) != 0;) {
		if (need > csz - in)
			return ws_err_set(err, WS_E_FORMAT, "zstd data ends early"), -1;
		if (wraps && fh->blockSizeMax > cap - pos)
			pos = 0;
		size_t got = ZSTD_decompressContinue(d, ring + pos, cap - pos, p + in, need);
		if (ZSTD_isError(got))
			return ws_err_set(err, WS_E_FORMAT, "corrupt zstd data: %s", ZSTD_getErrorName(got)), -1;
		in += need;
		total += got;
		if (total > e->uncompressed_size)
			return ws_err_set(err, WS_E_FORMAT, "zstd data decodes past the %llu bytes the header says",
				      (unsigned long long)e->uncompressed_size), -1;
		if (got && sink(ctx, ring + pos, got, serr) < 0)
			return -1;
		pos += got;
	}
	if (total != e->uncompressed_size)
		return ws_err_set(err, WS_E_FORMAT, "zstd data decodes to %llu bytes, header says %llu",
			      (unsigned long long)total, (unsigned long long)e->uncompressed_size), -1;
	return 0;
}

/* LZ4 raw block, decoded as a stream (liblz4 only decodes a block whole). Format: a token
 * (literal length << 4 | match length - 4, 15 = more bytes follow, each adding up to 255),
 * the literals, then a 2-byte offset back into the output (1..65535) and the match; the
 * last sequence has literals only. The decoder keeps 64 KiB of history before the
 * chunk it fills, so no match can reach past what it holds.
 * Speed (torch's libtorch_cuda streams 1.9 GB of LZ4 cubins): short literal runs and
 * matches are copied in fixed 16- and 8-byte steps that may write up to LZ4_SLACK bytes
 * past their end (the buffer has that slack; the next copy or flush overwrites or
 * ignores them), and matches that overlap their source closely (offset < 8, runs of
 * one byte) are written from a 16-byte copy of their repeating pattern. */
#define LZ4_HISTORY ((size_t)64 << 10)
#define LZ4_SLACK 32

struct lz4_out {
	uint8_t *b;
	size_t pos, flushed, end;      /* end: flush when pos reaches it; b has end + LZ4_SLACK bytes */
	uint64_t total, limit;
	ws_chunk_fn sink;
	void *ctx;
	struct ws_err *err;            /* the sink's reason when it stops the stream */
};

static int lz4_flush(struct lz4_out *o)
{
	if (o->pos > o->flushed && o->sink(o->ctx, o->b + o->flushed, o->pos - o->flushed, o->err) < 0)
		return -1;
	size_t keep = o->pos < LZ4_HISTORY ? o->pos : LZ4_HISTORY;
	memmove(o->b, o->b + o->pos - keep, keep);
	o->pos = o->flushed = keep;
	return 0;
}

/* Reads a length continuation: bytes of 255 add up until one that is not. */
static bool lz4_len(const uint8_t *p, size_t n, size_t *i, uint64_t *len)
{
	uint8_t b;
	do {
		if (*i >= n)
			return false;
		b = p[(*i)++];
		*len += b;
		if (*len > ((uint64_t)1 << 40))
			return false;
	} while (b == 255);
	return true;
}

/* Copies a match of len bytes from off back to d; d - off and everything after it up to
 * d is output already. May write up to 16 bytes past len (the buffer's slack). */
static void lz4_copy_match(uint8_t *d, size_t off, size_t len)
{
	if (off >= 16) {                 /* each 16-byte step reads only bytes already final */
		if (off >= len && len > 32) {
			memcpy(d, d - off, len);
			return;
		}
		for (size_t j = 0; j < len; j += 16)
			memcpy(d + j, d + j - off, 16);
		return;
	}
	if (off >= 8) {
		for (size_t j = 0; j < len; j += 8)
			memcpy(d + j, d + j - off, 8);
		return;
	}
	/* The output repeats with period off: build 16 bytes of the pattern once and store
	 * them every `step` bytes, step being the largest multiple of off up to 16. */
	uint8_t pat[16];
	for (size_t j = 0; j < 16; j++)
		pat[j] = d[(ptrdiff_t)(j % off) - (ptrdiff_t)off];
	size_t step = 16 - 16 % off;
	for (size_t j = 0; j < len; j += step)
		memcpy(d + j, pat, 16);
}

/* The decode loop keeps the positions in locals (the compiler cannot keep struct fields
 * in registers across the sink call) and stores them back only around a flush. */
static int lz4_stream(const uint8_t *p, size_t n, struct lz4_out *o, struct ws_err *err)
{
	uint8_t *b = o->b;
	const size_t end = o->end;
	const uint64_t limit = o->limit;
	size_t i = 0, pos = o->pos;
	uint64_t total = o->total;
#define FLUSH() do { o->pos = pos; o->total = total; if (lz4_flush(o) < 0) return -1; pos = o->pos; } while (0)
#define CORRUPT() return ws_err_set(err, WS_E_FORMAT, "corrupt LZ4 data"), -1
	for (;;) {
		if (i >= n)
			CORRUPT();
		uint8_t token = p[i++];
		uint64_t lit = token >> 4, mlen = token & 15;
		if (lit == 15 && !lz4_len(p, n, &i, &lit))
			CORRUPT();
		if (lit > n - i || lit > limit - total)
			CORRUPT();
		if (lit <= 16 && n - i >= 16 && end - pos >= lit) {
			memcpy(b + pos, p + i, 16);
			pos += lit;
			i += lit;
			total += lit;
		} else {
			while (lit > 0) {
				if (pos >= end)
					FLUSH();
				size_t k = end - pos < lit ? end - pos : (size_t)lit;
				memcpy(b + pos, p + i, k);
				pos += k;
				i += k;
				lit -= k;
				total += k;
			}
		}
		if (i == n)
			break;                           /* the last sequence: literals only */
		if (n - i < 2)
			CORRUPT();
		size_t off = (size_t)p[i] | (size_t)p[i + 1] << 8;
		i += 2;
		if (mlen == 15 && !lz4_len(p, n, &i, &mlen))
			CORRUPT();
		mlen += 4;
		if (off == 0 || off > total || mlen > limit - total)
			CORRUPT();
		while (mlen > 0) {
			if (pos >= end)
				FLUSH();
			size_t k = end - pos < mlen ? end - pos : (size_t)mlen;
			lz4_copy_match(b + pos, off, k);
			pos += k;
			mlen -= k;
			total += k;
		}
	}
#undef FLUSH
#undef CORRUPT
	o->pos = pos;
	o->total = total;
	return 0;
}

/* The stream; a failure of the data is described in err, the sink's own in serr. */
static int payload_stream(struct ws_decoder *dc, const struct ws_entry *e, const uint8_t *p, size_t n, const struct ws_limits *lim,
			  ws_chunk_fn sink, void *ctx, struct ws_err *serr, struct ws_err *err)
{
	if (e->compression == WS_COMP_LZ4) {
		if (ws_payload_check(e, n, lim, err) < 0)
			return -1;
		struct lz4_out o = {.end = LZ4_HISTORY + WS_STREAM_CHUNK, .limit = e->uncompressed_size,
				    .sink = sink, .ctx = ctx, .err = serr};
		if (!(o.b = ws_decoder_buf(dc, WS_DBUF_STREAM, o.end + LZ4_SLACK)))
			return ws_err_set(err, WS_E_MEMORY, "out of memory for an LZ4 stream"), -1;
		int rc = lz4_stream(p, e->compressed_size, &o, err);
		if (rc == 0 && o.pos > o.flushed && sink(ctx, o.b + o.flushed, o.pos - o.flushed, serr) < 0)
			rc = -1;
		if (rc == 0 && o.total != e->uncompressed_size)
			rc = (ws_err_set(err, WS_E_FORMAT, "LZ4 data decodes to %llu bytes, header says %llu",
				     (unsigned long long)o.total, (unsigned long long)e->uncompressed_size), -1);
		return rc;
	}
	if (e->compression != WS_COMP_ZSTD)
		return ws_err_set(err, WS_E_FORMAT, "internal: entry is not compressed"), -1;
	if (ws_payload_check(e, n, lim, err) < 0)
		return -1;
	ZSTD_DCtx *d = ws_decoder_zstd(dc);
	ZSTD_frameHeader fh;
	if (d && ZSTD_getFrameHeader(&fh, p, e->compressed_size) == 0 && fh.frameType == ZSTD_frame &&
	    fh.windowSize <= ZSTD_STREAM_WINDOW_MAX)
		return zstd_ring(dc, d, &fh, e, p, sink, ctx, serr, err);
	/* anything else (a skippable frame first, a window past the limit) as libzstd's
	 * stream decoder sees it */
	uint8_t *buf = ws_decoder_buf(dc, WS_DBUF_STREAM, WS_STREAM_CHUNK);
	if (!d || !buf) {
		return ws_err_set(err, WS_E_MEMORY, "out of memory for a zstd stream"), -1;
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
			rc = (ws_err_set(err, WS_E_FORMAT, "corrupt zstd data: %s", ZSTD_getErrorName(r)), -1);
			break;
		}
		total += out.pos;
		if (total > e->uncompressed_size) {
			rc = (ws_err_set(err, WS_E_FORMAT, "zstd data decodes past the %llu bytes the header says",
				    (unsigned long long)e->uncompressed_size), -1);
			break;
		}
		if (out.pos && sink(ctx, buf, out.pos, serr) < 0) {
			rc = -1;
			break;
		}
		if (r != 0 && in.pos == in.size && out.pos == 0) {
			rc = (ws_err_set(err, WS_E_FORMAT, "zstd data ends early"), -1);
			break;
		}
	}
	if (rc == 0 && total != e->uncompressed_size)
		rc = (ws_err_set(err, WS_E_FORMAT, "zstd data decodes to %llu bytes, header says %llu",
			    (unsigned long long)total, (unsigned long long)e->uncompressed_size), -1);
	return rc;
}

int ws_payload_stream(struct ws_decoder *dc, const struct ws_entry *e, const uint8_t *p, size_t n, const struct ws_limits *lim,
		      ws_chunk_fn sink, void *ctx, struct ws_err *err)
{
	struct ws_err msg = {0};
	int rc = payload_stream(dc, e, p, n, lim, sink, ctx, err, &msg);
	if (rc < 0)                          /* a no-op when the sink has said why */
		ws_err_set(err, msg.code ? msg.code : WS_E_FORMAT, "%s", msg.code ? msg.msg : "decoding stopped");
	return rc;
}
