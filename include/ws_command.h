/* ws_command.h - a command we print is an argument vector until the last moment
 * (src/core/command.c; doc/commands.md gives the rules and their sources).
 *
 * The model builds every command it advises (the remedy's pip lines, the set's fix, the
 * rebuild line) as the words the program must receive, argv[0] first, never as text. A
 * writer renders it for one shell with ws_cmd_render(): POSIX sh (bash, dash, zsh in its sh
 * quoting), cmd.exe (typed or pasted at its prompt, then split into argv by the program's
 * C runtime) or PowerShell. Each word goes through the renderer, whatever it holds; a word
 * a shell cannot be given safely makes the rendering fail with a reason, never a command
 * that means something else. Nothing is ever cut.
 *
 * Which shells: the platform the command is for (ws_shells_for): a Windows platform
 * (win_amd64) gets cmd.exe and PowerShell, any other POSIX sh.
 */
#ifndef WS_COMMAND_H
#define WS_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "ws_util.h"

enum ws_shell {
	WS_SHELL_SH = 0,               /* POSIX sh: bash, dash, ksh, zsh */
	WS_SHELL_CMD,                  /* cmd.exe at its prompt, then the MSVC runtime's argv */
	WS_SHELL_POWERSHELL,           /* Windows PowerShell 5.1 and PowerShell 7 */
};
#define WS_SHELLS 3

/* One command: the environment variables it sets for itself, then its words. */
struct ws_cmd {
	char **env;                    /* "NAME=VALUE"; NAME is [A-Za-z_][A-Za-z0-9_]* */
	size_t nenv;
	char **argv;                   /* argv[0] is the program */
	size_t argc;
	bool failed;                   /* an allocation failed while it was built */
};

/* Commands run one after another, each only if the one before succeeded. */
struct ws_cmds {
	struct ws_cmd *v;
	size_t n;
	bool failed;
};

/* Appends a copy of word (any bytes but NUL) to c. */
void ws_cmd_add(struct ws_cmd *c, const char *word);
/* Appends a path that names a file: a relative path gets "./" in front, so that a file
 * named "-rreq" is a path and never an option ("./-rreq"). */
void ws_cmd_add_path(struct ws_cmd *c, const char *path);
/* Sets NAME=VALUE for this command only (name must be a valid variable name: else failed). */
void ws_cmd_setenv(struct ws_cmd *c, const char *name, const char *value);
bool ws_cmd_empty(const struct ws_cmd *c);
void ws_cmd_free(struct ws_cmd *c);

/* Appends a copy of c to the list, unless an equal command is in it already. */
void ws_cmds_add(struct ws_cmds *l, const struct ws_cmd *c);
void ws_cmds_free(struct ws_cmds *l);

/* Appends c rendered for shell sh to b and returns true; or appends nothing, sets *why (a
 * static sentence, when why is not NULL) and returns false when a word cannot be given to
 * that shell safely (cmd.exe: % and ! can be expanded whatever the quoting, a control
 * character ends the line; PowerShell: a word with " or an empty word is not passed intact
 * to a native program by Windows PowerShell 5.1). The rendering may hold any byte of the
 * words, a newline inside quotes (sh) included: a text writer escapes it, and says so. */
bool ws_cmd_render(struct ws_buf *b, const struct ws_cmd *c, enum ws_shell sh, const char **why);
/* The list, joined so that each runs only after the one before succeeded (sh and cmd.exe:
 * " && "; PowerShell: "; if ($?) { ... }"). False as above when any command fails. */
bool ws_cmds_render(struct ws_buf *b, const struct ws_cmds *l, enum ws_shell sh, const char **why);
/* c rendered for the first of the n shells that can carry it; *used says which. False
 * (why: the first shell's reason) when none can. */
bool ws_cmd_render_first(struct ws_buf *b, const struct ws_cmd *c, const enum ws_shell *shells, size_t n,
			 enum ws_shell *used, const char **why);
bool ws_cmds_render_first(struct ws_buf *b, const struct ws_cmds *l, const enum ws_shell *shells, size_t n,
			  enum ws_shell *used, const char **why);
/* The rendering as a new string, or NULL (why set; *why NULL on allocation failure). */
char *ws_cmd_text(const struct ws_cmd *c, enum ws_shell sh, const char **why);

/* "sh", "cmd", "powershell": the names JSON uses. */
const char *ws_shell_name(enum ws_shell sh);
/* "POSIX sh", "cmd.exe", "PowerShell": the names text uses. */
const char *ws_shell_title(enum ws_shell sh);
/* Whether the platform a command is for (a build table platform, "win_amd64", or a wheel
 * tag) is Windows, where cmd.exe and PowerShell run it. */
bool ws_platform_windows(const char *platform);
/* The shells a command for the platform is rendered for, the one text shows first: a
 * Windows platform (or windows_host, a Windows interpreter given) gets cmd.exe then
 * PowerShell, any other POSIX sh. Returns how many (1 or 2) were written to out. */
size_t ws_shells_for(const char *platform, bool windows_host, enum ws_shell out[WS_SHELLS]);

/* The program words of a pip command: "pip", or the interpreter exe (--python, as given)
 * with "-m pip"; the renderer quotes them for the shell the command is for. */
void ws_cmd_pip(struct ws_cmd *c, const char *exe);

#endif
