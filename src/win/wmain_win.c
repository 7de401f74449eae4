/* wmain_win.c - the program's entry on Windows: the command line as UTF-8 (GetCommandLineW's
 * arguments, not the ANSI code page's), binary standard streams (the same bytes as on Linux),
 * UTF-8 on the console; then src/main.c's main, built as ws_main_utf8. */
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>

int ws_main_utf8(int argc, char **argv);
int wmain(int argc, wchar_t **wargv);

int wmain(int argc, wchar_t **wargv)
{
	char **argv = calloc((size_t)argc + 1, sizeof *argv);
	if (!argv)
		return 2;
	for (int i = 0; i < argc; i++) {
		int n = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
		if (n <= 0 || !(argv[i] = malloc((size_t)n)))
			return 2;
		WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, argv[i], n, NULL, NULL);
	}
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	/* the names printed are UTF-8: a console shows them as such */
	SetConsoleOutputCP(CP_UTF8);
	return ws_main_utf8(argc, argv);
}
