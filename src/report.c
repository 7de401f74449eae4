/* report.c - dispatch to the format writers and keep the summary rows. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ws_quote.h"
#include "ws_report.h"
#include <string.h>

void ws_report_begin(struct ws_report *r)
{
	if (r->cfg->format == WS_FMT_JSON)
		ws_json_begin(r);
	else if (r->cfg->format == WS_FMT_SARIF)
		ws_sarif_begin(r);
	else if (r->cfg->format == WS_FMT_CYCLONEDX)
		ws_cdx_begin(r);
}

static void add_row(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	if (r->nrows >= UINT32_MAX - 1 ||
	    !ws_grow((void **)&r->rows, &r->rows_cap, (uint32_t)r->nrows + 1, sizeof *r->rows))
		return;
	struct ws_summary_row *row = &r->rows[r->nrows];
	memset(row, 0, sizeof *row);
	row->path = ws_strdup(a->path);
	row->type = ws_artifact_type_name(a->type);
	row->objects = ws_artifact_code_objects(a);
	for (uint32_t i = 0; i < a->nobjects; i++)
		row->fatbins += a->objects[i].nfatbins;
	row->errors = a->nerrors;
	row->findings = (uint32_t)res->findings.n;
	row->quiet = r->quiet_row;
	row->unread = ws_artifact_unread(a);
	r->quiet_row = false;
	if (a->wheel) {
		/* METADATA's name and version before the file name's: a pip cache body has no name */
		const struct ws_wheel_info *w = a->wheel;
		row->package = ws_strdup(w->meta_name ? w->meta_name : w->name);
		row->version = ws_strdup(w->meta_version ? w->meta_version : w->version);
	}
	/* the row says what the verdict line says: the headline (src/core/judge.c, step b) */
	if (r->ntargets && a->verdicts && (row->verdicts = ws_calloc(r->ntargets, sizeof *row->verdicts)))
		memcpy(row->verdicts, a->headline ? a->headline : a->verdicts, r->ntargets * sizeof *row->verdicts);
	bool env_row = a->type == WS_ART_INSTALLED || a->type == WS_ART_DIRECTORY;
	row->env = env_row;
	row->cpu_only = env_row && ws_artifact_cpu_only(a);
	if (env_row || (res->from_tree && row->objects)) {
		/* what the environment summary names: the distribution, and why it fails; a
		 * file with device code that a tree holds loose (an extension at the top of
		 * site-packages) is named too, by its path */
		char label[512];
		const struct ws_wheel_info *w = a->wheel;
		if (!env_row)
			snprintf(label, sizeof label, "%s (a file no installed package owns)", a->path);
		else if (w && w->meta_name)
			snprintf(label, sizeof label, "%s %s%s%s%s", w->meta_name, w->meta_version ? w->meta_version : "",
				 w->requires_torch ? " (built for torch " : "", w->requires_torch ? w->requires_torch : "",
				 w->requires_torch ? ")" : "");
		else
			snprintf(label, sizeof label, "%s (files no installed package owns)", a->path);
		row->label = ws_strdup(label);
		if (a->judged && r->ntargets && (row->advice = ws_calloc(r->ntargets, sizeof *row->advice)))
			for (size_t t = 0; t < r->ntargets; t++)
				row->advice[t] = ws_strdup(a->judged[t].advice ? a->judged[t].advice : a->judged[t].why);
		if (w && w->meta_name && !strcasecmp(w->meta_name, "torch") && !r->torch) {
			char cv[16];
			snprintf(label, sizeof label, "torch %s%s%s%s", w->meta_version ? w->meta_version : "?",
				 w->requires_cuda_runtime ? " (CUDA " : "",
				 w->requires_cuda_runtime ? ws_cuda_str(w->requires_cuda_runtime, cv, sizeof cv) : "",
				 w->requires_cuda_runtime ? " build)" : "");
			r->torch = ws_strdup(label);
		}
	}
	r->nrows++;
	/* the set's facts are kept in every mode: whether a library loads needs no target */
	if (ws_envset_add(&r->env, a, r->ntargets) < 0)
		fprintf(stderr, "wheelscan: out of memory: the environment is not judged as a whole\n");
	ws_envset_take_libs(&r->env, res->a);
}

void ws_report_artifact(struct ws_report *r, const struct ws_result *res)
{
	r->live_mismatches += res->live_mismatches;
	for (size_t i = 0; i < res->findings.n; i++) {
		const struct ws_finding *f = &res->findings.v[i];
		if (f->id == WS_CHECK_LIVE_MISMATCH && r->cfg->format != WS_FMT_MARKDOWN)
			ws_findings_note(&r->mismatches, res->a->path, f->where, "%s", f->what);
	}
	switch (r->cfg->format) {
	case WS_FMT_TEXT: ws_text_artifact(r, res); break;
	case WS_FMT_JSON:
	case WS_FMT_JSONL: ws_json_artifact(r, res); break;
	case WS_FMT_MARKDOWN: ws_md_artifact(r, res); break;
	case WS_FMT_SARIF: ws_sarif_artifact(r, res); break;
	case WS_FMT_GITHUB: ws_github_artifact(r, res, r->out); break;
	case WS_FMT_CYCLONEDX: ws_cdx_artifact(r, res); break;
	case WS_FMT_HTML: ws_html_artifact(r, res); break;
	}
	if (r->cfg->annotate)
		ws_github_artifact(r, res, stderr);
	add_row(r, res);
	r->nartifacts++;
	size_t found = res->findings.n + res->findings.dropped;
	r->gate_failed += found || res->a->nerrors;
	r->gate_findings += found;
	r->gate_ignored += res->findings.ignored;
	r->gate_errors += res->a->nerrors;
	r->gate_not_wheels += res->a->type != WS_ART_WHEEL;
	ws_out_check(r->out);              /* a lost artifact stops the run here */
}

void ws_report_end(struct ws_report *r)
{
	if (!r->coverage && ws_envset_judge(&r->env, r->targets, r->ntargets, r->remedy) < 0)
		fprintf(stderr, "wheelscan: out of memory judging the environment as a whole\n");
	/* the store keeps no library's dynamic section (doc/store-schema.md), so a rescan could
	 * not resolve what the first scan did: with --db the loads are not judged at all, and
	 * a scan and its rescan report the same */
	if (r->cfg->db)
		;
	else if (ws_envset_judge_loads(&r->env, r->remedy) < 0)
		fprintf(stderr, "wheelscan: out of memory resolving the environment's libraries\n");
	char line[256];
	switch (r->cfg->format) {
	case WS_FMT_TEXT: ws_text_summary(r); break;
	case WS_FMT_JSON: ws_json_end(r); break;
	case WS_FMT_JSONL:
		/* one object per artifact on stdout stays so: the gate's line goes to stderr */
		if (ws_report_gates(r)) {
			ws_gate_line(r, line, sizeof line);
			fprintf(stderr, "wheelscan: %s\n", line);
		}
		break;
	case WS_FMT_MARKDOWN: ws_md_end(r); break;
	case WS_FMT_SARIF: ws_sarif_end(r); break;
	case WS_FMT_GITHUB: ws_github_end(r, r->out); break;
	case WS_FMT_CYCLONEDX: ws_cdx_end(r); break;
	case WS_FMT_HTML: ws_html_end(r); break;
	}
	if (r->cfg->annotate)
		ws_github_end(r, stderr);
	ws_out_check(r->out);
}

void ws_report_free(struct ws_report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].path);
		free(r->rows[i].verdicts);
		free(r->rows[i].label);
		free(r->rows[i].package);
		free(r->rows[i].version);
		for (size_t t = 0; r->rows[i].advice && t < r->ntargets; t++)
			free(r->rows[i].advice[t]);
		free(r->rows[i].advice);
	}
	free(r->torch);
	r->torch = NULL;
	ws_envset_free(&r->env);
	free(r->rows);
	ws_findings_free(&r->mismatches);
	ws_buf_free(&r->details);
	r->rows = NULL;
	r->nrows = 0;
	r->rows_cap = 0;
	ws_quote_release();                /* the writers' escaping buffers */
	ws_text_command_release();
}
