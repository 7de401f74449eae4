/* record.c - RECORD verification: each file of a distribution (a wheel's member, an
 * installed environment's file) against the row that lists it, with one set of rules
 * and one place that fills struct ws_record. Parsing RECORD is wheelinfo.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_util.h"
#include "ws_zip.h"

#define SHOWN 160                        /* paths are cut to this in messages */

bool ws_record_verify(struct ws_artifact *a, const char *where, const struct ws_record_line *row,
		      const char *path, const char *digest, uint64_t size, bool installed)
{
	char shown[SHOWN];
	bool bad = false;
	ws_sanitize(shown, sizeof shown, path, strlen(path));
	if (row->algo[0] && !ws_digest_known(row->algo)) {
		ws_artifact_error(a, where, "RECORD gives '%s' a hash wheels may not use (%s)", shown, row->algo);
		bad = true;
	} else if (row->algo[0] && (!digest || !digest[0] || strcmp(digest, row->digest) != 0)) {
		if (installed)
			ws_artifact_error(a, where, "installed file '%s' differs from RECORD (%s mismatch)", shown,
					  row->algo);
		else
			ws_artifact_error(a, where, "RECORD hash mismatch for '%s'", shown);
		bad = true;
	}
	if (row->size >= 0 && (uint64_t)row->size != size) {
		if (installed)
			ws_artifact_error(a, where, "installed file '%s' differs from RECORD (RECORD says %lld bytes, "
					  "the file has %llu)", shown, (long long)row->size, (unsigned long long)size);
		else
			ws_artifact_error(a, where, "RECORD size mismatch for '%s' (RECORD says %lld, member has %llu)",
					  shown, (long long)row->size, (unsigned long long)size);
		bad = true;
	}
	if (bad)
		ws_strv_push(&a->record.mismatched, &a->record.nmismatched, path);
	return !bad;
}

void ws_record_conclude(struct ws_record *rec)
{
	rec->ok = !rec->nmismatched && !rec->nmissing && !rec->nunlisted && !rec->nunread;
}
