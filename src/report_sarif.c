/* report_sarif.c - SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps): one rule
 * per check ID (ws_checks.h), one result per finding and per error, each located at its
 * artifact (a relative URI reference, percent-encoded) and its member (a logical
 * location). Written as the artifacts are done, like the JSON document; decides nothing. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_json.h"
#include "ws_quote.h"
#include "ws_report.h"

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

static const char *level(enum ws_check c)
{
	/* a library expected from outside the wheels given is said, not an error */
	return c == WS_CHECK_LIVE_UNCONFIRMED || c == WS_CHECK_LOAD_ORDER || c == WS_CHECK_LOAD_CUDA_SPLIT ? "warning" :
	       c == WS_CHECK_LOAD_ELSEWHERE ? "note" : "error";
}

/* A message as SARIF plain text (names escaped: ws_quote.h, sarif) in a JSON string. */
static void message(struct ws_buf *b, const char *text)
{
	struct ws_buf t = {0};
	ws_quote_str(&t, WS_Q_SARIF, text);
	ws_buf_add(&t, "", 1);
	ws_json_key(b, "message");
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "text", t.failed || !t.p ? "?" : t.p);
	ws_json_close(b, '}');
	ws_buf_free(&t);
}

static void result(struct ws_buf *b, enum ws_check c, const char *path, const char *where, const char *what)
{
	const struct ws_checkdef *d = ws_check_def(c);
	char wb[2048], text[3072];
	const char *full = ws_where(path, where ? where : path, wb, sizeof wb);
	snprintf(text, sizeof text, "%s: %s", full, what);
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "ruleId", d->id);
	ws_json_kv_u64(b, "ruleIndex", (uint64_t)c);
	ws_json_kv_str(b, "level", level(c));
	message(b, text);
	ws_json_key(b, "locations");
	ws_buf_add(b, "[{", 2);
	ws_json_key(b, "physicalLocation");
	ws_buf_add(b, "{", 1);
	ws_json_key(b, "artifactLocation");
	ws_buf_add(b, "{", 1);
	struct ws_buf u = {0};
	ws_quote_str(&u, WS_Q_URI, path);
	ws_buf_add(&u, "", 1);
	ws_json_kv_str(b, "uri", u.failed || !u.p ? "" : u.p);
	ws_buf_free(&u);
	ws_json_close(b, '}');
	ws_json_close(b, '}');
	/* the member (and container) inside the artifact: no file of the repository */
	if (where && strcmp(full, path) != 0) {
		ws_json_key(b, "logicalLocations");
		ws_buf_add(b, "[{", 2);
		ws_json_kv_str(b, "name", where);
		ws_json_kv_str(b, "fullyQualifiedName", full);
		ws_json_kv_str(b, "kind", "module");
		ws_json_close(b, '}');
		ws_json_close(b, ']');
	}
	ws_json_close(b, '}');
	ws_json_close(b, ']');
	ws_json_close(b, '}');
}

void ws_sarif_begin(struct ws_report *r)
{
	struct ws_buf b = {0};
	ws_buf_add(&b, "{", 1);
	ws_json_kv_str(&b, "$schema", SARIF_SCHEMA);
	ws_json_kv_str(&b, "version", "2.1.0");
	ws_json_key(&b, "runs");
	ws_buf_add(&b, "[{", 2);
	ws_json_key(&b, "tool");
	ws_buf_add(&b, "{", 1);
	ws_json_key(&b, "driver");
	ws_buf_add(&b, "{", 1);
	ws_json_kv_str(&b, "name", "wheelscan");
	ws_json_kv_str(&b, "version", WS_VERSION);
	ws_json_kv_str(&b, "semanticVersion", WS_VERSION);
	ws_json_key(&b, "rules");
	ws_buf_add(&b, "[", 1);
	/* every check, in ID order: ruleIndex is the check's place in this array */
	for (int c = 0; c < WS_NCHECKS; c++) {
		const struct ws_checkdef *d = ws_check_def(c);
		ws_buf_add(&b, "{", 1);
		ws_json_kv_str(&b, "id", d->id);
		ws_json_kv_str(&b, "name", d->name);
		ws_json_key(&b, "shortDescription");
		ws_buf_add(&b, "{", 1);
		ws_json_kv_str(&b, "text", d->summary);
		ws_json_close(&b, '}');
		ws_json_key(&b, "defaultConfiguration");
		ws_buf_add(&b, "{", 1);
		ws_json_kv_str(&b, "level", level(c));
		ws_json_close(&b, '}');
		ws_json_key(&b, "properties");
		ws_buf_add(&b, "{", 1);
		ws_json_key(&b, "tags");
		ws_buf_add(&b, "[", 1);
		ws_json_str(&b, d->gate ? "gate" : d->id[2] == '4' ? "environment" : "input");
		ws_buf_add(&b, ",", 1);
		ws_json_close(&b, ']');
		ws_json_close(&b, '}');
		ws_json_close(&b, '}');
	}
	ws_json_close(&b, ']');
	ws_json_close(&b, '}');
	ws_json_close(&b, '}');
	ws_json_key(&b, "results");
	ws_buf_add(&b, "[\n", 2);
	if (b.p)
		fputs(b.p, r->out);
	ws_buf_free(&b);
}

/* Writes the results b holds, each closed with a comma: the last one's goes, and a comma
 * parts them from the results written before; b is freed. */
static void flush_results(struct ws_report *r, struct ws_buf *b)
{
	if (b->len && !b->failed) {
		b->len--;
		if (r->sarif_results)
			fputs(",\n", r->out);
		fwrite(b->p, 1, b->len, r->out);
		r->sarif_results = true;
	}
	ws_buf_free(b);
}

void ws_sarif_artifact(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	struct ws_buf b = {0};
	for (size_t i = 0; i < res->findings.n; i++) {
		const struct ws_finding *f = &res->findings.v[i];
		result(&b, f->id, a->path, f->where, f->what);
	}
	for (uint32_t i = 0; i < a->nerrors; i++)
		result(&b, ws_check_of_error(a->errors[i].code), a->path, a->errors[i].where, a->errors[i].message);
	flush_results(r, &b);
}

/* the load resolution's issues (src/core/loadres.c), each at its distribution's artifact */
static void load_results(struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	struct ws_buf b = {0};
	for (size_t i = 0; s->load_judged && i < s->load.nissues; i++) {
		const struct ws_load_issue *e = &s->load.issues[i];
		const char *path = e->dist < s->n && s->pkgs[e->dist].path ? s->pkgs[e->dist].path : ".";
		result(&b, e->check, path, e->object, e->what);
	}
	flush_results(r, &b);
}

void ws_sarif_end(struct ws_report *r)
{
	char line[256];
	load_results(r);
	bool passed = ws_gate_line(r, line, sizeof line);
	struct ws_buf b = {0};
	ws_buf_puts(&b, "\n],");
	ws_json_key(&b, "invocations");
	ws_buf_add(&b, "[{", 2);
	ws_json_kv_bool(&b, "executionSuccessful", true);
	ws_json_key(&b, "properties");
	ws_buf_add(&b, "{", 1);
	if (ws_report_gates(r)) {
		ws_json_kv_bool(&b, "gatePassed", passed);
		ws_json_kv_str(&b, "gate", line);
	}
	ws_json_kv_u64(&b, "artifacts", r->nartifacts);
	ws_json_close(&b, '}');
	ws_json_close(&b, '}');
	ws_json_close(&b, ']');
	ws_json_close(&b, '}');
	ws_json_close(&b, ']');
	ws_json_close(&b, '}');
	b.len--;
	ws_buf_puts(&b, "\n");
	if (b.p)
		fputs(b.p, r->out);
	ws_buf_free(&b);
}
