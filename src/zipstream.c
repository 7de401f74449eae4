/* zipstream.c - one zip member as a stream (see ws_zipstream.h): raw deflate read
 * through libzip's ZIP_FL_COMPRESSED and inflated here (ISA-L where built with it),
 * CRC-32 and digest over what comes out, every size checked against the entry's claim.
 * The archive's limits are counted by the driver that reads the stream (source.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_inflate.h"
#include "ws_util.h"
#include "ws_zipstream.h"

#define IN_BUF WS_ZIP_IN_BUF
#define OUT_BUF WS_ZIP_OUT_BUF
#define DIRECT_MIN ((size_t)64 << 10)    /* reads this large inflate straight into the caller's buffer */

const char *ws_fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v && v % ((uint64_t)1 << 30) == 0)
		return ws_fmt(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	if (v && v % ((uint64_t)1 << 20) == 0)
		return ws_fmt(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	if (v && v % ((uint64_t)1 << 10) == 0)
		return ws_fmt(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	return ws_fmt(buf, len, "%llu bytes", (unsigned long long)v);
}

const char *ws_fmt_human(char *buf, size_t len, uint64_t v)
{
	if (v >= (uint64_t)1 << 30)
		return ws_fmt(buf, len, "%.1f GiB", (double)v / (double)((uint64_t)1 << 30));
	if (v >= (uint64_t)1 << 20)
		return ws_fmt(buf, len, "%.1f MiB", (double)v / (double)((uint64_t)1 << 20));
	if (v >= 1024)
		return ws_fmt(buf, len, "%.1f KiB", (double)v / 1024);
	return ws_fmt(buf, len, "%llu bytes", (unsigned long long)v);
}

/* libzip's messages, in this project's grammar for the common cases. */
const char *ws_zip_reason(zip_error_t *e)
{
	switch (zip_error_code_zip(e)) {
	case ZIP_ER_NOZIP: return "not a zip archive";
	case ZIP_ER_INCONS: return "zip archive is inconsistent";
	case ZIP_ER_MEMORY: return "out of memory";
	case ZIP_ER_CRC: return "crc-32 mismatch";
	case ZIP_ER_COMPNOTSUPP: return "compression method not supported";
	case ZIP_ER_ENCRNOTSUPP: return "encryption method not supported";
	default: return zip_error_strerror(e);
	}
}

zip_t *ws_zip_open_source(const struct ws_zsrc *s, int flags, struct ws_err *err)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *src = s->path ? zip_source_file_create(s->path, 0, -1, &ze)
				    : zip_source_buffer_create(s->mem, s->len, 0, &ze);
	zip_t *za = src ? zip_open_from_source(src, flags | ZIP_RDONLY, &ze) : NULL;
	if (!za) {
		ws_err_set(err, zip_error_code_zip(&ze) == ZIP_ER_MEMORY ? WS_E_MEMORY : WS_E_FORMAT, "%s",
			   ws_zip_reason(&ze));
		zip_source_free(src);
	}
	zip_error_fini(&ze);
	return za;
}

bool ws_zbuf_init(struct ws_zbuf *b)
{
	b->in = ws_malloc(IN_BUF);
	b->out = ws_malloc(OUT_BUF);
	b->inf = ws_inflate_new();
	return b->in && b->out && b->inf;
}

void ws_zbuf_fini(struct ws_zbuf *b)
{
	free(b->in);
	free(b->out);
	ws_inflate_free(b->inf);
	memset(b, 0, sizeof *b);
}

/* Read-ahead: when the pool has threads, a task inflates (and checksums) a large member
 * into a ring of slots while the scanner works on the last one, so inflate and hashing
 * cost little wall time. The task fills the free slots and ends; the reader queues it
 * again as it gives slots back, so no task ever waits for another. */
#define RING 4

struct ws_readahead {
	struct ws_pool *pool;
	struct ws_group g;           /* the fill task, at most one queued or running */
	struct ws_group *help;       /* whose subgroups' tasks the reader runs while it waits */
	pthread_mutex_t mu, zmu;
	pthread_cond_t cv;
	struct ws_mstream *m;
	uint8_t *slot[RING];
	size_t len[RING];
	unsigned head, tail;         /* filled slots: tail .. head-1 */
	bool done, cancel;
	bool queued, running;        /* the fill task's state */
};

/* ---- one member stream ------------------------------------------------- */

static long ms_fail(struct ws_mstream *m, enum ws_errcode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static long ms_fail(struct ws_mstream *m, enum ws_errcode code, const char *fmt, ...)
{
	if (!m->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(m->error.msg, sizeof m->error.msg, fmt, ap);
		va_end(ap);
		m->error.code = code;
		m->failed = true;
	}
	return -1;
}

static void ms_progress(struct ws_mstream *m, uint64_t k)
{
	if (!m->quiet && m->bg->progress)
		__atomic_fetch_add(m->bg->progress, k, __ATOMIC_RELAXED);
}

/* Opens member idx (declared inflated size `declared`) for reading; algo
 * names the digest to keep, or NULL. Returns 0, or -1 with m->err set. */
int ws_mstream_open(struct ws_mstream *m, struct ws_zip_budget *bg, zip_t *za, zip_uint64_t idx, const zip_stat_t *st,
		   const char *name, struct ws_zbuf *b, const char *algo, bool quiet)
{
	memset(m, 0, sizeof *m);
	m->bg = bg;
	m->za = za;
	m->idx = idx;
	m->name = name;
	m->b = b;
	m->quiet = quiet;
	m->declared = st->size;
	m->cur = b->out;
	if ((st->valid & ZIP_STAT_ENCRYPTION_METHOD) && st->encryption_method != ZIP_EM_NONE)
		return (int)ms_fail(m, WS_E_UNSUPPORTED, "member '%s' is encrypted", name);
	m->method = st->comp_method == ZIP_CM_DEFLATE ? 8 : st->comp_method == ZIP_CM_STORE ? 0 : -1;
	m->zf = zip_fopen_index(za, idx, m->method >= 0 ? ZIP_FL_COMPRESSED : 0);
	if (!m->zf) {
		zip_error_t *e = zip_get_error(za);
		if (zip_error_code_zip(e) == ZIP_ER_COMPNOTSUPP)
			return (int)ms_fail(m, WS_E_UNSUPPORTED, "member '%s' uses compression method %u, which this build cannot read",
					    name, (unsigned)st->comp_method);
		return (int)ms_fail(m, WS_E_IO, "cannot open member '%s': %s", name, ws_zip_reason(e));
	}
	if (m->method == 8)
		ws_inflate_reset(b->inf);
	if (algo && !(m->dg = ws_digest_new(algo)))
		return (int)ms_fail(m, WS_E_MEMORY, "out of memory");
	return 0;
}

void ws_mstream_close(struct ws_mstream *m)
{
	ws_mstream_stop_readahead(m);         /* first: its task reads through the same zip_t */
	if (m->side) {
		ws_mstream_close(m->side);
		free(m->side);
		m->side = NULL;
	}
	if (m->side_buf) {
		ws_zbuf_fini(m->side_buf);
		free(m->side_buf);
		m->side_buf = NULL;
	}
	if (m->zf)
		zip_fclose(m->zf);
	ws_digest_free(m->dg);
	m->zf = NULL;
	m->dg = NULL;
}

/* Produces up to cap inflated bytes into dst: > 0 bytes, 0 at the end, -1 on failure. */
long ws_mstream_fill(struct ws_mstream *m, uint8_t *dst, size_t cap)
{
	size_t made = 0;
	if (m->failed)
		return -1;
	if (m->end || cap == 0)
		return 0;
	if (cap > (size_t)1 << 30)
		cap = (size_t)1 << 30;
	if (m->method != 8) {
		zip_int64_t k = zip_fread(m->zf, dst, cap);
		if (k < 0 && zip_error_code_zip(zip_file_get_error(m->zf)) == ZIP_ER_CRC)
			return ms_fail(m, WS_E_INTEGRITY, "member '%s' fails its crc-32 check", m->name);   /* libzip checks stored members too */
		if (k < 0)
			return ms_fail(m, WS_E_IO, "cannot read member '%s': %s", m->name, ws_zip_reason(zip_file_get_error(m->zf)));
		if (k == 0) {
			m->end = true;
			return 0;
		}
		made = (size_t)k;
		ms_progress(m, made);
	} else {
		for (;;) {
			if (m->in_pos == m->in_len && !m->in_eof) {
				zip_int64_t k = zip_fread(m->zf, m->b->in, IN_BUF);
				if (k < 0)
					return ms_fail(m, WS_E_IO, "cannot read member '%s': %s", m->name,
						       ws_zip_reason(zip_file_get_error(m->zf)));
				m->in_pos = 0;
				m->in_len = (size_t)k;
				m->in_eof = k == 0;
				ms_progress(m, (uint64_t)k);
			}
			size_t used = 0, got = 0;
			enum ws_inflate_status s = ws_inflate_step(m->b->inf, m->b->in + m->in_pos, m->in_len - m->in_pos,
								   &used, dst, cap, &got);
			m->in_pos += used;
			if (s == WS_INFLATE_ERROR)
				return ms_fail(m, WS_E_FORMAT, "member '%s' holds corrupt deflate data", m->name);
			if (s == WS_INFLATE_END)
				m->end = true;
			if (got || m->end) {
				made = got;
				break;
			}
			if (used == 0) {
				if (m->in_eof)
					return ms_fail(m, WS_E_FORMAT, "member '%s' ends inside its deflate data", m->name);
				if (m->in_pos < m->in_len && ++m->stalls > 8)
					return ms_fail(m, WS_E_FORMAT, "member '%s' holds corrupt deflate data", m->name);
			}
		}
	}
	/* The central directory's size is a claim: a bomb that inflates past it stops here. */
	if (made > m->declared - m->produced) {
		char sz[48];
		return ms_fail(m, WS_E_INTEGRITY, "member '%s' inflates past its declared size of %s", m->name,
			       ws_fmt_size(sz, sizeof sz, m->declared));
	}
	m->produced += made;
	if (!m->quiet) {                       /* the limits are the driver's (source.c) */
		m->crc = ws_crc32(m->crc, dst, made);
		if (m->dg && !m->defer_hash)
			ws_digest_update(m->dg, dst, made);
	}
	return (long)made;
}

/* The fill task: inflates into free slots until the ring is full, the member ends, it
 * fails, or the reader cancels. */
static void pipe_fill(void *arg)
{
	struct ws_readahead *p = arg;
	struct ws_mstream *m = p->m;
	pthread_mutex_lock(&p->mu);
	p->queued = false;
	p->running = true;
	while (p->head - p->tail < RING && !p->cancel && !p->done) {
		unsigned s = p->head % RING;
		pthread_mutex_unlock(&p->mu);
		pthread_mutex_lock(&p->zmu);
		long k = ws_mstream_fill(m, p->slot[s], OUT_BUF);
		pthread_mutex_unlock(&p->zmu);
		pthread_mutex_lock(&p->mu);
		if (k > 0) {
			p->len[s] = (size_t)k;
			p->head++;
		} else {
			p->done = true;           /* m->end or m->failed is set */
		}
		pthread_cond_broadcast(&p->cv);
	}
	p->running = false;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* Queues the fill task unless it is queued or running already; lock held. */
static void pipe_kick(struct ws_readahead *p)
{
	if (p->queued || p->running || p->done || p->cancel || p->head - p->tail == RING)
		return;
	p->queued = true;
	pthread_mutex_unlock(&p->mu);
	ws_pool_add(p->pool, &p->g, pipe_fill, p);
	pthread_mutex_lock(&p->mu);
}

/* Starts the read-ahead for m; on failure m simply stays synchronous. */
void ws_mstream_readahead(struct ws_mstream *m, bool defer_hash, struct ws_pool *pool, struct ws_group *parent)
{
	struct ws_readahead *p = ws_calloc(1, sizeof *p);
	if (!p)
		return;
	uint8_t *mem = ws_malloc(RING * OUT_BUF);
	if (!mem) {
		free(p);
		return;
	}
	for (int i = 0; i < RING; i++)
		p->slot[i] = mem + (size_t)i * OUT_BUF;
	p->m = m;
	p->pool = pool;
	p->help = parent;
	ws_group_init(&p->g, parent);
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->zmu, NULL);
	pthread_cond_init(&p->cv, NULL);
	m->defer_hash = defer_hash;
	m->pp = p;
	m->zmu = &p->zmu;
	pthread_mutex_lock(&p->mu);
	pipe_kick(p);
	pthread_mutex_unlock(&p->mu);
}

/* Cancels the fill task and waits until it has ended. */
void ws_mstream_stop_readahead(struct ws_mstream *m)
{
	struct ws_readahead *p = m->pp;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->cancel = true;
	pthread_mutex_unlock(&p->mu);
	ws_group_wait(p->pool, &p->g);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->zmu);
	pthread_mutex_destroy(&p->mu);
	free(p->slot[0]);
	free(p);
	m->pp = NULL;
	m->zmu = NULL;
}

/* Gives back the slot the reader held and takes the next one; false at the end. */
bool ws_mstream_next_block(struct ws_mstream *m)
{
	struct ws_readahead *p = m->pp;
	bool got = false;
	pthread_mutex_lock(&p->mu);
	if (m->holding) {
		p->tail++;
		m->holding = false;
	}
	pipe_kick(p);
	while (p->head == p->tail && !p->done) {
		if (p->running) {
			/* the block is being inflated elsewhere: decode a payload meanwhile, and
			 * sleep only when there is none */
			pthread_mutex_unlock(&p->mu);
			bool ran = p->help && ws_pool_run_one(p->pool, p->help);
			pthread_mutex_lock(&p->mu);
			if (!ran && p->head == p->tail && p->running)
				pthread_cond_wait(&p->cv, &p->mu);
		} else {
			/* queued and not taken yet: run it here rather than wait for a thread */
			pthread_mutex_unlock(&p->mu);
			ws_group_wait(p->pool, &p->g);
			pthread_mutex_lock(&p->mu);
			pipe_kick(p);
		}
	}
	if (p->head != p->tail) {
		unsigned s = p->tail % RING;
		m->cur = p->slot[s];
		m->out_pos = 0;
		m->out_len = p->len[s];
		m->holding = got = true;
	} else {
		m->out_pos = m->out_len = 0;
	}
	pthread_mutex_unlock(&p->mu);
	if (got && m->defer_hash && m->dg)
		ws_digest_update(m->dg, m->cur, m->out_len);
	return got;
}

/* struct ws_reader.read: hands out what the sniff left, then inflates on. */
long ws_mstream_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct ws_mstream *m = ctx;
	if (m->out_pos == m->out_len) {
		if (m->pp) {
			ws_mstream_next_block(m);
		} else if (!m->failed && !m->end) {
			if (n >= DIRECT_MIN) {
				long k = ws_mstream_fill(m, buf, n);
				if (k > 0)
					return k;
			} else {
				long k = ws_mstream_fill(m, m->b->out, OUT_BUF);
				m->cur = m->b->out;
				m->out_pos = 0;
				m->out_len = k > 0 ? (size_t)k : 0;
			}
		}
	}
	if (m->out_pos < m->out_len) {
		size_t k = m->out_len - m->out_pos;
		if (k > n)
			k = n;
		memcpy(buf, m->cur + m->out_pos, k);
		m->out_pos += k;
		return (long)k;
	}
	if (m->failed)
		return ws_err_set(err, m->error.code, "%s", m->error.msg);   /* a no-op when err is m->error */
	return 0;
}

/* struct ws_reader.reread: a second stream over the same member, skipped to off. */
int ws_mstream_reread(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct ws_mstream *m = ctx;
	int rc = -1;
	if (m->zmu)
		pthread_mutex_lock(m->zmu);      /* the read-ahead task shares this zip_t */
	/* A second stream over the member, kept open: rereads that go forward (an ar archive
	 * of ELF files re-reading each one's name table) continue it instead of inflating the
	 * member from its start each time. Going backwards starts it over. */
	struct ws_mstream *s = m->side;
	if (s && (s->failed || s->produced > off)) {
		ws_mstream_close(s);
		free(s);
		s = m->side = NULL;
	}
	if (!s) {
		zip_stat_t st;
		zip_stat_init(&st);
		if (!m->side_buf && (m->side_buf = ws_calloc(1, sizeof *m->side_buf)) && !ws_zbuf_init(m->side_buf)) {
			ws_zbuf_fini(m->side_buf);
			free(m->side_buf);
			m->side_buf = NULL;
		}
		if (!m->side_buf || !(s = ws_calloc(1, sizeof *s))) {
			ws_err_set(err, WS_E_MEMORY, "out of memory");
			goto out;
		}
		if (zip_stat_index(m->za, m->idx, 0, &st) != 0 ||
		    ws_mstream_open(s, m->bg, m->za, m->idx, &st, m->name, m->side_buf, NULL, true)) {
			ws_mstream_close(s);
			free(s);
			ws_err_set(err, WS_E_IO, "cannot reopen member '%s'", m->name);
			goto out;
		}
		m->side = s;
	}
	while (s->produced < off) {
		uint64_t skip = off - s->produced;
		if (ws_mstream_fill(s, m->side_buf->out, skip < OUT_BUF ? (size_t)skip : OUT_BUF) <= 0)
			break;
	}
	size_t got = 0;
	while (s->produced == off + got && got < n) {
		long k = ws_mstream_fill(s, buf + got, n - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	if (s->failed)
		ws_err_set(err, s->error.code, "%s", s->error.msg);
	else if (got < n)
		ws_err_set(err, WS_E_FORMAT, "member '%s' ends before the range re-read", m->name);
	else
		rc = 0;
out:
	if (m->zmu)
		pthread_mutex_unlock(m->zmu);
	return rc;
}

/* Reads a whole small member into a fresh NUL-terminated buffer; NULL with err set. */
char *ws_mstream_slurp(struct ws_zip_budget *bg, zip_t *za, zip_uint64_t idx, const char *name, uint64_t max, size_t *len,
		      struct ws_zbuf *b, struct ws_err *err)
{
	zip_stat_t st;
	struct ws_mstream m;
	char *p = NULL, sz[48];
	zip_stat_init(&st);
	if (zip_stat_index(za, idx, 0, &st) != 0) {
		ws_err_set(err, WS_E_FORMAT, "cannot read the entry of '%s'", name);
		return NULL;
	}
	if (st.size > max) {
		ws_err_set(err, WS_E_LIMIT, "'%s' is larger than %s", name, ws_fmt_size(sz, sizeof sz, max));
		return NULL;
	}
	if (ws_mstream_open(&m, bg, za, idx, &st, name, b, NULL, true) == 0 && (p = ws_malloc((size_t)st.size + 1))) {
		size_t got = 0;
		long k;
		while ((k = ws_mstream_fill(&m, (uint8_t *)p + got, (size_t)st.size - got)) > 0)
			got += (size_t)k;
		if (!m.failed && got == st.size) {
			uint8_t extra;
			if (ws_mstream_fill(&m, &extra, 1) != 0 && !m.failed)   /* longer than declared */
				ms_fail(&m, WS_E_INTEGRITY, "member '%s' inflates past its declared size", name);
		}
		if (!m.failed && got != st.size)
			ms_fail(&m, WS_E_INTEGRITY, "member '%s' is shorter than declared", name);
		p[got] = '\0';
		*len = got;
	} else if (!m.failed) {
		ms_fail(&m, WS_E_MEMORY, "out of memory");
	}
	if (m.failed) {
		ws_err_set(err, m.error.code, "%s", m.error.msg);
		free(p);
		p = NULL;
	}
	ws_mstream_close(&m);
	return p;
}
