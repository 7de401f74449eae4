/* pool.c - the one bounded task pool (see ws_pool.h). One lock and one condition
 * variable: tasks are coarse (a file, a member, an entry payload of kilobytes to
 * megabytes), so the lock is never what limits the speed. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ws_pool.h"
#include "ws_util.h"

/* Enough queued tasks to keep every thread busy while the adder works on; small enough
 * that scanning the queue for the deepest task costs nothing. */
#define QUEUE_PER_THREAD 4
#define QUEUE_MIN 8
/* Payload copies queued at once, whatever --jobs is: a few large entries. Beyond it the
 * scanning thread decodes in place; 4 MiB keeps both CPUs of the bench busy while a torch
 * wheel (compressed cubins of several MiB) stays under 64 MiB at --jobs 2. The buffers
 * kept for reuse count against it too. */
#define BYTES_BUDGET ((uint64_t)4 << 20)
/* Buffers given back and kept for the next copy: a freed buffer of a megabyte or more
 * would go back to the kernel and its successor be faulted in again, entry after entry. */
#define KEPT_BUFS 8
#define BUF_MIN ((size_t)64 << 10)

/* A lent buffer: its capacity sits in front of what the borrower sees. */
struct buf_head {
	size_t cap;
	size_t pad;                    /* keeps the borrower's bytes 16-byte aligned */
};

struct task {
	ws_task_fn fn;
	void *arg;
	struct ws_group *g;
	uint64_t seq;                  /* first in, first out among equally deep tasks */
	bool filler;                   /* runs only when no other task is queued */
};

struct ws_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;             /* a task was queued or finished, or the pool stops */
	struct task *q;
	size_t nq, cap;
	uint64_t seq;
	pthread_t *th;
	int nth;
	bool stop;
	uint64_t held;                 /* capacity of the buffers lent and kept */
	struct buf_head *kept[KEPT_BUFS];
	int nkept;
};

static struct ws_pool inline_pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static bool within(const struct ws_group *g, const struct ws_group *top)
{
	for (; g; g = g->parent)
		if (g == top)
			return true;
	return false;
}

/* Whether queued task a should run before b: any task before a filler, then the deepest,
 * then the oldest. */
static bool before(const struct task *a, const struct task *b)
{
	if (a->filler != b->filler)
		return !a->filler;
	if (a->g->depth != b->g->depth)
		return a->g->depth > b->g->depth;
	return a->seq < b->seq;
}

/* The queued task to run next; only tasks of top (and its subgroups) when top is given,
 * and only of its subgroups when below. -1 when none. */
static long pick(const struct ws_pool *p, const struct ws_group *top, bool below)
{
	long best = -1;
	for (size_t i = 0; i < p->nq; i++) {
		const struct task *t = &p->q[i];
		if (top && (!within(t->g, top) || (below && t->g == top)))
			continue;
		if (best < 0 || before(t, &p->q[best]))
			best = (long)i;
	}
	return best;
}

/* Runs queued task i; called and returns with the lock held. */
static void run_queued(struct ws_pool *p, long i)
{
	struct task t = p->q[i];
	memmove(&p->q[i], &p->q[i + 1], (p->nq - (size_t)i - 1) * sizeof *p->q);
	p->nq--;
	pthread_mutex_unlock(&p->mu);
	t.fn(t.arg);
	pthread_mutex_lock(&p->mu);
	t.g->pending--;
	pthread_cond_broadcast(&p->cv);
}

static void *worker(void *arg)
{
	struct ws_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		long i = pick(p, NULL, false);
		if (i >= 0)
			run_queued(p, i);
		else if (p->stop)
			break;
		else
			pthread_cond_wait(&p->cv, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct ws_pool *ws_pool_new(int jobs)
{
	if (jobs <= 1)
		return &inline_pool;
	struct ws_pool *p = calloc(1, sizeof *p);
	if (!p)
		return &inline_pool;
	p->cap = (size_t)jobs * QUEUE_PER_THREAD;
	if (p->cap < QUEUE_MIN)
		p->cap = QUEUE_MIN;
	p->q = ws_calloc(p->cap, sizeof *p->q);
	p->th = ws_calloc((size_t)jobs - 1, sizeof *p->th);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	for (int i = 0; p->q && p->th && i < jobs - 1; i++)
		if (pthread_create(&p->th[p->nth], NULL, worker, p) == 0)
			p->nth++;
	if (p->nth == 0) {
		ws_pool_free(p);
		return &inline_pool;
	}
	return p;
}

void ws_pool_free(struct ws_pool *p)
{
	if (!p || p == &inline_pool)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	for (int i = 0; i < p->nkept; i++)
		free(p->kept[i]);
	free(p->th);
	free(p->q);
	free(p);
}

int ws_pool_width(const struct ws_pool *p)
{
	return p->nth + 1;
}

void ws_group_init(struct ws_group *g, struct ws_group *parent)
{
	g->parent = parent;
	g->depth = parent ? parent->depth + 1 : 0;
	g->pending = 0;
}

/* Queues fn(arg) in g; false when the queue is full or the pool has no threads. */
static bool enqueue(struct ws_pool *p, struct ws_group *g, ws_task_fn fn, void *arg, bool filler)
{
	if (p->nth == 0)
		return false;
	pthread_mutex_lock(&p->mu);
	if (p->nq == p->cap) {
		pthread_mutex_unlock(&p->mu);
		return false;
	}
	p->q[p->nq++] = (struct task){fn, arg, g, p->seq++, filler};
	g->pending++;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return true;
}

void ws_pool_add(struct ws_pool *p, struct ws_group *g, ws_task_fn fn, void *arg)
{
	if (!enqueue(p, g, fn, arg, false))
		fn(arg);                       /* full, or no threads: the adder does the work itself */
}

bool ws_pool_add_filler(struct ws_pool *p, struct ws_group *g, ws_task_fn fn, void *arg)
{
	return enqueue(p, g, fn, arg, true);
}

bool ws_group_wait_ms(struct ws_pool *p, struct ws_group *g, long ms)
{
	if (p->nth == 0)
		return true;
	struct timespec until;
	if (ms >= 0) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += ms / 1000;
		until.tv_nsec += (ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&p->mu);
	while (g->pending) {
		long i = pick(p, g, false);
		if (i >= 0)
			run_queued(p, i);
		else if (ms < 0)
			pthread_cond_wait(&p->cv, &p->mu);
		else if (pthread_cond_timedwait(&p->cv, &p->mu, &until) == ETIMEDOUT)
			break;
	}
	bool done = g->pending == 0;
	pthread_mutex_unlock(&p->mu);
	return done;
}

void ws_group_wait(struct ws_pool *p, struct ws_group *g)
{
	ws_group_wait_ms(p, g, -1);
}

bool ws_pool_run_one(struct ws_pool *p, struct ws_group *g)
{
	if (p->nth == 0)
		return false;
	pthread_mutex_lock(&p->mu);
	long i = pick(p, g, true);
	if (i >= 0)
		run_queued(p, i);
	pthread_mutex_unlock(&p->mu);
	return i >= 0;
}

void *ws_pool_buf_take(struct ws_pool *p, size_t n)
{
	if (p->nth == 0 || n > BYTES_BUDGET - sizeof(struct buf_head))
		return NULL;
	size_t cap = n < BUF_MIN ? BUF_MIN : n;
	struct buf_head *h = NULL, *evict[KEPT_BUFS];
	int nevict = 0;
	bool fits = false;
	pthread_mutex_lock(&p->mu);
	int best = -1;                         /* the smallest kept buffer that fits */
	for (int i = 0; i < p->nkept; i++)
		if (p->kept[i]->cap >= n && (best < 0 || p->kept[i]->cap < p->kept[best]->cap))
			best = i;
	if (best >= 0) {
		h = p->kept[best];
		p->kept[best] = p->kept[--p->nkept];
	} else {
		/* a new one: kept buffers make room for it, largest first */
		while (p->held + cap + sizeof *h > BYTES_BUDGET && p->nkept) {
			int big = 0;
			for (int i = 1; i < p->nkept; i++)
				if (p->kept[i]->cap > p->kept[big]->cap)
					big = i;
			p->held -= p->kept[big]->cap + sizeof *h;
			evict[nevict++] = p->kept[big];
			p->kept[big] = p->kept[--p->nkept];
		}
		fits = p->held + cap + sizeof *h <= BYTES_BUDGET;
		if (fits)
			p->held += cap + sizeof *h;
	}
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < nevict; i++)
		free(evict[i]);
	if (h)
		return h + 1;
	if (!fits)
		return NULL;                   /* the budget is spent */
	if (!(h = ws_malloc(sizeof *h + cap))) {
		pthread_mutex_lock(&p->mu);
		p->held -= cap + sizeof *h;
		pthread_mutex_unlock(&p->mu);
		return NULL;
	}
	h->cap = cap;
	return h + 1;
}

void ws_pool_buf_give(struct ws_pool *p, void *buf)
{
	if (!buf)
		return;
	struct buf_head *h = (struct buf_head *)buf - 1;
	pthread_mutex_lock(&p->mu);
	bool keep = p->nkept < KEPT_BUFS;
	if (keep)
		p->kept[p->nkept++] = h;
	else
		p->held -= h->cap + sizeof *h;
	pthread_mutex_unlock(&p->mu);
	if (!keep)
		free(h);
}
