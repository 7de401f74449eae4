/* ws_live.h - the live check: devices, probe kernel and module loads through the CUDA Driver API.
 *
 * libcuda.so.1 is never linked: it is dlopen'ed (WHEELSCAN_LIBCUDA overrides the path) inside
 * worker processes, so that a driver that crashes or hangs on a hostile container cannot take
 * wheelscan down. The calling process never loads the driver and never calls cuInit. How the
 * workers are started is the platform's (src/live_proc.h): on Linux ws_live_open first forks
 * a small single-threaded spawner, and every worker (and every restart after a crash or
 * timeout) is forked from it; on Windows each is the program started again.
 *
 * Call ws_live_open before starting threads or installing a seccomp filter; one ws_live is not
 * thread-safe (serialise ws_live_load). Load results are
 * CUresult values (0 = CUDA_SUCCESS) or the WS_LIVE_* codes from wheelscan.h.
 */
#ifndef WS_LIVE_H
#define WS_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wheelscan.h"

/* ws_live_open flags */
#define WS_LIVE_PROBE       0x1u   /* launch the probe kernel on every device and check its output */
#define WS_LIVE_NOJIT_PASS  0x2u   /* also start a worker with CUDA_DISABLE_PTX_JIT=1 (SASS-only pass) */

#define WS_LIVE_MAX_DEVICES 64
#define WS_LIVE_DEFAULT_TIMEOUT_MS 20000u      /* per module load */
#define WS_LIVE_DEFAULT_START_TIMEOUT_MS 60000u /* dlopen + cuInit + enumeration + probe */
#define WS_LIVE_DEFAULT_BUDGET_S 300u           /* all loads of a run together (--live-budget) */

/* struct ws_device.probe when the probe ran and the values read back were wrong */
#define WS_PROBE_WRONG_RESULT (-5)

struct ws_device {
	int index;                 /* CUdevice ordinal (after CUDA_VISIBLE_DEVICES) */
	char name[256];
	int cc_major, cc_minor;
	uint64_t memory;           /* bytes (cuDeviceTotalMem) */
	bool probe_ran;            /* WS_LIVE_PROBE was asked for and the probe was attempted */
	int probe;                 /* 0 ok; a CUresult; WS_PROBE_WRONG_RESULT */
	char probe_note[128];      /* "ok: SASS sm_90 from the fatbin", "CUDA_ERROR_...: cuModuleLoadData" */
};

struct ws_live;                /* opaque: the spawner and worker processes */

/* Starts the worker(s), loads the driver there, enumerates the devices and, with WS_LIVE_PROBE,
 * runs the probe. Returns NULL and a one-line note in note[] ("no CUDA driver: cannot load
 * 'libcuda.so.1': ...", "no CUDA device: ...") when there is no usable driver or device.
 * The time limits come from WHEELSCAN_LIVE_TIMEOUT_MS when set (loads and start-up alike). */
struct ws_live *ws_live_open(unsigned flags, char *note, size_t notelen);
void ws_live_close(struct ws_live *l);

/* cuDriverGetVersion: 1000*major + 10*minor (13000 = CUDA 13.0). */
int ws_live_driver_version(const struct ws_live *l);
/* The devices found; *out stays valid until ws_live_close. */
size_t ws_live_devices(const struct ws_live *l, const struct ws_device **out);
/* Per-load time limit in milliseconds (0 restores the default). */
void ws_live_set_timeout(struct ws_live *l, unsigned ms);
/* The per-load time limit in force, in milliseconds. */
unsigned ws_live_timeout(const struct ws_live *l);
/* True when the JIT-disabled worker is running (WS_LIVE_NOJIT_PASS and it started). */
bool ws_live_has_nojit(const struct ws_live *l);

/* Loads one container (fatbin, cubin or NUL-terminated PTX) with cuModuleLoadData on device
 * index dev (0-based, as in ws_live_devices) and unloads it again; no kernel is launched.
 * Returns 0, the CUresult, WS_LIVE_CRASH or WS_LIVE_TIMEOUT (the worker is restarted before the
 * next load), or WS_LIVE_NOT_RUN when the arguments are bad or no worker can be started.
 * nojit selects the CUDA_DISABLE_PTX_JIT=1 worker. */
int ws_live_load(struct ws_live *l, int dev, const uint8_t *p, size_t n, bool nojit);
/* Why the last load gave WS_LIVE_CRASH/TIMEOUT/NOT_RUN ("worker killed by signal 11"), or "". */
const char *ws_live_last_note(const struct ws_live *l);

/* "CUDA_SUCCESS", "CUDA_ERROR_NO_BINARY_FOR_GPU", ...; WS_LIVE_CRASH -> "crash",
 * WS_LIVE_TIMEOUT -> "timeout", WS_LIVE_NOT_RUN -> "not-run", WS_LIVE_SKIPPED -> "skipped";
 * an unknown code -> "CUDA_ERROR_<n>" (in a per-thread buffer). Never NULL. */
const char *ws_curesult_name(int r);

struct ws_findings;
struct ws_target;
/* The loads measured (f->live, f->live_nojit) against the verdicts predicted for each of nt
 * targets: a live-mismatch finding per container and target that disagree, and per target a
 * live-unconfirmed one when loads did not answer (timeout, crash, the budget spent). Link
 * inputs are set aside (their loads marked skipped). Returns the mismatches (run_live.c). */
size_t ws_live_compare(const struct ws_target *targets, size_t nt, struct ws_artifact *a, struct ws_findings *fs);

/* The environment diagnosis for --env: driver and CUDA version, each device (name, compute
 * capability, memory, probe), and the user's CUDA_* variables. l may be NULL: then note is
 * printed as the reason. */
void ws_live_print_env(FILE *f, const struct ws_live *l, const char *note);

/* The user's value of one of the CUDA_* variables that --env reports (the workers override some
 * of them in their own environment only), or NULL when unset. */
const char *ws_live_user_env(const char *name);

#endif
