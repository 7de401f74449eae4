/* remedy_asset.c - builds published as release assets, not on a package index (flash-attn's
 * wheels on its GitHub releases): the direct URL of the one wheel that fits the torch, the
 * Python and the C++ ABI in use, or an honest "no prebuilt wheel for this combination".
 * A release page is no package index: pip is only ever given the wheel's own URL.
 *
 * A row of this kind (doc/builds.md "Release assets"): index "asset:<URL of the release's
 * download folder>/", variant the local tag's CUDA and torch part ("cu12torch2.8"), requires
 * "torch==2.8.*,python>=3.9,python<3.14" (the workflow's matrix for that torch), and
 * wheel_platform the asset's platform tag. The file name is the one the release workflow
 * writes and setup.py's get_wheel_url() asks for:
 *   flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asset_row.h"

#define ASSET_PREFIX "asset:"   /* asset_row.c */


/* PyPI's torch is built with the C++11 ABI from 2.7 on (doc/builds.md "Release assets":
 * libc10.so's c10::Error constructor in PyPI's 2.5.1 takes the old std::string, in 2.15.0
 * std::__cxx11::basic_string; 2.7.0 is the first release on manylinux_2_28), and an
 * extension must match it, else the import fails on an undefined symbol. */
bool ws_torch_cxx11abi(const char *torch_version)
{
	return ws_version_cmp(torch_version, "2.7.0") >= 0;
}


/* "flash-attn" -> "flash_attn": a wheel file name's distribution part (PEP 427 escaping). */
static void dist_part(struct ws_buf *w, const char *package)
{
	for (const char *p = package; *p; p++)
		ws_buf_add(w, *p == '-' || *p == '.' ? "_" : p, 1);
}

/* The asset's local version "2.8.3+cu12torch2.8cxx11abiTRUE". */
static char *local_version(const struct ws_build *b, bool cxx11abi)
{
	struct ws_buf w = {0};
	ws_buf_printf(&w, "%s+%scxx11abi%s", b->version, b->variant, cxx11abi ? "TRUE" : "FALSE");
	ws_buf_add(&w, "", 1);
	if (w.failed) {
		ws_buf_free(&w);
		return NULL;
	}
	return w.p;
}

char *ws_asset_url(const struct ws_build *b, const char *python_version, bool cxx11abi)
{
	struct ws_buf w = {0};
	unsigned major, minor;
	if (!ws_asset_row_ok(b) || !python_version || !ws_major_minor(python_version, &major, &minor))
		return NULL;
	ws_buf_puts(&w, b->index + sizeof ASSET_PREFIX - 1);
	dist_part(&w, b->package);
	ws_buf_printf(&w, "-%s+%scxx11abi%s-cp%u%u-cp%u%u-%s.whl", b->version, b->variant, cxx11abi ? "TRUE" : "FALSE",
		      major, minor, major, minor, b->wheel_platform);
	ws_buf_add(&w, "", 1);
	if (w.failed) {
		ws_buf_free(&w);
		return NULL;
	}
	return w.p;
}

/* The commands for asset row b: the wheel's URL online; offline, that one file fetched for
 * the target's Python and platform (pip checks a direct URL's tags too), then installed from
 * the folder. --no-deps: torch is the user's own, chosen first, and must stay. */
static int asset_commands(struct ws_remedy *r, const struct ws_build *b, const char *url, bool abi,
			  const struct ws_remedy_ctx *ctx)
{
	char py[16], abitag[16];
	unsigned major, minor;
	char *local = local_version(b, abi);
	struct ws_buf spec = {0};
	if (!local || !ws_major_minor(ctx->python_version, &major, &minor)) {
		free(local);
		return -1;
	}
	snprintf(py, sizeof py, "%u.%u", major, minor);
	snprintf(abitag, sizeof abitag, "cp%u%u", major, minor);
	ws_buf_printf(&spec, "%s==%s", b->package, local);
	ws_buf_add(&spec, "", 1);
	free(local);
	if (spec.failed) {
		ws_buf_free(&spec);
		return -1;
	}
	ws_cmd_pip(&r->install, ctx->python_exe);
	ws_cmd_add(&r->install, "install");
	ws_cmd_add(&r->install, url);

	ws_cmd_pip(&r->download, ctx->python_exe);
	ws_cmd_add(&r->download, "download");
	ws_cmd_add(&r->download, "--no-deps");
	ws_cmd_add(&r->download, "--only-binary=:all:");
	ws_cmd_add(&r->download, "--python-version");
	ws_cmd_add(&r->download, py);
	ws_cmd_add(&r->download, "--implementation");
	ws_cmd_add(&r->download, "cp");
	ws_cmd_add(&r->download, "--abi");
	ws_cmd_add(&r->download, abitag);
	ws_cmd_add(&r->download, "--platform");
	ws_cmd_add(&r->download, b->wheel_platform);
	ws_cmd_add(&r->download, "-d");
	ws_cmd_add(&r->download, "wheels");
	ws_cmd_add(&r->download, url);

	ws_cmd_pip(&r->offline, ctx->python_exe);
	ws_cmd_add(&r->offline, "install");
	ws_cmd_add(&r->offline, "--no-index");
	ws_cmd_add(&r->offline, "--find-links");
	ws_cmd_add(&r->offline, "wheels");
	ws_cmd_add(&r->offline, "--no-deps");
	ws_cmd_add(&r->offline, spec.p);
	ws_buf_free(&spec);
	return r->install.failed || r->download.failed || r->offline.failed ? -1 : 0;
}

/* " for Python 3.9 to 3.13" */
static void put_pythons(struct ws_buf *s, const struct ws_build *b)
{
	struct ws_asset_terms at;
	if (ws_asset_terms(b, &at)) {
		unsigned hi = at.py_hi % 100 ? at.py_hi - 1 : at.py_hi;
		ws_buf_printf(s, "Python %u.%u to %u.%u", at.py_lo / 100, at.py_lo % 100, hi / 100, hi % 100);
	}
}

/* The remedy of installing asset row b, made for torch torch_version (the torch the user is
 * to have: the table's answer, or the row's own torch minor for --suggest). */
static int asset_remedy_of(struct ws_remedy *r, const struct ws_build *b, bool abi, const struct ws_target *t,
			   const struct ws_remedy_ctx *ctx, const char *why_torch)
{
	struct ws_buf s = {0}, note = {0};
	struct ws_asset_terms at;
	char *url = NULL, c1[16];
	if (!ws_asset_terms(b, &at))
		goto fail;
	r->kind = WS_REMEDY_INSTALL;
	r->verdict = ws_build_verdict(b, t, ctx->driver_cuda);
	r->cuda = b->cuda;
	r->driver_floor = ws_build_driver_need(b, t);
	if (!r->driver_floor)
		r->driver_floor = ws_build_driver_floor(b->cuda);
	r->nshells = ws_shells_for(b->platform, ctx->windows_host, r->shells);
	if (!(r->package = ws_strdup(b->package)) || !(r->platform = ws_strdup(b->platform)) ||
	    !(r->variant = ws_strdup(b->variant)) || !(r->provenance = ws_strdup(b->provenance)))
		goto fail;
	r->pkgs[0].name = ws_strdup(b->package);
	r->pkgs[0].version = local_version(b, abi);
	r->npkgs = 1;
	if (!r->pkgs[0].name || !r->pkgs[0].version)
		goto fail;
	ws_buf_printf(&s, "%s %s: the release asset built with CUDA %s for torch %u.%u (C++11 ABI %s), %s, ",
		      b->package, b->version, ws_cuda_str(b->cuda, c1, sizeof c1), at.torch_major, at.torch_minor,
		      abi ? "TRUE" : "FALSE", why_torch);
	ws_buf_printf(&s, "%s %s", r->verdict == WS_V_NATIVE ? "runs natively on" : r->verdict == WS_V_COMPATIBLE ?
		      "runs (compatible SASS) on" : "runs through PTX JIT on", t->name);
	if (strcmp(b->provenance, "scanned"))
		ws_buf_puts(&s, " [declared by the vendor's build scripts, not read from a wheel]");
	if (ctx->python_version) {
		if (!(url = ws_asset_url(b, ctx->python_version, abi)) || !(r->index = ws_strdup(url)) ||
		    asset_commands(r, b, url, abi, ctx) < 0)
			goto fail;
		ws_buf_printf(&note, "a wheel on GitHub's release page, not on a package index: pip gets its URL; "
			      "torch %u.%u must be installed first and stays", at.torch_major, at.torch_minor);
	} else {
		/* no Python known (--suggest): the wheel differs per Python, so no command */
		if (!(r->index = ws_strdup(b->index + sizeof ASSET_PREFIX - 1)))
			goto fail;
		ws_buf_puts(&note, "one wheel per Python: ");
		put_pythons(&note, b);
		ws_buf_puts(&note, "; scan the wheel or give --python for the command");
	}
	ws_buf_add(&s, "", 1);
	ws_buf_add(&note, "", 1);
	if (s.failed || note.failed || !(r->summary = ws_strdup(s.p)) || !(r->note = ws_strdup(note.p)))
		goto fail;
	ws_buf_free(&s);
	ws_buf_free(&note);
	free(url);
	return 0;
fail:
	ws_buf_free(&s);
	ws_buf_free(&note);
	free(url);
	return -1;                         /* the caller frees r */
}

int ws_asset_fill_for_build(struct ws_remedy *r, const struct ws_build *b, const struct ws_target *t,
			    const struct ws_remedy_ctx *ctx)
{
	struct ws_asset_terms at;
	char torch[16];
	if (!ws_asset_terms(b, &at))
		return -1;
	snprintf(torch, sizeof torch, "%u.%u.0", at.torch_major, at.torch_minor);
	return asset_remedy_of(r, b, ws_torch_cxx11abi(torch), t, ctx, "for PyPI's torch of that minor");
}

/* The torch a scanned asset wheel was chosen for, from its local tag
 * "cu12torch2.8cxx11abiTRUE": "2.8.0" into torch, the CUDA major and the ABI. */
static bool local_torch(const char *local, char *torch, size_t len, int *cuda, bool *abi)
{
	unsigned cu, major, minor;
	int n = 0;
	if (!local || strspn(local, "abcdefghijklmnopqrstuvwxyzTRUEFALS0123456789.") != strlen(local) ||
	    sscanf(local, "cu%3utorch%3u.%3ucxx11abi%n", &cu, &major, &minor, &n) != 3 || !n)
		return false;
	if (!strcmp(local + n, "TRUE"))
		*abi = true;
	else if (!strcmp(local + n, "FALSE"))
		*abi = false;
	else
		return false;
	snprintf(torch, len, "%u.%u.0", major, minor);
	*cuda = (int)cu * 1000;
	return cu > 0;
}

/* The newest asset row of package for platform that runs on t and fits the torch (and the
 * Python, when known); NULL when none. */
static const struct ws_build *fitting_asset(const struct ws_builds *bs, const char *package, const char *platform,
					    const char *torch_version, int torch_cuda, const char *python_version,
					    const struct ws_target *t, int driver)
{
	const struct ws_build *best = NULL;
	const uint32_t *rows;
	size_t n = ws_builds_of_package(bs, package, &rows);
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &bs->rows[rows[i]];
		if (strcmp(r->platform, platform) || !ws_asset_fits(r, torch_version, torch_cuda, python_version) ||
		    !ws_verdict_runs(ws_build_verdict(r, t, driver)))
			continue;
		if (!best || ws_version_cmp(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

int ws_asset_fill_choice(struct ws_remedy *r, const char *package, const struct ws_target *t,
			 const struct ws_remedy_ctx *ctx, const struct ws_asset_torch *torch)
{
	const char *platform = ctx->platform ? ctx->platform : "linux_x86_64";
	const uint32_t *rows;
	size_t n = ws_builds_of_package(ctx->builds, package, &rows);
	const struct ws_build *b = NULL;
	struct ws_buf s = {0}, why = {0};
	char c1[16];
	int rc = -1;

	if (n)
		package = ctx->builds->rows[rows[0]].package;   /* the table's spelling, checked */
	char mine[16];
	int mine_cuda = 0;
	bool mine_abi = false;
	if (local_torch(ctx->artifact_local, mine, sizeof mine, &mine_cuda, &mine_abi)) {
		/* the wheel judged was chosen for the torch in use: keep that torch and its ABI */
		b = fitting_asset(ctx->builds, package, platform, mine, mine_cuda, ctx->python_version, t, ctx->driver_cuda);
		/* the tag as parsed, never as the file spelled it */
		ws_buf_printf(&why, "for the torch this wheel was made for (its tag: torch %.*s, CUDA %d, C++11 ABI %s)",
			      (int)(strlen(mine) - 2), mine, mine_cuda / 1000, mine_abi ? "TRUE" : "FALSE");
		ws_buf_add(&why, "", 1);
		if (why.failed)
			goto out;
		if (b) {
			rc = asset_remedy_of(r, b, mine_abi, t, ctx, why.p);
			goto out;
		}
	} else if (torch && torch->version) {
		b = fitting_asset(ctx->builds, package, platform, torch->version, torch->cuda, ctx->python_version,
				  t, torch->driver_first ? 0 : ctx->driver_cuda);
		ws_buf_printf(&why, "for torch %s (CUDA %s), the torch this table advises for %s", torch->version,
			      ws_cuda_str(torch->cuda, c1, sizeof c1), t->name);
		ws_buf_add(&why, "", 1);
		if (why.failed)
			goto out;
		if (b) {
			rc = asset_remedy_of(r, b, ws_torch_cxx11abi(torch->version), t, ctx, why.p);
			goto out;
		}
	}
	/* none fits: say so, with what the user would need, never a URL that may not exist */
	r->kind = WS_REMEDY_NONE;
	ws_buf_printf(&s, "no prebuilt %s wheel for this combination", package);
	if (mine_cuda)
		ws_buf_printf(&s, " (torch %.*s, CUDA %d", (int)(strlen(mine) - 2), mine, mine_cuda / 1000);
	else if (torch && torch->version)
		ws_buf_printf(&s, " (torch %s, CUDA %s", torch->version, ws_cuda_str(torch->cuda, c1, sizeof c1));
	else
		ws_buf_puts(&s, " (no torch build in the table runs there");
	if (ctx->python_version)
		ws_buf_printf(&s, ", Python %s", ctx->python_version);
	ws_buf_printf(&s, ", %s, %s)", platform, t->name);
	/* the newest asset that does run on t, whatever torch it needs */
	const struct ws_build *any = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *x = &ctx->builds->rows[rows[i]];
		struct ws_asset_terms at, bt;
		if (strcmp(x->platform, platform) || !ws_asset_terms(x, &at) || !ws_verdict_runs(ws_build_verdict(x, t, ctx->driver_cuda)))
			continue;
		if (!any || ws_version_cmp(x->version, any->version) > 0 ||
		    (!ws_version_cmp(x->version, any->version) && ws_asset_terms(any, &bt) &&
		     at.torch_major * 1000 + at.torch_minor > bt.torch_major * 1000 + bt.torch_minor))
			any = x;
	}
	struct ws_asset_terms at;
	if (any && ws_asset_terms(any, &at))
		ws_buf_printf(&s, "; the newest that runs there, %s %s, is built for torch %u.%u with CUDA %u", any->package,
			      any->version, at.torch_major, at.torch_minor, at.cuda_major);
	/* flash-attn's README: "pip install flash-attn --no-build-isolation" builds it from source */
	ws_buf_printf(&s, "; to build it from source: pip install %s --no-build-isolation (needs the CUDA toolkit)",
		      package);
	ws_buf_add(&s, "", 1);
	if (!s.failed && (r->package = ws_strdup(package)) && (r->platform = ws_strdup(platform)) &&
	    (r->summary = ws_strdup(s.p)))
		rc = 0;
out:
	ws_buf_free(&s);
	ws_buf_free(&why);
	return rc;                         /* on -1 the caller frees r */
}

bool ws_builds_package_is_asset(const struct ws_builds *bs, const char *package)
{
	const uint32_t *rows;
	size_t n = ws_builds_of_package(bs, package, &rows);
	for (size_t i = 0; i < n; i++)
		if (ws_build_is_asset(&bs->rows[rows[i]]))
			return true;
	return false;
}
