/* drive.h - what the member driver's files share: source.c drives a member (limits,
 * digest, sniffing, scan or a nested source); source_random.c runs a random-access
 * source's members as tasks on the pool and merges them in member order. Private to them. */
#ifndef WS_DRIVE_H
#define WS_DRIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "ws_source.h"

#define SCRATCH ((size_t)256 << 10)

/* What a random-access member's task lends drive_member and gets back from it. */
struct mout {
	struct ws_digest *dg;          /* the digest the package check wants (the task's), or NULL */
	bool hashed;                   /* the source feeds dg itself */
	bool drain;                    /* read to the end even when nothing scans it (a check) */
	bool zip_style, hash_only, nest;
	bool end, failed;              /* how the stream ended */
};

/* One member: counted, hashed, sniffed and scanned or opened as a nested source. out is
 * NULL for a sequential source's member (the package checks are told here), else a
 * random-access member's (its task tells them, in member order, once merged). */
int ws_drive_member(struct ws_drive *d, const char *name, struct ws_reader *r, uint64_t size, int level,
		    uint8_t *scratch, struct mout *out);
/* The digest the drive's checks want of a member (the first check's that wants one), or
 * NULL; wants[i], when not NULL, says whether check i wants one. */
const char *ws_drive_algo(struct ws_drive *d, const char *name, bool *wants);
/* Tells the checks of a member (those told[i] says, or every one when told is NULL). */
void ws_drive_tell(struct ws_drive *d, struct ws_told *t, const bool *told);
/* The limit message of one member whose size field declares more than the limit. */
void ws_drive_member_over(struct ws_drive *d, struct ws_artifact *a, const char *where, const char *shown,
			  bool zip_style, uint64_t declared, bool file);

#endif
