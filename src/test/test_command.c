/* test_command.c - commands as argument vectors and their renderers (src/core/command.c):
 * each shell's rules word by word, what each refuses, a list joined so that each command
 * runs after the one before succeeded, a long command never cut, one entry per distinct
 * command. The real shells run the renderings in src/test/commands.sh (bash, dash) and
 * src/test/windows/windows.sh (cmd.exe under Wine), which call this program as
 *     test_command render sh|cmd|powershell  < words (NUL-terminated, argv[0] first)
 * to print the rendering (exit 3 and the reason on stderr when it is refused). */
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"
#include "ws_command.h"

static const char *render(enum ws_shell sh, const char *const *words)
{
	static char *last;
	struct ws_cmd c = {0};
	free(last);
	for (size_t i = 0; words[i]; i++)
		ws_cmd_add(&c, words[i]);
	last = ws_cmd_text(&c, sh, NULL);
	ws_cmd_free(&c);
	return last ? last : "(refused)";
}

#define R(sh, ...) render(sh, (const char *const[]){__VA_ARGS__, NULL})

static void test_sh(void)
{
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "install", "torch==2.8.0+cu128", "--index-url", "https://x.org/whl/cu128"),
		     "pip install torch==2.8.0+cu128 --index-url https://x.org/whl/cu128");
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "it's"), "pip 'it'\\''s'");
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", ""), "pip ''");
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "$(id)", "`id`", "a b"), "pip '$(id)' '`id`' 'a b'");
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "https://example.org/simple>~/.bashrc"), "pip 'https://example.org/simple>~/.bashrc'");
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "~", "*", "!x", "%V%", "^"), "pip '~' '*' '!x' %V% '^'");
	/* '=' in the first word would make an assignment; at a word's start zsh's =cmd */
	CHECK_EQ_STR(R(WS_SHELL_SH, "a=b/python", "x=y", "=z"), "'a=b/python' x=y '=z'");
	CHECK_EQ_STR(R(WS_SHELL_SH, "/x/a\\b/$(id)/python", "-m", "pip"), "'/x/a\\b/$(id)/python' -m pip");
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "a\nb"), "pip 'a\nb'");
	/* a tab, a CR, ESC: never raw (a pasted line's editor acts on them) */
	CHECK_EQ_STR(R(WS_SHELL_SH, "pip", "a\tb", "\r", "\x1b[31m'"),
		     "pip 'a'\"$(printf '\\011')\"'b' \"$(printf '\\015')\" \"$(printf '\\033')\"'[31m'\\'''");
	/* an environment for the command alone */
	struct ws_cmd c = {0};
	ws_cmd_setenv(&c, "TORCH_CUDA_ARCH_LIST", "8.6+PTX");
	ws_cmd_add(&c, "pip");
	ws_cmd_add(&c, ".");
	char *t = ws_cmd_text(&c, WS_SHELL_SH, NULL);
	CHECK_EQ_STR(t ? t : "", "TORCH_CUDA_ARCH_LIST=8.6+PTX pip .");
	free(t);
	t = ws_cmd_text(&c, WS_SHELL_CMD, NULL);
	CHECK_EQ_STR(t ? t : "", "set \"TORCH_CUDA_ARCH_LIST=8.6+PTX\" && pip .");
	free(t);
	t = ws_cmd_text(&c, WS_SHELL_POWERSHELL, NULL);
	CHECK_EQ_STR(t ? t : "", "$env:TORCH_CUDA_ARCH_LIST = '8.6+PTX'; & 'pip' .");
	free(t);
	ws_cmd_free(&c);
	ws_cmd_setenv(&c, "A;B", "x");
	CHECK(c.failed, "a variable name with ';' accepted");
	ws_cmd_free(&c);
}

static void test_paths(void)
{
	struct ws_cmd c = {0};
	ws_cmd_add(&c, "pip");
	ws_cmd_add_path(&c, "-rreq-1.0-py3-none-any.whl");
	ws_cmd_add_path(&c, "mirror/x.whl");
	ws_cmd_add_path(&c, "/abs/x.whl");
	ws_cmd_add_path(&c, "C:\\w\\x.whl");
	ws_cmd_add_path(&c, "./y.whl");
	CHECK(c.argc == 6 && !strcmp(c.argv[1], "./-rreq-1.0-py3-none-any.whl") && !strcmp(c.argv[2], "./mirror/x.whl") &&
	      !strcmp(c.argv[3], "/abs/x.whl") && !strcmp(c.argv[4], "C:\\w\\x.whl") && !strcmp(c.argv[5], "./y.whl"),
	      "%s %s", c.argc > 1 ? c.argv[1] : "", c.argc > 2 ? c.argv[2] : "");
	ws_cmd_free(&c);
}

static void test_cmd(void)
{
	CHECK_EQ_STR(R(WS_SHELL_CMD, "pip", "install", "torch==2.8.0+cu128"), "pip install torch==2.8.0+cu128");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "C:\\Program Files\\py\\python.exe", "-m", "pip"),
		     "\"C:\\Program Files\\py\\python.exe\" -m pip");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "C:\\a&b\\python.exe", "x"), "\"C:\\a&b\\python.exe\" x");
	/* the runtime's quoting, then every quote and metacharacter behind a caret */
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a b"), "p ^\"a b^\"");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a\"b"), "p ^\"a\\^\"b^\"");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a b\\"), "p ^\"a b\\\\^\"");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a\\\\\"b"), "p ^\"a\\\\\\\\\\^\"b^\"");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "x\\y"), "p x\\y");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", ""), "p ^\"^\"");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "&|<>()^"), "p ^&^|^<^>^(^)^^");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "https://example.org/simple>~/.bashrc"), "p https://example.org/simple^>~/.bashrc");
	/* what no quoting makes safe at cmd.exe's prompt */
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "%PATH%"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a!b"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a\nb"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "C:\\100%\\python.exe"), "(refused)");
	/* a Windows command line is UTF-16: a stray byte has no character to become */
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "a\xff" "b"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "a\xff" "b"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_CMD, "p", "\xc3\xbc"), "p \xc3\xbc");
	CHECK_EQ_STR(R(WS_SHELL_SH, "p", "a\xff" "b"), "p 'a\xff" "b'");
	const char *why = NULL;
	struct ws_cmd c = {0};
	ws_cmd_add(&c, "p");
	ws_cmd_add(&c, "%x%");
	struct ws_buf b = {0};
	CHECK(!ws_cmd_render(&b, &c, WS_SHELL_CMD, &why) && why && strstr(why, "%") && b.len == 0, "%s", why ? why : "");
	/* then the first shell that can carry it: PowerShell */
	enum ws_shell shells[] = {WS_SHELL_CMD, WS_SHELL_POWERSHELL}, used = WS_SHELL_SH;
	CHECK(ws_cmd_render_first(&b, &c, shells, 2, &used, &why) && used == WS_SHELL_POWERSHELL);
	ws_buf_add(&b, "", 1);
	CHECK_EQ_STR(b.p ? b.p : "", "& 'p' '%x%'");
	ws_buf_free(&b);
	ws_cmd_free(&c);
}

static void test_powershell(void)
{
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "pip", "install", "torch==2.8.0+cu128", "--index-url", "https://x.org/whl/cu128"),
		     "& 'pip' install torch==2.8.0+cu128 --index-url https://x.org/whl/cu128");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "python_embeded\\python.exe", "-m", "pip"), "& 'python_embeded\\python.exe' -m pip");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "it's", "$(id)", "`x", "@a", "a,b", "a;b"),
		     "& 'p' 'it''s' '$(id)' '`x' '@a' 'a,b' 'a;b'");
	/* the typographic single quotes PowerShell also ends a string at: doubled */
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "a\xe2\x80\x99" "b"), "& 'p' 'a\xe2\x80\x99\xe2\x80\x99" "b'");
	/* "-name.x" is split in two by Windows PowerShell: quoted */
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "-rreq.txt", "--only-binary=:all:", "-d"),
		     "& 'p' '-rreq.txt' '--only-binary=:all:' -d");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "a\"b"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", ""), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "a b\\"), "(refused)");
	CHECK_EQ_STR(R(WS_SHELL_POWERSHELL, "p", "a\nb"), "(refused)");
}

static void test_lists(void)
{
	struct ws_cmds l = {0};
	struct ws_cmd a = {0}, b = {0};
	ws_cmd_add(&a, "pip");
	ws_cmd_add(&a, "install");
	ws_cmd_add(&a, "x==1");
	ws_cmd_add(&b, "pip");
	ws_cmd_add(&b, "install");
	ws_cmd_add(&b, "y==2");
	/* one entry per distinct command, however often it is asked for */
	for (int i = 0; i < 3; i++) {
		ws_cmds_add(&l, &a);
		ws_cmds_add(&l, &b);
	}
	CHECK_EQ_INT(l.n, 2);
	struct ws_buf t = {0};
	CHECK(ws_cmds_render(&t, &l, WS_SHELL_SH, NULL));
	CHECK(ws_cmds_render(&t, &l, WS_SHELL_POWERSHELL, NULL));
	ws_buf_add(&t, "", 1);
	CHECK_EQ_STR(t.p ? t.p : "", "pip install x==1 && pip install y==2& 'pip' install x==1; if ($?) { & 'pip' install y==2 }");
	ws_buf_free(&t);
	ws_cmds_free(&l);
	ws_cmd_free(&a);
	ws_cmd_free(&b);

	/* nothing is cut: 2,000 packages, every one in the line */
	struct ws_cmd big = {0};
	ws_cmd_add(&big, "pip");
	ws_cmd_add(&big, "install");
	size_t want = strlen("pip install");
	for (int i = 0; i < 2000; i++) {
		char w[32];
		snprintf(w, sizeof w, "package-%04d==1.0", i);
		ws_cmd_add(&big, w);
		want += 1 + strlen(w);
	}
	for (int s = 0; s < WS_SHELLS; s++) {
		char *txt = ws_cmd_text(&big, (enum ws_shell)s, NULL);
		CHECK(txt && strstr(txt, "package-1999==1.0"), "shell %d cut the command", s);
		if (s == WS_SHELL_SH)
			CHECK(txt && strlen(txt) == want, "%zu bytes, not %zu", txt ? strlen(txt) : 0, want);
		free(txt);
	}
	ws_cmd_free(&big);
}

static void test_platforms(void)
{
	enum ws_shell sh[WS_SHELLS];
	CHECK(ws_shells_for("linux_x86_64", false, sh) == 1 && sh[0] == WS_SHELL_SH);
	CHECK(ws_shells_for("manylinux_2_28_x86_64", false, sh) == 1 && sh[0] == WS_SHELL_SH);
	CHECK(ws_shells_for("win_amd64", false, sh) == 2 && sh[0] == WS_SHELL_CMD && sh[1] == WS_SHELL_POWERSHELL);
	CHECK(ws_shells_for(NULL, true, sh) == 2 && sh[0] == WS_SHELL_CMD);
	CHECK(ws_shells_for(NULL, false, sh) == 1 && sh[0] == WS_SHELL_SH);
}

/* test_command render SHELL < words: the round-trip scripts' renderer */
static int render_stdin(const char *shell)
{
	enum ws_shell sh = !strcmp(shell, "cmd") ? WS_SHELL_CMD : !strcmp(shell, "powershell") ? WS_SHELL_POWERSHELL :
			   WS_SHELL_SH;
	struct ws_cmd c = {0};
	struct ws_buf w = {0};
	int ch;
	while ((ch = getchar()) != EOF) {
		if (ch) {
			char b = (char)ch;
			ws_buf_add(&w, &b, 1);
			continue;
		}
		ws_buf_add(&w, "", 1);
		ws_cmd_add(&c, w.p);
		w.len = 0;
	}
	ws_buf_free(&w);
	const char *why = NULL;
	char *t = ws_cmd_text(&c, sh, &why);
	ws_cmd_free(&c);
	if (!t) {
		fprintf(stderr, "refused: %s\n", why ? why : "out of memory");
		return 3;
	}
	fputs(t, stdout);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "render"))
		return render_stdin(argv[2]);
	test_sh();
	test_paths();
	test_cmd();
	test_powershell();
	test_lists();
	test_platforms();
	return ws_test_done();
}
