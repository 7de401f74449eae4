/* load_probe.c - what Windows' loader (Wine's) says of each DLL (src/test/windows/
 * loads_wine.sh): for each argument, LoadLibraryExW(path, NULL,
 * LOAD_WITH_ALTERED_SEARCH_PATH), the search CPython uses for an extension (its own folder
 * first), then one line: "ok" or "fail ERROR" (GetLastError: 126 is ERROR_MOD_NOT_FOUND).
 * Nothing is unloaded, so an earlier argument is a preload of the later ones; a "+" before
 * a path loads it without printing. Paths are UTF-8. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char **argv)
{
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
	for (int i = 1; i < argc; i++) {
		const char *p = argv[i] + (argv[i][0] == '+');
		wchar_t w[4096];
		if (!MultiByteToWideChar(CP_UTF8, 0, p, -1, w, 4096))
			return 2;
		HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
		DWORD err = GetLastError();
		if (argv[i][0] == '+')
			continue;
		if (h)
			printf("ok\n");
		else
			printf("fail %lu\n", (unsigned long)err);
	}
	return 0;
}
