/* argv_stub.c - the stand-in for pip and python in the command round trips
 * (src/test/commands.sh, src/test/windows/cmd_roundtrip.sh): writes each argument after
 * argv[0] exactly as the program received it, each followed by a NUL byte, so that the test
 * can compare it with the words the command was made of; to stdout, or to the file named by
 * WS_ARGV_OUT (a console, Wine's included, may mangle bytes on their way to a pipe).
 *
 * On Windows (MinGW, -municode) it writes, as UTF-8, the wide-character argv the C runtime
 * it is linked with (MinGW's default, msvcrt.dll) split from the command line cmd.exe passed.
 * Python's python.exe is built with the Universal CRT, so with WS_ARGV_UCRT naming a file
 * it also writes what ucrtbase.dll's own splitting (_configure_wide_argv, the code a UCRT
 * program's startup runs) makes of the same command line: the two must agree. */
#include <stdio.h>
#include <stdlib.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>

static int write_words(FILE *f, int argc, wchar_t **argv)
{
	for (int i = 1; i < argc; i++) {
		char buf[65536];
		int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, buf, (int)sizeof buf, NULL, NULL);
		if (n <= 0)
			return 2;
		fwrite(buf, 1, (size_t)n, f);   /* n counts the terminating NUL */
	}
	return fflush(f) || ferror(f) ? 2 : 0;
}

static FILE *open_out(const wchar_t *var)
{
	const wchar_t *p = _wgetenv(var);
	if (!p || !*p) {
		_setmode(_fileno(stdout), _O_BINARY);
		return stdout;
	}
	return _wfopen(p, L"wb");
}

/* ucrtbase.dll's argv: _configure_wide_argv(1) (_crt_argv_unexpanded_arguments) splits
 * GetCommandLineW() as a UCRT program's startup code does */
static int write_ucrt_words(void)
{
	const wchar_t *p = _wgetenv(L"WS_ARGV_UCRT");
	if (!p || !*p)
		return 0;
	HMODULE u = LoadLibraryW(L"ucrtbase.dll");
	if (!u)
		return 3;
	int (*configure)(int) = (int (*)(int))(void (*)(void))GetProcAddress(u, "_configure_wide_argv");
	int *(*pargc)(void) = (int *(*)(void))(void (*)(void))GetProcAddress(u, "__p___argc");
	wchar_t ***(*pargv)(void) = (wchar_t ***(*)(void))(void (*)(void))GetProcAddress(u, "__p___wargv");
	if (!configure || !pargc || !pargv || configure(1) != 0)
		return 3;
	FILE *f = _wfopen(p, L"wb");
	if (!f)
		return 2;
	int rc = write_words(f, *pargc(), *pargv());
	return fclose(f) ? 2 : rc;
}

int wmain(int argc, wchar_t **argv)
{
	FILE *f = open_out(L"WS_ARGV_OUT");
	if (!f)
		return 2;
	int rc = write_words(f, argc, argv);
	if (f != stdout && fclose(f))
		rc = 2;
	int u = write_ucrt_words();
	return rc ? rc : u;
}
#else
int main(int argc, char **argv)
{
	const char *p = getenv("WS_ARGV_OUT");
	FILE *f = p && *p ? fopen(p, "wb") : stdout;
	if (!f)
		return 2;
	for (int i = 1; i < argc; i++) {
		fputs(argv[i], f);
		fputc(0, f);
	}
	return fflush(f) || ferror(f) ? 2 : 0;
}
#endif
