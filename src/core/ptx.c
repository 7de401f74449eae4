/* ptx.c - PTX text: the .version and .target directives and the .entry kernels.
 *
 * PTX is NUL-terminated ASCII:  // comments, then ".version 9.0", ".target sm_90a[, debug]",
 * ".address_size 64", then ".visible .entry name(" for each kernel (.func marks device
 * functions, which are not kernels). Only lines are looked at; no PTX grammar is needed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "ws_decode.h"
#include "ws_quote.h"

static const char *skip_ws(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* If the line at s starts with word (followed by a blank), return what follows it. */
static const char *after_word(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - s) > n && memcmp(s, word, n) == 0 && (s[n] == ' ' || s[n] == '\t'))
		return skip_ws(s + n, end);
	return NULL;
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/* Appends a kernel; *cap is the room e->kernels has (grown geometrically). */
static int add_kernel(struct ws_entry *e, uint32_t *cap, struct ws_strpool *pool, const struct ws_limits *lim,
		      const char *name, size_t len, struct ws_err *err)
{
	if (e->nkernels >= lim->max_kernels)
		return ws_err_set(err, WS_E_LIMIT, "%s: more than %u kernels", e->name, lim->max_kernels), -1;
	if (len > lim->max_kernel_name)
		return ws_err_set(err, WS_E_LIMIT, "%s: a kernel name of %zu bytes (more than %u)", e->name, len,
			      lim->max_kernel_name), -1;
	uint32_t idx = ws_strpool_intern(pool, name, len);
	if (idx == UINT32_MAX && pool->over)
		return ws_kernel_names_over(e, lim, err), -1;
	if (idx == UINT32_MAX || !ws_grow((void **)&e->kernels, cap, e->nkernels + 1, sizeof *e->kernels))
		return ws_err_set(err, WS_E_MEMORY, "out of memory listing kernels"), -1;
	e->kernels[e->nkernels++] = idx;
	return 0;
}

/* True when the text from line start l up to d (an ".entry") holds only blanks and the
 * linkage words .visible / .weak: a kernel definition. ".extern .entry" only declares a
 * kernel of another module, and anything else (a comment, a string) is not a directive. */
static bool entry_directive(const char *l, const char *d)
{
	const char *t;
	l = skip_ws(l, d);
	while (l < d && ((t = after_word(l, d + 1, ".visible")) || (t = after_word(l, d + 1, ".weak"))))
		l = t;
	return l == d;
}

/* Reads .version and .target from the first lines of a module. */
static void ptx_header(const char *text, const char *end, struct ws_entry *e, bool *have_version)
{
	const char *s = text;
	for (unsigned line = 0; s < end && line < 256 && !(*have_version && e->ptx_target[0]); line++) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		if (!eol)
			eol = end;
		const char *l = skip_ws(s, eol), *v;
		if (!*have_version && (v = after_word(l, eol, ".version")) != NULL) {
			unsigned maj = 0, min = 0;
			char tmp[16];
			ws_sanitize(tmp, sizeof tmp, v, (size_t)(eol - v));
			if (sscanf(tmp, "%u.%u", &maj, &min) == 2 && maj < 100 && min < 100) {
				e->ptx_major = (uint16_t)maj;
				e->ptx_minor = (uint16_t)min;
				*have_version = true;
			}
		} else if (!e->ptx_target[0] && (v = after_word(l, eol, ".target")) != NULL) {
			size_t len = 0;
			while (v + len < eol && is_ident(v[len]))
				len++;
			ws_sanitize(e->ptx_target, sizeof e->ptx_target, v, len);
		}
		s = eol + 1;
	}
}

/* Adds every ".entry NAME" directive of [text, end), which starts at a line start. A
 * search for the word is much faster than walking the lines of a large module. Only the
 * first match on a line can be a directive (an earlier ".entry" is text before it), so
 * the line start is found by looking back only as far as the previous match: each byte
 * is looked at a bounded number of times, however many matches share one line. */
static int ptx_entries(const char *text, const char *end, struct ws_entry *e, uint32_t *kernels_cap,
		       struct ws_strpool *pool, const struct ws_limits *lim, struct ws_err *err)
{
	const char *searched = text;    /* the line start before here is known */
	bool line_had_match = false;
	for (const char *d = text;
	     (d = (const char *)ws_find((const uint8_t *)d, (size_t)(end - d), (const uint8_t *)".entry", 6)) != NULL;
	     d += 6) {
		const char *nl = memrchr(searched, '\n', (size_t)(d - searched));
		const char *l = nl ? nl + 1 : searched;
		bool first_on_line = nl || !line_had_match;
		searched = d;
		line_had_match = true;
		const char *v = d + 6;
		if (!first_on_line || v >= end || (*v != ' ' && *v != '\t'))
			continue;
		if (!entry_directive(l, d))
			continue;
		v = skip_ws(v, end);
		size_t len = 0;
		while (v + len < end && is_ident(v[len]))
			len++;
		if (len && add_kernel(e, kernels_cap, pool, lim, v, len, err) < 0)
			return -1;
	}
	return 0;
}

int ws_ptx_inspect(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		   const struct ws_limits *lim, struct ws_err *err)
{
	const char *text = (const char *)p, *end = text + strnlen(text, n);
	bool have_version = false;
	uint32_t kernels_cap = e->nkernels;      /* the room known to be there */
	ptx_header(text, end, e, &have_version);
	if (!have_version)
		return ws_err_set(err, WS_E_FORMAT, "%s: PTX has no .version directive", e->name), -1;
	if (ptx_entries(text, end, e, &kernels_cap, pool, lim, err) < 0)
		return -1;
	e->kernels_known = true;
	return 0;
}

/* A streamed module: complete lines are scanned as they arrive; the unfinished last
 * line is carried over to the next chunk. A line longer than the buffer (a data
 * initializer) cannot be a directive of interest and is dropped. */
struct ptx_stream {
	struct ws_entry *e;
	uint32_t kernels_cap;                  /* the room e->kernels has */
	struct ws_strpool *pool;
	const struct ws_limits *lim;
	char *buf;
	size_t len;                    /* carried bytes at the start of buf */
	bool first, have_version, skip_line, ended;
	bool failed;                   /* the kernel listing stopped the stream */
};

static int ptx_sink(void *ctx, const uint8_t *p, size_t n, struct ws_err *err)
{
	struct ptx_stream *ps = ctx;
	const uint8_t *nul = memchr(p, 0, n);      /* the text ends at its NUL */
	if (ps->ended)
		return 0;
	if (nul) {
		n = (size_t)(nul - p);
		ps->ended = true;
	}
	while (n > 0 || (ps->ended && ps->len > 0)) {
		size_t take = n < 2 * WS_STREAM_CHUNK - ps->len ? n : 2 * WS_STREAM_CHUNK - ps->len;
		memcpy(ps->buf + ps->len, p, take);
		ps->len += take;
		p += take;
		n -= take;
		char *end = ps->buf + ps->len;
		char *lastnl = memrchr(ps->buf, '\n', ps->len);
		char *upto = ps->ended && n == 0 ? end : lastnl ? lastnl + 1 : NULL;
		if (!upto) {
			if (ps->len == 2 * WS_STREAM_CHUNK) {  /* one enormous line: drop it */
				ps->len = 0;
				ps->skip_line = true;
			}
			continue;
		}
		char *from = ps->buf;
		if (ps->skip_line) {                     /* the rest of a dropped line */
			char *nl = memchr(from, '\n', (size_t)(upto - from));
			from = nl ? nl + 1 : upto;
			ps->skip_line = nl == NULL;
		}
		if (ps->first) {
			ptx_header(from, upto, ps->e, &ps->have_version);
			ps->first = false;
		}
		struct ws_err msg = {0};
		if (ptx_entries(from, upto, ps->e, &ps->kernels_cap, ps->pool, ps->lim, &msg) < 0) {
			ps->failed = true;                   /* its message names the entry already */
			return ws_err_set(err, msg.code, "%s", msg.msg);
		}
		ps->len = (size_t)(end - upto);
		memmove(ps->buf, upto, ps->len);
		if (ps->ended && n == 0)
			ps->len = 0;
	}
	return 0;
}

int ws_ptx_inspect_stream(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
			const struct ws_limits *lim, struct ws_err *err)
{
	struct ptx_stream ps = {.e = e, .kernels_cap = e->nkernels, .pool = pool, .lim = lim, .first = true};
	if (!(ps.buf = ws_decoder_buf(dc, WS_DBUF_PTX, 2 * WS_STREAM_CHUNK)))
		return ws_err_set(err, WS_E_MEMORY, "out of memory"), -1;
	struct ws_err perr = {0};
	int rc = ws_payload_stream(dc, e, p, n, lim, ptx_sink, &ps, &perr);
	if (rc == 0 && ps.len > 0)                  /* a last line without a newline */
		rc = ptx_sink(&ps, (const uint8_t *)"", 1, &perr);
	if (rc < 0)
		return ws_err_set(err, perr.code ? perr.code : WS_E_FORMAT, ps.failed ? "%s%s" : "%s: %s", ps.failed ? "" : e->name, perr.msg), -1;
	e->content_size = e->uncompressed_size;
	if (!ps.have_version)
		return ws_err_set(err, WS_E_FORMAT, "%s: PTX has no .version directive", e->name), -1;
	e->kernels_known = true;
	return 0;
}
