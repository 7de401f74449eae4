/* fuzz_payload.c - libFuzzer target: ws_payload_decode. The first 13 bytes are the
 * entry: u8 compression (mod 3), u32 compressed_size, u64 uncompressed_size (both
 * little-endian); the rest is the payload. A decoded SASS/PTX result is inspected too. */
#include "fuzz.h"
#include "ws_decode.h"

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 13)
		return 0;
	struct ws_limits lim;
	fuzz_limits(&lim);
	struct ws_entry e;
	memset(&e, 0, sizeof e);
	e.compression = (enum ws_compression)(data[0] % 3);
	e.kind = (data[0] & 0x80) ? WS_KIND_PTX : WS_KIND_SASS;
	strcpy(e.name, "sm_90");
	e.compressed_size = (uint32_t)le(data + 1, 4);
	e.uncompressed_size = le(data + 5, 8);
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data + 13, size - 13);
	e.payload_size = size - 13;
	const uint8_t *out;
	size_t outlen;
	bool owned;
	char err[WS_ERRMAX];
	if (ws_payload_decode(&e, p, size - 13, &lim, &out, &outlen, &owned, err, sizeof err) == 0) {
		if (owned && outlen != e.uncompressed_size)
			abort();                    /* the cap must hold exactly */
		if (owned && data[0] & 0x40) {
			struct ws_strpool pool;
			ws_strpool_init(&pool);
			if (e.kind == WS_KIND_SASS)
				ws_cubin_inspect(out, outlen, &e, &pool, &lim, err, sizeof err);
			else
				ws_ptx_inspect(out, outlen, &e, &pool, &lim, err, sizeof err);
			ws_strpool_free(&pool);
		}
		if (owned)
			free((void *)out);
	} else if (strlen(err) == 0) {
		abort();                            /* every failure says why */
	}
	ws_entry_clear(&e);
	fuzz_ro_free(&ro);
	return 0;
}
