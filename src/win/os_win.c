/* os_win.c - the operating system interface of ws_os.h on Windows: drive-letter and UNC
 * paths, and CreateProcessW with a pipe for a child's output. */
#include <windows.h>
#include <stdio.h>
#include <string.h>

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

int ws_spawn_capture(const char *const *argv, char *out, size_t outlen, char *why, size_t whylen)
{
	struct ws_buf cmd = {0};
	size_t got = 0;
	out[0] = 0;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			ws_buf_add(&cmd, " ", 1);
		if (!quote_arg(&cmd, argv[i])) {
			ws_fmt(why, whylen, "cannot run '%s': out of memory", argv[0]);
			ws_buf_free(&cmd);
			return -1;
		}
	}
	ws_buf_add(&cmd, "", 1);
	wchar_t *wcmd = cmd.failed ? NULL : ws_win_utf16(cmd.p);
	ws_buf_free(&cmd);
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
		ws_fmt(why, whylen, "cannot run '%s': %s", argv[0],
		       err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? "No such file or directory"
										: "CreateProcess failed");
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

/* The pip guard is not yet built for Windows (issue 37, item 4): each says so. */
int ws_spawn_wait(const char *const *argv, unsigned timeout_s, bool stdout_to_stderr, char *why, size_t whylen)
{
	(void)timeout_s;
	(void)stdout_to_stderr;
	ws_fmt(why, whylen, "cannot run '%s': the pip guard does not run on Windows yet", argv[0]);
	return -1;
}

bool ws_self_dir(char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return false;
}

bool ws_temp_dir(char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return false;
}

int ws_run_confined(int (*fn)(void *), void *ctx, bool sandbox, const char *const *readable, size_t n, char **out,
		    size_t max, char *why, size_t whylen)
{
	(void)sandbox, (void)readable, (void)n, (void)out, (void)max;
	ws_fmt(why, whylen, "not confined on Windows");
	return out ? -1 : fn(ctx);
}
