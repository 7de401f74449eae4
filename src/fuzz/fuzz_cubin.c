/* fuzz_cubin.c - libFuzzer target: ws_cubin_inspect (device ELF through libelf) on a
 * read-only copy of the input. */
#include "fuzz.h"
#include "ws_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_limits lim;
	fuzz_limits(&lim);
	struct ws_entry e = fuzz_entry(WS_KIND_SASS, WS_COMP_NONE, 0, 0);
	struct ws_strpool pool;
	ws_strpool_init(&pool);
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_err err = {0};
	if (ws_cubin_inspect(p, size, &e, &pool, &lim, &err) == 0)
		fuzz_check_kernels(&e, &pool);
	ws_entry_clear(&e);
	ws_strpool_free(&pool);
	fuzz_ro_free(&ro);
	return 0;
}
