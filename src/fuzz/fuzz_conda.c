/* fuzz_conda.c - libFuzzer target: ws_conda_parse, the conda-meta record reader (strict
 * JSON, bounded depth, string length and file count), and ws_record_parse beside it on
 * the same bytes: the two text formats wheelscan reads from installed environments. */
#include "fuzz.h"
#include "ws_env.h"
#include "ws_condameta.h"
#include "ws_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ro ro;
	const char *p = (const char *)fuzz_ro_copy(&ro, data, size);
	struct ws_conda_pkg pkg;
	struct ws_err err = {0};
	if (ws_conda_parse(&pkg, p, size, &err) == 0) {
		for (size_t i = 0; i < pkg.nfiles; i++)
			if (!pkg.files[i].path || (pkg.files[i].sha256[0] && strlen(pkg.files[i].sha256) != 64))
				abort();                    /* every file has a path; a hash is whole or absent */
		ws_conda_free(&pkg);
	} else if (!err.code) {
		abort();                                    /* a refusal always says why */
	}
	struct ws_record_index rec = {0};
	struct ws_err rerr = {0};
	if (ws_record_parse(&rec, p, size, &rerr) == 0)
		for (uint32_t i = 0; i < rec.n; i++)
			(void)ws_record_row_inside(rec.line[i].path);
	ws_record_index_free(&rec);
	fuzz_ro_free(&ro);
	return 0;
}
