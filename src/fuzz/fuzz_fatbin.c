/* fuzz_fatbin.c - libFuzzer target: ws_scan_memory on raw bytes (sniffing, host ELF,
 * ar archives, fatbin containers and entries, payloads, cubins and PTX), then the rules
 * over what was decoded (roles, roll-ups, gaps, sentences), with and without --strict
 * and a driver older than one of the GPUs. */
#include <stdio.h>

#include "fuzz.h"
#include "ws_compat.h"
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
	static const uint16_t ccs[] = {61, 75, 86, 90, 100, 103, 120, 121};
	struct ws_target t[sizeof ccs / sizeof ccs[0]];
	memset(t, 0, sizeof t);
	for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
		t[i].cc = ccs[i];
		snprintf(t[i].name, sizeof t[i].name, "sm_%u", ccs[i]);
	}
	struct ws_judge_opts jo = {.driver_cuda = 0};
	ws_judge(a, t, sizeof ccs / sizeof ccs[0], &jo);
	jo.strict = true;
	jo.driver_cuda = 12060;
	ws_judge(a, t, sizeof ccs / sizeof ccs[0], &jo);
	uint32_t considered;
	for (uint32_t i = 0; i < a->nobjects; i++)
		ws_object_require_sass(&a->objects[i], &t[3], false, &considered);
	ws_artifact_free(a);
	fuzz_ro_free(&ro);
	return 0;
}
