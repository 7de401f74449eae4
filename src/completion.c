/* completion.c - shell completion scripts for bash, zsh and fish, written from the option
 * table (cli.c), so that a new option completes the day it is added. The few options whose
 * values are a closed set name them here; files and directories complete as such. */
#include <stdio.h>
#include <string.h>

#include "ws_cli.h"

enum what { ANY, FILES, DIRS, WORDS };

/* What an option's argument completes to. */
static enum what arg_kind(const struct ws_option *o, char *words, size_t len)
{
	static const struct { const char *name, *words; } closed[] = {
		{"format", "text json jsonl markdown cyclonedx html sarif github"},
		{"detail", "artifact object container entry"},
		{"color", "auto always never"},
		{"completion", "bash zsh fish"},
		{"gpu", "auto"},
	};
	words[0] = '\0';
	for (size_t i = 0; i < sizeof closed / sizeof *closed; i++)
		if (!strcmp(o->name, closed[i].name)) {
			snprintf(words, len, "%s", closed[i].words);
			return WORDS;
		}
	if (!strcmp(o->name, "ignore") || !strcmp(o->name, "select")) {
		size_t used = 0;
		for (int c = 0; c < WS_NCHECKS && used < len; c++)
			if (ws_check_def(c)->gate) {
				int w = snprintf(words + used, len - used, "%s%s", used ? " " : "", ws_check_def(c)->id);
				used += w > 0 ? (size_t)w : 0;
			}
		return WORDS;
	}
	if (!strcmp(o->name, "recursive"))
		return DIRS;
	if (!o->arg || strstr(o->arg, "FILE") || !strcmp(o->name, "baseline") || !strcmp(o->name, "python"))
		return FILES;
	return ANY;
}

static void bash(FILE *f, const struct ws_option *opt, size_t n)
{
	char words[256];
	fputs("# bash completion for wheelscan (wheelscan --completion bash)\n"
	      "_wheelscan() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tcase $prev in\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct ws_option *o = &opt[i];
		if (o->has_arg != 1)            /* required_argument: the next word is its value */
			continue;
		enum what k = arg_kind(o, words, sizeof words);
		fprintf(f, "\t");
		if (o->val < 256)
			fprintf(f, "-%c|", o->val);
		fprintf(f, "--%s)\n\t\t", o->name);
		if (k == WORDS)
			fprintf(f, "COMPREPLY=($(compgen -W '%s' -- \"$cur\"))", words);
		else if (k == DIRS)
			fputs("COMPREPLY=($(compgen -d -- \"$cur\"))", f);
		else if (k == FILES)
			fputs("COMPREPLY=($(compgen -f -- \"$cur\"))", f);
		else
			fputs("COMPREPLY=()", f);
		fputs("\n\t\treturn;;\n", f);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W '", f);
	for (size_t i = 0; i < n; i++) {
		if (opt[i].val < 256)
			fprintf(f, "-%c ", opt[i].val);
		fprintf(f, "--%s%s", opt[i].name, i + 1 < n ? " " : "");
	}
	fputs("' -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "}\n"
	      "complete -o filenames -F _wheelscan wheelscan\n", f);
}

/* An option's help for zsh's _arguments: inside [...] within single quotes. */
static void zsh_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '[' || *s == ']' || *s == ':' || *s == '\\')
			fputc('\\', f);
		*s == '\'' ? fputs("'\\''", f) : fputc(*s, f);
	}
}

static void zsh(FILE *f, const struct ws_option *opt, size_t n)
{
	char words[256];
	fputs("#compdef wheelscan\n# zsh completion for wheelscan (wheelscan --completion zsh)\n"
	      "_arguments -s -S \\\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct ws_option *o = &opt[i];
		enum what k = o->has_arg ? arg_kind(o, words, sizeof words) : ANY;
		const char *action = k == WORDS ? NULL : k == DIRS ? "_files -/" : k == FILES ? "_files" : " ";
		bool repeat = !strcmp(o->name, "verbose") || !strcmp(o->name, "recursive") || !strcmp(o->name, "ignore") ||
			      !strcmp(o->name, "select");
		for (int form = o->val < 256 ? 0 : 1; form < 2; form++) {
			fprintf(f, "\t'%s", repeat ? "*" : "");
			if (form == 0)
				fprintf(f, "-%c", o->val);
			else
				fprintf(f, "--%s%s", o->name, o->has_arg == 1 ? "=" : o->has_arg == 2 ? "=-" : "");
			fputc('[', f);
			zsh_help(f, o->help);
			fputc(']', f);
			if (o->has_arg) {
				fputc(':', f);
				zsh_help(f, o->arg ? o->arg : "value");
				if (action)
					fprintf(f, ":%s", action);
				else
					fprintf(f, ":(%s)", words);
			}
			fputs("' \\\n", f);
		}
	}
	fputs("\t'*:input file:_files'\n", f);
}

/* s in a fish single-quoted string: \ and ' escaped. */
static void fish_sq(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void fish(FILE *f, const struct ws_option *opt, size_t n)
{
	char words[256];
	fputs("# fish completion for wheelscan (wheelscan --completion fish)\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct ws_option *o = &opt[i];
		fputs("complete -c wheelscan", f);
		if (o->val < 256)
			fprintf(f, " -s %c", o->val);
		fprintf(f, " -l %s", o->name);
		if (o->has_arg) {
			enum what k = arg_kind(o, words, sizeof words);
			fputs(o->has_arg == 1 ? " -r" : "", f);
			if (k == WORDS)
				fprintf(f, " -f -a '%s'", words);
			else if (k == DIRS)
				fputs(" -f -a '(__fish_complete_directories)'", f);
			else if (k == ANY)
				fputs(" -f", f);
		}
		fputs(" -d '", f);
		fish_sq(f, o->help);
		fputs("'\n", f);
	}
}

bool ws_completion_print(FILE *f, const char *shell, const struct ws_option *opt, size_t n)
{
	if (!strcmp(shell, "bash"))
		bash(f, opt, n);
	else if (!strcmp(shell, "zsh"))
		zsh(f, opt, n);
	else if (!strcmp(shell, "fish"))
		fish(f, opt, n);
	else
		return false;
	return true;
}
