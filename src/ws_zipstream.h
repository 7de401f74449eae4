/* ws_zipstream.h - one zip member as a stream: raw deflate from libzip inflated here,
 * CRC-32, the entry's declared size, the digest the driver lends, and read-ahead on the
 * task pool. The zip source (zipsrc.c) opens it; nothing here knows about wheels. */
#ifndef WS_ZIPSTREAM_H
#define WS_ZIPSTREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <zip.h>

#include "ws_pool.h"
#include "wheelscan.h"
#include "ws_digest.h"

#define WS_ZIP_IN_BUF ((size_t)256 << 10)
#define WS_ZIP_OUT_BUF ((size_t)256 << 10)
/* Members at least this large are read ahead when the pool has threads. */
#define WS_ZIP_READAHEAD_MIN ((uint64_t)8 << 20)

/* Where the archive's bytes are: a file or a buffer. */
struct ws_zsrc {
	const char *path;
	const uint8_t *mem;
	size_t len;
};

/* What every member stream of one archive shares. */
struct ws_zip_budget {
	uint64_t *progress;          /* compressed bytes read are added here (atomic), or NULL */
};

/* One reader's buffers and inflate state, reused member after member. */
struct ws_zbuf {uint8_t *in, *out;
	struct ws_inflate *inf;
};

struct ws_readahead;

/* One member being read. */
struct ws_mstream {
	struct ws_zip_budget *bg;    /* the archive's progress counter */
	zip_t *za;
	zip_uint64_t idx;
	const char *name;            /* sanitised, for messages */
	zip_file_t *zf;
	int method;                  /* 8: raw deflate inflated here; 0: stored; -1: libzip decompresses */
	bool quiet;                  /* side read: no checksums or progress */
	struct ws_zbuf *b;
	size_t in_pos, in_len, out_pos, out_len;
	bool in_eof, end, failed;
	struct ws_mstream *side;     /* the reread stream, kept for the next reread */
	struct ws_zbuf *side_buf;
	int stalls;
	uint64_t produced, declared;
	uint32_t crc;
	struct ws_digest *dg;
	struct ws_err error;         /* why it failed; marked reported by whoever records it */
	uint8_t *cur;                /* the buffer out_pos and out_len refer to */
	struct ws_readahead *pp;     /* read-ahead, or NULL */
	pthread_mutex_t *zmu;        /* held around libzip calls while pp is on */
	bool defer_hash;             /* the reader hashes slots (the producer only inflates) */
	bool holding;                /* the reader holds the slot at pp->tail */
};

/* libzip's messages, in this project's grammar for the common cases. */
const char *ws_zip_reason(zip_error_t *e);
/* Opens the archive (flags: ZIP_CHECKCONS or 0); NULL with the reason in err. */
zip_t *ws_zip_open_source(const struct ws_zsrc *s, int flags, struct ws_err *err);
/* zipdir.c: refuses members whose data share bytes of the file (a zip bomb), given the
 * n member names in libzip's (directory) order; 0, or -1 with the reason in err. */
int ws_zip_check_layout(const struct ws_zsrc *s, uint64_t n, const char *const *names, struct ws_err *err);
/* zipdir.c: the first member name the directory holds twice (sanitised into name). */
bool ws_zip_duplicate_name(const struct ws_zsrc *s, char *name, size_t len);
/* zipdir.c: whether the file begins with a local header but has no end-of-directory
 * record (a download cut short); *size is the file's size. */
bool ws_zip_truncated(const struct ws_zsrc *s, uint64_t *size);
/* "12 MiB", "3 GiB", "100 bytes": sizes in messages. */
const char *ws_fmt_size(char *buf, size_t len, uint64_t v);
/* "97.7 KiB", "1.2 GiB": a size rounded for people, in the report's units. */
const char *ws_fmt_human(char *buf, size_t len, uint64_t v);

bool ws_zbuf_init(struct ws_zbuf *b);
void ws_zbuf_fini(struct ws_zbuf *b);

/* Opens member idx for reading; algo names the digest to keep, or NULL; quiet: a side
 * read (no checksums or progress). Returns 0, or -1 with m->error set. */
int ws_mstream_open(struct ws_mstream *m, struct ws_zip_budget *bg, zip_t *za, zip_uint64_t idx,
		    const zip_stat_t *st, const char *name, struct ws_zbuf *b, const char *algo, bool quiet);
void ws_mstream_close(struct ws_mstream *m);
/* Produces up to cap inflated bytes into dst: > 0 bytes, 0 at the end, -1 on failure. */
long ws_mstream_fill(struct ws_mstream *m, uint8_t *dst, size_t cap);
/* struct ws_reader's read and reread over the stream (ctx: the ws_mstream). A reread
 * goes on from the previous one when it can, so k rereads of an n-byte member cost O(n)
 * unless they go backwards. */
long ws_mstream_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err);
int ws_mstream_reread(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err);
/* Reads a whole small member (at most max bytes) into a fresh NUL-terminated buffer;
 * NULL with err set. */
char *ws_mstream_slurp(struct ws_zip_budget *bg, zip_t *za, zip_uint64_t idx, const char *name, uint64_t max,
		       size_t *len, struct ws_zbuf *b, struct ws_err *err);

/* Read-ahead as tasks on pool (group below parent); the hash runs in the reader when
 * defer_hash. On failure the stream simply stays synchronous. */
void ws_mstream_readahead(struct ws_mstream *m, bool defer_hash, struct ws_pool *pool, struct ws_group *parent);
/* Gives back the block the reader held and takes the next; false at the end. */
bool ws_mstream_next_block(struct ws_mstream *m);
/* Cancels the read-ahead and waits until its task has ended. */
void ws_mstream_stop_readahead(struct ws_mstream *m);

#endif
