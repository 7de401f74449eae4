/* sbom.c - --sbom-in: an existing CycloneDX JSON BOM (syft's, trivy's) with wheelscan's
 * properties added to the components that are scanned artifacts. The BOM is read with the
 * bounded strict reader (jsonread.c) and copied byte for byte; only properties are
 * inserted, so everything the other tool wrote stays as it wrote it. A component is an
 * artifact when one of its SHA-256 hashes is the artifact's, when its purl names the same
 * PyPI package and version, or when one of its file locations is the end of the
 * artifact's path. No I/O here. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wheelscan.h"
#include "ws_jsonread.h"
#include "ws_sbom.h"
#include "ws_util.h"

#define LOCATIONS_MAX 16           /* file locations kept per component */
#define FIELD_MAX 4096
#define COMPONENTS_MAX 1000000

struct comp {
	const char *end;               /* the component's closing '}' */
	const char *props_end;         /* its properties array's ']', or NULL */
	bool props_empty;
	char sha256[65];
	char purl[FIELD_MAX];
	char loc[LOCATIONS_MAX][FIELD_MAX];
	unsigned nloc;
};

/* A string an artifact is matched by, and the artifact's index. */
struct key {
	const char *s;
	size_t art;
};

/* The artifacts indexed once per BOM: each component is matched by a few binary searches,
 * not against every artifact (issue 40: 80,000 components x 5,000 artifacts cost 37 s). */
struct index {
	struct key *sha, *purl, *tail; /* each sorted by (s, art) */
	size_t nsha, npurl, ntail;
	char **purls;                  /* the artifacts' purl keys (purl_key) */
	uint64_t *work;                /* string comparisons made, when counted */
};

struct walk {
	struct comp *c;                /* the component being read */
	struct ws_sbom_edit *edits;
	size_t nedits;
	uint32_t cap;
	const struct ws_sbom_artifact *arts;
	size_t narts;
	size_t ncomponents;
	struct index ix;
};

static bool components(struct ws_jp *j, struct walk *w);

static void add_location(struct comp *c, const char *s)
{
	if (c->nloc < LOCATIONS_MAX && s[0])
		memcpy(c->loc[c->nloc++], s, strlen(s) + 1);
}

struct hash_ctx {
	char alg[32], content[80];
};

static bool hash_member(struct ws_jp *j, const char *key, void *vctx)
{
	struct hash_ctx *h = vctx;
	if (!strcmp(key, "alg"))
		return ws_jp_string(j, h->alg, sizeof h->alg);
	if (!strcmp(key, "content"))
		return ws_jp_string(j, h->content, sizeof h->content);
	return ws_jp_skip_value(j);
}

static bool hash_item(struct ws_jp *j, void *vc)
{
	struct comp *c = vc;
	struct hash_ctx h;
	memset(&h, 0, sizeof h);
	if (!ws_jp_object(j, hash_member, &h))
		return false;
	if (!strcmp(h.alg, "SHA-256") && strlen(h.content) == 64)
		for (int i = 0; i < 65; i++)
			c->sha256[i] = (char)tolower((unsigned char)h.content[i]);
	return true;
}

struct prop_ctx {
	char name[256], value[FIELD_MAX];
};

static bool prop_member(struct ws_jp *j, const char *key, void *vctx)
{
	struct prop_ctx *p = vctx;
	if (!strcmp(key, "name"))
		return ws_jp_string(j, p->name, sizeof p->name);
	if (!strcmp(key, "value"))
		return ws_jp_string(j, p->value, sizeof p->value);
	return ws_jp_skip_value(j);
}

static bool prop_item(struct ws_jp *j, void *vw)
{
	struct walk *w = vw;
	struct prop_ctx *p = ws_calloc(1, sizeof *p);
	if (!p)
		return ws_jp_fail(j, "out of memory");
	bool ok = ws_jp_object(j, prop_member, p);
	/* syft: "syft:location:0:path"; trivy: "aquasecurity:trivy:FilePath" */
	size_t nl = strlen(p->name);
	if (ok && ((!strncmp(p->name, "syft:location:", 14) && nl > 5 && !strcmp(p->name + nl - 5, ":path")) ||
		   !strcmp(p->name, "aquasecurity:trivy:FilePath")))
		add_location(w->c, p->value);
	w->c->props_empty = false;
	free(p);
	return ok;
}

static bool occurrence_member(struct ws_jp *j, const char *key, void *vc)
{
	if (!strcmp(key, "location")) {
		char *s = ws_calloc(1, FIELD_MAX);
		if (!s)
			return ws_jp_fail(j, "out of memory");
		bool ok = ws_jp_string(j, s, FIELD_MAX);
		if (ok)
			add_location(vc, s);
		free(s);
		return ok;
	}
	return ws_jp_skip_value(j);
}

static bool occurrence_item(struct ws_jp *j, void *vc)
{
	return ws_jp_object(j, occurrence_member, vc);
}

static bool evidence_member(struct ws_jp *j, const char *key, void *vc)
{
	if (!strcmp(key, "occurrences"))
		return ws_jp_array(j, occurrence_item, vc);
	return ws_jp_skip_value(j);
}

static bool component_member(struct ws_jp *j, const char *key, void *vw)
{
	struct walk *w = vw;
	struct comp *c = w->c;
	if (!strcmp(key, "hashes"))
		return ws_jp_array(j, hash_item, c);
	if (!strcmp(key, "purl"))
		return ws_jp_string(j, c->purl, sizeof c->purl);
	if (!strcmp(key, "evidence"))
		return ws_jp_object(j, evidence_member, c);
	if (!strcmp(key, "properties")) {
		c->props_empty = true;
		if (!ws_jp_array(j, prop_item, w))
			return false;
		c->props_end = j->p - 1;       /* ws_jp_array stops just past its ']' */
		return true;
	}
	if (!strcmp(key, "components"))   /* nested components: each is matched on its own */
		return components(j, w);
	return ws_jp_skip_value(j);
}

/* "pkg:pypi/torch@2.5.1?x=y#z" -> "pkg:pypi/torch@2.5.1", percent-decoded in name and
 * version, the name lowercased with '_' and '.' as '-' (PEP 503), so purls compare. */
static void purl_key(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	bool in_name = false;
	out[0] = '\0';
	if (strncmp(in, "pkg:pypi/", 9))
		return;
	for (const char *p = in; *p && *p != '?' && *p != '#' && o + 1 < cap; p++) {
		char c = *p;
		if (c == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			char hex[3] = {p[1], p[2], 0};
			c = (char)strtol(hex, NULL, 16);
			p += 2;
		}
		if (p - in == 9)
			in_name = true;
		if (*p == '@')
			in_name = false;
		if (in_name)
			c = c == '_' || c == '.' ? '-' : (char)tolower((unsigned char)c);
		out[o++] = c;
	}
	out[o] = '\0';
}

static int key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = strcmp(a->s, b->s);
	return c ? c : (a->art > b->art) - (a->art < b->art);
}

/* The lowest artifact index among keys equal to s, or SIZE_MAX. */
static size_t lookup(const struct index *ix, const struct key *k, size_t n, const char *s)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->work)
			++*ix->work;
		if (strcmp(k[mid].s, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ix->work)
		++*ix->work;
	return lo < n && !strcmp(k[lo].s, s) ? k[lo].art : SIZE_MAX;
}

static void index_free(struct index *ix, size_t narts)
{
	if (ix->purls)
		for (size_t i = 0; i < narts; i++)
			free(ix->purls[i]);
	free(ix->purls);
	free(ix->sha);
	free(ix->purl);
	free(ix->tail);
	memset(ix, 0, sizeof *ix);
}

/* A location matches an artifact whose path ends with it at a '/' (or is it): the keys
 * are every such ending of every path, the whole path and each part after a '/'. */
static int index_build(struct index *ix, const struct ws_sbom_artifact *arts, size_t narts)
{
	size_t ntails = 0;
	char key[FIELD_MAX];
	for (size_t i = 0; i < narts; i++)
		for (const char *p = arts[i].path; *p; p++)
			ntails += *p == '/' && p[1];
	if (ntails > SIZE_MAX - narts)
		return -1;
	ntails += narts;
	ix->sha = ws_calloc(narts ? narts : 1, sizeof *ix->sha);
	ix->purl = ws_calloc(narts ? narts : 1, sizeof *ix->purl);
	ix->purls = ws_calloc(narts ? narts : 1, sizeof *ix->purls);
	ix->tail = ws_calloc(ntails ? ntails : 1, sizeof *ix->tail);
	if (!ix->sha || !ix->purl || !ix->purls || !ix->tail)
		return -1;
	for (size_t i = 0; i < narts; i++) {
		const struct ws_sbom_artifact *a = &arts[i];
		if (a->sha256 && a->sha256[0])
			ix->sha[ix->nsha++] = (struct key){a->sha256, i};
		if (a->purl) {
			purl_key(a->purl, key, sizeof key);
			if (key[0]) {
				if (!(ix->purls[i] = ws_strdup(key)))
					return -1;
				ix->purl[ix->npurl++] = (struct key){ix->purls[i], i};
			}
		}
		if (a->path[0])
			ix->tail[ix->ntail++] = (struct key){a->path, i};
		for (const char *p = a->path; *p; p++)
			if (*p == '/' && p[1])
				ix->tail[ix->ntail++] = (struct key){p + 1, i};
	}
	qsort(ix->sha, ix->nsha, sizeof *ix->sha, key_cmp);
	qsort(ix->purl, ix->npurl, sizeof *ix->purl, key_cmp);
	qsort(ix->tail, ix->ntail, sizeof *ix->tail, key_cmp);
	return 0;
}

/* The first artifact (in the order given) the component names by hash, purl or location. */
static const struct ws_sbom_artifact *match(const struct walk *w, const struct comp *c)
{
	char key[FIELD_MAX];
	const struct index *ix = &w->ix;
	size_t best = SIZE_MAX, k;
	purl_key(c->purl, key, sizeof key);
	if (c->sha256[0] && (k = lookup(ix, ix->sha, ix->nsha, c->sha256)) < best)
		best = k;
	if (key[0] && (k = lookup(ix, ix->purl, ix->npurl, key)) < best)
		best = k;
	for (unsigned i = 0; i < c->nloc; i++) {
		const char *loc = c->loc[i];
		while (*loc == '/' || (loc[0] == '.' && loc[1] == '/'))   /* its leading '/' and "./" dropped */
			loc += *loc == '/' ? 1 : 2;
		if (*loc && (k = lookup(ix, ix->tail, ix->ntail, loc)) < best)
			best = k;
	}
	return best < w->narts ? &w->arts[best] : NULL;
}

static bool component_item(struct ws_jp *j, void *vw)
{
	struct walk *w = vw;
	if (++w->ncomponents > COMPONENTS_MAX)
		return ws_jp_fail(j, "too many components");
	struct comp *outer = w->c, *c = ws_calloc(1, sizeof *c);
	if (!c)
		return ws_jp_fail(j, "out of memory");
	w->c = c;
	ws_jp_skip_ws(j);
	bool ok = ws_jp_object(j, component_member, w);
	w->c = outer;
	if (ok) {
		c->end = j->p - 1;
		const struct ws_sbom_artifact *a = match(w, c);
		if (a && w->nedits < COMPONENTS_MAX &&
		    ws_grow((void **)&w->edits, &w->cap, (uint32_t)w->nedits + 1, sizeof *w->edits)) {
			struct ws_sbom_edit *e = &w->edits[w->nedits++];
			e->at = (size_t)((c->props_end ? c->props_end : c->end) - j->start);
			e->art = a;
			e->kind = c->props_end ? (c->props_empty ? WS_SBOM_INTO_EMPTY : WS_SBOM_APPEND) : WS_SBOM_NEW_KEY;
		} else if (a) {
			ok = ws_jp_fail(j, "out of memory");
		}
	}
	free(c);
	return ok;
}

static bool components(struct ws_jp *j, struct walk *w)
{
	return ws_jp_array(j, component_item, w);
}

static bool top_member(struct ws_jp *j, const char *key, void *vw)
{
	struct walk *w = vw;
	if (!strcmp(key, "bomFormat")) {
		char f[32];
		if (!ws_jp_string(j, f, sizeof f))
			return false;
		return strcmp(f, "CycloneDX") ? ws_jp_fail(j, "bomFormat is not CycloneDX") : true;
	}
	if (!strcmp(key, "components"))
		return components(j, w);
	return ws_jp_skip_value(j);
}

static int edit_cmp(const void *x, const void *y)
{
	const struct ws_sbom_edit *a = x, *b = y;
	return a->at < b->at ? -1 : a->at > b->at;
}

int ws_sbom_plan_counted(const char *bom, size_t n, const struct ws_sbom_artifact *arts, size_t narts,
			 struct ws_sbom_edit **edits, size_t *nedits, uint64_t *work, struct ws_err *err)
{
	struct ws_jp *j = ws_calloc(1, sizeof *j);
	struct walk w = {.arts = arts, .narts = narts, .ix = {.work = work}};
	*edits = NULL;
	*nedits = 0;
	if (!j || index_build(&w.ix, arts, narts) < 0) {
		free(j);
		index_free(&w.ix, narts);
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	}
	j->start = j->p = bom;
	j->end = bom + n;
	ws_jp_skip_ws(j);
	bool ok = ws_jp_object(j, top_member, &w);
	if (ok) {
		ws_jp_skip_ws(j);
		if (j->p != j->end)
			ok = ws_jp_fail(j, "bytes after the document");
	}
	index_free(&w.ix, narts);
	if (!ok) {
		ws_err_set(err, WS_E_FORMAT, "%s", j->err[0] ? j->err : "not a JSON document");
		free(j);
		free(w.edits);
		return -1;
	}
	free(j);
	/* nested components end before their parent: apply the edits in file order */
	if (w.nedits)
		qsort(w.edits, w.nedits, sizeof *w.edits, edit_cmp);
	*edits = w.edits;
	*nedits = w.nedits;
	return 0;
}

int ws_sbom_plan(const char *bom, size_t n, const struct ws_sbom_artifact *arts, size_t narts,
		 struct ws_sbom_edit **edits, size_t *nedits, struct ws_err *err)
{
	return ws_sbom_plan_counted(bom, n, arts, narts, edits, nedits, NULL, err);
}
