/* window.c - bounded read window over a memory span or a pull stream (see ws_window.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ws_util.h"
#include "ws_window.h"

/* Bytes kept behind the release point: the section-name table of an ELF file
 * usually sits just before the section headers, which are read last. */
#ifndef WS_WINDOW_HISTORY
#define WS_WINDOW_HISTORY ((size_t)256 << 10)
#endif
/* Fuzz builds shrink both (src/fuzz/run-fuzz) so that small inputs reach the
 * compaction and growth paths. */
#ifndef WS_WINDOW_READ
#define WS_WINDOW_READ ((size_t)1 << 20)
#endif

void ws_window_memory(struct ws_window *w, const uint8_t *p, size_t n)
{
	memset(w, 0, sizeof *w);
	w->mem = p;
	w->size = n;
	w->eof = true;
	w->err = &w->own;
}

void ws_window_stream(struct ws_window *w, struct ws_reader *rd, uint64_t size, size_t max_cap)
{
	memset(w, 0, sizeof *w);
	w->rd = rd;
	w->size = size;
	w->max_cap = max_cap;
	w->err = rd->err ? rd->err : &w->own;   /* a struct ws_window is never copied */
}

void ws_window_free(struct ws_window *w)
{
	if (w)
		free(w->buf);
}

/* Memory mode: hand file pages that lie well behind the release point back to the
 * kernel, so that a 2 GB library does not stay resident once scanned. Only for private
 * file mappings (the pages are re-read from the file if touched again). */
#define WS_DROP_STEP ((uint64_t)8 << 20)
static void drop_behind(struct ws_window *w)
{
	uint64_t upto = w->released > WS_WINDOW_HISTORY ? w->released - WS_WINDOW_HISTORY : 0;
	uintptr_t page = 4096;
	uintptr_t from = ((uintptr_t)w->mem + w->dropped + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)w->mem + upto) & ~(page - 1);
	if (to > from && to - from >= WS_DROP_STEP) {
		madvise((void *)from, to - from, MADV_DONTNEED);
		w->dropped = upto;
	}
}

void ws_window_release(struct ws_window *w, uint64_t off)
{
	if (off > w->released) {
		w->released = off;
		if (w->mem && w->drop_behind)
			drop_behind(w);
	}
}

/* Drops bytes before keep_from and makes room for `need` bytes in total. */
static bool make_room(struct ws_window *w, uint64_t keep_from, size_t need)
{
	if (keep_from > w->base) {
		uint64_t drop = keep_from - w->base;
		if (drop >= w->len) {
			w->base += w->len;
			w->len = 0;
		} else {
			memmove(w->buf, w->buf + drop, w->len - (size_t)drop);
			w->len -= (size_t)drop;
			w->base += drop;
		}
	}
	size_t ncap = WS_WINDOW_READ + WS_WINDOW_HISTORY;
	while (ncap < need || ncap < w->len)
		ncap = ncap > SIZE_MAX / 2 ? (need > w->len ? need : w->len) : ncap * 2;
	/* Grown for a large entry that has gone: give the pages back (a realloc of an mmap'ed
	 * block shrinks in place), so one large entry early does not hold memory for the rest
	 * of the member. */
	if (need <= w->cap && (w->cap < 4 * ncap || ncap >= w->cap))
		return true;
	if (ncap < need)
		ncap = need;
	uint8_t *b = realloc(w->buf, ncap);
	if (!b) {
		ws_err_set(w->err, WS_E_MEMORY, "out of memory for a %zu-byte read window", ncap);
		w->failed = true;
		return false;
	}
	w->buf = b;
	w->cap = ncap;
	return true;
}

const uint8_t *ws_window_peek(struct ws_window *w, uint64_t off, size_t n, size_t *got)
{
	*got = 0;
	if (w->mem) {
		if (off >= w->size)
			return w->mem + w->size;
		*got = (size_t)(w->size - off < n ? w->size - off : n);
		return w->mem + off;
	}
	if (w->failed)
		return NULL;
	if (off < w->base) {
		ws_err_set(w->err, WS_E_FORMAT, "internal: offset %llu already released", (unsigned long long)off);
		return NULL;
	}
	uint64_t end;
	if (!ws_add_u64(off, n, &end))
		end = UINT64_MAX;
	if (w->size != UINT64_MAX && end > w->size)
		end = w->size;
	while (w->base + w->len < end && !w->eof) {
		/* The window must hold [keep_from, end); refuse spans beyond max_cap. */
		uint64_t keep_from = w->released > WS_WINDOW_HISTORY ? w->released - WS_WINDOW_HISTORY : 0;
		if (keep_from < w->base)
			keep_from = w->base;
		if (keep_from > off)
			keep_from = off;
		if (end - keep_from > w->max_cap) {
			ws_err_set(w->err, WS_E_LIMIT, "a %llu-byte span exceeds the %zu-byte read limit",
				   (unsigned long long)(end - off), w->max_cap);
			w->failed = true;
			return NULL;
		}
		size_t want = (size_t)(end - keep_from);
		if (want < WS_WINDOW_READ)
			want = WS_WINDOW_READ;
		/* Moving what is kept to the front costs a copy of it: only when what is missing
		 * does not fit after it. (Moving at every read copied as many bytes as the stream
		 * held: the history and the last read's lookahead, a megabyte read after read.) */
		uint64_t missing = end - (w->base + w->len);
		if (w->cap - w->len < missing && !make_room(w, keep_from, want + WS_WINDOW_HISTORY))
			return NULL;
		/* Read what is missing plus one chunk, not up to the capacity: pages of the
		 * buffer that are never written never become resident. */
		size_t room = w->cap - w->len;
		if (room > missing + WS_WINDOW_READ)
			room = (size_t)missing + WS_WINDOW_READ;
		long r = w->rd->read(w->rd->ctx, w->buf + w->len, room, w->err);
		if (r < 0) {
			ws_err_set(w->err, WS_E_IO, "read failed");   /* a reader that did not say why */
			w->failed = true;
			return NULL;
		}
		if (r == 0)
			w->eof = true;
		w->len += (size_t)r;
	}
	static const uint8_t nothing[1];
	if (off >= w->base + w->len)          /* at the end: no bytes, but not a failure */
		return w->buf ? w->buf + w->len : nothing;
	uint64_t have = w->base + w->len - off;
	*got = (size_t)(have < n ? have : n);
	return w->buf + (off - w->base);
}

int ws_window_copy(struct ws_window *w, uint64_t off, uint8_t *dst, size_t n)
{
	size_t got;
	if (w->mem || off >= w->base) {
		const uint8_t *p = ws_window_peek(w, off, n, &got);
		if (!p || got < n)
			return -1;
		memcpy(dst, p, n);
		return 0;
	}
	if (!w->rd->reread)
		return -1;
	struct ws_err err = {0};
	return w->rd->reread(w->rd->ctx, off, dst, n, &err);
}
