/* ws_zip.h - wheels and zips as the scanner reads them: one member stream at a time
 * (zipsrc.c, walk.c). RECORD, wheel facts and digests have headers of their own:
 * ws_record.h, ws_wheelinfo.h, ws_digest.h. */
#ifndef WS_ZIP_H
#define WS_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"
#include "ws_scan.h"

/* Scans one member stream; same contract as ws_scan_stream (which is what
 * is called when ws_zip_opts.scan_member is NULL). */
typedef int (*ws_zip_member_fn)(void *ctx, struct ws_artifact *a, const char *member, struct ws_reader *r,
				uint64_t size, const struct ws_scan_opts *opt);

struct ws_zip_opts {
	const struct ws_scan_opts *scan;   /* limits come from scan->lim; NULL scan or lim: defaults */
	bool verify_record;                /* hash every member against RECORD (default true) */
	bool hash_file;                    /* a->sha256 of the whole file (default true) */
	struct ws_pool *pool;              /* members (and large members' read-ahead) run as tasks
					    * here; NULL: serially, in place (default) */
	struct ws_group *group;            /* the tasks' parent group (NULL: top level) */
	ws_zip_member_fn scan_member;      /* NULL: ws_scan_stream; tests put a double here */
	void *scan_member_ctx;
	uint64_t *progress;                /* if set, compressed bytes read are added here (atomically) */
	bool nested;                       /* members that are archives are read (ws_source.h), one level */
};
void ws_zip_opts_default(struct ws_zip_opts *o);

/* Scans a zip or wheel file at path into a. The caller sets a->path (used
 * in messages). Sets a->type ("wheel" when a top-level *.dist-info holds
 * RECORD or WHEEL, else "zip"), a->size, a->sha256 (if hash_file), a->wheel,
 * a->record (if verify_record), a->members_scanned, a->bytes_inflated.
 * Every member whose first bytes sniff as ELF/cubin/ar/fatbin/PTX goes to
 * the scanner, whatever its name; the others are only hashed for RECORD.
 * Nothing is written to disk. Results are in central-directory order
 * whatever runs where. Returns 0, or -1 when an error was recorded on a
 * (unreadable or corrupt zip, CRC or size mismatch, RECORD mismatch, a
 * member name escaping the archive, a limit exceeded). */
int ws_zip_scan_file(struct ws_artifact *a, const char *path, const struct ws_zip_opts *o);
/* Same for a zip held in memory (fuzzer, tests); p must outlive the call. */
int ws_zip_scan_memory(struct ws_artifact *a, const uint8_t *p, size_t n, const struct ws_zip_opts *o);

#endif
