/* live_proc_win.c - live_proc.h on Windows: each worker is this program started again.
 *
 *   wheelscan.exe ──named pipe── wheelscan.exe --ws-live-worker PIPE FLAGS NOJIT DRIVER
 *                                (src/win/wmain_win.c: src/cudaworker.c's worker on the pipe)
 *
 * There is no fork: the child makes the pipe, waits for the parent and serves the protocol of
 * src/live_wire.h unchanged. Reads have deadlines (the pipe is polled, so a hung worker cannot
 * block the parent); a worker past its deadline is terminated. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../live_proc.h"
#include "ws_util.h"

struct live_spawner {
	unsigned serial;           /* pipe names: one per worker start */
	char libpath[1024];
};

struct live_proc {
	HANDLE proc;
	HANDLE pipe;               /* NULL until connected */
};

void live_default_driver(char *buf, size_t len)
{
	/* System32's copy, never one beside the program or on PATH */
	wchar_t sys[MAX_PATH];
	UINT n = GetSystemDirectoryW(sys, MAX_PATH);
	char dir[3 * MAX_PATH] = "C:\\Windows\\System32";
	if (n > 0 && n < MAX_PATH)
		WideCharToMultiByte(CP_UTF8, 0, sys, -1, dir, sizeof dir, NULL, NULL);
	snprintf(buf, len, "%s\\nvcuda.dll", dir);
}

const char *live_default_driver_shown(void)
{
	return "nvcuda.dll (System32)";
}

void live_print_kernel_driver(FILE *f)
{
	(void)f;   /* Windows has no /proc/driver/nvidia/version to read; the driver's own version is shown */
}

long long live_now_ms(void)
{
	return (long long)GetTickCount64();
}

struct live_spawner *live_spawner_open(const char *libpath)
{
	struct live_spawner *s = calloc(1, sizeof *s);
	if (s)
		snprintf(s->libpath, sizeof s->libpath, "%s", libpath);
	return s;
}

void live_spawner_close(struct live_spawner *s)
{
	free(s);
}

static int read_by(struct live_proc *p, void *buf, size_t n, long long deadline)
{
	char *b = buf;
	while (n > 0) {
		DWORD avail = 0, got = 0;
		if (!PeekNamedPipe(p->pipe, NULL, 0, NULL, &avail, NULL))
			return -1;
		if (avail) {
			if (!ReadFile(p->pipe, b, avail < n ? avail : (DWORD)n, &got, NULL) || got == 0)
				return -1;
			b += got;
			n -= got;
			continue;
		}
		if (WaitForSingleObject(p->proc, 0) == WAIT_OBJECT_0) {
			/* it may have written its last bytes before exiting */
			if (PeekNamedPipe(p->pipe, NULL, 0, NULL, &avail, NULL) && avail)
				continue;
			return -1;
		}
		if (live_now_ms() >= deadline)
			return -2;
		Sleep(1);
	}
	return 0;
}

/* Writes block: the worker reads every request whole before it answers, so a write waits
 * at most for the worker to drain the pipe, and a worker that died fails it at once. */
static int write_all(struct live_proc *p, const void *buf, size_t n)
{
	const char *b = buf;
	while (n > 0) {
		DWORD put = 0, k = n > 0x100000u ? 0x100000u : (DWORD)n;
		if (!WriteFile(p->pipe, b, k, &put, NULL) || put == 0)
			return -1;
		b += put;
		n -= put;
	}
	return 0;
}

int live_proc_io(struct live_proc *p, void *buf, size_t n, bool wr, long long deadline)
{
	if (!p || !p->pipe)
		return -1;
	return wr ? write_all(p, buf, n) : read_by(p, buf, n, deadline);
}

static void describe_exit(char *buf, size_t len, HANDLE proc, const char *what)
{
	DWORD code = 0;
	if (proc && GetExitCodeProcess(proc, &code) && code != STILL_ACTIVE)
		snprintf(buf, len, "%s exited with code 0x%lx", what, (unsigned long)code);
	else
		snprintf(buf, len, "%s ended", what);
}

void live_proc_end(struct live_spawner *s, struct live_proc *p, bool force, char *why, size_t whylen)
{
	(void)s;
	if (!p)
		return;
	if (p->pipe)
		CloseHandle(p->pipe);   /* a healthy worker sees the pipe end and exits */
	if (force || WaitForSingleObject(p->proc, 10000) != WAIT_OBJECT_0)
		TerminateProcess(p->proc, 0xdead);
	WaitForSingleObject(p->proc, 5000);
	if (why)
		describe_exit(why, whylen, p->proc, "the CUDA worker");
	CloseHandle(p->proc);
	free(p);
}

struct live_proc *live_proc_start(struct live_spawner *s, unsigned flags, bool nojit, unsigned start_ms,
				  char *note, size_t len)
{
	/* the program's own path may be longer than MAX_PATH (a deep venv): Windows' limit */
	enum { EXE_MAX = 32768 };
	wchar_t name[96], *lib = ws_win_utf16(s->libpath), *exe = malloc(EXE_MAX * sizeof *exe);
	struct live_proc *p = calloc(1, sizeof *p);
	DWORD n = exe ? GetModuleFileNameW(NULL, exe, EXE_MAX) : 0;
	if (!p || !lib || n == 0 || n >= EXE_MAX) {
		free(p);
		free(lib);
		free(exe);
		snprintf(note, len, "no CUDA driver: cannot start a worker process for '%s' (no program path)", s->libpath);
		return NULL;
	}
	exe[n] = 0;
	swprintf(name, 96, L"\\\\.\\pipe\\wheelscan-live-%lu-%u", (unsigned long)GetCurrentProcessId(), ++s->serial);
	size_t cap = wcslen(exe) + wcslen(name) + wcslen(lib) + 96;
	wchar_t *cmd = malloc(cap * sizeof *cmd);
	if (cmd)
		swprintf(cmd, cap, L"\"%ls\" --ws-live-worker %ls %u %d \"%ls\"", exe, name, flags, nojit ? 1 : 0, lib);
	free(lib);
	STARTUPINFOW si = {0};
	PROCESS_INFORMATION pi = {0};
	si.cb = sizeof si;
	BOOL ok = cmd && CreateProcessW(exe, cmd, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
	DWORD err = GetLastError();
	free(cmd);
	free(exe);
	if (!ok) {
		free(p);
		snprintf(note, len, "no CUDA driver: cannot start a worker process for '%s' (error %lu)", s->libpath,
			 (unsigned long)err);
		return NULL;
	}
	CloseHandle(pi.hThread);
	p->proc = pi.hProcess;
	/* the worker makes the pipe; connect to it while it lives, within the start-up limit */
	long long deadline = live_now_ms() + start_ms;
	while (!p->pipe) {
		HANDLE h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
		if (h != INVALID_HANDLE_VALUE) {
			p->pipe = h;
			break;
		}
		if (WaitForSingleObject(p->proc, 0) == WAIT_OBJECT_0 || live_now_ms() >= deadline) {
			char why[96];
			live_proc_end(s, p, true, why, sizeof why);
			snprintf(note, len, "no CUDA driver: %s before it could be reached, starting with '%s'", why,
				 s->libpath);
			return NULL;
		}
		Sleep(2);
	}
	return p;
}
