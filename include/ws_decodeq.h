/* ws_decodeq.h - a queue of entry payloads decoded on worker threads while the
 * scanner walks on (decompression and cubin parsing dominate a scan). Results are
 * merged into the model by the scanner, in entry order, so output is the same as
 * a serial scan. */
#ifndef WS_DECODEQ_H
#define WS_DECODEQ_H

#include "wheelscan.h"

struct ws_decode_task {
	uint32_t fatbin, entry;        /* where the result goes, as indices into the object */
	struct ws_entry res;           /* the header fields; the worker fills in the rest */
	struct ws_strpool names;       /* res.kernels index this pool */
	uint8_t *payload;              /* owned copy, freed once decoded */
	size_t n;
	int rc;                        /* 0, or -1 with err */
	char err[WS_ERRMAX];
};

struct ws_decodeq;

/* nthreads >= 1 workers; at most max_bytes of payload waiting at once. */
struct ws_decodeq *ws_decodeq_new(int nthreads, const struct ws_limits *lim, uint64_t max_bytes);
/* Queues a copy of the payload; blocks while too many bytes are waiting. -1 on out of memory. */
int ws_decodeq_push(struct ws_decodeq *q, uint32_t fatbin, uint32_t entry, const struct ws_entry *hdr,
		    const uint8_t *p, size_t n);
/* Waits for every queued task; returns them in push order (count in *n) and empties the
 * queue. The caller frees each with ws_decode_task_free, and the array with free. */
struct ws_decode_task **ws_decodeq_drain(struct ws_decodeq *q, size_t *n);
void ws_decode_task_free(struct ws_decode_task *t);
void ws_decodeq_free(struct ws_decodeq *q);

#endif
