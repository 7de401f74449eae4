/* fake_python.c - a stand-in python.exe for the pip guard under Wine
 * (src/test/windows/guard_wine.sh): no Windows CPython can be had here (Debian and PyPI
 * carry none that runs), so this MinGW program takes python.exe's place beside the app's
 * site-packages (python_embeded\python.exe, Lib\site-packages). It receives its argv as a
 * Windows program does (the command line wheelscan.exe built, split by the C runtime),
 * appends it to the file FAKE_PY_LOG names (UTF-8, each word NUL-terminated, each call
 * ended by a newline), and hands the words, with its own path first, to
 * src/test/windows/fake_pip.py run by the Linux python3 FAKE_PY_UNIX names (Wine starts a
 * Unix program from CreateProcessW): that answers the interpreter's questions and runs
 * the real pip for Windows (--platform win_amd64) against Wine's paths. Its output comes
 * back through files, copied here to this program's standard output and error. */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

static int put_words(FILE *f, int argc, wchar_t **argv)
{
	for (int i = 0; i < argc; i++) {
		char buf[32768];
		int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, buf, (int)sizeof buf, NULL, NULL);
		if (n <= 0)
			return -1;
		fwrite(buf, 1, (size_t)n, f);
	}
	return 0;
}

static void relay(const wchar_t *path, FILE *to)
{
	FILE *f = _wfopen(path, L"rb");
	char buf[65536];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, to);
	if (f)
		fclose(f);
	fflush(to);
	_wunlink(path);
}

int wmain(int argc, wchar_t **argv)
{
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	const wchar_t *log = _wgetenv(L"FAKE_PY_LOG"), *py = _wgetenv(L"FAKE_PY_UNIX"),
		      *script = _wgetenv(L"FAKE_PY_SCRIPT");
	if (!py || !script) {
		fputs("fake python.exe: FAKE_PY_UNIX and FAKE_PY_SCRIPT must be set\n", stderr);
		return 9;
	}
	if (log && *log) {
		FILE *f = _wfopen(log, L"ab");
		if (!f || put_words(f, argc - 1, argv + 1) < 0 || fputc('\n', f) == EOF || fclose(f))
			return 9;
	}
	/* the words, this program's own path first, in a file of the temporary folder */
	wchar_t dir[MAX_PATH + 1], words[MAX_PATH + 1], out[MAX_PATH + 8], err[MAX_PATH + 8], done[MAX_PATH + 8];
	wchar_t self[32768];
	DWORD sn = GetModuleFileNameW(NULL, self, sizeof self / sizeof *self);
	if (!GetTempPathW(sizeof dir / sizeof *dir, dir) || !GetTempFileNameW(dir, L"fpy", 0, words) || !sn ||
	    sn >= sizeof self / sizeof *self)
		return 9;
	swprintf(out, sizeof out / sizeof *out, L"%ls.out", words);
	swprintf(err, sizeof err / sizeof *err, L"%ls.err", words);
	swprintf(done, sizeof done / sizeof *done, L"%ls.rc", words);
	FILE *f = _wfopen(words, L"wb");
	wchar_t *me = self;
	if (!f || put_words(f, 1, &me) < 0 || put_words(f, argc - 1, argv + 1) < 0 || fclose(f))
		return 9;
	size_t len = wcslen(py) + wcslen(script) + 3 * (MAX_PATH + 8) + 16;
	wchar_t *cl = calloc(len, sizeof *cl);
	if (!cl)
		return 9;
	swprintf(cl, len, L"%ls %ls %ls %ls %ls %ls", py, script, words, out, err, done);
	STARTUPINFOW si = {.cb = sizeof si};
	PROCESS_INFORMATION pi;
	int rc = 9;
	if (!CreateProcessW(NULL, cl, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
		fprintf(stderr, "fake python.exe: cannot start %ls (%lu)\n", py, GetLastError());
	} else {
		/* Wine cannot wait for a Unix process: its handle is signalled at once and has no
		 * exit code; fake_pip.py writes its status into DONE (by a rename) when it ends */
		CloseHandle(pi.hProcess);
		CloseHandle(pi.hThread);
		for (int ms = 0; ms < 900000; ms += 20) {
			FILE *d = _wfopen(done, L"rb");
			if (d) {
				if (fscanf(d, "%d", &rc) != 1)
					rc = 9;
				fclose(d);
				_wunlink(done);
				break;
			}
			Sleep(20);
		}
	}
	free(cl);
	relay(out, stdout);
	relay(err, stderr);
	_wunlink(words);
	return rc;
}
