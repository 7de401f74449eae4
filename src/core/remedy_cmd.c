/* remedy_cmd.c - the commands of a remedy: the set remedy.c chose (the build first, then
 * what goes with it), as the argument vectors of one online `pip install` and of the
 * offline pair (`pip download` for the target's tags, then `pip install --no-index`).
 * Writers render them for each shell (command.c); nothing here is text for a shell.
 *
 * One command reaches the index of the build it installs: --index-url for a variant index
 * (download.pytorch.org/whl/cu128), none for PyPI. A build on PyPI beside a torch that only
 * a variant index has (bitsandbytes on Windows, where PyPI's torch is CPU-only) names that
 * index with --extra-index-url, and the torch with its local tag, so that pip takes it from
 * there and PyPI still serves the rest (doc/commands.md). */
#include <string.h>

#include "ws_compat.h"
#include "piptags.h"
#include "remedy_cmd.h"

static bool on_pypi(const struct ws_build *b)
{
	return !strcmp(b->index, "pypi");
}

/* A release page (GitHub's .../releases/tag/V) lists a project's wheels as assets: it is no
 * package index (PEP 503), so --index-url there finds nothing, and its assets' local tags
 * (+cu12torch2.8cxx11abiTRUE) are not the table's variant. Such a build gets no command. */
bool ws_remedy_release_page(const char *index)
{
	return !strncmp(index, "https://github.com/", 19) && strstr(index, "/releases/");
}

/* "torch==2.8.0+cu128": on an index of one variant the release carries its local tag, so
 * that pip replaces an installed build of the same release (==2.8.0 would match an
 * installed 2.8.0+cu126 and keep it). Beside a build on PyPI, a build of a variant index
 * carries its own tag: only that index has it. */
static void spec_of(struct ws_cmd *c, const struct ws_build *b, const struct ws_build *main)
{
	struct ws_buf w = {0};
	if (strchr(b->version, '+') || (on_pypi(main) && on_pypi(b)))
		ws_buf_printf(&w, "%s==%s", b->package, b->version);
	else
		ws_buf_printf(&w, "%s==%s+%s", b->package, b->version, on_pypi(main) ? b->variant : main->variant);
	ws_buf_add(&w, "", 1);
	if (w.failed)
		c->failed = true;
	else
		ws_cmd_add(c, w.p);
	ws_buf_free(&w);
}

static void specs_of(struct ws_cmd *c, const struct ws_build *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		spec_of(c, set[i], set[0]);
}

/* The index options: the build's own index, and beside a build on PyPI each other index a
 * member of the set comes from, once. */
static void index_words(struct ws_cmd *c, const struct ws_build *const *set, size_t n)
{
	if (!on_pypi(set[0])) {
		ws_cmd_add(c, "--index-url");
		ws_cmd_add(c, set[0]->index);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		bool named = on_pypi(set[i]);
		for (size_t k = 1; k < i && !named; k++)
			named = !strcmp(set[k]->index, set[i]->index);
		if (!named) {
			ws_cmd_add(c, "--extra-index-url");
			ws_cmd_add(c, set[i]->index);
		}
	}
}

void ws_remedy_commands(struct ws_remedy *r, const struct ws_build *const *set, size_t n,
			const struct ws_remedy_ctx *ctx)
{
	r->nshells = ws_shells_for(r->platform, ctx->windows_host, r->shells);
	ws_cmd_pip(&r->install, ctx->python_exe);
	ws_cmd_add(&r->install, "install");
	specs_of(&r->install, set, n);
	index_words(&r->install, set, n);

	ws_cmd_pip(&r->download, ctx->python_exe);
	ws_cmd_add(&r->download, "download");
	specs_of(&r->download, set, n);
	index_words(&r->download, set, n);
	ws_cmd_add(&r->download, "--only-binary=:all:");
	ws_pip_python_words(&r->download, ctx);
	ws_pip_platform_words(&r->download, set, n, r->platform, ctx);
	ws_cmd_add(&r->download, "-d");
	ws_cmd_add(&r->download, "wheels");

	ws_cmd_pip(&r->offline, ctx->python_exe);
	ws_cmd_add(&r->offline, "install");
	ws_cmd_add(&r->offline, "--no-index");
	ws_cmd_add(&r->offline, "--find-links");
	ws_cmd_add(&r->offline, "wheels");
	specs_of(&r->offline, set, n);
}
