/* config.c - [tool.wheelscan] from --config FILE or the nearest pyproject.toml: found,
 * read (bounded), parsed by core/toml.c, and applied to the command line's settings. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_cli.h"
#include "ws_compat.h"
#include "ws_quote.h"
#include "ws_toml.h"
#include "ws_util.h"

#define CONFIG_MAX (1u << 20)          /* a pyproject.toml is kilobytes; more is not one */

/* Whether the directory holds a repository's root (.git, a directory or a worktree's file):
 * a project's configuration is not looked for above its repository, as git does. */
static bool repo_root(const char *dir)
{
	char path[PATH_MAX + 16];
	snprintf(path, sizeof path, "%s%s.git", dir, strcmp(dir, "/") ? "/" : "");
	return access(path, F_OK) == 0;
}

/* The first pyproject.toml in the working directory or above it, up to the repository's
 * root, or NULL. */
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
		if (repo_root(dir) || !slash || !strcmp(dir, "/"))
			return NULL;
		slash[slash == dir] = '\0';   /* "/a" -> "/", "/a/b" -> "/a" */
	}
	return NULL;
}

/* Why a pyproject.toml that was found, not named, may not steer the gates, or NULL: as
 * git's safe.directory, a file or directory another user owns (root excepted), or a
 * directory anyone may write to (a pyproject.toml dropped into /tmp would pass every gate
 * run below it). The file is judged by the descriptor it is read from (st). Only its own
 * directory is judged, not every ancestor: whoever may write to an ancestor but not to
 * that directory cannot change the file (a sticky /tmp lets no one rename another's
 * directory), and a project under a world-writable path is still the user's own. */
static const char *untrusted(const char *path, const struct stat *st, char *why, size_t len)
{
#ifdef _WIN32
	(void)path, (void)st, (void)why, (void)len;
	return NULL;                        /* ownership is ACLs there: not judged */
#else
	uid_t me = geteuid();
	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(why, len, "owned by another user (uid %u)", (unsigned)st->st_uid);
		return why;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		slash[slash == dir] = '\0';
	struct stat d;
	if (stat(dir, &d) < 0) {
		snprintf(why, len, "its directory cannot be read: %s", strerror(errno));
		return why;
	}
	if (d.st_mode & S_IWOTH) {
		snprintf(why, len, "in a directory anyone may write to ('%s')", ws_q_text(dir));
		return why;
	}
	if (d.st_uid != me && d.st_uid != 0) {
		snprintf(why, len, "in a directory another user owns (uid %u)", (unsigned)d.st_uid);
		return why;
	}
	return NULL;
#endif
}

/* The file read from one descriptor, so that the file judged is the file read: at most
 * CONFIG_MAX bytes of a regular file, NUL-terminated. NULL with errno set (EFBIG: too
 * large or not a regular file). */
static char *read_config(const char *path, bool named, char *why, size_t whylen, size_t *len)
{
	*why = '\0';
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *text = NULL;
	if (fstat(fd, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)CONFIG_MAX) {
		errno = EFBIG;
		goto out;
	}
	if (!named && untrusted(path, &st, why, whylen)) {
		errno = EPERM;
		goto out;
	}
	if (!(text = ws_malloc((size_t)CONFIG_MAX + 2)))
		goto out;
	size_t n = 0;
	for (;;) {
		ssize_t got = read(fd, text + n, (size_t)CONFIG_MAX + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(text);
			text = NULL;
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > CONFIG_MAX) {       /* grew since fstat */
			free(text);
			text = NULL;
			errno = EFBIG;
			goto out;
		}
	}
	text[n] = '\0';
	*len = n;
out:;
	int saved = errno;
	close(fd);
	errno = saved;
	return text;
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

/* Names a key that changed a setting in cfg->config_applied (TOML allows each key once). */
static void applied(struct ws_config *cfg, const char *key)
{
	size_t n = strlen(cfg->config_applied);
	snprintf(cfg->config_applied + n, sizeof cfg->config_applied - n, "%s%s", n ? ", " : "", key);
}

static int apply(struct ws_config *cfg, const struct ws_toml_entry *e, bool cli_require, struct ws_err *err)
{
	struct ws_err inner = {0};
	if (!strcmp(e->key, "require-ptx")) {
		if (e->type != WS_TOML_BOOL)
			return ws_err_set(err, WS_E_FORMAT, "line %u: require-ptx is true or false", e->line);
		if (e->b && !cfg->require_ptx) {
			cfg->require_ptx = true;  /* the command line has no --no-require-ptx to undo */
			applied(cfg, "require-ptx");
		}
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
		applied(cfg, "require");
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
		if (n)
			applied(cfg, e->key);
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
	char why[PATH_MAX + 96];
	char *text = read_config(path, file != NULL, why, sizeof why, &len);
	if (!text && *why) {
		/* found, not named: a warning, and the run goes on without it */
		fprintf(stderr, "wheelscan: warning: ignoring '%s': %s; --config names a file to read anyway\n",
			ws_q_text(path), why);
		free(path);
		return 0;
	}
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
