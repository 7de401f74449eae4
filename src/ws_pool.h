/* ws_pool.h - the one task pool: files, zip members and entry payloads are all tasks
 * on the same threads, sized by --jobs.
 *
 * Bounded everywhere: the queue holds at most a fixed number of tasks; a task added to a
 * full queue (or to a pool without threads) runs at once on the thread that adds it. A
 * thread that waits for a group runs that group's queued tasks (and its subgroups')
 * meanwhile, so a task may wait for the tasks it spawned without tying up a thread, and
 * no wait can deadlock. Workers take the deepest queued task first: work already started
 * (a member of an open wheel, an entry of a member being read) finishes before new work
 * (the next file) begins, which keeps what is held in memory small.
 *
 * Modelled on zstd's POOL_create (lib/common/pool.c): a fixed set of threads and a
 * bounded queue, nothing else.
 */
#ifndef WS_POOL_H
#define WS_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ws_pool;

/* Tasks that can be waited for together. A group lives on its creator's stack. */
struct ws_group {
	struct ws_group *parent;
	unsigned depth;
	size_t pending;                /* added and not yet finished, under the pool's lock */
};

typedef void (*ws_task_fn)(void *arg);

/* A pool for `jobs` CPUs: jobs - 1 threads, the caller being the last. jobs <= 1: no
 * threads, every task runs where it is added. Never NULL: without memory or threads the
 * pool runs everything in place. */
struct ws_pool *ws_pool_new(int jobs);
/* Waits for every task, then stops the threads. */
void ws_pool_free(struct ws_pool *p);
/* How many threads may run tasks at once (1 for an inline pool). */
int ws_pool_width(const struct ws_pool *p);

/* parent NULL: a top-level group. */
void ws_group_init(struct ws_group *g, struct ws_group *parent);

/* Queues fn(arg) in g, or runs it now when the queue is full or there are no threads. */
void ws_pool_add(struct ws_pool *p, struct ws_group *g, ws_task_fn fn, void *arg);

/* Queues fn(arg) in g as a filler: a thread takes it only when no other task is queued,
 * so work that no result waits for early (a file's own checksum) fills the gaps the
 * other tasks leave. fn does a short step and queues the next itself. Returns false when
 * it was not queued (a full queue, no threads): the caller then does the step itself. */
bool ws_pool_add_filler(struct ws_pool *p, struct ws_group *g, ws_task_fn fn, void *arg);

/* Returns when every task of g has finished; runs g's queued tasks meanwhile. */
void ws_group_wait(struct ws_pool *p, struct ws_group *g);

/* Like ws_group_wait, but gives up after ms milliseconds (for a progress display);
 * returns true when g is done. */
bool ws_group_wait_ms(struct ws_pool *p, struct ws_group *g, long ms);

/* Runs one queued task of a subgroup of g (not of g itself), if there is one: a thread
 * that must wait for something else (a read-ahead block) does useful work meanwhile
 * without taking on a whole sibling task. Returns true when it ran one. */
bool ws_pool_run_one(struct ws_pool *p, struct ws_group *g);

/* Buffers for what queued tasks hold (payload copies), within one budget for the whole
 * pool so that memory does not grow with the number of threads or inputs. take returns a
 * buffer of at least n bytes, or NULL when it would pass the budget (or the pool has no
 * threads), and the caller then does the work in place. A buffer given back is kept for
 * the next take, within the same budget. */
void *ws_pool_buf_take(struct ws_pool *p, size_t n);
void ws_pool_buf_give(struct ws_pool *p, void *buf);

#endif
