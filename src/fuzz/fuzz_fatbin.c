/* fuzz_fatbin.c - libFuzzer target: ws_scan_memory on raw bytes (sniffing, host ELF,
 * ar archives, fatbin containers and entries, payloads, cubins and PTX). */
#include "fuzz.h"
#include "ws_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_limits lim;
	fuzz_limits(&lim);
	struct ws_scan_opts opt = {.lim = &lim, .want_kernels = true};
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_artifact *a = fuzz_artifact();
	ws_scan_memory(a, NULL, p, size, &opt);
	ws_artifact_free(a);
	fuzz_ro_free(&ro);
	return 0;
}
