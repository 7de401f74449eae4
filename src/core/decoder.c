/* decoder.c - decode contexts (see ws_decode.h): the scratch one payload decode needs,
 * kept from entry to entry so that a torch wheel's tens of thousands of entries do not
 * each pay for a zstd context and fresh pages. The stack that lends them to tasks is
 * decoders.c's: this file, like every decoder, has no threads. */
#include <stdlib.h>
#include <sys/mman.h>

#include <zstd.h>

#include "ws_decode.h"
#include "ws_util.h"

struct ws_decoder {
	void *buf[WS_DBUF_SLOTS];
	size_t cap[WS_DBUF_SLOTS];
	ZSTD_DCtx *zstd;
	uint8_t *image;                /* the sparse cubin image: an untouched anonymous mapping */
	size_t image_cap;
};

struct ws_decoder *ws_decoder_new(void)
{
	return calloc(1, sizeof(struct ws_decoder));
}

void ws_decoder_free(struct ws_decoder *dc)
{
	if (!dc)
		return;
	for (int i = 0; i < WS_DBUF_SLOTS; i++)
		free(dc->buf[i]);
	ZSTD_freeDCtx(dc->zstd);
	if (dc->image)
		munmap(dc->image, dc->image_cap);
	free(dc);
}

/* A buffer that must grow to n grows by half again at least: entries come in every size,
 * and each new buffer of a megabyte or more is faulted in afresh (only the pages written
 * become resident, so the slack costs address space, not memory). */
static size_t grown(size_t cap, size_t n)
{
	return cap <= SIZE_MAX / 3 && n < cap / 2 * 3 ? cap / 2 * 3 : n;
}

void *ws_decoder_buf(struct ws_decoder *dc, enum ws_dbuf slot, size_t n)
{
	if (n > dc->cap[slot]) {
		size_t want = grown(dc->cap[slot], n);
		void *p = ws_malloc(want);
		if (!p && want > n)
			p = ws_malloc(want = n);
		if (!p)
			return NULL;
		free(dc->buf[slot]);
		dc->buf[slot] = p;
		dc->cap[slot] = want;
	}
	return dc->buf[slot];
}

struct ZSTD_DCtx_s *ws_decoder_zstd(struct ws_decoder *dc)
{
	if (!dc->zstd)
		dc->zstd = ZSTD_createDCtx();
	return dc->zstd;
}

uint8_t *ws_decoder_image(struct ws_decoder *dc, size_t n)
{
	if (n > dc->image_cap) {
		/* reserved, not committed: only the pages the reader writes become resident */
		size_t want = grown(dc->image_cap, n);
		void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED && want > n)
			p = mmap(NULL, want = n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		if (dc->image)
			munmap(dc->image, dc->image_cap);
		dc->image = p;
		dc->image_cap = want;
	}
	return dc->image;
}

