/* cudaworker.c - the live-check worker process: loads libcuda, enumerates, probes, serves module loads.
 *
 * Runs only in a process forked by src/cudalive.c; the parent never touches the driver. Requests
 * and replies follow the protocol in src/ws_live.h. Every driver entry point is resolved by
 * name with dlsym, so the binary has no link-time dependency on libcuda.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live_wire.h"
#include "ws_live.h"
#include "ws_util.h"

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
};

struct drv {
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*DeviceTotalMem)(size_t *, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*PrimaryCtxRelease)(CUdevice);
	CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
	CUresult (*CtxDestroy)(CUcontext);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
	                         unsigned, unsigned, CUstream, void **, void **);
	CUresult (*CtxSynchronize)(void);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*FuncGetAttribute)(int *, int, CUfunction);   /* optional */
};

/* Entry points by name. Alternatives are tried in order; optional ones may be missing.
 * Contexts: the primary context (CUDA >= 7) or, failing that, cuCtxCreate_v2/cuCtxDestroy_v2. */
static const struct sym {
	const char *name, *alt;
	size_t off;
	bool optional;
} syms[] = {
#define S(field, name, alt, opt) { name, alt, offsetof(struct drv, field), opt }
	S(Init, "cuInit", NULL, false),
	S(DriverGetVersion, "cuDriverGetVersion", NULL, false),
	S(DeviceGetCount, "cuDeviceGetCount", NULL, false),
	S(DeviceGet, "cuDeviceGet", NULL, false),
	S(DeviceGetName, "cuDeviceGetName", NULL, false),
	S(DeviceGetAttribute, "cuDeviceGetAttribute", NULL, false),
	S(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, false),
	S(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, true),
	S(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", true),
	S(CtxCreate, "cuCtxCreate_v2", NULL, true),
	S(CtxDestroy, "cuCtxDestroy_v2", NULL, true),
	S(CtxSetCurrent, "cuCtxSetCurrent", NULL, false),
	S(ModuleLoadData, "cuModuleLoadData", NULL, false),
	S(ModuleUnload, "cuModuleUnload", NULL, false),
	S(ModuleGetFunction, "cuModuleGetFunction", NULL, false),
	S(MemAlloc, "cuMemAlloc_v2", NULL, false),
	S(MemFree, "cuMemFree_v2", NULL, false),
	S(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL, false),
	S(LaunchKernel, "cuLaunchKernel", NULL, false),
	S(CtxSynchronize, "cuCtxSynchronize", NULL, false),
	S(GetErrorName, "cuGetErrorName", NULL, true),
	S(FuncGetAttribute, "cuFuncGetAttribute", NULL, true),
#undef S
};

struct worker {
	struct drv d;
	const char *libpath;
	int ndev;
	struct ws_device dev[WS_LIVE_MAX_DEVICES];
	CUdevice cudev[WS_LIVE_MAX_DEVICES];
	CUcontext ctx[WS_LIVE_MAX_DEVICES];
	bool primary[WS_LIVE_MAX_DEVICES];
};

static bool write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static bool read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n > 0) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

/* The driver's own name for r when it has one (it knows codes newer than our table). */
static const char *errname(const struct worker *w, CUresult r)
{
	const char *s = NULL;
	if (w->d.GetErrorName && w->d.GetErrorName(r, &s) == 0 && s)
		return s;
	return ws_curesult_name(r);
}

static int load_driver(struct worker *w, char *note, size_t len)
{
	void *h = dlopen(w->libpath, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(note, len, "no CUDA driver: cannot load '%s': %s", w->libpath, e ? e : "unknown error");
		return -1;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(h, syms[i].name);
		if (!f && syms[i].alt)
			f = dlsym(h, syms[i].alt);
		if (!f && !syms[i].optional) {
			snprintf(note, len, "no CUDA driver: '%s' has no %s", w->libpath, syms[i].name);
			return -1;
		}
		/* POSIX guarantees that a dlsym result converts to a function pointer. */
		memcpy((char *)&w->d + syms[i].off, &f, sizeof f);
	}
	if (!(w->d.PrimaryCtxRetain && w->d.PrimaryCtxRelease) && !(w->d.CtxCreate && w->d.CtxDestroy)) {
		snprintf(note, len, "no CUDA driver: '%s' has neither cuDevicePrimaryCtxRetain nor cuCtxCreate_v2",
		         w->libpath);
		return -1;
	}
	return 0;
}

static int start(struct worker *w, int *driver, char *note, size_t len)
{
	if (load_driver(w, note, len) != 0)
		return -1;
	CUresult r = w->d.Init(0);
	if (r != 0) {
		snprintf(note, len, "no CUDA device: cuInit failed in '%s': %s (%d)", w->libpath, errname(w, r), r);
		return r;
	}
	if ((r = w->d.DriverGetVersion(driver)) != 0) {
		snprintf(note, len, "no CUDA driver: cuDriverGetVersion failed in '%s': %s (%d)",
		         w->libpath, errname(w, r), r);
		return r;
	}
	int n = 0;
	if ((r = w->d.DeviceGetCount(&n)) != 0 || n <= 0) {
		if (r)
			snprintf(note, len, "no CUDA device: cuDeviceGetCount failed in '%s': %s (%d)",
			         w->libpath, errname(w, r), r);
		else
			snprintf(note, len, "no CUDA device: '%s' reports 0 devices", w->libpath);
		return r ? r : CUDA_ERROR_NO_DEVICE;
	}
	w->ndev = n < WS_LIVE_MAX_DEVICES ? n : WS_LIVE_MAX_DEVICES;
	for (int i = 0; i < w->ndev; i++) {
		struct ws_device *dv = &w->dev[i];
		size_t mem = 0;
		const char *what = "cuDeviceGet";
		dv->index = i;
		if ((r = w->d.DeviceGet(&w->cudev[i], i)) == 0 &&
		    (what = "cuDeviceGetName", r = w->d.DeviceGetName(dv->name, (int)sizeof dv->name, w->cudev[i])) == 0 &&
		    (what = "cuDeviceGetAttribute", r = w->d.DeviceGetAttribute(&dv->cc_major,
		            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, w->cudev[i])) == 0 &&
		    (r = w->d.DeviceGetAttribute(&dv->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
		            w->cudev[i])) == 0 &&
		    (what = "cuDeviceTotalMem_v2", r = w->d.DeviceTotalMem(&mem, w->cudev[i])) == 0) {
			dv->name[sizeof dv->name - 1] = 0;
			dv->memory = mem;
			continue;
		}
		snprintf(note, len, "no CUDA device: %s failed for device %d in '%s': %s (%d)",
		         what, i, w->libpath, errname(w, r), r);
		return r;
	}
	return 0;
}

/* Makes device i's context current, creating it on first use. */
static CUresult use_device(struct worker *w, int i)
{
	CUresult r;
	if (!w->ctx[i]) {
		if (w->d.PrimaryCtxRetain && w->d.PrimaryCtxRelease) {
			r = w->d.PrimaryCtxRetain(&w->ctx[i], w->cudev[i]);
			w->primary[i] = r == 0;
		} else {
			r = w->d.CtxCreate(&w->ctx[i], 0, w->cudev[i]);
		}
		if (r != 0) {
			w->ctx[i] = NULL;
			return r;
		}
	}
	return w->d.CtxSetCurrent(w->ctx[i]);
}

/* Which image of our own probe fatbin the driver should pick for CC maj.min: the best SASS
 * (same major, highest minor <= device minor; doc/compat-rules.md §1), else 0 (PTX JIT). */
static int probe_sass_for(int maj, int min)
{
	const unsigned char *p = ws_probe_fatbin;
	uint64_t total = ws_probe_fatbin_len, off = 16, best = 0;
	if (total < 16 || ws_le32(p) != 0xBA55ED50u)
		return 0;
	while (ws_in_bounds(off, 64, total)) {
		uint32_t hs = ws_le32(p + off + 4);
		uint64_t ps = ws_le64(p + off + 8), next;
		uint32_t arch = ws_le32(p + off + 28);
		if (ws_le16(p + off) == WS_KIND_SASS && (int)(arch / 10) == maj && (int)(arch % 10) <= min &&
		    arch > best)
			best = arch;
		if (hs < 64 || !ws_add_u64(off, hs, &next) || !ws_add_u64(next, ps, &next) || next <= off)
			break;
		off = next;
	}
	return (int)best;
}

/* Loads our probe kernel, runs out[i] = a*i + b over n elements and checks every value. */
static void probe(struct worker *w, int i)
{
	struct ws_device *dv = &w->dev[i];
	enum { N = 1000, BLOCK = 128 };
	int a = 1000 + (int)(getpid() % 1000), b = -12345 - i, n = N;
	const char *what = "cuCtxSetCurrent", *from = "the fatbin";
	CUmodule m = NULL;
	CUfunction fn = NULL;
	CUdeviceptr buf = 0;
	int *out = NULL;
	CUresult r, rf;

	dv->probe_ran = true;
	if ((r = use_device(w, i)) != 0)
		goto fail;
	what = "cuModuleLoadData";
	if ((rf = r = w->d.ModuleLoadData(&m, ws_probe_fatbin)) != 0) {
		/* A driver older than our cubins' ABI may reject the fatbin: the lowered PTX text
		 * is the fallback that any driver since CUDA 9.0 can JIT. */
		from = "the PTX text";
		if ((r = w->d.ModuleLoadData(&m, ws_probe_ptx)) != 0) {
			snprintf(dv->probe_note, sizeof dv->probe_note, "%s: cuModuleLoadData (fatbin: %s, PTX: %s)",
			         errname(w, r), errname(w, rf), errname(w, r));
			dv->probe = r;
			goto out;
		}
	}
	what = "cuModuleGetFunction";
	if ((r = w->d.ModuleGetFunction(&fn, m, "ws_probe")) != 0)
		goto fail;
	what = "cuMemAlloc_v2";
	if ((r = w->d.MemAlloc(&buf, sizeof(int) * N)) != 0)
		goto fail;
	void *args[] = { &buf, &a, &b, &n };
	what = "cuLaunchKernel";
	if ((r = w->d.LaunchKernel(fn, (N + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL)) != 0)
		goto fail;
	what = "cuCtxSynchronize";
	if ((r = w->d.CtxSynchronize()) != 0)
		goto fail;
	out = malloc(sizeof(int) * N);
	what = "malloc";
	if (!out) {
		r = CUDA_ERROR_OUT_OF_MEMORY;
		goto fail;
	}
	memset(out, 0x7f, sizeof(int) * N);   /* a stale or untouched buffer cannot pass */
	what = "cuMemcpyDtoH_v2";
	if ((r = w->d.MemcpyDtoH(out, buf, sizeof(int) * N)) != 0)
		goto fail;
	for (int k = 0; k < N; k++) {
		int want = (int)((unsigned)a * (unsigned)k + (unsigned)b);
		if (out[k] != want) {
			dv->probe = WS_PROBE_WRONG_RESULT;
			snprintf(dv->probe_note, sizeof dv->probe_note,
			         "wrong result: element %d is %d, expected %d", k, out[k], want);
			goto out;
		}
	}
	int sass = rf == 0 ? probe_sass_for(dv->cc_major, dv->cc_minor) : 0, bin = 0;
	if (w->d.FuncGetAttribute && w->d.FuncGetAttribute(&bin, CU_FUNC_ATTRIBUTE_BINARY_VERSION, fn) != 0)
		bin = 0;
	if (sass)
		snprintf(dv->probe_note, sizeof dv->probe_note, "ok: SASS sm_%d from the fatbin", sass);
	else if (bin)
		snprintf(dv->probe_note, sizeof dv->probe_note, "ok: PTX JIT to sm_%d from %s", bin, from);
	else
		snprintf(dv->probe_note, sizeof dv->probe_note, "ok: PTX JIT from %s", from);
	dv->probe = 0;
	goto out;
fail:
	dv->probe = r;
	snprintf(dv->probe_note, sizeof dv->probe_note, "%s: %s", errname(w, r), what);
out:
	free(out);
	if (buf)
		w->d.MemFree(buf);
	if (m)
		w->d.ModuleUnload(m);
}

static CUresult load_one(struct worker *w, int i, const void *img)
{
	CUmodule m = NULL;
	CUresult r = use_device(w, i);
	if (r != 0)
		return r;
	if ((r = w->d.ModuleLoadData(&m, img)) == 0)
		w->d.ModuleUnload(m);
	return r;
}

static void serve(struct worker *w, int fd)
{
	struct ws_live_req q;
	while (read_full(fd, &q, sizeof q) && q.op == WS_LIVE_OP_LOAD) {
		int32_t res;
		/* +1: a trailing NUL, so PTX text that lacks one cannot be over-read by the driver. */
		unsigned char *img = q.len > 0 && q.len <= WS_LIVE_MAX_IMAGE ? malloc((size_t)q.len + 1) : NULL;
		if (!img)
			return;
		if (!read_full(fd, img, (size_t)q.len)) {
			free(img);
			return;
		}
		img[q.len] = 0;
		res = q.dev >= 0 && q.dev < w->ndev ? load_one(w, q.dev, img) : CUDA_ERROR_INVALID_DEVICE;
		free(img);
		if (!write_full(fd, &res, sizeof res))
			return;
	}
}

int ws_live_worker_main(int fd, const char *libpath, unsigned flags, bool nojit)
{
	static struct worker w;   /* large; the worker is a fresh process, so static is fine */
	struct ws_live_hello h;

	memset(&w, 0, sizeof w);
	memset(&h, 0, sizeof h);
	w.libpath = libpath;
	/* Set before cuInit, in the worker only (doc/compat-rules.md §5): under lazy loading a
	 * missing image shows only at the first launch, so a load would "succeed" for code that
	 * cannot run. The JIT switches are the user's to set for their own programs, but here they
	 * would change what a load measures: the normal worker clears them, the no-JIT worker sets
	 * CUDA_DISABLE_PTX_JIT (read at cuInit, hence a process of its own). */
	setenv("CUDA_MODULE_LOADING", "EAGER", 1);
	unsetenv("CUDA_FORCE_PTX_JIT");
	if (nojit)
		setenv("CUDA_DISABLE_PTX_JIT", "1", 1);
	else
		unsetenv("CUDA_DISABLE_PTX_JIT");

	h.magic = WS_LIVE_MAGIC;
	h.status = start(&w, &h.driver, h.note, sizeof h.note);
	if (h.status == 0) {
		h.ndevices = (uint32_t)w.ndev;
		if (flags & WS_LIVE_PROBE)
			for (int i = 0; i < w.ndev; i++)
				probe(&w, i);
	}
	if (!write_full(fd, &h, sizeof h) ||
	    (h.status == 0 && !write_full(fd, w.dev, sizeof w.dev[0] * h.ndevices)))
		return 1;
	if (h.status != 0)
		return 0;
	serve(&w, fd);
	for (int i = 0; i < w.ndev; i++) {
		if (!w.ctx[i])
			continue;
		if (w.primary[i])
			w.d.PrimaryCtxRelease(w.cudev[i]);
		else
			w.d.CtxDestroy(w.ctx[i]);
	}
	return 0;
}
