/* cmd_lines.c - runs command lines in cmd.exe as `cmd /d /s /c "LINE"` does from another
 * program (src/test/windows/cmd_roundtrip.sh): for each line of a UTF-8 file (LF-separated;
 * a line never holds a line break, since the cmd.exe renderer refuses one), sets
 * WS_ARGV_OUT to PREFIX.N (N from 0) and WS_ARGV_UCRT to PREFIX.N.u for the stand-in
 * program (src/test/argv_stub.c) to write its argv to, as two C runtimes split it, and
 * starts cmd.exe with CreateProcessW, so the line reaches cmd.exe as wide characters,
 * untouched by a code page or by Wine's own quoting of a Unix argv. With /s, cmd.exe
 * removes the first and the last quote of what follows /c and runs the rest as typed
 * (`cmd /?`). Prints each line's exit status, one per line.
 *     cmd_lines.exe LINES-FILE PREFIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

static wchar_t *widen(const char *s, size_t n)
{
	int w = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, NULL, 0);
	if (w <= 0 && n)
		return NULL;
	wchar_t *r = calloc((size_t)w + 1, sizeof *r);
	if (r && n)
		MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, r, w);
	return r;
}

static int run_line(const wchar_t *line)
{
	static const wchar_t head[] = L"cmd.exe /d /s /c \"";
	size_t n = wcslen(head) + wcslen(line) + 2;
	wchar_t *cl = calloc(n, sizeof *cl);
	if (!cl)
		return -1;
	swprintf(cl, n, L"%ls%ls\"", head, line);
	STARTUPINFOW si = {.cb = sizeof si};
	PROCESS_INFORMATION pi;
	DWORD rc = (DWORD)-1;
	if (CreateProcessW(NULL, cl, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
		WaitForSingleObject(pi.hProcess, INFINITE);
		GetExitCodeProcess(pi.hProcess, &rc);
		CloseHandle(pi.hProcess);
		CloseHandle(pi.hThread);
	}
	free(cl);
	return (int)rc;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	static char text[1 << 20];
	size_t len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	size_t start = 0;
	for (int i = 0; start < len; i++) {
		char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		char out[4096], ucrt[4096];
		snprintf(out, sizeof out, "%s.%d", argv[2], i);
		snprintf(ucrt, sizeof ucrt, "%s.%d.u", argv[2], i);
		wchar_t *wout = widen(out, strlen(out)), *wucrt = widen(ucrt, strlen(ucrt));
		wchar_t *line = widen(text + start, end - start);
		if (!wout || !wucrt || !SetEnvironmentVariableW(L"WS_ARGV_OUT", wout) ||
		    !SetEnvironmentVariableW(L"WS_ARGV_UCRT", wucrt))
			return 2;
		/* a line that is not UTF-8 cannot be a Windows command line: -2 */
		printf("%d\n", line ? run_line(line) : -2);
		fflush(stdout);
		free(wout);
		free(wucrt);
		free(line);
		start = end + 1;
	}
	return 0;
}
