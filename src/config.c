/* config.c - [tool.wheelscan] from --config FILE or the nearest pyproject.toml: found,
 * read (bounded), parsed by core/toml.c, and applied to the command line's settings. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws_cli.h"
#include "ws_compat.h"
#include "ws_quote.h"
#include "ws_toml.h"
#include "ws_util.h"
#include "ws_readfile.h"

#define CONFIG_MAX (1u << 20)          /* a pyproject.toml is kilobytes; more is not one */

/* The first pyproject.toml in the working directory or above it, or NULL. */
static char *find_pyproject(void)
{
	char dir[PATH_MAX];
	if (!getcwd(dir, sizeof dir))
		return NULL;
	for (size_t step = 0; step < PATH_MAX / 2; step++) {
		char path[PATH_MAX + 16];
		snprintf(path, sizeof path, "%s%spyproject.toml", dir, strcmp(dir, "/") ? "/" : "");
		if (access(path, F_OK) == 0)
			return ws_strdup(path);
		char *slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/"))
			return NULL;
		slash[slash == dir] = '\0';   /* "/a" -> "/", "/a/b" -> "/a" */
	}
	return NULL;
}

/* A string or an array of strings joined by commas (require = "sm_80,sm_90" or
 * ["sm_80", "sm_90"]). */
static char *joined(const struct ws_toml_entry *e)
{
	if (e->type == WS_TOML_STRING)
		return ws_strdup(e->str);
	struct ws_buf b = {0};
	for (size_t i = 0; i < e->nitems; i++) {
		if (i)
			ws_buf_add(&b, ",", 1);
		ws_buf_puts(&b, e->items[i]);
	}
	ws_buf_add(&b, "", 1);
	if (b.failed) {
		ws_buf_free(&b);
		return NULL;
	}
	return b.p;
}

static int apply(struct ws_config *cfg, const struct ws_toml_entry *e, bool cli_require, struct ws_err *err)
{
	struct ws_err inner = {0};
	if (!strcmp(e->key, "require-ptx")) {
		if (e->type != WS_TOML_BOOL)
			return ws_err_set(err, WS_E_FORMAT, "line %u: require-ptx is true or false", e->line);
		if (e->b)
			cfg->require_ptx = true;  /* the command line has no --no-require-ptx to undo */
		return 0;
	}
	if (!strcmp(e->key, "require")) {
		if (e->type == WS_TOML_BOOL)
			return ws_err_set(err, WS_E_FORMAT, "line %u: require is a list of GPUs", e->line);
		if (cli_require)
			return 0;                 /* --require on the command line wins */
		char *list = joined(e);
		if (!list)
			return ws_err_set(err, WS_E_MEMORY, "out of memory");
		int rc = ws_targets_parse_list(list, &cfg->require, &cfg->nrequire, &inner);
		free(list);
		if (rc < 0)
			return ws_err_set(err, inner.code, "line %u: require: %.200s", e->line, inner.msg);
		return 0;
	}
	bool ignore = !strcmp(e->key, "ignore");
	if (ignore || !strcmp(e->key, "select")) {
		if (e->type == WS_TOML_BOOL)
			return ws_err_set(err, WS_E_FORMAT, "line %u: %s is a list of checks", e->line, e->key);
		size_t n = e->type == WS_TOML_STRING ? 1 : e->nitems;
		for (size_t i = 0; i < n; i++) {
			const char *s = e->type == WS_TOML_STRING ? e->str : e->items[i];
			int rc = ignore ? ws_check_rules_ignore(&cfg->rules, s, &inner)
					: ws_check_rules_select(&cfg->rules, s, &inner);
			if (rc < 0)
				return ws_err_set(err, inner.code, "line %u: %.200s", e->line, inner.msg);
		}
		return 0;
	}
	return ws_err_set(err, WS_E_FORMAT, "line %u: unknown key '%s' (require, require-ptx, ignore, select)", e->line,
			ws_q_text(e->key));
}

int ws_config_read(struct ws_config *cfg, const char *file, bool cli_require, struct ws_err *err)
{
	char *path = file ? ws_strdup(file) : find_pyproject();
	if (!path)
		return file ? ws_err_set(err, WS_E_MEMORY, "out of memory") : 0;
	size_t len;
	char *text = ws_read_small(path, CONFIG_MAX, &len);
	if (!text) {
		ws_err_set(err, errno == EFBIG ? WS_E_LIMIT : WS_E_IO, "cannot read '%s': %s", ws_q_text(path),
			 errno == EFBIG ? "not a regular file of at most 1 MiB" : strerror(errno));
		free(path);
		return -1;
	}
	struct ws_toml_table t;
	struct ws_err inner = {0};
	int rc = ws_toml_read_table(text, len, "tool.wheelscan", &t, &inner);
	free(text);
	if (rc < 0) {
		ws_err_set(err, inner.code, "'%s': %s", ws_q_text(path), inner.msg);
		free(path);
		return -1;
	}
	if (!t.found && file) {
		ws_err_set(err, WS_E_FORMAT, "'%s' has no [tool.wheelscan] table", ws_q_text(path));
		free(path);
		return -1;
	}
	for (size_t i = 0; i < t.n; i++)
		if (apply(cfg, &t.v[i], cli_require, &inner) < 0) {
			ws_err_set(err, inner.code, "'%s': %s", ws_q_text(path), inner.msg);
			ws_toml_table_free(&t);
			free(path);
			return -1;
		}
	if (t.found)
		cfg->config_path = path;
	else
		free(path);
	ws_toml_table_free(&t);
	return 0;
}
