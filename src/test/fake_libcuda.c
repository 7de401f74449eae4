/* fake_libcuda.c - a stand-in libcuda.so.1 for tests: the entry points wheelscan uses, with
 * module loads decided from the container bytes by the rules of doc/compat-rules.md.
 *
 * Built at test time: cc -shared -fPIC -o DIR/libcuda.so.1 src/test/fake_libcuda.c
 * (-DFAKE_OMIT_LOAD leaves out cuModuleLoadData, to test a driver that lacks an entry point).
 *
 * Knobs (environment, read when used):
 *   FAKE_CUDA_DEVICES="9.0:NVIDIA H200,12.0:NVIDIA GeForce RTX 5090"  (default "9.0:NVIDIA H200";
 *                      an optional third field gives the memory in MiB: "8.6:A10:24576"; "" = none)
 *   FAKE_CUDA_DRIVER=12080        cuDriverGetVersion (default 13000); PTX newer than it -> 222
 *   FAKE_CUDA_INIT_ERROR=100      cuInit returns this CUresult
 *   FAKE_CUDA_CRASH_ON_INIT=1     cuInit raises SIGSEGV
 *   FAKE_CUDA_CRASH_ON_LOAD=MARK  cuModuleLoadData raises SIGSEGV when the image contains the bytes
 *                                 MARK ("*" = every load)
 *   FAKE_CUDA_HANG_ON_LOAD=MARK   cuModuleLoadData sleeps forever on such an image
 *   FAKE_CUDA_LOAD_RESULT=209     every cuModuleLoadData of a container without the bytes "ws_probe"
 *                                 returns this CUresult (a lying driver: provokes live mismatches)
 *   FAKE_CUDA_PROBE_WRONG=1       launched kernels write a wrong value at element 7
 *   FAKE_CUDA_LOG=FILE            append one line per cuInit: pid and the CUDA_* settings seen
 *   FAKE_CUDA_FD_LOG=FILE         append one line per cuInit: "fds" and what each descriptor above
 *                                 2 the worker holds names (what a driver could reach)
 *   FAKE_CUDA_LOAD_LOG=FILE       append one line per cuModuleLoadData of a container that is not
 *                                 the probe: its size (how often wheelscan loaded what)
 * Behaviour read from the real variables at cuInit: CUDA_MODULE_LOADING (anything but EAGER makes
 * every container load succeed, as lazy loading defers the check to the first launch),
 * CUDA_DISABLE_PTX_JIT=1 (PTX-only -> 223), CUDA_FORCE_PTX_JIT=1 (cubins ignored).
 */
#define _GNU_SOURCE   /* memmem */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define MAXDEV 16
#define SUCCESS 0
#define INVALID_VALUE 1
#define NOT_INITIALIZED 3
#define NO_DEVICE 100
#define INVALID_DEVICE 101
#define INVALID_IMAGE 200
#define INVALID_CONTEXT 201
#define NO_BINARY_FOR_GPU 209
#define UNSUPPORTED_PTX_VERSION 222
#define JIT_DISABLED 223
#define INVALID_HANDLE 400
#define NOT_FOUND 500

struct fdev { int major, minor; char name[128]; unsigned long long mem; };
struct fctx { int dev; };
struct ffun { char name[64]; };
struct fmod { unsigned char *img; size_t len; struct ffun fn; };

static struct fdev devs[MAXDEV];
static struct fctx ctxs[MAXDEV];
static int ndev = -1, current = -1;
static int eager, nojit, forcejit;

static const char *env(const char *n) { const char *v = getenv(n); return v && *v ? v : NULL; }
/* A real crash even under a sanitizer that would catch SIGSEGV and exit normally. */
static void crash(void) { signal(SIGSEGV, SIG_DFL); raise(SIGSEGV); }
static int flag(const char *n) { const char *v = env(n); return v && strcmp(v, "1") == 0; }

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static void parse_devices(void)
{
	const char *s = getenv("FAKE_CUDA_DEVICES");
	char buf[1024];
	ndev = 0;
	snprintf(buf, sizeof buf, "%s", s ? s : "9.0:NVIDIA H200");
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && ndev < MAXDEV; t = strtok_r(NULL, ",", &save)) {
		struct fdev *d = &devs[ndev];
		char *name = strchr(t, ':');
		if (sscanf(t, "%d.%d", &d->major, &d->minor) != 2)
			continue;
		snprintf(d->name, sizeof d->name, "%s", name ? name + 1 : "Fake GPU");
		char *mem = strchr(d->name, ':');
		d->mem = 80ull << 30;
		if (mem) {
			*mem = 0;
			d->mem = strtoull(mem + 1, NULL, 10) << 20;
		}
		ndev++;
	}
}

/* One line: every descriptor above stderr and what it names (its /proc/self/fd link). */
static void log_fds(const char *path)
{
	FILE *f = fopen(path, "a");
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	if (f && d) {
		fprintf(f, "fds");
		while ((de = readdir(d))) {
			char link[64], target[4096];
			int fd = atoi(de->d_name);
			if (de->d_name[0] < '0' || de->d_name[0] > '9' || fd <= 2 || fd == dirfd(d) || fd == fileno(f))
				continue;
			snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
			ssize_t n = readlink(link, target, sizeof target - 1);
			target[n > 0 ? n : 0] = 0;
			fprintf(f, " %d=%s", fd, target);
		}
		fprintf(f, "\n");
	}
	if (d)
		closedir(d);
	if (f)
		fclose(f);
}

CUresult cuInit(unsigned flags)
{
	const char *v;
	if (flags != 0)
		return INVALID_VALUE;
	if (flag("FAKE_CUDA_CRASH_ON_INIT"))
		crash();
	if ((v = env("FAKE_CUDA_LOG"))) {
		FILE *f = fopen(v, "a");
		if (f) {
			fprintf(f, "cuInit pid=%d CUDA_MODULE_LOADING=%s CUDA_DISABLE_PTX_JIT=%s CUDA_FORCE_PTX_JIT=%s\n",
			        (int)getpid(), env("CUDA_MODULE_LOADING") ? env("CUDA_MODULE_LOADING") : "-",
			        env("CUDA_DISABLE_PTX_JIT") ? env("CUDA_DISABLE_PTX_JIT") : "-",
			        env("CUDA_FORCE_PTX_JIT") ? env("CUDA_FORCE_PTX_JIT") : "-");
			fclose(f);
		}
	}
	if ((v = env("FAKE_CUDA_FD_LOG")))
		log_fds(v);
	if ((v = env("FAKE_CUDA_INIT_ERROR")))
		return atoi(v);
	v = env("CUDA_MODULE_LOADING");
	eager = v && strcmp(v, "EAGER") == 0;
	nojit = flag("CUDA_DISABLE_PTX_JIT");
	forcejit = flag("CUDA_FORCE_PTX_JIT");
	parse_devices();
	return ndev > 0 ? SUCCESS : NO_DEVICE;
}

static int driver_version(void) { const char *v = env("FAKE_CUDA_DRIVER"); return v ? atoi(v) : 13000; }

CUresult cuDriverGetVersion(int *v) { if (!v) return INVALID_VALUE; *v = driver_version(); return SUCCESS; }
CUresult cuDeviceGetCount(int *n) { if (ndev < 0) return NOT_INITIALIZED; *n = ndev; return SUCCESS; }
CUresult cuDeviceGet(int *d, int i) { if (ndev < 0) return NOT_INITIALIZED; if (i < 0 || i >= ndev) return INVALID_DEVICE; *d = i; return SUCCESS; }

CUresult cuDeviceGetName(char *name, int len, int d)
{
	if (d < 0 || d >= ndev) return INVALID_DEVICE;
	if (!name || len <= 0) return INVALID_VALUE;
	snprintf(name, (size_t)len, "%s", devs[d].name);
	return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
	if (d < 0 || d >= ndev) return INVALID_DEVICE;
	if (attr == 75) *v = devs[d].major;
	else if (attr == 76) *v = devs[d].minor;
	else return INVALID_VALUE;
	return SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *b, int d) { if (d < 0 || d >= ndev) return INVALID_DEVICE; *b = devs[d].mem; return SUCCESS; }

CUresult cuDevicePrimaryCtxRetain(void **ctx, int d)
{
	if (d < 0 || d >= ndev) return INVALID_DEVICE;
	ctxs[d].dev = d;
	*ctx = &ctxs[d];
	return SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(int d) { return d < 0 || d >= ndev ? INVALID_DEVICE : SUCCESS; }
CUresult cuCtxCreate_v2(void **ctx, unsigned f, int d) { (void)f; return cuDevicePrimaryCtxRetain(ctx, d); }
CUresult cuCtxDestroy_v2(void *ctx) { (void)ctx; return SUCCESS; }

CUresult cuCtxSetCurrent(void *ctx)
{
	if (!ctx) { current = -1; return SUCCESS; }
	current = ((struct fctx *)ctx)->dev;
	return SUCCESS;
}

/* Minimum driver (1000*major + 10*minor) for a PTX ISA: doc/compat-rules.md §4. */
static int ptx_min_driver(int maj, int min)
{
	if (maj < 6) return 0;
	if (maj == 6) return min <= 2 ? 9000 + 10 * min : 10000 + 10 * (min - 3);
	if (maj == 7) return 11000 + 10 * min;
	if (maj == 8) return min <= 5 ? 12000 + 10 * min : 12010 + 10 * min;   /* 8.6 -> 12.7 */
	if (maj == 9) return 13000 + 10 * min;
	return 1 << 30;
}

/* Does an image for arch (SM number) with suffix 'a'/'f'/0 serve the device? sass: same major,
 * minor <= device ('a': exactly the device; 'f': the same family); ptx: arch <= device. */
static int serves(unsigned arch, char suffix, int sass, const struct fdev *d)
{
	unsigned dv = (unsigned)(d->major * 10 + d->minor);
	if (suffix == 'a') return arch == dv;
	if (suffix == 'f' || sass) return arch / 10 == (unsigned)d->major && arch % 10 <= (unsigned)d->minor;
	return arch <= dv;
}

static CUresult judge_fatbin(const unsigned char *p, size_t n, const struct fdev *d)
{
	if (n < 16 || le32(p) != 0xBA55ED50u || (p[4] | p[5] << 8) != 1) return INVALID_IMAGE;
	uint64_t hs = p[6] | p[7] << 8, fat = le64(p + 8), off = hs;
	if (hs != 16 || fat > n - 16) return INVALID_IMAGE;
	int sass_ok = 0, ptx_seen = 0, ptx_ok = 0;
	while (off + 64 <= 16 + fat) {
		const unsigned char *e = p + off;
		unsigned kind = e[0] | e[1] << 8, ehs = le32(e + 4), arch = le32(e + 28);
		uint64_t ps = le64(e + 8), fl = le64(e + 40);
		int maj = e[26] | e[27] << 8, min = e[24] | e[25] << 8;
		char suf = fl & 0x100000 ? 'a' : fl & 0x200000 ? 'f' : 0;
		if (ehs < 64 || ehs > 16 + fat - off || ps > 16 + fat - off - ehs) return INVALID_IMAGE;
		if (kind == 2 && !forcejit && serves(arch, suf, 1, d)) sass_ok = 1;
		if (kind == 1 && serves(arch, suf, 0, d)) {
			ptx_seen = 1;
			if (driver_version() >= ptx_min_driver(maj, min)) ptx_ok = 1;
		}
		off += ehs + ps;
	}
	if (sass_ok) return SUCCESS;
	if (!ptx_seen) return NO_BINARY_FOR_GPU;
	if (nojit) return JIT_DISABLED;
	return ptx_ok ? SUCCESS : UNSUPPORTED_PTX_VERSION;
}

/* The first line that starts with the directive (comments start with "//"). */
static const char *directive(const char *s, const char *name)
{
	size_t k = strlen(name);
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		l += strspn(l, " \t");
		if (strncmp(l, name, k) == 0)
			return l;
	}
	return NULL;
}

/* NUL-terminated PTX text: ".version X.Y" and ".target sm_NN[a|f]". */
static CUresult judge_ptx(const char *s, const struct fdev *d)
{
	const char *v = directive(s, ".version"), *t = directive(s, ".target");
	int maj, min;
	unsigned arch;
	char suf = 0;
	if (!v || !t || sscanf(v, ".version %d.%d", &maj, &min) != 2 || sscanf(t, ".target sm_%u%c", &arch, &suf) < 1)
		return 218;   /* CUDA_ERROR_INVALID_PTX */
	if (suf != 'a' && suf != 'f') suf = 0;
	if (!serves(arch, suf, 0, d)) return NO_BINARY_FOR_GPU;
	if (nojit) return JIT_DISABLED;
	return driver_version() >= ptx_min_driver(maj, min) ? SUCCESS : UNSUPPORTED_PTX_VERSION;
}

static int marked(const char *knob, const unsigned char *p, size_t n)
{
	const char *m = env(knob);
	return m && (strcmp(m, "*") == 0 || memmem(p, n, m, strlen(m)) != NULL);
}

#ifdef FAKE_OMIT_LOAD
#define LOAD_VISIBILITY __attribute__((visibility("hidden")))
#else
#define LOAD_VISIBILITY
#endif
LOAD_VISIBILITY CUresult cuModuleLoadData(void **mod, const void *image);
CUresult cuModuleLoadData(void **mod, const void *image)
{
	const unsigned char *p = image;
	size_t n;
	CUresult r;
	if (ndev < 0) return NOT_INITIALIZED;
	if (current < 0) return INVALID_CONTEXT;
	if (!mod || !p) return INVALID_VALUE;
	if (le32(p) == 0xBA55ED50u) n = 16 + le64(p + 8);
	else n = strlen((const char *)p);
	if (env("FAKE_CUDA_LOAD_LOG") && !memmem(p, n, "ws_probe", 8)) {
		FILE *f = fopen(env("FAKE_CUDA_LOAD_LOG"), "a");
		if (f) {
			fprintf(f, "load %zu\n", n);
			fclose(f);
		}
	}
	if (marked("FAKE_CUDA_CRASH_ON_LOAD", p, n)) crash();
	if (marked("FAKE_CUDA_HANG_ON_LOAD", p, n)) for (;;) pause();
	if (env("FAKE_CUDA_LOAD_RESULT") && !memmem(p, n, "ws_probe", 8))
		return atoi(env("FAKE_CUDA_LOAD_RESULT"));
	r = le32(p) == 0xBA55ED50u ? judge_fatbin(p, n, &devs[current]) : judge_ptx((const char *)p, &devs[current]);
	if (r == NO_BINARY_FOR_GPU && !eager) r = SUCCESS;   /* lazy loading: found out at launch */
	if (r != SUCCESS) return r;
	struct fmod *m = calloc(1, sizeof *m);
	if (!m || !(m->img = malloc(n))) { free(m); return 2; }
	memcpy(m->img, p, n);
	m->len = n;
	*mod = m;
	return SUCCESS;
}

CUresult cuModuleUnload(void *mod)
{
	struct fmod *m = mod;
	if (!m) return INVALID_HANDLE;
	free(m->img);
	free(m);
	return SUCCESS;
}

/* A kernel exists when its name appears in the (uncompressed) image. */
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name)
{
	struct fmod *m = mod;
	if (!m || !name) return INVALID_HANDLE;
	if (!memmem(m->img, m->len, name, strlen(name))) return NOT_FOUND;
	snprintf(m->fn.name, sizeof m->fn.name, "%s", name);
	*fn = &m->fn;   /* owned by the module, as a real CUfunction is */
	return SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *fn)
{
	if (!fn) return INVALID_HANDLE;
	if (attr != 6 || current < 0) return INVALID_VALUE;
	*v = devs[current].major * 10 + devs[current].minor;
	return SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	if (current < 0) return INVALID_CONTEXT;
	void *m = calloc(1, n ? n : 1);
	if (!m) return 2;
	*p = (CUdeviceptr)(uintptr_t)m;
	return SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return SUCCESS; }
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return SUCCESS; }

/* Runs ws_probe(int *out, int a, int b, int n) the way the real kernel does, over the grid. */
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shmem, void *stream, void **params, void **extra)
{
	struct ffun *f = fn;
	(void)gy; (void)gz; (void)by; (void)bz; (void)shmem; (void)stream; (void)extra;
	if (!f || !params) return INVALID_VALUE;
	if (strcmp(f->name, "ws_probe") != 0) return NOT_FOUND;
	int *out = (int *)(uintptr_t)*(CUdeviceptr *)params[0];
	int a = *(int *)params[1], b = *(int *)params[2], n = *(int *)params[3];
	for (unsigned long long i = 0; i < (unsigned long long)gx * bx; i++)
		if ((long long)i < n)
			out[i] = (int)((unsigned)a * (unsigned)i + (unsigned)b);
	if (flag("FAKE_CUDA_PROBE_WRONG") && n > 7)
		out[7] ^= 1;
	return SUCCESS;
}

CUresult cuCtxSynchronize(void) { return current < 0 ? INVALID_CONTEXT : SUCCESS; }

CUresult cuGetErrorName(CUresult r, const char **s)
{
	switch (r) {
	case SUCCESS: *s = "CUDA_SUCCESS"; return SUCCESS;
	case NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return SUCCESS;
	case NO_BINARY_FOR_GPU: *s = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return SUCCESS;
	default: *s = NULL; return INVALID_VALUE;
	}
}
