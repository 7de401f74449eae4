/* test_pool.c - the task pool: every task runs exactly once, groups wait for their own
 * tasks only, nested waits (a task waiting for the tasks it spawned, three levels deep,
 * more tasks than the queue holds) finish on any number of threads, the queue's
 * bound holds, and fillers wait for every other task. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "ws_pool.h"

static struct ws_pool *pool;
static atomic_int running, most_running;

struct leaf {
	atomic_int *count;
	int us;                        /* how long the task works */
};

static void leaf_run(void *arg)
{
	struct leaf *l = arg;
	int now = atomic_fetch_add(&running, 1) + 1;
	for (int m = atomic_load(&most_running); now > m && !atomic_compare_exchange_weak(&most_running, &m, now);)
		;
	if (l->us)
		usleep((useconds_t)l->us);
	atomic_fetch_add(l->count, 1);
	atomic_fetch_sub(&running, 1);
}

/* A "member": spawns n leaves in its own group and waits for them, as a zip member
 * waits for its entry payloads. */
struct member {
	struct ws_group *parent;
	atomic_int *count;
	int n;
	bool done_after_wait;          /* every leaf had finished when the wait returned */
};

static void member_run(void *arg)
{
	struct member *m = arg;
	struct ws_group g;
	ws_group_init(&g, m->parent);
	atomic_int mine = 0;
	struct leaf *l = calloc((size_t)m->n, sizeof *l);
	for (int i = 0; i < m->n; i++) {
		l[i] = (struct leaf){&mine, i % 7 == 0 ? 200 : 0};
		ws_pool_add(pool, &g, leaf_run, &l[i]);
	}
	ws_group_wait(pool, &g);
	m->done_after_wait = atomic_load(&mine) == m->n;
	atomic_fetch_add(m->count, atomic_load(&mine));
	free(l);
}

/* A "file": spawns members, each spawning leaves. */
struct file {
	struct ws_group *parent;
	atomic_int count;
	bool all_waited;
};

static void file_run(void *arg)
{
	struct file *f = arg;
	struct ws_group g;
	ws_group_init(&g, f->parent);
	struct member m[12];
	for (int i = 0; i < 12; i++) {
		m[i] = (struct member){&g, &f->count, 5 + i * 3, false};
		ws_pool_add(pool, &g, member_run, &m[i]);
	}
	ws_group_wait(pool, &g);
	f->all_waited = true;
	for (int i = 0; i < 12; i++)
		f->all_waited &= m[i].done_after_wait;
}

static void test_nested(int jobs)
{
	pool = ws_pool_new(jobs);
	CHECK_EQ_INT(ws_pool_width(pool), jobs < 1 ? 1 : jobs);
	/* files, each in its own top-level group, waited for in order as the reporter does */
	enum { NFILES = 9 };
	struct ws_group g[NFILES];
	struct file f[NFILES];
	int want = 0;
	for (int i = 0; i < 12; i++)
		want += 5 + i * 3;
	for (int i = 0; i < NFILES; i++) {
		ws_group_init(&g[i], NULL);
		f[i] = (struct file){&g[i], 0, false};
		ws_pool_add(pool, &g[i], file_run, &f[i]);
	}
	bool all = true;
	for (int i = 0; i < NFILES; i++) {
		ws_group_wait(pool, &g[i]);
		all &= atomic_load(&f[i].count) == want && f[i].all_waited && g[i].pending == 0;
	}
	CHECK(all, "jobs %d: every leaf ran once and every wait returned after its own tasks", jobs);
	ws_pool_free(pool);
}

static void test_parallel_and_bounded(void)
{
	/* 4 CPUs: at most 4 tasks at once (3 threads and the waiter), and they do overlap */
	pool = ws_pool_new(4);
	atomic_store(&most_running, 0);
	struct ws_group g;
	ws_group_init(&g, NULL);
	atomic_int count = 0;
	struct leaf l[64];
	for (int i = 0; i < 64; i++) {
		l[i] = (struct leaf){&count, 2000};
		ws_pool_add(pool, &g, leaf_run, &l[i]);
	}
	/* queued (at most 4 per CPU) plus running (3 threads): the rest ran in the adder */
	CHECK(g.pending <= 16 + 3, "%zu pending", g.pending);
	ws_group_wait(pool, &g);
	CHECK_EQ_INT(atomic_load(&count), 64);
	CHECK(atomic_load(&most_running) >= 2 && atomic_load(&most_running) <= 4,
	      "tasks at once: %d", atomic_load(&most_running));
	ws_pool_free(pool);
}

static void test_wait_ms(void)
{
	pool = ws_pool_new(2);
	struct ws_group g;
	ws_group_init(&g, NULL);
	atomic_int count = 0;
	struct leaf l = {&count, 300000};
	ws_pool_add(pool, &g, leaf_run, &l);
	usleep(20000);                       /* let the thread take it */
	bool early = ws_group_wait_ms(pool, &g, 10);
	CHECK(!early, "a 300 ms task is not done after 10 ms");
	CHECK(ws_group_wait_ms(pool, &g, 5000), "and is done within 5 s");
	CHECK_EQ_INT(atomic_load(&count), 1);
	ws_pool_free(pool);
}

/* run_one takes a task of a subgroup, never one of the group itself (a sibling member
 * would be a whole file's worth of work for a thread that only waits for a block). */
static void test_run_one(void)
{
	pool = ws_pool_new(2);
	struct ws_group top, sub;
	ws_group_init(&top, NULL);
	ws_group_init(&sub, &top);
	atomic_int a = 0, b = 0;
	struct leaf slow = {&a, 200000}, own = {&a, 0}, child = {&b, 0};
	ws_pool_add(pool, &top, leaf_run, &slow);   /* keeps the one thread busy */
	usleep(20000);
	ws_pool_add(pool, &top, leaf_run, &own);
	ws_pool_add(pool, &sub, leaf_run, &child);
	bool ran = ws_pool_run_one(pool, &top);
	CHECK(ran && atomic_load(&b) == 1, "the subgroup's task ran here");
	CHECK(!ws_pool_run_one(pool, &top), "the group's own task is not taken");
	ws_group_wait(pool, &sub);
	ws_group_wait(pool, &top);
	CHECK_EQ_INT(atomic_load(&a) + atomic_load(&b), 3);
	ws_pool_free(pool);
}

/* A filler waits while any other task is queued, even one queued after it; without
 * threads it is refused, and the caller does the step itself. */
static atomic_int order;
struct ordered { int at; };
static void ordered_run(void *arg)
{
	((struct ordered *)arg)->at = atomic_fetch_add(&order, 1);
}

static void test_filler(void)
{
	pool = ws_pool_new(2);
	struct ws_group g;
	ws_group_init(&g, NULL);
	atomic_int a = 0;
	struct leaf slow = {&a, 100000};
	struct ordered fill = {-1}, task = {-1};
	ws_pool_add(pool, &g, leaf_run, &slow);       /* keeps the one thread busy */
	usleep(20000);
	atomic_store(&order, 0);
	CHECK(ws_pool_add_filler(pool, &g, ordered_run, &fill), "a filler is queued");
	ws_pool_add(pool, &g, ordered_run, &task);
	ws_group_wait(pool, &g);
	CHECK(task.at == 0 && fill.at == 1, "the task queued later ran first (task %d, filler %d)", task.at, fill.at);
	ws_pool_free(pool);
	pool = ws_pool_new(1);
	CHECK(!ws_pool_add_filler(pool, &g, ordered_run, &fill), "no threads: the filler is the caller's");
	ws_pool_free(pool);
}

/* Lent buffers: within one budget for those lent and those kept; a buffer given back is
 * lent again; none without threads. */
static void test_bufs(void)
{
	pool = ws_pool_new(2);
	uint8_t *a = ws_pool_buf_take(pool, 3u << 20), *b = ws_pool_buf_take(pool, 2u << 20);
	CHECK(a != NULL && b == NULL, "3 MiB lent, 2 MiB more is past the 4 MiB budget");
	memset(a, 0x5a, 3u << 20);
	ws_pool_buf_give(pool, a);
	uint8_t *c = ws_pool_buf_take(pool, 1u << 20);
	CHECK(c == a, "the buffer given back is lent again");
	ws_pool_buf_give(pool, c);
	uint8_t *d = ws_pool_buf_take(pool, (3u << 20) + 1);
	CHECK(d != NULL && d != a, "a larger one replaces the kept one within the budget");
	CHECK(ws_pool_buf_take(pool, 1u << 20) == NULL, "and the budget holds");
	ws_pool_buf_give(pool, d);
	CHECK(ws_pool_buf_take(pool, 5u << 20) == NULL, "nothing past the budget");
	ws_pool_free(pool);
	pool = ws_pool_new(1);
	CHECK(ws_pool_buf_take(pool, 100) == NULL, "no threads: nothing is queued, nothing lent");
	ws_pool_free(pool);
}

int main(void)
{
	test_bufs();
	test_filler();
	test_run_one();
	test_nested(1);
	test_nested(2);
	test_nested(3);
	test_nested(8);
	test_parallel_and_bounded();
	test_wait_ms();
	return ws_test_done();
}
