/* record.c - RECORD verification: each file of a distribution (a wheel's member, an
 * installed environment's file) against the row that lists it, with one set of rules
 * and one place that fills struct ws_record. Parsing RECORD is wheelinfo.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_quote.h"
#include "ws_record.h"
#include "ws_digest.h"

#define SHOWN 160                        /* paths are cut to this in messages */

bool ws_record_verify(struct ws_artifact *a, const char *where, const struct ws_record_line *row,
		      const char *path, const char *digest, uint64_t size, bool installed)
{
	char shown[SHOWN];
	ws_sanitize(shown, sizeof shown, path, strlen(path));
	if (row->algo[0] && !ws_digest_known(row->algo)) {
		ws_artifact_error(a, where, "RECORD gives '%s' a hash wheels may not use (%s)", shown, row->algo);
		ws_strv_push(&a->record.mismatched, &a->record.nmismatched, path);
		return false;
	}
	bool bad_hash = row->algo[0] && (!digest || !digest[0] || strcmp(digest, row->digest) != 0);
	bool bad_size = row->size >= 0 && (uint64_t)row->size != size;
	if (!bad_hash && !bad_size)
		return true;
	/* An installed file that differs from RECORD was changed after it was installed (a
	 * distribution's patched CA bundle, an edited script): it is judged as it was read,
	 * and listed as mismatched, but it is not an input that could not be read. A wheel's
	 * member that differs is a corrupt or tampered archive: an integrity error (exit 3,
	 * check WS201), one line a member, whatever differs. */
	if (!installed && bad_size)
		ws_artifact_fail(a, where, WS_E_INTEGRITY, "RECORD %s mismatch for '%s' (RECORD says %lld, member has %llu)",
				  bad_hash ? "hash and size" : "size", shown, (long long)row->size, (unsigned long long)size);
	else if (!installed)
		ws_artifact_fail(a, where, WS_E_INTEGRITY, "RECORD hash mismatch for '%s'", shown);
	ws_strv_push(&a->record.mismatched, &a->record.nmismatched, path);
	return false;
}

void ws_record_conclude(struct ws_record *rec)
{
	rec->ok = !rec->nmismatched && !rec->nmissing && !rec->nunlisted && !rec->nunread && !rec->nunhashed;
}
