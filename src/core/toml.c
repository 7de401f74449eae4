/* toml.c - one table of a TOML file, strictly (ws_toml.h). The cursor latches its first
 * error; every loop consumes at least one byte or stops, nesting is bounded, and nothing
 * from the file sizes an allocation before it is read. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_quote.h"
#include "ws_toml.h"

#define MAX_SEGS 16                    /* dotted key segments compared; more never match */
#define SEG_LEN 64                     /* longer segments never match a name we look for */

struct cur {
	const char *p, *end;
	unsigned line;
	struct ws_err *err;
	bool failed;
};

/* A dotted key or table name, as far as comparing it needs. */
struct key {
	char seg[MAX_SEGS][SEG_LEN];
	bool long_seg[MAX_SEGS];
	size_t n;                      /* segments, also past MAX_SEGS (not stored) */
};

static int fail_as(struct cur *c, enum ws_errcode code, const char *why)
{
	if (!c->failed)
		ws_err_set(c->err, code, "line %u: %s", c->line, why);
	c->failed = true;
	c->p = c->end;                 /* every loop ends at the end */
	return -1;
}

/* A malformed file, the usual failure. */
static int fail(struct cur *c, const char *why)
{
	return fail_as(c, WS_E_FORMAT, why);
}

static bool at(const struct cur *c, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(c->end - c->p) >= n && !memcmp(c->p, s, n);
}

static void blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static void comment(struct cur *c)
{
	if (c->p < c->end && *c->p == '#')
		while (c->p < c->end && *c->p != '\n')
			c->p++;
}

/* A newline (LF or CRLF); false when there is none here. */
static bool newline(struct cur *c)
{
	if (at(c, "\r\n"))
		c->p += 2;
	else if (c->p < c->end && *c->p == '\n')
		c->p++;
	else
		return false;
	c->line++;
	return true;
}

/* Blanks, comments and newlines, as arrays allow between their items. */
static void space(struct cur *c)
{
	for (;;) {
		blanks(c);
		comment(c);
		if (!newline(c))
			return;
	}
}

/* After a key/value pair or a header: blanks, a comment, then the end of the line. */
static int end_of_line(struct cur *c)
{
	blanks(c);
	comment(c);
	if (c->p == c->end || newline(c))
		return 0;
	return fail(c, "expected the end of the line");
}

static void put(struct ws_buf *out, const char *s, size_t n)
{
	if (out)
		ws_buf_add(out, s, n);
}

static int hex_escape(struct cur *c, int digits, struct ws_buf *out)
{
	uint32_t cp = 0;
	for (int i = 0; i < digits; i++) {
		if (c->p >= c->end)
			return fail(c, "unterminated \\u escape");
		char h = *c->p++;
		int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
		if (v < 0)
			return fail(c, "bad hex digit in a \\u escape");
		cp = cp << 4 | (uint32_t)v;
	}
	char u[4];
	size_t l = ws_utf8_put(cp, u);
	if (!l)
		return fail(c, "a \\u escape that is not a Unicode scalar value");
	put(out, u, l);
	return 0;
}

/* A string of any of the four kinds, its value into out (NULL: only skipped). */
static int string(struct cur *c, struct ws_buf *out)
{
	bool literal = *c->p == '\'';
	const char *q3 = literal ? "'''" : "\"\"\"";
	bool multi = at(c, q3);
	c->p += multi ? 3 : 1;
	if (multi)
		(void)newline(c);              /* a newline right after the opening quotes is not kept */
	for (;;) {
		if (c->p >= c->end)
			return fail(c, "unterminated string");
		char ch = *c->p;
		if (multi && at(c, q3)) {
			/* up to two quotes may end the content: """a"""" is 'a"' */
			size_t run = 0;
			while (c->p + run < c->end && c->p[run] == q3[0] && run < 5)
				run++;
			put(out, c->p, run - 3);
			c->p += run;
			return 0;
		}
		if (!multi && ch == q3[0]) {
			c->p++;
			return 0;
		}
		if (ch == '\n' || (ch == '\r' && at(c, "\r\n"))) {
			if (!multi)
				return fail(c, "newline in a one-line string");
			put(out, "\n", 1);
			newline(c);
			continue;
		}
		if (((unsigned char)ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(c, "control character in a string");
		if (ch == '\\' && !literal) {
			c->p++;
			if (c->p >= c->end)
				return fail(c, "unterminated string");
			char e = *c->p++;
			switch (e) {
			case '"': put(out, "\"", 1); break;
			case '\\': put(out, "\\", 1); break;
			case 'b': put(out, "\b", 1); break;
			case 't': put(out, "\t", 1); break;
			case 'n': put(out, "\n", 1); break;
			case 'f': put(out, "\f", 1); break;
			case 'r': put(out, "\r", 1); break;
			case 'u': if (hex_escape(c, 4, out) < 0) return -1; break;
			case 'U': if (hex_escape(c, 8, out) < 0) return -1; break;
			default:
				if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
					/* a line-ending backslash: the newline and the blanks after it go */
					c->p--;
					blanks(c);
					if (!newline(c))
						return fail(c, "a backslash in a string must end its line or start an escape");
					for (;;) {
						blanks(c);
						if (!newline(c))
							break;
					}
					break;
				}
				return fail(c, "unknown escape in a string");
			}
			continue;
		}
		put(out, c->p, 1);
		c->p++;
	}
}

static bool bare_char(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
}

/* A key: bare or quoted segments joined by dots, into k. */
static int key(struct cur *c, struct key *k)
{
	k->n = 0;
	for (;;) {
		blanks(c);
		struct ws_buf seg = {0};
		if (c->p < c->end && (*c->p == '"' || *c->p == '\'')) {
			if (string(c, &seg) < 0) {
				ws_buf_free(&seg);
				return -1;
			}
		} else {
			const char *s = c->p;
			while (c->p < c->end && bare_char(*c->p))
				c->p++;
			if (c->p == s)
				return fail(c, "expected a key");
			ws_buf_add(&seg, s, (size_t)(c->p - s));
		}
		if (seg.failed) {
			ws_buf_free(&seg);
			return fail_as(c, WS_E_MEMORY, "out of memory");
		}
		if (k->n < MAX_SEGS) {
			k->long_seg[k->n] = seg.len >= SEG_LEN || memchr(seg.p ? seg.p : "", 0, seg.len);
			snprintf(k->seg[k->n], SEG_LEN, "%.*s", (int)(seg.len < SEG_LEN ? seg.len : 0), seg.p ? seg.p : "");
		}
		k->n++;
		ws_buf_free(&seg);
		blanks(c);
		if (c->p < c->end && *c->p == '.') {
			c->p++;
			continue;
		}
		return 0;
	}
}

/* Whether the segments of a, then b (either may be NULL), begin with those of want. */
static bool starts_with(const struct key *a, const struct key *b, const struct key *want)
{
	size_t na = a ? a->n : 0, nb = b ? b->n : 0;
	if (na + nb < want->n)
		return false;
	for (size_t i = 0; i < want->n; i++) {
		const struct key *k = i < na ? a : b;
		size_t j = i < na ? i : i - na;
		if (j >= MAX_SEGS || k->long_seg[j] || strcmp(k->seg[j], want->seg[i]) != 0)
			return false;
	}
	return true;
}

static int skip_value(struct cur *c, int depth);

/* A scalar other than a string (number, boolean, date, time): skipped to its end. A date
 * and a time may be parted by one space ("1979-05-27 07:32:00"). */
static int skip_scalar(struct cur *c)
{
	const char *s = c->p;
	for (;;) {
		while (c->p < c->end && !strchr(" \t\r\n,]}#", *c->p))
			c->p++;
		if (c->p - s == 10 && c->p + 1 < c->end && *c->p == ' ' && c->p[1] >= '0' && c->p[1] <= '9' && s[4] == '-') {
			c->p++;
			continue;
		}
		break;
	}
	return c->p == s ? fail(c, "expected a value") : 0;
}

static int skip_value(struct cur *c, int depth)
{
	if (depth > WS_TOML_MAX_DEPTH)
		return fail_as(c, WS_E_LIMIT, "arrays or inline tables nested too deep");
	if (c->p >= c->end)
		return fail(c, "expected a value");
	char ch = *c->p;
	if (ch == '"' || ch == '\'')
		return string(c, NULL);
	if (ch == '[') {
		c->p++;
		for (;;) {
			space(c);
			if (c->p < c->end && *c->p == ']') {
				c->p++;
				return 0;
			}
			if (skip_value(c, depth + 1) < 0)
				return -1;
			space(c);
			if (c->p < c->end && *c->p == ',')
				c->p++;
			else if (c->p < c->end && *c->p == ']')
				continue;
			else
				return fail(c, "expected ',' or ']' in an array");
		}
	}
	if (ch == '{') {
		c->p++;
		for (;;) {
			space(c);
			if (c->p < c->end && *c->p == '}') {
				c->p++;
				return 0;
			}
			struct key k;
			if (key(c, &k) < 0)
				return -1;
			if (c->p >= c->end || *c->p != '=')
				return fail(c, "expected '=' after a key");
			c->p++;
			blanks(c);
			if (skip_value(c, depth + 1) < 0)
				return -1;
			space(c);
			if (c->p < c->end && *c->p == ',')
				c->p++;
			else if (c->p < c->end && *c->p == '}')
				continue;
			else
				return fail(c, "expected ',' or '}' in an inline table");
		}
	}
	return skip_scalar(c);
}

/* A string kept for the table: valid UTF-8, no control characters, bounded. */
static char *kept_string(struct cur *c)
{
	struct ws_buf b = {0};
	if (string(c, &b) < 0) {
		ws_buf_free(&b);
		return NULL;
	}
	ws_buf_add(&b, "", 1);                /* the terminating NUL, and a buffer for "" */
	const char *why = b.failed ? "out of memory" : b.len - 1 > WS_TOML_MAX_STRING ? "string too long"
			: !ws_utf8_valid(b.p, b.len - 1) ? "string is not valid UTF-8" : NULL;
	enum ws_errcode code = b.failed ? WS_E_MEMORY : b.len - 1 > WS_TOML_MAX_STRING ? WS_E_LIMIT : WS_E_FORMAT;
	for (size_t i = 0; !why && i + 1 < b.len; i++)
		if ((unsigned char)b.p[i] < 0x20 || b.p[i] == 0x7f)
			why = "control character in a string";
	if (why) {
		ws_buf_free(&b);
		fail_as(c, code, why);
		return NULL;
	}
	return b.p;
}

static void entry_free(struct ws_toml_entry *e)
{
	free(e->key);
	free(e->str);
	for (size_t i = 0; i < e->nitems; i++)
		free(e->items[i]);
	free(e->items);
}

static int strict_value(struct cur *c, struct ws_toml_entry *e)
{
	if (c->p >= c->end)
		return fail(c, "expected a value");
	if (*c->p == '"' || *c->p == '\'') {
		e->type = WS_TOML_STRING;
		return (e->str = kept_string(c)) ? 0 : -1;
	}
	if (at(c, "true") || at(c, "false")) {
		e->type = WS_TOML_BOOL;
		e->b = *c->p == 't';
		c->p += e->b ? 4 : 5;
		if (c->p < c->end && bare_char(*c->p))
			return fail(c, "expected true or false");
		return 0;
	}
	if (*c->p != '[')
		return fail(c, "only strings, true/false and arrays of strings are read here");
	e->type = WS_TOML_ARRAY;
	c->p++;
	for (;;) {
		space(c);
		if (c->p < c->end && *c->p == ']') {
			c->p++;
			return 0;
		}
		if (c->p >= c->end || (*c->p != '"' && *c->p != '\''))
			return fail(c, "an array here holds strings only");
		if (e->nitems >= WS_TOML_MAX_ITEMS)
			return fail_as(c, WS_E_LIMIT, "too many strings in one array");
		char **v = ws_reallocarray(e->items, e->nitems + 1, sizeof *v);
		if (!v)
			return fail_as(c, WS_E_MEMORY, "out of memory");
		e->items = v;
		if (!(v[e->nitems] = kept_string(c)))
			return -1;
		e->nitems++;
		space(c);
		if (c->p < c->end && *c->p == ',')
			c->p++;
		else if (c->p >= c->end || *c->p != ']')
			return fail(c, "expected ',' or ']' in an array");
	}
}

static int keep(struct cur *c, struct ws_toml_table *t, const struct key *k, unsigned line)
{
	if (k->n != 1 || k->long_seg[0])
		return fail(c, "dotted or long keys are not read in this table");
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].key, k->seg[0]))
			return fail(c, "key given twice");
	struct ws_toml_entry e = {.line = line};
	if (!(e.key = ws_strdup(k->seg[0])))
		return fail_as(c, WS_E_MEMORY, "out of memory");
	if (strict_value(c, &e) < 0) {
		entry_free(&e);
		return -1;
	}
	struct ws_toml_entry *v = ws_reallocarray(t->v, t->n + 1, sizeof *v);
	if (!v) {
		entry_free(&e);
		return fail_as(c, WS_E_MEMORY, "out of memory");
	}
	t->v = v;
	v[t->n++] = e;
	return 0;
}

int ws_toml_read_table(const char *text, size_t n, const char *table, struct ws_toml_table *out,
		       struct ws_err *err)
{
	memset(out, 0, sizeof *out);
	struct cur c = {.p = text, .end = text + n, .line = 1, .err = err};
	struct key want = {0}, header = {0};
	for (const char *s = table; want.n < MAX_SEGS;) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		snprintf(want.seg[want.n++], SEG_LEN, "%.*s", (int)(l < SEG_LEN ? l : SEG_LEN - 1), s);
		if (!dot)
			break;
		s = dot + 1;
	}
	if (n == 0)
		return 0;                      /* an empty file has no table */
	if (memchr(text, '\0', n))
		return fail(&c, "NUL byte in the file (not a TOML file)");
	if (n >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		c.p += 3;                      /* a UTF-8 byte order mark */
	bool in_table = false;
	while (c.p < c.end && !c.failed) {
		blanks(&c);
		comment(&c);
		if (c.p == c.end || newline(&c))
			continue;
		unsigned line = c.line;
		if (*c.p == '[') {
			bool array = at(&c, "[[");
			c.p += array ? 2 : 1;
			if (key(&c, &header) < 0)
				break;
			if (!at(&c, array ? "]]" : "]")) {
				fail(&c, "expected ']' after a table name");
				break;
			}
			c.p += array ? 2 : 1;
			bool same = header.n == want.n && starts_with(&header, NULL, &want);
			if (same && (array || out->found)) {
				fail(&c, array ? "the table is an array of tables" : "the table is given twice");
				break;
			}
			if (!same && starts_with(&header, NULL, &want)) {
				fail(&c, "tables inside this one are not read");
				break;
			}
			in_table = same;
			if (same) {
				out->found = true;
				out->line = line;
			}
			end_of_line(&c);
			continue;
		}
		struct key k;
		if (key(&c, &k) < 0)
			break;
		if (c.p >= c.end || *c.p != '=') {
			fail(&c, "expected '=' after a key");
			break;
		}
		c.p++;
		blanks(&c);
		if (in_table) {
			if (keep(&c, out, &k, line) < 0)
				break;
		} else {
			/* the table by another spelling ([tool] wheelscan.require = ..., or an inline
			 * table) would be read as nothing: say so instead */
			if (starts_with(&header, &k, &want) || (header.n == 0 && starts_with(&k, NULL, &want))) {
				fail(&c, "write these settings as a table of their own, under its [header]");
				break;
			}
			if (skip_value(&c, 0) < 0)
				break;
		}
		end_of_line(&c);
	}
	if (c.failed) {
		ws_toml_table_free(out);
		return -1;
	}
	return 0;
}

void ws_toml_table_free(struct ws_toml_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		entry_free(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof *t);
}
