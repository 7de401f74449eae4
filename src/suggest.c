/* suggest.c - wheelscan --suggest PKGS --gpu GPU [--driver VER]: with no input at all, the
 * builds of each package that run on each GPU and driver, best first, each with the
 * command that installs it. The answer an installer's "auto" backend should give: by
 * compute capability and driver, not by driver alone. --gpu auto asks the driver here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_builds.h"
#include "ws_builds_load.h"
#include "ws_cli.h"
#include "ws_json.h"
#include "ws_live.h"
#include "ws_quote.h"
#include "ws_report.h"
#include "ws_run.h"
#include "ws_suggest.h"
#include "ws_util.h"

#define SUGGEST_MAX 5

/* The platform of the builds to suggest: this machine's. */
static const char *host_platform(void)
{
#if defined(_WIN32)
	return "win_amd64";
#elif defined(__aarch64__)
	return "linux_aarch64";
#else
	return "linux_x86_64";
#endif
}

/* --gpu auto: the devices the driver here finds, after the named ones. */
static int auto_targets(const struct ws_config *cfg, struct ws_target **out, size_t *n, int *driver)
{
	char note[512];
	const struct ws_device *dev;
	struct ws_live *l = ws_live_open(0, note, sizeof note);
	size_t nd;
	*out = NULL;
	*n = 0;
	if (!l) {
		fprintf(stderr, "wheelscan: --gpu auto: %s\n", ws_q_text(note));
		return -1;
	}
	nd = ws_live_devices(l, &dev);
	if (!cfg->driver_given)
		*driver = ws_live_driver_version(l);
	if (!(*out = ws_calloc(cfg->ntargets + nd + 1, sizeof **out))) {
		ws_live_close(l);
		return -1;
	}
	for (size_t k = 0; k < cfg->ntargets; k++)
		(*out)[(*n)++] = cfg->targets[k];
	for (size_t d = 0; d < nd; d++) {
		struct ws_target *t = &(*out)[*n];
		unsigned cc = (unsigned)(dev[d].cc_major * 10 + dev[d].cc_minor);
		ws_target_set(t, cc, dev[d].name);
		(*n)++;
	}
	ws_live_close(l);
	if (nd == 0) {
		fprintf(stderr, "wheelscan: --gpu auto: the CUDA driver found no device\n");
		return -1;
	}
	return 0;
}

static void text_one(FILE *f, const char *pkg, const struct ws_target *t, const struct ws_remedy_ctx *ctx,
		     const struct ws_build *const *rank, size_t n)
{
	char c[16];
	/* the package as typed, the device's name, the table's path: escaped (ws_quote.h) */
	fprintf(f, "%s on %s%s%s%s", ws_q_text(pkg), ws_q_text(t->label[0] ? t->label : t->name), t->label[0] ? " (" : "",
		t->label[0] ? t->name : "", t->label[0] ? ")" : "");
	if (ctx->driver_cuda)
		fprintf(f, " with a driver for CUDA %s", ws_cuda_str(ctx->driver_cuda, c, sizeof c));
	fprintf(f, ", %s, from the %s:\n", ctx->platform, ws_q_text(ctx->builds->origin));
	if (!n) {
		struct ws_remedy *m = ws_remedy_choose(pkg, t, ctx);
		fprintf(f, "  %s\n", m ? ws_q_text(m->summary) : "the build table knows no build of this package");
		if (m && !ws_cmd_empty(&m->install))
			ws_text_command_lines(f, "     ", "", &m->install, NULL, m->shells, m->nshells);
		if (m && m->note)
			fprintf(f, "     note: %s\n", ws_q_text(m->note));
		ws_remedy_free(m);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct ws_remedy *m = ws_remedy_for_build(rank[i], t, ctx);
		if (!m)
			continue;
		fprintf(f, "  %zu. %s\n", i + 1, ws_q_text(m->summary));
		if (i == 0 && m->nshells && m->shells[0] != WS_SHELL_SH)
			fprintf(f, "     for %s:\n", ws_shell_title(m->shells[0]));
		ws_text_command_lines(f, "     ", "", &m->install, NULL, m->shells, m->nshells);
		if (i == 0) {
			ws_text_command_lines(f, "     ", "offline: ", &m->download, NULL, m->shells, m->nshells);
			ws_text_command_lines(f, "       ", "then: ", &m->offline, NULL, m->shells, m->nshells);
		}
		if (m->note && i == 0)
			fprintf(f, "     note: %s\n", ws_q_text(m->note));
		ws_remedy_free(m);
	}
}

static void json_one(struct ws_buf *b, const char *pkg, const struct ws_target *t, const struct ws_remedy_ctx *ctx,
		     const struct ws_build *const *rank, size_t n)
{
	char c[16];
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "package", pkg);
	ws_json_kv_str(b, "target", t->name);
	ws_json_kv_str(b, "driver", ctx->driver_cuda ? ws_cuda_str(ctx->driver_cuda, c, sizeof c) : NULL);
	ws_json_kv_str(b, "platform", ctx->platform);
	ws_json_kv_str(b, "table", ctx->builds->origin);
	ws_json_key(b, "builds");
	ws_buf_add(b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		struct ws_remedy *m = ws_remedy_for_build(rank[i], t, ctx);
		if (m)
			ws_json_remedy(b, m);
		ws_remedy_free(m);
	}
	ws_json_close(b, ']');
	ws_json_key(b, "otherwise");
	struct ws_remedy *m = n ? NULL : ws_remedy_choose(pkg, t, ctx);
	if (m)
		ws_json_remedy(b, m);
	else
		ws_buf_puts(b, "null,");
	ws_remedy_free(m);
	ws_json_close(b, '}');
}

int ws_suggest_command(struct ws_config *cfg)
{
	struct ws_builds builds;
	struct ws_remedy_ctx ctx;
	struct ws_target *owned = NULL;
	const struct ws_target *targets = cfg->targets;
	size_t nt = cfg->ntargets;
	int driver = cfg->driver_cuda, status = WS_EXIT_OK;
	char *pkgs = NULL;
	struct ws_buf b = {0};

	if (cfg->gpu_auto) {
		if (auto_targets(cfg, &owned, &nt, &driver) < 0) {
			free(owned);
			return WS_EXIT_NO_GPU;
		}
		targets = owned;
	}
	if (ws_remedy_setup(&builds, &ctx, cfg) < 0 || !ctx.builds) {
		free(owned);
		return cfg->builds ? WS_EXIT_USAGE : WS_EXIT_INPUT;
	}
	ctx.driver_cuda = driver;
	ctx.platform = host_platform();
	if (!(pkgs = ws_strdup(cfg->suggest))) {
		status = WS_EXIT_INPUT;
		goto out;
	}
	bool json = cfg->format == WS_FMT_JSON || cfg->format == WS_FMT_JSONL;
	if (json)
		ws_buf_puts(&b, "{\"suggest\":[");
	bool any = false;
	for (char *save = NULL, *p = strtok_r(pkgs, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		for (size_t k = 0; k < nt; k++) {
			const struct ws_build *rank[SUGGEST_MAX];
			size_t n = ws_builds_rank(&builds, p, ctx.platform, &targets[k], driver, rank, SUGGEST_MAX);
			if (ws_builds_package_is_asset(&builds, p))
				n = 0;   /* one asset fits the torch advised here: the remedy picks it */
			struct ws_remedy *probe = ws_remedy_choose(p, &targets[k], &ctx);
			if (!probe) {
				fprintf(stderr, "wheelscan: --suggest: the %s has no build of '%s' for %s\n",
					ws_q_text(builds.origin), ws_q_text(p), ctx.platform);
				status = WS_EXIT_USAGE;
				continue;
			}
			if (probe->kind != WS_REMEDY_INSTALL && status == WS_EXIT_OK)
				status = WS_EXIT_CHECK;      /* nothing that runs there now */
			ws_remedy_free(probe);
			if (json) {
				json_one(&b, p, &targets[k], &ctx, rank, n);
			} else {
				if (any)
					fputc('\n', stdout);
				text_one(stdout, p, &targets[k], &ctx, rank, n);
			}
			any = true;
		}
	}
	if (json) {
		ws_json_close(&b, ']');
		if (b.len && b.p[b.len - 1] == ',')
			b.len--;
		ws_buf_puts(&b, "}\n");
		fwrite(b.p, 1, b.len, stdout);
	}
out:
	free(b.p);
	free(pkgs);
	free(owned);
	ws_builds_free(&builds);
	return status;
}
