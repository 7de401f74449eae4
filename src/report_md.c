/* report_md.c - a Markdown summary fit for a CI job page: one table row per
 * artifact and target, then what is missing where. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_compat.h"
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

void ws_md_artifact(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	if (r->nartifacts == 0 && r->coverage) {
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
	fprintf(r->out, " | %u | %u |", objs, fatbins);
	for (int c = WS_COV_RUNS; r->coverage && c <= WS_COV_FAILS; c++) {
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
	const char *result = a->nerrors ? ":warning: unreadable or corrupt"
			   : res->findings.n ? ":x: checks failed" : ":white_check_mark: ok";
	fprintf(r->out, " %s |\n", result);
	/* details are printed after the table, so keep them for the end */
	for (size_t i = 0; i < res->findings.n; i++)
		ws_findings_add(&r->mismatches, a->path, res->findings.v[i].where, "%s: %s",
				res->findings.v[i].check, res->findings.v[i].what);
	for (uint32_t i = 0; i < a->nerrors; i++)
		ws_findings_add(&r->mismatches, a->path, a->errors[i].where, "error: %s", a->errors[i].message);
}

void ws_md_end(struct ws_report *r)
{
	if (r->mismatches.n == 0)
		return;
	fputs("\n### What is missing where\n\n", r->out);
	for (size_t i = 0; i < r->mismatches.n; i++) {
		/* the artifact's path rides in .check: two wheels with the same member differ here */
		char wb[2048];
		fputs("- ", r->out);
		fputs(ws_q_md_code(ws_where(r->mismatches.v[i].check, r->mismatches.v[i].where, wb, sizeof wb), false), r->out);
		fputs(": ", r->out);
		md_escape(r->out, r->mismatches.v[i].what);
		fputc('\n', r->out);
	}
}
