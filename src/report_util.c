/* report_util.c - what several format writers share: the coverage classes and ranges of
 * the matrix, an object's location under its artifact, and the gate's closing line. Kept
 * apart from report.c (the dispatcher) so that the writers call down into it and report.c
 * calls down into the writers, never both ways. */
#include <stdio.h>
#include <string.h>

#include "ws_report.h"
#include "ws_quote.h"

int ws_coverage_class(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NATIVE: case WS_V_COMPATIBLE: return WS_COV_RUNS;
	case WS_V_JIT: return WS_COV_JIT;
	case WS_V_NO_IMAGE: case WS_V_PTX_TOO_NEW: return WS_COV_FAILS;
	default: return WS_COV_NONE;
	}
}

size_t ws_coverage_ranges(const struct ws_report *r, const enum ws_verdict *v, int cls, char *buf, size_t len)
{
	size_t n = 0, pos = 0, ntable = r->ntargets ? r->ntargets - 1 : 0;   /* the last is "newer GPUs" */
	if (len)
		buf[0] = 0;
	for (size_t i = 0; v && i < ntable; i++) {
		if (ws_coverage_class(v[i]) != cls)
			continue;
		size_t e = i;
		while (e + 1 < ntable && ws_coverage_class(v[e + 1]) == cls)
			e++;
		unsigned a = r->targets[i].cc, b = r->targets[e].cc;
		const char *fa = ws_cc_family(a), *fb = ws_cc_family(b);
		int w;
		if (a == b)
			w = snprintf(buf + pos, len - pos, "%s%u.%u (%s)", pos ? ", " : "", a / 10, a % 10, fa);
		else if (!strcmp(fa, fb))
			w = snprintf(buf + pos, len - pos, "%s%u.%u-%u.%u (%s)", pos ? ", " : "", a / 10, a % 10,
				     b / 10, b % 10, fa);
		else
			w = snprintf(buf + pos, len - pos, "%s%u.%u-%u.%u (%s-%s)", pos ? ", " : "", a / 10, a % 10,
				     b / 10, b % 10, fa, fb);
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += (size_t)w;
		n += e - i + 1;
		i = e;
	}
	return n;
}

const char *ws_where(const char *path, const char *where, char *buf, size_t len)
{
	size_t pl = strlen(path);
	if (!strncmp(where, path, pl) && (where[pl] == '\0' || where[pl] == ' ' || where[pl] == '!'))
		return where;
	snprintf(buf, len, "%s!%s", path, where);
	return buf;
}

bool ws_report_gates(const struct ws_report *r)
{
	const struct ws_config *c = r->cfg;
	return c->nrequire || c->require_ptx || c->live || (r->ntargets && !r->coverage);
}

bool ws_gate_line(const struct ws_report *r, char *buf, size_t len)
{
	const char *noun = r->gate_not_wheels ? "artifact" : "wheel";
	size_t n = r->nartifacts;
	if (n == 0) {
		snprintf(buf, len, "gate: FAILED \u2014 nothing was judged");
		return false;
	}
	if (!r->gate_failed && !r->live_mismatches) {
		if (r->gate_ignored)
			snprintf(buf, len, "gate: passed (%zu %s%s, %zu finding%s ignored)", n, noun, n == 1 ? "" : "s",
				 r->gate_ignored, r->gate_ignored == 1 ? "" : "s");
		else
			snprintf(buf, len, "gate: passed (%zu %s%s)", n, noun, n == 1 ? "" : "s");
		return true;
	}
	/* "2 of 3 wheels, 13 findings, 1 error, 2 ignored": each count only when there is one */
	char findings[48] = "", errors[48] = "", ignored[48] = "";
	if (r->gate_findings || !r->gate_errors)
		snprintf(findings, sizeof findings, ", %zu finding%s", r->gate_findings, r->gate_findings == 1 ? "" : "s");
	if (r->gate_errors)
		snprintf(errors, sizeof errors, ", %zu error%s", r->gate_errors, r->gate_errors == 1 ? "" : "s");
	if (r->gate_ignored)
		snprintf(ignored, sizeof ignored, ", %zu ignored", r->gate_ignored);
	snprintf(buf, len, "gate: FAILED \u2014 %zu of %zu %s%s%s%s%s", r->gate_failed ? r->gate_failed : n, n, noun,
		 n == 1 ? "" : "s", findings, errors, ignored);
	return false;
}

/* One rendering for text, in a buffer of its own per thread (valid until the next call). */
static _Thread_local struct ws_buf text_cmd_buf;

const char *ws_text_command(const struct ws_cmd *c, const struct ws_cmds *l, const enum ws_shell *shells, size_t n,
			    enum ws_shell *used, const char **why, bool *escaped)
{
	struct ws_buf raw = {0};
	bool ok = l ? ws_cmds_render_first(&raw, l, shells, n, used, why) : ws_cmd_render_first(&raw, c, shells, n, used, why);
	*escaped = false;
	if (!ok || raw.failed) {
		if (ok)
			*why = "out of memory";
		ws_buf_free(&raw);
		return NULL;
	}
	struct ws_buf *b = &text_cmd_buf;
	b->len = 0;
	b->failed = false;
	ws_quote(b, WS_Q_TEXT, raw.p, raw.len);
	/* text escapes controls (a newline inside quotes): then the page is not the command */
	*escaped = b->len != raw.len || memcmp(b->p, raw.p, raw.len) != 0;
	ws_buf_add(b, "", 1);
	ws_buf_free(&raw);
	if (b->failed) {
		*why = "out of memory";
		return NULL;
	}
	return b->p;
}

void ws_text_command_lines(FILE *f, const char *indent, const char *label, const struct ws_cmd *c,
			   const struct ws_cmds *l, const enum ws_shell *shells, size_t n)
{
	enum ws_shell used = WS_SHELL_SH;
	const char *why = NULL;
	bool escaped;
	if (ws_cmd_empty(c) && (!l || !l->n))
		return;         /* no command (a build with no index to name): its note says why */
	const char *s = ws_text_command(c, l, shells, n, &used, &why, &escaped);
	if (!s) {
		fprintf(f, "%s%s(no command can be printed safely for %s: %s)\n", indent, label,
			n ? ws_shell_title(shells[0]) : "any shell", why ? why : "?");
		return;
	}
	fprintf(f, "%s%s%s\n", indent, label, s);
	if (escaped)
		fprintf(f, "%s  (shown escaped: a word holds a control character; --json has the exact command)\n", indent);
}

void ws_text_command_release(void)
{
	ws_buf_free(&text_cmd_buf);
}

bool ws_report_shows_load(const struct ws_report *r, const struct ws_load_issue *e)
{
	return !e->minor || r->cfg->verbose;
}

size_t ws_report_loads_shown(const struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	size_t shown = 0;
	for (size_t i = 0; s->load_judged && i < s->load.nissues; i++)
		shown += ws_report_shows_load(r, &s->load.issues[i]);
	return shown;
}
