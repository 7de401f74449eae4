/* jsonread.c - a small strict JSON reader over a bounded buffer, for the JSON that comes
 * inside packages (conda-meta records, info/paths.json, container image manifests): no
 * tree is built, values outside the wanted keys are stepped over; depth, string and key
 * length are bounded; any departure from RFC 8259 stops the parse with a message
 * ("expected ':' at byte 12"): a malformed number, a string that is not UTF-8, a lone
 * surrogate, a duplicate key. Strangers' bytes like any other input, and read as one
 * reader of a manifest reads them, or not at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_jsonread.h"
#include "ws_quote.h"

#define DEPTH_MAX 64

void ws_jp_skip_ws(struct ws_jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

bool ws_jp_fail(struct ws_jp *j, const char *what)
{
	if (!j->err[0])
		snprintf(j->err, sizeof j->err, "%s at byte %zu", what, (size_t)(j->p - j->start));
	return false;
}

static bool jp_expect(struct ws_jp *j, char c)
{
	ws_jp_skip_ws(j);
	if (j->p >= j->end || *j->p != c) {
		char m[32];
		snprintf(m, sizeof m, "expected '%c'", c);
		return ws_jp_fail(j, m);
	}
	j->p++;
	return true;
}

static int hexval(char h)
{
	return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
}

/* The four hex digits of a \u escape (after the 'u'). */
static bool hex4(struct ws_jp *j, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int d = j->p < j->end ? hexval(*j->p) : -1;
		if (d < 0)
			return ws_jp_fail(j, "bad \\u escape");
		*v = *v * 16 + (unsigned)d;
		j->p++;
	}
	return true;
}

/* n bytes onto the string being read (out NULL: counted only). */
static bool put(struct ws_jp *j, char *out, size_t cap, size_t *len, const char *s, size_t n)
{
	if (!out)
		return true;
	if (*len + n >= cap)
		return ws_jp_fail(j, "string too long");
	memcpy(out + *len, s, n);
	*len += n;
	return true;
}

/* A string into out (at most cap-1 bytes kept; longer is an error). The bytes must be
 * UTF-8 (RFC 8259 8.1); \u escapes become UTF-8, a surrogate pair one character; a lone
 * \udc80-\udcff is the byte 80-ff (Python's "surrogateescape", as conda writes a file name
 * that is not UTF-8); other lone surrogates and \u0000 (which would cut a C string: a
 * parser differential) are errors. out may be NULL to step over it. */
bool ws_jp_string(struct ws_jp *j, char *out, size_t cap)
{
	size_t n = 0;
	ws_jp_skip_ws(j);
	if (j->p >= j->end || *j->p != '"')
		return ws_jp_fail(j, "expected a string");
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		char u[4];
		if (c < 0x20)
			return ws_jp_fail(j, "control character in a string");
		if (c >= 0x80) {
			uint32_t cp;
			size_t l = ws_utf8_next((const unsigned char *)j->p, (size_t)(j->end - j->p), &cp);
			if (!l)
				return ws_jp_fail(j, "a string is not UTF-8");
			if (!put(j, out, cap, &n, j->p, l))
				return false;
			j->p += l;
			continue;
		}
		j->p++;
		if (c != '\\') {
			if (!put(j, out, cap, &n, (const char *)&c, 1))
				return false;
			continue;
		}
		if (j->p >= j->end)
			return ws_jp_fail(j, "truncated escape");
		char e = *j->p++, one;
		switch (e) {
		case '"': case '\\': case '/': one = e; break;
		case 'b': one = '\b'; break;
		case 'f': one = '\f'; break;
		case 'n': one = '\n'; break;
		case 'r': one = '\r'; break;
		case 't': one = '\t'; break;
		case 'u': {
			unsigned v, lo;
			size_t l;
			if (!hex4(j, &v))
				return false;
			if (v == 0)
				return ws_jp_fail(j, "\\u0000 in a string");
			if (v >= 0xd800 && v <= 0xdbff) {          /* a pair, or nothing */
				if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
					return ws_jp_fail(j, "lone surrogate in a \\u escape");
				j->p += 2;
				if (!hex4(j, &lo))
					return false;
				if (lo < 0xdc00 || lo > 0xdfff)
					return ws_jp_fail(j, "lone surrogate in a \\u escape");
				v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
			} else if (v >= 0xdc80 && v <= 0xdcff) {   /* surrogateescape: one byte */
				u[0] = (char)(v - 0xdc00);
				if (!put(j, out, cap, &n, u, 1))
					return false;
				continue;
			} else if (v >= 0xdc00 && v <= 0xdfff) {
				return ws_jp_fail(j, "lone surrogate in a \\u escape");
			}
			l = ws_utf8_put(v, u);
			if (!put(j, out, cap, &n, u, l))
				return false;
			continue;
		}
		default:
			return ws_jp_fail(j, "bad escape");
		}
		if (!put(j, out, cap, &n, &one, 1))
			return false;
	}
	if (j->p >= j->end)
		return ws_jp_fail(j, "unterminated string");
	j->p++;
	if (out)
		out[n] = 0;
	return true;
}

static bool digit(const struct ws_jp *j)
{
	return j->p < j->end && *j->p >= '0' && *j->p <= '9';
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, nothing else ("01",
 * "1.", ".5", "+1", "-", "1e" are errors). out wants an integer: a fraction or exponent
 * is an error there, and so is one past int64; stepped over (out NULL), any is read. */
bool ws_jp_number(struct ws_jp *j, int64_t *out)
{
	uint64_t v = 0;
	bool neg = false, over = false;
	ws_jp_skip_ws(j);
	if (j->p < j->end && *j->p == '-') {
		neg = true;
		j->p++;
	}
	if (!digit(j))
		return ws_jp_fail(j, "bad number");
	if (*j->p == '0') {
		j->p++;
		if (digit(j))
			return ws_jp_fail(j, "bad number (a leading zero)");
	} else {
		while (digit(j)) {
			unsigned d = (unsigned)(*j->p++ - '0');
			over |= v > ((uint64_t)INT64_MAX - d) / 10;
			if (!over)
				v = v * 10 + d;
		}
	}
	bool frac = false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digit(j))
			return ws_jp_fail(j, "bad number (no digit after '.')");
		while (digit(j))
			j->p++;
		frac = true;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digit(j))
			return ws_jp_fail(j, "bad number (no digit in the exponent)");
		while (digit(j))
			j->p++;
		frac = true;
	}
	if (!out)
		return true;
	if (frac)
		return ws_jp_fail(j, "expected an integer");
	if (over)
		return ws_jp_fail(j, "number too large");
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* ---- duplicate keys ----------------------------------------------------------------------
 * A document that names one key twice in an object is rejected: readers disagree on which
 * one counts (the first, the last, both), and a manifest that two tools read differently
 * is a way to show one image and run another. Each object's keys are kept as keyed 64-bit
 * hashes of their decoded bytes ("a" and "\u0061" are the same key): the first few inline,
 * more in a table of its own, freed when the object ends. Two different keys with equal
 * hashes would reject a good document, as unlikely as chance makes it (ws_hash64). */
#define KEYS_INLINE 16

struct keyset {
	uint64_t inl[KEYS_INLINE];
	uint64_t *tab;                 /* open addressing, 0 empty; cap a power of two */
	size_t n, cap;
};

static bool tab_put(uint64_t *tab, size_t cap, uint64_t h)
{
	size_t k = (size_t)h & (cap - 1);
	while (tab[k]) {
		if (tab[k] == h)
			return false;
		k = (k + 1) & (cap - 1);
	}
	tab[k] = h;
	return true;
}

/* Adds h; 0: a duplicate, -1: out of memory, 1: added. */
static int keyset_add(struct keyset *ks, uint64_t h)
{
	h |= 1;                        /* never 0, the empty slot (one bit less: still 63) */
	if (ks->n < KEYS_INLINE && !ks->tab) {
		for (size_t i = 0; i < ks->n; i++)
			if (ks->inl[i] == h)
				return 0;
		ks->inl[ks->n++] = h;
		return 1;
	}
	if (!ks->tab || (ks->n + 1) * 2 > ks->cap) {
		size_t ncap = ks->cap ? ks->cap * 2 : 4 * KEYS_INLINE;
		uint64_t *t = ws_calloc(ncap, sizeof *t);
		if (!t)
			return -1;
		if (ks->tab) {
			for (size_t i = 0; i < ks->cap; i++)
				if (ks->tab[i])
					tab_put(t, ncap, ks->tab[i]);
		} else {
			for (size_t i = 0; i < ks->n; i++)
				tab_put(t, ncap, ks->inl[i]);
		}
		free(ks->tab);
		ks->tab = t;
		ks->cap = ncap;
	}
	if (!tab_put(ks->tab, ks->cap, h))
		return 0;
	ks->n++;
	return 1;
}

/* The next key of an object: decoded, checked against the object's others, and copied to
 * key (keys longer than keycap-1 bytes come as ""; key may be NULL). */
static bool read_key(struct ws_jp *j, struct keyset *ks, char *key, size_t keycap)
{
	ws_jp_skip_ws(j);
	if (j->p >= j->end || *j->p != '"')
		return ws_jp_fail(j, "expected a key");
	const char *at = j->p;
	if (!ws_jp_string(j, j->key, sizeof j->key))
		return false;
	size_t kl = strlen(j->key);
	int added = keyset_add(ks, ws_hash64(j->key, kl));
	if (added <= 0) {
		char shown[48];
		j->p = at;                 /* the error names where the key begins */
		ws_q_text_into(shown, sizeof shown, j->key, kl);
		if (added < 0)
			return ws_jp_fail(j, "out of memory");
		char m[96];
		snprintf(m, sizeof m, "duplicate key '%s'", shown);
		return ws_jp_fail(j, m);
	}
	if (key) {
		if (kl < keycap)
			memcpy(key, j->key, kl + 1);
		else
			key[0] = 0;
	}
	return true;
}

static bool skip_container(struct ws_jp *j, char open, char close)
{
	struct keyset ks = { .n = 0 };
	bool ok = false;
	if (++j->depth > DEPTH_MAX)
		return ws_jp_fail(j, "nested too deep");
	j->p++;
	ws_jp_skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		if (open == '{' && (!read_key(j, &ks, NULL, 0) || !jp_expect(j, ':')))
			break;
		if (!ws_jp_skip_value(j))
			break;
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (jp_expect(j, close)) {
			j->depth--;
			ok = true;
		}
		break;
	}
	free(ks.tab);
	return ok;
}

bool ws_jp_skip_value(struct ws_jp *j)
{
	ws_jp_skip_ws(j);
	if (j->p >= j->end)
		return ws_jp_fail(j, "truncated");
	switch (*j->p) {
	case '"': return ws_jp_string(j, NULL, 0);
	case '{': return skip_container(j, '{', '}');
	case '[': return skip_container(j, '[', ']');
	case 't': case 'f': case 'n': {
		static const char *const words[] = {"true", "false", "null"};
		for (int i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);
			if ((size_t)(j->end - j->p) >= l && !memcmp(j->p, words[i], l)) {
				j->p += l;
				return true;
			}
		}
		return ws_jp_fail(j, "bad literal");
	}
	default:
		return ws_jp_number(j, NULL);
	}
}

/* Walks the members of an object, calling member() for each key; member consumes the value. */
bool ws_jp_object(struct ws_jp *j, bool (*member)(struct ws_jp *, const char *, void *), void *ctx)
{
	char key[64];
	struct keyset ks = { .n = 0 };
	bool ok = false;
	if (!jp_expect(j, '{'))
		return false;
	if (++j->depth > DEPTH_MAX)
		return ws_jp_fail(j, "nested too deep");
	ws_jp_skip_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		if (!read_key(j, &ks, key, sizeof key) || !jp_expect(j, ':') || !member(j, key, ctx))
			break;
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (jp_expect(j, '}')) {
			j->depth--;
			ok = true;
		}
		break;
	}
	free(ks.tab);
	return ok;
}

/* Walks the items of an array, calling item() for each; item consumes the value. */
bool ws_jp_array(struct ws_jp *j, bool (*item)(struct ws_jp *, void *), void *ctx)
{
	if (!jp_expect(j, '['))
		return false;
	if (++j->depth > DEPTH_MAX)
		return ws_jp_fail(j, "nested too deep");
	ws_jp_skip_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		if (!item(j, ctx))
			return false;
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (!jp_expect(j, ']'))
			return false;
		j->depth--;
		return true;
	}
}
