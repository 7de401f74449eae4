/* report_html.c - --format html: one self-contained page (inline CSS, SVG and a few lines
 * of script; nothing fetched): a heatmap of packages x versions x targets coloured by
 * verdict, filterable by package; per artifact a row that opens into its objects, why and
 * advice; and the history of each package: the first version with SASS for each target.
 * Every name from a file goes through ws_q_html. The heatmap and history come from the
 * summary rows (report.c) at the end; the details are written per artifact into a buffer
 * that the page prints last. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_builds.h"
#include "ws_quote.h"
#include "ws_report.h"

#define H(s) ws_q_html(s)
#define OBJECTS_SHOWN 64       /* objects listed per artifact; the rest are counted */

/* The four colours of the heatmap, and "none" (no device code for it). */
static const char *verdict_class(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NATIVE: return "native";
	case WS_V_COMPATIBLE: return "compatible";
	case WS_V_JIT: return "jit";
	case WS_V_NO_IMAGE: case WS_V_PTX_TOO_NEW: return "fails";
	default: return "none";
	}
}

static const char *verdict_mark(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NATIVE: return "N";
	case WS_V_COMPATIBLE: return "C";
	case WS_V_JIT: return "J";
	case WS_V_NO_IMAGE: case WS_V_PTX_TOO_NEW: return "&#x2717;";
	default: return "&#xb7;";
	}
}

/* The columns: every target (coverage: the GPU table's compute capabilities, not the
 * "newer GPU" one). */
static size_t columns(const struct ws_report *r)
{
	return r->coverage && r->ntargets ? r->ntargets - 1 : r->ntargets;
}

void ws_html_artifact(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	struct ws_buf *b = &r->details;
	const struct ws_wheel_info *w = a->wheel;
	const char *pkg = w ? (w->meta_name ? w->meta_name : w->name) : NULL;
	const char *ver = w ? (w->meta_version ? w->meta_version : w->version) : NULL;
	const enum ws_verdict *v = a->headline ? a->headline : a->verdicts;
	bool unread = ws_artifact_unread(a);
	ws_buf_printf(b, "<details class=\"artifact\" data-pkg=\"%s\">\n<summary><code>%s</code>", H(pkg ? pkg : ""),
		      H(a->path));
	if (pkg)
		ws_buf_printf(b, " &#x2014; %s %s", H(pkg), H(ver ? ver : ""));
	for (size_t t = 0; v && !unread && t < columns(r); t++)
		ws_buf_printf(b, " <span class=\"v %s\" title=\"%s\">%s</span>", verdict_class(v[t]), r->targets[t].name,
			      verdict_mark(v[t]));
	if (unread)
		ws_buf_puts(b, " <span class=\"v fails\">not read</span>");
	ws_buf_printf(b, "</summary>\n<p>%s, %u object%s with device code", H(ws_artifact_type_name(a->type)),
		      ws_artifact_code_objects(a), ws_artifact_code_objects(a) == 1 ? "" : "s");
	if (a->sha256[0])
		ws_buf_printf(b, ", sha256 <code>%s</code>", a->sha256);
	ws_buf_puts(b, "</p>\n");
	/* why and advice, per target, as the verdict lines give them */
	bool any = false;
	for (size_t t = 0; !unread && !r->coverage && a->judged && t < r->ntargets; t++) {
		const struct ws_judgement *j = &a->judged[t];
		if (!j->why && !j->advice)
			continue;
		if (!any)
			ws_buf_puts(b, "<ul class=\"why\">\n");
		any = true;
		ws_buf_printf(b, "<li><b>%s</b> %s", H(r->targets[t].label[0] ? r->targets[t].label : r->targets[t].name),
			      ws_verdict_name(a->verdicts ? a->verdicts[t] : WS_V_NONE));
		if (j->why)
			ws_buf_printf(b, ": %s", H(j->why));
		if (j->advice)
			ws_buf_printf(b, "<br>fix: %s", H(j->advice));
		if (j->remedy && !ws_cmd_empty(&j->remedy->install)) {
			enum ws_shell used;
			const char *why;
			bool escaped;
			const char *c = ws_text_command(&j->remedy->install, NULL, j->remedy->shells, j->remedy->nshells,
							&used, &why, &escaped);
			if (c)
				ws_buf_printf(b, "<br>%s: <code>%s</code>", H(ws_shell_title(used)), H(c));
		}
		ws_buf_puts(b, "</li>\n");
	}
	if (any)
		ws_buf_puts(b, "</ul>\n");
	uint32_t shown = 0;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		if (!o->nfatbins)
			continue;
		if (shown == 0) {
			ws_buf_puts(b, "<table class=\"objects\"><tr><th>object</th><th>containers</th>");
			for (size_t t = 0; t < columns(r); t++)
				ws_buf_printf(b, "<th>%s</th>", r->targets[t].name);
			ws_buf_puts(b, "</tr>\n");
		}
		if (++shown > OBJECTS_SHOWN)
			continue;
		ws_buf_printf(b, "<tr><td><code>%s</code></td><td>%u</td>", H(o->member ? o->member : a->path), o->nfatbins);
		for (size_t t = 0; t < columns(r); t++) {
			enum ws_verdict ov = o->verdicts ? o->verdicts[t] : WS_V_NONE;
			ws_buf_printf(b, "<td class=\"v %s\">%s</td>", verdict_class(ov), ws_verdict_name(ov));
		}
		ws_buf_puts(b, "</tr>\n");
	}
	if (shown > OBJECTS_SHOWN)
		ws_buf_printf(b, "<tr><td colspan=\"%zu\">... and %u more objects</td></tr>\n", columns(r) + 2,
			      shown - OBJECTS_SHOWN);
	if (shown)
		ws_buf_puts(b, "</table>\n");
	for (uint32_t i = 0; i < a->nerrors; i++)
		ws_buf_printf(b, "<p class=\"error\">error: <code>%s</code>: %s</p>\n", H(a->errors[i].where),
			      H(a->errors[i].message));
	ws_buf_puts(b, "</details>\n");
}

/* Release segments compared as numbers, then the rest as text: "0.20.1" < "0.23.0" and
 * "2.10" > "2.9" (not PEP 440 in full: enough to order a package's releases). */
static int version_cmp(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			size_t la = 0, lb = 0;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}

static const struct ws_report *sort_report;   /* qsort has no context argument */

static int row_cmp(const void *x, const void *y)
{
	const struct ws_summary_row *a = &sort_report->rows[*(const size_t *)x];
	const struct ws_summary_row *b = &sort_report->rows[*(const size_t *)y];
	int c = strcmp(a->package ? a->package : "\x7f", b->package ? b->package : "\x7f");
	if (!c)
		c = version_cmp(a->version, b->version);
	return c ? c : strcmp(a->path, b->path);
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
	"table{border-collapse:collapse}th,td{padding:2px 6px;border:1px solid #ddd;text-align:left}"
	"table.heat td.v{text-align:center;min-width:2.2em;font-weight:600}"
	"th.cc{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal}"
	".native{background:#1a9850;color:#fff}.compatible{background:#91cf60}"
	".jit{background:#fee08b}.fails{background:#d73027;color:#fff}.none{background:#f4f4f4;color:#999}"
	".v{padding:0 4px;border-radius:3px}details{margin:.3em 0}summary{cursor:pointer}"
	"code{font-size:.95em}.error{color:#b00}.legend svg{vertical-align:middle}"
	"table.history td{font-size:.85em;white-space:nowrap}"
	"#filter{font-size:1em;padding:3px;width:20em}.hidden{display:none}";

/* Hides the rows (and details) whose package does not hold the filter text; the filter
 * may come in the address as #filter=TEXT. */
static const char script[] =
	"(function(){var f=document.getElementById('filter');"
	"function apply(){var q=f.value.toLowerCase();"
	"document.querySelectorAll('[data-pkg]').forEach(function(e){"
	"e.classList.toggle('hidden',q!==''&&e.getAttribute('data-pkg').toLowerCase().indexOf(q)<0);});}"
	"var m=/^#filter=(.*)$/.exec(location.hash);if(m)f.value=decodeURIComponent(m[1]);"
	"f.addEventListener('input',apply);apply();})();";

static void legend(struct ws_report *r)
{
	static const char *const cls[] = {"native", "compatible", "jit", "fails", "none"};
	static const char *const fill[] = {"#1a9850", "#91cf60", "#fee08b", "#d73027", "#f4f4f4"};
	static const char *const what[] = {"native SASS", "compatible SASS (lower minor)", "PTX JIT only",
					   "will NOT run", "no device code for it"};
	fputs("<p class=\"legend\">", r->out);
	for (size_t i = 0; i < 5; i++)
		fprintf(r->out, "<svg width=\"14\" height=\"14\" class=\"%s\"><rect width=\"14\" height=\"14\" fill=\"%s\" "
			"stroke=\"#999\"/></svg> %s &#160; ", cls[i], fill[i], what[i]);
	fputs("</p>\n", r->out);
}

/* For each package: per target the first version (in version order) whose headline there
 * is native or compatible SASS. */
static void history(struct ws_report *r, const size_t *order, size_t n)
{
	size_t nc = columns(r);
	fputs("<h2>First version with SASS, per package</h2>\n<table class=\"history\"><tr><th>package</th>", r->out);
	for (size_t t = 0; t < nc; t++)
		fprintf(r->out, "<th class=\"cc\">%s</th>", r->targets[t].name);
	fputs("</tr>\n", r->out);
	for (size_t i = 0; i < n;) {
		const struct ws_summary_row *first = &r->rows[order[i]];
		size_t e = i;
		while (e < n && first->package && r->rows[order[e]].package && !strcmp(r->rows[order[e]].package, first->package))
			e++;
		if (!first->package) {             /* not a package: no history */
			i++;
			continue;
		}
		fprintf(r->out, "<tr data-pkg=\"%s\"><td>%s</td>", H(first->package), H(first->package));
		for (size_t t = 0; t < nc; t++) {
			const char *since = NULL;
			for (size_t k = i; k < e && !since; k++) {
				const struct ws_summary_row *row = &r->rows[order[k]];
				if (!row->unread && row->verdicts &&
				    (row->verdicts[t] == WS_V_NATIVE || row->verdicts[t] == WS_V_COMPATIBLE))
					since = row->version ? row->version : "?";
			}
			fprintf(r->out, "<td class=\"%s\" data-cc=\"%s\">%s</td>", since ? "native" : "none", r->targets[t].name,
				since ? H(since) : "&#x2014;");
		}
		fputs("</tr>\n", r->out);
		i = e;
	}
	fputs("</table>\n", r->out);
}

/* Will each library load (src/core/loadres.c): the issues with their check IDs. */
static void load_section(struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	if (!ws_report_loads_shown(r))
		return;
	fputs("<h2>Will it load</h2>\n<ul id=\"loads\">\n", r->out);
	for (size_t i = 0; i < s->load.nissues; i++) {
		const struct ws_load_issue *e = &s->load.issues[i];
		if (!ws_report_shows_load(r, e))
			continue;
		fprintf(r->out, "<li data-check=\"%s\"><b>%s</b> %s: %s</li>\n", ws_check_def(e->check)->id,
			ws_check_def(e->check)->id, ws_check_def(e->check)->name, H(e->what));
	}
	fputs("</ul>\n", r->out);
	if (s->load_fix)
		fprintf(r->out, "<p>To fix the loads: <code>%s</code></p>\n", H(s->load_fix));
}

void ws_html_end(struct ws_report *r)
{
	size_t n = 0, nc = columns(r);
	size_t *order = ws_calloc(r->nrows ? r->nrows : 1, sizeof *order);
	if (!order) {
		fprintf(stderr, "wheelscan: out of memory writing the HTML page\n");
		return;
	}
	for (size_t i = 0; i < r->nrows; i++)
		order[n++] = i;
	sort_report = r;
	qsort(order, n, sizeof *order, row_cmp);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "script-src 'unsafe-inline'; img-src data:\">\n<title>wheelscan</title>\n<style>", r->out);
	fputs(style, r->out);
	fprintf(r->out, "</style></head><body>\n<h1>wheelscan %s: %zu artifact%s</h1>\n", WS_VERSION, n, n == 1 ? "" : "s");
	if (r->coverage)
		fputs("<p>No GPU was named: each compute capability of the GPU table.</p>\n", r->out);
	if (ws_report_gates(r)) {
		char line[256];                /* the tool's own words: counts, no names */
		bool passed = ws_gate_line(r, line, sizeof line);
		fprintf(r->out, "<p class=\"gate\" id=\"gate\" data-passed=\"%s\">%s</p>\n", passed ? "true" : "false", line);
	}
	legend(r);
	fputs("<p><label>package <input id=\"filter\" type=\"search\" placeholder=\"filter by package\"></label></p>\n"
	      "<table class=\"heat\" id=\"heatmap\"><tr><th>package</th><th>version</th>", r->out);
	for (size_t t = 0; t < nc; t++)
		fprintf(r->out, "<th class=\"cc\">%s</th>", r->targets[t].name);
	fputs("<th>artifact</th></tr>\n", r->out);
	for (size_t i = 0; i < n; i++) {
		const struct ws_summary_row *row = &r->rows[order[i]];
		fprintf(r->out, "<tr data-pkg=\"%s\" data-path=\"%s\" data-index=\"%zu\"><td>%s</td><td>%s</td>",
			H(row->package ? row->package : ""), H(row->path), order[i], H(row->package ? row->package : "-"),
			H(row->version ? row->version : "-"));
		for (size_t t = 0; t < nc; t++) {
			const char *vn = row->unread ? "not-read" : row->verdicts ? ws_verdict_name(row->verdicts[t]) : "none";
			enum ws_verdict v = row->unread || !row->verdicts ? WS_V_NONE : row->verdicts[t];
			fprintf(r->out, "<td class=\"v %s\" data-cc=\"%s\" data-verdict=\"%s\" title=\"%s\">%s</td>",
				row->unread ? "fails" : verdict_class(v), r->targets[t].name, vn, vn,
				row->unread ? "?" : verdict_mark(v));
		}
		fprintf(r->out, "<td><code>%s</code></td></tr>\n", H(row->path));
	}
	fputs("</table>\n", r->out);
	load_section(r);
	history(r, order, n);
	fputs("<h2>Artifacts</h2>\n", r->out);
	if (r->details.p)
		fwrite(r->details.p, 1, r->details.len, r->out);
	if (r->details.failed)
		fputs("<p class=\"error\">out of memory: some artifacts' details are missing</p>\n", r->out);
	fprintf(r->out, "<script>%s</script>\n</body></html>\n", script);
	free(order);
}
