/* test_live.c - the live check end to end against the stand-in driver src/test/fake_libcuda.c,
 * which this test compiles into a temporary libcuda.so.1 ($CC or cc) at run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "ws_live.h"
#include "../live_wire.h"          /* the embedded probe, private to the live check */

static char dir[] = "/tmp/ws-test-live-XXXXXX";
static char lib[256], lib_noload[256], logpath[256];

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

struct img { uint8_t b[4096]; size_t n; };

/* A container: 16-byte header, then entries appended by add(). */
static void mk(struct img *c)
{
	memset(c, 0, sizeof *c);
	put32(c->b, 0xBA55ED50u);
	put16(c->b + 4, 1);
	put16(c->b + 6, 16);
	c->n = 16;
}

/* kind 1 PTX / 2 SASS; suffix 'a'/'f'/0; isa = major*10+minor for PTX; payload text. */
static void add(struct img *c, unsigned kind, unsigned arch, char suffix, unsigned isa, const char *text)
{
	uint8_t *e = c->b + c->n;
	size_t len = strlen(text) + 1, pad = (len + 7) & ~(size_t)7;
	put16(e, kind);
	put16(e + 2, 0x0101);
	put32(e + 4, 64);
	put64(e + 8, pad);
	put16(e + 24, kind == 1 ? isa % 10 : 8);
	put16(e + 26, kind == 1 ? isa / 10 : 1);
	put32(e + 28, arch);
	put64(e + 40, 0x11u | (suffix == 'a' ? 0x100000u : suffix == 'f' ? 0x200000u : 0));
	memcpy(e + 64, text, len);
	c->n += 64 + pad;
	put64(c->b + 8, c->n - 16);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long len;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len < (1 << 24) && fseek(f, 0, SEEK_SET) == 0 &&
	    (p = malloc((size_t)len + 1)) && fread(p, 1, (size_t)len, f) == (size_t)len) {
		p[len] = 0;   /* text files are read as strings */
		*n = (size_t)len;
	} else {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static int build_fake(void)
{
	const char *cc = getenv("CC");
	char cmd[1024];
	if (!cc || !*cc)
		cc = "cc";
	if (!mkdtemp(dir))
		return -1;
	snprintf(lib, sizeof lib, "%s/libcuda.so.1", dir);
	snprintf(lib_noload, sizeof lib_noload, "%s/noload/libcuda.so.1", dir);
	snprintf(logpath, sizeof logpath, "%s/log", dir);
	/* No sanitizer flags: the fake is loaded into workers of an ASan build only through dlopen. */
	snprintf(cmd, sizeof cmd,
	         "%s -shared -fPIC -O1 -o %s src/test/fake_libcuda.c && mkdir -p %s/noload && "
	         "%s -shared -fPIC -O1 -DFAKE_OMIT_LOAD -o %s src/test/fake_libcuda.c",
	         cc, lib, dir, cc, lib_noload);
	return system(cmd) == 0 ? 0 : -1;
}

static void clear_env(void)
{
	static const char *const v[] = {
		"FAKE_CUDA_DEVICES", "FAKE_CUDA_DRIVER", "FAKE_CUDA_INIT_ERROR", "FAKE_CUDA_CRASH_ON_INIT",
		"FAKE_CUDA_CRASH_ON_LOAD", "FAKE_CUDA_HANG_ON_LOAD", "FAKE_CUDA_PROBE_WRONG", "FAKE_CUDA_LOG",
		"CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT", "WHEELSCAN_LIVE_TIMEOUT_MS",
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		unsetenv(v[i]);
	setenv("WHEELSCAN_LIBCUDA", lib, 1);
}

static void test_names(void)
{
	CHECK_EQ_STR(ws_curesult_name(0), "CUDA_SUCCESS");
	CHECK_EQ_STR(ws_curesult_name(209), "CUDA_ERROR_NO_BINARY_FOR_GPU");
	CHECK_EQ_STR(ws_curesult_name(222), "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
	CHECK_EQ_STR(ws_curesult_name(223), "CUDA_ERROR_JIT_COMPILATION_DISABLED");
	CHECK_EQ_STR(ws_curesult_name(999), "CUDA_ERROR_UNKNOWN");
	CHECK_EQ_STR(ws_curesult_name(WS_LIVE_CRASH), "crash");
	CHECK_EQ_STR(ws_curesult_name(WS_LIVE_TIMEOUT), "timeout");
	CHECK_EQ_STR(ws_curesult_name(12345), "CUDA_ERROR_12345");
	/* The embedded probe: a fatbin, and PTX lowered to ISA 6.0 / sm_50, NUL-terminated. */
	CHECK(ws_probe_fatbin_len > 16 && ws_probe_fatbin[0] == 0x50 && ws_probe_fatbin[3] == 0xBA, "fatbin magic");
	CHECK(ws_probe_ptx_len > 1 && ws_probe_ptx[ws_probe_ptx_len - 1] == 0, "PTX not NUL-terminated");
	CHECK(strstr((const char *)ws_probe_ptx, "\n.version 6.0\n") != NULL, "PTX ISA");
	CHECK(strstr((const char *)ws_probe_ptx, "\n.target sm_50\n") != NULL, "PTX target");
	CHECK(strstr((const char *)ws_probe_ptx, ".entry ws_probe(") != NULL, "PTX entry");
}

static void expect_fail(const char *what, const char *needle1, const char *needle2)
{
	char note[512] = "";
	struct ws_live *l = ws_live_open(WS_LIVE_PROBE, note, sizeof note);
	CHECK(l == NULL, "%s: opened", what);
	ws_live_close(l);
	CHECK(strstr(note, needle1) != NULL, "%s: note '%s' lacks '%s'", what, note, needle1);
	CHECK(strstr(note, needle2) != NULL, "%s: note '%s' lacks '%s'", what, note, needle2);
	CHECK(strchr(note, '\n') == NULL, "%s: note is not one line", what);
}

static void test_failures(void)
{
	clear_env();
	setenv("WHEELSCAN_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	expect_fail("no library", "no CUDA driver: cannot load '/nonexistent/libcuda.so.1': ",
	            "cannot open shared object file");
	setenv("WHEELSCAN_LIBCUDA", lib_noload, 1);
	expect_fail("missing entry point", "no CUDA driver: '", "' has no cuModuleLoadData");
	clear_env();
	setenv("FAKE_CUDA_INIT_ERROR", "100", 1);
	expect_fail("cuInit 100", "no CUDA device: cuInit failed in '", "CUDA_ERROR_NO_DEVICE (100)");
	setenv("FAKE_CUDA_INIT_ERROR", "999", 1);
	expect_fail("cuInit 999", lib, "CUDA_ERROR_UNKNOWN (999)");
	clear_env();
	setenv("FAKE_CUDA_DEVICES", "", 1);
	expect_fail("no devices", "no CUDA device", "(100)");
	clear_env();
	setenv("FAKE_CUDA_CRASH_ON_INIT", "1", 1);
	expect_fail("crash in cuInit", "killed by signal 11", lib);
	clear_env();
}

/* Device list of the main test, by index. */
#define DEVICES "9.0:NVIDIA H200:143771,12.0:NVIDIA GeForce RTX 5090:32607,12.1:NVIDIA GB10,10.3:NVIDIA B300," \
                "8.0:NVIDIA A100-SXM4-80GB,11.0:NVIDIA Thor,7.0:Tesla V100,10.0:NVIDIA B200,8.9:NVIDIA L40S"
enum { H200, RTX5090, GB10, B300, A100, THOR, V100, B200, L40S, NDEV };

static const struct fixture {
	const char *file;
	int want[NDEV];   /* H200 5090 GB10 B300 A100 Thor V100 B200 L40S */
	int nojit[NDEV];  /* the same with CUDA_DISABLE_PTX_JIT=1 */
} fixtures[] = {
	{ "arch-plain.fatbin", { 0, 0, 0, 0, 0, 0, 209, 0, 0 }, { 0, 0, 0, 0, 0, 0, 209, 0, 0 } },
	{ "arch-a.fatbin", { 0, 0, 209, 209, 209, 209, 209, 0, 209 }, { 0, 0, 209, 209, 209, 209, 209, 0, 209 } },
	{ "arch-f.fatbin", { 209, 0, 0, 0, 209, 0, 209, 0, 209 }, { 209, 0, 0, 0, 209, 0, 209, 0, 209 } },
	{ "ptx-only-80.fatbin", { 0, 0, 0, 0, 0, 0, 209, 0, 0 }, { 223, 223, 223, 223, 223, 223, 209, 223, 223 } },
	{ "ptx-a-100a.fatbin", { 209, 209, 209, 209, 209, 209, 209, 0, 209 }, { 209, 209, 209, 209, 209, 209, 209, 223, 209 } },
	{ "sm_86-only.fatbin", { 209, 209, 209, 209, 209, 209, 209, 209, 0 }, { 209, 209, 209, 209, 209, 209, 209, 209, 0 } },
	{ "sm_80-compute_80.fatbin", { 0, 0, 0, 0, 0, 0, 209, 0, 0 }, { 223, 223, 223, 223, 0, 223, 209, 223, 0 } },
};

static void test_fixtures(struct ws_live *l, bool nojit)
{
	int nfound = 0;
	for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
		char path[256];
		size_t n = 0;
		snprintf(path, sizeof path, "testdata/fixtures/%s", fixtures[f].file);
		uint8_t *p = slurp(path, &n);
		if (!p)
			continue;
		nfound++;
		for (int d = 0; d < NDEV; d++) {
			int want = nojit ? fixtures[f].nojit[d] : fixtures[f].want[d];
			int got = ws_live_load(l, d, p, n, nojit);
			CHECK(got == want, "%s on device %d%s: %s, expected %s", fixtures[f].file, d,
			      nojit ? " (no JIT)" : "", ws_curesult_name(got), ws_curesult_name(want));
		}
		free(p);
	}
	if (nfound == 0)
		printf("# testdata/fixtures missing: only crafted containers checked\n");
}

static void expect_load(struct ws_live *l, const char *what, const struct img *c, int dev, bool nojit, int want)
{
	int got = ws_live_load(l, dev, c->b, c->n, nojit);
	CHECK(got == want, "%s on device %d%s: %s, expected %s", what, dev, nojit ? " (no JIT)" : "",
	      ws_curesult_name(got), ws_curesult_name(want));
}

static const char ptx80[] = ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";

static void test_main(void)
{
	char note[512] = "";
	const struct ws_device *dv = NULL;
	struct img sass90, sass90a, sass100f, sass120f, ptx, ptxa, ptx_new, bad;

	clear_env();
	setenv("FAKE_CUDA_DEVICES", DEVICES, 1);
	setenv("FAKE_CUDA_LOG", logpath, 1);
	/* The user's settings: the workers must override them in their own environment only. */
	setenv("CUDA_MODULE_LOADING", "LAZY", 1);
	setenv("CUDA_FORCE_PTX_JIT", "1", 1);
	unlink(logpath);
	struct ws_live *l = ws_live_open(WS_LIVE_PROBE | WS_LIVE_NOJIT_PASS, note, sizeof note);
	CHECK(l != NULL, "open: %s", note);
	if (!l)
		return;
	CHECK_EQ_STR(note, "");
	CHECK_EQ_INT(ws_live_driver_version(l), 13000);
	CHECK(ws_live_has_nojit(l), "no JIT-disabled worker");
	CHECK_EQ_INT(ws_live_devices(l, &dv), NDEV);
	CHECK_EQ_STR(dv[H200].name, "NVIDIA H200");
	CHECK_EQ_INT(dv[H200].cc_major, 9);
	CHECK_EQ_INT(dv[H200].cc_minor, 0);
	CHECK_EQ_INT(dv[H200].memory, 143771ull << 20);
	CHECK_EQ_STR(dv[RTX5090].name, "NVIDIA GeForce RTX 5090");
	CHECK_EQ_INT(dv[RTX5090].cc_major * 10 + dv[RTX5090].cc_minor, 120);
	CHECK_EQ_INT(dv[GB10].cc_major * 10 + dv[GB10].cc_minor, 121);
	CHECK_EQ_INT(dv[L40S].index, L40S);
	/* The probe: SASS where our fatbin has a compatible cubin, PTX JIT elsewhere. */
	for (int d = 0; d < NDEV; d++) {
		CHECK(dv[d].probe_ran, "device %d: probe did not run", d);
		CHECK_EQ_INT(dv[d].probe, 0);
	}
	CHECK_EQ_STR(dv[H200].probe_note, "ok: SASS sm_90 from the fatbin");
	CHECK_EQ_STR(dv[GB10].probe_note, "ok: SASS sm_120 from the fatbin");
	CHECK_EQ_STR(dv[B300].probe_note, "ok: SASS sm_100 from the fatbin");
	CHECK_EQ_STR(dv[L40S].probe_note, "ok: SASS sm_89 from the fatbin");
	CHECK_EQ_STR(dv[THOR].probe_note, "ok: PTX JIT to sm_110 from the fatbin");
	CHECK_EQ_STR(dv[V100].probe_note, "ok: PTX JIT to sm_70 from the fatbin");

	/* Each worker ran cuInit in a process of its own, with EAGER loading and the JIT switches set. */
	size_t n = 0;
	char *log = (char *)slurp(logpath, &n), *s, *next;
	char self[64];
	int lines = 0, nojit_lines = 0;
	snprintf(self, sizeof self, "pid=%d ", (int)getpid());
	for (s = log; s && *s; s = next) {
		char *eol = strchr(s, '\n');
		next = NULL;
		if (eol) {
			*eol = 0;   /* one line at a time */
			next = eol + 1;
		}
		lines++;
		CHECK(strncmp(s + strlen("cuInit "), self, strlen(self)) != 0, "cuInit ran in the calling process");
		CHECK(strncmp(s, "cuInit pid=", 11) == 0 && strstr(s, "CUDA_MODULE_LOADING=EAGER ") != NULL &&
		      strstr(s, "CUDA_FORCE_PTX_JIT=-") != NULL, "log line: %.120s", s);
		nojit_lines += strstr(s, "CUDA_DISABLE_PTX_JIT=1 ") != NULL;
	}
	free(log);
	CHECK_EQ_INT(lines, 2);
	CHECK_EQ_INT(nojit_lines, 1);
	CHECK_EQ_STR(getenv("CUDA_MODULE_LOADING"), "LAZY");
	CHECK_EQ_STR(ws_live_user_env("CUDA_FORCE_PTX_JIT"), "1");

	/* Crafted containers (the whole rule set of the stand-in driver, fixtures or not). */
	mk(&sass90); add(&sass90, 2, 90, 0, 0, "cubin k_plain");
	mk(&sass90a); add(&sass90a, 2, 90, 'a', 0, "cubin k_plain");
	mk(&sass100f); add(&sass100f, 2, 100, 'f', 0, "cubin k_plain");
	mk(&sass120f); add(&sass120f, 2, 120, 'f', 0, "cubin k_plain");
	mk(&ptx); add(&ptx, 1, 80, 0, 90, ptx80);
	mk(&ptxa); add(&ptxa, 1, 90, 'a', 90, ptx80);
	mk(&ptx_new); add(&ptx_new, 1, 80, 0, 92, ptx80);   /* ISA 9.2: newer than any driver in the table */
	mk(&bad); add(&bad, 2, 90, 0, 0, "x"); put16(bad.b + 4, 2);   /* container version 2 */
	expect_load(l, "sm_90", &sass90, H200, false, 0);
	expect_load(l, "sm_90", &sass90, RTX5090, false, 209);   /* under LAZY this would be 0 */
	expect_load(l, "sm_90", &sass90, A100, false, 209);
	expect_load(l, "sm_90a", &sass90a, H200, false, 0);
	expect_load(l, "sm_90a", &sass90a, RTX5090, false, 209);
	expect_load(l, "sm_100f", &sass100f, B300, false, 0);
	expect_load(l, "sm_100f", &sass100f, B200, false, 0);
	expect_load(l, "sm_100f", &sass100f, RTX5090, false, 209);
	expect_load(l, "sm_120f", &sass120f, GB10, false, 0);
	expect_load(l, "sm_120f", &sass120f, B300, false, 209);
	expect_load(l, "compute_80", &ptx, H200, false, 0);
	expect_load(l, "compute_80", &ptx, V100, false, 209);
	expect_load(l, "compute_90a", &ptxa, H200, false, 0);
	expect_load(l, "compute_90a", &ptxa, RTX5090, false, 209);
	expect_load(l, "compute_80 ISA 9.2", &ptx_new, H200, false, 222);
	expect_load(l, "version 2 container", &bad, H200, false, 200);
	/* The JIT-disabled pass: SASS still loads, PTX-only gives 223. */
	expect_load(l, "sm_90", &sass90, H200, true, 0);
	expect_load(l, "compute_80", &ptx, H200, true, 223);
	expect_load(l, "compute_80", &ptx, V100, true, 209);
	test_fixtures(l, false);
	test_fixtures(l, true);

	/* Bad arguments never reach a worker. */
	CHECK_EQ_INT(ws_live_load(l, NDEV, sass90.b, sass90.n, false), WS_LIVE_NOT_RUN);
	CHECK_EQ_INT(ws_live_load(l, -1, sass90.b, sass90.n, false), WS_LIVE_NOT_RUN);
	CHECK_EQ_INT(ws_live_load(l, 0, sass90.b, 0, false), WS_LIVE_NOT_RUN);

	/* --env text. */
	char *text = NULL;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);
	ws_live_print_env(f, l, NULL);
	fclose(f);
	CHECK(text && strstr(text, "CUDA driver: CUDA 13.0 (cuDriverGetVersion 13000)\n"), "%s", text);
	CHECK(text && strstr(text, "device 0: NVIDIA H200, compute capability 9.0 (sm_90), 140.4 GiB, "
	                           "probe ok: SASS sm_90 from the fatbin\n"), "%s", text);
	CHECK(text && strstr(text, "probe kernel: ran on 9 of 9 devices, 9 ok\n"), "%s", text);
	CHECK(text && strstr(text, "  CUDA_MODULE_LOADING=LAZY\n") && strstr(text, "  CUDA_VISIBLE_DEVICES=(unset)\n"),
	      "%s", text);
	free(text);
	ws_live_close(l);

	/* Without a driver --env still prints the note and the environment. */
	text = NULL;
	f = open_memstream(&text, &tlen);
	ws_live_print_env(f, NULL, "no CUDA driver: cannot load 'x': gone");
	fclose(f);
	CHECK(text && strstr(text, "CUDA driver: none (no CUDA driver: cannot load 'x': gone)\n"), "%s", text);
	CHECK(text && strstr(text, "  CUDA_FORCE_PTX_JIT=1\n"), "%s", text);
	free(text);
}

static double secs(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void test_crash_hang(void)
{
	char note[512] = "";
	struct img good, crash, hang;
	clear_env();
	setenv("FAKE_CUDA_CRASH_ON_LOAD", "WS_CRASH_ME", 1);
	setenv("FAKE_CUDA_HANG_ON_LOAD", "WS_HANG_ME", 1);
	setenv("FAKE_CUDA_LOG", logpath, 1);
	unlink(logpath);
	struct ws_live *l = ws_live_open(WS_LIVE_NOJIT_PASS, note, sizeof note);
	CHECK(l != NULL, "open: %s", note);
	if (!l)
		return;
	const struct ws_device *dv;
	CHECK_EQ_INT(ws_live_devices(l, &dv), 1);
	CHECK(!dv[0].probe_ran, "probe ran without WS_LIVE_PROBE");
	mk(&good); add(&good, 2, 90, 0, 0, "cubin k");
	mk(&crash); add(&crash, 2, 90, 0, 0, "cubin WS_CRASH_ME");
	mk(&hang); add(&hang, 2, 90, 0, 0, "cubin WS_HANG_ME");
	expect_load(l, "good", &good, 0, false, 0);
	expect_load(l, "crash", &crash, 0, false, WS_LIVE_CRASH);
	CHECK(strstr(ws_live_last_note(l), "killed by signal 11") != NULL, "%s", ws_live_last_note(l));
	expect_load(l, "good after crash", &good, 0, false, 0);
	expect_load(l, "crash twice", &crash, 0, false, WS_LIVE_CRASH);
	expect_load(l, "crash (no JIT)", &crash, 0, true, WS_LIVE_CRASH);
	expect_load(l, "good after crash (no JIT)", &good, 0, true, 0);

	ws_live_set_timeout(l, 300);
	double t0 = secs();
	expect_load(l, "hang", &hang, 0, false, WS_LIVE_TIMEOUT);
	double dt = secs() - t0;
	CHECK(dt >= 0.25 && dt < 3.0, "timeout took %.2f s", dt);
	CHECK(strstr(ws_live_last_note(l), "300 ms") != NULL, "%s", ws_live_last_note(l));
	expect_load(l, "good after hang", &good, 0, false, 0);
	ws_live_close(l);

	/* Workers: 2 at open, 2 restarts after crashes, 1 restart (no JIT), 1 after the hang. */
	size_t n = 0;
	char *log = (char *)slurp(logpath, &n);
	int lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += log[i] == '\n';
	free(log);
	CHECK_EQ_INT(lines, 6);

	/* The start-up limit: a driver that hangs in the probe's load is cut off too. */
	clear_env();
	setenv("FAKE_CUDA_HANG_ON_LOAD", "ws_probe", 1);
	setenv("WHEELSCAN_LIVE_TIMEOUT_MS", "300", 1);
	t0 = secs();
	l = ws_live_open(WS_LIVE_PROBE, note, sizeof note);
	dt = secs() - t0;
	CHECK(l == NULL, "opened despite the hang");
	ws_live_close(l);
	CHECK(strstr(note, "did not start within 300 ms") != NULL, "%s", note);
	CHECK(dt < 3.0, "start-up timeout took %.2f s", dt);

	/* A probe whose results are wrong is reported, not trusted. */
	clear_env();
	setenv("FAKE_CUDA_PROBE_WRONG", "1", 1);
	l = ws_live_open(WS_LIVE_PROBE, note, sizeof note);
	CHECK(l != NULL, "open: %s", note);
	if (l && ws_live_devices(l, &dv) == 1) {
		CHECK_EQ_INT(dv[0].probe, WS_PROBE_WRONG_RESULT);
		CHECK(strstr(dv[0].probe_note, "element 7") != NULL, "%s", dv[0].probe_note);
	}
	ws_live_close(l);

	/* An old driver (CUDA 9.0) JITs the lowered probe PTX (ISA 6.0) but not ISA 9.0 PTX;
	 * a device older than sm_50 has no image at all. */
	clear_env();
	setenv("FAKE_CUDA_DRIVER", "9000", 1);
	setenv("FAKE_CUDA_DEVICES", "11.0:NVIDIA Thor,3.5:Tesla K40", 1);
	l = ws_live_open(WS_LIVE_PROBE, note, sizeof note);
	CHECK(l != NULL, "open: %s", note);
	if (l && ws_live_devices(l, &dv) == 2) {
		CHECK_EQ_INT(dv[0].probe, 0);
		CHECK_EQ_STR(dv[0].probe_note, "ok: PTX JIT to sm_110 from the fatbin");
		CHECK_EQ_INT(dv[1].probe, 209);
		CHECK(strstr(dv[1].probe_note, "CUDA_ERROR_NO_BINARY_FOR_GPU: cuModuleLoadData") == dv[1].probe_note,
		      "%s", dv[1].probe_note);
		CHECK_EQ_INT(ws_live_driver_version(l), 9000);
		struct img p;
		mk(&p); add(&p, 1, 80, 0, 90, ptx80);
		expect_load(l, "compute_80 ISA 9.0 on a 9.0 driver", &p, 0, false, 222);
		CHECK_EQ_INT(ws_live_load(l, 0, p.b, p.n, true), WS_LIVE_NOT_RUN);   /* no no-JIT worker */
	}
	ws_live_close(l);
}

int main(void)
{
	test_names();
	if (build_fake() != 0) {
		CHECK(0, "cannot build the stand-in driver from src/test/fake_libcuda.c");
		return ws_test_done();
	}
	test_failures();
	test_main();
	test_crash_hang();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return ws_test_done();
}
