/* scan_fatbin.c - the fatbin containers of one object: found by searching for the magic
 * (every candidate validated before it is believed), each container's entries walked within
 * the limits and the artifact's budget, every payload decoded here or queued for the
 * decoders (the offload of ws_scan.h), and the decoded facts applied in entry order. Errors are named
 * "path!member" like every error of the scan. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "scan_state.h"
#include "ws_compat.h"
#include "ws_util.h"

#define SEARCH_CHUNK ((size_t)1 << 20)

/* "path!member" (or "path") for error lines, into buf. */
static const char *where(const struct scan *s, const char *obj, char *buf, size_t len)
{
	const char *path = s->a->path ? s->a->path : "";
	if (obj)
		ws_fmt(buf, len, "%s!%s", path, obj);
	else
		ws_fmt(buf, len, "%s", path);
	return buf;
}

void ws_scan_obj_fail(const struct scan *s, const struct ws_object *o, enum ws_errcode code, const char *msg)
{
	char wb[1024];
	ws_artifact_fail(s->a, where(s, o ? o->member : s->member, wb, sizeof wb), code, "%s", msg);
}

void ws_scan_obj_error(const struct scan *s, const struct ws_object *o, const char *msg)
{
	ws_scan_obj_fail(s, o, WS_E_FORMAT, msg);
}

/* A read that failed (the reader's error, now reported here with what was being read)
 * or came up short (the input is truncated). */
void ws_scan_window_error(const struct scan *s, const struct ws_object *o, const char *what)
{
	char msg[WS_ERRMAX + 64];
	struct ws_err *e = s->w->err;
	bool failed = s->w->failed && e->code;
	ws_fmt(msg, sizeof msg, "%s: %s", what, failed ? e->msg : "unexpected end of data");
	ws_scan_obj_fail(s, o, failed ? e->code : WS_E_FORMAT, msg);
	if (failed)
		e->reported = true;
}

static struct ws_entry *add_entry(struct ws_fatbin *f, uint32_t *cap)
{
	if (!ws_grow((void **)&f->entries, cap, f->nentries + 1, sizeof *f->entries))
		return NULL;
	struct ws_entry *e = &f->entries[f->nentries++];
	memset(e, 0, sizeof *e);
	return e;
}

/* Most containers hold one to a dozen entries (cuFFT: 24,000 containers of one):
 * give back the room the array grew into. */
static void shrink_entries(struct ws_fatbin *f, uint32_t cap)
{
	if (f->nentries && f->nentries < cap) {
		struct ws_entry *e = realloc(f->entries, f->nentries * sizeof *e);
		if (e)
			f->entries = e;
	}
}

void ws_scan_entry_fail(const struct scan *s, struct ws_object *o, struct ws_entry *e,
		       enum ws_errcode code, const char *msg)
{
	if (!e->error)
		e->error = ws_strdup(msg);
	ws_scan_obj_fail(s, o, code, msg);
}

static void entry_error(const struct scan *s, struct ws_object *o, struct ws_entry *e,
			const char *msg)
{
	ws_scan_entry_fail(s, o, e, WS_E_FORMAT, msg);
}

/* Takes the bytes an entry decodes to (n) from the artifact's budget before it is
 * decoded. Spent: the entry is not decoded (its kernels stay unknown, never "none"), and
 * the first to find it spent records the one error about it, naming the artifact. */
bool ws_scan_budget_decode(struct scan *s, struct ws_entry *e, uint64_t n)
{
	/* a compressed entry takes what it decodes to, once that claim is possible (one that
	 * is not is refused by the decoder, unread, with its own error) */
	struct ws_err err = {0};
	if (e->compression != WS_COMP_NONE) {
		if (ws_payload_check(e, (size_t)n, &s->lim, &err) < 0)
			return true;
		n = e->uncompressed_size;
	}
	enum ws_budget_take t = ws_budget_decode(s->budget, &s->lim, n);
	if (t == WS_BUDGET_OK)
		return true;
	if (t == WS_BUDGET_SPENT_NOW) {
		ws_artifact_fail(s->a, s->a->path ? s->a->path : "", WS_E_LIMIT,
				 "decoded entry bytes exceed %llu: a decompression bomb? the remaining entries were not decoded",
				 (unsigned long long)ws_budget_decoded_max(s->budget, &s->lim));
	}
	if (!e->error)
		e->error = ws_strdup("not decoded: the artifact's decoded-bytes limit is spent");
	e->kernels_known = false;
	return false;
}

/* Decodes a SASS or PTX payload for its kernels and version facts. */
static void inspect_payload(struct scan *s, struct ws_object *o, struct ws_entry *e,
			    const uint8_t *p, size_t n)
{
	struct ws_err err = {0};
	if (!s->dc && !(s->dc = s->opt->offload ? s->opt->offload->take(s->opt->decoders) : ws_decoder_new())) {
		ws_scan_entry_fail(s, o, e, WS_E_MEMORY, "out of memory for a decoder");
		return;
	}
	if (ws_entry_inspect(s->dc, p, n, e, &o->kernels, &s->lim, &err) < 0)
		ws_scan_entry_fail(s, o, e, err.code, err.msg);
	ws_entry_finish(e);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* Distinct kernels over all entries of a container. */
void ws_scan_count_kernels(struct ws_fatbin *f)
{
	size_t total = 0;
	for (uint32_t i = 0; i < f->nentries; i++)
		total += f->entries[i].nkernels;
	f->nkernels = 0;
	if (total == 0)
		return;
	uint32_t *all = ws_calloc(total, sizeof *all);
	if (!all) {
		f->nkernels = UINT32_MAX;              /* unknown, but not zero */
		return;
	}
	size_t k = 0;
	for (uint32_t i = 0; i < f->nentries; i++)
		for (uint32_t j = 0; j < f->entries[i].nkernels; j++)
			all[k++] = f->entries[i].kernels[j];
	qsort(all, total, sizeof *all, cmp_u32);
	for (size_t i = 0; i < total; i++)
		if (i == 0 || all[i] != all[i - 1])
			f->nkernels++;
	free(all);
}

static void apply_decoded(struct scan *s, struct ws_object *o, bool wait);

/* The payload of entry e (ps bytes at offset at) decoded here or queued for the decoders,
 * unless it is over the entry limit or the budget is spent. False when the window cannot
 * give the bytes (the object's scan stops). */
static bool decode_payload(struct scan *s, struct ws_object *o, struct ws_fatbin *f, struct ws_entry *e,
			   uint64_t at, uint64_t ps)
{
	char msg[WS_ERRMAX + 64];
	size_t got;
	if (ps > s->lim.max_entry_bytes) {
		ws_scan_entry_fail(s, o, e, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "%s: payload of %llu bytes exceeds the entry limit",
						    e->name, (unsigned long long)ps));
		return true;
	}
	const uint8_t *p = ws_window_peek(s->w, at, (size_t)ps, &got);
	if (!p || got < ps) {
		ws_scan_window_error(s, o, "fatbin entry payload");
		return false;
	}
	if (!ws_scan_budget_decode(s, e, ps))
		;
	else if (!s->q)
		inspect_payload(s, o, e, p, (size_t)ps);
	else if (s->opt->offload->push(s->q, (uint32_t)(f - o->fatbins), f->nentries - 1,
				       e, p, (size_t)ps) < 0)
		entry_error(s, o, e, "out of memory queueing a payload");
	return true;
}

/* Decodes the container at `start` (already validated as a candidate) and
 * returns where the search should go on. */
static uint64_t scan_container(struct scan *s, struct ws_object *o, uint64_t origin,
			       uint64_t start, uint64_t limit)
{
	struct ws_err err = {0};
	char msg[WS_ERRMAX + 64];
	size_t got;
	const uint8_t *p = ws_window_peek(s->w, start, WS_FATBIN_HEADER_SIZE, &got);
	uint64_t fat, end;
	if (!p || got < WS_FATBIN_HEADER_SIZE) {
		ws_scan_window_error(s, o, "fatbin header");
		return limit;
	}
	if (ws_fatbin_header(p, got, &fat, &err) < 0)
		return start + 1;                       /* cannot happen after the candidate check */
	if (!ws_add_u64(start + WS_FATBIN_HEADER_SIZE, fat, &end) || end > limit) {
		ws_scan_obj_error(s, o, ws_fmt(msg, sizeof msg,
				       "fatbin at offset %llu claims %llu bytes, past the end of the object",
				       (unsigned long long)(start - origin), (unsigned long long)fat));
		return start + WS_FATBIN_HEADER_SIZE;
	}
	if (o->nfatbins >= s->lim.max_containers) {
		ws_scan_obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "more than %u fatbin containers",
				       s->lim.max_containers));
		return limit;
	}
	enum ws_budget_take bt = ws_budget_container(s->budget, &s->lim);
	if (bt != WS_BUDGET_OK) {
		if (bt == WS_BUDGET_SPENT_NOW)
			ws_artifact_fail(s->a, s->a->path ? s->a->path : "", WS_E_LIMIT,
					 "more than %u fatbin containers in the artifact: the remaining containers were not read",
					 s->lim.max_artifact_containers);
		return limit;
	}
	struct ws_fatbin *f = ws_object_add_fatbin(o);
	if (!f) {
		ws_scan_obj_fail(s, o, WS_E_MEMORY, "out of memory");
		return limit;
	}
	f->offset = start - origin;
	f->size = end - start;
	/* The live check needs the whole container: keep it in the window while decoding. */
	bool keep = s->opt->on_container != NULL;
	if (keep && (f->size > s->lim.max_entry_bytes ||
		     !ws_window_peek(s->w, start, (size_t)f->size, &got) || got < f->size)) {
		keep = false;
		ws_scan_obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "fatbin at offset %llu: cannot hold %llu bytes for the live check",
				       (unsigned long long)f->offset, (unsigned long long)f->size));
	}

	uint32_t cap = 0;
	uint64_t off = start + WS_FATBIN_HEADER_SIZE;
	while (off < end) {
		uint32_t hs;
		uint64_t ps;
		if (f->nentries >= s->lim.max_entries) {
			ws_fmt(msg, sizeof msg, "fatbin at offset %llu has more than %u entries",
			       (unsigned long long)f->offset, s->lim.max_entries);
			goto bad;
		}
		p = ws_window_peek(s->w, off, WS_ENTRY_MIN_HEADER, &got);
		if (!p || got < WS_ENTRY_MIN_HEADER) {
			ws_scan_window_error(s, o, "fatbin entry header");
			return limit;
		}
		err.code = 0;                           /* each entry has its own (a record keeps its first) */
		if (ws_entry_peek(p, got, end - off, &hs, &ps, &err) < 0) {
			ws_fmt(msg, sizeof msg, "fatbin at offset %llu, entry %u: %s",
			       (unsigned long long)f->offset, f->nentries, err.msg);
			goto bad;
		}
		p = ws_window_peek(s->w, off, hs, &got);
		if (!p || got < hs) {
			ws_scan_window_error(s, o, "fatbin entry header");
			return limit;
		}
		enum ws_budget_take et = ws_budget_entry(s->budget, &s->lim);
		if (et != WS_BUDGET_OK) {
			if (et == WS_BUDGET_SPENT_NOW)
				ws_artifact_fail(s->a, s->a->path ? s->a->path : "", WS_E_LIMIT,
						 "more than %u fatbin entries in the artifact: the remaining entries were not read",
						 s->lim.max_artifact_entries);
			ws_fmt(msg, sizeof msg, "fatbin at offset %llu: entries after %u not read (the artifact's entry limit)",
			       (unsigned long long)f->offset, f->nentries);
			f->error = ws_strdup(msg);
			shrink_entries(f, cap);
			ws_scan_count_kernels(f);
			return limit;
		}
		struct ws_entry *e = add_entry(f, &cap);
		if (!e) {
			ws_scan_obj_fail(s, o, WS_E_MEMORY, "out of memory");
			return limit;
		}
		e->offset = off - start;
		if (ws_entry_header(p, got, e, &err) < 0) {
			ws_scan_entry_fail(s, o, e, err.code, err.msg);
		} else if (!e->opaque && (s->opt->want_kernels || f->size <= WS_SMALL_CONTAINER) &&
			   (e->kind == WS_KIND_SASS || e->kind == WS_KIND_PTX)) {
			if (!decode_payload(s, o, f, e, off + hs, ps))
				return limit;
		}
		off += hs + ps;                         /* in bounds: checked by ws_entry_peek */
		if (!keep)
			ws_window_release(s->w, off);
	}
	shrink_entries(f, cap);
	ws_scan_count_kernels(f);
	apply_decoded(s, o, false);
	if (keep && (p = ws_window_peek(s->w, start, (size_t)f->size, &got)) != NULL && got == f->size)
		s->opt->on_container(s->opt->on_container_ctx, o, f, p, (size_t)f->size);
	ws_window_release(s->w, end);
	return end;
bad:
	shrink_entries(f, cap);
	f->error = ws_strdup(msg);
	ws_scan_obj_error(s, o, msg);
	ws_scan_count_kernels(f);
	return end;
}

/* Moves a decoded payload's facts into its entry. */
static void apply_task(struct scan *s, struct ws_object *o, struct ws_decode_task *t)
{
	struct ws_entry *e = &o->fatbins[t->fatbin].entries[t->entry];
	const struct ws_entry *r = &t->res;
	e->content_size = r->content_size;
	e->elf_sm = r->elf_sm;
	e->relocatable = r->relocatable;
	e->toolkit = r->toolkit;
	e->ptx_major = r->ptx_major;
	e->ptx_minor = r->ptx_minor;
	memcpy(e->ptx_target, r->ptx_target, sizeof e->ptx_target);
	e->kernels_known = r->kernels_known;
	e->producer = t->res.producer;
	e->tool_options = t->res.tool_options;
	t->res.producer = t->res.tool_options = NULL;
	if (r->nkernels && (e->kernels = ws_calloc(r->nkernels, sizeof *e->kernels)) != NULL) {
		for (uint32_t k = 0; k < r->nkernels; k++) {
			uint32_t idx = ws_strpool_adopt(&o->kernels, &t->names, r->kernels[k]);
			if (idx == UINT32_MAX) {
				struct ws_err over = {0};
				if (o->kernels.over)
					ws_kernel_names_over(e, &s->lim, &over);
				ws_scan_entry_fail(s, o, e, o->kernels.over ? WS_E_LIMIT : WS_E_MEMORY,
					   o->kernels.over ? over.msg : "out of memory listing kernels");
				e->kernels_known = false;
				break;
			}
			e->kernels[e->nkernels++] = idx;
		}
	}
	if (t->rc < 0)
		ws_scan_entry_fail(s, o, e, t->err.code ? t->err.code : WS_E_FORMAT, t->err.msg);
	ws_entry_finish(e);
}

/* Merges what the pool's threads decoded for this object, in entry order: the tasks
 * already done (wait false, as the scan goes), or all of them (at the end). */
static void apply_decoded(struct scan *s, struct ws_object *o, bool wait)
{
	struct ws_decode_task *t;
	while (s->q && (t = s->opt->offload->next(s->q, wait)) != NULL) {
		apply_task(s, o, t);
		s->opt->offload->task_free(t);
	}
}

void ws_scan_finish_object(struct scan *s, struct ws_object *o)
{
	if (!s->q)
		return;
	apply_decoded(s, o, true);
	for (uint32_t k = 0; k < o->nfatbins; k++)
		ws_scan_count_kernels(&o->fatbins[k]);
}

/* Searches [from, to) for containers; stops early only on a read failure. */
int ws_scan_search_containers(struct scan *s, struct ws_object *o, uint64_t origin,
			     uint64_t from, uint64_t to)
{
	uint64_t pos = from;
	while (pos < to) {
		uint64_t left = to - pos;
		size_t chunk = left < SEARCH_CHUNK ? (size_t)left : SEARCH_CHUNK, got;
		const uint8_t *p = ws_window_peek(s->w, pos, chunk + WS_FATBIN_PROBE_BYTES, &got);
		if (!p) {
			ws_scan_window_error(s, o, "read");
			return -1;
		}
		if (got == 0)
			break;                              /* end of a stream of unknown size */
		size_t span = got < chunk ? got : chunk;
		size_t hay = span + 3 <= got ? span + 3 : got;
		/* each byte is searched once; the peek's overlap past the chunk holds the end of
		 * a text that starts near its end */
		if (s->want_release && !s->release && pos + got > s->release_from && s->release_from < WS_JITC_SEARCH_MAX) {
			size_t skip = s->release_from > pos ? (size_t)(s->release_from - pos) : 0;
			size_t upto = pos + got > WS_JITC_SEARCH_MAX ? (size_t)(WS_JITC_SEARCH_MAX - pos) : got;
			if (upto > skip)
				s->release = ws_jitc_find_release(p + skip, upto - skip);
			s->release_from = pos + span;
		}
		const uint8_t *hit = ws_fatbin_find(p, hay);
		if (!hit || (size_t)(hit - p) >= span) {
			pos += span;
			ws_window_release(s->w, pos);
			if (got < chunk)
				break;
			continue;
		}
		uint64_t at = pos + (uint64_t)(hit - p);
		size_t avail = got - (size_t)(hit - p);
		if (to - at < avail)
			avail = (size_t)(to - at);
		if (ws_fatbin_candidate(hit, avail)) {
			pos = scan_container(s, o, origin, at, to);
			if (s->w->failed)
				return -1;
		} else {
			pos = at + 1;
		}
		ws_window_release(s->w, pos);
	}
	return 0;
}
