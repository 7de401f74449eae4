/* ws_digest.h - the digests RECORD, md5sums and image blobs name, over memory
 * (core/sha256.c; a file's are ws_readfile.h's). */
#ifndef WS_DIGEST_H
#define WS_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

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
/* SHA-256 of a memory span as lowercase hex; 0, or -1 with the reason in err (memory). */
int ws_sha256_mem(const uint8_t *p, size_t n, char hex[65], struct ws_err *err);

#endif
