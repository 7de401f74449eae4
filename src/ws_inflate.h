/* ws_inflate.h - streaming raw-deflate inflate and CRC-32, ISA-L when built
 * with WS_HAVE_ISAL, zlib otherwise. State lives on the heap; memory is
 * constant whatever the stream's length. */
#ifndef WS_INFLATE_H
#define WS_INFLATE_H

#include <stddef.h>
#include <stdint.h>

struct ws_inflate;

enum ws_inflate_status {
	WS_INFLATE_ERROR = -1,   /* corrupt deflate data */
	WS_INFLATE_MORE = 0,     /* feed more input or give more output room */
	WS_INFLATE_END = 1,      /* the final block is done and all output delivered */
};

/* NULL on allocation failure. */
struct ws_inflate *ws_inflate_new(void);
/* Starts a new stream on the same state. */
void ws_inflate_reset(struct ws_inflate *z);
void ws_inflate_free(struct ws_inflate *z);

/* Inflates from in[0..inlen) into out[0..outcap); stores the bytes consumed
 * in *used and the bytes written in *made. Either buffer may be any size;
 * the window of earlier output is kept inside the state, so out may be a
 * different buffer on every call. */
enum ws_inflate_status ws_inflate_step(struct ws_inflate *z, const uint8_t *in, size_t inlen, size_t *used,
				       uint8_t *out, size_t outcap, size_t *made);

/* CRC-32 as zip and gzip use it: ws_crc32(0, p, n) starts, and the result
 * chains: ws_crc32(ws_crc32(0, a, n), b, m) == crc of a followed by b. */
uint32_t ws_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* "isa-l" or "zlib": which implementation this build uses. */
const char *ws_inflate_backend(void);

#endif
