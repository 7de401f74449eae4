/* command.c - commands as argument vectors, and the one renderer per shell that turns one
 * into a line a user pastes (ws_command.h; the rules and their sources: doc/commands.md).
 * Each renderer quotes every word, whatever it holds, or refuses the command: a word a
 * shell would take apart or expand never reaches the page in a form that means more. */
#include <stdlib.h>
#include <string.h>

#include "ws_command.h"
#include "ws_quote.h"

static void push(char ***v, size_t *n, bool *failed, const char *s, size_t len)
{
	char *copy = NULL, **nv;
	if (*failed)
		return;
	if (!(copy = ws_malloc(len + 1)) || !(nv = ws_reallocarray(*v, *n + 1, sizeof *nv))) {
		free(copy);
		*failed = true;
		return;
	}
	memcpy(copy, s, len);
	copy[len] = 0;
	nv[(*n)++] = copy;
	*v = nv;
}

void ws_cmd_add(struct ws_cmd *c, const char *word)
{
	if (!word) {
		c->failed = true;
		return;
	}
	push(&c->argv, &c->argc, &c->failed, word, strlen(word));
}

static bool absolute(const char *p)
{
	/* "/x", and a Windows drive or UNC path ("C:\x", "C:/x", "\\server\x") */
	return p[0] == '/' || p[0] == '\\' ||
	       (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/'));
}

void ws_cmd_add_path(struct ws_cmd *c, const char *path)
{
	if (!path) {
		c->failed = true;
		return;
	}
	if (absolute(path) || !strncmp(path, "./", 2)) {
		ws_cmd_add(c, path);
		return;
	}
	size_t n = strlen(path);
	char *w = ws_malloc(n + 3);
	if (!w) {
		c->failed = true;
		return;
	}
	memcpy(w, "./", 2);
	memcpy(w + 2, path, n + 1);
	ws_cmd_add(c, w);
	free(w);
}

static bool var_name(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') && !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

void ws_cmd_setenv(struct ws_cmd *c, const char *name, const char *value)
{
	size_t nl = name ? strlen(name) : 0, vl = value ? strlen(value) : 0;
	char *w;
	if (!name || !value || !var_name(name, nl) || !(w = ws_malloc(nl + vl + 2))) {
		c->failed = true;
		return;
	}
	memcpy(w, name, nl);
	w[nl] = '=';
	memcpy(w + nl + 1, value, vl + 1);
	push(&c->env, &c->nenv, &c->failed, w, nl + vl + 1);
	free(w);
}

bool ws_cmd_empty(const struct ws_cmd *c)
{
	return !c || c->argc == 0;
}

/* Whether a and b are the same words and environment. */
static bool cmd_equal(const struct ws_cmd *a, const struct ws_cmd *b)
{
	if (a->argc != b->argc || a->nenv != b->nenv)
		return false;
	for (size_t i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			return false;
	for (size_t i = 0; i < a->nenv; i++)
		if (strcmp(a->env[i], b->env[i]))
			return false;
	return true;
}

/* Deep copy of src into dst (dst's old contents are not freed). */
static void cmd_copy(struct ws_cmd *dst, const struct ws_cmd *src)
{
	memset(dst, 0, sizeof *dst);
	dst->failed = src->failed;
	for (size_t i = 0; i < src->nenv; i++)
		push(&dst->env, &dst->nenv, &dst->failed, src->env[i], strlen(src->env[i]));
	for (size_t i = 0; i < src->argc; i++)
		push(&dst->argv, &dst->argc, &dst->failed, src->argv[i], strlen(src->argv[i]));
}

void ws_cmd_free(struct ws_cmd *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->argc; i++)
		free(c->argv[i]);
	for (size_t i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->argv);
	free(c->env);
	memset(c, 0, sizeof *c);
}

void ws_cmds_add(struct ws_cmds *l, const struct ws_cmd *c)
{
	struct ws_cmd *nv;
	if (l->failed || c->failed) {
		l->failed = true;
		return;
	}
	for (size_t i = 0; i < l->n; i++)          /* one entry per distinct command */
		if (cmd_equal(&l->v[i], c))
			return;
	if (!(nv = ws_reallocarray(l->v, l->n + 1, sizeof *nv))) {
		l->failed = true;
		return;
	}
	l->v = nv;
	cmd_copy(&l->v[l->n], c);
	l->failed |= l->v[l->n].failed;
	l->n++;
}

void ws_cmds_free(struct ws_cmds *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		ws_cmd_free(&l->v[i]);
	if (l) {
		free(l->v);
		memset(l, 0, sizeof *l);
	}
}

/* ---- POSIX sh ------------------------------------------------------------------------- */

/* Bytes no POSIX shell (nor bash, zsh in sh quoting) gives a meaning anywhere in a word,
 * except '=' (an assignment before the command name; zsh's =cmd at a word's start). */
static bool sh_plain(const char *w, bool first)
{
	if (!*w || *w == '=')
		return false;
	for (const char *p = w; *p; p++) {
		char c = *p;
		if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || strchr("_@%+:,./-", c) ||
		      (c == '=' && !first)))
			return false;
	}
	return true;
}

/* Single quotes keep every byte as it is (POSIX XCU 2.2.2); a quote itself is closed,
 * escaped and reopened: ' -> '\''. A control character other than a line break is not
 * written raw: an interactive shell's line editor acts on it when the line is pasted (bash
 * takes a tab for completion, a CR for a line end; ESC starts a key sequence), so it is
 * written "$(printf '\ooo')" beside the quoted pieces, which the shell joins into one word.
 * A line break inside single quotes is kept by bash and dash, pasted or not (commands.sh). */
static bool sh_control(unsigned char c)
{
	return (c < 0x20 && c != '\n') || c == 0x7f;
}

static void sh_word(struct ws_buf *b, const char *w, bool first)
{
	bool open = false;
	if (sh_plain(w, first)) {
		ws_buf_puts(b, w);
		return;
	}
	if (!*w) {
		ws_buf_puts(b, "''");
		return;
	}
	for (const char *p = w; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (sh_control(c)) {
			if (open)
				ws_buf_add(b, "'", 1);
			open = false;
			ws_buf_printf(b, "\"$(printf '\\%03o')\"", c);
			continue;
		}
		if (!open)
			ws_buf_add(b, "'", 1);
		open = true;
		if (c == '\'')
			ws_buf_puts(b, "'\\''");
		else
			ws_buf_add(b, p, 1);
	}
	if (open)
		ws_buf_add(b, "'", 1);
}

static bool render_sh(struct ws_buf *b, const struct ws_cmd *c)
{
	for (size_t i = 0; i < c->nenv; i++) {
		const char *eq = strchr(c->env[i], '=');
		ws_buf_add(b, c->env[i], (size_t)(eq - c->env[i]) + 1);
		sh_word(b, eq + 1, false);
		ws_buf_add(b, " ", 1);
	}
	for (size_t i = 0; i < c->argc; i++) {
		if (i)
			ws_buf_add(b, " ", 1);
		sh_word(b, c->argv[i], i == 0);
	}
	return true;
}

/* ---- cmd.exe, then the MSVC runtime's argv ------------------------------------------- */

static const char CMD_SPECIAL[] = "^&|<>()\"";

static bool has_control(const char *w)
{
	for (const unsigned char *p = (const unsigned char *)w; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return true;
	return false;
}

/* The program's name: cmd.exe finds the program itself (the runtime's backslash rules do
 * not apply to argv[0]); real double quotes, which a Windows path never holds, keep its
 * spaces and & ( ) ^ from cmd. */
static bool cmd_program(struct ws_buf *b, const char *w, const char **why)
{
	bool plain = *w != 0;
	if (strchr(w, '"') || has_control(w) || strchr(w, '\t')) {
		*why = "the program's path holds a double quote or a control character, which no Windows path has";
		return false;
	}
	for (const char *p = w; *p; p++) {
		char c = *p;
		if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || strchr("_.:\\-+", c)))
			plain = false;
	}
	if (plain) {
		ws_buf_puts(b, w);
	} else {
		ws_buf_add(b, "\"", 1);
		ws_buf_puts(b, w);
		ws_buf_add(b, "\"", 1);
	}
	return true;
}

/* One argument: first as the runtime's argv splitting reads it back (quoted when it holds
 * a blank or a quote or is empty: 2n backslashes before a quote give n, 2n+1 give n and the
 * quote), then every character cmd.exe gives a meaning to escaped with ^, the quotes
 * included, so that cmd.exe never enters its quoted state and every ^ it sees is ours. */
static void cmd_arg(struct ws_buf *b, const char *w)
{
	struct ws_buf q = {0};
	if (*w && !strpbrk(w, " \t\"")) {
		ws_buf_puts(&q, w);
	} else {
		ws_buf_add(&q, "\"", 1);
		for (const char *p = w;; p++) {
			size_t bs = 0;
			while (*p == '\\')
				p++, bs++;
			if (!*p) {                  /* double them: the closing quote follows */
				for (size_t i = 0; i < 2 * bs; i++)
					ws_buf_add(&q, "\\", 1);
				break;
			}
			if (*p == '"') {
				for (size_t i = 0; i < 2 * bs + 1; i++)
					ws_buf_add(&q, "\\", 1);
			} else {
				for (size_t i = 0; i < bs; i++)
					ws_buf_add(&q, "\\", 1);
			}
			ws_buf_add(&q, p, 1);
		}
		ws_buf_add(&q, "\"", 1);
	}
	if (q.failed)
		b->failed = true;
	for (size_t i = 0; i < q.len; i++) {
		if (strchr(CMD_SPECIAL, q.p[i]))
			ws_buf_add(b, "^", 1);
		ws_buf_add(b, q.p + i, 1);
	}
	ws_buf_free(&q);
}

/* A Windows command line is UTF-16: a word that is not UTF-8 (a stray byte from a name)
 * has no characters to become, and would reach the program as U+FFFD or a code page's
 * guess (found by the cmd.exe round trip under Wine, src/test/windows/cmd_roundtrip.sh). */
static bool windows_text_ok(const char *w, const char **why)
{
	if (!ws_utf8_valid(w, strlen(w))) {
		*why = "a word is not UTF-8 text, which a Windows command line cannot carry";
		return false;
	}
	return true;
}

/* % and ! are expanded by cmd.exe before ^ and quotes are read (% always at the prompt,
 * ! with delayed expansion on): no quoting makes a word that holds them safe in all
 * cases, so such a command is refused. A line break ends the command. */
static bool cmd_word_ok(const char *w, const char **why)
{
	if (strpbrk(w, "%!")) {
		*why = "a word holds % or !, which cmd.exe may expand whatever the quoting";
		return false;
	}
	if (has_control(w)) {
		*why = "a word holds a line break or another control character, which ends a cmd.exe line";
		return false;
	}
	return windows_text_ok(w, why);
}

static bool render_cmd(struct ws_buf *b, const struct ws_cmd *c, const char **why)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (!cmd_word_ok(c->env[i], why) || strchr(c->env[i], '"')) {
			if (strchr(c->env[i], '"'))
				*why = "a variable's value holds a double quote";
			return false;
		}
	for (size_t i = 0; i < c->argc; i++)
		if (!cmd_word_ok(c->argv[i], why))
			return false;
	struct ws_buf t = {0};
	/* set "NAME=VALUE": the quotes keep & | < > ^ ( ) of the value from cmd.exe */
	for (size_t i = 0; i < c->nenv; i++)
		ws_buf_printf(&t, "set \"%s\" && ", c->env[i]);
	bool ok = c->argc && cmd_program(&t, c->argv[0], why);
	for (size_t i = 1; ok && i < c->argc; i++) {
		ws_buf_add(&t, " ", 1);
		cmd_arg(&t, c->argv[i]);
	}
	if (ok)
		ws_buf_add(b, t.p, t.len);
	if (t.failed)
		b->failed = true;
	ws_buf_free(&t);
	return ok;
}

/* ---- PowerShell ----------------------------------------------------------------------- */

/* Whether the UTF-8 at p is one of the quotes PowerShell reads as a single quote besides
 * ' (U+2018 to U+201B), and its length. */
static size_t ps_single_quote(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	if (*u == '\'')
		return 1;
	if (u[0] == 0xe2 && u[1] == 0x80 && u[2] >= 0x98 && u[2] <= 0x9b)
		return 3;
	return 0;
}

/* A verbatim string: '...' with every single quote (any of the four) doubled. */
static void ps_quoted(struct ws_buf *b, const char *w)
{
	ws_buf_add(b, "'", 1);
	for (const char *p = w; *p;) {
		size_t q = ps_single_quote(p);
		if (q) {
			ws_buf_add(b, p, q);
			ws_buf_add(b, p, q);
			p += q;
		} else {
			ws_buf_add(b, p++, 1);
		}
	}
	ws_buf_add(b, "'", 1);
}

/* Bare words PowerShell passes as they are: no sigil, operator or separator, and none of
 * the "-name.x" / "-name:x" forms that Windows PowerShell splits in two. */
static bool ps_plain(const char *w)
{
	if (!*w)
		return false;
	for (const char *p = w; *p; p++) {
		char c = *p;
		if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || strchr("_./\\+=:-", c)))
			return false;
		if (w[0] == '-' && (c == '.' || c == ':' || c == '/' || c == '\\'))
			return false;
	}
	return true;
}

/* Windows PowerShell 5.1 (and 7 before 7.3, $PSNativeCommandArgumentPassing = Legacy)
 * builds a native program's command line without escaping: a " inside an argument, an
 * empty argument (dropped) and a blank-holding argument that ends in \ come out wrong. */
static bool ps_word_ok(const char *w, const char **why)
{
	size_t n = strlen(w);
	if (!n) {
		*why = "an empty word, which Windows PowerShell does not pass to a program";
		return false;
	}
	if (strchr(w, '"')) {
		*why = "a word holds a double quote, which Windows PowerShell does not pass to a program intact";
		return false;
	}
	if (strpbrk(w, " \t") && w[n - 1] == '\\') {
		*why = "a word holds a blank and ends in a backslash, which Windows PowerShell does not pass intact";
		return false;
	}
	if (has_control(w)) {
		*why = "a word holds a line break or another control character";
		return false;
	}
	return windows_text_ok(w, why);
}

static bool render_ps(struct ws_buf *b, const struct ws_cmd *c, const char **why)
{
	for (size_t i = 0; i < c->argc; i++)
		if (!ps_word_ok(c->argv[i], why))
			return false;
	for (size_t i = 0; i < c->nenv; i++)
		if (has_control(c->env[i])) {
			*why = "a variable's value holds a control character";
			return false;
		} else if (!windows_text_ok(c->env[i], why)) {
			return false;
		}
	for (size_t i = 0; i < c->nenv; i++) {
		const char *eq = strchr(c->env[i], '=');
		ws_buf_puts(b, "$env:");
		ws_buf_add(b, c->env[i], (size_t)(eq - c->env[i]));
		ws_buf_puts(b, " = ");
		ps_quoted(b, eq + 1);
		ws_buf_puts(b, "; ");
	}
	/* the call operator: a quoted program name is a string, not a command, without it */
	ws_buf_puts(b, "& ");
	ps_quoted(b, c->argv[0]);
	for (size_t i = 1; i < c->argc; i++) {
		ws_buf_add(b, " ", 1);
		if (ps_plain(c->argv[i]))
			ws_buf_puts(b, c->argv[i]);
		else
			ps_quoted(b, c->argv[i]);
	}
	return true;
}

/* ---- the entry points --------------------------------------------------------------------- */

bool ws_cmd_render(struct ws_buf *b, const struct ws_cmd *c, enum ws_shell sh, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	if (!c || c->failed || !c->argc) {
		*why = "no command";
		return false;
	}
	switch (sh) {
	case WS_SHELL_SH: return render_sh(b, c);
	case WS_SHELL_CMD: return render_cmd(b, c, why);
	case WS_SHELL_POWERSHELL: return render_ps(b, c, why);
	}
	*why = "no such shell";
	return false;
}

bool ws_cmds_render(struct ws_buf *b, const struct ws_cmds *l, enum ws_shell sh, const char **why)
{
	struct ws_buf t = {0};
	const char *dummy;
	bool ok = l && l->n && !l->failed;
	if (!why)
		why = &dummy;
	*why = ok ? NULL : "no command";
	for (size_t i = 0; ok && i < l->n; i++) {
		if (i)
			ws_buf_puts(&t, sh == WS_SHELL_POWERSHELL ? "; if ($?) { " : " && ");
		ok = ws_cmd_render(&t, &l->v[i], sh, why);
	}
	for (size_t i = 1; ok && sh == WS_SHELL_POWERSHELL && i < l->n; i++)
		ws_buf_puts(&t, " }");
	if (ok)
		ws_buf_add(b, t.p, t.len);
	if (t.failed)
		b->failed = true;
	ws_buf_free(&t);
	return ok;
}

bool ws_cmd_render_first(struct ws_buf *b, const struct ws_cmd *c, const enum ws_shell *shells, size_t n,
			 enum ws_shell *used, const char **why)
{
	const char *first = NULL, *w;
	for (size_t i = 0; i < n; i++) {
		if (ws_cmd_render(b, c, shells[i], &w)) {
			*used = shells[i];
			return true;
		}
		first = first ? first : w;
	}
	if (why)
		*why = first ? first : "no shell";
	return false;
}

bool ws_cmds_render_first(struct ws_buf *b, const struct ws_cmds *l, const enum ws_shell *shells, size_t n,
			  enum ws_shell *used, const char **why)
{
	const char *first = NULL, *w;
	for (size_t i = 0; i < n; i++) {
		if (ws_cmds_render(b, l, shells[i], &w)) {
			*used = shells[i];
			return true;
		}
		first = first ? first : w;
	}
	if (why)
		*why = first ? first : "no shell";
	return false;
}

char *ws_cmd_text(const struct ws_cmd *c, enum ws_shell sh, const char **why)
{
	struct ws_buf b = {0};
	if (!ws_cmd_render(&b, c, sh, why)) {
		ws_buf_free(&b);
		return NULL;
	}
	ws_buf_add(&b, "", 1);
	if (b.failed) {
		if (why)
			*why = NULL;
		ws_buf_free(&b);
		return NULL;
	}
	return b.p;
}

const char *ws_shell_name(enum ws_shell sh)
{
	return sh == WS_SHELL_CMD ? "cmd" : sh == WS_SHELL_POWERSHELL ? "powershell" : "sh";
}

const char *ws_shell_title(enum ws_shell sh)
{
	return sh == WS_SHELL_CMD ? "cmd.exe" : sh == WS_SHELL_POWERSHELL ? "PowerShell" : "POSIX sh";
}

bool ws_platform_windows(const char *platform)
{
	return platform && !strncmp(platform, "win", 3);
}

size_t ws_shells_for(const char *platform, bool windows_host, enum ws_shell out[WS_SHELLS])
{
	if (ws_platform_windows(platform) || windows_host) {
		out[0] = WS_SHELL_CMD;
		out[1] = WS_SHELL_POWERSHELL;
		return 2;
	}
	out[0] = WS_SHELL_SH;
	return 1;
}

void ws_cmd_pip(struct ws_cmd *c, const char *exe)
{
	if (exe) {
		ws_cmd_add(c, exe);
		ws_cmd_add(c, "-m");
	}
	ws_cmd_add(c, "pip");
}
