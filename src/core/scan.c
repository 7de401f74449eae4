/* scan.c - from an input's bytes to model objects: sniff the content, walk host
 * ELF files, ar archives, raw fatbins, bare cubins and PTX, and decode every
 * fatbin container found by a validated magic search.
 *
 * Containers are found by searching the whole object for the magic, not by
 * trusting section names: CUDA's own libraries keep most of theirs in .ldata,
 * .rodata and .cask_resource (doc/fatbin-format.md (a)). Each container is then
 * labelled with the section that holds it, once the section table (which a
 * streamed ELF delivers last) is known.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ws_decode.h"
#include "ws_compat.h"
#include "ws_decodeq.h"
#include "ws_elf.h"
#include "ws_pe.h"
#include "ws_quote.h"
#include "ws_util.h"
#include "ws_window.h"

#define SEARCH_CHUNK ((size_t)1 << 20)
#define EM_CUDA_ 190
#define AR_MAGIC "!<arch>\n"
#define AR_HDR 60
#define AR_MAX_LONGNAMES ((size_t)16 << 20)

struct scan {
	struct ws_artifact *a;
	const struct ws_scan_opts *opt;
	struct ws_limits lim;
	struct ws_window *w;
	const char *member;            /* the input's name inside its artifact, or NULL */
	struct ws_decodeq *q;          /* payloads decoded on threads, or NULL: inline */
	struct ws_decoder *dc;         /* inline decoding's, borrowed on first use */
	struct ws_budget *budget;      /* the artifact's (opt's, or own below) */
	struct ws_budget own;
	bool want_release;             /* a bundled compiler's object: look for its release text */
	int release;                   /* what was found (12040), 0 none yet */
	uint64_t release_from;         /* searched for it up to here (each byte once) */
};

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

static void obj_fail(const struct scan *s, const struct ws_object *o, enum ws_errcode code, const char *msg)
{
	char wb[1024];
	ws_artifact_fail(s->a, where(s, o ? o->member : s->member, wb, sizeof wb), code, "%s", msg);
}

static void obj_error(const struct scan *s, const struct ws_object *o, const char *msg)
{
	obj_fail(s, o, WS_E_FORMAT, msg);
}

/* A read that failed (the reader's error, now reported here with what was being read)
 * or came up short (the input is truncated). */
static void window_error(const struct scan *s, const struct ws_object *o, const char *what)
{
	char msg[WS_ERRMAX + 64];
	struct ws_err *e = s->w->err;
	bool failed = s->w->failed && e->code;
	ws_fmt(msg, sizeof msg, "%s: %s", what, failed ? e->msg : "unexpected end of data");
	obj_fail(s, o, failed ? e->code : WS_E_FORMAT, msg);
	if (failed)
		e->reported = true;
}

const char *ws_content_name(enum ws_content c)
{
	static const char *const names[] = {"other", "elf", "cubin", "archive", "fatbin", "ptx", "zip", "pe"};
	return (unsigned)c < sizeof names / sizeof *names ? names[c] : "other";
}

/* How many bytes of p are text PTX may hold, up to the first NUL (PTX in a fatbin ends
 * with one), or 0 when a byte PTX may not hold comes first: a control character anywhere,
 * a byte past ASCII outside a comment. Comments hold anything ("// Copyright (c) 2025" with
 * the sign, in UTF-8 or Latin-1, names); a UTF-8 byte order mark may open the text. */
static size_t ptx_text_len(const uint8_t *p, size_t n)
{
	size_t i = n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3) ? 3 : 0;
	enum { CODE, LINE, BLOCK } in = CODE;
	for (; i < n && p[i]; i++) {
		uint8_t c = p[i];
		if (c < 0x09 || (c > 0x0d && c < 0x20) || c == 0x7f || (c >= 0x80 && in == CODE))
			return 0;
		if (in == CODE && c == '/' && i + 1 < n && (p[i + 1] == '/' || p[i + 1] == '*'))
			in = p[++i] == '/' ? LINE : BLOCK;
		else if (in == LINE && c == '\n')
			in = CODE;
		else if (in == BLOCK && c == '*' && i + 1 < n && p[i + 1] == '/')
			in = CODE, i++;
	}
	return i;
}

/* The offset of the first byte of s (n bytes, after a byte order mark) that is not blank
 * and not in a // or block comment: n when there is none (the text may go on). */
static size_t past_comments(const char *s, size_t n)
{
	size_t i = n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;
	while (i < n) {
		if (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
			i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			const char *nl = memchr(s + i, '\n', n - i);
			i = nl ? (size_t)(nl - s) + 1 : n;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *e = memmem(s + i + 2, n - i - 2, "*/", 2);
			i = e ? (size_t)(e - s) + 2 : n;
		} else if (s[i] == '/' && i + 1 == n) {
			return n;                       /* a comment the window cuts */
		} else {
			return i;
		}
	}
	return n;
}

/* ".version 8.4" at the start of a line, and a ".target" after it, in n bytes of text. */
static bool version_and_target(const char *s, size_t n)
{
	const char *v = memmem(s, n, ".version ", 9);
	return v && (v == s || v[-1] == '\n' || (v - s == 3 && !memcmp(s, "\xef\xbb\xbf", 3))) &&
	       memmem(s, n, ".target ", 8) != NULL;
}

/* PTX as its first bytes show it (n: at most WS_SNIFF_BYTES). A window that is nothing but
 * comments and blanks up to its end may be PTX whose .version comes after a long licence
 * header: it is taken as PTX here (*unsure), and ptx_confirm decides once the text is read. */
static bool looks_like_ptx(const uint8_t *p, size_t n, bool *unsure)
{
	size_t i = ptx_text_len(p, n);
	const char *s = (const char *)p;
	*unsure = false;
	if (!i)
		return false;
	if (version_and_target(s, i))
		return true;
	*unsure = n == WS_SNIFF_BYTES && i == n && past_comments(s, i) == i;
	return *unsure;
}

/* PTX that looks_like_ptx was unsure of, now that n bytes of it can be read: the first
 * directive after the comments (within PTX_PROLOGUE_MAX) is .version, and a .target
 * follows it. A source file with a long licence header, then code, is not PTX. */
#define PTX_PROLOGUE_MAX ((size_t)1 << 20)
static bool ptx_confirm(const uint8_t *p, size_t n)
{
	size_t i = ptx_text_len(p, n > PTX_PROLOGUE_MAX ? PTX_PROLOGUE_MAX : n);
	const char *s = (const char *)p;
	if (!i)
		return false;
	/* the first directive is .version (PTX begins so), and a .target follows it */
	size_t k = past_comments(s, i);
	return k < i && i - k > 9 && !memcmp(s + k, ".version", 8) && (s[k + 8] == ' ' || s[k + 8] == '\t') &&
	       memmem(s + k, i - k, ".target", 7) != NULL;
}

enum ws_content ws_sniff(const uint8_t *p, size_t n)
{
	if (n >= 20 && memcmp(p, "\177ELF", 4) == 0)
		return ws_le16(p + 18) == EM_CUDA_ ? WS_CONTENT_CUBIN : WS_CONTENT_ELF;
	if (n >= 8 && memcmp(p, AR_MAGIC, 8) == 0)
		return WS_CONTENT_AR;
	if (n >= 4 && (memcmp(p, "PK\3\4", 4) == 0 || memcmp(p, "PK\5\6", 4) == 0))
		return WS_CONTENT_ZIP;
	if (ws_fatbin_candidate(p, n))
		return WS_CONTENT_FATBIN;
	bool unsure;
	if (looks_like_ptx(p, n < WS_SNIFF_BYTES ? n : WS_SNIFF_BYTES, &unsure))
		return WS_CONTENT_PTX;
	if (ws_pe_sniff(p, n))
		return WS_CONTENT_PE;
	return WS_CONTENT_OTHER;
}

/* ---- entries and containers ------------------------------------------------ */

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

static void entry_fail(const struct scan *s, struct ws_object *o, struct ws_entry *e,
		       enum ws_errcode code, const char *msg)
{
	if (!e->error)
		e->error = ws_strdup(msg);
	obj_fail(s, o, code, msg);
}

static void entry_error(const struct scan *s, struct ws_object *o, struct ws_entry *e,
			const char *msg)
{
	entry_fail(s, o, e, WS_E_FORMAT, msg);
}

/* Takes the bytes an entry decodes to (n) from the artifact's budget before it is
 * decoded. Spent: the entry is not decoded (its kernels stay unknown, never "none"), and
 * the first to find it spent records the one error about it, naming the artifact. */
static bool budget_decode(struct scan *s, struct ws_entry *e, uint64_t n)
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
		entry_fail(s, o, e, WS_E_MEMORY, "out of memory for a decoder");
		return;
	}
	if (ws_entry_inspect(s->dc, p, n, e, &o->kernels, &s->lim, &err) < 0)
		entry_fail(s, o, e, err.code, err.msg);
	ws_entry_finish(e);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* Distinct kernels over all entries of a container. */
static void count_kernels(struct ws_fatbin *f)
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
		entry_fail(s, o, e, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "%s: payload of %llu bytes exceeds the entry limit",
						    e->name, (unsigned long long)ps));
		return true;
	}
	const uint8_t *p = ws_window_peek(s->w, at, (size_t)ps, &got);
	if (!p || got < ps) {
		window_error(s, o, "fatbin entry payload");
		return false;
	}
	if (!budget_decode(s, e, ps))
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
		window_error(s, o, "fatbin header");
		return limit;
	}
	if (ws_fatbin_header(p, got, &fat, &err) < 0)
		return start + 1;                       /* cannot happen after the candidate check */
	if (!ws_add_u64(start + WS_FATBIN_HEADER_SIZE, fat, &end) || end > limit) {
		obj_error(s, o, ws_fmt(msg, sizeof msg,
				       "fatbin at offset %llu claims %llu bytes, past the end of the object",
				       (unsigned long long)(start - origin), (unsigned long long)fat));
		return start + WS_FATBIN_HEADER_SIZE;
	}
	if (o->nfatbins >= s->lim.max_containers) {
		obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "more than %u fatbin containers",
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
		obj_fail(s, o, WS_E_MEMORY, "out of memory");
		return limit;
	}
	f->offset = start - origin;
	f->size = end - start;
	/* The live check needs the whole container: keep it in the window while decoding. */
	bool keep = s->opt->on_container != NULL;
	if (keep && (f->size > s->lim.max_entry_bytes ||
		     !ws_window_peek(s->w, start, (size_t)f->size, &got) || got < f->size)) {
		keep = false;
		obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "fatbin at offset %llu: cannot hold %llu bytes for the live check",
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
			window_error(s, o, "fatbin entry header");
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
			window_error(s, o, "fatbin entry header");
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
			count_kernels(f);
			return limit;
		}
		struct ws_entry *e = add_entry(f, &cap);
		if (!e) {
			obj_fail(s, o, WS_E_MEMORY, "out of memory");
			return limit;
		}
		e->offset = off - start;
		if (ws_entry_header(p, got, e, &err) < 0) {
			entry_fail(s, o, e, err.code, err.msg);
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
	count_kernels(f);
	apply_decoded(s, o, false);
	if (keep && (p = ws_window_peek(s->w, start, (size_t)f->size, &got)) != NULL && got == f->size)
		s->opt->on_container(s->opt->on_container_ctx, o, f, p, (size_t)f->size);
	ws_window_release(s->w, end);
	return end;
bad:
	shrink_entries(f, cap);
	f->error = ws_strdup(msg);
	obj_error(s, o, msg);
	count_kernels(f);
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
				entry_fail(s, o, e, o->kernels.over ? WS_E_LIMIT : WS_E_MEMORY,
					   o->kernels.over ? over.msg : "out of memory listing kernels");
				e->kernels_known = false;
				break;
			}
			e->kernels[e->nkernels++] = idx;
		}
	}
	if (t->rc < 0)
		entry_fail(s, o, e, t->err.code ? t->err.code : WS_E_FORMAT, t->err.msg);
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

static void finish_object(struct scan *s, struct ws_object *o)
{
	if (!s->q)
		return;
	apply_decoded(s, o, true);
	for (uint32_t k = 0; k < o->nfatbins; k++)
		count_kernels(&o->fatbins[k]);
}

/* Searches [from, to) for containers; stops early only on a read failure. */
static int search_containers(struct scan *s, struct ws_object *o, uint64_t origin,
			     uint64_t from, uint64_t to)
{
	uint64_t pos = from;
	while (pos < to) {
		uint64_t left = to - pos;
		size_t chunk = left < SEARCH_CHUNK ? (size_t)left : SEARCH_CHUNK, got;
		const uint8_t *p = ws_window_peek(s->w, pos, chunk + WS_FATBIN_PROBE_BYTES, &got);
		if (!p) {
			window_error(s, o, "read");
			return -1;
		}
		if (got == 0)
			break;                              /* end of a stream of unknown size */
		size_t span = got < chunk ? got : chunk;
		size_t hay = span + 3 <= got ? span + 3 : got;
		/* each byte is searched once; the peek's overlap past the chunk holds the end of
		 * a text that starts near its end */
		if (s->want_release && !s->release && pos + got > s->release_from) {
			size_t skip = s->release_from > pos ? (size_t)(s->release_from - pos) : 0;
			s->release = ws_jitc_find_release(p + skip, got - skip);
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

/* ---- what a name claims ------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* "libx.so", "libx.so.12", "libx.so.12.4.1" */
static bool shared_object_name(const char *base)
{
	const char *so = NULL;
	for (const char *p = strstr(base, ".so"); p; p = strstr(p + 1, ".so"))
		so = p;
	if (!so)
		return false;
	for (const char *q = so + 3; *q; q++)
		if (!(isdigit((unsigned char)*q) || (*q == '.' && isdigit((unsigned char)q[1]))))
			return false;
	return true;
}

/* A text file the linker reads in place of a shared object (/usr/lib/.../libc.so). */
static bool ld_script(const uint8_t *p, size_t n)
{
	static const char *const starts[] = {"/* GNU ld script", "OUTPUT_FORMAT", "GROUP", "INPUT"};
	for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
		if (n >= strlen(starts[i]) && !memcmp(p, starts[i], strlen(starts[i])))
			return true;
	return false;
}

const char *ws_name_claim(const char *path, enum ws_content c, const uint8_t *head, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (ends_with(base, ".whl"))
		return c == WS_CONTENT_ZIP ? NULL : n ? "not a wheel: not a zip archive" : "not a wheel: empty file";
	if (ends_with(base, ".zip"))
		return c == WS_CONTENT_ZIP ? NULL : n ? "not a zip archive" : "empty file named as a zip archive";
	if (ends_with(base, ".dll") || ends_with(base, ".pyd"))
		return c == WS_CONTENT_PE ? NULL : n ? "not a PE image (a .dll or .pyd must be one)" : "empty file named as a PE image";
	if (shared_object_name(base) || ends_with(base, ".o"))
		return c == WS_CONTENT_ELF || c == WS_CONTENT_CUBIN || (c == WS_CONTENT_OTHER && ld_script(head, n)) ? NULL :
		       n ? "not an ELF file (nor a linker script)" : "empty file named as an ELF object";
	if (ends_with(base, ".a"))
		return c == WS_CONTENT_AR ? NULL : n ? "not an ar archive" : "empty file named as an ar archive";
	if (ends_with(base, ".cubin"))
		return c == WS_CONTENT_CUBIN ? NULL : n ? "not a cubin (an ELF file for EM_CUDA)" : "empty cubin";
	if (ends_with(base, ".fatbin"))
		return c == WS_CONTENT_FATBIN ? NULL : n ? "not a fatbin container" : "empty fatbin";
	return NULL;
}

const char *ws_name_type(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	static const struct { const char *suffix, *type; } by_name[] = {
		{".whl", "wheel"}, {".zip", "zip"}, {".dll", "pe"}, {".pyd", "pe"}, {".o", "elf"},
		{".a", "archive"}, {".cubin", "cubin"}, {".fatbin", "fatbin"}, {".ptx", "ptx"},
		{".deb", "deb"}, {".conda", "conda"}, {".tar", "tar"}, {".tar.gz", "tar"}, {".tgz", "tar"},
		{".tar.bz2", "tar"}, {".tar.xz", "tar"}, {".tar.zst", "tar"},
	};
	for (size_t i = 0; i < sizeof by_name / sizeof *by_name; i++)
		if (ends_with(base, by_name[i].suffix))
			return by_name[i].type;
	return shared_object_name(base) ? "elf" : "unknown";
}

/* ---- object kinds ---------------------------------------------------------- */

static struct ws_object *new_object(struct scan *s, const char *member, const char *type)
{
	struct ws_object *o = ws_artifact_add_object(s->a);
	if (!o)
		return NULL;
	o->type = type;
	o->kernels.hash_only = !s->opt->list_kernels;
	o->kernels.max_bytes = s->lim.max_kernel_names;
	if (member && !(o->member = ws_strdup(member))) {
		s->a->nobjects--;
		return NULL;
	}
	return o;
}

/* Members without device code are not listed; the artifact itself always is. */
static void drop_if_empty(struct scan *s, struct ws_object *o, bool keep_empty)
{
	if (o->nfatbins == 0 && !keep_empty && o == &s->a->objects[s->a->nobjects - 1]) {
		ws_object_clear(o);
		s->a->nobjects--;
	}
}

static const char *elf_type_name(uint16_t t)
{
	return t == 1 ? "elf-rel" : t == 2 ? "elf-exec" : t == 3 ? "elf-so" : "elf";
}

/* Labels every container with its section and sets the relocatable flag. */
static void label_sections(struct ws_object *o, uint32_t first, const struct ws_elf_sections *sec)
{
	for (uint32_t i = first; i < o->nfatbins; i++) {
		struct ws_fatbin *f = &o->fatbins[i];
		const char *name = sec ? ws_elf_section_at(sec, f->offset) : NULL;
		ws_fmt(f->section, sizeof f->section, "%s", name ? name : "(none)");
		if (strcmp(f->section, "__nv_relfatbin") == 0)
			f->relocatable = true;
	}
}

/* Reads the section table at origin+shoff and the section names. */
static void read_sections(struct scan *s, struct ws_object *o, uint64_t origin, uint64_t limit,
			  struct ws_elf_header *h, struct ws_elf_sections *sec)
{
	struct ws_err err = {0};
	char msg[WS_ERRMAX + 32];
	size_t got;
	uint64_t at = origin + h->shoff, bytes;
	const uint8_t *p = ws_window_peek(s->w, at, 64, &got);
	if (!p || got < 64) {
		obj_error(s, o, "section table lies past the end of the file");
		return;
	}
	ws_elf_extended(p, h);
	if (h->shnum > s->lim.max_sections) {
		obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "ELF claims %u sections (limit %u)", h->shnum,
				       s->lim.max_sections));
		return;
	}
	bytes = (uint64_t)h->shnum * 64;
	if (!ws_in_bounds(h->shoff, bytes, limit - origin)) {
		obj_error(s, o, "section table lies past the end of the file");
		return;
	}
	p = ws_window_peek(s->w, at, (size_t)bytes, &got);
	if (!p || got < bytes || ws_elf_sections(p, got, h, sec, &err) < 0) {
		if (p && got >= bytes)
			obj_fail(s, o, err.code, err.msg);
		else
			obj_error(s, o, "section table is truncated");
		return;
	}
	if (sec->strndx == 0)
		return;                                 /* no names: sections stay "section#N" */
	if (sec->strndx >= sec->n) {
		obj_error(s, o, ws_fmt(msg, sizeof msg, "section name table index %u is out of range",
				       sec->strndx));
		return;
	}
	const struct ws_elf_section *st = &sec->s[sec->strndx];
	if (st->size == 0 || st->size > (1u << 24) || !ws_in_bounds(st->offset, st->size, limit - origin)) {
		obj_error(s, o, "section name table lies outside the file");
		return;
	}
	uint8_t *names = ws_malloc((size_t)st->size);
	if (names && ws_window_copy(s->w, origin + st->offset, names, (size_t)st->size) == 0)
		ws_elf_name_sections(sec, names, (size_t)st->size);
	else
		obj_error(s, o, "cannot read the section name table");
	free(names);
}

static void scan_host_elf(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			  const uint8_t *hdr, size_t hdrlen, bool keep_empty)
{
	struct ws_err err = {0};
	struct ws_elf_header h;
	int hr = ws_elf_header(hdr, hdrlen, &h, &err);
	struct ws_object *o = new_object(s, member, hr == 0 ? elf_type_name(h.type) : "elf");
	if (!o) {
		obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	struct ws_elf_sections sec = {0};
	o->jitc = ws_jitc_of_member(member ? member : s->a->path);
	s->want_release = o->jitc != WS_JITC_NONE;
	s->release = 0;
	s->release_from = 0;
	/* 32-bit and big-endian host files are legal, just not labelled; a broken
	 * 64-bit header is corrupt. */
	if (hr < 0 && hdrlen >= 6 && hdr[4] == 2 && hdr[5] == 1)
		obj_fail(s, o, err.code ? err.code : WS_E_FORMAT, err.msg);
	if (hr == 0 && h.shoff != 0 && h.shoff >= limit - origin)
		obj_error(s, o, "section table lies past the end of the file");
	bool have_table = hr == 0 && h.shoff != 0 && h.shoff < limit - origin;
	/* Sections are labelled after the walk: a stream brings the table last. */
	uint64_t table_at = have_table ? origin + h.shoff : limit;
	if (search_containers(s, o, origin, origin, table_at) == 0 && have_table) {
		read_sections(s, o, origin, limit, &h, &sec);
		uint64_t after;
		if (sec.n && ws_add_u64(table_at, (uint64_t)sec.n * 64, &after) && after < limit)
			search_containers(s, o, origin, after, limit);
	}
	finish_object(s, o);
	if (sec.n && ws_elf_index_sections(&sec) < 0) {
		obj_fail(s, o, WS_E_MEMORY, "out of memory indexing the section table");
		ws_elf_sections_free(&sec);
	}
	label_sections(o, 0, sec.n ? &sec : NULL);
	ws_elf_sections_free(&sec);
	o->size = limit == UINT64_MAX ? 0 : limit - origin;
	o->jitc_cuda = s->release;
	s->want_release = false;
	drop_if_empty(s, o, keep_empty || o->jitc != WS_JITC_NONE);
}

/* A Windows image: its section table sits near the start, so it is read first; then the
 * whole file is searched and each container labelled with the section that holds it. */
static void scan_host_pe(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			 const uint8_t *hdr, size_t hdrlen, bool keep_empty)
{
	struct ws_err err = {0};
	char msg[WS_ERRMAX + 32];
	struct ws_pe_header h;
	struct ws_pe_sections sec = {0};
	int hr = ws_pe_header(hdr, hdrlen, &h, &err);
	struct ws_object *o = new_object(s, member, hr == 0 && (h.characteristics & 0x2000) ? "pe-dll" : "pe-exe");
	if (!o) {
		obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	uint64_t size = limit == UINT64_MAX ? UINT64_MAX : limit - origin;
	if (hr < 0) {
		obj_fail(s, o, err.code ? err.code : WS_E_FORMAT, err.msg);
	} else if (h.nsections > s->lim.max_sections) {
		obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "PE claims %u sections (limit %u)", h.nsections,
				       s->lim.max_sections));
	} else if (h.nsections) {
		size_t got, bytes = (size_t)h.nsections * 40;
		const uint8_t *p = ws_in_bounds(h.sections_at, bytes, size) ?
				   ws_window_peek(s->w, origin + h.sections_at, bytes, &got) : NULL;
		if (!p || got < bytes)
			obj_error(s, o, "PE section table lies past the end of the file");
		else if (ws_pe_sections(p, got, &h, size, &sec, &err) < 0)
			obj_fail(s, o, err.code, err.msg);
	}
	search_containers(s, o, origin, origin, limit);
	finish_object(s, o);
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		struct ws_fatbin *f = &o->fatbins[i];
		const char *name = ws_pe_section_at(&sec, f->offset);
		ws_fmt(f->section, sizeof f->section, "%s", name ? name : "(none)");
		/* "__nv_rel" is "__nv_relfatbin" cut to the 8 bytes a PE section name has */
		if (strcmp(f->section, "__nv_rel") == 0)
			f->relocatable = true;
	}
	ws_pe_sections_free(&sec);
	o->size = limit == UINT64_MAX ? 0 : limit - origin;
	drop_if_empty(s, o, keep_empty);
}

static void scan_raw_fatbin(struct scan *s, const char *member, uint64_t origin, uint64_t limit)
{
	struct ws_object *o = new_object(s, member, "fatbin");
	if (!o) {
		obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	search_containers(s, o, origin, origin, limit);
	finish_object(s, o);
	for (uint32_t i = 0; i < o->nfatbins; i++)
		o->fatbins[i].section[0] = '\0';
	o->size = limit == UINT64_MAX ? 0 : limit - origin;
}

/* Whether PTX the sniff was unsure of (comments to the end of its window) is PTX: read on,
 * up to PTX_PROLOGUE_MAX. What is not is no object, and a file is typed "other" again. */
static bool ptx_sure(struct scan *s, const char *member, uint64_t origin, uint64_t limit)
{
	size_t got;
	bool unsure;
	const uint8_t *p = ws_window_peek(s->w, origin, WS_SNIFF_BYTES, &got);
	if (!p || !looks_like_ptx(p, got, &unsure) || !unsure)
		return true;                   /* a read error is scan_bare's to report */
	uint64_t n = limit - origin;
	if (n > PTX_PROLOGUE_MAX)
		n = PTX_PROLOGUE_MAX;
	if (!(p = ws_window_peek(s->w, origin, (size_t)n, &got)) || ptx_confirm(p, got))
		return true;
	if (!member && s->a->type && !strcmp(s->a->type, "ptx"))
		s->a->type = ws_content_name(WS_CONTENT_OTHER);
	return false;
}

/* A bare cubin or PTX file becomes an object with one pseudo-container of one entry. */
static void scan_bare(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
		      enum ws_content c)
{
	struct ws_err err = {0};
	if (c == WS_CONTENT_PTX && !ptx_sure(s, member, origin, limit))
		return;
	struct ws_object *o = new_object(s, member, c == WS_CONTENT_CUBIN ? "cubin" : "ptx");
	struct ws_fatbin *f = o ? ws_object_add_fatbin(o) : NULL;
	struct ws_entry *e = f ? ws_calloc(1, sizeof *e) : NULL;
	if (!e) {
		obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	f->entries = e;
	f->nentries = 1;
	e->kind = c == WS_CONTENT_CUBIN ? WS_KIND_SASS : WS_KIND_PTX;
	strcpy(e->name, c == WS_CONTENT_CUBIN ? "cubin" : "ptx");
	size_t got;
	uint64_t n = limit - origin;
	if (limit == UINT64_MAX || n > s->lim.max_entry_bytes) {
		/* a stream of unknown size: read up to the entry limit */
		n = s->lim.max_entry_bytes;
	}
	const uint8_t *p = ws_window_peek(s->w, origin, (size_t)n, &got);
	if (!p) {
		window_error(s, o, "read");
		return;
	}
	f->size = o->size = e->payload_size = e->content_size = got;
	if (!budget_decode(s, e, got)) {
		e->content_size = 0;
		return;
	}
	int r = c == WS_CONTENT_CUBIN ? ws_cubin_inspect(p, got, e, &o->kernels, &s->lim, &err)
				      : ws_ptx_inspect(p, got, e, &o->kernels, &s->lim, &err);
	if (r < 0) {
		entry_fail(s, o, e, err.code, err.msg);
	} else if (c == WS_CONTENT_CUBIN) {
		/* The suffix survives only in the ptxas options (doc/fatbin-format.md (e)). */
		const char *a = e->tool_options ? strstr(e->tool_options, "-arch sm_") : NULL;
		unsigned arch = 0;
		char suf = 0;
		if (a && sscanf(a + 9, "%u%c", &arch, &suf) >= 1 && arch == e->elf_sm && (suf == 'a' || suf == 'f'))
			e->suffix = suf;
		e->arch = e->elf_sm;
		ws_entry_name(e);
	} else {
		unsigned arch = 0;
		char suf = 0;
		if (sscanf(e->ptx_target, "sm_%u%c", &arch, &suf) >= 1 && arch < 10000) {
			e->arch = (uint16_t)arch;
			e->suffix = (suf == 'a' || suf == 'f') ? suf : 0;
		}
		e->fmt_major = e->ptx_major;
		e->fmt_minor = e->ptx_minor;
		ws_entry_name(e);
	}
	count_kernels(f);
}

static void scan_object(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			int depth, bool keep_empty);

/* Parses a decimal field of an ar header. */
static bool ar_number(const uint8_t *p, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	size_t i = 0;
	for (; i < n && p[i] == ' '; i++)
		;
	if (i == n || p[i] < '0' || p[i] > '9')
		return false;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		if (!ws_mul_u64(r, 10, &r) || !ws_add_u64(r, (uint64_t)(p[i] - '0'), &r))
			return false;
	for (; i < n; i++)
		if (p[i] != ' ')
			return false;
	*v = r;
	return true;
}

/* ar archive: "!<arch>\n", then members: 60-byte header (name[16] ... size[10] "`\n") and data
 * padded to 2. GNU names: "/" symbol table, "//" long-name table, "/N" long name at N, "x.o/". */
static void scan_archive(struct scan *s, const char *member, uint64_t origin, uint64_t limit, int depth)
{
	char msg[WS_ERRMAX], label[1024];
	const char *base = member ? member : (s->a->path ? s->a->path : "");
	const char *slash = member ? NULL : strrchr(base, '/');
	if (slash)
		base = slash + 1;
	char *longnames = NULL;
	size_t nlong = 0;
	uint64_t pos = origin + 8;
	uint32_t count = 0;
	while (limit == UINT64_MAX || (pos < limit && limit - pos >= AR_HDR)) {
		size_t got;
		const uint8_t *h = ws_window_peek(s->w, pos, AR_HDR, &got);
		if (!h) {
			window_error(s, NULL, "archive");
			break;
		}
		if (got == 0)
			break;
		uint64_t size, data = pos + AR_HDR, next;
		if (got < AR_HDR || h[58] != '`' || h[59] != '\n' || !ar_number(h + 48, 10, &size)) {
			obj_error(s, NULL, ws_fmt(msg, sizeof msg, "archive member header at offset %llu is corrupt",
						  (unsigned long long)(pos - origin)));
			break;
		}
		if (!ws_add_u64(data, size, &next) || next > limit) {
			obj_error(s, NULL, ws_fmt(msg, sizeof msg, "archive member at offset %llu is truncated",
						  (unsigned long long)(pos - origin)));
			break;
		}
		if (++count > s->lim.max_members) {
			obj_fail(s, NULL, WS_E_LIMIT, "archive has too many members");
			break;
		}
		char name[256] = "";
		if (h[0] == '/' && h[1] == '/' && h[2] == ' ') {           /* long-name table */
			free(longnames);
			longnames = NULL;
			nlong = 0;
			if (size <= AR_MAX_LONGNAMES && (longnames = ws_malloc(size ? (size_t)size : 1)) &&
			    ws_window_copy(s->w, data, (uint8_t *)longnames, (size_t)size) == 0)
				nlong = (size_t)size;
		} else if (h[0] == '/' && (h[1] == ' ' || memcmp(h, "/SYM64/", 7) == 0)) {
			;                                             /* symbol table */
		} else {
			uint64_t idx;
			if (h[0] == '/' && ar_number(h + 1, 15, &idx)) {
				if (idx < nlong) {
					/* at most what name holds: a table without ends must not be
					 * read to its end once per member */
					size_t n = 0, most = nlong - idx < sizeof name - 1 ? nlong - idx : sizeof name - 1;
					while (n < most && longnames[idx + n] != '/' && longnames[idx + n] != '\n')
						n++;
					ws_sanitize(name, sizeof name, longnames + idx, n);
				}
			} else {
				size_t n = 0;
				while (n < 16 && h[n] != '/' && h[n] != ' ')
					n++;
				ws_sanitize(name, sizeof name, (const char *)h, n);
			}
			ws_fmt(label, sizeof label, "%s(%s)", base, name[0] ? name : "?");
			scan_object(s, label, data, next, depth + 1, false);
			if (s->w->failed)
				break;
		}
		pos = next + (size & 1);
		ws_window_release(s->w, pos);
	}
	free(longnames);
}

static void scan_object(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			int depth, bool keep_empty)
{
	size_t got;
	uint64_t n = limit - origin;
	const uint8_t *p = ws_window_peek(s->w, origin, n < WS_SNIFF_BYTES ? (size_t)n : WS_SNIFF_BYTES, &got);
	if (!p) {
		window_error(s, NULL, "read");
		return;
	}
	/* The window may move on the next peek: copy the header we dispatch on. */
	uint8_t head[64];
	size_t hl = got < sizeof head ? got : sizeof head;
	memcpy(head, p, hl);
	switch (ws_sniff(p, got)) {
	case WS_CONTENT_ELF:
		scan_host_elf(s, member, origin, limit, head, hl, keep_empty);
		break;
	case WS_CONTENT_PE: {
		/* the PE signature can sit anywhere in the first 4 KiB: keep all of them */
		uint8_t pe[WS_SNIFF_BYTES];
		memcpy(pe, p, got);
		scan_host_pe(s, member, origin, limit, pe, got, keep_empty);
		break;
	}
	case WS_CONTENT_CUBIN:
		scan_bare(s, member, origin, limit, WS_CONTENT_CUBIN);
		break;
	case WS_CONTENT_PTX:
		scan_bare(s, member, origin, limit, WS_CONTENT_PTX);
		break;
	case WS_CONTENT_FATBIN:
		scan_raw_fatbin(s, member, origin, limit);
		break;
	case WS_CONTENT_AR:
		if (depth == 0)
			scan_archive(s, member, origin, limit, depth);
		break;
	default:
		break;
	}
}

static int scan_input(struct ws_artifact *a, const char *member, struct ws_window *w,
		      const struct ws_scan_opts *opt)
{
	struct scan s = {.a = a, .opt = opt, .w = w, .member = member, .budget = opt->budget};
	if (opt->lim)
		s.lim = *opt->lim;
	else
		ws_limits_default(&s.lim);
	if (!s.budget) {                        /* the input is the whole artifact */
		s.budget = &s.own;
		ws_budget_add_input(s.budget, w->size == UINT64_MAX ? 0 : w->size);
	}
	uint32_t errors = a->nerrors;
	size_t got;
	const uint8_t *p = ws_window_peek(w, 0, WS_SNIFF_BYTES, &got);
	if (!p) {
		window_error(&s, NULL, "read");
		return -1;
	}
	enum ws_content c = ws_sniff(p, got);
	if (c == WS_CONTENT_OTHER || c == WS_CONTENT_ZIP)
		return 1;
	/* payloads decode on the pool's other threads, within its byte budget */
	if (opt->offload && !opt->on_container && opt->want_kernels)
		s.q = opt->offload->open(opt, &s.lim);
	scan_object(&s, member, 0, w->size, 0, member == NULL);
	if (s.q)
		opt->offload->close(s.q);
	if (opt->offload)
		opt->offload->give(opt->decoders, s.dc);
	else
		ws_decoder_free(s.dc);
	return a->nerrors != errors ? -1 : 0;
}

int ws_scan_memory(struct ws_artifact *a, const char *member, const uint8_t *p, size_t n,
		   const struct ws_scan_opts *opt)
{
	struct ws_window w;
	ws_window_memory(&w, p, n);
	w.drop_behind = opt->drop_behind;
	return scan_input(a, member, &w, opt);
}

int ws_scan_stream(struct ws_artifact *a, const char *member, struct ws_reader *r,
		   uint64_t size, const struct ws_scan_opts *opt)
{
	struct ws_limits lim;
	if (opt->lim)
		lim = *opt->lim;
	else
		ws_limits_default(&lim);
	struct ws_window w;
	uint64_t cap = lim.max_entry_bytes + ((uint64_t)4 << 20);
	ws_window_stream(&w, r, size, cap > SIZE_MAX ? SIZE_MAX : (size_t)cap);
	int rc = scan_input(a, member, &w, opt);
	ws_window_free(&w);
	return rc;
}
