/* report_json_cmd.c - a command in JSON (report_json.c's remedies and sets): the shell it is
 * rendered for, its rendering for each shell of its platform, and its words, so that a
 * program reading the report takes the argv and never parses a line (doc/commands.md). */
#include <stdbool.h>

#include "ws_json.h"
#include "ws_report.h"

/* One command rendered for one shell as a JSON value: the string, or null. */
static void rendered_json(struct ws_buf *b, const struct ws_cmd *c, const struct ws_cmds *l, enum ws_shell sh,
			  const char **why)
{
	struct ws_buf t = {0};
	bool ok = l ? ws_cmds_render(&t, l, sh, why) : ws_cmd_render(&t, c, sh, why);
	ws_buf_add(&t, "", 1);
	if (ok && !t.failed)
		ws_json_str(b, t.p);
	else
		ws_buf_puts(b, "null");
	if (t.failed)
		b->failed = true;
	ws_buf_free(&t);
}

/* The commands of a remedy (install, download, offline) or of a set's fix (list):
 *   "shell": the shell "command" ... are rendered for (the first of the platform's that can
 *   carry them), "command" ..., "renderings": [{"shell", "command", ..., "refused"}] for each
 *   of the platform's shells, "argv": the words ({"command": [...], ...}; a fix: an array of
 *   arrays), "env": what the command sets for itself ("NAME=VALUE"). */
void ws_json_command_members(struct ws_buf *b, const struct ws_cmd *install, const struct ws_cmd *download,
			     const struct ws_cmd *offline, const struct ws_cmds *list, const enum ws_shell *shells,
			     size_t n)
{
	static const char *const keys[] = {"command", "download_command", "offline_command"};
	const struct ws_cmd *c[3] = {install, download, offline};
	size_t nc = list ? 1 : 3;
	bool any = list ? list->n != 0 : !ws_cmd_empty(install);
	size_t first = n;
	const char *why = NULL;
	/* the first shell that carries every command */
	for (size_t s = 0; any && s < n && first == n; s++) {
		bool ok = true;
		struct ws_buf t = {0};
		for (size_t i = 0; i < nc && ok; i++)
			if (list || !ws_cmd_empty(c[i]))
				ok = list ? ws_cmds_render(&t, list, shells[s], &why) : ws_cmd_render(&t, c[i], shells[s], &why);
		ws_buf_free(&t);
		if (ok)
			first = s;
	}
	ws_json_kv_str(b, "shell", first < n ? ws_shell_name(shells[first]) : NULL);
	for (size_t i = 0; i < 3; i++) {                  /* a fix has no offline pair: null */
		ws_json_key(b, keys[i]);
		if (first < n && i < nc && (list || !ws_cmd_empty(c[i])))
			rendered_json(b, c[i], list, shells[first], &why);
		else
			ws_buf_puts(b, "null");
		ws_buf_add(b, ",", 1);
	}
	ws_json_key(b, "renderings");
	ws_buf_add(b, "[", 1);
	for (size_t s = 0; any && s < n; s++) {
		const char *refused = NULL;
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "shell", ws_shell_name(shells[s]));
		for (size_t i = 0; i < 3; i++) {
			const char *w = NULL;
			ws_json_key(b, keys[i]);
			if (i < nc && (list || !ws_cmd_empty(c[i])))
				rendered_json(b, c[i], list, shells[s], &w);
			else
				ws_buf_puts(b, "null");
			ws_buf_add(b, ",", 1);
			refused = refused ? refused : w;
		}
		ws_json_kv_str(b, "refused", refused);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	ws_json_key(b, "argv");
	if (list) {
		ws_buf_add(b, "[", 1);
		for (size_t i = 0; i < list->n; i++)
			ws_json_strv(b, (const char *const *)list->v[i].argv, list->v[i].argc);
		ws_json_close(b, ']');
	} else {
		ws_buf_add(b, "{", 1);
		for (size_t i = 0; i < nc; i++) {
			ws_json_key(b, keys[i]);
			if (ws_cmd_empty(c[i]))
				ws_buf_puts(b, "null,");
			else
				ws_json_strv(b, (const char *const *)c[i]->argv, c[i]->argc);
		}
		ws_json_close(b, '}');
		ws_json_key(b, "env");
		ws_json_strv(b, (const char *const *)install->env, install->nenv);
	}
}
