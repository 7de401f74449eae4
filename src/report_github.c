/* report_github.c - GitHub Actions workflow commands: one ::error (or ::warning) per
 * finding and error, titled with its check ID, and the gate's line last. Every name is
 * escaped for the command (ws_quote.h, gha): a member called "x\n::error::" stays one line
 * of text, and a ',' or ':' in a path cannot end the file= property. */
#include <stdio.h>

#include "ws_quote.h"
#include "ws_report.h"

static void command(FILE *f, enum ws_check c, const char *path, const char *where, const char *what)
{
	const struct ws_checkdef *d = ws_check_def(c);
	char title[96], wb[2048];
	snprintf(title, sizeof title, "%s %s", d->id, d->name);
	const char *level = c == WS_CHECK_LOAD_ELSEWHERE ? "notice" :
			    c == WS_CHECK_LIVE_UNCONFIRMED || c == WS_CHECK_LOAD_ORDER || c == WS_CHECK_LOAD_CUDA_SPLIT ?
			    "warning" : "error";
	fprintf(f, "::%s file=%s,title=%s::%s: %s\n", level,
		ws_q_gha(path, true), ws_q_gha(title, true), ws_q_gha(ws_where(path, where ? where : path, wb, sizeof wb), false),
		ws_q_gha(what, false));
}

void ws_github_artifact(struct ws_report *r, const struct ws_result *res, FILE *f)
{
	const struct ws_artifact *a = res->a;
	for (size_t i = 0; i < res->findings.n; i++)
		command(f, res->findings.v[i].id, a->path, res->findings.v[i].where, res->findings.v[i].what);
	if (res->findings.dropped)
		fprintf(f, "::error file=%s,title=wheelscan::%zu more findings not shown\n", ws_q_gha(a->path, true),
			res->findings.dropped);
	for (uint32_t i = 0; i < a->nerrors; i++)
		command(f, ws_check_of_error(a->errors[i].code), a->path, a->errors[i].where, a->errors[i].message);
}

void ws_github_end(struct ws_report *r, FILE *f)
{
	char line[256];
	/* will each library load (src/core/loadres.c): at the distribution's artifact */
	const struct ws_envset *s = &r->env;
	for (size_t i = 0; s->load_judged && i < s->load.nissues; i++) {
		const struct ws_load_issue *e = &s->load.issues[i];
		if (!ws_report_shows_load(r, e))
			continue;
		command(f, e->check, e->dist < s->n && s->pkgs[e->dist].path ? s->pkgs[e->dist].path : ".", e->object,
			e->what);
	}
	if (!ws_report_gates(r))
		return;
	bool passed = ws_gate_line(r, line, sizeof line);
	fprintf(f, "::%s title=wheelscan gate::%s\n", passed ? "notice" : "error", ws_q_gha(line, false));
}
