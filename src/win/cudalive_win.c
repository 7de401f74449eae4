/* cudalive_win.c - ws_live.h on Windows: the live check's workers are child processes, as on
 * Linux, so that a driver that crashes or hangs cannot take wheelscan down.
 *
 *   wheelscan.exe ──named pipe── wheelscan.exe --ws-live-worker PIPE FLAGS NOJIT DRIVER
 *                                (src/win/wmain_win.c: src/cudaworker.c's worker on the pipe)
 *
 * There is no fork: each worker is this program started again, which makes the pipe, waits
 * for the parent and serves the protocol of src/live_wire.h unchanged. The driver is
 * nvcuda.dll from System32 (WHEELSCAN_LIBCUDA names another file, as on Linux). Reads have
 * deadlines (the pipe is polled); a worker past its deadline is terminated, one that died
 * is reported, and either is started again for the next load. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../live_wire.h"
#include "ws_live.h"
#include "ws_quote.h"
#include "ws_util.h"

struct worker {
	HANDLE proc;               /* NULL when not running */
	HANDLE pipe;
	bool nojit;
};

struct ws_live {
	unsigned flags;
	struct worker w[2];        /* [0] normal, [1] JIT disabled */
	bool nojit_ok;
	int driver;
	struct ws_device dev[WS_LIVE_MAX_DEVICES];
	size_t ndev;
	unsigned timeout_ms, start_ms;
	char libpath[1024];
	char last[256];
};

static unsigned serial;        /* pipe names: one per worker start */

/* n bytes from the worker by the deadline (GetTickCount64 ms): 0; -1 it died or closed;
 * -2 the deadline passed. The pipe is polled, so a hung worker cannot block the parent. */
static int read_by(struct worker *w, void *buf, size_t n, ULONGLONG deadline)
{
	char *p = buf;
	while (n > 0) {
		DWORD avail = 0, got = 0;
		if (!PeekNamedPipe(w->pipe, NULL, 0, NULL, &avail, NULL))
			return -1;
		if (avail) {
			if (!ReadFile(w->pipe, p, avail < n ? avail : (DWORD)n, &got, NULL) || got == 0)
				return -1;
			p += got;
			n -= got;
			continue;
		}
		if (WaitForSingleObject(w->proc, 0) == WAIT_OBJECT_0) {
			/* it may have written its last bytes before exiting */
			if (PeekNamedPipe(w->pipe, NULL, 0, NULL, &avail, NULL) && avail)
				continue;
			return -1;
		}
		if (GetTickCount64() >= deadline)
			return -2;
		Sleep(1);
	}
	return 0;
}

static bool write_all(struct worker *w, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		DWORD put = 0, k = n > 0x100000u ? 0x100000u : (DWORD)n;
		if (!WriteFile(w->pipe, p, k, &put, NULL) || put == 0)
			return false;
		p += put;
		n -= put;
	}
	return true;
}

static void describe_exit(char *buf, size_t len, struct worker *w, const char *what)
{
	DWORD code = 0;
	if (w->proc && GetExitCodeProcess(w->proc, &code) && code != STILL_ACTIVE)
		snprintf(buf, len, "%s: worker exited with code 0x%lx", what, (unsigned long)code);
	else
		snprintf(buf, len, "%s: worker closed its pipe", what);
}

static void stop_worker(struct worker *w, bool force)
{
	if (!w->proc)
		return;
	if (w->pipe && !force) {
		struct ws_live_req q = {WS_LIVE_OP_QUIT, 0, 0};
		write_all(w, &q, sizeof q);
		if (WaitForSingleObject(w->proc, 2000) != WAIT_OBJECT_0)
			force = true;
	}
	if (force)
		TerminateProcess(w->proc, 0xdead);
	WaitForSingleObject(w->proc, 5000);
	if (w->pipe)
		CloseHandle(w->pipe);
	CloseHandle(w->proc);
	w->proc = w->pipe = NULL;
}

/* Starts w and reads its hello and devices into l; 0, or -1 with the reason in note. */
static int start_worker(struct ws_live *l, struct worker *w, unsigned flags, char *note, size_t len)
{
	/* the program's own path may be longer than MAX_PATH (a deep venv): Windows' limit */
	enum { EXE_MAX = 32768 };
	wchar_t name[96], *lib = ws_win_utf16(l->libpath), *exe = malloc(EXE_MAX * sizeof *exe);
	DWORD n = exe ? GetModuleFileNameW(NULL, exe, EXE_MAX) : 0;
	if (!lib || n == 0 || n >= EXE_MAX) {
		free(lib);
		free(exe);
		snprintf(note, len, "no CUDA driver: cannot start the live-check worker (no program path)");
		return -1;
	}
	exe[n] = 0;
	swprintf(name, 96, L"\\\\.\\pipe\\wheelscan-live-%lu-%u", (unsigned long)GetCurrentProcessId(), ++serial);
	size_t cap = wcslen(exe) + wcslen(name) + wcslen(lib) + 96;
	wchar_t *cmd = malloc(cap * sizeof *cmd);
	if (!cmd) {
		free(lib);
		free(exe);
		snprintf(note, len, "no CUDA driver: out of memory");
		return -1;
	}
	swprintf(cmd, cap, L"\"%ls\" --ws-live-worker %ls %u %d \"%ls\"", exe, name, flags, w->nojit ? 1 : 0, lib);
	free(lib);
	STARTUPINFOW si = {0};
	PROCESS_INFORMATION pi = {0};
	si.cb = sizeof si;
	BOOL ok = CreateProcessW(exe, cmd, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
	free(cmd);
	free(exe);
	if (!ok) {
		snprintf(note, len, "no CUDA driver: cannot start the live-check worker (error %lu)", GetLastError());
		return -1;
	}
	CloseHandle(pi.hThread);
	w->proc = pi.hProcess;
	w->pipe = NULL;
	/* the worker makes the pipe; connect to it while it lives, within the start-up limit */
	ULONGLONG deadline = GetTickCount64() + l->start_ms;
	while (!w->pipe) {
		HANDLE h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
		if (h != INVALID_HANDLE_VALUE) {
			w->pipe = h;
			break;
		}
		if (WaitForSingleObject(w->proc, 0) == WAIT_OBJECT_0 || GetTickCount64() >= deadline) {
			describe_exit(note, len, w, "no CUDA driver: the live-check worker did not start");
			stop_worker(w, true);
			return -1;
		}
		Sleep(2);
	}
	struct ws_live_hello h;
	int r = read_by(w, &h, sizeof h, deadline);
	if (r != 0 || h.magic != WS_LIVE_MAGIC) {
		if (r == -2)
			snprintf(note, len, "no CUDA driver: the driver did not start within %u ms", l->start_ms);
		else
			describe_exit(note, len, w, "no CUDA driver: the live-check worker failed");
		stop_worker(w, true);
		return -1;
	}
	if (h.status != 0) {
		h.note[sizeof h.note - 1] = 0;
		snprintf(note, len, "%s", h.note);
		stop_worker(w, true);
		return -1;
	}
	if (h.ndevices > WS_LIVE_MAX_DEVICES ||
	    read_by(w, l->dev, sizeof l->dev[0] * h.ndevices, deadline) != 0) {
		snprintf(note, len, "no CUDA driver: the live-check worker sent a bad device list");
		stop_worker(w, true);
		return -1;
	}
	for (uint32_t i = 0; i < h.ndevices; i++) {
		l->dev[i].name[sizeof l->dev[i].name - 1] = 0;
		l->dev[i].probe_note[sizeof l->dev[i].probe_note - 1] = 0;
	}
	l->driver = h.driver;
	l->ndev = h.ndevices;
	return 0;
}

static unsigned env_ms(void)
{
	const char *e = getenv("WHEELSCAN_LIVE_TIMEOUT_MS");
	char *end;
	unsigned long v = e && *e ? strtoul(e, &end, 10) : 0;
	return v > 0 && v < 86400000ul && *end == 0 ? (unsigned)v : 0;
}

struct ws_live *ws_live_open(unsigned flags, char *note, size_t notelen)
{
	struct ws_live *l = calloc(1, sizeof *l);
	if (!l) {
		snprintf(note, notelen, "no CUDA driver: out of memory");
		return NULL;
	}
	l->flags = flags;
	l->timeout_ms = env_ms() ? env_ms() : WS_LIVE_DEFAULT_TIMEOUT_MS;
	l->start_ms = env_ms() ? env_ms() : WS_LIVE_DEFAULT_START_TIMEOUT_MS;
	const char *lib = getenv("WHEELSCAN_LIBCUDA");
	if (lib && *lib) {
		snprintf(l->libpath, sizeof l->libpath, "%s", lib);
	} else {
		/* System32's copy, never one beside the program or on PATH */
		wchar_t sys[MAX_PATH];
		UINT n = GetSystemDirectoryW(sys, MAX_PATH);
		char dir[3 * MAX_PATH] = "C:\\Windows\\System32";
		if (n > 0 && n < MAX_PATH)
			WideCharToMultiByte(CP_UTF8, 0, sys, -1, dir, sizeof dir, NULL, NULL);
		snprintf(l->libpath, sizeof l->libpath, "%s\\nvcuda.dll", dir);
	}
	l->w[1].nojit = true;
	if (start_worker(l, &l->w[0], flags, note, notelen) != 0) {
		free(l);
		return NULL;
	}
	if (l->ndev == 0) {
		snprintf(note, notelen, "no CUDA device: the driver found none");
		ws_live_close(l);
		return NULL;
	}
	if (flags & WS_LIVE_NOJIT_PASS) {
		char n2[256];
		struct ws_device keep[WS_LIVE_MAX_DEVICES];
		size_t nkeep = l->ndev;
		memcpy(keep, l->dev, sizeof keep);
		l->nojit_ok = start_worker(l, &l->w[1], flags & ~WS_LIVE_PROBE, n2, sizeof n2) == 0;
		memcpy(l->dev, keep, sizeof keep);  /* the probe results are the normal worker's */
		l->ndev = nkeep;
	}
	return l;
}

void ws_live_close(struct ws_live *l)
{
	if (!l)
		return;
	stop_worker(&l->w[0], false);
	stop_worker(&l->w[1], false);
	free(l);
}

int ws_live_driver_version(const struct ws_live *l) { return l->driver; }

size_t ws_live_devices(const struct ws_live *l, const struct ws_device **out)
{
	*out = l->dev;
	return l->ndev;
}

void ws_live_set_timeout(struct ws_live *l, unsigned ms) { l->timeout_ms = ms ? ms : WS_LIVE_DEFAULT_TIMEOUT_MS; }
unsigned ws_live_timeout(const struct ws_live *l) { return l->timeout_ms; }
bool ws_live_has_nojit(const struct ws_live *l) { return l->nojit_ok; }
const char *ws_live_last_note(const struct ws_live *l) { return l->last; }

int ws_live_load(struct ws_live *l, int dev, const uint8_t *p, size_t n, bool nojit)
{
	l->last[0] = 0;
	if (!l || dev < 0 || (size_t)dev >= l->ndev || !p || n == 0 || n > WS_LIVE_MAX_IMAGE || (nojit && !l->nojit_ok))
		return WS_LIVE_NOT_RUN;
	struct worker *w = &l->w[nojit ? 1 : 0];
	if (!w->proc) {
		/* restarted after a crash or a timeout; its device list is the one we have */
		char note[256];
		struct ws_device keep[WS_LIVE_MAX_DEVICES];
		size_t nkeep = l->ndev;
		memcpy(keep, l->dev, sizeof keep);
		int r = start_worker(l, w, l->flags & ~WS_LIVE_PROBE, note, sizeof note);
		memcpy(l->dev, keep, sizeof keep);
		l->ndev = nkeep;
		if (r != 0) {
			snprintf(l->last, sizeof l->last, "%s", note);
			return WS_LIVE_NOT_RUN;
		}
	}
	struct ws_live_req q = {WS_LIVE_OP_LOAD, dev, n};
	int32_t res = 0;
	if (!write_all(w, &q, sizeof q) || !write_all(w, p, n)) {
		describe_exit(l->last, sizeof l->last, w, "load");
		stop_worker(w, true);
		return WS_LIVE_CRASH;
	}
	int r = read_by(w, &res, sizeof res, GetTickCount64() + l->timeout_ms);
	if (r == -2) {
		snprintf(l->last, sizeof l->last, "worker killed after %u ms without an answer", l->timeout_ms);
		stop_worker(w, true);
		return WS_LIVE_TIMEOUT;
	}
	if (r != 0) {
		WaitForSingleObject(w->proc, 2000);
		describe_exit(l->last, sizeof l->last, w, "load");
		stop_worker(w, true);
		return WS_LIVE_CRASH;
	}
	return res;
}

const char *ws_live_user_env(const char *name)
{
	/* wheelscan itself never changes these: the workers set their own copies */
	return name ? getenv(name) : NULL;
}

void ws_live_print_env(FILE *f, const struct ws_live *l, const char *note)
{
	static const char *const vars[] = {
		"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT",
		"CUDA_DISABLE_PTX_JIT", "CUDA_LAUNCH_BLOCKING",
	};
	const char *lib = getenv("WHEELSCAN_LIBCUDA");
	fprintf(f, "driver library: %s\n", ws_q_text(l ? l->libpath : lib && *lib ? lib : "nvcuda.dll (System32)"));
	if (!l) {
		fprintf(f, "CUDA driver: none (%s)\n", ws_q_text(note && *note ? note : "not opened"));
	} else {
		fprintf(f, "CUDA driver: CUDA %d.%d (cuDriverGetVersion %d)\n", l->driver / 1000, l->driver % 1000 / 10,
			l->driver);
		size_t ran = 0, ok = 0;
		for (size_t i = 0; i < l->ndev; i++) {
			const struct ws_device *d = &l->dev[i];
			fprintf(f, "device %d: %s, compute capability %d.%d (sm_%d%d), %.1f GiB", d->index, ws_q_text(d->name),
				d->cc_major, d->cc_minor, d->cc_major, d->cc_minor, (double)d->memory / (1024.0 * 1024 * 1024));
			if (d->probe_ran)
				fprintf(f, ", probe %s", ws_q_text(d->probe_note));
			fputc('\n', f);
			ran += d->probe_ran;
			ok += d->probe_ran && d->probe == 0;
		}
		if (!(l->flags & WS_LIVE_PROBE))
			fprintf(f, "probe kernel: not run\n");
		else
			fprintf(f, "probe kernel: ran on %zu of %zu device%s, %zu ok\n", ran, l->ndev, l->ndev == 1 ? "" : "s", ok);
	}
	fprintf(f, "environment (as given to wheelscan):\n");
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = ws_live_user_env(vars[i]);
		fprintf(f, "  %s=%s\n", vars[i], ws_q_text(v ? v : "(unset)"));
	}
	fprintf(f, "live-check workers use CUDA_MODULE_LOADING=EAGER and clear CUDA_FORCE_PTX_JIT/"
		   "CUDA_DISABLE_PTX_JIT (the no-JIT pass sets CUDA_DISABLE_PTX_JIT=1)\n");
}
