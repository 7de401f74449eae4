/* os_win.c - the operating system interface of ws_os.h on Windows: drive-letter and UNC
 * paths, CreateProcessW with a pipe for a child's output, and what the pip guard needs
 * (a program run under a job object with a time limit, this exe's folder, a private
 * temporary folder). */
#include <windows.h>
#include <bcrypt.h>
#include <errno.h>
#include <io.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ws_os.h"
#include "ws_util.h"

bool ws_path_absolute(const char *path)
{
	if (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':' && (path[2] == '\\' || path[2] == '/'))
		return true;
	return (path[0] == '\\' || path[0] == '/') && (path[1] == '\\' || path[1] == '/');
}

/* One argument quoted for CommandLineToArgvW's rules (what the C runtime parses). */
static bool quote_arg(struct ws_buf *b, const char *a)
{
	if (*a && !strpbrk(a, " \t\n\v\"")) {
		ws_buf_add(b, a, strlen(a));
		return !b->failed;
	}
	ws_buf_add(b, "\"", 1);
	for (const char *p = a;; p++) {
		size_t bs = 0;
		while (*p == '\\')
			p++, bs++;
		if (!*p) {
			for (size_t i = 0; i < bs * 2; i++)
				ws_buf_add(b, "\\", 1);
			break;
		}
		for (size_t i = 0; i < (*p == '"' ? bs * 2 + 1 : bs); i++)
			ws_buf_add(b, "\\", 1);
		ws_buf_add(b, p, 1);
	}
	ws_buf_add(b, "\"", 1);
	return !b->failed;
}

/* The program and its arguments as one command line the C runtime splits back into argv
 * (quote_arg: python.exe's UCRT and pip's own parse it so); NULL when out of memory. */
static wchar_t *command_line(const char *const *argv)
{
	struct ws_buf cmd = {0};
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			ws_buf_add(&cmd, " ", 1);
		quote_arg(&cmd, argv[i]);
	}
	ws_buf_add(&cmd, "", 1);
	wchar_t *w = cmd.failed ? NULL : ws_win_utf16(cmd.p);
	ws_buf_free(&cmd);
	return w;
}

/* Why CreateProcess failed, in the words the POSIX side uses. */
static void spawn_failed(char *why, size_t whylen, const char *prog, DWORD err)
{
	ws_fmt(why, whylen, "cannot run '%s': %s", prog,
	       err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? "No such file or directory"
									: "CreateProcess failed");
}

int ws_spawn_capture(const char *const *argv, char *out, size_t outlen, char *why, size_t whylen)
{
	size_t got = 0;
	out[0] = 0;
	wchar_t *wcmd = command_line(argv);
	SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
	HANDLE rd = NULL, wr = NULL;
	if (!wcmd || !CreatePipe(&rd, &wr, &sa, 0)) {
		ws_fmt(why, whylen, "cannot run '%s': %s", argv[0], wcmd ? "no pipe" : "out of memory");
		free(wcmd);
		return -1;
	}
	SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
	STARTUPINFOW si = {0};
	PROCESS_INFORMATION pi = {0};
	si.cb = sizeof si;
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdOutput = wr;
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	BOOL ok = CreateProcessW(NULL, wcmd, NULL, NULL, TRUE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
	DWORD err = GetLastError();
	free(wcmd);
	CloseHandle(wr);
	if (!ok) {
		CloseHandle(rd);
		spawn_failed(why, whylen, argv[0], err);
		return -1;
	}
	for (;;) {
		DWORD r = 0;
		if (got >= outlen - 1 || !ReadFile(rd, out + got, (DWORD)(outlen - 1 - got), &r, NULL) || r == 0)
			break;
		got += r;
	}
	CloseHandle(rd);
	WaitForSingleObject(pi.hProcess, INFINITE);
	DWORD code = 1;
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hProcess);
	CloseHandle(pi.hThread);
	/* "\r\n" line ends as "\n", as the callers split them */
	size_t j = 0;
	for (size_t i = 0; i < got; i++)
		if (!(out[i] == '\r' && i + 1 < got && out[i + 1] == '\n'))
			out[j++] = out[i];
	out[j] = 0;
	if (code > 255) {
		ws_fmt(why, whylen, "exit code 0x%lx", (unsigned long)code);
		return -2;
	}
	ws_fmt(why, whylen, "exit status %lu", (unsigned long)code);
	return (int)code;
}

/* ---- the pip guard (src/guard.c) ------------------------------------------------------ */

/* UTF-16 to UTF-8 into buf; false when it does not fit. */
static bool utf8_of(const wchar_t *w, char *buf, size_t len)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)(len > INT_MAX ? INT_MAX : len), NULL, NULL);
	return n > 0;
}

/* A job object ends the program and everything it started (pip's build backends) at the
 * time limit, as the process group does on Linux; standard input is the NUL device. */
int ws_spawn_wait(const char *const *argv, unsigned timeout_s, bool stdout_to_stderr, char *why, size_t whylen)
{
	wchar_t *wcmd = command_line(argv);
	if (!wcmd) {
		ws_fmt(why, whylen, "cannot run '%s': out of memory", argv[0]);
		return -1;
	}
	SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
	HANDLE nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
	HANDLE job = CreateJobObjectW(NULL, NULL);
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim = {0};
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (job)
		SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof lim);
	STARTUPINFOW si = {0};
	PROCESS_INFORMATION pi = {0};
	si.cb = sizeof si;
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = nul;
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	si.hStdOutput = stdout_to_stderr ? si.hStdError : GetStdHandle(STD_OUTPUT_HANDLE);
	fflush(stdout);
	fflush(stderr);
	BOOL ok = nul != INVALID_HANDLE_VALUE &&
		  CreateProcessW(NULL, wcmd, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi);
	DWORD err = GetLastError();
	free(wcmd);
	if (nul != INVALID_HANDLE_VALUE)
		CloseHandle(nul);
	if (!ok) {
		if (job)
			CloseHandle(job);
		spawn_failed(why, whylen, argv[0], err);
		return -1;
	}
	if (job)
		AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	DWORD w = WaitForSingleObject(pi.hProcess, timeout_s ? (DWORD)timeout_s * 1000u : INFINITE);
	bool timed_out = w == WAIT_TIMEOUT;
	if (timed_out) {
		if (job)
			TerminateJobObject(job, 1);
		else
			TerminateProcess(pi.hProcess, 1);
		WaitForSingleObject(pi.hProcess, 5000);
	}
	DWORD code = 1;
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hProcess);
	CloseHandle(pi.hThread);
	if (job)
		CloseHandle(job);
	if (timed_out) {
		ws_fmt(why, whylen, "'%s' ran past the time limit of %u s and was ended", argv[0], timeout_s);
		return -3;
	}
	if (code > 255) {                  /* an exception's code (0xC0000005), not exit() */
		ws_fmt(why, whylen, "'%s' ended with exception 0x%lx", argv[0], (unsigned long)code);
		return -2;
	}
	ws_fmt(why, whylen, "exit status %lu", (unsigned long)code);
	return (int)code;
}

/* GetModuleFileNameW: Scripts\wheelscan.exe of an app's embedded Python, whose python.exe
 * is one folder up (src/guard.c tries "../python.exe"). Spelled with '/' as the guard
 * joins names with it. */
bool ws_self_dir(char *buf, size_t len)
{
	wchar_t w[32768];
	DWORD n = GetModuleFileNameW(NULL, w, sizeof w / sizeof *w);
	if (n == 0 || n >= sizeof w / sizeof *w || !utf8_of(w, buf, len))
		return false;
	char *slash = strrchr(buf, '\\'), *fwd = strrchr(buf, '/');
	if (fwd > slash)
		slash = fwd;
	if (!slash)
		return false;
	*slash = 0;
	for (char *p = buf; *p; p++)
		if (*p == '\\')
			*p = '/';
	return true;
}

/* GetTempPathW, then a folder of a random name that did not exist (CreateDirectoryW
 * fails on one that does), '/' for '\' as above. */
bool ws_temp_dir(char *buf, size_t len)
{
	wchar_t base[MAX_PATH + 1], w[MAX_PATH + 64];
	DWORD n = GetTempPathW(sizeof base / sizeof *base, base);
	if (n == 0 || n > MAX_PATH)
		return false;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[8];
		if (BCryptGenRandom(NULL, r, sizeof r, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return false;
		swprintf(w, sizeof w / sizeof *w, L"%lswheelscan-%02x%02x%02x%02x%02x%02x%02x%02x", base, r[0], r[1], r[2],
			 r[3], r[4], r[5], r[6], r[7]);
		if (CreateDirectoryW(w, NULL)) {
			if (!utf8_of(w, buf, len))
				return false;
			for (char *p = buf; *p; p++)
				if (*p == '\\')
					*p = '/';
			return true;
		}
		if (GetLastError() != ERROR_ALREADY_EXISTS)
			return false;
	}
	return false;
}

/* A file in the user's temporary folder, deleted when closed (msvcrt's "D"): tmpfile()
 * writes into the root of the current drive, which a user may not write to. */
static FILE *temp_file(void)
{
	wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];
	DWORD n = GetTempPathW(sizeof dir / sizeof *dir, dir);
	if (n == 0 || n > MAX_PATH || !GetTempFileNameW(dir, L"ws", 0, name))
		return NULL;
	return _wfopen(name, L"w+bD");
}

/* No fork: fn runs here, unconfined. With out, its standard output goes to a temporary
 * file for the time (the descriptor 1 redirected, as fn writes with stdio) and is read
 * back: the guard prints the JSON report after the install. */
int ws_run_confined(int (*fn)(void *), void *ctx, bool sandbox, const char *const *readable, size_t n, char **out,
		    size_t max, char *why, size_t whylen)
{
	(void)sandbox, (void)readable, (void)n;
	if (!out)
		return fn(ctx);
	*out = NULL;
	FILE *tmp = temp_file();
	int saved = _dup(1);
	if (!tmp || saved < 0 || (fflush(stdout), _dup2(_fileno(tmp), 1)) < 0) {
		if (tmp)
			fclose(tmp);
		if (saved >= 0)
			_close(saved);
		ws_fmt(why, whylen, "cannot keep the judgement's output: %s", strerror(errno));
		return -1;
	}
	int rc = fn(ctx);
	fflush(stdout);
	_dup2(saved, 1);
	_close(saved);
	long size = (fseek(tmp, 0, SEEK_END), ftell(tmp));
	if (size < 0 || (size_t)size > max) {
		fclose(tmp);
		ws_fmt(why, whylen, size < 0 ? "cannot read the judgement's output" : "the judgement wrote more than %zu bytes",
		       max);
		return -1;
	}
	char *doc = malloc((size_t)size + 1);
	rewind(tmp);
	if (!doc || fread(doc, 1, (size_t)size, tmp) != (size_t)size) {
		free(doc);
		fclose(tmp);
		ws_fmt(why, whylen, "cannot read the judgement's output");
		return -1;
	}
	doc[size] = 0;
	fclose(tmp);
	*out = doc;
	return rc;
}
