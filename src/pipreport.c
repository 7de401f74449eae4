/* pipreport.c - pip's installation report (format 1) read with the core's bounded JSON
 * reader: for each item to install, its name and version (metadata), where pip would
 * get it (download_info: an archive with its hash, a directory, a VCS checkout). The rest
 * of the report (the full metadata, the environment markers) is stepped over. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ws_jsonread.h"
#include "ws_pipreport.h"
#include "ws_readfile.h"
#include "ws_util.h"

#define NAME_MAX_BYTES 200             /* PyPI's longest names are under 100 */
#define VERSION_MAX_BYTES 128

struct parse {
	struct ws_pip_report *r;
	struct ws_pip_item *it;            /* the item being read */
	uint32_t cap;
	bool have_version;
	char s[WS_PIP_URL_MAX];            /* scratch for one string value */
};

/* The next value is a string (not null, a number...). */
static bool is_string(struct ws_jp *j)
{
	ws_jp_skip_ws(j);
	return j->p < j->end && *j->p == '"';
}

static bool take_string(struct ws_jp *j, struct parse *P, size_t max, char **out, const char *what)
{
	if (!is_string(j))
		return ws_jp_fail(j, what);
	if (!ws_jp_string(j, P->s, max + 1))
		return false;
	if (*out)
		return ws_jp_fail(j, "a value given twice");
	if (!(*out = ws_strdup(P->s)))
		return ws_jp_fail(j, "out of memory");
	return true;
}

/* A distribution name as PEP 508 allows: letters, digits and . _ - inside. */
static bool plausible_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return true;
}

/* A version as PEP 440 spells it, loosely: the characters it may hold. */
static bool plausible_version(const char *s)
{
	if (!*s || !isalnum((unsigned char)s[0]))
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".+!_-", *p))
			return false;
	return true;
}

static bool meta_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "name"))
		return take_string(j, P, NAME_MAX_BYTES, &P->it->name, "metadata.name is not a string");
	if (!strcmp(key, "version"))
		return take_string(j, P, VERSION_MAX_BYTES, &P->it->version, "metadata.version is not a string");
	return ws_jp_skip_value(j);
}

/* "sha256=<hex>" (archive_info.hash) or {"sha256": "<hex>"} (archive_info.hashes). */
static bool set_sha256(struct ws_jp *j, struct parse *P, const char *hex)
{
	if (strlen(hex) != 64)
		return ws_jp_fail(j, "a sha256 that is not 64 hex digits");
	char low[65];
	for (size_t i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)hex[i]))
			return ws_jp_fail(j, "a sha256 that is not 64 hex digits");
		low[i] = (char)tolower((unsigned char)hex[i]);
	}
	low[64] = 0;
	if (P->it->sha256[0] && strcmp(P->it->sha256, low))
		return ws_jp_fail(j, "two different sha256 for one file");
	memcpy(P->it->sha256, low, sizeof low);
	return true;
}

static bool hashes_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (strcmp(key, "sha256"))
		return ws_jp_skip_value(j);
	if (!is_string(j))
		return ws_jp_fail(j, "hashes.sha256 is not a string");
	return ws_jp_string(j, P->s, 80) && set_sha256(j, P, P->s);
}

static bool archive_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "hashes"))
		return ws_jp_object(j, hashes_member, P);
	if (!strcmp(key, "hash")) {
		if (!is_string(j))
			return ws_jp_fail(j, "archive_info.hash is not a string");
		if (!ws_jp_string(j, P->s, 200))
			return false;
		return strncmp(P->s, "sha256=", 7) ? true : set_sha256(j, P, P->s + 7);
	}
	return ws_jp_skip_value(j);
}

static bool dir_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "editable")) {
		ws_jp_skip_ws(j);
		if (j->end - j->p >= 4 && !memcmp(j->p, "true", 4)) {
			P->it->editable = true;
			j->p += 4;
			return true;
		}
	}
	return ws_jp_skip_value(j);
}

static bool vcs_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "vcs"))
		return take_string(j, P, 16, &P->it->vcs, "vcs_info.vcs is not a string");
	if (!strcmp(key, "commit_id"))
		return take_string(j, P, 128, &P->it->commit, "vcs_info.commit_id is not a string");
	return ws_jp_skip_value(j);
}

static bool set_source(struct ws_jp *j, struct parse *P, enum ws_pip_source s)
{
	if (P->it->source)
		return ws_jp_fail(j, "download_info with two kinds of source");
	P->it->source = s;
	return true;
}

static bool download_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "url"))
		return take_string(j, P, WS_PIP_URL_MAX - 1, &P->it->url, "download_info.url is not a string");
	if (!strcmp(key, "archive_info"))
		return set_source(j, P, WS_PIP_ARCHIVE) && ws_jp_object(j, archive_member, P);
	if (!strcmp(key, "dir_info"))
		return set_source(j, P, WS_PIP_DIR) && ws_jp_object(j, dir_member, P);
	if (!strcmp(key, "vcs_info"))
		return set_source(j, P, WS_PIP_VCS) && ws_jp_object(j, vcs_member, P);
	return ws_jp_skip_value(j);
}

static bool item_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "metadata"))
		return ws_jp_object(j, meta_member, P);
	if (!strcmp(key, "download_info"))
		return ws_jp_object(j, download_member, P);
	if (!strcmp(key, "requested")) {
		ws_jp_skip_ws(j);
		if (j->end - j->p >= 4 && !memcmp(j->p, "true", 4))
			P->it->requested = true;
	}
	return ws_jp_skip_value(j);
}

static bool install_item(struct ws_jp *j, void *ctx)
{
	struct parse *P = ctx;
	struct ws_pip_report *r = P->r;
	if (r->n >= WS_PIP_REPORT_MAX_ITEMS)
		return ws_jp_fail(j, "more than 10000 distributions to install");
	if (!ws_grow((void **)&r->v, &P->cap, (uint32_t)r->n + 1, sizeof *r->v))
		return ws_jp_fail(j, "out of memory");
	P->it = &r->v[r->n++];
	memset(P->it, 0, sizeof *P->it);
	if (!ws_jp_object(j, item_member, P))
		return false;
	struct ws_pip_item *it = P->it;
	if (!it->name || !plausible_name(it->name))
		return ws_jp_fail(j, "an item without a valid metadata.name");
	if (!it->version || !plausible_version(it->version))
		return ws_jp_fail(j, "an item without a valid metadata.version");
	if (!it->url || !it->source)
		return ws_jp_fail(j, "an item without download_info");
	/* the URL goes to pip as one argument, "NAME @ URL": a blank in it would start a marker */
	for (const unsigned char *u = (const unsigned char *)it->url; *u; u++)
		if (*u <= 0x20 || *u == 0x7f)
			return ws_jp_fail(j, "a URL with a blank or a control character");
	if (it->vcs && strspn(it->vcs, "abcdefghijklmnopqrstuvwxyz") != strlen(it->vcs))
		return ws_jp_fail(j, "a VCS name that is not a word");
	if (it->commit && strspn(it->commit, "0123456789abcdefABCDEF") != strlen(it->commit))
		return ws_jp_fail(j, "a commit_id that is not hex");
	if (it->source == WS_PIP_ARCHIVE) {
		char file[512];
		if (!ws_pip_url_file(it->url, file, sizeof file))
			return ws_jp_fail(j, "an archive URL that does not end in a file name");
		it->wheel = ws_ends_with(file, ".whl");
	}
	return true;
}

static bool top_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct parse *P = ctx;
	if (!strcmp(key, "version")) {
		if (!is_string(j) || !ws_jp_string(j, P->s, 16))
			return ws_jp_fail(j, "version is not a string");
		if (strcmp(P->s, "1"))
			return ws_jp_fail(j, "a report format other than version 1");
		P->have_version = true;
		return true;
	}
	if (!strcmp(key, "pip_version"))
		return take_string(j, P, 64, &P->r->pip_version, "pip_version is not a string");
	if (!strcmp(key, "install"))
		return ws_jp_array(j, install_item, P);
	return ws_jp_skip_value(j);
}

int ws_pip_report_parse(struct ws_pip_report *r, const char *p, size_t n, struct ws_err *err)
{
	memset(r, 0, sizeof *r);
	struct parse *P = ws_calloc(1, sizeof *P);
	if (!P)
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	P->r = r;
	struct ws_jp j = {.start = p, .p = p, .end = p + n};
	bool ok = ws_jp_object(&j, top_member, P);
	if (ok) {
		ws_jp_skip_ws(&j);
		if (j.p != j.end)
			ok = ws_jp_fail(&j, "trailing bytes");
		else if (!P->have_version)
			ok = ws_jp_fail(&j, "no report format version");
	}
	free(P);
	if (!ok) {
		ws_err_set(err, WS_E_FORMAT, "pip report: %s", j.err[0] ? j.err : "malformed");
		ws_pip_report_free(r);
		return -1;
	}
	return 0;
}

int ws_pip_report_read(struct ws_pip_report *r, const char *path, struct ws_err *err)
{
	size_t n;
	memset(r, 0, sizeof *r);
	char *p = ws_read_small(path, WS_PIP_REPORT_MAX_BYTES, &n);
	if (!p)
		return ws_err_set(err, errno == ENOMEM ? WS_E_MEMORY : WS_E_IO, "%s", errno == EFBIG ?
				  "not a regular file of at most 64 MiB" : strerror(errno));
	int rc = ws_pip_report_parse(r, p, n, err);
	free(p);
	return rc;
}

void ws_pip_report_free(struct ws_pip_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].version);
		free(r->v[i].url);
		free(r->v[i].vcs);
		free(r->v[i].commit);
	}
	free(r->v);
	free(r->pip_version);
	memset(r, 0, sizeof *r);
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

bool ws_pip_url_file(const char *url, char *buf, size_t len)
{
	size_t end = strcspn(url, "?#");
	const char *start = url;
	for (size_t i = 0; i < end; i++)
		if (url[i] == '/')
			start = url + i + 1;
	size_t o = 0;
	for (const char *p = start; p < url + end; p++) {
		int c = (unsigned char)*p;
		if (c == '%') {
			int hi = p + 2 < url + end ? hexval((unsigned char)p[1]) : -1;
			int lo = hi >= 0 ? hexval((unsigned char)p[2]) : -1;
			if (lo < 0)
				return false;
			c = hi * 16 + lo;
			p += 2;
		}
		if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || o + 1 >= len)
			return false;
		buf[o++] = (char)c;
	}
	buf[o] = 0;
	return o && strcmp(buf, ".") && strcmp(buf, "..");
}

bool ws_pip_same_name(const char *a, const char *b)
{
	return ws_pypi_name_eq(a, strlen(a), b, strlen(b));
}

/* One version cut into what PEP 440 orders by. */
struct pver {
	unsigned long epoch, rel[8];
	int nrel;
	int pre_kind;                      /* -2 dev only, -1 a/b/rc (pre_kind_rank), 0 final */
	int pre_rank;                      /* a 0, b 1, rc 2 */
	unsigned long pre_n, post, dev;
	bool has_post, has_dev;
	const char *local;                 /* after '+', or NULL */
};

static unsigned long num(const char **p)
{
	unsigned long v = 0;
	while (isdigit((unsigned char)**p)) {
		if (v < 100000000UL)
			v = v * 10 + (unsigned long)(**p - '0');
		(*p)++;
	}
	return v;
}

static void pver_parse(const char *s, struct pver *v)
{
	memset(v, 0, sizeof *v);
	const char *p = s, *bang = strchr(s, '!');
	if (bang) {
		v->epoch = num(&p);
		p = bang + 1;
	}
	if (*p == 'v' || *p == 'V')
		p++;
	while (isdigit((unsigned char)*p)) {
		unsigned long x = num(&p);
		if (v->nrel < 8)
			v->rel[v->nrel++] = x;
		if (*p == '.' && isdigit((unsigned char)p[1]))
			p++;
		else
			break;
	}
	while (*p && *p != '+') {
		while (*p == '.' || *p == '-' || *p == '_')
			p++;
		if (!strncasecmp(p, "rc", 2) || !strncasecmp(p, "c", 1) || !strncasecmp(p, "a", 1) || !strncasecmp(p, "b", 1) ||
		    !strncasecmp(p, "alpha", 5) || !strncasecmp(p, "beta", 4) || !strncasecmp(p, "pre", 3) ||
		    !strncasecmp(p, "preview", 7)) {
			v->pre_kind = -1;
			v->pre_rank = tolower((unsigned char)*p) == 'a' ? 0 : tolower((unsigned char)*p) == 'b' ? 1 : 2;
			while (isalpha((unsigned char)*p))
				p++;
			while (*p == '.' || *p == '-' || *p == '_')
				p++;
			v->pre_n = num(&p);
		} else if (!strncasecmp(p, "post", 4) || !strncasecmp(p, "rev", 3) || !strncasecmp(p, "r", 1)) {
			while (isalpha((unsigned char)*p))
				p++;
			while (*p == '.' || *p == '-' || *p == '_')
				p++;
			v->has_post = true;
			v->post = num(&p);
		} else if (!strncasecmp(p, "dev", 3)) {
			p += 3;
			while (*p == '.' || *p == '-' || *p == '_')
				p++;
			v->has_dev = true;
			v->dev = num(&p);
		} else if (isdigit((unsigned char)*p)) {
			v->has_post = true;            /* "1.0-1" is a post release */
			v->post = num(&p);
		} else if (*p && *p != '+') {
			p++;                           /* not PEP 440: step over */
		}
	}
	if (v->has_dev && !v->pre_kind && !v->has_post)
		v->pre_kind = -2;                  /* 1.0.dev1 sorts before 1.0a1 */
	v->local = *p == '+' ? p + 1 : NULL;
}

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* Local labels: segments split on . - _, numbers above words, more segments above fewer. */
static int local_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	while (*a || *b) {
		if (!*a || !*b)
			return *a ? 1 : -1;
		size_t na = strcspn(a, ".-_"), nb = strcspn(b, ".-_");
		bool da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);
		if (da != db)
			return da ? 1 : -1;
		if (da) {
			const char *pa = a, *pb = b;
			unsigned long x = num(&pa), y = num(&pb);
			CMP(x, y);
		} else {
			size_t m = na < nb ? na : nb;
			int c = strncasecmp(a, b, m);
			if (c)
				return c < 0 ? -1 : 1;
			CMP(na, nb);
		}
		a += na + (a[na] != 0);
		b += nb + (b[nb] != 0);
	}
	return 0;
}

int ws_pip_version_cmp(const char *a, const char *b)
{
	struct pver x, y;
	pver_parse(a, &x);
	pver_parse(b, &y);
	CMP(x.epoch, y.epoch);
	int n = x.nrel > y.nrel ? x.nrel : y.nrel;
	for (int i = 0; i < n; i++)
		CMP(i < x.nrel ? x.rel[i] : 0, i < y.nrel ? y.rel[i] : 0);
	CMP(x.pre_kind, y.pre_kind);
	if (x.pre_kind == -1) {
		CMP(x.pre_rank, y.pre_rank);
		CMP(x.pre_n, y.pre_n);
	}
	CMP(x.has_post, y.has_post);
	CMP(x.post, y.post);
	CMP(!x.has_dev, !y.has_dev);
	CMP(x.dev, y.dev);
	return local_cmp(x.local, y.local);
}
