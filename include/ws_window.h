/* ws_window.h - a read window over a memory span or a pull stream.
 *
 * Scanners address bytes by absolute offset. In memory mode every offset is
 * available at once; in stream mode the window holds the bytes from the last
 * release point (minus a little history) to what was last read, so memory is
 * bounded by the largest span a caller asks for at once, never by the input. */
#ifndef WS_WINDOW_H
#define WS_WINDOW_H

#include "ws_scan.h"

struct ws_window {
	const uint8_t *mem;            /* memory mode: the whole input */
	uint64_t size;                 /* total bytes if known, else UINT64_MAX */
	struct ws_reader *rd;          /* stream mode */
	uint8_t *buf;
	size_t cap, len;               /* buf holds stream bytes [base, base+len) */
	uint64_t base;
	uint64_t released;             /* callers need nothing before this offset */
	size_t max_cap;                /* the most a single peek may make the window hold */
	bool eof, failed;
	bool drop_behind;              /* memory mode over a file mapping: madvise scanned pages away */
	uint64_t dropped;              /* pages before this offset were given back */
	struct ws_err *err;            /* why it failed: the reader's record, or own */
	struct ws_err own;
};

void ws_window_memory(struct ws_window *w, const uint8_t *p, size_t n);
void ws_window_stream(struct ws_window *w, struct ws_reader *rd, uint64_t size, size_t max_cap);
void ws_window_free(struct ws_window *w);

/* Makes [off, off+n) available and returns a pointer to off; *got is how many
 * of the n bytes exist (fewer only at the end of input). NULL when off was
 * already released, the span exceeds max_cap, or reading failed (w->err). */
const uint8_t *ws_window_peek(struct ws_window *w, uint64_t off, size_t n, size_t *got);

/* The caller needs nothing before off any more. */
void ws_window_release(struct ws_window *w, uint64_t off);

/* Copies [off, off+n) into dst even if it was released (re-reads the stream
 * if the reader can); returns 0 or -1. */
int ws_window_copy(struct ws_window *w, uint64_t off, uint8_t *dst, size_t n);

#endif
