/* inspect.c - one SASS or PTX entry payload to its facts (kernels, versions, notes).
 *
 * Small payloads are decoded whole into the thread's buffer; compressed ones of
 * WS_STREAM_MIN bytes or more are read as streams, so that memory per thread stays
 * bounded by the stream buffers, not by the largest entry (cuSPARSE: 30 MB of PTX,
 * 18 MB cubins), unless the stream would buffer the whole entry anyway
 * (ws_payload_stream_saves_memory). */
#include <stdio.h>

#include "ws_decode.h"

int ws_entry_inspect_whole(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
			   const struct ws_limits *lim, struct ws_err *err)
{
	const uint8_t *out;
	size_t outlen;
	struct ws_err perr = {0};
	if (ws_payload_decode(dc, e, p, n, lim, &out, &outlen, &perr) < 0)
		return ws_err_set(err, perr.code, "%s: %.200s", e->name, perr.msg), -1;
	e->content_size = outlen;
	return e->kind == WS_KIND_SASS ? ws_cubin_inspect(out, outlen, e, pool, lim, err)
				       : ws_ptx_inspect(out, outlen, e, pool, lim, err);
}

int ws_entry_inspect(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		     const struct ws_limits *lim, struct ws_err *err)
{
	bool stream = (ws_ptx_streamed(e) || ws_sass_streamed(e)) && ws_payload_stream_saves_memory(e, p, n);
	if (stream && e->kind == WS_KIND_PTX)
		return ws_ptx_inspect_stream(dc, p, n, e, pool, lim, err);
	if (stream)
		return ws_cubin_inspect_stream(dc, p, n, e, pool, lim, err);
	return ws_entry_inspect_whole(dc, p, n, e, pool, lim, err);
}
