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

/* Waits for what is still running, then frees. */
void ws_decodeq_free(struct ws_decodeq *q);

/* The scanner's offload onto the pool (ws_scan_opts.offload): a queue per scan when the
 * pool has threads to spare, and decode contexts lent by decoders.c. */
extern const struct ws_offload ws_pool_offload;

#endif
