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
#include "ws_os.h"
#include "ws_quote.h"
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

/* What the interpreter of --python accepts, as pip decides it: the tags of
 * pip._internal.utils.compatibility_tags.get_supported(), the list `pip debug --verbose`
 * prints (asked directly, because pip debug warns on every call that its output is not for
 * programs), best first, and its Python version. Kept for the run: the context points here. */
static struct {
	char **platforms, **abis;
	size_t nplatforms, nabis;
	char implementation[8], version[16];
} accepted;

/* a tag word: letters, digits, '_' and '.', as PEP 425 tags are (anything else is not used) */
static bool tag_word(const char *s, size_t n)
{
	if (!n || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

static bool add_once(char ***v, size_t *n, const char *s, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i]) == len && !memcmp((*v)[i], s, len))
			return true;
	char w[72];
	memcpy(w, s, len);
	w[len] = 0;
	return *n < 4096 && ws_strv_push(v, n, w);
}

static void ask_accepted_tags(const char *python, struct ws_remedy_ctx *ctx)
{
	static const char code[] =
		"import sys\n"
		"try:\n"
		"    from pip._internal.utils.compatibility_tags import get_supported\n"
		"    tags = get_supported()\n"
		"except Exception:\n"
		"    from pip._vendor.packaging.tags import sys_tags\n"
		"    tags = list(sys_tags())\n"
		"print('%d.%d' % sys.version_info[:2])\n"
		"for t in tags: print(t)\n";
	const char *argv[] = {python, "-I", "-c", code, NULL};
	size_t cap = 1u << 20;
	char *out = ws_malloc(cap), why[256];
	if (!out)
		return;
	int rc = ws_spawn_capture(argv, out, cap, why, sizeof why);
	char *save = NULL, *line = rc == 0 ? strtok_r(out, "\n", &save) : NULL;
	unsigned major, minor;
	if (line && sscanf(line, "%2u.%3u", &major, &minor) == 2 && major >= 2)
		snprintf(accepted.version, sizeof accepted.version, "%u.%u", major, minor);
	while (line && (line = strtok_r(NULL, "\n", &save))) {
		const char *d1 = strchr(line, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
		if (!d2 || strchr(d2 + 1, '-') || !tag_word(line, (size_t)(d1 - line)) ||
		    !tag_word(d1 + 1, (size_t)(d2 - d1 - 1)) || !tag_word(d2 + 1, strlen(d2 + 1)))
			continue;
		if (!accepted.implementation[0] && d1 - line > 2 && line[0] != 'p' && d1 - line < 8)
			snprintf(accepted.implementation, sizeof accepted.implementation, "%.2s", line);
		if ((strcmp(d2 + 1, "any") &&         /* pure wheels: pip adds "any" itself */
		     !add_once(&accepted.platforms, &accepted.nplatforms, d2 + 1, strlen(d2 + 1))) ||
		    !add_once(&accepted.abis, &accepted.nabis, d1 + 1, (size_t)(d2 - d1 - 1)))
			break;
	}
	free(out);
	if (!accepted.version[0] || !accepted.nplatforms || !accepted.nabis) {
		fprintf(stderr, "wheelscan: %s could not say which wheels it accepts (%s): offline commands name the "
			"tags of the table's wheels\n", ws_q_text(python), rc == 0 ? "no tags" : why);
		return;
	}
	ctx->python_version = accepted.version;
	ctx->pip_platforms = accepted.platforms;
	ctx->npip_platforms = accepted.nplatforms;
	ctx->pip_abis = accepted.abis;
	ctx->npip_abis = accepted.nabis;
	ctx->pip_implementation = accepted.implementation[0] ? accepted.implementation : NULL;
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
	/* the guard's cure is an online command: its time is pip's, not another interpreter start */
	if (cfg->python && !cfg->pip_argv && !cfg->pip_report)
		ask_accepted_tags(cfg->python, ctx);
	return 0;
}
