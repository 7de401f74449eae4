/* ws_zip.h - wheels and zips: streamed member scanning with RECORD
 * verification (zipsrc.c), wheel facts (wheelinfo.c) and the digests they
 * need (sha256.c). */
#ifndef WS_ZIP_H
#define WS_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"
#include "ws_scan.h"

/* ---- zipsrc.c ---------------------------------------------------------- */

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

/* ---- wheelinfo.c ------------------------------------------------------- */

/* Parses "{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl" (the
 * last path component of path) into w's name, version, local, python_tag,
 * abi_tag and platform_tag. Returns 0, or -1 (w untouched) when the name
 * is not a wheel name, e.g. a pip cache body. */
int ws_wheel_parse_filename(struct ws_wheel_info *w, const char *path);
/* Reads Name, Version and Requires-Dist from METADATA headers. */
void ws_wheel_parse_metadata(struct ws_wheel_info *w, const char *p, size_t n);
/* Reads Generator from the WHEEL file, and its Tag lines into python_tag, abi_tag and
 * platform_tag (dotted sets, as a file name compresses them) when w has no tags yet: a
 * pip cache body has no file name to give them. */
void ws_wheel_parse_wheelfile(struct ws_wheel_info *w, const char *p, size_t n);
/* The CUDA major a requirement pulls in: "nvidia-cublas-cu12>=12.1" -> 12;
 * 0 when it is no NVIDIA CUDA library. *extra_only is set when the
 * requirement only applies to an extra ("; extra == 'cuda'"). */
int ws_requirement_cuda_major(const char *s, size_t n, bool *extra_only);

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

/* ---- record.c ---------------------------------------------------------- */
/* Checks one file (path as RECORD lists it; digest as RECORD writes it, "" when not
 * computed; size in bytes) against its row. A mismatch joins a->record.mismatched; a wheel
 * member's is also one error of a, named `where` (an installed file's is not: it was read
 * and is judged as it is; the report lists it).
 * Returns true when the file matches. */
bool ws_record_verify(struct ws_artifact *a, const char *where, const struct ws_record_line *row,
		      const char *path, const char *digest, uint64_t size, bool installed);
/* Sets rec->ok once the lists are complete. */
void ws_record_conclude(struct ws_record *rec);

/* ---- sha256.c ---------------------------------------------------------- */

#define WS_DIGEST_MAX 64

struct ws_digest;
/* "sha224", "sha256", "sha384" or "sha512"; NULL for any other name or on
 * allocation failure. */
struct ws_digest *ws_digest_new(const char *algo);
/* MD5, for the md5sums of Debian packages only (never RECORD: PEP 427 forbids it). */
struct ws_digest *ws_digest_new_md5(void);
void ws_digest_update(struct ws_digest *d, const void *p, size_t n);
/* Writes the digest and returns its length; the context cannot be updated after. */
size_t ws_digest_final(struct ws_digest *d, uint8_t out[WS_DIGEST_MAX]);
void ws_digest_free(struct ws_digest *d);
/* Updates d with a private file mapping, 8 MiB at a time, giving each chunk's pages back
 * as soon as it is hashed, so that hashing a 2 GB file does not make it resident. */
void ws_digest_mapping(struct ws_digest *d, const uint8_t *p, size_t n);
/* Whether ws_digest_new knows algo. */
bool ws_digest_known(const char *algo);

/* Lower-case hex of p into out (2n+1 bytes). */
void ws_hex(const uint8_t *p, size_t n, char *out);
/* Urlsafe base64 without padding, as RECORD writes it; returns the length
 * or 0 when cap (including the terminator) is too small. */
size_t ws_b64url_nopad(const uint8_t *p, size_t n, char *out, size_t cap);
/* SHA-256 hex of an open file read from its start; stores its size.
 * Returns 0, or -1 with a reason in err (io, memory; err may be NULL). */
int ws_sha256_fd(int fd, char hex[65], uint64_t *size, struct ws_err *err);
/* SHA-256 of a memory span as lowercase hex; 0, or -1 with the reason in err (memory). */
int ws_sha256_mem(const uint8_t *p, size_t n, char hex[65], struct ws_err *err);

/* A file's SHA-256 taken a step at a time, so that it can fill the gaps other work
 * leaves on the threads (a zip's own checksum beside its members): path names the file,
 * or, when it is NULL, the n bytes at p are hashed. A file is read through a guarded
 * mapping whose pages go back as they are hashed. NULL only without memory. */
struct ws_hash_steps;
struct ws_hash_steps *ws_hash_steps_new(const char *path, const uint8_t *p, size_t n);
/* Hashes the next step (1 MiB): 1 while more remain, 0 done, -1 failed. */
int ws_hash_steps_next(struct ws_hash_steps *h);
/* After the last step: 0 with hex set, or -1 with the reason in err (io, memory). Frees h. */
int ws_hash_steps_end(struct ws_hash_steps *h, char hex[65], struct ws_err *err);

#endif
