/* guard_judge.c - the pip guard's judgement: the environment as it is (every installed
 * distribution) and as it would be (those pip keeps, plus the new wheels), judged by the
 * same scan, conclusion and set judge as `wheelscan -r SITE`. What pip may install is what
 * takes nothing away: each new distribution's GPU code runs on every target, none replaces
 * code that runs with none, and the set raises no problem it did not have. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "ws_builds.h"
#include "ws_conclude.h"
#include "ws_env.h"
#include "ws_inputs.h"
#include "ws_quote.h"
#include "ws_run.h"

const char *guard_change_name(enum guard_change c)
{
	static const char *const names[] = {"install", "upgrade", "downgrade", "reinstall"};
	return names[c];
}

static bool add_reason(struct guard *g, enum guard_reason_kind kind, size_t item, int target, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static bool add_reason(struct guard *g, enum guard_reason_kind kind, size_t item, int target, const char *fmt, ...)
{
	if (g->nreasons >= 100000 ||
	    !ws_grow((void **)&g->reasons, &g->reasons_cap, (uint32_t)g->nreasons + 1, sizeof *g->reasons))
		return false;
	char line[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	struct guard_reason *r = &g->reasons[g->nreasons];
	if (!(r->text = ws_strdup(line)))
		return false;
	r->kind = kind;
	r->item = item;
	r->target = target;
	g->nreasons++;
	g->blocked = true;
	return true;
}

/* Judged as a scan judges it, its findings dropped: the guard decides by verdicts. */
static void conclude(struct guard *g, struct ws_artifact *a, const struct ws_remedy_ctx *remedy)
{
	struct ws_conclude c = {.cfg = g->cfg, .targets = g->targets, .nt = g->nt, .driver_cuda = g->driver_cuda,
				.remedy = remedy && remedy->builds ? remedy : NULL};
	struct ws_result res = {.a = a};
	ws_conclude(&c, &res);
	ws_findings_free(&res.findings);
}

/* Every distribution installed in the interpreter's site directories, scanned and judged. */
static int scan_installed(struct guard *g, const struct ws_scan_opts *so, const struct ws_remedy_ctx *remedy)
{
	struct ws_config c = *g->cfg;
	c.paths = NULL, c.npaths = 0, c.files_from = NULL, c.shard_n = 0;
	c.dirs = (const char **)g->sites;
	c.ndirs = g->nsites;
	struct ws_inputs in;
	if (ws_inputs_collect(&c, &in) < 0)
		return WS_EXIT_INPUT;
	int rc = 0;
	for (size_t i = 0; i < in.n && !rc; i++) {
		if (in.v[i].kind != WS_INPUT_DIST && in.v[i].kind != WS_INPUT_CONDA)
			continue;              /* loose files: pip neither adds nor takes them */
		struct ws_artifact *a = in.v[i].kind == WS_INPUT_DIST
			? ws_scan_distribution(in.v[i].path, in.v[i].site, g->cfg->verify, so)
			: ws_scan_conda_package(in.v[i].path, in.v[i].site, g->cfg->verify, so);
		if (!a || !ws_grow((void **)&g->inst, &g->inst_cap, (uint32_t)g->ninst + 1, sizeof *g->inst)) {
			ws_artifact_free(a);
			rc = WS_EXIT_INPUT;
			fprintf(stderr, "wheelscan: out of memory\n");
			break;
		}
		conclude(g, a, remedy);
		struct guard_installed *x = &g->inst[g->ninst++];
		memset(x, 0, sizeof *x);
		x->a = a;
		x->name = a->wheel ? (a->wheel->meta_name ? a->wheel->meta_name : a->wheel->name) : NULL;
		x->version = a->wheel ? (a->wheel->meta_version ? a->wheel->meta_version : a->wheel->version) : NULL;
	}
	ws_inputs_free(&in);
	return rc;
}

/* Which installed distribution each item replaces, and how. */
static void match_installed(struct guard *g)
{
	for (size_t k = 0; k < g->nitems; k++) {
		struct guard_item *it = &g->items[k];
		it->old = SIZE_MAX;
		it->change = CH_INSTALL;
		for (size_t i = 0; i < g->ninst; i++) {
			struct guard_installed *x = &g->inst[i];
			if (!x->name || !ws_pip_same_name(x->name, it->pip->name))
				continue;
			x->replaced = true;
			it->old = i;
			int c = x->version ? ws_pip_version_cmp(it->pip->version, x->version) : 1;
			it->change = c > 0 ? CH_UPGRADE : c < 0 ? CH_DOWNGRADE : CH_REINSTALL;
			break;
		}
	}
}

static bool runs(enum ws_verdict v)
{
	return v == WS_V_NATIVE || v == WS_V_COMPATIBLE || v == WS_V_JIT;
}

static const char *target_words(const struct ws_target *t, char *buf, size_t len)
{
	if (t->label[0])
		snprintf(buf, len, "%s (%s)", t->name, t->label);
	else
		snprintf(buf, len, "%s", t->name);
	return buf;
}

/* Reasons a new distribution gives on its own. */
static bool judge_items(struct guard *g)
{
	for (size_t k = 0; k < g->nitems; k++) {
		struct guard_item *it = &g->items[k];
		char nm[600], tw[80];
		snprintf(nm, sizeof nm, "%s %s", ws_q_text(it->pip->name), ws_q_text(it->pip->version));
		if (!it->a) {
			if (!add_reason(g, GR_NOT_BUILT, k, -1, "%s is %s and was not built into a wheel (--no-build): "
					"nothing to judge it by", nm, it->pip->source == WS_PIP_ARCHIVE ? "an sdist" :
					it->pip->source == WS_PIP_DIR ? "a local project" : "a VCS checkout"))
				return false;
			continue;
		}
		if (ws_artifact_unread(it->a)) {
			if (!add_reason(g, GR_UNREAD, k, -1, "%s could not be read: %s", nm,
					it->a->nerrors ? ws_q_text(it->a->errors[0].message) : "no device code read"))
				return false;
			continue;
		}
		const struct ws_artifact *old = it->old != SIZE_MAX ? g->inst[it->old].a : NULL;
		for (size_t t = 0; t < g->nt; t++) {
			enum ws_verdict v = it->a->verdicts ? it->a->verdicts[t] : WS_V_NONE;
			target_words(&g->targets[t], tw, sizeof tw);
			if (ws_verdict_fails(v)) {
				const char *why = it->a->judged && it->a->judged[t].why ? it->a->judged[t].why : NULL;
				if (!add_reason(g, GR_FAILS, k, (int)t, "%s will NOT run on %s (%s)%s%s", nm, tw,
						ws_verdict_name(v), why ? ": " : "", why ? ws_q_text(why) : ""))
					return false;
			} else if (v == WS_V_NONE && old && old->verdicts && runs(old->verdicts[t])) {
				const char *cpu = ws_artifact_cpu_only(it->a);
				if (!add_reason(g, GR_STOPS, k, (int)t, "%s would replace %s %s, whose GPU code runs on %s, "
						"with no GPU code at all%s%s", nm, ws_q_text(g->inst[it->old].name),
						ws_q_text(g->inst[it->old].version), tw, cpu ? ": " : "",
						cpu ? ws_q_text(cpu) : ""))
					return false;
			}
		}
	}
	return true;
}

/* The same problem: its kind, its target and the distribution it is about, by name. */
static bool same_issue(const struct ws_envset *a, const struct ws_env_issue *x, const struct ws_envset *b,
		       const struct ws_env_issue *y)
{
	return x->kind == y->kind && x->target == y->target &&
	       ws_pip_same_name(a->pkgs[x->pkg].name, b->pkgs[y->pkg].name) &&
	       !strcmp(a->pkgs[x->pkg].version ? a->pkgs[x->pkg].version : "",
		       b->pkgs[y->pkg].version ? b->pkgs[y->pkg].version : "");
}

/* The set's problems that are new: those the environment does not have today. */
static bool judge_set(struct guard *g)
{
	for (size_t i = 0; i < g->after.nissues; i++) {
		const struct ws_env_issue *x = &g->after.issues[i];
		bool old = false;
		for (size_t k = 0; k < g->before.nissues && !old; k++)
			old = same_issue(&g->after, x, &g->before, &g->before.issues[k]);
		if (old)
			continue;
		size_t item = SIZE_MAX;
		for (size_t k = 0; k < g->nitems && item == SIZE_MAX; k++)
			if (ws_pip_same_name(g->after.pkgs[x->pkg].name, g->items[k].pip->name))
				item = k;
		char tw[80] = "every target";
		if (x->target >= 0 && (size_t)x->target < g->nt)
			target_words(&g->targets[x->target], tw, sizeof tw);
		if (!add_reason(g, GR_SET, item, x->target, "on %s: %s", tw, ws_q_text(x->what)))
			return false;
	}
	return true;
}

/* The one command that installs a set that runs: the set's fix, else the remedy of the
 * first new distribution that does not run; rendered for the first shell it is for that
 * can carry it (ws_command.h), never cut. */
static void choose_cure(struct guard *g)
{
	struct ws_buf b = {0};
	enum ws_shell used;
	for (size_t t = 0; t < g->nt && !b.len; t++)
		if (g->after.fix && g->after.fix[t].n)
			ws_cmds_render_first(&b, &g->after.fix[t], g->after.fix_shells, g->after.nfix_shells, &used, NULL);
	for (size_t r = 0; r < g->nreasons && !b.len; r++) {
		const struct guard_reason *x = &g->reasons[r];
		if (x->kind != GR_FAILS || x->item == SIZE_MAX)
			continue;
		const struct ws_artifact *a = g->items[x->item].a;
		const struct ws_remedy *m = a && a->judged ? a->judged[x->target].remedy : NULL;
		if (m && !ws_cmd_empty(&m->install))
			ws_cmd_render_first(&b, &m->install, m->shells, m->nshells, &used, NULL);
	}
	if (b.len && !b.failed)
		g->cure = ws_strdup(b.p);
	ws_buf_free(&b);
}

int guard_judge(struct guard *g, const struct ws_remedy_ctx *remedy)
{
	/* no budget: each artifact keeps its own; no pool: one at a time, decoded in place */
	struct ws_scan_opts so = {.lim = &g->cfg->lim, .want_kernels = g->cfg->want_kernels};
	int rc = scan_installed(g, &so, remedy);
	if (rc)
		return rc;
	match_installed(g);
	for (size_t k = 0; k < g->nitems; k++) {
		struct guard_item *it = &g->items[k];
		if (!it->file)
			continue;
		uint64_t progress = 0;
		if (!(it->a = ws_scan_path(it->file, g->cfg, &so, &progress))) {
			fprintf(stderr, "wheelscan: out of memory\n");
			return WS_EXIT_INPUT;
		}
		conclude(g, it->a, remedy);
	}
	bool ok = true;
	for (size_t i = 0; i < g->ninst && ok; i++) {
		ok = ws_envset_add(&g->before, g->inst[i].a, g->nt) == 0;
		if (ok && !g->inst[i].replaced)
			ok = ws_envset_add(&g->after, g->inst[i].a, g->nt) == 0;
	}
	for (size_t k = 0; k < g->nitems && ok; k++)
		if (g->items[k].a)
			ok = ws_envset_add(&g->after, g->items[k].a, g->nt) == 0;
	ok = ok && ws_envset_judge(&g->before, g->targets, g->nt, remedy && remedy->builds ? remedy : NULL) == 0 &&
	     ws_envset_judge(&g->after, g->targets, g->nt, remedy && remedy->builds ? remedy : NULL) == 0 &&
	     judge_items(g) && judge_set(g);
	if (!ok) {
		fprintf(stderr, "wheelscan: out of memory\n");
		return WS_EXIT_INPUT;
	}
	choose_cure(g);
	return 0;
}

void guard_judge_free(struct guard *g)
{
	for (size_t i = 0; i < g->ninst; i++)
		ws_artifact_free(g->inst[i].a);
	free(g->inst);
	for (size_t k = 0; k < g->nitems; k++) {
		ws_artifact_free(g->items[k].a);
		free(g->items[k].file);
	}
	free(g->items);
	for (size_t r = 0; r < g->nreasons; r++)
		free(g->reasons[r].text);
	free(g->reasons);
	ws_envset_free(&g->before);
	ws_envset_free(&g->after);
	free(g->cure);
}
