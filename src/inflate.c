/* inflate.c - streaming raw-deflate inflate and CRC-32 (ISA-L, or zlib as the fallback). */
#include <stdlib.h>
#include <string.h>

#include "ws_inflate.h"
#include "ws_util.h"

#ifdef WS_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

/* Both libraries count in 32 bits; larger buffers are fed in slices. */
#define STEP_MAX ((size_t)1 << 30)

#ifdef WS_HAVE_ISAL

struct ws_inflate {
	struct inflate_state st;     /* ~85 KiB with the history window: never on the stack */
};

struct ws_inflate *ws_inflate_new(void)
{
	struct ws_inflate *z = ws_malloc(sizeof *z);
	if (z)
		ws_inflate_reset(z);
	return z;
}

void ws_inflate_reset(struct ws_inflate *z)
{
	isal_inflate_init(&z->st);
	z->st.crc_flag = ISAL_DEFLATE;   /* raw deflate; the zip CRC is checked by the caller */
}

void ws_inflate_free(struct ws_inflate *z)
{
	free(z);
}

enum ws_inflate_status ws_inflate_step(struct ws_inflate *z, const uint8_t *in, size_t inlen, size_t *used,
				       uint8_t *out, size_t outcap, size_t *made)
{
	size_t ni = inlen < STEP_MAX ? inlen : STEP_MAX, no = outcap < STEP_MAX ? outcap : STEP_MAX;
	z->st.next_in = (uint8_t *)in;   /* ISA-L's field is not const; it never writes input */
	z->st.avail_in = (uint32_t)ni;
	z->st.next_out = out;
	z->st.avail_out = (uint32_t)no;
	int rc = isal_inflate(&z->st);
	*used = ni - z->st.avail_in;
	*made = no - z->st.avail_out;
	if (rc < 0)
		return WS_INFLATE_ERROR;
	return z->st.block_state == ISAL_BLOCK_FINISH ? WS_INFLATE_END : WS_INFLATE_MORE;
}

uint32_t ws_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	return n ? crc32_gzip_refl(crc, p, n) : crc;
}

const char *ws_inflate_backend(void)
{
	return "isa-l";
}

#else

struct ws_inflate {
	z_stream zs;
	int ok;                      /* inflateInit2 succeeded */
};

struct ws_inflate *ws_inflate_new(void)
{
	struct ws_inflate *z = ws_calloc(1, sizeof *z);
	if (!z)
		return NULL;
	if (inflateInit2(&z->zs, -15) != Z_OK) {   /* -15: raw deflate, 32 KiB window */
		free(z);
		return NULL;
	}
	z->ok = 1;
	return z;
}

void ws_inflate_reset(struct ws_inflate *z)
{
	inflateReset(&z->zs);
}

void ws_inflate_free(struct ws_inflate *z)
{
	if (!z)
		return;
	if (z->ok)
		inflateEnd(&z->zs);
	free(z);
}

enum ws_inflate_status ws_inflate_step(struct ws_inflate *z, const uint8_t *in, size_t inlen, size_t *used,
				       uint8_t *out, size_t outcap, size_t *made)
{
	size_t ni = inlen < STEP_MAX ? inlen : STEP_MAX, no = outcap < STEP_MAX ? outcap : STEP_MAX;
	z->zs.next_in = (Bytef *)in;
	z->zs.avail_in = (uInt)ni;
	z->zs.next_out = out;
	z->zs.avail_out = (uInt)no;
	int rc = inflate(&z->zs, Z_NO_FLUSH);
	*used = ni - z->zs.avail_in;
	*made = no - z->zs.avail_out;
	if (rc == Z_STREAM_END)
		return WS_INFLATE_END;
	if (rc == Z_OK || rc == Z_BUF_ERROR)     /* Z_BUF_ERROR: no progress possible, not fatal */
		return WS_INFLATE_MORE;
	return WS_INFLATE_ERROR;
}

uint32_t ws_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n) {
		size_t k = n < STEP_MAX ? n : STEP_MAX;
		crc = (uint32_t)crc32(crc, p, (uInt)k);
		p += k;
		n -= k;
	}
	return crc;
}

const char *ws_inflate_backend(void)
{
	return "zlib";
}

#endif
