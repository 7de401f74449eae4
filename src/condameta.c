/* condameta.c - the few facts wheelscan needs from a conda-meta/<pkg>.json record of a conda
 * environment: the package's name, version and build string, and the files it installed
 * with their sha256 and size (paths_data), else the plain "files" list.
 *
 * A small strict JSON reader over a bounded buffer: no tree is built, values outside the
 * wanted keys are stepped over; depth, string length and entry count are bounded; any
 * syntax error stops the parse with a message. The files are strangers' bytes like any
 * other input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_env.h"
#include "ws_util.h"

#define DEPTH_MAX 64
#define STRING_MAX 4096
#define FILES_MAX 1000000

struct jp {
	const char *start, *p, *end;
	char err[128];
	int depth;
};

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool fail(struct jp *j, const char *what)
{
	if (!j->err[0])
		snprintf(j->err, sizeof j->err, "%s at byte %zu", what, (size_t)(j->p - j->start));
	return false;
}

static bool expect(struct jp *j, char c)
{
	skip_ws(j);
	if (j->p >= j->end || *j->p != c) {
		char m[32];
		snprintf(m, sizeof m, "expected '%c'", c);
		return fail(j, m);
	}
	j->p++;
	return true;
}

/* A string into out (at most cap-1 bytes kept; longer is an error); \u escapes outside
 * ASCII become '?'. out may be NULL to skip. */
static bool string(struct jp *j, char *out, size_t cap)
{
	size_t n = 0;
	skip_ws(j);
	if (j->p >= j->end || *j->p != '"')
		return fail(j, "expected a string");
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;
		if ((unsigned char)c < 0x20)
			return fail(j, "control character in a string");
		if (c == '\\') {
			if (j->p >= j->end)
				return fail(j, "truncated escape");
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
						return fail(j, "truncated \\u escape");
					char h = *j->p++;
					v = v * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 :
								 h >= 'A' && h <= 'F' ? h - 'A' + 10 : 99);
					if (v > 0xffff)
						return fail(j, "bad \\u escape");
				}
				c = v >= 0x20 && v < 0x7f ? (char)v : '?';
				break;
			}
			default:
				return fail(j, "bad escape");
			}
		}
		if (out) {
			if (n + 1 >= cap)
				return fail(j, "string too long");
			out[n++] = c;
		}
	}
	if (j->p >= j->end)
		return fail(j, "unterminated string");
	j->p++;
	if (out)
		out[n] = 0;
	return true;
}

static bool number(struct jp *j, int64_t *out)
{
	int64_t v = 0;
	bool neg = false, digits = false;
	skip_ws(j);
	if (j->p < j->end && *j->p == '-') {
		neg = true;
		j->p++;
	}
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		if (v > (INT64_MAX - 9) / 10)
			return fail(j, "number too large");
		v = v * 10 + (*j->p++ - '0');
		digits = true;
	}
	/* fractions and exponents are read over, never used */
	while (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E' || *j->p == '+' || *j->p == '-' ||
				 (*j->p >= '0' && *j->p <= '9')))
		j->p++;
	if (!digits)
		return fail(j, "bad number");
	if (out)
		*out = neg ? -v : v;
	return true;
}

static bool skip_value(struct jp *j);

static bool skip_container(struct jp *j, char open, char close)
{
	if (++j->depth > DEPTH_MAX)
		return fail(j, "nested too deep");
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		if (open == '{' && (!string(j, NULL, 0) || !expect(j, ':')))
			return false;
		if (!skip_value(j))
			return false;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (!expect(j, close))
			return false;
		j->depth--;
		return true;
	}
}

static bool skip_value(struct jp *j)
{
	skip_ws(j);
	if (j->p >= j->end)
		return fail(j, "truncated");
	switch (*j->p) {
	case '"': return string(j, NULL, 0);
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
		return fail(j, "bad literal");
	}
	default:
		return number(j, NULL);
	}
}

/* Walks the members of an object, calling member() for each key; member consumes the value. */
static bool object(struct jp *j, bool (*member)(struct jp *, const char *, void *), void *ctx)
{
	char key[64];
	if (!expect(j, '{'))
		return false;
	if (++j->depth > DEPTH_MAX)
		return fail(j, "nested too deep");
	skip_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		skip_ws(j);
		if (j->p < j->end && *j->p == '"') {
			/* keys longer than any wanted one are read over */
			const char *save = j->p;
			if (!string(j, key, sizeof key)) {
				j->p = save;
				j->err[0] = 0;
				key[0] = 0;
				if (!string(j, NULL, 0))
					return false;
			}
		} else {
			return fail(j, "expected a key");
		}
		if (!expect(j, ':') || !member(j, key, ctx))
			return false;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (!expect(j, '}'))
			return false;
		j->depth--;
		return true;
	}
}

/* Walks the items of an array, calling item() for each; item consumes the value. */
static bool array(struct jp *j, bool (*item)(struct jp *, void *), void *ctx)
{
	if (!expect(j, '['))
		return false;
	skip_ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return true;
	}
	for (;;) {
		if (!item(j, ctx))
			return false;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		return expect(j, ']');
	}
}

/* ---- the record ------------------------------------------------------------------- */

static bool add_file(struct ws_conda_pkg *pkg, const char *path)
{
	if (pkg->nfiles >= FILES_MAX)
		return false;
	if (!ws_grow((void **)&pkg->files, &pkg->files_cap, (uint32_t)pkg->nfiles + 1, sizeof *pkg->files))
		return false;
	struct ws_conda_file *f = &pkg->files[pkg->nfiles];
	memset(f, 0, sizeof *f);
	f->size = -1;
	if (!(f->path = ws_strdup(path)))
		return false;
	pkg->nfiles++;
	return true;
}

struct path_ctx {
	struct ws_conda_pkg *pkg;
	char path[STRING_MAX], sha[80], sha_in_prefix[80];
	int64_t size;
	bool placeholder;
};

static bool path_member(struct jp *j, const char *key, void *vctx)
{
	struct path_ctx *c = vctx;
	if (!strcmp(key, "_path"))
		return string(j, c->path, sizeof c->path);
	if (!strcmp(key, "sha256"))
		return string(j, c->sha, sizeof c->sha);
	if (!strcmp(key, "sha256_in_prefix"))
		return string(j, c->sha_in_prefix, sizeof c->sha_in_prefix);
	if (!strcmp(key, "size_in_bytes"))
		return number(j, &c->size);
	if (!strcmp(key, "prefix_placeholder")) {
		c->placeholder = true;
		return skip_value(j);
	}
	return skip_value(j);
}

/* One object of paths_data.paths. */
static bool path_item(struct jp *j, void *vpkg)
{
	struct ws_conda_pkg *pkg = vpkg;
	struct path_ctx *c = ws_calloc(1, sizeof *c);
	if (!c)
		return fail(j, "out of memory");
	c->pkg = pkg;
	c->size = -1;
	bool ok = object(j, path_member, c);
	if (ok && c->path[0]) {
		if (!add_file(pkg, c->path)) {
			free(c);
			return fail(j, "too many files");
		}
		struct ws_conda_file *f = &pkg->files[pkg->nfiles - 1];
		/* conda rewrites the install prefix inside some files: their sha256 is of the
		 * package's copy, sha256_in_prefix (newer conda) of the installed one */
		const char *sha = c->sha_in_prefix[0] ? c->sha_in_prefix : c->placeholder ? "" : c->sha;
		if (strlen(sha) == 64)
			memcpy(f->sha256, sha, 65);
		f->size = c->placeholder && !c->sha_in_prefix[0] ? -1 : c->size;
	}
	free(c);
	return ok;
}

static bool paths_data_member(struct jp *j, const char *key, void *ctx)
{
	struct ws_conda_pkg *pkg = ctx;
	if (!strcmp(key, "paths")) {
		pkg->have_paths_data = true;
		return array(j, path_item, pkg);
	}
	return skip_value(j);
}

/* One string of the plain "files" list. */
static bool file_item(struct jp *j, void *vpkg)
{
	char path[STRING_MAX];
	if (!string(j, path, sizeof path))
		return false;
	return add_file(vpkg, path) || fail(j, "too many files");
}

static bool top_member(struct jp *j, const char *key, void *ctx)
{
	struct ws_conda_pkg *pkg = ctx;
	char buf[256];
	if (!strcmp(key, "name") || !strcmp(key, "version") || !strcmp(key, "build")) {
		if (!string(j, buf, sizeof buf))
			return false;
		char **slot = key[0] == 'n' ? &pkg->name : key[0] == 'v' ? &pkg->version : &pkg->build;
		free(*slot);
		*slot = ws_strdup(buf);
		return true;
	}
	if (!strcmp(key, "paths_data")) {
		/* the files with hashes win over the plain list */
		for (size_t i = 0; i < pkg->nfiles; i++)
			free(pkg->files[i].path);
		pkg->nfiles = 0;
		return object(j, paths_data_member, pkg);
	}
	if (!strcmp(key, "paths") && !pkg->have_paths_data) {
		/* a package's info/paths.json: the same objects at the top level */
		pkg->have_paths_data = true;
		return array(j, path_item, pkg);
	}
	if (!strcmp(key, "files") && !pkg->have_paths_data)
		return array(j, file_item, pkg);
	return skip_value(j);
}

int ws_conda_parse(struct ws_conda_pkg *pkg, const char *p, size_t n, char *err, size_t errlen)
{
	struct jp j = {.start = p, .p = p, .end = p + n};
	memset(pkg, 0, sizeof *pkg);
	bool ok = object(&j, top_member, pkg);
	if (ok) {
		skip_ws(&j);
		if (j.p != j.end)
			ok = fail(&j, "trailing bytes");
	}
	if (!ok) {
		snprintf(err, errlen, "conda-meta record: %s", j.err[0] ? j.err : "malformed");
		ws_conda_free(pkg);
		return -1;
	}
	return 0;
}

void ws_conda_free(struct ws_conda_pkg *pkg)
{
	for (size_t i = 0; i < pkg->nfiles; i++)
		free(pkg->files[i].path);
	free(pkg->files);
	free(pkg->name);
	free(pkg->version);
	free(pkg->build);
	memset(pkg, 0, sizeof *pkg);
}
