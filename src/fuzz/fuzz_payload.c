/* fuzz_payload.c - libFuzzer target: ws_payload_decode. The first 13 bytes are the
 * entry: u8 compression (mod 3), u32 compressed_size, u64 uncompressed_size (both
 * little-endian); the rest is the payload. A decoded SASS/PTX result is inspected too.
 * A compressed PTX entry is also read as a stream (ws_ptx_inspect_stream), and a compressed
 * cubin through its sparse image (ws_cubin_inspect_stream); both must agree with the
 * whole-buffer reading whenever the payload decodes. */
#include "fuzz.h"
#include "ws_decode.h"

/* One decode context for the whole run, as a scan keeps one for all its entries. */
static struct ws_decoder *dc;

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The sparse image must read exactly like the whole cubin: same result, same facts. */
static void compare_cubin_stream(const struct ws_entry *hdr, const uint8_t *p, size_t n,
				 const struct ws_limits *lim)
{
	struct ws_entry whole = fuzz_entry(hdr->kind, hdr->compression, hdr->compressed_size, hdr->uncompressed_size);
	struct ws_entry streamed = whole;
	struct ws_strpool p1, p2;
	struct ws_err err = {0}, serr = {0};
	const uint8_t *out;
	size_t outlen;
	ws_strpool_init(&p1);
	ws_strpool_init(&p2);
	int rs = ws_cubin_inspect_stream(dc, p, n, &streamed, &p2, lim, &serr);
	if (rs == 1)                        /* too unusual for the image: decoded whole, as the scan does */
		rs = ws_entry_inspect_whole(dc, p, n, &streamed, &p2, lim, &serr);
	if (rs < 0 && !serr.code)
		abort();
	if (ws_payload_decode(dc, &whole, p, n, lim, &out, &outlen, &err) == 0) {
		int rw = ws_cubin_inspect(out, outlen, &whole, &p1, lim, &err);
		if (rw != rs || (rw == 0 && (whole.nkernels != streamed.nkernels || whole.toolkit != streamed.toolkit ||
					     whole.elf_sm != streamed.elf_sm ||
					     whole.relocatable != streamed.relocatable ||
					     !same_str(whole.producer, streamed.producer) ||
					     !same_str(whole.tool_options, streamed.tool_options))))
			abort();
		for (uint32_t k = 0; rw == 0 && k < whole.nkernels; k++)
			if (strcmp(p1.str[whole.kernels[k]], p2.str[streamed.kernels[k]]) != 0)
				abort();
	}
	ws_entry_clear(&whole);
	ws_entry_clear(&streamed);
	ws_strpool_free(&p1);
	ws_strpool_free(&p2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dc && !(dc = ws_decoder_new()))
		return 0;
	if (size < 13)
		return 0;
	struct ws_limits lim;
	fuzz_limits(&lim);
	struct ws_entry e = fuzz_entry((data[0] & 0x80) ? WS_KIND_PTX : WS_KIND_SASS,
				       (enum ws_compression)(data[0] % 3), (uint32_t)le(data + 1, 4), le(data + 5, 8));
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data + 13, size - 13);
	e.payload_size = size - 13;
	const uint8_t *out;
	size_t outlen;
	struct ws_err err = {0};
	if (ws_payload_decode(dc, &e, p, size - 13, &lim, &out, &outlen, &err) == 0) {
		if (e.compression != WS_COMP_NONE && outlen != e.uncompressed_size)
			abort();                    /* the cap must hold exactly */
		if (e.compression != WS_COMP_NONE && data[0] & 0x40) {
			struct ws_strpool pool;
			ws_strpool_init(&pool);
			if (e.kind == WS_KIND_SASS)
				ws_cubin_inspect(out, outlen, &e, &pool, &lim, &err);
			else
				ws_ptx_inspect(out, outlen, &e, &pool, &lim, &err);
			ws_strpool_free(&pool);
		}
	} else if (!err.code) {
		abort();                            /* every failure says why */
	}
	if (e.kind == WS_KIND_PTX && e.compression != WS_COMP_NONE) {
		struct ws_entry whole = fuzz_entry(e.kind, e.compression, e.compressed_size, e.uncompressed_size);
		struct ws_entry streamed = whole;
		struct ws_strpool p1, p2;
		ws_strpool_init(&p1);
		ws_strpool_init(&p2);
		int rs = ws_ptx_inspect_stream(dc, p, size - 13, &streamed, &p2, &lim, &err);
		if (rs < 0 && !err.code)
			abort();
		if (rs == 0 && ws_payload_decode(dc, &e, p, size - 13, &lim, &out, &outlen, &err) == 0) {
			/* whole-buffer reading of the same bytes: the same kernels (compared only
			 * below the stream buffer's size: the stream drops longer lines on purpose) */
			if (outlen < 2 * WS_STREAM_CHUNK &&
			    ws_ptx_inspect(out, outlen, &whole, &p1, &lim, &err) == 0 &&
			    (whole.nkernels != streamed.nkernels || whole.ptx_major != streamed.ptx_major))
				abort();
		}
		ws_entry_clear(&whole);
		ws_entry_clear(&streamed);
		ws_strpool_free(&p1);
		ws_strpool_free(&p2);
	}
	if (e.kind == WS_KIND_SASS && e.compression != WS_COMP_NONE)
		compare_cubin_stream(&e, p, size - 13, &lim);
	ws_entry_clear(&e);
	fuzz_ro_free(&ro);
	return 0;
}
