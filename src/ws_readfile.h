/* ws_readfile.h - whole files read from disk (readfile.c): a small one into memory, a
 * file's SHA-256 at once or a step at a time. */
#ifndef WS_READFILE_H
#define WS_READFILE_H

#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

/* Reads a whole regular file of at most max bytes, NUL-terminated, length in *len; NULL
 * (errno set; EFBIG when too large or not a regular file) otherwise. */
char *ws_read_small(const char *path, size_t max, size_t *len);

/* SHA-256 hex of an open file read from its start; stores its size.
 * Returns 0, or -1 with a reason in err (io, memory; err may be NULL). */
int ws_sha256_fd(int fd, char hex[65], uint64_t *size, struct ws_err *err);

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
