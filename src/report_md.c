/* report_md.c - a Markdown summary fit for a CI job page: one table row per
 * artifact and target, then what is missing where. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_quote.h"
#include "ws_report.h"

/* Every string that came from a file goes out through ws_q_md (text: escaped; table cells
 * and paragraphs) or ws_q_md_code (a whole code span): no name ends a cell, opens a span,
 * makes a link or starts a line (ws_quote.h). */
static void md_escape(FILE *f, const char *s)
{
	if (s)
		fputs(ws_q_md(s), f);
}

/* The gate's matrix: --require architectures and --require-ptx as columns. */
static bool matrix(const struct ws_report *r)
{
	return r->cfg->nrequire || r->cfg->require_ptx;
}

static void matrix_head(struct ws_report *r)
{
	fputs("## wheelscan\n\n| artifact | package | version |", r->out);
	for (size_t t = 0; !r->coverage && t < r->ntargets; t++)
		fprintf(r->out, " %s |", r->targets[t].name);
	for (size_t k = 0; k < r->cfg->nrequire; k++)
		fprintf(r->out, " SASS %s |", r->cfg->require[k].name);
	if (r->cfg->require_ptx)
		fputs(" PTX |", r->out);
	fputs(" result |\n|---|---|---|", r->out);
	size_t cols = (r->coverage ? 0 : r->ntargets) + r->cfg->nrequire + (r->cfg->require_ptx ? 1 : 0);
	for (size_t k = 0; k < cols; k++)
		fputs(":---:|", r->out);
	fputs("---|\n", r->out);
}

/* One cell: the containers that have it of those that need it, marked. */
static void matrix_cell(FILE *f, const struct ws_gate_cell *c, bool unread)
{
	if (unread)
		fputs(" not read |", f);
	else if (!c)
		fputs(" ? |", f);                      /* not counted (out of memory) */
	else if (c->considered == 0)
		fputs(" \u2013 |", f);                 /* nothing here needs it */
	else if (!c->missing)
		fprintf(f, " \u2705 %u/%u |", c->considered, c->considered);
	else if (c->kept)
		fprintf(f, " \u274c %u/%u |", c->considered - c->missing, c->considered);
	else
		fprintf(f, " \u2796 %u/%u ignored |", c->considered - c->missing, c->considered);
}

void ws_md_artifact(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	if (r->nartifacts == 0 && matrix(r)) {
		matrix_head(r);
	} else if (r->nartifacts == 0 && r->coverage) {
		fputs("## wheelscan\n\nNo GPU was named: compute capabilities each artifact runs on.\n\n"
		      "| artifact | package | version | objects with device code | containers | runs on | PTX JIT only | will NOT run | result |\n"
		      "|---|---|---|---:|---:|---|---|---|---|\n", r->out);
	} else if (r->nartifacts == 0) {
		fputs("## wheelscan\n\n| artifact | package | version | objects with device code | containers |", r->out);
		for (size_t t = 0; t < r->ntargets; t++)
			fprintf(r->out, " %s |", r->targets[t].name);
		fputs(" result |\n|---|---|---|---:|---:|", r->out);
		for (size_t t = 0; t < r->ntargets; t++)
			fputs("---|", r->out);
		fputs("---|\n", r->out);
	}
	uint32_t objs = ws_artifact_code_objects(a), fatbins = 0;
	for (uint32_t i = 0; i < a->nobjects; i++)
		fatbins += a->objects[i].nfatbins;
	fputs("| ", r->out);
	md_escape(r->out, a->path);
	/* METADATA's name and version before the file name's: a pip cache body has no name */
	const struct ws_wheel_info *w = a->wheel;
	const char *pkg = w ? (w->meta_name ? w->meta_name : w->name) : NULL;
	const char *ver = w ? (w->meta_version ? w->meta_version : w->version) : NULL;
	fputs(" | ", r->out);
	md_escape(r->out, pkg ? pkg : "-");
	fputs(" | ", r->out);
	md_escape(r->out, ver ? ver : "-");
	if (matrix(r))
		fputs(" |", r->out);
	else
		fprintf(r->out, " | %u | %u |", objs, fatbins);
	for (int c = WS_COV_RUNS; r->coverage && !matrix(r) && c <= WS_COV_FAILS; c++) {
		char ranges[512];
		fputc(' ', r->out);
		if (ws_coverage_ranges(r, a->headline ? a->headline : a->verdicts, c, ranges, sizeof ranges))
			md_escape(r->out, ranges);
		else
			fputc('-', r->out);
		fputs(" |", r->out);
	}
	bool unread = ws_artifact_unread(a);         /* not judged: no verdict to show */
	for (size_t t = 0; !r->coverage && t < r->ntargets; t++) {
		/* the headline's word, and the gate's where they differ (src/core/judge.c, step b) */
		enum ws_verdict v = a->verdicts ? a->verdicts[t] : WS_V_NONE;
		enum ws_verdict h = a->headline ? a->headline[t] : v;
		if (unread)
			fputs(" not-read |", r->out);
		else if (h != v)
			fprintf(r->out, " %s (%s in %u container%s) |", ws_verdict_name(h), ws_verdict_name(v),
				a->judged[t].minority, a->judged[t].minority == 1 ? "" : "s");
		else
			fprintf(r->out, " %s%s |", ws_verdict_fails(v) ? ":x: " : "", ws_verdict_name(v));
	}
	for (size_t k = 0; matrix(r) && k < res->findings.ncells; k++)
		matrix_cell(r->out, &res->findings.cells[k], unread);
	for (size_t k = res->findings.ncells; matrix(r) && k < r->cfg->nrequire + (r->cfg->require_ptx ? 1 : 0); k++)
		matrix_cell(r->out, NULL, unread);     /* no cells (out of memory): nothing claimed */
	const char *result = a->nerrors ? ":warning: unreadable or corrupt"
			   : res->findings.n ? ":x: checks failed" : ":white_check_mark: ok";
	fprintf(r->out, " %s |\n", result);
	/* details are printed after the table, so keep them for the end */
	for (size_t i = 0; i < res->findings.n; i++) {
		const struct ws_checkdef *d = ws_check_def(res->findings.v[i].id);
		ws_findings_note(&r->mismatches, a->path, res->findings.v[i].where, "%s %s: %s", d->id, d->name,
				 res->findings.v[i].what);
	}
	for (uint32_t i = 0; i < a->nerrors; i++) {
		const struct ws_checkdef *d = ws_check_def(ws_check_of_error(a->errors[i].code));
		ws_findings_note(&r->mismatches, a->path, a->errors[i].where, "error %s %s: %s", d->id, d->name,
				 a->errors[i].message);
	}
}

/* Will each library load (src/core/loadres.c): one item per issue, as findings are written
 * ("- `object`: ID name: what"), and the command that installs what is missing. */
static void md_loads(struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	if (!ws_report_loads_shown(r))
		return;
	fputs("\n### Will it load\n\n", r->out);
	for (size_t i = 0; i < s->load.nissues; i++) {
		const struct ws_load_issue *e = &s->load.issues[i];
		if (!ws_report_shows_load(r, e))
			continue;
		fprintf(r->out, "- %s: %s %s: ", ws_q_md_code(e->object ? e->object : "(the environment)", false),
			ws_check_def(e->check)->id, ws_check_def(e->check)->name);
		md_escape(r->out, e->what);
		fputc('\n', r->out);
	}
	if (s->load_fix) {
		fputs("- ", r->out);
		fputs(ws_q_md_code(s->load_fix, false), r->out);
		fputs(": installs the runtime wheels that provide what is missing\n", r->out);
	}
}

void ws_md_end(struct ws_report *r)
{
	md_loads(r);
	if (r->mismatches.n)
		fputs("\n### What is missing where\n\n", r->out);
	for (size_t i = 0; i < r->mismatches.n; i++) {
		/* two wheels with the same member differ by the artifact's path */
		char wb[2048];
		fputs("- ", r->out);
		fputs(ws_q_md_code(ws_where(r->mismatches.v[i].artifact, r->mismatches.v[i].where, wb, sizeof wb), false), r->out);
		fputs(": ", r->out);
		md_escape(r->out, r->mismatches.v[i].what);
		fputc('\n', r->out);
	}
	if (ws_report_gates(r)) {
		char line[256];
		ws_gate_line(r, line, sizeof line);
		fprintf(r->out, "\n**%s**\n", ws_q_md(line));
	}
}
