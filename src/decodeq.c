/* decodeq.c - entry payloads decoded on worker threads (see ws_decodeq.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ws_decode.h"
#include "ws_decodeq.h"
#include "ws_util.h"

struct ws_decodeq {
	pthread_t *th;
	int nth;
	pthread_mutex_t mu;
	pthread_cond_t work, space, done;
	struct ws_decode_task **tasks;
	size_t n, cap, next, ndone;
	uint64_t waiting, max_bytes;   /* payload bytes queued and not yet decoded */
	bool stop;
	const struct ws_limits *lim;
};

static void decode(struct ws_decode_task *t, const struct ws_limits *lim)
{
	t->rc = ws_entry_inspect(t->payload, t->n, &t->res, &t->names, lim, t->err, sizeof t->err);
}

static void *worker(void *arg)
{
	struct ws_decodeq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->next >= q->n && !q->stop)
			pthread_cond_wait(&q->work, &q->mu);
		if (q->next >= q->n)
			break;
		struct ws_decode_task *t = q->tasks[q->next++];
		pthread_mutex_unlock(&q->mu);
		decode(t, q->lim);
		free(t->payload);
		t->payload = NULL;
		pthread_mutex_lock(&q->mu);
		q->waiting -= t->n;
		q->ndone++;
		pthread_cond_signal(&q->space);
		pthread_cond_signal(&q->done);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct ws_decodeq *ws_decodeq_new(int nthreads, const struct ws_limits *lim, uint64_t max_bytes)
{
	struct ws_decodeq *q = calloc(1, sizeof *q);
	if (!q || !(q->th = ws_calloc((size_t)nthreads, sizeof *q->th))) {
		free(q);
		return NULL;
	}
	q->lim = lim;
	q->max_bytes = max_bytes;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->space, NULL);
	pthread_cond_init(&q->done, NULL);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&q->th[q->nth], NULL, worker, q) == 0)
			q->nth++;
	if (q->nth == 0) {
		ws_decodeq_free(q);
		return NULL;
	}
	return q;
}

int ws_decodeq_push(struct ws_decodeq *q, uint32_t fatbin, uint32_t entry, const struct ws_entry *hdr,
		    const uint8_t *p, size_t n)
{
	struct ws_decode_task *t = calloc(1, sizeof *t);
	if (!t || !(t->payload = ws_malloc(n ? n : 1))) {
		free(t);
		return -1;
	}
	memcpy(t->payload, p, n);
	t->n = n;
	t->fatbin = fatbin;
	t->entry = entry;
	/* only the numbers: strings stay with the scanner's entry */
	t->res = *hdr;
	t->res.producer = t->res.tool_options = t->res.identifier = t->res.options = t->res.error = NULL;
	t->res.kernels = NULL;
	t->res.nkernels = 0;
	ws_strpool_init(&t->names);
	pthread_mutex_lock(&q->mu);
	while (q->waiting > 0 && q->waiting + n > q->max_bytes)
		pthread_cond_wait(&q->space, &q->mu);
	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64;
		struct ws_decode_task **v = ws_reallocarray(q->tasks, ncap, sizeof *v);
		if (!v) {
			pthread_mutex_unlock(&q->mu);
			ws_decode_task_free(t);
			return -1;
		}
		q->tasks = v;
		q->cap = ncap;
	}
	q->tasks[q->n++] = t;
	q->waiting += n;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

struct ws_decode_task **ws_decodeq_drain(struct ws_decodeq *q, size_t *n)
{
	pthread_mutex_lock(&q->mu);
	while (q->ndone < q->n)
		pthread_cond_wait(&q->done, &q->mu);
	struct ws_decode_task **v = q->tasks;
	*n = q->n;
	q->tasks = NULL;
	q->n = q->cap = q->next = q->ndone = 0;
	pthread_mutex_unlock(&q->mu);
	return v;
}

void ws_decode_task_free(struct ws_decode_task *t)
{
	if (!t)
		return;
	free(t->payload);
	ws_entry_clear(&t->res);
	ws_strpool_free(&t->names);
	free(t);
}

void ws_decodeq_free(struct ws_decodeq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->mu);
	for (int i = 0; i < q->nth; i++)
		pthread_join(q->th[i], NULL);
	for (size_t i = 0; i < q->n; i++)
		ws_decode_task_free(q->tasks[i]);
	free(q->tasks);
	free(q->th);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->space);
	pthread_cond_destroy(&q->done);
	free(q);
}
