/* test_pipreport.c - pip's installation report (src/pipreport.c): the fields the guard uses,
 * what it refuses, URL file names, name normalisation and PEP 440 order. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "wheelscan.h"
#include "ws_pipreport.h"
#include "ws_util.h"

static int parse(struct ws_pip_report *r, const char *s)
{
	struct ws_err err = {0};
	int rc = ws_pip_report_parse(r, s, strlen(s), &err);
	return rc;
}

static void test_report(void)
{
	struct ws_pip_report r;
	const char *good =
		"{\"version\": \"1\", \"pip_version\": \"24.0\", \"install\": ["
		"{\"download_info\": {\"url\": \"https://x/torch-2.8.0%2Bcu128-cp311-cp311-linux_x86_64.whl\","
		" \"archive_info\": {\"hash\": \"sha256=AB00000000000000000000000000000000000000000000000000000000000000\","
		" \"hashes\": {\"sha256\": \"ab00000000000000000000000000000000000000000000000000000000000000\"}}},"
		" \"is_direct\": false, \"requested\": true,"
		" \"metadata\": {\"metadata_version\": \"2.1\", \"name\": \"torch\", \"version\": \"2.8.0+cu128\","
		" \"requires_dist\": [\"filelock\"]}},"
		"{\"download_info\": {\"url\": \"file:///src/proj\", \"dir_info\": {\"editable\": true}},"
		" \"metadata\": {\"name\": \"proj\", \"version\": \"0.1\"}},"
		"{\"download_info\": {\"url\": \"https://github.com/a/b\", \"vcs_info\": {\"vcs\": \"git\", \"commit_id\": \"abc\"}},"
		" \"metadata\": {\"name\": \"b\", \"version\": \"1.0\"}}],"
		" \"environment\": {\"python_version\": \"3.11\"}}";
	CHECK_EQ_INT(parse(&r, good), 0);
	CHECK_EQ_INT(r.n, 3);
	CHECK_EQ_STR(r.pip_version, "24.0");
	if (r.n == 3) {
		CHECK_EQ_STR(r.v[0].name, "torch");
		CHECK_EQ_STR(r.v[0].version, "2.8.0+cu128");
		CHECK_EQ_STR(r.v[0].sha256, "ab00000000000000000000000000000000000000000000000000000000000000");
		CHECK(r.v[0].wheel && r.v[0].requested && r.v[0].source == WS_PIP_ARCHIVE, "a wheel, requested");
		CHECK(r.v[1].source == WS_PIP_DIR && r.v[1].editable && !r.v[1].wheel, "an editable project");
		CHECK(r.v[2].source == WS_PIP_VCS, "a checkout");
		CHECK_EQ_STR(r.v[2].commit, "abc");
	}
	ws_pip_report_free(&r);
	/* refused: hashes that disagree, a name that is a path, a version with a space, no format,
	 * another format, an item without download_info, trailing bytes */
	static const char *const bad[] = {
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":\"x\",\"version\":\"1\"},\"download_info\":{\"url\":\"file:///a.whl\","
		"\"archive_info\":{\"hash\":\"sha256=1000000000000000000000000000000000000000000000000000000000000000\","
		"\"hashes\":{\"sha256\":\"2000000000000000000000000000000000000000000000000000000000000000\"}}}}]}",
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":\"../x\",\"version\":\"1\"},\"download_info\":{\"url\":\"file:///a.whl\",\"archive_info\":{}}}]}",
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":\"x\",\"version\":\"1 2\"},\"download_info\":{\"url\":\"file:///a.whl\",\"archive_info\":{}}}]}",
		"{\"install\":[]}",
		"{\"version\":\"0\",\"install\":[]}",
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":\"x\",\"version\":\"1\"}}]}",
		"{\"version\":\"1\",\"install\":[]} x",
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":\"x\",\"version\":\"1\"},\"download_info\":{\"url\":\"file:///a b.whl\",\"archive_info\":{}}}]}",
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":\"x\",\"version\":\"1\"},\"download_info\":{\"url\":\"https://h/r\",\"vcs_info\":{\"vcs\":\"git\",\"commit_id\":\"--upload-pack=x\"}}}]}",
		"{\"version\":\"1\",\"install\":[{\"metadata\":{\"name\":7,\"version\":\"1\"},\"download_info\":{\"url\":\"file:///a.whl\",\"archive_info\":{}}}]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		CHECK(parse(&r, bad[i]) == -1 && r.n == 0 && !r.v, "bad report %zu refused", i);
		ws_pip_report_free(&r);
	}
}

static void test_names(void)
{
	char f[64];
	CHECK(ws_pip_url_file("https://h/p/torch-2.8.0%2Bcu128-x.whl#sha256=00", f, sizeof f) && !strcmp(f, "torch-2.8.0+cu128-x.whl"),
	      "%s", f);
	CHECK(ws_pip_url_file("file:///a/b.tar.gz?x=1", f, sizeof f) && !strcmp(f, "b.tar.gz"), "%s", f);
	CHECK(!ws_pip_url_file("file:///a/..", f, sizeof f), "..");
	CHECK(!ws_pip_url_file("file:///a/", f, sizeof f), "no file name");
	CHECK(!ws_pip_url_file("file:///a/x%2Fy.whl", f, sizeof f), "a slash once decoded");
	CHECK(!ws_pip_url_file("file:///a/x%0a.whl", f, sizeof f), "a control character");
	CHECK(!ws_pip_url_file("file:///a/x%zz.whl", f, sizeof f), "a bad escape");
	CHECK(!ws_pip_url_file("file:///a/0123456789012345678901234567890123456789012345678901234567890123456789.whl", f, sizeof f),
	      "longer than the buffer");
	CHECK(ws_pip_same_name("Flash_Attn", "flash-attn") && ws_pip_same_name("a.-_b", "A-b"), "PEP 503");
	CHECK(!ws_pip_same_name("torch", "torchvision") && !ws_pip_same_name("ab", "a-b"), "different names");
	/* one comparer for the whole project: runs of separators are one, the order agrees
	 * with equality, and the torch family is named by it */
	CHECK(ws_pypi_name_eq("a--b", 4, "A_b", 3) && ws_pypi_name_cmp("a-b", 3, "a-c", 3) < 0 &&
	      ws_pypi_name_cmp("a-c", 3, "a__b", 4) > 0 && ws_pypi_name_cmp("ab", 2, "a", 1) > 0 &&
	      ws_pypi_name_cmp("a", 1, "ab", 2) < 0, "PEP 503 order");
	CHECK(ws_pypi_torch_family("Torch") && ws_pypi_torch_family("TORCHVISION") && !ws_pypi_torch_family("torch.vision") &&
	      ws_pypi_torch_family("TorchAudio") && !ws_pypi_torch_family("torch_audio") &&
	      !ws_pypi_torch_family("torchao"), "the torch family");
}

static void test_versions(void)
{
	static const char *const order[] = {
		"1.0.dev1", "1.0a1", "1.0a2.dev1", "1.0a2", "1.0b1", "1.0rc1", "1.0", "1.0+cpu", "1.0+cu124", "1.0+cu128",
		"1.0.post1", "1.0.1", "1.1", "2.5.1", "2.10.0", "1!0.1",
	};
	size_t n = sizeof order / sizeof *order;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n; k++) {
			int c = ws_pip_version_cmp(order[i], order[k]);
			int want = i < k ? -1 : i > k ? 1 : 0;
			CHECK(c == want, "%s vs %s: %d, expected %d", order[i], order[k], c, want);
		}
	CHECK_EQ_INT(ws_pip_version_cmp("2.8.0", "2.8"), 0);
	CHECK_EQ_INT(ws_pip_version_cmp("0.0.32.post2", "0.0.28.post3"), 1);
}

int main(void)
{
	test_report();
	test_names();
	test_versions();
	return ws_test_done();
}
