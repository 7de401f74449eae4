/* test_gpus.c - tests of the GPU table and --gpu / target parsing (src/core/gpus.c). */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "ws_compat.h"
#include "ws_report.h"

static const struct { const char *in; unsigned cc; const char *label; } parse_rows[] = {
	/* numeric forms (issue 4 item 1) */
	{"sm_120", 120, ""}, {"sm_90a", 90, ""}, {"sm_100f", 100, ""}, {"SM_86", 86, ""},
	{"sm86", 86, ""}, {"compute_89", 89, ""}, {"12.0", 120, ""}, {"120", 120, ""},
	{"9.0", 90, ""}, {"8.6", 86, ""}, {"90", 90, ""}, {"10.3", 103, ""}, {" sm_75 ", 75, ""},
	/* Thor's old number stays its own target (doc/compat-rules.md §1) */
	{"sm_101", 101, ""},
	/* names (doc/compat-rules.md §7), with vendor prefixes, case, spaces, dashes */
	{"RTX 5090", 120, "GeForce RTX 5090"}, {"rtx5090", 120, "GeForce RTX 5090"},
	{"NVIDIA GeForce RTX 5090", 120, "GeForce RTX 5090"}, {"geforcertx4090", 89, "GeForce RTX 4090"},
	{"NVIDIA GeForce RTX 4090", 89, "GeForce RTX 4090"}, {"RTX 5090 D", 120, "GeForce RTX 5090 D"},
	{"H200", 90, "H200"}, {"h100", 90, "H100"}, {"B200", 100, "B200"}, {"B300", 103, "B300"},
	{"GB10", 121, "GB10"}, {"DGX Spark", 121, "GB10"}, {"A100", 80, "A100"}, {"T4", 75, "T4"},
	{"Tesla T4", 75, "T4"}, {"Jetson AGX Orin", 87, "Jetson AGX Orin"},
	{"jetson-agx-orin", 87, "Jetson AGX Orin"}, {"Jetson Nano", 53, "Jetson Nano"},
	{"Jetson Orin Nano", 87, "Jetson Orin Nano"}, {"Jetson Thor", 110, "Jetson Thor"},
	{"Quadro RTX 6000", 75, "Quadro RTX 6000"}, {"RTX A6000", 86, "RTX A6000"},
	{"RTX 6000 Ada", 89, "RTX 6000 Ada"}, {"RTX PRO 6000 Blackwell", 120, "RTX PRO 6000 Blackwell"},
	{"GTX 1080 Ti", 61, "GeForce GTX 1080 Ti"}, {"Titan X", 52, "GeForce GTX Titan X"},
	{"Titan Xp", 61, "Titan Xp"}, {"L40S", 89, "L40S"}, {"Tesla V100", 70, "Tesla V100"},
	{"GTX 750 Ti", 50, "GeForce GTX 750 Ti"}, {"Tesla P100", 60, "Tesla P100"},
	/* nvidia-smi spellings */
	{"NVIDIA A100-SXM4-80GB", 80, "A100"}, {"NVIDIA H100 80GB HBM3", 90, "H100"},
	{"NVIDIA H100 NVL", 90, "H100"}, {"Tesla V100-SXM2-16GB", 70, "Tesla V100"},
	{"NVIDIA A100-SXM4-40GB MIG 1g.5gb", 80, "A100"},
	{"NVIDIA GeForce RTX 4090 Laptop GPU", 89, "GeForce RTX 4090"},
	{"NVIDIA RTX 6000 Ada Generation", 89, "RTX 6000 Ada"},
	{"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 120, "RTX PRO 6000 Blackwell"},
	{"NVIDIA A10G", 86, "A10G"}, {"Orin (nvgpu)", 87, "Jetson AGX Orin"},
	/* the product line left out */
	{"4090", 89, "GeForce RTX 4090"}, {"A6000", 86, "RTX A6000"}, {"1080 Ti", 61, "GeForce GTX 1080 Ti"},
};

static void test_parse(void)
{
	struct ws_err err = {0};
	for (size_t i = 0; i < sizeof parse_rows / sizeof parse_rows[0]; i++) {
		struct ws_target t;
		int rc = ws_target_parse(parse_rows[i].in, &t, FRESH(err));
		CHECK(rc == 0, "'%s': %s", parse_rows[i].in, err.msg);
		if (rc)
			continue;
		char name[16];
		snprintf(name, sizeof name, "sm_%u", parse_rows[i].cc);
		CHECK(t.cc == parse_rows[i].cc, "'%s' -> cc %u, want %u", parse_rows[i].in, t.cc, parse_rows[i].cc);
		CHECK_EQ_STR(t.name, name);
		CHECK_EQ_STR(t.label, parse_rows[i].label);
	}
}

static const struct { const char *in; const char *err; } bad_rows[] = {
	{"rtx5900", "unknown GPU 'rtx5900'; did you mean 'GeForce RTX 5090', "},
	{"H1000", "unknown GPU 'H1000'; did you mean 'H100', "},
	{"jetson agx orn", "unknown GPU 'jetson agx orn'; did you mean 'Jetson AGX Orin', "},
	{"12", "invalid compute capability '12' (write 12.0 or sm_120 for major 12)"},
	{"9", "invalid compute capability '9' (write 9.0 or sm_90 for major 9)"},
	{"SM_1200", "invalid architecture 'SM_1200' (expected sm_XY such as sm_90 or sm_120)"},
	{"sm_12", "invalid architecture 'sm_12' (expected sm_XY such as sm_90 or sm_120)"},
	{"sm_90x", "invalid architecture 'sm_90x' (expected sm_XY such as sm_90 or sm_120)"},
	{"2.0", "invalid compute capability '2.0'"},
	{"", "empty GPU name"},
	{"   ", "empty GPU name"},
	{"NVIDIA", "unknown GPU 'NVIDIA'; did you mean "},
};

static void test_bad(void)
{
	struct ws_err err = {0};
	struct ws_target t;
	for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
		CHECK(ws_target_parse(bad_rows[i].in, &t, FRESH(err)) == -1, "'%s' accepted", bad_rows[i].in);
		CHECK(strncmp(err.msg, bad_rows[i].err, strlen(bad_rows[i].err)) == 0, "'%s': got \"%s\", want prefix \"%s\"",
		      bad_rows[i].in, err.msg, bad_rows[i].err);
	}
	/* suggestions: exactly three names, then '?' */
	ws_target_parse("rtx5900", &t, FRESH(err));
	unsigned quotes = 0;
	for (const char *p = err.msg; *p; p++)
		quotes += *p == '\'';
	CHECK_EQ_INT(quotes, 2 + 3 * 2);
	CHECK(err.msg[strlen(err.msg) - 1] == '?', "%s", err.msg);
	/* a bad name is bad input; no err is allowed */
	CHECK_EQ_INT(ws_target_parse("rtx5900", &t, FRESH(err)), -1);
	CHECK_EQ_INT(err.code, WS_E_FORMAT);
	CHECK_EQ_INT(ws_target_parse("rtx5900", &t, NULL), -1);
	CHECK_EQ_INT(ws_target_parse(NULL, &t, FRESH(err)), -1);
}

static void test_list(void)
{
	struct ws_err err = {0};
	struct ws_target *v = NULL;
	size_t n = 0;

	CHECK_EQ_INT(ws_targets_parse_list("RTX 5090,H100, sm_86", &v, &n, FRESH(err)), 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK_EQ_STR(v[0].name, "sm_120");
		CHECK_EQ_STR(v[0].label, "GeForce RTX 5090");
		CHECK_EQ_STR(v[1].name, "sm_90");
		CHECK_EQ_STR(v[2].name, "sm_86");
	}
	free(v);
	/* one verdict per CC: names of the same CC share it */
	CHECK_EQ_INT(ws_targets_parse_list("H100,H200,sm_90,9.0", &v, &n, FRESH(err)), 0);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		CHECK_EQ_STR(v[0].label, "H100/H200");
	free(v);
	CHECK_EQ_INT(ws_targets_parse_list("H200,H20,h200", &v, &n, FRESH(err)), 0);
	CHECK(n == 1 && strcmp(v[0].label, "H200/H20") == 0, "label %s", n ? v[0].label : "");
	free(v);
	CHECK_EQ_INT(ws_targets_parse_list("sm_80,,sm_90", &v, &n, FRESH(err)), -1);
	CHECK(strncmp(err.msg, "empty item in GPU list", 22) == 0, "%s", err.msg);
	CHECK(v == NULL && n == 0, "v == NULL && n == 0");
	CHECK_EQ_INT(ws_targets_parse_list("sm_80,rtx5900", &v, &n, FRESH(err)), -1);
	CHECK(strncmp(err.msg, "unknown GPU 'rtx5900'", 21) == 0, "%s", err.msg);
	CHECK_EQ_INT(ws_targets_parse_list("", &v, &n, FRESH(err)), -1);
	/* bounded: more distinct CCs than WS_MAX_TARGETS */
	char big[1024] = "";
	for (unsigned cc = 30; cc < 30 + WS_MAX_TARGETS + 1; cc++)
		snprintf(big + strlen(big), sizeof big - strlen(big), "%s%u", cc > 30 ? "," : "", cc);
	CHECK_EQ_INT(ws_targets_parse_list(big, &v, &n, FRESH(err)), -1);
	CHECK_EQ_STR(err.msg, "too many GPUs in list");
	CHECK_EQ_INT(err.code, WS_E_LIMIT);
}

/* The table's own consistency: in CC order, labels fit, every CC has a family, and every
 * display name and alias parses back to its own row (names are unambiguous). These compare
 * the table with itself, so each property is one check naming the first row that breaks
 * it; whether a row's CC is right is checked against NVIDIA's page in test_nvidia_page. */
static void test_table(void)
{
	static const unsigned rules7[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
	struct ws_err err = {0};
	unsigned prev = 0;
	const char *unordered = NULL, *too_long = NULL, *no_family = NULL, *no_parse = NULL;
	CHECK(ws_gpu_count() > 120, "table has %zu rows", ws_gpu_count());
	for (size_t i = 0; i < ws_gpu_count(); i++) {
		const struct ws_gpu *g = ws_gpu_at(i);
		struct ws_target t;
		if (g->cc < prev && !unordered)
			unordered = g->name;
		prev = g->cc;
		if (strlen(g->name) >= sizeof t.label && !too_long)
			too_long = g->name;
		if (!*ws_cc_family(g->cc) && !no_family)
			no_family = g->name;
		if (!(ws_target_parse(g->name, &t, FRESH(err)) == 0 && t.cc == g->cc && strcmp(t.label, g->name) == 0) &&
		    !no_parse)
			no_parse = g->name;
		for (const char *a = g->aliases; a && *a;) {
			const char *bar = strchr(a, '|');
			char alias[128];
			snprintf(alias, sizeof alias, "%.*s", (int)(bar ? bar - a : (long)strlen(a)), a);
			if (!(ws_target_parse(alias, &t, FRESH(err)) == 0 && t.cc == g->cc && strcmp(t.label, g->name) == 0) &&
			    !no_parse)
				no_parse = g->aliases;
			a = bar ? bar + 1 : a + strlen(a);
		}
	}
	CHECK(!unordered, "table out of CC order at %s", unordered);
	CHECK(!too_long, "%s does not fit a label", too_long);
	CHECK(!no_family, "no family for %s", no_family);
	CHECK(!no_parse, "'%s' does not parse back to its own row", no_parse);
	CHECK(ws_gpu_at(ws_gpu_count()) == NULL, "ws_gpu_at(ws_gpu_count()) == NULL");
	for (size_t k = 0; k < sizeof rules7 / sizeof rules7[0]; k++) {
		size_t i;
		for (i = 0; i < ws_gpu_count() && ws_gpu_at(i)->cc != rules7[k]; i++)
			;
		CHECK(i < ws_gpu_count(), "doc/compat-rules.md §7 CC %u in the table", rules7[k]);
	}
}

/* NVIDIA's "CUDA GPU Compute Capability" pages, transcribed by hand into
 * testdata/nvidia-cuda-gpus.txt (provenance and subset in the file): every name there must
 * parse, as the page spells it, to the page's compute capability. */
static void test_nvidia_page(void)
{
	FILE *f = fopen("testdata/nvidia-cuda-gpus.txt", "r");
	CHECK(f != NULL, "testdata/nvidia-cuda-gpus.txt missing");
	if (!f)
		return;
	char line[256];
	struct ws_err err = {0};
	unsigned rows = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned major, minor;
		char name[200];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%u.%u\t%199[^\t]", &major, &minor, name) != 3) {
			CHECK(0, "cannot read line '%s'", line);
			continue;
		}
		struct ws_target t;
		int rc = ws_target_parse(name, &t, FRESH(err));
		CHECK(rc == 0 && t.cc == major * 10 + minor, "NVIDIA lists '%s' as %u.%u; wheelscan: %s%u",
		      name, major, minor, rc ? err.msg : "", rc ? 0 : t.cc);
		rows++;
	}
	fclose(f);
	CHECK(rows >= 90, "only %u rows read from testdata/nvidia-cuda-gpus.txt", rows);
}

static void test_print(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	CHECK(f != NULL, "f != NULL");
	if (!f)
		return;
	ws_gpus_print(f);
	fclose(f);
	CHECK(strstr(out, "\n12.1  sm_121  Blackwell     GB10\n") != NULL, "%s", out);
	CHECK(strstr(out, "\n12.0  sm_120  Blackwell     GeForce RTX 5050, ") != NULL, "%s", out);
	CHECK(strstr(out, "GeForce RTX 5090 D") != NULL, "%s", out);
	CHECK(strstr(out, "\n 9.0  sm_90   Hopper        H100, H200, GH200, H800, H20\n") != NULL, "%s", out);
	CHECK(strstr(out, "Jetson Thor (SASS sm_101 before CUDA 13.0)") != NULL, "%s", out);
	/* wrapped at 100 columns */
	for (const char *l = out; *l;) {
		const char *nl = strchr(l, '\n');
		size_t ll = nl ? (size_t)(nl - l) : strlen(l);
		CHECK(ll <= 100, "line of %zu chars: %.*s", ll, (int)ll, l);
		l += ll + (nl != NULL);
	}
	free(out);
}

int main(void)
{
	test_parse();
	test_bad();
	test_list();
	test_table();
	test_nvidia_page();
	test_print();
	return ws_test_done();
}
