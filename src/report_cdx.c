/* report_cdx.c - --format cyclonedx: a CycloneDX 1.6 JSON BOM with one component per
 * artifact (its purl, SHA-256 and path) whose properties carry the CUDA answer:
 * cuda:sass, cuda:ptx, cuda:verdict:<target> and cuda:advice. Streamed like the JSON
 * report; no serial number or timestamp, so the same inputs give the same bytes. With
 * --sbom-in the components go into another tool's BOM instead (src/core/sbom.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_json.h"
#include "ws_quote.h"
#include "ws_report.h"
#include "ws_sbom.h"
#include "ws_readfile.h"

#define ARCHS_MAX 256          /* distinct architecture names listed per artifact */
#define WS_SBOM_MAX (256 << 20)   /* the largest --sbom-in BOM read */

void ws_cdx_begin(struct ws_report *r)
{
	if (r->cfg->sbom_in)
		return;                         /* the other tool's BOM is written at the end */
	fputs("{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"version\":1,"
	      "\"metadata\":{\"tools\":{\"components\":[{\"type\":\"application\",\"name\":\"wheelscan\","
	      "\"version\":\"" WS_VERSION "\"}]}},\"components\":[\n", r->out);
}

/* --sbom-in's BOM, read before the sandbox closes the file system (run.c). */
static char *bom_bytes;
static size_t bom_len;

int ws_cdx_load_bom(const char *path)
{
	char *p = ws_read_small(path, WS_SBOM_MAX, &bom_len);
	if (!p) {
		fprintf(stderr, "wheelscan: --sbom-in '%s': cannot read it: %s\n", ws_q_text(path),
			errno == EFBIG ? "not a regular file of at most 256 MiB" : strerror(errno));
		return -1;
	}
	free(bom_bytes);
	bom_bytes = p;
	return 0;
}

/* --sbom-in: the other tool's BOM, byte for byte, with the properties inserted where
 * src/core/sbom.c says; on stderr how many components were annotated. */
static void annotate(struct ws_report *r)
{
	const char *path = r->cfg->sbom_in;
	size_t n = bom_len, nedits = 0;
	struct ws_err err = {0};
	struct ws_sbom_edit *edits = NULL;
	char *bom = bom_bytes;
	bom_bytes = NULL;
	if (!bom) {
		r->sbom_failed = true;             /* ws_cdx_load_bom said why */
		return;
	}
	if (ws_sbom_plan(bom, n, r->bom_in, r->nbom_in, &edits, &nedits, &err) < 0) {
		fprintf(stderr, "wheelscan: --sbom-in '%s': not a CycloneDX JSON BOM: %s\n", ws_q_text(path), ws_q_text(err.msg));
		r->sbom_failed = true;
		free(bom);
		return;
	}
	size_t at = 0;
	for (size_t i = 0; i < nedits; i++) {
		const struct ws_sbom_edit *e = &edits[i];
		fwrite(bom + at, 1, e->at - at, r->out);
		at = e->at;
		if (e->kind == WS_SBOM_NEW_KEY) {
			/* an empty component "{}" takes no comma before its first member */
			size_t k = at;
			while (k > 0 && strchr(" \t\r\n", bom[k - 1]))
				k--;
			fprintf(r->out, "%s\"properties\":[%s]", k > 0 && bom[k - 1] == '{' ? "" : ",", e->art->props);
		} else {
			fprintf(r->out, "%s%s", e->kind == WS_SBOM_APPEND ? "," : "", e->art->props);
		}
		((struct ws_sbom_artifact *)e->art)->matched++;
	}
	fwrite(bom + at, 1, n - at, r->out);
	size_t unmatched = 0;
	for (size_t i = 0; i < r->nbom_in; i++)
		unmatched += r->bom_in[i].matched == 0;
	fprintf(stderr, "wheelscan: --sbom-in '%s': %zu component%s annotated; %zu of %zu artifacts matched no component\n",
		ws_q_text(path), nedits, nedits == 1 ? "" : "s", unmatched, r->nbom_in);
	free(edits);
	free(bom);
}

void ws_cdx_end(struct ws_report *r)
{
	if (r->cfg->sbom_in) {
		annotate(r);
		for (size_t i = 0; i < r->nbom_in; i++) {
			free(r->bom_in[i].path);
			free(r->bom_in[i].sha256);
			free(r->bom_in[i].purl);
			free(r->bom_in[i].props);
		}
		free(r->bom_in);
		r->bom_in = NULL;
		r->nbom_in = 0;
		return;
	}
	fputs("]", r->out);
	if (ws_report_gates(r)) {
		char line[256];                /* the tool's own words: counts, no names */
		ws_gate_line(r, line, sizeof line);
		fprintf(r->out, ",\"properties\":[{\"name\":\"wheelscan:gate\",\"value\":\"%s\"}]", line);
	}
	fputs("}\n", r->out);
}

/* A purl segment: the bytes outside the unreserved set percent-encoded (purl spec);
 * for a PyPI name also lowercased, with '_' as '-' (the purl type's rule). */
static void purl_part(struct ws_buf *b, const char *s, bool pypi_name)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if (pypi_name)
			c = c == '_' ? '-' : (unsigned char)tolower(c);
		if (isalnum(c) || c == '.' || c == '-' || c == '_' || c == '~')
			ws_buf_add(b, (const char *)&c, 1);
		else
			ws_buf_printf(b, "%%%02X", c);
	}
}

struct archset {
	char name[ARCHS_MAX][24];
	uint16_t arch[ARCHS_MAX];
	size_t n, dropped;
};

static void archset_add(struct archset *s, const struct ws_entry *e)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], e->name))
			return;
	if (s->n == ARCHS_MAX) {
		s->dropped++;
		return;
	}
	memcpy(s->name[s->n], e->name, sizeof e->name);
	s->name[s->n][sizeof s->name[0] - 1] = '\0';
	s->arch[s->n++] = e->arch;
}

static int arch_cmp(const struct archset *s, size_t a, size_t b)
{
	if (s->arch[a] != s->arch[b])
		return s->arch[a] < s->arch[b] ? -1 : 1;
	return strcmp(s->name[a], s->name[b]);
}

/* "sm_50,sm_60,sm_90a": the set in architecture order */
static void archset_property(struct ws_buf *b, const char *prop, struct archset *s)
{
	size_t order[ARCHS_MAX];
	for (size_t i = 0; i < s->n; i++) {
		size_t j = i;
		for (; j > 0 && arch_cmp(s, order[j - 1], i) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	struct ws_buf v = {0};
	for (size_t i = 0; i < s->n; i++)
		ws_buf_printf(&v, "%s%s", i ? "," : "", s->name[order[i]]);
	if (s->dropped)
		ws_buf_printf(&v, "%s... %zu more", s->n ? "," : "", s->dropped);
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "name", prop);
	ws_json_kv_str(b, "value", v.p ? v.p : "");
	ws_json_close(b, '}');
	ws_buf_free(&v);
}

static void property(struct ws_buf *b, const char *name, const char *value)
{
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "name", name);
	ws_json_kv_str(b, "value", value);
	ws_json_close(b, '}');
}

static const char *component_type(enum ws_artifact_type type)
{
	if (type == WS_ART_WHEEL || type == WS_ART_INSTALLED || type == WS_ART_CONDA || type == WS_ART_DEB)
		return "library";
	if (type == WS_ART_IMAGE)
		return "container";
	return "file";
}

/* pkg:pypi/name@version for a wheel or installed distribution, else NULL (malloc'd). */
static char *purl_of(const struct ws_artifact *a)
{
	const struct ws_wheel_info *w = a->wheel;
	const char *pkg = w ? (w->meta_name ? w->meta_name : w->name) : NULL;
	const char *ver = w ? (w->meta_version ? w->meta_version : w->version) : NULL;
	if (!pkg || !*pkg || !ver || !*ver)
		return NULL;
	struct ws_buf p = {0};
	ws_buf_puts(&p, "pkg:pypi/");
	purl_part(&p, pkg, true);
	ws_buf_puts(&p, "@");
	purl_part(&p, ver, false);
	if (p.failed) {
		ws_buf_free(&p);
		return NULL;
	}
	return p.p;
}

static void properties(struct ws_buf *bp, const struct ws_report *r, const struct ws_artifact *a);

/* --sbom-in: the artifact kept, to be matched to the other tool's components at the end. */
static void keep_for_bom(struct ws_report *r, const struct ws_artifact *a)
{
	struct ws_buf props = {0};
	properties(&props, r, a);
	if (props.len)
		props.p[--props.len] = '\0';      /* the last item's comma */
	struct ws_sbom_artifact k = {.path = ws_strdup(a->path), .sha256 = a->sha256[0] ? ws_strdup(a->sha256) : NULL,
				     .purl = purl_of(a), .props = props.p};
	if (props.failed || !k.path || !k.props || r->nbom_in >= UINT32_MAX - 1 ||
	    !ws_grow((void **)&r->bom_in, &r->bom_in_cap, (uint32_t)r->nbom_in + 1, sizeof *r->bom_in)) {
		fprintf(stderr, "wheelscan: out of memory keeping '%s' for --sbom-in\n", ws_q_text(a->path));
		free(k.path);
		free(k.sha256);
		free(k.purl);
		ws_buf_free(&props);
		return;
	}
	r->bom_in[r->nbom_in++] = k;
}

void ws_cdx_artifact(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	if (r->cfg->sbom_in) {
		keep_for_bom(r, a);
		return;
	}
	const struct ws_wheel_info *w = a->wheel;
	const char *pkg = w ? (w->meta_name ? w->meta_name : w->name) : NULL;
	const char *ver = w ? (w->meta_version ? w->meta_version : w->version) : NULL;
	const char *base = strrchr(a->path, '/');
	base = base && base[1] ? base + 1 : a->path;
	struct ws_buf b = {0};
	char ref[32];
	if (r->nartifacts)
		ws_buf_add(&b, ",\n", 2);
	ws_buf_add(&b, "{", 1);
	ws_json_kv_str(&b, "type", component_type(a->type));
	snprintf(ref, sizeof ref, "artifact-%zu", r->nartifacts + 1);
	ws_json_kv_str(&b, "bom-ref", ref);
	ws_json_kv_str(&b, "name", pkg && *pkg ? pkg : *base ? base : "-");
	if (ver && *ver)
		ws_json_kv_str(&b, "version", ver);
	char *purl = purl_of(a);
	if (purl)
		ws_json_kv_str(&b, "purl", purl);
	free(purl);
	if (a->sha256[0]) {
		ws_buf_puts(&b, "\"hashes\":[{\"alg\":\"SHA-256\",");
		ws_json_kv_str(&b, "content", a->sha256);
		ws_json_close(&b, '}');
		b.len--;                            /* the hash's comma: the array closes next */
		ws_buf_puts(&b, "],");
	}
	ws_buf_puts(&b, "\"evidence\":{\"occurrences\":[{");
	ws_json_kv_str(&b, "location", a->path);
	ws_json_close(&b, '}');
	b.len--;
	ws_buf_puts(&b, "]},");
	ws_json_key(&b, "properties");
	ws_buf_add(&b, "[", 1);
	properties(&b, r, a);
	ws_json_close(&b, ']');
	ws_json_close(&b, '}');
	b.len--;                                    /* no comma after the component itself */
	if (b.failed)
		fprintf(stderr, "wheelscan: out of memory writing the BOM component of '%s'\n", ws_q_text(a->path));
	else
		fwrite(b.p, 1, b.len, r->out);
	ws_buf_free(&b);
}

/* The component's properties as array items, each with its comma. */
static void properties(struct ws_buf *bp, const struct ws_report *r, const struct ws_artifact *a)
{
	struct ws_buf b = {0};
	struct archset *sass = ws_calloc(1, sizeof *sass), *ptx = ws_calloc(1, sizeof *ptx);
	if (sass && ptx) {
		for (uint32_t i = 0; i < a->nobjects; i++)
			for (uint32_t k = 0; k < a->objects[i].nfatbins; k++)
				for (uint32_t e = 0; e < a->objects[i].fatbins[k].nentries; e++) {
					const struct ws_entry *en = &a->objects[i].fatbins[k].entries[e];
					if (en->kind == WS_KIND_SASS)
						archset_add(sass, en);
					else if (en->kind == WS_KIND_PTX)
						archset_add(ptx, en);
				}
		archset_property(&b, "cuda:sass", sass);
		archset_property(&b, "cuda:ptx", ptx);
	} else {
		b.failed = true;
	}
	free(sass);
	free(ptx);
	char nm[64], num[24];
	snprintf(num, sizeof num, "%u", ws_artifact_code_objects(a));
	property(&b, "cuda:objects", num);
	bool unread = ws_artifact_unread(a);        /* not judged: no verdict to claim */
	size_t nt = r->coverage && r->ntargets ? r->ntargets - 1 : r->ntargets;   /* coverage: the table's CCs */
	for (size_t t = 0; !unread && a->verdicts && t < nt; t++) {
		snprintf(nm, sizeof nm, "cuda:verdict:%s", r->targets[t].name);
		property(&b, nm, ws_verdict_name(a->verdicts[t]));
	}
	for (size_t t = 0; !unread && !r->coverage && a->judged && t < r->ntargets; t++) {
		const struct ws_judgement *j = &a->judged[t];
		if (!j->advice)
			continue;
		struct ws_buf v = {0};
		ws_buf_printf(&v, "%s: %s", r->targets[t].name, j->advice);
		property(&b, "cuda:advice", v.p);
		ws_buf_free(&v);
	}
	if (unread)
		property(&b, "cuda:verdict", "not-read");
	for (uint32_t i = 0; i < a->nerrors; i++)
		property(&b, "cuda:error", a->errors[i].message);
	if (b.failed)
		bp->failed = true;
	else if (b.len)
		ws_buf_add(bp, b.p, b.len);
	ws_buf_free(&b);
}
