/* jsonread.c - a small strict JSON reader over a bounded buffer, for the JSON that comes
 * inside packages (conda-meta records, info/paths.json, container image manifests): no
 * tree is built, values outside the wanted keys are stepped over; depth and string
 * length are bounded; any syntax error stops the parse with a message ("expected ':' at
 * byte 12"). Strangers' bytes like any other input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_jsonread.h"

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

bool ws_jp_expect(struct ws_jp *j, char c)
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

/* A string into out (at most cap-1 bytes kept; longer is an error); \u escapes outside
 * ASCII become '?'. out may be NULL to skip. */
bool ws_jp_string(struct ws_jp *j, char *out, size_t cap)
{
	size_t n = 0;
	ws_jp_skip_ws(j);
	if (j->p >= j->end || *j->p != '"')
		return ws_jp_fail(j, "expected a string");
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if ((unsigned char)c < 0x20)
			return ws_jp_fail(j, "control character in a string");
		if (c == '\\') {
			if (j->p >= j->end)
				return ws_jp_fail(j, "truncated escape");
			char e = *j->p++;
			switch (e) {
			case '"': case '\\': case '/': c = e; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v = 0;
				for (int i = 0; i < 4; i++) {
					if (j->p >= j->end)
						return ws_jp_fail(j, "truncated \\u escape");
					char h = *j->p++;
					v = v * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 :
								 h >= 'A' && h <= 'F' ? h - 'A' + 10 : 99);
					if (v > 0xffff)
						return ws_jp_fail(j, "bad \\u escape");
				}
				c = v >= 0x20 && v < 0x7f ? (char)v : '?';
				break;
			}
			default:
				return ws_jp_fail(j, "bad escape");
			}
		}
		if (out) {
			if (n + 1 >= cap)
				return ws_jp_fail(j, "string too long");
			out[n++] = c;
		}
	}
	if (j->p >= j->end)
		return ws_jp_fail(j, "unterminated string");
	j->p++;
	if (out)
		out[n] = 0;
	return true;
}

bool ws_jp_number(struct ws_jp *j, int64_t *out)
{
	int64_t v = 0;
	bool neg = false, digits = false;
	ws_jp_skip_ws(j);
	if (j->p < j->end && *j->p == '-') {
		neg = true;
		j->p++;
	}
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		if (v > (INT64_MAX - 9) / 10)
			return ws_jp_fail(j, "number too large");
		v = v * 10 + (*j->p++ - '0');
		digits = true;
	}
	/* fractions and exponents are read over, never used */
	while (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E' || *j->p == '+' || *j->p == '-' ||
				 (*j->p >= '0' && *j->p <= '9')))
		j->p++;
	if (!digits)
		return ws_jp_fail(j, "bad number");
	if (out)
		*out = neg ? -v : v;
	return true;
}


static bool skip_container(struct ws_jp *j, char open, char close)
{
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
		if (open == '{' && (!ws_jp_string(j, NULL, 0) || !ws_jp_expect(j, ':')))
			return false;
		if (!ws_jp_skip_value(j))
			return false;
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (!ws_jp_expect(j, close))
			return false;
		j->depth--;
		return true;
	}
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
	if (!ws_jp_expect(j, '{'))
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
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == '"') {
			/* keys longer than any wanted one are read over */
			const char *save = j->p;
			if (!ws_jp_string(j, key, sizeof key)) {
				j->p = save;
				j->err[0] = 0;
				key[0] = 0;
				if (!ws_jp_string(j, NULL, 0))
					return false;
			}
		} else {
			return ws_jp_fail(j, "expected a key");
		}
		if (!ws_jp_expect(j, ':') || !member(j, key, ctx))
			return false;
		ws_jp_skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (!ws_jp_expect(j, '}'))
			return false;
		j->depth--;
		return true;
	}
}

/* Walks the items of an array, calling item() for each; item consumes the value. */
bool ws_jp_array(struct ws_jp *j, bool (*item)(struct ws_jp *, void *), void *ctx)
{
	if (!ws_jp_expect(j, '['))
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
		if (!ws_jp_expect(j, ']'))
			return false;
		j->depth--;
		return true;
	}
}
