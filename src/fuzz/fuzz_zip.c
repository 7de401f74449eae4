/* fuzz_zip.c - libFuzzer target: ws_zip_scan_memory (zip and wheel structure,
 * inflation, RECORD, then the member scan) with small limits and one thread. */
#include "fuzz.h"
#include "ws_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_limits lim;
	fuzz_archive_limits(&lim);
	struct ws_scan_opts so = {.lim = &lim, .want_kernels = true};
	struct ws_zip_opts zo;
	ws_zip_opts_default(&zo);
	zo.scan = &so;
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_artifact *a = fuzz_artifact();
	ws_zip_scan_memory(a, p, size, &zo);
	if (a->bytes_inflated > lim.max_total_bytes + lim.max_member_bytes)
		abort();                            /* the limits must hold */
	ws_artifact_free(a);
	fuzz_ro_free(&ro);
	return 0;
}
