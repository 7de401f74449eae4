/* test_assets.c - builds published off PyPI (doc/builds.md): release assets
 * (src/core/remedy_asset.c: the row's checks, the file name against the one flash-attn's
 * release workflow writes, which asset fits a torch, Python and C++ ABI, the remedy's commands
 * or its honest "none"), and Windows' CUDA torch on PyTorch's index, under an embedded
 * interpreter's own pip, as cmd.exe and PowerShell get it. */
#include <stdlib.h>

#include "tap.h"
#include "builds_fixture.h"

#define DL "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/"

/* One asset row of v2.8.3 for torch minor tm, Python below hi. */
static void row(char *out, size_t len, const char *tm, const char *hi)
{
	snprintf(out, len, "flash-attn\t2.8.3\tcu12torch%s\tlinux_x86_64\t12.9\t80,90,100,120\t\t"
		 "torch==%s.*,python>=3.9,python<%s\tasset:" DL "\tdeclared\tpublish.yml@v2.8.3\tlinux_x86_64\n", tm, tm, hi);
}

/* The name the workflow gives an asset (.github/workflows/publish.yml@v2.8.3): bdist_wheel
 * writes flash_attn-2.8.3-cpXY-cpXY-linux_x86_64.whl, then
 *   tmpname=cu${WHEEL_CUDA_VERSION}torch${MATRIX_TORCH_VERSION}cxx11abi${cxx11_abi}
 *   wheel_name=$(... | sed "s/-/+$tmpname-/2")
 * done here the same way, independently of the code under test. */
static void workflow_name(char *out, size_t len, const char *cuda_major, const char *torch, unsigned py, bool abi)
{
	char plain[128], tmp[64];
	snprintf(plain, sizeof plain, "flash_attn-2.8.3-cp3%u-cp3%u-linux_x86_64.whl", py, py);
	snprintf(tmp, sizeof tmp, "+cu%storch%scxx11abi%s-", cuda_major, torch, abi ? "TRUE" : "FALSE");
	const char *second = strchr(strchr(plain, '-') + 1, '-');
	snprintf(out, len, "%.*s%s%s", (int)(second - plain), plain, tmp, second + 1);
}

static void test_rows(void)
{
	struct ws_builds b;
	struct ws_err err = {0};
	char r[1024];
	row(r, sizeof r, "2.8", "3.14");
	CHECK(parse(r, &b, FRESH(err)) == 0, "%s", err.msg);
	CHECK(b.n == 1 && ws_build_is_asset(&b.rows[0]) && ws_asset_row_ok(&b.rows[0]));
	ws_builds_free(&b);
	static const struct { const char *variant, *requires, *index, *platform, *why; } bad[] = {
		{"cu12torch2.7", "torch==2.8.*,python>=3.9,python<3.14", "asset:" DL, "linux_x86_64", "variant's torch differs"},
		{"cu12", "torch==2.8.*,python>=3.9,python<3.14", "asset:" DL, "linux_x86_64", "variant without torch"},
		{"cu12torch2.8", "torch==2.8.*,python>=3.9", "asset:" DL, "linux_x86_64", "no upper Python bound"},
		{"cu12torch2.8", "torch==2.8.*,python>=3.14,python<3.9", "asset:" DL, "linux_x86_64", "empty Python range"},
		{"cu12torch2.8", "torch==2.8.0,python>=3.9,python<3.14", "asset:" DL, "linux_x86_64", "torch not a minor"},
		{"cu12torch2.8", "torch==2.8.*,python>=3.9,python<3.14,", "asset:" DL, "linux_x86_64", "trailing comma"},
		{"cu12torch2.8", "torch==2.8.*,python>=3.9,python<=3.14", "asset:" DL, "linux_x86_64", "python<="},
		{"cu12torch2.8", "torch==2.8.*,python>=3.9,python<3.14", "asset:https://example.invalid/v2", "linux_x86_64",
		 "folder without its slash"},
		{"cu12torch2.8", "torch==2.8.*,python>=3.9,python<3.14", "asset:http://example.invalid/", "linux_x86_64",
		 "http"},
		{"cu12torch2.8", "torch==2.8.*,python>=3.9,python<3.14", "asset:" DL, "", "no wheel platform"},
		{"cu0torch2.8", "torch==2.8.*,python>=3.9,python<3.14", "asset:" DL, "linux_x86_64", "CUDA 0"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(r, sizeof r, "flash-attn\t2.8.3\t%s\tlinux_x86_64\t12.9\t80\t\t%s\t%s\tdeclared\tx\t%s\n", bad[i].variant,
			 bad[i].requires, bad[i].index, bad[i].platform);
		int rc = parse(r, &b, FRESH(err));
		CHECK(rc < 0 && strstr(err.msg, "line 2"), "%s: accepted (%s)", bad[i].why, err.msg);
		if (rc == 0)
			ws_builds_free(&b);
	}
}

/* Every asset of v2.8.3's matrix (torch 2.4 to 2.8, Python 3.9 to 3.13 but not 3.13 with
 * torch 2.4, both ABIs): the URL is the download folder and the workflow's name; nothing
 * outside the matrix fits. */
static void test_names(void)
{
	static const char *const torches[] = {"2.4", "2.5", "2.6", "2.7", "2.8"};
	struct ws_builds b;
	struct ws_err err = {0};
	char body[6000] = "", r[1024];
	for (size_t i = 0; i < 5; i++) {
		row(r, sizeof r, torches[i], i == 0 ? "3.13" : "3.14");
		strcat(body, r);
	}
	CHECK(parse(body, &b, FRESH(err)) == 0, "%s", err.msg);
	unsigned names = 0;
	for (size_t i = 0; i < b.n; i++) {
		for (unsigned py = 8; py <= 14; py++) {
			char pv[8], torch[16], want[256];
			snprintf(pv, sizeof pv, "3.%u", py);
			snprintf(torch, sizeof torch, "%s.1", torches[i]);
			bool in_matrix = py >= 9 && py <= 13 && !(i == 0 && py == 13);
			CHECK(ws_asset_fits(&b.rows[i], torch, 12090, pv) == in_matrix, "torch %s Python %s", torch, pv);
			CHECK(!ws_asset_fits(&b.rows[i], torch, 13000, pv), "a CUDA 13 torch fits a cu12 asset");
			for (int abi = 0; abi < 2; abi++) {
				char *url = ws_asset_url(&b.rows[i], pv, abi);
				workflow_name(want, sizeof want, "12", torches[i], py, abi);
				CHECK(url && !strncmp(url, DL, strlen(DL)) && !strcmp(url + strlen(DL), want), "%s, want %s",
				      url ? url : "(null)", want);
				names += url != NULL;
				free(url);
			}
		}
	}
	CHECK_EQ_INT(names, 5 * 7 * 2);
	CHECK(!ws_asset_fits(&b.rows[4], "2.9.0", 12090, "3.11"), "torch 2.9 fits a torch 2.8 asset");
	CHECK(!ws_asset_fits(&b.rows[4], "2.80.0", 12090, "3.11"), "torch 2.80 fits a torch 2.8 asset");
	CHECK(ws_asset_url(&b.rows[4], "3", true) == NULL, "a Python without a minor");
	ws_builds_free(&b);
	/* PyPI's torch: the old ABI through 2.6, the C++11 ABI from 2.7 */
	CHECK(!ws_torch_cxx11abi("2.5.1") && !ws_torch_cxx11abi("2.6.0"));
	CHECK(ws_torch_cxx11abi("2.7.0") && ws_torch_cxx11abi("2.8.0") && ws_torch_cxx11abi("2.15.0"));
}

static const char *sh(const struct ws_cmd *c)
{
	static char *keep;
	free(keep);
	keep = ws_cmd_text(c, WS_SHELL_SH, NULL);
	return keep ? keep : "(refused)";
}

/* The remedy: with a torch 2.8.0 (CUDA 12.9) on PyPI the asset for torch 2.8 with the C++11
 * ABI; a wheel whose tag names torch 2.7 and the old ABI keeps them; a torch the table
 * advises past every asset gets "no prebuilt wheel", and never a URL. */
static void test_remedy(void)
{
	struct ws_builds b;
	struct ws_err err = {0};
	char body[6000] = "", r[1024];
	row(r, sizeof r, "2.7", "3.14");
	strcat(body, r);
	row(r, sizeof r, "2.8", "3.14");
	strcat(body, r);
	strcat(body, "torch\t2.8.0\tcu129\tlinux_x86_64\t12.9\t75,80,86,90,100,120\t\t\tpypi\tscanned\tx\tmanylinux_2_28_x86_64\n");
	CHECK(parse(body, &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_target h100 = target("H100");
	struct ws_remedy_ctx ctx = {.builds = &b, .platform = "linux_x86_64", .python_version = "3.11"};
	struct ws_remedy *m = ws_remedy_choose("flash_attn", &h100, &ctx);
	CHECK(m && m->kind == WS_REMEDY_INSTALL, "no install remedy");
	if (m && m->kind == WS_REMEDY_INSTALL) {
		CHECK_EQ_STR(sh(&m->install), "pip install " DL "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl");
		CHECK_EQ_STR(sh(&m->offline), "pip install --no-index --find-links wheels --no-deps "
			     "flash-attn==2.8.3+cu12torch2.8cxx11abiTRUE");
		CHECK(strstr(sh(&m->download), "--platform linux_x86_64 -d wheels " DL), "%s", sh(&m->download));
		CHECK(!strstr(m->summary, "index-url") && strstr(m->summary, "torch 2.8.0"), "%s", m->summary);
	}
	ws_remedy_free(m);
	/* the wheel's own tag: torch 2.7, old ABI, an embedded interpreter's pip */
	ctx.artifact_local = "cu12torch2.7cxx11abiFALSE";
	ctx.python_exe = "/opt/app/python/bin/python3";
	m = ws_remedy_choose("flash-attn", &h100, &ctx);
	CHECK(m && m->kind == WS_REMEDY_INSTALL && !strcmp(sh(&m->install), "/opt/app/python/bin/python3 -m pip install " DL
	      "flash_attn-2.8.3+cu12torch2.7cxx11abiFALSE-cp311-cp311-linux_x86_64.whl"), "%s", m ? sh(&m->install) : "-");
	ws_remedy_free(m);
	/* a tag no asset has (torch 2.9), and a tag spelled with a sign: no URL is made up */
	static const char *const tags[] = {"cu12torch2.9cxx11abiTRUE", "cu+12torch2.8cxx11abiTRUE"};
	for (size_t i = 0; i < 2; i++) {
		ctx.artifact_local = tags[i];
		m = ws_remedy_choose("flash-attn", &h100, &ctx);
		if (i == 0)
			CHECK(m && m->kind == WS_REMEDY_NONE && ws_cmd_empty(&m->install) &&
			      strstr(m->summary, "no prebuilt flash-attn wheel for this combination (torch 2.9, CUDA 12") &&
			      strstr(m->summary, "pip install flash-attn --no-build-isolation"), "%s", m ? m->summary : "-");
		else   /* not a tag: the torch the table advises (2.8.0) decides */
			CHECK(m && m->kind == WS_REMEDY_INSTALL && strstr(sh(&m->install), "cu12torch2.8cxx11abiTRUE"), "%s",
			      m ? m->summary : "-");
		ws_remedy_free(m);
	}
	/* Python 3.14: outside the matrix */
	ctx.artifact_local = NULL;
	ctx.python_version = "3.14";
	m = ws_remedy_choose("flash-attn", &h100, &ctx);
	CHECK(m && m->kind == WS_REMEDY_NONE && strstr(m->summary, "Python 3.14"), "%s", m ? m->summary : "-");
	ws_remedy_free(m);
	/* a V100 (7.0): no asset has sm_70 */
	struct ws_target v100 = target("V100");
	ctx.python_version = "3.11";
	m = ws_remedy_choose("flash-attn", &v100, &ctx);
	CHECK(m && m->kind == WS_REMEDY_NONE && !strstr(m->summary, "the newest that runs there"), "%s",
	      m ? m->summary : "-");
	ws_remedy_free(m);
	ws_builds_free(&b);
}

/* Windows: PyPI's torch is CPU-only there; the CUDA build for an RTX 5090 comes from
 * PyTorch's index (cu128 or newer: sm_120 needs CUDA 12.8), with the embedded interpreter of a
 * portable app (python_embeded\python.exe -m pip), rendered for cmd.exe and PowerShell. */
static void test_windows(void)
{
	struct ws_builds b;
	struct ws_err err = {0};
	const char *body =
		"torch\t2.8.0\tcpu\twin_amd64\t\t\t\t\tpypi\tscanned\tx\twin_amd64\n"
		"torch\t2.8.0\tcu126\twin_amd64\t12.6\t50,60,61,70,75,80,86,90\t\t\thttps://download.pytorch.org/whl/cu126\tdeclared\tx\t\n"
		"torch\t2.8.0\tcu128\twin_amd64\t12.8\t75,80,86,90,100,120\t\t\thttps://download.pytorch.org/whl/cu128\tdeclared\tx\t\n"
		"torchvision\t0.23.0\tcu128\twin_amd64\t12.8\t75,80,86,90,100,120\t\ttorch==2.8.0\thttps://download.pytorch.org/whl/cu128\tdeclared\tx\t\n"
		"torchaudio\t2.8.0\tcu128\twin_amd64\t12.8\t75,80,86,90,100,120\t\ttorch==2.8.0\thttps://download.pytorch.org/whl/cu128\tdeclared\tx\t\n";
	CHECK(parse(body, &b, FRESH(err)) == 0, "%s", err.msg);
	struct ws_target rtx = target("RTX 5090");
	const char *exe = "C:\\ComfyUI_windows_portable\\python_embeded\\python.exe";
	struct ws_remedy_ctx ctx = {.builds = &b, .platform = "win_amd64", .python_version = "3.12", .python_exe = exe,
				    .windows_host = true};
	struct ws_remedy *m = ws_remedy_choose("torch", &rtx, &ctx);
	CHECK(m && m->kind == WS_REMEDY_INSTALL && m->nshells == 2 && m->shells[0] == WS_SHELL_CMD &&
	      m->shells[1] == WS_SHELL_POWERSHELL, "no Windows remedy");
	if (m && m->kind == WS_REMEDY_INSTALL) {
		CHECK_EQ_STR(m->variant, "cu128");
		char *cmd = ws_cmd_text(&m->install, WS_SHELL_CMD, NULL), *ps = ws_cmd_text(&m->install, WS_SHELL_POWERSHELL, NULL);
		CHECK_EQ_STR(cmd, "C:\\ComfyUI_windows_portable\\python_embeded\\python.exe -m pip install torch==2.8.0+cu128 "
			     "torchvision==0.23.0+cu128 torchaudio==2.8.0+cu128 --index-url https://download.pytorch.org/whl/cu128");
		CHECK_EQ_STR(ps, "& 'C:\\ComfyUI_windows_portable\\python_embeded\\python.exe' -m pip install torch==2.8.0+cu128 "
			     "torchvision==0.23.0+cu128 torchaudio==2.8.0+cu128 --index-url https://download.pytorch.org/whl/cu128");
		free(cmd);
		free(ps);
		CHECK(strstr(sh(&m->download), "--platform win_amd64"), "%s", sh(&m->download));
	}
	ws_remedy_free(m);
	ws_builds_free(&b);
}

int main(void)
{
	test_rows();
	test_names();
	test_remedy();
	test_windows();
	return ws_test_done();
}
