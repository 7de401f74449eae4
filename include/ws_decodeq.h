/* ws_decodeq.h - the entry payloads of one scan, decoded as tasks on the shared pool
 * while the scanner walks on (decompression and cubin parsing dominate a scan). Results
 * are merged into the model by the scanner, in entry order, so output is the same as a
 * serial scan whatever ran where. */
#ifndef WS_DECODEQ_H
#define WS_DECODEQ_H

#include "wheelscan.h"
#include "ws_pool.h"

struct ws_decodeq;

struct ws_decode_task {
	struct ws_decodeq *q;
	uint32_t fatbin, entry;        /* where the result goes, as indices into the object */
	struct ws_entry res;           /* the header fields; the decode fills in the rest */
	struct ws_strpool names;       /* res.kernels index this pool */
	uint8_t *payload;              /* owned copy while queued, freed once decoded */
	size_t n;
	uint64_t reserved;             /* bytes reserved from the pool's budget */
	int rc;                        /* 0, or -1 with err */
	char err[WS_ERRMAX];
};

/* Tasks go to pool in a group below parent (NULL: top level). NULL on out of memory. */
struct ws_decodeq *ws_decodeq_new(struct ws_pool *pool, struct ws_group *parent, const struct ws_limits *lim);
/* Queues a copy of the payload, or decodes it here when the pool's byte budget is spent
 * or its queue is full (the result is kept the same way). -1 on out of memory. */
int ws_decodeq_push(struct ws_decodeq *q, uint32_t fatbin, uint32_t entry, const struct ws_entry *hdr,
		    const uint8_t *p, size_t n);
/* Waits for every task; returns them in push order (count in *n) and empties the queue.
 * The caller frees each with ws_decode_task_free, and the array with free. */
struct ws_decode_task **ws_decodeq_drain(struct ws_decodeq *q, size_t *n);
void ws_decode_task_free(struct ws_decode_task *t);
/* Waits for what is still running, then frees. */
void ws_decodeq_free(struct ws_decodeq *q);

#endif
