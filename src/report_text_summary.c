/* report_text_summary.c - the close of the text report: the summary table of every
 * artifact, the environments (what will not run in them, per target) and the packages
 * given together as one set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_text.h"
#include "ws_builds.h"
#include "ws_checks.h"
#include "ws_gate.h"
#include "ws_live.h"
#include "ws_quote.h"
#include "ws_report.h"
#include "ws_util.h"
#include "ws_vocab.h"

/* Environments: which installed distributions (and loose directories) will NOT run on each
 * target, and which only through JIT, with the reason or advice the model gave. */
static void env_summary(struct ws_report *r)
{
	bool any = false;
	for (size_t i = 0; i < r->nrows && !any; i++)
		any = r->rows[i].env;
	if (!any || r->coverage)
		return;
	/* the claim is over every labelled row (loose files too), and only when one has code */
	bool bad = false;
	size_t with_code = 0, unread = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_summary_row *row = &r->rows[i];
		if (!row->label)
			continue;
		with_code += row->objects != 0;
		unread += row->unread;
		for (size_t t = 0; row->verdicts && t < r->ntargets && !bad; t++)
			bad = ws_verdict_fails(row->verdicts[t]) || row->verdicts[t] == WS_V_JIT;
	}
	/* a package that could not be read is in neither claim */
	fprintf(r->out, "\nenvironment%s%s:%s%s", r->torch ? " with " : "", r->torch ? Q(r->torch) : "",
		bad || !unread ? "" : " of the packages read,",
		bad ? "" : with_code ? " every installed package with CUDA device code runs natively on the targets"
				     : " no installed package has CUDA device code");
	if (!bad && unread)
		fprintf(r->out, " (%zu not judged: see the errors)", unread);
	fputc('\n', r->out);
	for (size_t i = 0, n = 0; i < r->nrows; i++)
		if (r->rows[i].cpu_only)
			fprintf(r->out, "%s%s", n++ ? ", " : "  CPU-only builds of packages with CUDA builds (no CUDA device code): ",
				Q(r->rows[i].label));
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].cpu_only) {
			fputc('\n', r->out);
			break;
		}
	for (size_t t = 0; t < r->ntargets; t++) {
		const struct ws_target *tg = &r->targets[t];
		for (int pass = 0; pass < 2; pass++) {
			bool head = false;
			for (size_t i = 0; i < r->nrows; i++) {
				const struct ws_summary_row *row = &r->rows[i];
				if (!row->label || !row->verdicts)
					continue;
				enum ws_verdict v = row->verdicts[t];
				if (pass == 0 ? !ws_verdict_fails(v) : v != WS_V_JIT)
					continue;
				if (!head)
					fprintf(r->out, "  %s%s%s on %s%s%s%s:\n", col(r, pass ? YELLOW : RED),
						pass ? "only through PTX JIT (slow first start)" : "will NOT run", col(r, RESET),
						Q(tg->label[0] ? tg->label : tg->name), tg->label[0] ? " (" : "",
						tg->label[0] ? tg->name : "", tg->label[0] ? ")" : "");
				head = true;
				fprintf(r->out, "    %s", Q(row->label));
				if (pass == 0 && row->advice && row->advice[t])
					fprintf(r->out, ": %s", Q(row->advice[t]));
				fputc('\n', r->out);
			}
		}
	}
}

/* The set judged as a whole (src/core/envset.c): what breaks together, and per target the
 * one command that fixes it. */
static void env_set_lines(struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	bool fix = false;
	for (size_t k = 0; s->fix && k < r->ntargets; k++)
		fix |= s->fix[k].n || s->fix_note[k];
	if (!s->nissues && !fix)
		return;
	fprintf(r->out, "\n%sthe packages together%s:\n", col(r, BOLD), col(r, RESET));
	for (size_t i = 0; i < s->nissues; i++) {
		const struct ws_env_issue *e = &s->issues[i];
		if (e->target >= 0)
			fprintf(r->out, "  on %s: %s\n", r->targets[e->target].name, Q(e->what));   /* names METADATA's */
		else
			fprintf(r->out, "  %s\n", Q(e->what));
	}
	for (size_t k = 0; s->fix && k < r->ntargets; k++) {
		const struct ws_target *tg = &r->targets[k];
		if (!s->fix[k].n && !s->fix_note[k])
			continue;
		fprintf(r->out, "  to fix it on %s%s%s%s:\n", Q(tg->label[0] ? tg->label : tg->name), tg->label[0] ? " (" : "",
			tg->label[0] ? tg->name : "", tg->label[0] ? ")" : "");
		if (s->fix[k].n) {
			if (s->nfix_shells && s->fix_shells[0] != WS_SHELL_SH)
				fprintf(r->out, "    for %s:\n", ws_shell_title(s->fix_shells[0]));
			ws_text_command_lines(r->out, "    ", "", NULL, &s->fix[k], s->fix_shells, s->nfix_shells);
		}
		if (s->fix_note[k])
			fprintf(r->out, "    note: %s\n", Q(s->fix_note[k]));
	}
}

/* Will each library load (src/core/loadres.c): what fails, as the user meets it, with its
 * check ID, the system libraries assumed, and the command that installs what is missing. */
static void load_lines(struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	const struct ws_loadres *l = &s->load;
	if (!ws_report_loads_shown(r))
		return;
	fprintf(r->out, "\n%swill it load%s (%zu shared librar%s resolved as the loader does):\n", col(r, BOLD),
		col(r, RESET), l->nlibs, l->nlibs == 1 ? "y" : "ies");
	for (size_t i = 0; i < l->nissues; i++) {
		const struct ws_load_issue *e = &l->issues[i];
		const struct ws_checkdef *d = ws_check_def(e->check);
		if (!ws_report_shows_load(r, e))
			continue;
		fprintf(r->out, "  %s%s%s %s: %s\n", e->check == WS_CHECK_LOAD_ELSEWHERE ? "" : col(r, RED), d->id,
			e->check == WS_CHECK_LOAD_ELSEWHERE ? "" : col(r, RESET), d->name, Q(e->what));
	}
	if (s->load_fix)
		fprintf(r->out, "  to fix the loads:\n    %s\n    note: the runtime wheels provide the libraries; an object "
			"whose run path does not reach them finds them only once they are loaded first (its package's "
			"own preloading, or torch's import)\n", Q(s->load_fix));
	if (l->nassumed) {
		fputs("  assumed from the system:", r->out);
		for (size_t i = 0; i < l->nassumed; i++)
			fprintf(r->out, "%s %s", i ? "," : "", Q(l->assumed[i]));
		fputc('\n', r->out);
	}
}

static void summary_table(struct ws_report *r);

void ws_text_summary(struct ws_report *r)
{
	if (r->live_mismatches) {
		fprintf(r->out, "\n%sLIVE MISMATCHES: %zu%s (prediction and driver disagree; the rules are wrong)\n",
			col(r, RED), r->live_mismatches, col(r, RESET));
		for (size_t i = 0; i < r->mismatches.n; i++)
			fprintf(r->out, "  %s: %s: %s\n", Q(r->mismatches.v[i].artifact), Q(r->mismatches.v[i].where),
				Q(r->mismatches.v[i].what));
	}
	if (r->quiet_other)
		fprintf(r->out, "\n%zu file%s in no package or object format wheelscan reads, not shown (-v shows them)\n",
			r->quiet_other, r->quiet_other == 1 ? "" : "s");
	if (r->nskipped)
		fprintf(r->out, "\n%zu symbolic link%s skipped (dangling or looping; named on stderr)\n", r->nskipped,
			r->nskipped == 1 ? "" : "s");
	if (r->quiet_packages)
		fprintf(r->out, "\n%zu installed package%s or director%s without CUDA device code not shown (-v shows them)\n",
			r->quiet_packages, r->quiet_packages == 1 ? "" : "s", r->quiet_packages == 1 ? "y" : "ies");
	env_summary(r);
	env_set_lines(r);
	load_lines(r);
	if (r->nrows - r->quiet_packages - r->quiet_other >= 2)
		summary_table(r);
	/* no hint about inputs not there, nor when --require was the point of the run */
	if (r->coverage && !(r->nrows && r->missing == r->nrows) && !r->cfg->nrequire && !r->cfg->require_ptx)
		fputs("\nNo GPU was named, and none was found here. --gpu 'RTX 5090' (or sm_120, 12.0)\n"
		      "judges one GPU; --list-gpus names them.\n", r->out);
	if (ws_report_gates(r)) {
		char line[256];
		bool passed = ws_gate_line(r, line, sizeof line);
		fprintf(r->out, "\n%s%s%s\n", col(r, passed ? GREEN : RED), line, col(r, RESET));
	}
}

/* A name column is as wide as its longest name, up to 40: a stranger's long name shifts
 * only its own row. */
static int column_width(int w, const char *s)
{
	int n = s ? (int)strlen(ws_q_text(s)) : 0;
	return n > w ? (n > 40 ? 40 : n) : w;
}

/* The package and version cells of a summary row, escaped, "-" where unknown. */
static void name_cells(struct ws_report *r, const struct ws_summary_row *row, int pw, int vw)
{
	fprintf(r->out, "%-*s ", pw, row->package ? Q(row->package) : "-");
	fprintf(r->out, "%-*s ", vw, row->version ? Q(row->version) : "-");
}

static void summary_table(struct ws_report *r)
{
	/* the type column is as wide as its longest entry, so no row shifts the others */
	int tw = 9, pw = 7, vw = 7;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_summary_row *row = &r->rows[i];
		if (row->quiet)
			continue;
		if (row->type && (int)strlen(row->type) > tw)
			tw = (int)strlen(row->type);
		pw = column_width(pw, row->package);
		vw = column_width(vw, row->version);
	}
	fprintf(r->out, "\nsummary: %zu artifacts\n  %-*s %-*s %-*s %7s %9s %6s", r->nrows - r->quiet_packages - r->quiet_other,
		tw, "type", pw, "package", vw, "version", "objects", "fatbins", "errors");
	if (r->coverage) {
		/* a coverage map per row: the compute capabilities it runs on (JIT included) */
		fputs("  path: runs on\n", r->out);
		for (size_t i = 0; i < r->nrows; i++) {
			const struct ws_summary_row *row = &r->rows[i];
			char runs[512], jit[512];
			if (row->quiet)
				continue;
			fprintf(r->out, "  %-*s ", tw, row->type);
			name_cells(r, row, pw, vw);
			fprintf(r->out, "%7u %9u %6u  %s: ", row->objects, row->fatbins, row->errors, Q(row->path));
			size_t n = ws_coverage_ranges(r, row->verdicts, WS_COV_RUNS, runs, sizeof runs);
			size_t nj = ws_coverage_ranges(r, row->verdicts, WS_COV_JIT, jit, sizeof jit);
			fprintf(r->out, "%s%s%s%s%s\n", n ? runs : "", n && nj ? "; " : "", nj ? "JIT " : "", nj ? jit : "",
				n || nj ? "" : "-");
		}
		return;
	}
	for (size_t t = 0; t < r->ntargets; t++)
		fprintf(r->out, " %-11s", r->targets[t].name);
	fputs("  path\n", r->out);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_summary_row *row = &r->rows[i];
		if (row->quiet)
			continue;
		fprintf(r->out, "  %-*s ", tw, row->type);
		name_cells(r, row, pw, vw);
		fprintf(r->out, "%7u %9u %6u", row->objects, row->fatbins, row->errors);
		for (size_t t = 0; t < r->ntargets; t++)
			fprintf(r->out, " %-11s", row->unread ? "not-read" : row->verdicts ? ws_verdict_name(row->verdicts[t]) : "-");
		fprintf(r->out, "  %s\n", Q(row->path));
	}
}
