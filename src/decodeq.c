/* decodeq.c - entry payloads decoded as tasks on the shared pool (see ws_decodeq.h). */
#include <stdio.h>
#include <stdlib.h>

#include "ws_decoders.h"
#include "ws_decodeq.h"
#include "ws_util.h"

/* Payloads smaller than this are decoded where they are found: a task's copy, queueing and
 * hand-back cost more than decoding a few kilobytes (4,800 of cuBLASLt's 6,100 entries).
 * The ThreadSanitizer build sets 0, so that every payload of its small fixtures is a task. */
#ifndef WS_DECODE_INLINE_MAX
#define WS_DECODE_INLINE_MAX ((size_t)16 << 10)
#endif

struct ws_decodeq {
	struct ws_pool *pool;
	struct ws_group g;
	const struct ws_limits *lim;
	struct ws_decoders *decoders;
	bool hash_only;
	struct ws_decode_task **tasks;
	uint32_t head, n, cap;         /* tasks[head..n) not taken yet */
};

static void decode(void *arg)
{
	struct ws_decode_task *t = arg;
	struct ws_decoder *dc = ws_decoder_take(t->q->decoders);
	t->rc = dc ? ws_entry_inspect(dc, t->payload, t->n, &t->res, &t->names, t->q->lim, &t->err)
		   : ws_err_set(&t->err, WS_E_MEMORY, "out of memory for a decoder");
	ws_decoder_give(t->q->decoders, dc);
	if (t->lent) {
		ws_pool_buf_give(t->q->pool, t->payload);
		t->lent = false;
	}
	t->payload = NULL;
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
}

/* Tasks go to pool in a group below parent (NULL: top level) and borrow a decoder from
 * decoders for each payload; kernel names are kept as hashes only when hash_only. NULL
 * on out of memory. */
static struct ws_decodeq *decodeq_new(struct ws_pool *pool, struct ws_group *parent, struct ws_decoders *decoders,
				  const struct ws_limits *lim, bool hash_only)
{
	struct ws_decodeq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	q->pool = pool;
	q->lim = lim;
	q->decoders = decoders;
	q->hash_only = hash_only;
	ws_group_init(&q->g, parent);
	return q;
}

/* Queues a copy of the payload, or decodes it here when the pool's byte budget is spent
 * or its queue is full (the result is kept the same way). -1 on out of memory. */
static int decodeq_push(struct ws_decodeq *q, uint32_t fatbin, uint32_t entry, const struct ws_entry *hdr,
		    const uint8_t *p, size_t n)
{
	struct ws_decode_task *t = calloc(1, sizeof *t);
	if (q->head == q->n)
		q->head = q->n = 0;                   /* all taken: start the array over */
	if (!t || !ws_grow((void **)&q->tasks, &q->cap, q->n + 1, sizeof *q->tasks)) {
		free(t);
		return -1;
	}
	t->q = q;
	t->n = n;
	t->fatbin = fatbin;
	t->entry = entry;
	/* only the numbers: strings stay with the scanner's entry */
	t->res = *hdr;
	t->res.producer = t->res.tool_options = t->res.identifier = t->res.options = t->res.error = NULL;
	t->res.kernels = NULL;
	t->res.nkernels = 0;
	ws_strpool_init(&t->names);
	t->names.hash_only = q->hash_only;
	t->names.max_bytes = q->lim->max_kernel_names;
	q->tasks[q->n++] = t;
	if (n >= WS_DECODE_INLINE_MAX && (t->payload = ws_pool_buf_take(q->pool, n)) != NULL) {
		memcpy(t->payload, p, n);
		t->lent = true;
		ws_pool_add(q->pool, &q->g, decode, t);
		return 0;
	}
	t->payload = (uint8_t *)p;                /* borrowed for the call */
	decode(t);
	return 0;
}

/* The oldest task not yet taken, in push order: NULL when there is none, or when it is
 * still being decoded and wait is false. The caller frees it with decode_task_free.
 * Taking finished tasks as the scan goes keeps what they hold from piling up. */
static struct ws_decode_task *decodeq_next(struct ws_decodeq *q, bool wait)
{
	if (q->head == q->n)
		return NULL;
	struct ws_decode_task *t = q->tasks[q->head];
	if (!__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) {
		if (!wait)
			return NULL;
		ws_group_wait(q->pool, &q->g);
	}
	q->head++;
	return t;
}

static void decode_task_free(struct ws_decode_task *t)
{
	if (!t)
		return;
	if (t->lent)
		ws_pool_buf_give(t->q->pool, t->payload);
	ws_entry_clear(&t->res);
	ws_strpool_free(&t->names);
	free(t);
}

void ws_decodeq_free(struct ws_decodeq *q)
{
	if (!q)
		return;
	ws_group_wait(q->pool, &q->g);
	for (uint32_t i = q->head; i < q->n; i++)
		decode_task_free(q->tasks[i]);
	free(q->tasks);
	free(q);
}

static struct ws_decodeq *offload_open(const struct ws_scan_opts *opt, const struct ws_limits *lim)
{
	if (!opt->pool || ws_pool_width(opt->pool) < 2)
		return NULL;                      /* one CPU: the scanning thread decodes */
	return decodeq_new(opt->pool, opt->group, opt->decoders, lim, !opt->list_kernels);
}

const struct ws_offload ws_pool_offload = {
	.open = offload_open,
	.push = decodeq_push,
	.next = decodeq_next,
	.task_free = decode_task_free,
	.close = ws_decodeq_free,
	.take = ws_decoder_take,
	.give = ws_decoder_give,
};
