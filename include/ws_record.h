/* ws_record.h - a wheel's RECORD: its rows parsed and indexed by path (core/wheelinfo.c), and
 * a file checked against its row (core/record.c). */
#ifndef WS_RECORD_H
#define WS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

/* The largest RECORD read, in a wheel or an installed distribution (torch's is 1.5 MB);
 * a larger one is not read and the distribution's files are not verified. */
#define WS_RECORD_MAX ((size_t)64 << 20)

/* One RECORD row. */
struct ws_record_line {
	char *path;
	char algo[16];                     /* "sha256", "" when the row has no hash */
	char *digest;                      /* urlsafe base64 as written, '=' padding removed */
	int64_t size;                      /* -1 when the row has no size */
	uint64_t hash;                     /* ws_hash64 of path: compared before the path */
};

/* A parsed RECORD with a lookup table by path. */
struct ws_record_index {
	struct ws_record_line *line;
	uint32_t n, cap;
	uint32_t *slot;                    /* open addressing: line index + 1, 0 = empty */
	uint32_t nslot;
};

/* Parses RECORD (CSV as Python's csv module writes it). Returns 0, or -1
 * with a reason in err. Rows repeating an earlier path are ignored. */
int ws_record_parse(struct ws_record_index *r, const char *p, size_t n, struct ws_err *err);
/* Index of the row for path, or -1. */
int64_t ws_record_find(const struct ws_record_index *r, const char *path);
void ws_record_index_free(struct ws_record_index *r);

/* A RECORD row that names a file below the directory RECORD is relative to: not empty,
 * not absolute, no ".." component (installed scripts in "../../bin" are outside). */
bool ws_record_row_inside(const char *path);
/* True when name is "<dir>.dist-info/<file>" at the top of the archive;
 * stores the length of "<dir>.dist-info/" in *prefix_len if not NULL. */
bool ws_distinfo_file(const char *name, const char *file, size_t *prefix_len);

/* Checks one file (path as RECORD lists it; digest as RECORD writes it, "" when not
 * computed; size in bytes) against its row. A mismatch joins a->record.mismatched; a wheel
 * member's is also one error of a, named `where` (an installed file's is not: it was read
 * and is judged as it is; the report lists it).
 * Returns true when the file matches. */
bool ws_record_verify(struct ws_artifact *a, const char *where, const struct ws_record_line *row,
		      const char *path, const char *digest, uint64_t size, bool installed);
/* Sets rec->ok once the lists are complete. */
void ws_record_conclude(struct ws_record *rec);

#endif
