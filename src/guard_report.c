/* guard_report.c - what the pip guard decided, for people (text) and for programs (JSON,
 * $defs/guard in man/wheelscan.schema.json): the planned changes, each new distribution's
 * verdicts, what would break and why, the decision and the cure. The cure is printed here
 * alone, as the remedy wrote it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guard.h"
#include "ws_json.h"
#include "ws_quote.h"

static const char *reason_name(enum guard_reason_kind k)
{
	switch (k) {
	case GR_FAILS: return "will-not-run";
	case GR_STOPS: return "stops-running";
	case GR_SET: return "set-breaks";
	case GR_UNREAD: return "unreadable";
	case GR_NOT_BUILT: return "not-built";
	}
	return "unknown";
}

static enum ws_verdict verdict_of(const struct guard_item *it, size_t t)
{
	return it->a && it->a->verdicts ? it->a->verdicts[t] : WS_V_NONE;
}

static void text_changes(const struct guard *g, FILE *f)
{
	fprintf(f, "wheelscan: pip would install %zu distribution%s:\n", g->nitems, g->nitems == 1 ? "" : "s");
	for (size_t k = 0; k < g->nitems; k++) {
		const struct guard_item *it = &g->items[k];
		fprintf(f, "  %-9s %s ", guard_change_name(it->change), ws_q_text(it->pip->name));
		if (it->old != SIZE_MAX && g->inst[it->old].version)
			fprintf(f, "%s -> ", ws_q_text(g->inst[it->old].version));
		fprintf(f, "%s%s%s\n", ws_q_text(it->pip->version), it->built ? " (built from source)" : "",
			it->pip->editable ? " (judged and installed as a wheel, not editable)" : "");
	}
}

static void text_verdicts(const struct guard *g, FILE *f)
{
	char drv[16];
	fprintf(f, "judged for");
	for (size_t t = 0; t < g->nt; t++)
		fprintf(f, "%s%s%s%s%s", t ? ", " : " ", g->targets[t].name, g->targets[t].label[0] ? " (" : "",
			g->targets[t].label, g->targets[t].label[0] ? ")" : "");
	fprintf(f, "%s%s:\n", g->driver_cuda ? ", driver CUDA " : "",
		g->driver_cuda ? ws_cuda_str(g->driver_cuda, drv, sizeof drv) : "");
	for (size_t k = 0; k < g->nitems; k++) {
		const struct guard_item *it = &g->items[k];
		fprintf(f, "  %s %s:", ws_q_text(it->pip->name), ws_q_text(it->pip->version));
		if (!it->a) {
			fprintf(f, " not judged\n");
			continue;
		}
		bool code = false;
		for (size_t t = 0; t < g->nt; t++)
			code |= verdict_of(it, t) != WS_V_NONE;
		if (!code) {
			fprintf(f, " no GPU code\n");
			continue;
		}
		for (size_t t = 0; t < g->nt; t++)
			fprintf(f, "%s %s on %s", t ? "," : "", ws_verdict_name(verdict_of(it, t)), g->targets[t].name);
		fprintf(f, "\n");
	}
}

void guard_report_text(const struct guard *g, FILE *f)
{
	const struct ws_config *cfg = g->cfg;
	if (!g->nitems) {
		fprintf(f, "wheelscan: pip would install nothing: every requirement is satisfied already\n");
		return;
	}
	if (!cfg->quiet) {
		text_changes(g, f);
		text_verdicts(g, f);
	}
	if (!g->blocked) {
		fprintf(f, "wheelscan: every new distribution's GPU code runs and nothing that runs now would stop%s\n",
			!cfg->pip_argv ? "" : cfg->guard_dry_run ? " (--dry-run: nothing installed)" :
			": installing exactly the files judged");
		return;
	}
	fprintf(f, "wheelscan: this would break what runs:\n");
	for (size_t r = 0; r < g->nreasons; r++)
		fprintf(f, "  - %s\n", g->reasons[r].text);
	if (g->cure)
		fprintf(f, "the cure: %s\n", g->cure);
	if (!cfg->pip_argv)
		return;
	fprintf(f, "wheelscan: %s\n", cfg->guard_dry_run ? "--dry-run: nothing installed" :
		cfg->guard_force ? "--force: installing it anyway" : "nothing was installed (--force installs it anyway)");
}

void guard_report_json(const struct guard *g, FILE *f)
{
	struct ws_buf b = {0};
	char drv[16];
	ws_buf_puts(&b, "{");
	ws_json_kv_u64(&b, "schema_version", 2);
	ws_json_key(&b, "guard");
	ws_buf_puts(&b, "{");
	ws_json_kv_str(&b, "python", g->nsites ? g->python : NULL);
	ws_json_key(&b, "site_dirs");
	ws_json_strv(&b, (const char *const *)g->sites, g->nsites);
	ws_json_key(&b, "targets");
	ws_buf_puts(&b, "[");
	for (size_t t = 0; t < g->nt; t++) {
		ws_json_str(&b, g->targets[t].name);
		ws_buf_puts(&b, ",");
	}
	ws_json_close(&b, ']');
	ws_json_kv_str(&b, "driver", g->driver_cuda ? ws_cuda_str(g->driver_cuda, drv, sizeof drv) : NULL);
	ws_json_key(&b, "changes");
	ws_buf_puts(&b, "[");
	for (size_t k = 0; k < g->nitems; k++) {
		const struct guard_item *it = &g->items[k];
		ws_buf_puts(&b, "{");
		ws_json_kv_str(&b, "action", guard_change_name(it->change));
		ws_json_kv_str(&b, "name", it->pip->name);
		ws_json_kv_str(&b, "version", it->pip->version);
		ws_json_kv_str(&b, "from_version", it->old != SIZE_MAX ? g->inst[it->old].version : NULL);
		ws_json_kv_str(&b, "url", it->pip->url);
		ws_json_kv_str(&b, "file", it->file);
		ws_json_kv_str(&b, "sha256", it->file ? it->sha256 : NULL);
		ws_json_kv_bool(&b, "built", it->built);
		ws_json_key(&b, "verdicts");
		if (!it->a) {
			ws_buf_puts(&b, "null,");
		} else {
			ws_buf_puts(&b, "{");
			for (size_t t = 0; t < g->nt; t++)
				ws_json_kv_str(&b, g->targets[t].name, ws_verdict_name(verdict_of(it, t)));
			ws_json_close(&b, '}');
		}
		ws_json_close(&b, '}');
	}
	ws_json_close(&b, ']');
	/* pip install takes away only what it replaces: the old version of each upgrade,
	 * downgrade and reinstall, uninstalled before the new one goes in */
	ws_json_key(&b, "removes");
	ws_buf_puts(&b, "[");
	for (size_t i = 0; i < g->ninst; i++) {
		const struct guard_installed *x = &g->inst[i];
		if (!x->replaced)
			continue;
		ws_buf_puts(&b, "{");
		ws_json_kv_str(&b, "name", x->name);
		ws_json_kv_str(&b, "version", x->version);
		ws_json_kv_str(&b, "path", x->a ? x->a->path : NULL);
		ws_json_close(&b, '}');
	}
	ws_json_close(&b, ']');
	ws_json_key(&b, "breaks");
	ws_buf_puts(&b, "[");
	for (size_t r = 0; r < g->nreasons; r++) {
		const struct guard_reason *x = &g->reasons[r];
		ws_buf_puts(&b, "{");
		ws_json_kv_str(&b, "kind", reason_name(x->kind));
		ws_json_kv_str(&b, "name", x->item != SIZE_MAX ? g->items[x->item].pip->name : NULL);
		ws_json_kv_str(&b, "target", x->target >= 0 && (size_t)x->target < g->nt ? g->targets[x->target].name : NULL);
		ws_json_kv_str(&b, "text", x->text);
		ws_json_close(&b, '}');
	}
	ws_json_close(&b, ']');
	ws_json_kv_str(&b, "decision", g->blocked ? "breaks" : "runs");
	ws_json_kv_bool(&b, "installed", g->installed);
	ws_json_kv_str(&b, "cure", g->cure);
	ws_json_close(&b, '}');
	ws_json_close(&b, '}');
	fprintf(f, "%.*s\n", (int)(b.len > 0 && b.p[b.len - 1] == ',' ? b.len - 1 : b.len), b.p);
	ws_buf_free(&b);
}
