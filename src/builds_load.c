/* builds_load.c - the build table wheelscan uses: the one it carries (share/builds.tsv,
 * embedded at build time by scripts/embed-table) or the file --builds names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ws_builds.h"
#include "ws_builds_load.h"
#include "ws_cli.h"
#include "ws_util.h"

extern const unsigned char ws_builds_table[];
extern const size_t ws_builds_table_len;

/* "# made: 2026-12-01" in the table's comments, for the origin it is named by. */
static void made_date(const char *text, size_t len, char *out, size_t outlen)
{
	const char *p = text, *end = text + len;
	out[0] = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 8 && !memcmp(p, "# made: ", 8)) {
			size_t k = n - 8 < outlen - 1 ? n - 8 : outlen - 1;
			memcpy(out, p + 8, k);
			out[k] = 0;
			for (char *c = out; *c; c++)
				if (!((*c >= '0' && *c <= '9') || *c == '-'))
					*c = '?';
			return;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

int ws_builds_load(const char *path, struct ws_builds *out, struct ws_err *err)
{
	char origin[256], date[16];
	struct ws_err why = {0};
	if (!path) {
		made_date((const char *)ws_builds_table, ws_builds_table_len, date, sizeof date);
		snprintf(origin, sizeof origin, "bundled build table%s%s%s", date[0] ? " (" : "", date, date[0] ? ")" : "");
		if (ws_builds_parse((const char *)ws_builds_table, ws_builds_table_len, origin, out, &why) < 0) {
			ws_err_set(err, why.code, "the bundled build table: %s", why.msg);
			return -1;
		}
		return 0;
	}
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0;
	int rc = -1;
	if (!f) {
		ws_err_set(err, WS_E_IO, "--builds %s: %s", path, strerror(errno));
		return -1;
	}
	if (!(buf = ws_malloc(WS_BUILDS_MAX_BYTES + 1))) {
		ws_err_set(err, WS_E_MEMORY, "--builds %s: out of memory", path);
		goto out;
	}
	n = fread(buf, 1, WS_BUILDS_MAX_BYTES + 1, f);
	if (ferror(f)) {
		ws_err_set(err, WS_E_IO, "--builds %s: read error", path);
		goto out;
	}
	if (n > WS_BUILDS_MAX_BYTES) {
		ws_err_set(err, WS_E_LIMIT, "--builds %s: over 16 MiB", path);
		goto out;
	}
	made_date(buf, n, date, sizeof date);
	snprintf(origin, sizeof origin, "build table %s", path);
	if (ws_builds_parse(buf, n, origin, out, &why) < 0) {
		ws_err_set(err, why.code, "--builds %s: %s", path, why.msg);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	fclose(f);
	return rc;
}

/* The build table and the context remedies are chosen in: the driver given, and the
 * interpreter of --python (its commands then run "PYTHON -m pip"). A table that --builds
 * names and that cannot be read is a usage error; the bundled one failing only loses the
 * remedies, and says so. */
int ws_remedy_setup(struct ws_builds *b, struct ws_remedy_ctx *ctx, const struct ws_config *cfg)
{
	struct ws_err err = {0};
	memset(ctx, 0, sizeof *ctx);
	if (ws_builds_load(cfg->builds, b, &err) < 0) {
		fprintf(stderr, "wheelscan: %s\n", err.msg);
		if (cfg->builds)
			return -1;
		return 0;
	}
	ctx->builds = b;
	ctx->driver_cuda = cfg->driver_cuda;
	ctx->python_exe = cfg->python;
#ifdef _WIN32
	/* an interpreter run here is a Windows one: its commands are for cmd.exe and PowerShell */
	ctx->windows_host = cfg->python != NULL;
#else
	/* so is a python.exe run here (under Wine): its commands are for Windows' shells */
	size_t n = cfg->python ? strlen(cfg->python) : 0;
	ctx->windows_host = n > 4 && !strcasecmp(cfg->python + n - 4, ".exe");
#endif
	return 0;
}
