/* source_random.c - a random-access source (a zip, a directory of files): its members as
 * tasks on the pool, the largest first, each runner with its own scratch and scanner; each
 * member's objects, errors and digest kept apart and merged into the artifact in member
 * order, so the report is the same whatever order the tasks ran in. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drive.h"
#include "ws_quote.h"
#include "ws_dynlib.h"
#include "ws_zipstream.h"

#define RUNNERS_MAX 64

/* What each member leaves until the merge: held for every member of an archive at once,
 * so kept small (16 bytes on 64-bit systems; the limit on members bounds the array). A
 * member that leaves nothing but counts (most of them) gives its artifact back at once and
 * keeps its inflated bytes in its place; its digest, where a check asked for one, is in
 * the job's digest slots, allocated only when the archive has a check. */
#define MD_INLINE 32
struct rres {
	union {
		struct ws_artifact *tmp;       /* kept: its objects and errors */
		uint64_t got;                  /* else: the bytes it read (inflated) */
	} u;
	uint32_t scanned;              /* the given-back tmp's count (saturated) */
	uint8_t state;                 /* enum ws_member_state */
	uint8_t dl;                    /* digest bytes; 0: none */
	bool kept;                     /* u.tmp, not u.got */
};

/* A member's slot: a digest of up to 32 bytes in place (SHA-256, MD5), a pointer to a
 * longer one (RECORD's sha384/sha512) on the heap. */
typedef uint8_t md_slot[MD_INLINE];

static const uint8_t *rres_md(const md_slot *slots, const struct rres *r, uint32_t i)
{
	if (!r->dl)
		return NULL;
	if (r->dl <= MD_INLINE)
		return slots[i];
	const uint8_t *heap;
	memcpy(&heap, slots[i], sizeof heap);
	return heap;
}

/* What a member read: its artifact's count while it is kept, else what was left. */
static uint64_t rres_got(const struct rres *r)
{
	return r->kept ? r->u.tmp->bytes_inflated : r->u.got;
}

/* Gives a member's artifact back, keeping its counts in its place. */
static void rres_give_back(struct rres *r)
{
	struct ws_artifact *t = r->u.tmp;
	r->scanned = t->members_scanned < UINT32_MAX ? (uint32_t)t->members_scanned : UINT32_MAX;
	r->u.got = t->bytes_inflated;
	r->kept = false;
	t->path = NULL;
	ws_artifact_free(t);
}

struct rjob {
	struct ws_drive *d;
	struct ws_rsource *s;
	struct ws_pool *pool;
	struct ws_group runners;       /* the runners, and under them what their scans spawn */
	struct rres *res;
	md_slot *md;                   /* a slot per member when a check wants digests, else NULL */
	uint32_t *task;                /* member indices, largest first */
	uint32_t ntask, next;
	struct ws_group beside;        /* the source's steps beside the members, as fillers */
};

static bool skipped(const struct ws_rsource *s, uint32_t i)
{
	return (s->skip && s->skip[i]) || (s->same_as && s->same_as[i] != UINT32_MAX);
}

/* One member on runner h (NULL when the runner could not open one: herr says why). */
static void run_member(struct rjob *j, void *h, const struct ws_err *herr, uint32_t i, uint8_t *scratch)
{
	struct ws_drive *d = j->d;
	struct ws_rsource *s = j->s;
	struct rres *r = &j->res[i];
	const char *name = s->names[i];
	char nb[WS_NAME_SHOWN], where[WS_NAME_SHOWN + 512];
	if (__atomic_load_n(&d->root->stopped, __ATOMIC_RELAXED))
		return;                                /* the total limit: the rest is skipped */
	struct ws_artifact *t = ws_calloc(1, sizeof *t);
	if (!t)
		return;
	r->u.tmp = t;
	r->kept = true;
	t->path = d->a->path;                  /* borrowed: the scanner names errors with it */
	t->budget = d->scan.budget;            /* members together hold one artifact's errors */
	t->max_errors = d->lim.max_artifact_errors;
	ws_sanitize(nb, sizeof nb, name, strlen(name));
	if (s->zip_style)
		ws_fmt(where, sizeof where, "%s", d->label);
	else
		ws_fmt(where, sizeof where, "%s!%s", d->label, nb);
	if (ws_path_escapes(name, s->windows_names))
		ws_artifact_error(t, d->label, "member name '%s' escapes the archive", nb);
	if (!h) {
		if (s->zip_style)
			ws_artifact_fail(t, where, herr->code, "cannot read member '%s': %s", nb, herr->msg);
		else
			ws_artifact_fail(t, where, herr->code, "%s", herr->msg);
		return;
	}
	uint64_t size = s->size ? s->size[i] : UINT64_MAX;
	if (size != UINT64_MAX && size > d->lim.max_member_bytes) {
		ws_drive_member_over(d, t, where, nb, s->zip_style, size, s->stored_members);
		return;
	}
	const char *algo = ws_drive_algo(d, name, NULL);
	struct ws_digest *dg = !algo ? NULL : strcmp(algo, "md5") == 0 ? ws_digest_new_md5() : ws_digest_new(algo);
	if (algo && !dg) {
		ws_artifact_fail(t, where, WS_E_MEMORY, "out of memory");
		return;
	}
	struct ws_member m = { 0 };
	struct ws_err e = { 0 };
	int rc = s->ops->open(s, h, i, dg, &m, &e);
	if (rc > 0 && s->stored_members && m.size != UINT64_MAX)
		ws_budget_add_input(d->scan.budget, m.size);    /* before it is decoded */
	if (rc == 0) {
		r->state = WS_MEMBER_ABSENT;
		ws_digest_free(dg);
		return;
	}
	if (rc < 0) {
		ws_artifact_fail(t, where, e.code ? e.code : WS_E_IO, "%s", e.code ? e.msg : "cannot open");
		ws_digest_free(dg);
		return;
	}
	struct mout o = { .dg = dg, .hashed = m.hashed, .drain = s->drain || d->nchecks, .zip_style = s->zip_style,
			  .hash_only = s->hash_only && s->hash_only[i], .nest = s->nest };
	struct ws_drive md = *d;               /* the member's own walk; totals stay the root's */
	md.a = t;
	md.stopped = false;
	bool over = m.size != UINT64_MAX && m.size > d->lim.max_member_bytes;
	if (over)
		ws_drive_member_over(d, t, where, nb, s->zip_style, m.size, s->stored_members);
	else
		ws_drive_member(&md, name, &m.rd, m.size, 1, scratch, &o);
	struct ws_err ce = { 0 };
	bool checked = s->ops->close(s, h, &ce) == 0;   /* after it the source no longer feeds dg */
	if (!checked)
		ws_artifact_fail(t, where, ce.code, "%s", ce.msg);
	if (!over && o.end && !o.failed && checked) {
		r->state = WS_MEMBER_READ;
		uint8_t digest[WS_DIGEST_MAX];
		size_t dl = dg ? ws_digest_final(dg, digest) : 0;
		uint8_t *heap;
		if (!j->md)
			dl = 0;                        /* no check asked (nor could one have) */
		else if (dl > MD_INLINE && (heap = ws_malloc(dl))) {
			memcpy(heap, digest, dl);
			memcpy(j->md[i], &heap, sizeof heap);
		} else if (dl > 0 && dl <= MD_INLINE)
			memcpy(j->md[i], digest, dl);
		else
			dl = 0;
		r->dl = (uint8_t)dl;
		if (dg && !dl)
			r->state = WS_MEMBER_UNREAD;
	}
	ws_digest_free(dg);
}

struct member_runner {
	struct rjob *j;
	bool first;
};

/* Takes tasks off the shared list until none are left; opens its handle on first use. */
static void run_tasks(void *arg)
{
	struct member_runner *w = arg;
	struct rjob *j = w->j;
	struct ws_rsource *s = j->s;
	void *h = NULL;
	bool tried = false;
	struct ws_err herr = { 0 };
	uint8_t *scratch = NULL;
	for (;;) {
		uint32_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (k >= j->ntask)
			break;
		uint32_t i = j->task[k];
		if (!tried) {
			tried = true;
			h = s->ops->runner_open(s, w->first, &j->d->scan, &herr);
			if (h && !(scratch = ws_malloc(SCRATCH))) {
				s->ops->runner_close(s, h);
				h = NULL;
				ws_err_set(&herr, WS_E_MEMORY, "out of memory");
			}
		}
		run_member(j, h, &herr, i, scratch);
		/* most members leave nothing to merge but counts: their 300-byte artifact goes
		 * now, not after the last member (100,000 members held 30 MB of them) */
		struct rres *r = &j->res[i];
		if (r->kept && !r->u.tmp->nobjects && !r->u.tmp->nerrors && !r->u.tmp->nlibs)
			rres_give_back(r);
	}
	if (h)
		s->ops->runner_close(s, h);
	free(scratch);
}

static int cmp_task(const void *x, const void *y, void *ctx)
{
	const struct rjob *j = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t sa = j->s->cost[a], sb = j->s->cost[b];
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The source's work beside the members, a step at a time, queued as a filler after each
 * step so that it runs where the members leave a thread idle; where it cannot be queued
 * (no threads, a full queue) the steps go on here. */
static void beside_steps(void *arg)
{
	struct rjob *j = arg;
	while (j->s->ops->beside_step(j->s))
		if (ws_pool_add_filler(j->pool, &j->beside, beside_steps, j))
			return;
}

/* Moves a member's objects and errors into the artifact, then tells the checks. */
static void merge_member(struct ws_drive *d, struct ws_rsource *s, const struct rjob *j, uint32_t i)
{
	struct ws_artifact *a = d->a;
	struct rres *res = j->res, *r = &res[i];
	if (s->skip && s->skip[i])
		return;
	if (r->kept) {
		struct ws_artifact *t = r->u.tmp;
		for (uint32_t k = 0; k < t->nobjects; k++) {
			struct ws_object *o = ws_artifact_add_object(a);
			if (!o) {
				ws_object_clear(&t->objects[k]);
				continue;
			}
			*o = t->objects[k];
		}
		free(t->objects);
		t->objects = NULL;
		t->nobjects = 0;
		for (uint32_t k = 0; k < t->nerrors; k++)
			ws_artifact_fail(a, t->errors[k].where, t->errors[k].code, "%s", t->errors[k].message);
		for (uint32_t k = 0; k < t->nlibs; k++)      /* the load resolution's facts */
			if (ws_artifact_add_dynlib(a, &t->libs[k]) < 0)
				ws_artifact_fail(a, t->libs[k].member, WS_E_MEMORY, "out of memory");
		/* a zip counts a member that holds an archive once, whatever it holds */
		if (s->zip_style && t->members_scanned > 1)
			t->members_scanned = 1;
		a->members_scanned += t->members_scanned;
		a->bytes_inflated += t->bytes_inflated;
		rres_give_back(r);                     /* a same_as member may ask its size later */
	} else {
		a->members_scanned += s->zip_style && r->scanned > 1 ? 1 : r->scanned;
		a->bytes_inflated += r->u.got;         /* what tmp counted, as run_member left it */
	}
	uint32_t vi = s->same_as && s->same_as[i] != UINT32_MAX ? s->same_as[i] : i;
	const struct rres *v = &res[vi];
	/* told to every check: a member's digest is the first check's that asked (one a source) */
	struct ws_told t = { .name = s->names[i], .state = (enum ws_member_state)v->state,
			     .md = j->md ? rres_md(j->md, v, vi) : NULL, .dl = j->md ? v->dl : 0, .size = rres_got(v) };
	ws_drive_tell(d, &t, NULL);
}

int ws_drive_random(struct ws_drive *d, struct ws_rsource *s)
{
	struct ws_artifact *a = d->a;
	uint32_t nerr0 = a->nerrors;
	struct rjob j = { .d = d, .s = s, .pool = d->scan.pool };
	if (__atomic_add_fetch(&d->root->members, s->n, __ATOMIC_RELAXED) > d->lim.max_members) {
		ws_artifact_fail(a, d->label, WS_E_LIMIT, "archive holds more than the limit of %u members", d->lim.max_members);
		d->stopped = true;
		return -1;
	}
	j.res = s->n ? ws_calloc(s->n, sizeof *j.res) : NULL;
	j.task = ws_calloc((size_t)s->n + 1, sizeof *j.task);
	/* digests only where a check can ask for one (ws_drive_algo asks the checks) */
	j.md = d->nchecks && s->n ? ws_calloc(s->n, sizeof *j.md) : NULL;
	if ((s->n && !j.res) || !j.task || (d->nchecks && s->n && !j.md)) {
		ws_artifact_fail(a, d->label, WS_E_MEMORY, "out of memory");
		free(j.res);
		free(j.task);
		free(j.md);
		return -1;
	}
	if (!j.pool)
		j.pool = ws_pool_new(1);             /* no threads: everything in place */
	ws_group_init(&j.runners, d->scan.group);
	/* the members' payload tasks hang below this source's runners */
	struct ws_drive rd = *d;
	rd.scan.pool = j.pool;
	rd.scan.group = &j.runners;
	rd.scan.lim = &d->lim;
	j.d = &rd;
	rd.root = d->root;
	for (uint32_t i = 0; i < s->n; i++)
		if (!skipped(s, i))
			j.task[j.ntask++] = i;
	/* largest first: the long members start early and the threads finish together; with
	 * one thread, member order */
	int runners = ws_pool_width(j.pool);
	if (runners > 1 && s->cost)
		qsort_r(j.task, j.ntask, sizeof *j.task, cmp_task, &j);
	if ((uint32_t)runners > j.ntask)
		runners = j.ntask ? (int)j.ntask : 1;
	/* a runner costs its own handle (a zip's: its whole directory again, 330 bytes a
	 * member): one per 16 MiB to read at least, where the sizes are known */
	if (runners > 1 && s->cost) {
		uint64_t total = 0;
		for (uint32_t k = 0; k < j.ntask; k++)
			total += s->cost[j.task[k]] < ((uint64_t)1 << 40) ? s->cost[j.task[k]] : (uint64_t)1 << 40;
		uint64_t want = 1 + total / ((uint64_t)16 << 20);
		if (want < (uint64_t)runners)
			runners = (int)want;
	}
	if (runners > RUNNERS_MAX)
		runners = RUNNERS_MAX;
	struct member_runner w[RUNNERS_MAX];
	for (int t = 1; t < runners; t++) {
		w[t] = (struct member_runner){ .j = &j };
		ws_pool_add(j.pool, &j.runners, run_tasks, &w[t]);
	}
	ws_group_init(&j.beside, &j.runners);
	if (s->ops->beside_step && !ws_pool_add_filler(j.pool, &j.beside, beside_steps, &j))
		beside_steps(&j);
	w[0] = (struct member_runner){ .j = &j, .first = true };
	run_tasks(&w[0]);
	ws_group_wait(j.pool, &j.runners);
	ws_group_wait(j.pool, &j.beside);
	/* merged in member order: the output does not depend on --jobs */
	for (uint32_t i = 0; i < s->n; i++)
		merge_member(d, s, &j, i);
	if (__atomic_load_n(&d->root->stopped, __ATOMIC_RELAXED)) {
		d->stopped = true;
		if (s->zip_style) {
			char sz[48];
			ws_artifact_fail(a, d->label, WS_E_LIMIT, "archive inflates past the %s total limit; members after it were skipped",
					  ws_fmt_size(sz, sizeof sz, d->lim.max_total_bytes));
		}
	}
	for (uint32_t i = 0; i < s->n; i++) {
		if (j.res[i].kept) {
			j.res[i].u.tmp->path = NULL;
			ws_artifact_free(j.res[i].u.tmp);
		}
		if (j.md && j.res[i].dl > MD_INLINE)
			free((void *)rres_md(j.md, &j.res[i], i));
	}
	free(j.res);
	free(j.md);
	free(j.task);
	return a->nerrors > nerr0 ? -1 : 0;
}
