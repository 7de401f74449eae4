/* fuzz_store.c - libFuzzer target: a results store's bytes (an SQLite file) through
 * ws_db_load and the judge, as --report and an incremental rescan read it. The store is
 * a file like any other: damaged rows must give an error, never a crash or a model the
 * judge and the writers cannot trust (kernel indices outside the pool, counts beyond
 * their arrays). */
#include <sqlite3.h>

#include "fuzz.h"
#include "ws_compat.h"
#include "ws_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_err err = {0};
	struct ws_db *db = ws_db_open_memory(data, size, &err);
	if (!db)
		return 0;
	struct ws_target *t = NULL;
	size_t nt = 0;
	if (ws_targets_parse_list("sm_80,sm_90,sm_120", &t, &nt, &err) < 0)
		abort();
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(ws_db_handle(db), "SELECT id, path FROM artifact ORDER BY id LIMIT 64", -1, &s, NULL)
	    == SQLITE_OK) {
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *path = (const char *)sqlite3_column_text(s, 1);
			struct ws_artifact *a = ws_db_load(db, sqlite3_column_int64(s, 0), path ? path : "");
			if (!a) {
				if (!ws_db_error(db)[0])
					abort();                /* a refusal always says why */
				continue;
			}
			/* every index the loader let through names a kernel of its object */
			for (uint32_t i = 0; i < a->nobjects; i++)
				for (uint32_t k = 0; k < a->objects[i].nfatbins; k++)
					for (uint32_t e = 0; e < a->objects[i].fatbins[k].nentries; e++) {
						const struct ws_entry *en = &a->objects[i].fatbins[k].entries[e];
						for (uint32_t x = 0; x < en->nkernels; x++)
							if (en->kernels[x] >= a->objects[i].kernels.n)
								abort();
					}
			struct ws_judge_opts jo = {0};
			(void)ws_judge(a, t, nt, &jo);
			ws_artifact_free(a);
		}
		sqlite3_finalize(s);
	}
	free(t);
	ws_db_close(db);
	return 0;
}
