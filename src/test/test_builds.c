/* test_builds.c - the build table and the remedy (src/core/builds.c, src/core/remedy.c):
 * release order, the parser's checks, a build's verdict at each rule's boundary, the
 * choice, companions and the commands' quoting. The CLI and the bundled table are
 * checked by src/test/cure.sh. */
#include <stdlib.h>

#include "tap.h"
#include "builds_fixture.h"


/* A command as POSIX sh (or another shell) shows it; a static buffer per call site turn. */
static const char *shell_text(const struct ws_cmd *c, enum ws_shell sh)
{
	static char *keep[4];
	static unsigned turn;
	char **slot = &keep[turn++ % 4];
	free(*slot);
	*slot = ws_cmd_text(c, sh, NULL);
	return *slot ? *slot : "(refused)";
}
#define SH(c) shell_text(&(c), WS_SHELL_SH)

static void test_versions(void)
{
	CHECK(ws_version_cmp("2.10.0", "2.9.1") > 0);
	CHECK(ws_version_cmp("2.9.1", "2.10.0") < 0);
	CHECK(ws_version_cmp("2.8.0", "2.8.0") == 0);
	CHECK(ws_version_cmp("2.8", "2.8.0") == 0);
	CHECK(ws_version_cmp("2.8.0.post1", "2.8.0") > 0);
	CHECK(ws_version_cmp("0.0.33.post2", "0.0.33.post1") > 0);
	CHECK(ws_version_cmp("0.0.33", "0.0.33.post1") < 0);
	CHECK(ws_version_cmp("2.0.0rc1", "2.0.0") < 0);
	CHECK(ws_version_cmp("2.0.0a1", "2.0.0b1") < 0);
	CHECK(ws_version_cmp("2.0.0b2", "2.0.0rc1") < 0);
	CHECK(ws_version_cmp("2.0.0.dev1", "2.0.0a1") < 0);
	CHECK(ws_version_cmp("2.8.0+cu128", "2.8.0+cu126") == 0);   /* local tags do not order */
	CHECK(ws_version_cmp("99999999999999999999", "1") > 0);     /* no overflow */
	CHECK(ws_version_cmp("1.0.post1.dev2", "1.0.post1") < 0);
	CHECK(ws_version_cmp("1.0.0", "1.0.0.0.0.0.0.0.0.1") == 0);  /* past 8 numbers: not read */
	CHECK(ws_version_cmp("", "0") == 0);
	CHECK(ws_version_cmp("1.x", "1") == 0);
	CHECK(ws_version_cmp("2.15.0", "2.9.1") > 0);
}

static void test_parse(void)
{
	struct ws_builds b;
	struct ws_err err = {0};
	CHECK(parse("torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t70,75,90a,120f\t120\t\tpypi\tscanned\tx\t\n", &b,
		    FRESH(err)) == 0, "%s", err.msg);
	CHECK_EQ_INT(b.n, 1);
	CHECK_EQ_INT(b.rows[0].cuda, 12080);
	CHECK_EQ_INT(b.rows[0].nsass, 4);
	CHECK_EQ_INT(b.rows[0].sass[2], 90);
	CHECK_EQ_INT(b.rows[0].sass_suffix[2], 'a');
	CHECK_EQ_INT(b.rows[0].sass_suffix[3], 'f');
	CHECK_EQ_INT(b.rows[0].sass_suffix[0], 0);
	CHECK_EQ_INT(b.rows[0].nptx, 1);
	CHECK_EQ_STR(b.rows[0].wheel_platform, "");
	ws_builds_free(&b);
	/* CRLF lines and comments */
	const char *crlf = "# made: 2026-01-01\r\n" "package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\t"
			   "provenance\tsource\twheel_platform\r\ntorch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\t"
			   "scanned\tx\tmanylinux_2_28_x86_64\r\n";
	CHECK(ws_builds_parse(crlf, strlen(crlf), "t", &b, FRESH(err)) == 0, "%s", err.msg);
	CHECK(b.n == 1 && !strcmp(b.rows[0].wheel_platform, "manylinux_2_28_x86_64"));
	ws_builds_free(&b);

	static const struct { const char *row, *why; } bad[] = {
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\tscanned\tx\n", "11 fields"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\tscanned\tx\t\t\n", "13 fields"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t9\t\t\tpypi\tscanned\tx\t\n", "arch 9"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t1000\t\t\tpypi\tscanned\tx\t\n", "arch 1000"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80,,90\t\t\tpypi\tscanned\tx\t\n", "empty arch"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80,\t\t\tpypi\tscanned\tx\t\n", "trailing comma"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80b\t\t\tpypi\tscanned\tx\t\n", "suffix b"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.10\t80\t\t\tpypi\tscanned\tx\t\n", "minor 10"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t0.8\t80\t\t\tpypi\tscanned\tx\t\n", "CUDA 0"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8x\t80\t\t\tpypi\tscanned\tx\t\n", "CUDA junk"},
		{"torch\t2.8.0 \tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\tscanned\tx\t\n", "space in a command word"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi;id\tscanned\tx\t\n", "';' in the index"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\t`id`\tscanned\tx\t\n", "backquote"},
		/* issue 40: a redirection in the index overwrote ~/.bashrc when the line was pasted */
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\thttps://example.org/simple>~/.bashrc\tscanned\tx\t\n",
		 "'>' in the index"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\thttps://example.org/simple!x\tscanned\tx\t\n", "'!' in the index"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\thttp://example.org/simple\tscanned\tx\t\n", "http index"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\t-rreq\tscanned\tx\t\n", "an option for an index"},
		{"to\x1brch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\tscanned\tx\t\n", "ESC"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\tscanned\tx\x7f\t\n", "DEL in the source"},
		{"torch\t\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\tscanned\tx\t\n", "no version"},
		{"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\tguessed\tx\t\n", "provenance"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(parse(bad[i].row, &b, FRESH(err)) < 0, "%s accepted", bad[i].why);
		CHECK(strstr(err.msg, "line 2") != NULL, "%s: '%s' names no line", bad[i].why, err.msg);
		CHECK(b.rows == NULL && b.text == NULL, "%s: left memory behind", bad[i].why);
	}
	char many[1024] = "torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t";
	for (int a = 10; a < 10 + WS_BUILD_MAX_ARCHS + 1; a++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", a > 10 ? "," : "", a);
	strcat(many, "\t\t\tpypi\tscanned\tx\t\n");
	CHECK(parse(many, &b, FRESH(err)) < 0, "%d archs accepted", WS_BUILD_MAX_ARCHS + 1);
	const char *nohead = "torch\t2.8.0\n";
	CHECK(ws_builds_parse(nohead, strlen(nohead), "t", &b, FRESH(err)) < 0 && strstr(err.msg, "header"));
	CHECK(ws_builds_parse("", 0, "t", &b, FRESH(err)) < 0 && strstr(err.msg, "header"));
	CHECK(ws_builds_parse("a\0b", 3, "t", &b, FRESH(err)) < 0 && strstr(err.msg, "NUL"));
}

/* The tables row() parsed: their rows' strings point into them, freed at the end. */
static struct ws_builds kept[16];
static size_t nkept;

static struct ws_build row(const char *sass, const char *ptx, int cuda)
{
	struct ws_builds *b = &kept[nkept < 15 ? nkept++ : 15];
	char body[512];
	struct ws_err err = {0};
	ws_builds_free(b);
	snprintf(body, sizeof body, "p\t1.0\tcu\tlinux_x86_64\t%d.%d\t%s\t%s\t\tpypi\tscanned\tx\t\n", cuda / 1000,
		 cuda % 1000 / 10, sass, ptx);
	CHECK(parse(body, b, FRESH(err)) == 0, "%s", err.msg);
	return b->rows[0];
}

static void test_verdicts(void)
{
	struct ws_target s61 = target("sm_61"), s60 = target("sm_60"), s89 = target("sm_89"), s90 = target("sm_90"),
			 s120 = target("sm_120"), s121 = target("sm_121"), s100 = target("sm_100");
	struct ws_build b = row("60,70,80,90", "", 12060);
	CHECK_EQ_INT(ws_build_verdict(&b, &s60, 0), WS_V_NATIVE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s61, 0), WS_V_COMPATIBLE);     /* sm_60 serves 6.1 */
	CHECK_EQ_INT(ws_build_verdict(&b, &s89, 0), WS_V_COMPATIBLE);     /* sm_80 serves 8.9 */
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 0), WS_V_NO_IMAGE);      /* no PTX: nothing for 12.0 */
	b = row("80,90", "90", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 0), WS_V_JIT);
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 12080), WS_V_JIT);
	/* the driver floor, NVIDIA's minor-version compatibility (doc/compat-rules.md §4a): a
	 * 12.8 build's SASS runs on an R535 (12.2) driver, on any 12.x from R525, not on 11.x */
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12020), WS_V_NATIVE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12000), WS_V_NATIVE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 11080), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12080), WS_V_NATIVE);
	/* its PTX is not covered: ISA 8.7 needs 12.8, so on R535 a PTX-only build fails */
	b = row("", "80", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12020), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12070), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12080), WS_V_JIT);
	/* a CUDA 13 build never runs on R570 (12.8): the major binds SASS too */
	b = row("90,120", "", 13020);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12080), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12090), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 13000), WS_V_NATIVE);     /* 13.2 on R580: same major */
	b = row("80,90", "90", 12080);
	/* a driver older than the GPU: nothing runs, whatever the build */
	b = row("120", "", 12060);
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 12060), WS_V_NO_IMAGE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 12080), WS_V_NATIVE);
	/* arch-specific SASS runs on exactly its GPU */
	b = row("90a", "", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 0), WS_V_NATIVE);
	b = row("100a", "", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 0), WS_V_NO_IMAGE);
	b = row("120a", "", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s121, 0), WS_V_NO_IMAGE);
	b = row("120f", "", 12090);
	CHECK_EQ_INT(ws_build_verdict(&b, &s121, 0), WS_V_COMPATIBLE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s100, 0), WS_V_NO_IMAGE);
	/* arch-specific PTX JIT-compiles for exactly its GPU */
	b = row("", "100a", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s120, 0), WS_V_NO_IMAGE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s100, 0), WS_V_JIT);
	/* PTX of a newer arch does not serve an older GPU */
	b = row("", "100", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 0), WS_V_NO_IMAGE);
	CHECK_EQ_INT(ws_build_verdict(&b, &s100, 0), WS_V_JIT);
	CHECK_EQ_INT(ws_build_driver_floor(12080), 12000);
	CHECK_EQ_INT(ws_build_driver_floor(13020), 13000);
	/* the build's CUDA against the driver's: one minor above, at, below, and across a major
	 * (so that comparing full versions, or the minor alone, fails) */
	b = row("90", "", 12090);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12080), WS_V_NATIVE);         /* above: 12.9 on 12.8, same major */
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12090), WS_V_NATIVE);         /* at */
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 13000), WS_V_NATIVE);         /* below: on 13.0 */
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 11090), WS_V_PTX_TOO_NEW);    /* 12.9 on 11.x (minor 9 = 9) */
	b = row("90", "", 12080);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12090), WS_V_NATIVE);         /* below: 12.8 on 12.9 */
	b = row("90", "", 13000);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12090), WS_V_PTX_TOO_NEW);    /* 13.0 on 12.9 (minor 9 > 0) */
	/* integrated GPUs (§1a): a discrete build's sm_80 reaches Orin only from CUDA 13.2 */
	struct ws_target s87 = target("sm_87");
	b = row("80,90", "", 13010);
	CHECK_EQ_INT(ws_build_verdict(&b, &s87, 0), WS_V_NO_IMAGE);
	b = row("80,90", "", 13020);
	CHECK_EQ_INT(ws_build_verdict(&b, &s87, 0), WS_V_COMPATIBLE);
	b = row("87", "", 12060);
	CHECK_EQ_INT(ws_build_verdict(&b, &s87, 0), WS_V_NATIVE);
	/* and the remedy names no R-branch for a Jetson (it runs its Jetson Linux driver) */
	{
		static const char jt[] = "o\t1.0.0\tcu132\tlinux_aarch64\t13.2\t80,90\t\t\tpypi\tscanned\ta\t"
					 "manylinux_2_28_aarch64\n";
		struct ws_builds jb;
		struct ws_err jerr = {0};
		CHECK(parse(jt, &jb, FRESH(jerr)) == 0, "%s", jerr.msg);
		struct ws_remedy_ctx jctx = {.builds = &jb, .platform = "linux_aarch64"};
		struct ws_remedy *r = ws_remedy_choose("o", &s87, &jctx);
		CHECK(r && r->kind == WS_REMEDY_INSTALL && r->verdict == WS_V_COMPATIBLE &&
		      strstr(r->summary, "needs a driver for CUDA >= 13.0") && !strstr(r->summary, "(R"), "%s",
		      r ? r->summary : "");
		ws_remedy_free(r);
		ws_builds_free(&jb);
	}
	b = row("", "", 12090);
	CHECK_EQ_INT(ws_build_verdict(&b, &s90, 12080), WS_V_NO_IMAGE);       /* nothing at all: not "too new" */
}

/* The only variant that serves the GPU is one CUDA minor above, at or below the driver's:
 * minor-version compatibility installs it as it is; a driver of the major below cannot. */
static void test_choice_minor(void)
{
	static const char t[] =
		"q\t1.0.0\tcu129\tlinux_x86_64\t12.9\t90\t\t\tpypi\tscanned\ta\tmanylinux_2_28_x86_64\n"
		"q\t1.0.0\tcu126\tlinux_x86_64\t12.6\t80\t\t\tpypi\tscanned\tb\tmanylinux_2_28_x86_64\n";
	struct ws_builds b;
	struct ws_err err = {0};
	CHECK(parse(t, &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_remedy_ctx ctx = {.builds = &b, .platform = "linux_x86_64"};
	struct ws_target s90 = target("sm_90");
	const int drivers[] = {11080, 12080, 12090, 13000};
	for (int i = 0; i < 4; i++) {
		ctx.driver_cuda = drivers[i];
		struct ws_remedy *r = ws_remedy_choose("q", &s90, &ctx);
		if (i == 0) {     /* a CUDA 11 driver: first one of 12.x, R525 */
			CHECK(r && r->kind == WS_REMEDY_DRIVER_FIRST && r->driver_floor == 12000 &&
			      strstr(r->summary, "first a driver for CUDA >= 12.0 (R525 or newer)"),
			      "12.9 variant on an 11.8 driver: kind %d floor %d %s", r ? (int)r->kind : -1,
			      r ? r->driver_floor : 0, r ? r->summary : "");
		} else {          /* one minor above, at or below: installed as it is */
			CHECK(r && r->kind == WS_REMEDY_INSTALL && r->variant && !strcmp(r->variant, "cu129"),
			      "12.9 variant on driver %d: kind %d %s", drivers[i], r ? (int)r->kind : -1,
			      r && r->variant ? r->variant : "");
		}
		ws_remedy_free(r);
	}
	ws_builds_free(&b);
}

/* Issue 40 §6 (c): a build that runs on the GPU only through PTX JIT while its own CUDA
 * predates the GPU: a cu126 build with PTX on sm_120 needs a driver for CUDA 12.8 (the GPU's
 * first), not 12.6 (its own), 12.5 (its PTX ISA 8.5) or 12.0 (its runtime). On sm_90 its SASS
 * needs only the runtime's 12.0. */
static void test_driver_floor_jit(void)
{
	static const char t[] =
		"j\t1.0.0\tcu126\tlinux_x86_64\t12.6\t80,90\t90\t\tpypi\tscanned\ta\tmanylinux_2_28_x86_64\n";
	struct ws_builds b;
	struct ws_err err = {0};
	CHECK(parse(t, &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_remedy_ctx ctx = {.builds = &b, .platform = "linux_x86_64"};
	struct ws_target s120 = target("sm_120"), s90 = target("sm_90");
	CHECK_EQ_INT(ws_build_driver_need(&b.rows[0], &s120), 12080);
	CHECK_EQ_INT(ws_build_driver_need(&b.rows[0], &s90), 12000);
	struct ws_remedy *r = ws_remedy_choose("j", &s120, &ctx);
	CHECK(r && r->kind == WS_REMEDY_INSTALL && r->driver_floor == 12080 && r->verdict == WS_V_JIT &&
	      strstr(r->summary, "needs a driver for CUDA >= 12.8 (R570 or newer)"), "%s", r ? r->summary : "");
	ws_remedy_free(r);
	/* with the build's own driver (12.6): a driver first, the GPU's */
	ctx.driver_cuda = 12060;
	r = ws_remedy_choose("j", &s120, &ctx);
	CHECK(r && r->kind == WS_REMEDY_DRIVER_FIRST && r->driver_floor == 12080 &&
	      strstr(r->summary, "first a driver for CUDA >= 12.8 (R570 or newer), since this one supports CUDA 12.6"),
	      "%s", r ? r->summary : "");
	ws_remedy_free(r);
	/* one below the GPU's first and at it */
	ctx.driver_cuda = 12070;
	r = ws_remedy_choose("j", &s120, &ctx);
	CHECK(r && r->kind == WS_REMEDY_DRIVER_FIRST && r->driver_floor == 12080, "%s", r ? r->summary : "");
	ws_remedy_free(r);
	ctx.driver_cuda = 12080;
	r = ws_remedy_choose("j", &s120, &ctx);
	CHECK(r && r->kind == WS_REMEDY_INSTALL && r->verdict == WS_V_JIT, "%s", r ? r->summary : "");
	ws_remedy_free(r);
	/* sm_90 runs its SASS from R525 */
	ctx.driver_cuda = 0;
	r = ws_remedy_choose("j", &s90, &ctx);
	CHECK(r && r->driver_floor == 12000 && strstr(r->summary, "needs a driver for CUDA >= 12.0 (R525 or newer)"),
	      "%s", r ? r->summary : "");
	ws_remedy_free(r);
	ws_builds_free(&b);
}

/* Every R-number in s is at most max (advice never names a driver the GPU cannot have). */
static bool branches_at_most(const char *s, int max, int *seen)
{
	*seen = 0;
	for (const char *p = s; p && (p = strchr(p, 'R')) != NULL; p++) {
		int n = atoi(p + 1);
		if (p[1] >= '0' && p[1] <= '9' && n > *seen)
			*seen = n;
	}
	return *seen <= max;
}

/* §4b: a GPU family's last driver branch bounds the advice. Kepler ends at R470 (CUDA 11.4),
 * Maxwell, Pascal and Volta at R580 (13.0): a build whose PTX needs more is never advised,
 * the note says no driver for the GPU runs it, and no R-number past the last is printed. */
static void test_last_driver(void)
{
	static const char t[] =
		"k\t1.0.0\tcu118\tlinux_x86_64\t11.8\t37,50,60,70\t\t\tpypi\tscanned\ta\tmanylinux_2_28_x86_64\n"
		"k\t1.1.0\tcu118\tlinux_x86_64\t11.8\t50,60,70\t35\t\tpypi\tscanned\tb\tmanylinux_2_28_x86_64\n"
		"k\t1.2.0\tcu131\tlinux_x86_64\t13.1\t75,80\t60\t\tpypi\tscanned\tc\tmanylinux_2_28_x86_64\n"
		"n\t1.1.0\tcu118\tlinux_x86_64\t11.8\t50\t35\t\tpypi\tscanned\td\tmanylinux_2_28_x86_64\n";
	struct ws_builds b;
	struct ws_err err = {0};
	int seen = 0;
	CHECK(parse(t, &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_remedy_ctx ctx = {.builds = &b, .platform = "linux_x86_64"};
	struct ws_target s37 = target("sm_37"), s61 = target("sm_61"), s70 = target("sm_70");
	/* Tesla K80: 1.1.0 runs only through PTX of ISA 7.8 (CUDA 11.8 > R470's 11.4): 1.0.0 */
	struct ws_remedy *r = ws_remedy_choose("k", &s37, &ctx);
	CHECK(r && r->kind == WS_REMEDY_INSTALL && !strcmp(r->pkgs[0].version, "1.0.0") && r->driver_floor == 11000,
	      "%s", r ? r->summary : "");
	CHECK(r && branches_at_most(r->summary, 470, &seen) && strstr(r->summary, "(R450 to R470, the last branch for "
	      "Kepler GPUs)"), "K80 advised R%d: %s", seen, r ? r->summary : "");
	CHECK(r && r->note && strstr(r->note, "no driver for sm_37 runs CUDA >= 13.1") == NULL &&
	      strstr(r->note, "has none"), "1.2.0 has no code for sm_37: %s", r && r->note ? r->note : "");
	ws_remedy_free(r);
	/* only the PTX build: nothing within R470, and the summary says why */
	r = ws_remedy_choose("n", &s37, &ctx);
	CHECK(r && r->kind == WS_REMEDY_NONE && strstr(r->summary, "no driver for sm_37 runs CUDA >= 11.8 (R470, the "
	      "last branch for Kepler GPUs, supports CUDA 11.4)") && branches_at_most(r->summary, 470, &seen),
	      "%s", r ? r->summary : "");
	ws_remedy_free(r);
	/* with the last driver given, and an older one: never a driver past R470 */
	static const int kdrivers[] = {11040, 11000, 10020};
	for (size_t i = 0; i < 3; i++) {
		ctx.driver_cuda = kdrivers[i];
		r = ws_remedy_choose("k", &s37, &ctx);
		CHECK(r && r->kind != WS_REMEDY_NONE && r->driver_floor <= 11040 &&
		      branches_at_most(r->summary, 470, &seen) && (!r->note || branches_at_most(r->note, 470, &seen)),
		      "driver %d: %s | %s", kdrivers[i], r ? r->summary : "", r && r->note ? r->note : "");
		ws_remedy_free(r);
	}
	ctx.driver_cuda = 0;
	/* Pascal: 1.2.0's PTX (ISA 9.1) needs CUDA 13.1, past R580's 13.0: 1.1.0, and the note
	 * names the impossible driver as impossible, not as advice */
	r = ws_remedy_choose("k", &s61, &ctx);
	CHECK(r && r->kind == WS_REMEDY_INSTALL && !strcmp(r->pkgs[0].version, "1.1.0"), "%s", r ? r->summary : "");
	CHECK(r && r->note && strstr(r->note, "no driver for sm_61 runs CUDA >= 13.1 (R580, the last branch for Pascal "
	      "GPUs, supports CUDA 13.0): the last release that runs is k 1.1.0; the newest, 1.2.0, needs CUDA >= 13.1"),
	      "%s", r && r->note ? r->note : "");
	CHECK(r && branches_at_most(r->summary, 580, &seen), "Pascal advised R%d: %s", seen, r ? r->summary : "");
	ws_remedy_free(r);
	/* Volta on a 12.8 driver: 1.1.0 runs as it is */
	ctx.driver_cuda = 12080;
	r = ws_remedy_choose("k", &s70, &ctx);
	CHECK(r && r->kind == WS_REMEDY_INSTALL && !strcmp(r->pkgs[0].version, "1.1.0") &&
	      branches_at_most(r->summary, 580, &seen) && (!r->note || branches_at_most(r->note, 580, &seen)),
	      "%s | %s", r ? r->summary : "", r && r->note ? r->note : "");
	ws_remedy_free(r);
	/* the whole GPU table: no family with a last branch is ever advised past it */
	for (size_t g = 0; g < ws_gpu_count(); g++) {
		int last_branch = 0;
		const struct ws_gpu *gpu = ws_gpu_at(g);
		if (!ws_gpu_last_driver(gpu->cc, &last_branch))
			continue;
		struct ws_target tg;
		ws_target_set(&tg, gpu->cc, gpu->name);
		for (int d = 0; d < 2; d++) {
			ctx.driver_cuda = d ? 10020 : 0;
			for (int p = 0; p < 2; p++) {
				r = ws_remedy_choose(p ? "n" : "k", &tg, &ctx);
				CHECK(!r || (branches_at_most(r->summary, last_branch, &seen) &&
					     (!r->note || branches_at_most(r->note, last_branch, &seen))),
				      "%s advised R%d past R%d: %s", gpu->name, seen, last_branch, r ? r->summary : "");
				ws_remedy_free(r);
			}
		}
	}
	ws_builds_free(&b);
}

static const char table[] =
	"p\t1.0.0\tcu126\tlinux_x86_64\t12.6\t60,70,80,90\t\t\tpypi\tscanned\ta\tmanylinux_2_28_x86_64\n"
	"p\t1.1.0\tcu126\tlinux_x86_64\t12.6\t80,90\t90\t\thttps://idx.invalid/cu126\tdeclared\tb\t\n"
	"p\t1.1.0\tcu128\tlinux_x86_64\t12.8\t80,90,120\t\t\thttps://idx.invalid/cu128\tdeclared\tb\t\n"
	"p\t1.2.0\tcu130\tlinux_x86_64\t13.0\t90,120\t\t\tpypi\tscanned\tc\tmanylinux_2_28_x86_64\n"
	"p\t1.2.0\tcu130\twin_amd64\t13.0\t60,120\t\t\tpypi\tscanned\td\twin_amd64\n"
	"torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t70,80,90,120\t\t\thttps://idx.invalid/cu128\tdeclared\te\t\n"
	"torchvision\t0.23.0\tcu128\tlinux_x86_64\t12.8\t70,80,90,120\t\ttorch==2.8.0\thttps://idx.invalid/cu128\tdeclared\te\t\n"
	"torchvision\t0.22.0\tcu128\tlinux_x86_64\t12.8\t70,80,90,120\t\ttorch==2.7.0\thttps://idx.invalid/cu128\tdeclared\te\t\n"
	"torch\t2.9.1\tcu130\tlinux_x86_64\t13.0\t75,80,90,120\t\t\tpypi\tscanned\tf\tmanylinux_2_28_x86_64\n"
	"torchvision\t0.24.0\tcu130\tlinux_x86_64\t13.0\t75,80,90,120\t\ttorch>=2.9.0\tpypi\tscanned\tg\tmanylinux_2_28_x86_64\n"
	"torchvision\t0.25.0\tcu130\tlinux_x86_64\t13.0\t75,80,90,120\t\ttorch>=2.10.0\tpypi\tscanned\th\tmanylinux_2_28_x86_64\n";

static void test_choice(void)
{
	struct ws_builds b;
	struct ws_err err = {0};
	CHECK(parse(table, &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_remedy_ctx ctx = {.builds = &b, .platform = "linux_x86_64"};
	struct ws_target s90 = target("sm_90"), s61 = target("sm_61"), s120 = target("sm_120"), s52 = target("sm_52");
	struct ws_remedy *r;

	/* any driver: the newest release that runs */
	r = ws_remedy_choose("p", &s90, &ctx);
	CHECK(r && r->kind == WS_REMEDY_INSTALL && !strcmp(r->pkgs[0].version, "1.2.0"));
	CHECK(r && !strcmp(SH(r->install), "pip install p==1.2.0"), "%s", r ? SH(r->install) : "");
	ws_remedy_free(r);
	/* a 12.8 driver: 1.2.0 (13.0) is out; at 1.1.0 both variants are native: the newer CUDA */
	ctx.driver_cuda = 12080;
	r = ws_remedy_choose("p", &s90, &ctx);
	CHECK(r && !strcmp(r->pkgs[0].version, "1.1.0") && !strcmp(r->variant, "cu128"));
	CHECK(r && !strcmp(SH(r->install), "pip install p==1.1.0+cu128 --index-url https://idx.invalid/cu128"), "%s",
	      r ? SH(r->install) : "");
	ws_remedy_free(r);
	/* sm_120 on 12.6: cu126 of 1.1.0 only JITs (PTX 90, ISA of 12.6), cu128 needs 12.8:
	 * the JIT build with this driver */
	ctx.driver_cuda = 12060;
	r = ws_remedy_choose("p", &s120, &ctx);
	CHECK(r && r->kind == WS_REMEDY_DRIVER_FIRST, "a 12.6 driver cannot run sm_120: kind %d", r ? (int)r->kind : -1);
	CHECK(r && r->driver_floor == 12080, "driver floor %d", r ? r->driver_floor : 0);
	ws_remedy_free(r);
	/* sm_120 on 12.8 (1.2.0 needs 13.0): at 1.1.0, cu128 has sm_120 SASS, cu126 only PTX 90
	 * that JITs: native first, though PyPI's rule would not decide it */
	ctx.driver_cuda = 12080;
	r = ws_remedy_choose("p", &s120, &ctx);
	CHECK(r && !strcmp(r->pkgs[0].version, "1.1.0") && !strcmp(r->variant, "cu128") && r->verdict == WS_V_NATIVE,
	      "%s", r ? r->summary : "");
	ws_remedy_free(r);
	/* sm_61: only 1.0.0 (sm_60 serves 6.1); the note names the newest release */
	ctx.driver_cuda = 0;
	r = ws_remedy_choose("p", &s61, &ctx);
	CHECK(r && !strcmp(r->pkgs[0].version, "1.0.0") && r->verdict == WS_V_COMPATIBLE);
	CHECK(r && r->note && strstr(r->note, "the newest release, 1.2.0, has none"), "%s", r && r->note ? r->note : "");
	ws_remedy_free(r);
	/* "has none" only when true: on sm_90 with a 12.8 driver, 1.2.0 has sm_90 SASS and needs
	 * only a CUDA 13 driver; the note says so */
	ctx.driver_cuda = 12080;
	r = ws_remedy_choose("p", &s90, &ctx);
	CHECK(r && r->note && !strstr(r->note, "has none") &&
	      strstr(r->note, "the newest release, p 1.2.0, needs a driver for CUDA >= 13.0 (R580 or newer), and this one "
		      "supports CUDA 12.8"), "%s", r && r->note ? r->note : "");
	ctx.driver_cuda = 0;
	ws_remedy_free(r);
	r = ws_remedy_choose("p", &s61, &ctx);
	/* offline: every tag a machine of glibc 2.28 on x86_64 accepts, as packaging.tags derives
	 * them, and the interpreter's ABIs (issue 36, item 3) */
	CHECK(r && strstr(SH(r->download), " --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 "),
	      "%s", r ? SH(r->download) : "");
	CHECK(r && strstr(SH(r->download), " --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 "
			  "--platform manylinux_2_16_x86_64 "), "%s", r ? SH(r->download) : "");
	CHECK(r && strstr(SH(r->download), " --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 "),
	      "%s", r ? SH(r->download) : "");
	CHECK(r && strstr(SH(r->download), " --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 "
			  "--platform linux_x86_64 -d wheels"), "%s", r ? SH(r->download) : "");
	CHECK(r && !strstr(SH(r->download), "manylinux_2_29") && !strstr(SH(r->download), "manylinux_2_4_"),
	      "%s", r ? SH(r->download) : "");
	ws_remedy_free(r);
	ctx.python_version = "3.11";
	r = ws_remedy_choose("p", &s61, &ctx);
	CHECK(r && strstr(SH(r->download), " --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 "
			  "--abi abi3 --abi none --platform manylinux_2_28_x86_64 "), "%s", r ? SH(r->download) : "");
	ctx.python_version = NULL;
	ws_remedy_free(r);
	/* nothing runs on sm_52: no 5.x SASS, no PTX at or below it */
	r = ws_remedy_choose("p", &s52, &ctx);
	CHECK(r && r->kind == WS_REMEDY_NONE && ws_cmd_empty(&r->install) && strstr(r->summary, "4 for linux_x86_64"), "%s",
	      r ? r->summary : "");
	ws_remedy_free(r);
	/* another platform has its own rows */
	ctx.platform = "win_amd64";
	r = ws_remedy_choose("p", &s61, &ctx);
	CHECK(r && !strcmp(r->pkgs[0].version, "1.2.0") && strstr(shell_text(&r->download, WS_SHELL_CMD), "--platform win_amd64"));
	/* a Windows platform: cmd.exe first, then PowerShell */
	CHECK(r && r->nshells == 2 && r->shells[0] == WS_SHELL_CMD && r->shells[1] == WS_SHELL_POWERSHELL);
	ws_remedy_free(r);
	ctx.platform = "linux_x86_64";
	/* an unknown package: no remedy */
	CHECK(ws_remedy_choose("q", &s90, &ctx) == NULL);
	/* PEP 503 names */
	r = ws_remedy_choose("P", &s90, &ctx);
	CHECK(r != NULL);
	ws_remedy_free(r);

	/* companions: torch 2.9.1 brings the torchvision of its minor series (>=2.9.0), not
	 * 0.25.0 (>=2.10.0); torch 2.8.0 brings the pinned 0.23.0, and the torchaudio the table
	 * lacks is said */
	r = ws_remedy_choose("torch", &s90, &ctx);
	CHECK(r && r->npkgs == 2 && !strcmp(r->pkgs[0].version, "2.9.1") && !strcmp(r->pkgs[1].name, "torchvision") &&
	      !strcmp(r->pkgs[1].version, "0.24.0"), "%s", r ? r->summary : "");
	CHECK(r && r->note && strstr(r->note, "no torchaudio made for torch 2.9.1"), "%s", r && r->note ? r->note : "");
	ws_remedy_free(r);
	ctx.driver_cuda = 12080;
	r = ws_remedy_choose("torchvision", &s90, &ctx);
	CHECK(r && !strcmp(r->pkgs[0].version, "0.23.0") && r->npkgs == 2 && !strcmp(r->pkgs[1].name, "torch") &&
	      !strcmp(r->pkgs[1].version, "2.8.0"), "%s", r ? r->summary : "");
	CHECK(r && !strcmp(SH(r->install), "pip install torchvision==0.23.0+cu128 torch==2.8.0+cu128 --index-url "
			   "https://idx.invalid/cu128"), "%s", r ? SH(r->install) : "");
	ws_remedy_free(r);
	ctx.driver_cuda = 0;

	/* the interpreter word: the shell is the platform's (a backslash does not make a path
	 * Windows'): on Linux always POSIX quoting, so "$(...)" in a path with a backslash stays
	 * text (issue 40); on win_amd64 cmd.exe's form */
	static const struct { const char *platform, *exe, *want; enum ws_shell sh; } py[] = {
		{"linux_x86_64", "/usr/bin/python3", "/usr/bin/python3 -m pip install p==1.2.0", WS_SHELL_SH},
		{"linux_x86_64", "/opt/my env/python", "'/opt/my env/python' -m pip install p==1.2.0", WS_SHELL_SH},
		{"linux_x86_64", "/opt/it's/python", "'/opt/it'\\''s/python' -m pip install p==1.2.0", WS_SHELL_SH},
		{"linux_x86_64", "/x/$(id)/python", "'/x/$(id)/python' -m pip install p==1.2.0", WS_SHELL_SH},
		{"linux_x86_64", "/x/a\\b/$(touch pwned)/python", "'/x/a\\b/$(touch pwned)/python' -m pip install p==1.2.0",
		 WS_SHELL_SH},
		{"linux_x86_64", "C:\\x\\$(id)\\python.exe", "'C:\\x\\$(id)\\python.exe' -m pip install p==1.2.0", WS_SHELL_SH},
		{"win_amd64", "python_embeded\\python.exe", "python_embeded\\python.exe -m pip install p==1.2.0", WS_SHELL_CMD},
		{"win_amd64", "C:\\Apps\\ComfyUI\\python_embeded\\python.exe",
		 "C:\\Apps\\ComfyUI\\python_embeded\\python.exe -m pip install p==1.2.0", WS_SHELL_CMD},
		{"win_amd64", "C:\\Program Files\\py\\python.exe", "\"C:\\Program Files\\py\\python.exe\" -m pip install p==1.2.0",
		 WS_SHELL_CMD},
		{"win_amd64", "C:\\Program Files\\py\\python.exe", "& 'C:\\Program Files\\py\\python.exe' -m pip install p==1.2.0",
		 WS_SHELL_POWERSHELL},
		{"win_amd64", "C:\\100%\\python.exe", "(refused)", WS_SHELL_CMD},
	};
	for (size_t i = 0; i < sizeof py / sizeof py[0]; i++) {
		ctx.python_exe = py[i].exe;
		ctx.platform = py[i].platform;
		r = ws_remedy_choose("p", &s120, &ctx);      /* 1.2.0 runs there on both platforms */
		CHECK(r && !strcmp(shell_text(&r->install, py[i].sh), py[i].want), "%s -> %s", py[i].exe,
		      r ? shell_text(&r->install, py[i].sh) : "");
		CHECK(r && r->shells[0] == (strcmp(py[i].platform, "win_amd64") ? WS_SHELL_SH : WS_SHELL_CMD));
		ws_remedy_free(r);
	}
	ctx.python_exe = NULL;
	ctx.platform = "linux_x86_64";

	/* nothing is cut (issue 40: the specs stopped at 511 bytes, so a summary naming torch,
	 * torchvision and torchaudio came with a command installing torch only) */
	{
		char big[4096], v[220];
		struct ws_builds lb;
		memset(v, 0, sizeof v);
		memcpy(v, "2.8.0.post", 10);
		memset(v + 10, '1', 200);
		snprintf(big, sizeof big,
			 "torch\t%s\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\tscanned\tx\t\n"
			 "torchvision\t%s\tcu128\tlinux_x86_64\t12.8\t90\t\ttorch==%s\tpypi\tscanned\tx\t\n"
			 "torchaudio\t%s\tcu128\tlinux_x86_64\t12.8\t90\t\ttorch==%s\tpypi\tscanned\tx\t\n", v, v, v, v, v);
		CHECK(parse(big, &lb, FRESH(err)) == 0, "%s", err.msg);
		struct ws_remedy_ctx lc = {.builds = &lb, .platform = "linux_x86_64"};
		r = ws_remedy_choose("torch", &s90, &lc);
		CHECK(r && r->npkgs == 3, "%s", r ? r->summary : "");
		const char *line = r ? SH(r->install) : "";
		CHECK(strlen(line) > 600 && strstr(line, "torchaudio==2.8.0.post1") &&
		      line[strlen(line) - 1] == '1', "%zu bytes: %.80s...", strlen(line), line);
		ws_remedy_free(r);
		ws_builds_free(&lb);
	}

	/* a package that accepts a range of torch names the torch that runs: pip would bring the
	 * newest (2.15.0, CUDA 13.2), which a CUDA 12.8 driver cannot run */
	{
		static const char rows[] =
			"torch\t2.10.0\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\tscanned\tx\t\n"
			"torch\t2.15.0\tcu128\tlinux_x86_64\t13.2\t90\t\t\tpypi\tscanned\tx\t\n"
			"torch\t3.0.0\tcu128\tlinux_x86_64\t13.0\t90\t\t\tpypi\tscanned\tx\t\n"
			"xformers\t0.0.35\tcu128\tlinux_x86_64\t12.8\t90\t\ttorch>=2.10\tpypi\tscanned\tx\t\n"
			"bitsandbytes\t0.50.2\tcu128\tlinux_x86_64\t12.8\t90\t\ttorch<3,>=2.3\tpypi\tscanned\tx\t\n"
			"odd\t1.0\tcu128\tlinux_x86_64\t12.8\t90\t\ttorch~=2.1\tpypi\tscanned\tx\t\n";
		struct ws_builds lb;
		CHECK(parse(rows, &lb, FRESH(err)) == 0, "%s", err.msg);
		struct ws_remedy_ctx lc = {.builds = &lb, .platform = "linux_x86_64", .driver_cuda = 12080};
		r = ws_remedy_choose("xformers", &s90, &lc);
		CHECK(r && !strcmp(SH(r->install), "pip install xformers==0.0.35 torch==2.10.0"), "%s",
		      r ? SH(r->install) : "");
		ws_remedy_free(r);
		r = ws_remedy_choose("bitsandbytes", &s90, &lc);
		CHECK(r && !strcmp(SH(r->install), "pip install bitsandbytes==0.50.2 torch==2.10.0"), "%s",
		      r ? SH(r->install) : "");
		ws_remedy_free(r);
		lc.driver_cuda = 0;         /* any driver: the newest torch below 3 */
		r = ws_remedy_choose("bitsandbytes", &s90, &lc);
		CHECK(r && !strcmp(SH(r->install), "pip install bitsandbytes==0.50.2 torch==2.15.0"), "%s",
		      r ? SH(r->install) : "");
		ws_remedy_free(r);
		r = ws_remedy_choose("odd", &s90, &lc);      /* a clause it cannot read: says so */
		CHECK(r && r->npkgs == 1 && r->note && strstr(r->note, "torch~=2.1"), "%s", r && r->note ? r->note : "");
		ws_remedy_free(r);
		ws_builds_free(&lb);
	}

	/* bitsandbytes for Windows: PyPI's torch there is CPU-only, so the torch named beside it
	 * comes from a variant index, with its local tag and --extra-index-url (PyPI still serves
	 * bitsandbytes), and bitsandbytes' build is its library for that torch's CUDA: of the
	 * torch builds that run with the driver, the newest release, then the newer CUDA */
	{
		static const char rows[] =
			"torch\t2.8.0\tcpu\twin_amd64\t\t\t\t\tpypi\tscanned\tx\t\n"
			"torch\t2.8.0\tcu126\twin_amd64\t12.6\t90\t\t\thttps://download.pytorch.org/whl/cu126\tdeclared\tx\t\n"
			"torch\t2.8.0\tcu128\twin_amd64\t12.8\t90\t\t\thttps://download.pytorch.org/whl/cu128\tdeclared\tx\t\n"
			"torch\t2.9.0\tcu130\twin_amd64\t13.0\t90\t\t\thttps://download.pytorch.org/whl/cu130\tdeclared\tx\t\n"
			"torch\t2.9.0\tcu129\twin_amd64\t12.9\t90\t\t\thttps://download.pytorch.org/whl/cu129\tdeclared\tx\t\n"
			"bitsandbytes\t0.49.0\tcu126\twin_amd64\t12.6\t90\t\ttorch<3,>=2.3\tpypi\tdeclared\tx\t\n"
			"bitsandbytes\t0.49.0\tcu128\twin_amd64\t12.8\t90\t\ttorch<3,>=2.3\tpypi\tdeclared\tx\t\n"
			"bitsandbytes\t0.49.0\tcu130\twin_amd64\t13.0\t90\t\ttorch<3,>=2.3\tpypi\tdeclared\tx\t\n";
		struct ws_builds lb;
		CHECK(parse(rows, &lb, FRESH(err)) == 0, "%s", err.msg);
		struct ws_remedy_ctx lc = {.builds = &lb, .platform = "win_amd64", .driver_cuda = 12080};
		r = ws_remedy_choose("bitsandbytes", &s90, &lc);
		CHECK(r && !strcmp(SH(r->install), "pip install bitsandbytes==0.49.0 torch==2.8.0+cu128 --extra-index-url "
				    "https://download.pytorch.org/whl/cu128") && !strcmp(r->variant, "cu128") &&
		      r->npkgs == 2 && r->note && strstr(r->note, "comes from https://download.pytorch.org/whl/cu128"),
		      "%s | %s", r ? SH(r->install) : "", r && r->note ? r->note : "");
		CHECK(r && !strcmp(SH(r->offline), "pip install --no-index --find-links wheels bitsandbytes==0.49.0 "
				    "torch==2.8.0+cu128"), "%s", r ? SH(r->offline) : "");
		CHECK(r && strstr(SH(r->download), "torch==2.8.0+cu128 --extra-index-url https://download.pytorch.org/whl/cu128 "),
		      "%s", r ? SH(r->download) : "");
		ws_remedy_free(r);
		lc.driver_cuda = 0;         /* any driver: torch 2.9.0, whose cu130 bitsandbytes has */
		r = ws_remedy_choose("bitsandbytes", &s90, &lc);
		CHECK(r && !strcmp(SH(r->install), "pip install bitsandbytes==0.49.0 torch==2.9.0+cu130 --extra-index-url "
				    "https://download.pytorch.org/whl/cu130") && !strcmp(r->variant, "cu130"),
		      "%s", r ? SH(r->install) : "");
		ws_remedy_free(r);
		ws_builds_free(&lb);
	}
	/* the newest torch decides bitsandbytes' library: its own best (cu130) yields to the
	 * cu128 of torch 2.9.0, the newest torch it has a library for */
	{
		static const char rows[] =
			"torch\t2.8.0\tcu130\twin_amd64\t13.0\t90\t\t\thttps://download.pytorch.org/whl/cu130\tdeclared\tx\t\n"
			"torch\t2.9.0\tcu128\twin_amd64\t12.8\t90\t\t\thttps://download.pytorch.org/whl/cu128\tdeclared\tx\t\n"
			"bitsandbytes\t0.49.0\tcu128\twin_amd64\t12.8\t90\t\ttorch<3,>=2.3\tpypi\tdeclared\tx\t\n"
			"bitsandbytes\t0.49.0\tcu130\twin_amd64\t13.0\t90\t\ttorch<3,>=2.3\tpypi\tdeclared\tx\t\n";
		struct ws_builds lb;
		CHECK(parse(rows, &lb, FRESH(err)) == 0, "%s", err.msg);
		struct ws_remedy_ctx lc = {.builds = &lb, .platform = "win_amd64"};
		r = ws_remedy_choose("bitsandbytes", &s90, &lc);
		CHECK(r && !strcmp(SH(r->install), "pip install bitsandbytes==0.49.0 torch==2.9.0+cu128 --extra-index-url "
				    "https://download.pytorch.org/whl/cu128") && !strcmp(r->variant, "cu128") &&
		      r->note && strstr(r->note, "libbitsandbytes_cuda128 with a cu128 torch"),
		      "%s | %s | %s", r ? SH(r->install) : "", r ? r->variant : "", r && r->note ? r->note : "");
		ws_remedy_free(r);
		ws_builds_free(&lb);
	}

	/* a table (--builds) whose row names a GitHub release page as its index: no package index
	 * is there, so the remedy prints no command, and says where the wheels are */
	{
		static const char rows[] =
			"flash-attn\t2.8.3\tcu128\tlinux_x86_64\t12.8\t90\t\ttorch==2.8.0\t"
			"https://github.com/Dao-AILab/flash-attention/releases/tag/v2.8.3\tdeclared\tx\t\n";
		struct ws_builds lb;
		CHECK(parse(rows, &lb, FRESH(err)) == 0, "%s", err.msg);
		struct ws_remedy_ctx lc = {.builds = &lb, .platform = "linux_x86_64"};
		r = ws_remedy_choose("flash-attn", &s90, &lc);
		CHECK(r && r->kind == WS_REMEDY_INSTALL && r->install.argc == 0 && r->download.argc == 0 &&
		      r->offline.argc == 0 && r->note && strstr(r->note, "no package index serves this build"),
		      "%s | %s", r ? SH(r->install) : "", r && r->note ? r->note : "");
		ws_remedy_free(r);
		ws_builds_free(&lb);
	}

	/* the ranking: one entry per install, best first */
	const struct ws_build *rank[8];
	size_t n = ws_builds_rank(&b, "p", "linux_x86_64", &s90, 0, rank, 8);
	CHECK_EQ_INT(n, 3);
	CHECK(n == 3 && !strcmp(rank[0]->version, "1.2.0") && !strcmp(rank[1]->variant, "cu128") &&
	      !strcmp(rank[2]->version, "1.0.0"));
	n = ws_builds_rank(&b, "p", "linux_x86_64", &s90, 0, rank, 1);
	CHECK(n == 1 && !strcmp(rank[0]->version, "1.2.0"));
	ws_builds_free(&b);
}

/* --suggest and the remedy rank a package's rows: torch's companions are searched once per
 * release and platform, not at every comparison over the whole table (issue 40: ranking
 * was quadratic in rows; a table within the stated limits ran past 300 s). 20 releases of
 * 100 variants each, and their torchvision and torchaudio, beside 3,000 rows of another
 * package: one companion search per release, variant and index (2,000; each a few binary
 * searches in rank.c's index, never a walk over the companions' rows), and the same
 * choice as a table of those 20 releases. */
static void test_rank_cost(void)
{
	size_t cap = 7000 * 160, len = 0;
	char *t = malloc(cap);
	CHECK(t != NULL, "allocation");
	if (!t)
		return;
	len += (size_t)snprintf(t, cap, "%s", HEAD);
	for (int i = 0; i < 3000; i++)
		len += (size_t)snprintf(t + len, cap - len, "other\t1.%d.0\tcu128\tlinux_x86_64\t12.8\t80,90\t\t\tpypi\tscanned\tx\t\n", i);
	for (int rel = 0; rel < 20; rel++)
		for (int v = 0; v < 100; v++) {
			len += (size_t)snprintf(t + len, cap - len, "torch\t2.%d.0\tcu%d\tlinux_x86_64\t12.8\t80,90,120\t\t\t"
						"https://idx.invalid/%d\tdeclared\tx\t\n", rel, 1000 + v, v);
			if (rel % 2 == 0)               /* companions for the even releases only */
				len += (size_t)snprintf(t + len, cap - len,
							"torchvision\t0.%d.0\tcu%d\tlinux_x86_64\t12.8\t80,90,120\t\ttorch==2.%d.0\t"
							"https://idx.invalid/%d\tdeclared\tx\t\n"
							"torchaudio\t2.%d.0\tcu%d\tlinux_x86_64\t12.8\t80,90,120\t\ttorch==2.%d.0\t"
							"https://idx.invalid/%d\tdeclared\tx\t\n", rel, 1000 + v, rel, v, rel, 1000 + v, rel, v);
		}
	struct ws_builds b;
	struct ws_err err = {0};
	CHECK(ws_builds_parse(t, len, "test table", &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_target s90 = target("sm_90");
	const struct ws_build *top[4];
	uint64_t lookups = 0;
	size_t n = ws_builds_rank_counted(&b, "torch", "linux_x86_64", &s90, 0, top, 4, &lookups);
	CHECK_EQ_INT(lookups, 2000);
	/* the newest release with both companions first (2.18.0), each release once */
	CHECK(n == 4 && !strcmp(top[0]->version, "2.18.0") && !strcmp(top[1]->version, "2.16.0"),
	      "%zu: %s %s", n, n ? top[0]->version : "", n > 1 ? top[1]->version : "");
	lookups = 0;
	CHECK_EQ_INT(ws_builds_rank_counted(&b, "other", NULL, &s90, 0, top, 1, &lookups), 1);
	CHECK_EQ_INT(lookups, 0);
	CHECK(!strcmp(top[0]->version, "1.2999.0"), "%s", top[0]->version);
	CHECK_EQ_INT(ws_builds_rank_counted(&b, "Torch", NULL, &s90, 0, top, 1, NULL), 1);   /* PyPI names */
	CHECK_EQ_INT(ws_builds_rank_counted(&b, "torchtext", NULL, &s90, 0, top, 1, NULL), 0);
	free(t);
	ws_builds_free(&b);
}

int main(void)
{
	test_versions();
	test_parse();
	test_verdicts();
	test_choice();
	test_choice_minor();
	test_driver_floor_jit();
	test_last_driver();
	test_rank_cost();
	for (size_t i = 0; i < nkept; i++)
		ws_builds_free(&kept[i]);
	return ws_test_done();
}
