/* interp.c - which interpreter an environment found by -r belongs to, so that the report
 * says whose packages were judged: a Windows layout, ENV\Lib\site-packages, is the
 * environment of ENV\python.exe (an embedded Python, as ComfyUI's portable build ships it,
 * or conda) or of ENV\Scripts\python.exe (a venv). Only a file that is there is named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "ws_inputs.h"
#include "ws_quote.h"

/* Whether site is ENV/Lib/site-packages; its length of ENV in *envlen. */
static bool windows_layout(const char *site, size_t *envlen)
{
	static const char tail[] = "/Lib/site-packages";
	size_t n = strlen(site), t = sizeof tail - 1;
	*envlen = n - t;
	return n > t && strcasecmp(site + n - t, tail) == 0;
}

/* The interpreter of the environment of ENV (envlen bytes of site) into buf, or false. */
static bool interpreter_of(const char *site, size_t envlen, char *buf, size_t len)
{
	static const char *const names[] = {"python.exe", "Scripts/python.exe"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct stat st;
		if (envlen > 4096 || snprintf(buf, len, "%.*s/%s", (int)envlen, site, names[i]) >= (int)len)
			return false;
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

void ws_inputs_name_interpreters(const struct ws_inputs *in, FILE *f)
{
	const char *last = NULL;
	for (size_t i = 0; i < in->n; i++) {
		const char *site = in->v[i].site;
		char exe[4200];
		size_t envlen;
		if (!site || (in->v[i].kind != WS_INPUT_DIST && in->v[i].kind != WS_INPUT_LOOSE))
			continue;
		if ((last && !strcmp(last, site)) || !windows_layout(site, &envlen))
			continue;
		bool seen = false;            /* inputs come grouped by site; a repeat is rare */
		for (size_t k = 0; k < i && !seen; k++)
			seen = in->v[k].site && !strcmp(in->v[k].site, site);
		last = site;
		if (!seen && interpreter_of(site, envlen, exe, sizeof exe))
			fprintf(f, "wheelscan: the packages in %s are those of the interpreter %s\n", ws_q_text(site),
				ws_q_text(exe));
	}
}
