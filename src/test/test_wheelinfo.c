/* test_wheelinfo.c - wheel file names, METADATA, WHEEL and RECORD parsing. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "wheelscan.h"
#include "ws_util.h"
#include "ws_wheelinfo.h"
#include "ws_record.h"

static void test_filename(void)
{
	struct ws_wheel_info w;
	memset(&w, 0, sizeof w);
	CHECK_EQ_INT(ws_wheel_parse_filename(&w, "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"), 0);
	CHECK_EQ_STR(w.name, "torch");
	CHECK_EQ_STR(w.version, "2.5.1+cu124");
	CHECK_EQ_STR(w.local, "cu124");
	CHECK_EQ_STR(w.python_tag, "cp311");
	CHECK_EQ_STR(w.abi_tag, "cp311");
	CHECK_EQ_STR(w.platform_tag, "linux_x86_64");

	/* a second parse replaces every field; a directory part is ignored */
	CHECK_EQ_INT(ws_wheel_parse_filename(&w, "/srv/mirror/t/nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl"), 0);
	CHECK_EQ_STR(w.name, "nvidia_curand_cu12");
	CHECK_EQ_STR(w.version, "10.3.5.147");
	CHECK(w.local == NULL, "no local part in a plain version");
	CHECK_EQ_STR(w.platform_tag, "manylinux2014_x86_64");

	/* with a build tag; compressed tag sets stay one field */
	CHECK_EQ_INT(ws_wheel_parse_filename(&w, "bitsandbytes-0.45.0-1-py3-none-manylinux_2_24_x86_64.manylinux_2_28_x86_64.WHL"), 0);
	CHECK_EQ_STR(w.name, "bitsandbytes");
	CHECK_EQ_STR(w.version, "0.45.0");
	CHECK_EQ_STR(w.python_tag, "py3");
	CHECK_EQ_STR(w.abi_tag, "none");
	CHECK_EQ_STR(w.platform_tag, "manylinux_2_24_x86_64.manylinux_2_28_x86_64");

	/* not wheel names: w keeps what it had */
	const char *bad[] = { "torch.zip", "a-b.whl", "a--b-c-d.whl", "a-1-2-3-4-5-6.whl", ".whl",
			      "0b1f6a2c9d4e8f7a3b5c1d2e4f6a8b0c", "x-1.0-py3-none-any.whl.part", "-1.0-py3-none-any.whl" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(ws_wheel_parse_filename(&w, bad[i]) == -1, "'%s' parsed as a wheel name", bad[i]);
	CHECK_EQ_STR(w.name, "bitsandbytes");
	free(w.name); free(w.version); free(w.local);
	free(w.python_tag); free(w.abi_tag); free(w.platform_tag);

	struct ws_wheel_info *h = calloc(1, sizeof *h);
	CHECK_EQ_INT(ws_wheel_parse_filename(h, "x-1.0+local.7-py3-none-any.whl"), 0);
	CHECK_EQ_STR(h->local, "local.7");
	ws_wheel_info_free(h);
	ws_wheel_info_free(NULL);
}

static int major(const char *req, bool *extra)
{
	return ws_requirement_cuda_major(req, strlen(req), extra);
}

static void test_requirements(void)
{
	bool extra;
	CHECK_EQ_INT(major("nvidia-cublas-cu12==12.4.5.8; platform_system == \"Linux\" and platform_machine == \"x86_64\"", &extra), 12);
	CHECK(!extra, "a platform marker is no extra");
	CHECK_EQ_INT(major("nvidia_cudnn_cu12>=9.1", &extra), 12);
	CHECK_EQ_INT(major("NVIDIA.CuBLAS_CU11 (>=11.10)", &extra), 11);
	CHECK_EQ_INT(major("  nvidia-nccl-cu13 ; extra == 'cuda'", &extra), 13);
	CHECK(extra, "extra marker seen");
	CHECK_EQ_INT(major("nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\"", &extra), 13);
	CHECK_EQ_INT(major("nvidia-cublas>=13.0", &extra), 13);
	CHECK_EQ_INT(major("nvidia-cufft==12.0.0.15", &extra), 0);       /* cuFFT 12 ships with CUDA 13 */
	CHECK_EQ_INT(major("nvidia-cublas-cu12x", &extra), 0);
	CHECK_EQ_INT(major("nvidia-ml-py>=12", &extra), 0);
	CHECK_EQ_INT(major("numpy>=1.26", &extra), 0);
	CHECK_EQ_INT(major("", &extra), 0);
	CHECK_EQ_INT(major("cupy-cuda12x", &extra), 0);
}

static void test_metadata(void)
{
	struct ws_wheel_info *w = calloc(1, sizeof *w);
	const char md[] =
		"Metadata-Version: 2.1\r\n"
		"Name: torch\r\n"
		"Version: 2.5.1+cu124\r\n"
		"Summary: Tensors and Dynamic neural networks\r\n"
		"  with a continuation line\r\n"
		"Requires-Dist: filelock\r\n"
		"Requires-Dist: nvidia-nccl-cu11 ; extra == \"old\"\r\n"
		"Requires-Dist: nvidia-cuda-runtime-cu12==12.4.127; platform_system == \"Linux\"\r\n"
		"Name: not-the-name\r\n"
		"\r\n"
		"Requires-Dist: nvidia-body-cu99\r\n";
	ws_wheel_parse_metadata(w, md, strlen(md));
	CHECK_EQ_STR(w->meta_name, "torch");
	CHECK_EQ_STR(w->meta_version, "2.5.1+cu124");
	CHECK_EQ_INT(w->requires_cuda_major, 12);        /* not 99 from the body, not the extra's 11 */
	const char md2[] = "Name: jax-plugin\nRequires-Dist: nvidia-cublas-cu12>=12.1; extra == \"with-cuda\"\n";
	struct ws_wheel_info *w2 = calloc(1, sizeof *w2);
	ws_wheel_parse_metadata(w2, md2, strlen(md2));
	CHECK_EQ_INT(w2->requires_cuda_major, 12);       /* only extras: the extra's CUDA */
	CHECK_EQ_INT(w->requires_cuda_runtime, 12040);
	/* torch 2.15.0 (PyPI) pins NVIDIA's metapackage with its cudart extra: the runtime is 13.2 */
	const char mdrt4[] = "Name: torch\nRequires-Dist: cuda-toolkit[cublas,cudart,cufft]==13.2.2; "
			   "platform_system == \"Linux\"\n";
	struct ws_wheel_info *rt4 = calloc(1, sizeof *rt4);
	ws_wheel_parse_metadata(rt4, mdrt4, strlen(mdrt4));
	CHECK_EQ_INT(rt4->requires_cuda_runtime, 13020);
	/* without cudart among the extras it pins no runtime; a range pins nothing */
	const char mdrt5[] = "Name: x\nRequires-Dist: cuda-toolkit[cublas]==13.2.2\n"
			   "Requires-Dist: cuda-toolkit>=13.0\n";
	struct ws_wheel_info *rt5 = calloc(1, sizeof *rt5);
	ws_wheel_parse_metadata(rt5, mdrt5, strlen(mdrt5));
	CHECK_EQ_INT(rt5->requires_cuda_runtime, 0);
	ws_wheel_info_free(rt4);
	ws_wheel_info_free(rt5);
	ws_wheel_parse_metadata(w2, "", 0);
	const char wf[] = "Wheel-Version: 1.0\nGenerator: setuptools (75.1.0)\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n";
	ws_wheel_parse_wheelfile(w, wf, strlen(wf));
	CHECK_EQ_STR(w->generator, "setuptools (75.1.0)");
	CHECK_EQ_STR(w->platform_tag, "linux_x86_64");     /* no file name parsed: WHEEL's Tag */
	/* no file name (a pip cache body): the tags come from WHEEL's Tag lines, as a set */
	struct ws_wheel_info *w3 = calloc(1, sizeof *w3);
	const char wf3[] = "Tag: py2-none-any\nTag: py3-none-any\nTag: py3-none-any\nTag: bad-tag\n"
			   "Tag: a--b\nTag: x-y-z-w\nTag: py3-none-manylinux_2_28_x86_64\n";
	ws_wheel_parse_wheelfile(w3, wf3, strlen(wf3));
	CHECK_EQ_STR(w3->python_tag, "py2.py3");
	CHECK_EQ_STR(w3->abi_tag, "none");
	CHECK_EQ_STR(w3->platform_tag, "any.manylinux_2_28_x86_64");
	/* tags from the file name are not replaced by WHEEL's */
	struct ws_wheel_info *w4 = calloc(1, sizeof *w4);
	CHECK_EQ_INT(ws_wheel_parse_filename(w4, "dist/x-1.0-cp311-cp311-linux_x86_64.whl"), 0);
	ws_wheel_parse_wheelfile(w4, wf3, strlen(wf3));
	CHECK_EQ_STR(w4->python_tag, "cp311");
	CHECK_EQ_STR(w4->platform_tag, "linux_x86_64");
	/* a hostile WHEEL with thousands of tags: the set stops growing */
	struct ws_wheel_info *w5 = calloc(1, sizeof *w5);
	struct ws_buf many = {0};
	for (int i = 0; i < 5000; i++)
		ws_buf_printf(&many, "Tag: py%d-none-any\n", i);
	ws_wheel_parse_wheelfile(w5, many.p, many.len);
	CHECK(w5->python_tag && strlen(w5->python_tag) <= 256, "the tag set is bounded");
	ws_buf_free(&many);
	ws_wheel_info_free(w3);
	ws_wheel_info_free(w4);
	ws_wheel_info_free(w5);
	ws_wheel_info_free(w);
	ws_wheel_info_free(w2);
}

static void test_record(void)
{
	struct ws_record_index r;
	struct ws_err err = {0};
	const char rec[] =
		"torch/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\r\n"
		"\"torch/a,b \"\"q\"\".py\",sha256=abc=,12\n"
		"\n"
		"torch/lib/libtorch_cuda.so,sha384=AAAA,1234567890123\n"
		"torch-2.5.1.dist-info/RECORD,,\n"
		"torch/__init__.py,sha256=OTHER,1\n"
		"torch/nosize.py,sha256=xyz\n"
		"\"torch/multi\nline.py\",sha256=m,3,extra-column";
	CHECK_EQ_INT(ws_record_parse(&r, rec, sizeof rec - 1, &err), 0);
	CHECK_EQ_INT(r.n, 6);                           /* the repeated row is ignored */
	int64_t i = ws_record_find(&r, "torch/__init__.py");
	CHECK(i >= 0 && strcmp(r.line[i].digest, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU") == 0 && r.line[i].size == 0,
	      "first row wins");
	i = ws_record_find(&r, "torch/a,b \"q\".py");
	CHECK(i >= 0 && strcmp(r.line[i].algo, "sha256") == 0 && strcmp(r.line[i].digest, "abc") == 0 && r.line[i].size == 12,
	      "quoted path, padding dropped");
	i = ws_record_find(&r, "torch/lib/libtorch_cuda.so");
	CHECK(i >= 0 && strcmp(r.line[i].algo, "sha384") == 0 && r.line[i].size == 1234567890123LL, "sha384 row");
	i = ws_record_find(&r, "torch-2.5.1.dist-info/RECORD");
	CHECK(i >= 0 && r.line[i].algo[0] == '\0' && r.line[i].digest == NULL && r.line[i].size == -1, "RECORD's own row");
	i = ws_record_find(&r, "torch/nosize.py");
	CHECK(i >= 0 && r.line[i].size == -1, "row without size");
	CHECK(ws_record_find(&r, "torch/multi\nline.py") >= 0, "quoted newline");
	CHECK_EQ_INT(ws_record_find(&r, "torch/absent.py"), -1);
	ws_record_index_free(&r);
	ws_record_index_free(&r);                       /* twice is harmless */

	/* many rows: the table grows */
	struct ws_buf b = { 0 };
	for (int k = 0; k < 5000; k++)
		ws_buf_printf(&b, "pkg/m%d.py,sha256=h%d,%d\n", k, k, k);
	CHECK_EQ_INT(ws_record_parse(&r, b.p, b.len, &err), 0);
	CHECK_EQ_INT(r.n, 5000);
	i = ws_record_find(&r, "pkg/m4321.py");
	CHECK(i >= 0 && r.line[i].size == 4321 && strcmp(r.line[i].digest, "h4321") == 0, "row 4321 found");
	ws_record_index_free(&r);
	ws_buf_free(&b);

	const char *bad[] = { "\"unterminated,sha256=x,1\n", "a,sha256=x,12z\n", "a,nohash,1\n", "a,=x,1\n",
			      ",sha256=x,1\n", "\"a\"b,sha256=x,1\n", "a,sha256=x,99999999999999999999\n",
			      "a,averyveryverylongalgorithm=x,1\n" };
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		memset(&err, 0, sizeof err);
		CHECK(ws_record_parse(&r, bad[k], strlen(bad[k]), &err) == -1, "accepted: %s", bad[k]);
		CHECK(strstr(err.msg, "RECORD is malformed at row 1") != NULL, "err '%s'", err.msg);
		CHECK(err.code == WS_E_FORMAT, "a malformed RECORD is corrupt, code %d", (int)err.code);
		CHECK(r.n == 0 && r.line == NULL, "nothing left after a failure");
	}
	CHECK_EQ_INT(ws_record_parse(&r, "", 0, &err), 0);
	CHECK_EQ_INT(r.n, 0);
	ws_record_index_free(&r);
}

static void test_distinfo(void)
{
	size_t pl = 0;
	CHECK(ws_distinfo_file("torch-2.5.1.dist-info/RECORD", "RECORD", &pl) && pl == 22, "pl %zu", pl);
	CHECK(!ws_distinfo_file("torch-2.5.1.dist-info/RECORD.jws", "RECORD", NULL), "RECORD.jws is not RECORD");
	CHECK(!ws_distinfo_file("torch/x.dist-info/RECORD", "RECORD", NULL), "nested dist-info");
	CHECK(!ws_distinfo_file(".dist-info/RECORD", "RECORD", NULL), "empty dist-info name");
	CHECK(!ws_distinfo_file("torch-2.5.1.data/RECORD", "RECORD", NULL), "not a dist-info");
	CHECK(ws_distinfo_file("a-1.dist-info/WHEEL", "WHEEL", NULL), "WHEEL");
}

/* CPU-only builds of packages with CUDA builds: a +cpu local label, or the torch family */
static void test_cpu_only(void)
{
	static const struct { const char *file, *meta_name, *meta_version; bool cpu; } c[] = {
		{"torch-2.5.1+cpu-cp311-cp311-linux_x86_64.whl", NULL, NULL, true},
		{"torch-2.1.0+cpu.cxx11.abi-cp311-cp311-linux_x86_64.whl", NULL, NULL, true},
		{"torchvision-0.20.1-cp311-cp311-win_amd64.whl", NULL, NULL, true},
		{"x-1.0-py3-none-any.whl", "TorchAudio", "2.5.1", true},
		{"x-1.0-py3-none-any.whl", "foo", "1.0+cpu", true},
		{"foo-1.0+cu124-py3-none-any.whl", NULL, NULL, false},
		{"foo-1.0+cpuinfo-py3-none-any.whl", NULL, NULL, false},
		{"torch_scatter-2.1.2+pt25cpu-cp311-cp311-linux_x86_64.whl", NULL, NULL, true},
		{"torch_scatter-2.1.2+pt25cu124-cp311-cp311-linux_x86_64.whl", NULL, NULL, false},
		{"x-1.0-py3-none-any.whl", "pytorch", "2.5.1", true},
		{"foo-1.0+epcpu-py3-none-any.whl", NULL, NULL, false},
		{"torchtune-1.0-py3-none-any.whl", NULL, NULL, false},
		{"numpy-2.0-cp311-cp311-win_amd64.whl", NULL, NULL, false},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		struct ws_wheel_info *w = ws_calloc(1, sizeof *w);
		if (!w)
			return;
		CHECK(ws_wheel_parse_filename(w, c[i].file) == 0, "%s parses", c[i].file);
		w->meta_name = c[i].meta_name ? ws_strdup(c[i].meta_name) : NULL;
		w->meta_version = c[i].meta_version ? ws_strdup(c[i].meta_version) : NULL;
		CHECK((ws_wheel_cpu_only(w) != NULL) == c[i].cpu, "%s %s: CPU-only %d", c[i].file,
		      c[i].meta_name ? c[i].meta_name : "", !c[i].cpu);
		ws_wheel_info_free(w);
	}
	CHECK(ws_wheel_cpu_only(NULL) == NULL, "no wheel");
}

int main(void)
{
	test_cpu_only();
	test_filename();
	test_requirements();
	test_metadata();
	test_record();
	test_distinfo();
	return ws_test_done();
}
