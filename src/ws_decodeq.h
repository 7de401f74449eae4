/* ws_decodeq.h - the entry payloads of one scan, decoded as tasks on the shared pool
 * while the scanner walks on (decompression and cubin parsing dominate a scan). Results
 * are merged into the model by the scanner, in entry order, so output is the same as a
 * serial scan whatever ran where. */
#ifndef WS_DECODEQ_H
#define WS_DECODEQ_H

#include "wheelscan.h"
#include "ws_pool.h"
#include "ws_scan.h"

struct ws_decodeq;
/* struct ws_decode_task, what a task gives back, is the scanner's (ws_scan.h) */

/* Tasks go to pool in a group below parent (NULL: top level) and borrow a decoder from
 * decoders for each payload; kernel names are kept as hashes only when hash_only. NULL
 * on out of memory. */
struct ws_decodeq *ws_decodeq_new(struct ws_pool *pool, struct ws_group *parent, struct ws_decoders *decoders,
				  const struct ws_limits *lim, bool hash_only);
/* Queues a copy of the payload, or decodes it here when the pool's byte budget is spent
 * or its queue is full (the result is kept the same way). -1 on out of memory. */
int ws_decodeq_push(struct ws_decodeq *q, uint32_t fatbin, uint32_t entry, const struct ws_entry *hdr,
		    const uint8_t *p, size_t n);
/* The oldest task not yet taken, in push order: NULL when there is none, or when it is
 * still being decoded and wait is false. The caller frees it with ws_decode_task_free.
 * Taking finished tasks as the scan goes keeps what they hold from piling up. */
struct ws_decode_task *ws_decodeq_next(struct ws_decodeq *q, bool wait);
void ws_decode_task_free(struct ws_decode_task *t);
/* Waits for what is still running, then frees. */
void ws_decodeq_free(struct ws_decodeq *q);

/* The scanner's offload onto the pool (ws_scan_opts.offload): a queue per scan when the
 * pool has threads to spare, and decode contexts lent by decoders.c. */
extern const struct ws_offload ws_pool_offload;

#endif
