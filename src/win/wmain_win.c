/* wmain_win.c - the program's entry on Windows: the command line as UTF-8 (GetCommandLineW's
 * arguments, not the ANSI code page's), binary standard streams (the same bytes as on Linux),
 * UTF-8 on the console, escape sequences on a console that takes them; then src/main.c's
 * main, built as ws_main_utf8. Started as a live-check worker (src/win/live_proc_win.c), it
 * serves src/cudaworker.c's protocol on the named pipe it was given instead. */
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../live_wire.h"

int ws_main_utf8(int argc, char **argv);
int wmain(int argc, wchar_t **wargv);

/* --ws-live-worker PIPE FLAGS NOJIT DRIVER: make the pipe, wait for the parent, serve. */
static int live_worker(wchar_t **wargv, const char *driver)
{
	HANDLE h = CreateNamedPipeW(wargv[2], PIPE_ACCESS_DUPLEX | FILE_FLAG_FIRST_PIPE_INSTANCE,
				    PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1,
				    1 << 16, 1 << 16, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return 3;
	if (!ConnectNamedPipe(h, NULL) && GetLastError() != ERROR_PIPE_CONNECTED)
		return 3;
	int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
	if (fd < 0)
		return 3;
	unsigned flags = (unsigned)wcstoul(wargv[3], NULL, 10);
	bool nojit = wargv[4][0] == L'1';
	/* a driver that faults must end this process quietly, not raise a dialog */
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
	return ws_live_worker_main(fd, driver, flags, nojit);
}

/* Colour is escape sequences: a console shows them once asked to (Windows 10 and later). */
static void console_sequences(DWORD which)
{
	HANDLE h = GetStdHandle(which);
	DWORD mode;
	if (h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode))
		SetConsoleMode(h, mode | 0x0004 /* ENABLE_VIRTUAL_TERMINAL_PROCESSING */);
}

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
	if (argc == 6 && !wcscmp(wargv[1], L"--ws-live-worker"))
		return live_worker(wargv, argv[5]);
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	/* the names printed are UTF-8: a console shows them as such */
	SetConsoleOutputCP(CP_UTF8);
	console_sequences(STD_OUTPUT_HANDLE);
	console_sequences(STD_ERROR_HANDLE);
	return ws_main_utf8(argc, argv);
}
