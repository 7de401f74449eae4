/* quote.c - the escaping of strangers' strings for each output kind (ws_quote.h says what
 * each kind does and why). One step, unit(), turns the next character or stray byte of a
 * string into what text shows for it; Markdown builds on it, JSON has its own. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_quote.h"

size_t ws_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;                      /* a continuation byte, 0xc0/0xc1 (overlong), 0xf5+ */
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

bool ws_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = ws_utf8_next(p + i, n - i, &cp);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

size_t ws_utf8_put(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp > 0x10ffff)
		return 0;
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Whether code point cp is one that text shows escaped: a control or an invisible
 * format character (see above). */
static bool cp_hidden(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||   /* C0, DEL, C1 */
	       cp == 0xad || cp == 0x61c ||                                  /* soft hyphen, ALM */
	       (cp >= 0x200b && cp <= 0x200f) ||   /* zero-width space/joiners, LRM, RLM */
	       (cp >= 0x2028 && cp <= 0x202e) ||   /* line/paragraph separators, bidi embeddings, overrides */
	       (cp >= 0x2060 && cp <= 0x206f) ||   /* word joiner, invisible operators, bidi isolates */
	       cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||             /* BOM, annotations */
	       (cp >= 0xe0000 && cp <= 0xe007f);   /* tags: invisible ASCII */
}

/* What text shows for the character or stray byte at s (n >= 1 bytes): written to out,
 * its length in *olen; returns the bytes it stands for. *raw: out is the input as is. */
static size_t unit(const unsigned char *s, size_t n, char out[16], size_t *olen, bool *raw)
{
	uint32_t cp;
	size_t l = ws_utf8_next(s, n, &cp);
	*raw = false;
	if (!l) {
		*olen = (size_t)snprintf(out, 16, "\\x%02x", s[0]);
		return 1;
	}
	if (!cp_hidden(cp)) {
		memcpy(out, s, l);
		*olen = l;
		*raw = true;
		return l;
	}
	if (cp == '\n' || cp == '\t' || cp == '\r') {
		out[0] = '\\';
		out[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
		*olen = 2;
	} else if (cp < 0x80) {
		*olen = (size_t)snprintf(out, 16, "\\x%02x", (unsigned)cp);
	} else if (cp <= 0xffff) {
		*olen = (size_t)snprintf(out, 16, "\\u%04x", (unsigned)cp);
	} else {
		*olen = (size_t)snprintf(out, 16, "\\U%08x", (unsigned)cp);
	}
	return l;
}

/* Characters Markdown (CommonMark and GitHub's extensions) reads mid-line: emphasis, code,
 * raw HTML and autolinks, table cells, links and images, strikethrough, entities, math, and
 * the '@' of GFM's extended e-mail, mailto: and xmpp: autolinks. */
static bool md_special(char c)
{
	return c && strchr("\\`*_<>|[]~&$@", c) != NULL;
}

/* Whether s[i] (of n) needs a backslash in Markdown text: a special character; or what
 * GFM's extended autolinks need and no '<' marks (doc/markdown-autolinks.md): the ':' of
 * "://" after a scheme, and the '.' of "www." (any case). */
static bool md_escape_at(const unsigned char *s, size_t i, size_t n)
{
	if (md_special((char)s[i]))
		return true;
	if (s[i] == ':')
		return i + 1 < n && s[i + 1] == '/';
	return s[i] == '.' && i >= 3 && (s[i - 3] | 0x20) == 'w' && (s[i - 2] | 0x20) == 'w' && (s[i - 1] | 0x20) == 'w';
}

static bool ci_log;                     /* ws_quote_ci_log: names go to a CI's log */
static bool ci_escape_at(const unsigned char *s, size_t i);

static bool raw_escape(const unsigned char *s, size_t i, size_t n, bool md, bool cell)
{
	return (md && md_escape_at(s, i, n)) || (cell && s[i] == '|');
}

static void text(struct ws_buf *b, const unsigned char *s, size_t n, bool md, bool cell)
{
	char u[16];
	size_t ol;
	bool raw;
	for (size_t i = 0; i < n;) {
		size_t run = 0;                         /* plain ASCII goes out in one piece */
		while (i + run < n && s[i + run] >= 0x20 && s[i + run] < 0x7f && !raw_escape(s, i + run, n, md, cell) &&
		       !(ci_log && ci_escape_at(s, i + run)))
			run++;
		if (run) {
			ws_buf_add(b, (const char *)s + i, run);
			i += run;
			continue;
		}
		if (ci_log && ci_escape_at(s, i)) {      /* shown as text shows a control */
			snprintf(u, sizeof u, "\\x%02x", s[i++]);
			ws_buf_add(b, u, 4);
			continue;
		}
		bool esc = raw_escape(s, i, n, md, cell);
		i += unit(s + i, n - i, u, &ol, &raw);
		if (raw && ol == 1 && esc)
			ws_buf_add(b, "\\", 1);
		ws_buf_add(b, u, ol);
	}
}

/* A code span: no escape works inside one, so the fence is one backtick longer than the
 * longest run in the content, and a space pads content that begins or ends with a backtick
 * (or begins and ends with a space, which CommonMark would strip). */
static void md_code(struct ws_buf *b, const unsigned char *s, size_t n, bool cell)
{
	struct ws_buf c = { 0 };
	text(&c, s, n, false, cell);
	if (c.failed) {
		b->failed = true;
		ws_buf_free(&c);
		return;
	}
	size_t run = 0, most = 0;
	for (size_t i = 0; i < c.len; i++) {
		run = c.p[i] == '`' ? run + 1 : 0;
		most = run > most ? run : most;
	}
	bool pad = c.len == 0 || c.p[0] == '`' || c.p[c.len - 1] == '`' || (c.p[0] == ' ' && c.p[c.len - 1] == ' ');
	for (size_t i = 0; i <= most; i++)
		ws_buf_add(b, "`", 1);
	if (pad)
		ws_buf_add(b, " ", 1);
	ws_buf_add(b, c.p, c.len);
	if (pad && c.len)
		ws_buf_add(b, " ", 1);
	for (size_t i = 0; i <= most; i++)
		ws_buf_add(b, "`", 1);
	ws_buf_free(&c);
}

static void json(struct ws_buf *b, const unsigned char *s, size_t n)
{
	char u[16];
	ws_buf_add(b, "\"", 1);
	for (size_t i = 0; i < n;) {
		size_t run = 0;                         /* plain ASCII goes out in one piece */
		while (i + run < n && s[i + run] >= 0x20 && s[i + run] < 0x7f && s[i + run] != '"' && s[i + run] != '\\' &&
		       !(ci_log && ci_escape_at(s, i + run)))
			run++;
		if (run) {
			ws_buf_add(b, (const char *)s + i, run);
			i += run;
			continue;
		}
		if (ci_log && ci_escape_at(s, i)) {      /* the same character, as a JSON escape */
			snprintf(u, sizeof u, "\\u%04x", s[i++]);
			ws_buf_add(b, u, 6);
			continue;
		}
		uint32_t cp;
		size_t l = ws_utf8_next(s + i, n - i, &cp);
		if (!l) {                               /* a stray byte: surrogateescape */
			snprintf(u, sizeof u, "\\udc%02x", s[i]);
			ws_buf_add(b, u, 6);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\') {
			u[0] = '\\', u[1] = (char)cp;
			ws_buf_add(b, u, 2);
		} else if (cp == '\n' || cp == '\t' || cp == '\r' || cp == '\b' || cp == '\f') {
			u[0] = '\\';
			u[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : cp == '\r' ? 'r' : cp == '\b' ? 'b' : 'f';
			ws_buf_add(b, u, 2);
		} else if (!cp_hidden(cp)) {
			ws_buf_add(b, (const char *)s + i, l);
		} else if (cp <= 0xffff) {
			snprintf(u, sizeof u, "\\u%04x", (unsigned)cp);
			ws_buf_add(b, u, 6);
		} else {                                /* a tag character: a surrogate pair */
			uint32_t v = cp - 0x10000;
			snprintf(u, sizeof u, "\\u%04x\\u%04x", (unsigned)(0xd800 | v >> 10), (unsigned)(0xdc00 | (v & 0x3ff)));
			ws_buf_add(b, u, 12);
		}
		i += l;
	}
	ws_buf_add(b, "\"", 1);
}

/* The text form of s, then each byte in set replaced as given (SARIF's brackets, a
 * workflow command's % CR LF : ,). */
static void text_then(struct ws_buf *b, const unsigned char *s, size_t n, const char *set, const char *const *with)
{
	struct ws_buf t = { 0 };
	text(&t, s, n, false, false);
	if (t.failed)
		b->failed = true;
	for (size_t i = 0; i < t.len; i++) {
		const char *hit = t.p[i] ? strchr(set, t.p[i]) : NULL;
		if (hit)
			ws_buf_puts(b, with[hit - set]);
		else
			ws_buf_add(b, t.p + i, 1);
	}
	ws_buf_free(&t);
}

/* HTML text or an attribute value (quoted with " or '): the text form, then the five
 * characters HTML reads as markup written as entities. */
static void html(struct ws_buf *b, const unsigned char *s, size_t n)
{
	struct ws_buf t = { 0 };
	text(&t, s, n, false, false);
	if (t.failed) {
		b->failed = true;
		ws_buf_free(&t);
		return;
	}
	for (size_t i = 0; i < t.len; i++) {
		switch (t.p[i]) {
		case '&': ws_buf_puts(b, "&amp;"); break;
		case '<': ws_buf_puts(b, "&lt;"); break;
		case '>': ws_buf_puts(b, "&gt;"); break;
		case '"': ws_buf_puts(b, "&quot;"); break;
		case '\'': ws_buf_puts(b, "&#39;"); break;
		default: ws_buf_add(b, t.p + i, 1);
		}
	}
	ws_buf_free(&t);
}

static void uri(struct ws_buf *b, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c && strchr("-._~/", c))) {
			ws_buf_add(b, (const char *)s + i, 1);
		} else {
			char h[4];
			snprintf(h, sizeof h, "%%%02X", c);
			ws_buf_add(b, h, 3);
		}
	}
}

void ws_quote(struct ws_buf *b, enum ws_qkind k, const char *s, size_t n)
{
	/* SARIF 2.1.0 3.11.5: literal braces doubled, so that "{0}" in a name is no placeholder */
	static const char *const sarif_with[] = {"\\[", "\\]", "{{", "}}"};
	static const char *const gha_with[] = {"%25", "%0D", "%0A", "%3A", "%2C"};
	const unsigned char *p = (const unsigned char *)s;
	switch (k) {
	case WS_Q_SARIF: text_then(b, p, n, "[]{}", sarif_with); break;
	case WS_Q_GHA: text_then(b, p, n, "%\r\n", gha_with); break;
	case WS_Q_GHA_PROP: text_then(b, p, n, "%\r\n:,", gha_with); break;
	case WS_Q_URI: uri(b, p, n); break;
	case WS_Q_TEXT: text(b, p, n, false, false); break;
	case WS_Q_MD: text(b, p, n, true, false); break;
	case WS_Q_MD_CODE: md_code(b, p, n, false); break;
	case WS_Q_MD_CODE_CELL: md_code(b, p, n, true); break;
	case WS_Q_JSON: json(b, p, n); break;
	case WS_Q_HTML: html(b, p, n); break;
	}
}

void ws_quote_str(struct ws_buf *b, enum ws_qkind k, const char *s)
{
	if (!s)
		ws_buf_puts(b, k == WS_Q_JSON ? "null" : "(null)");
	else
		ws_quote(b, k, s, strlen(s));
}

/* The buffers that take turns for fprintf's %s. */
#define TURNS 8
static _Thread_local struct ws_buf ring[TURNS];
static _Thread_local unsigned turn;

static const char *ring_quote(enum ws_qkind k, const char *s)
{
	if (!s)
		return "(null)";
	struct ws_buf *b = &ring[turn++ % TURNS];
	b->len = 0;
	b->failed = false;
	ws_quote(b, k, s, strlen(s));
	ws_buf_add(b, "", 0);                   /* an empty result is a string too */
	return b->failed || !b->p ? "?" : b->p;
}

const char *ws_q_text(const char *s) { return ring_quote(WS_Q_TEXT, s); }
const char *ws_q_md(const char *s) { return ring_quote(WS_Q_MD, s); }
const char *ws_q_html(const char *s) { return ring_quote(WS_Q_HTML, s); }
const char *ws_q_md_code(const char *s, bool in_table) { return ring_quote(in_table ? WS_Q_MD_CODE_CELL : WS_Q_MD_CODE, s); }
const char *ws_q_gha(const char *s, bool property) { return ring_quote(property ? WS_Q_GHA_PROP : WS_Q_GHA, s); }

void ws_quote_release(void)
{
	for (unsigned i = 0; i < TURNS; i++)
		ws_buf_free(&ring[i]);
}

char *ws_q_text_into(char *buf, size_t len, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	char u[16];
	if (len == 0)
		return buf;
	for (size_t i = 0, ol; i < n;) {
		bool raw;
		size_t used = unit(p + i, n - i, u, &ol, &raw);
		if (o + ol + 1 > len)
			break;
		memcpy(buf + o, u, ol);
		o += ol;
		i += used;
	}
	buf[o] = '\0';
	return buf;
}

void ws_sanitize(char *buf, size_t len, const char *s, size_t n)
{
	ws_q_text_into(buf, len, s, strnlen(s, n));
}

char *ws_strdup_field(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n == 0)
		return NULL;
	struct ws_buf b = { 0 };
	ws_quote(&b, WS_Q_TEXT, s, n);
	if (b.failed) {
		ws_buf_free(&b);
		return NULL;
	}
	char *r = realloc(b.p, b.len + 1);    /* an entry holds several: no slack kept */
	return r ? r : b.p;
}

/* ---- names in a CI's log ----------------------------------------------------------------
 * GitHub's runner reads every line a step writes, stdout and stderr alike: a line that
 * begins with "::" after leading white space is a workflow command (::error, ::add-mask,
 * ::stop-commands), and so is "##[command]" anywhere in a line (the legacy form). Under
 * GITHUB_ACTIONS=true no name may make one: in text (and Markdown, HTML, SARIF and
 * workflow-command data, which build on it) a ':' that begins a name (after white space)
 * or follows a ':' is shown as \x3a, and the '[' of "##[" as \x5b; in JSON the same
 * characters are written as \u003a and \u005b, the same string once decoded.
 * doc/ci-outputs.md has the runner's rules and their sources. */

/* Whether s[i] is such a character: the ':' that starts a name (all before it blanks or
 * non-ASCII, which .NET's TrimStart may take for white space) or follows a ':', or the
 * '[' of "##[". */
static bool ci_escape_at(const unsigned char *s, size_t i)
{
	if (s[i] == '[')
		return i >= 2 && s[i - 1] == '#' && s[i - 2] == '#';
	if (s[i] != ':')
		return false;
	for (size_t k = i; k-- > 0;) {
		if (s[k] == ':')
			return k == i - 1;
		if (s[k] != ' ' && s[k] != '\t' && s[k] < 0x80)
			return false;
	}
	return true;
}

void ws_quote_ci_log(bool on)
{
	ci_log = on;
}

