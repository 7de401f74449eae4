/* fuzz_ptx.c - libFuzzer target: ws_ptx_inspect on text that is not NUL-terminated. */
#include "fuzz.h"
#include "ws_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_limits lim;
	fuzz_limits(&lim);
	lim.max_kernels = 256;
	struct ws_entry e = fuzz_entry(WS_KIND_PTX, WS_COMP_NONE, 0, 0);
	struct ws_strpool pool;
	ws_strpool_init(&pool);
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_err err = {0};
	if (ws_ptx_inspect(p, size, &e, &pool, &lim, &err) == 0) {
		if (strnlen(e.ptx_target, sizeof e.ptx_target) == sizeof e.ptx_target)
			abort();
		fuzz_check_kernels(&e, &pool);
	}
	ws_entry_clear(&e);
	ws_strpool_free(&pool);
	fuzz_ro_free(&ro);
	return 0;
}
