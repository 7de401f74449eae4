/* fuzz_cubin.c - libFuzzer target: ws_cubin_inspect (device ELF through libelf) on a
 * read-only copy of the input. */
#include "fuzz.h"
#include "ws_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_limits lim;
	fuzz_limits(&lim);
	struct ws_entry e;
	memset(&e, 0, sizeof e);
	e.kind = WS_KIND_SASS;
	strcpy(e.name, "sm_90");
	struct ws_strpool pool;
	ws_strpool_init(&pool);
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	char err[WS_ERRMAX];
	if (ws_cubin_inspect(p, size, &e, &pool, &lim, err, sizeof err) == 0) {
		for (uint32_t i = 0; i < e.nkernels; i++)
			if (e.kernels[i] >= pool.n)
				abort();
	}
	ws_entry_clear(&e);
	ws_strpool_free(&pool);
	fuzz_ro_free(&ro);
	return 0;
}
