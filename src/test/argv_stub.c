/* argv_stub.c - the stand-in for pip and python in the command round trips
 * (src/test/commands.sh, src/test/windows/windows.sh): writes each argument after argv[0]
 * exactly as the program received it, each followed by a NUL byte, so that the test can
 * compare it with the words the command was made of. On Windows (MinGW, -municode) it
 * reads the wide-character argv the C runtime split from the command line cmd.exe passed,
 * and writes UTF-8. */
#include <stdio.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>

int wmain(int argc, wchar_t **argv)
{
	_setmode(_fileno(stdout), _O_BINARY);
	for (int i = 1; i < argc; i++) {
		char buf[65536];
		int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, buf, (int)sizeof buf, NULL, NULL);
		if (n <= 0)
			return 2;
		fwrite(buf, 1, (size_t)n, stdout);   /* n counts the terminating NUL */
	}
	return fflush(stdout) ? 2 : 0;
}
#else
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		fputs(argv[i], stdout);
		fputc(0, stdout);
	}
	return fflush(stdout) ? 2 : 0;
}
#endif
