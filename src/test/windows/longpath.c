/* longpath.c - built by windows.sh with MinGW and run under Wine: prints, for each argument,
 * the path src/win/posix_win.c hands the wide API (ws_win_path), in UTF-8, one a line. Wine
 * itself takes paths past MAX_PATH in any spelling, so opening files cannot show whether the
 * \\?\ form is made; this shows the form itself. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		wchar_t *w = ws_win_path(argv[i]);
		char out[4 * 32768];
		if (!w || WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)sizeof out, NULL, NULL) <= 0) {
			printf("(error)\n");
		} else {
			printf("%s\n", out);
		}
		free(w);
	}
	return 0;
}
