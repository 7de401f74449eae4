/* report.c - dispatch to the format writers and keep the summary rows. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_compat.h"
#include "ws_report.h"
#include "ws_util.h"

void ws_report_begin(struct ws_report *r)
{
	if (r->cfg->format == WS_FMT_JSON)
		ws_json_begin(r);
}

static void add_row(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	struct ws_summary_row *rows = ws_reallocarray(r->rows, r->nrows + 1, sizeof *rows);
	if (!rows)
		return;
	r->rows = rows;
	struct ws_summary_row *row = &rows[r->nrows];
	memset(row, 0, sizeof *row);
	row->path = ws_strdup(a->path);
	row->type = a->type;
	row->objects = a->nobjects;
	for (uint32_t i = 0; i < a->nobjects; i++)
		row->fatbins += a->objects[i].nfatbins;
	row->errors = a->nerrors;
	row->findings = (uint32_t)res->findings.n;
	if (r->ntargets && a->verdicts && (row->verdicts = ws_calloc(r->ntargets, sizeof *row->verdicts)))
		memcpy(row->verdicts, a->verdicts, r->ntargets * sizeof *row->verdicts);
	r->nrows++;
}

void ws_report_artifact(struct ws_report *r, const struct ws_result *res)
{
	r->live_mismatches += res->live_mismatches;
	for (size_t i = 0; i < res->findings.n; i++) {
		const struct ws_finding *f = &res->findings.v[i];
		if (!strcmp(f->check, "live") && r->cfg->format != WS_FMT_MARKDOWN)
			ws_findings_add(&r->mismatches, res->a->path, f->where, "%s", f->what);
	}
	switch (r->cfg->format) {
	case WS_FMT_TEXT: ws_text_artifact(r, res); break;
	case WS_FMT_JSON:
	case WS_FMT_JSONL: ws_json_artifact(r, res); break;
	case WS_FMT_MARKDOWN: ws_md_artifact(r, res); break;
	}
	add_row(r, res);
	r->nartifacts++;
	fflush(r->out);
}

void ws_report_end(struct ws_report *r)
{
	switch (r->cfg->format) {
	case WS_FMT_TEXT: ws_text_summary(r); break;
	case WS_FMT_JSON: ws_json_end(r); break;
	case WS_FMT_JSONL: break;
	case WS_FMT_MARKDOWN: ws_md_end(r); break;
	}
	fflush(r->out);
}

void ws_report_free(struct ws_report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].path);
		free(r->rows[i].verdicts);
	}
	free(r->rows);
	ws_findings_free(&r->mismatches);
	r->rows = NULL;
	r->nrows = 0;
}
