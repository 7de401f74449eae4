/* test_compat.c - table-driven tests of the compatibility rules (src/core/compat.c); each row
 * names the rule and its source in doc/compat-rules.md. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "wheelscan.h"
#include "ws_compat.h"
#include "ws_decode.h"

#define SASS WS_KIND_SASS
#define PTX WS_KIND_PTX
#define LTO WS_KIND_LTOIR

static struct ws_target tgt(unsigned cc)
{
	struct ws_target t;
	memset(&t, 0, sizeof t);
	t.cc = (uint16_t)cc;
	snprintf(t.name, sizeof t.name, "sm_%u", cc);
	return t;
}

/* A decoded entry with one known kernel; isa is major*10+minor for PTX (.version line). */
static struct ws_entry ent(uint16_t kind, uint16_t arch, char suffix, unsigned isa)
{
	struct ws_entry e;
	memset(&e, 0, sizeof e);
	e.kind = kind;
	e.arch = arch;
	e.suffix = suffix;
	e.kernels_known = true;
	if (kind == PTX) {
		e.ptx_major = (uint16_t)(isa / 10);
		e.ptx_minor = (uint16_t)(isa % 10);
	}
	return e;
}

static const struct {
	const char *rule;
	uint16_t kind, arch;
	char suffix;
	unsigned isa, cc;
	int driver;
	enum ws_verdict want;
} entry_rows[] = {
	{"§1 SASS on its exact CC", SASS, 120, 0, 0, 120, 0, WS_V_NATIVE},
	{"§1 sm_80 runs on 8.6 (lower minor)", SASS, 80, 0, 0, 86, 0, WS_V_COMPATIBLE},
	{"§1 sm_80 runs on 8.9", SASS, 80, 0, 0, 89, 0, WS_V_COMPATIBLE},
	{"§1 sm_86 not on 8.0 (higher minor)", SASS, 86, 0, 0, 80, 0, WS_V_NO_IMAGE},
	{"§1 sm_80 not on 9.0 (other major)", SASS, 80, 0, 0, 90, 0, WS_V_NO_IMAGE},
	{"§1 sm_90 not on 10.0 (other major)", SASS, 90, 0, 0, 100, 0, WS_V_NO_IMAGE},
	{"§1 sm_100 not on 12.0", SASS, 100, 0, 0, 120, 0, WS_V_NO_IMAGE},
	{"§1 sm_120 runs on 12.1 (GB10)", SASS, 120, 0, 0, 121, 0, WS_V_COMPATIBLE},
	{"§1 sm_100 runs on 10.3", SASS, 100, 0, 0, 103, 0, WS_V_COMPATIBLE},
	{"§1 SASS ignores the driver (minor version compat, §4)", SASS, 120, 0, 0, 120, 12000, WS_V_NATIVE},
	{"§3 sm_90a on exactly 9.0", SASS, 90, 'a', 0, 90, 0, WS_V_NATIVE},
	{"§3 sm_100a not on 10.3", SASS, 100, 'a', 0, 103, 0, WS_V_NO_IMAGE},
	{"§3 sm_120a not on 12.1", SASS, 120, 'a', 0, 121, 0, WS_V_NO_IMAGE},
	{"§3 sm_100f on 10.0", SASS, 100, 'f', 0, 100, 0, WS_V_NATIVE},
	{"§3 sm_100f on 10.3 (family)", SASS, 100, 'f', 0, 103, 0, WS_V_COMPATIBLE},
	{"§3 sm_100f not on 11.0", SASS, 100, 'f', 0, 110, 0, WS_V_NO_IMAGE},
	{"§3 sm_100f not on 12.0", SASS, 100, 'f', 0, 120, 0, WS_V_NO_IMAGE},
	{"§3 sm_103f not on 10.0 (minor below)", SASS, 103, 'f', 0, 100, 0, WS_V_NO_IMAGE},
	{"§3 sm_120f on 12.0", SASS, 120, 'f', 0, 120, 0, WS_V_NATIVE},
	{"§3 sm_120f on 12.1", SASS, 120, 'f', 0, 121, 0, WS_V_COMPATIBLE},
	{"§2 compute_90 JITs on 12.0", PTX, 90, 0, 84, 120, 0, WS_V_JIT},
	{"§2 compute_80 JITs on 8.6", PTX, 80, 0, 70, 86, 0, WS_V_JIT},
	{"§2 compute_120 not on 9.0 (PTX never runs backwards)", PTX, 120, 0, 87, 90, 0, WS_V_NO_IMAGE},
	{"§2 compute_90 not on 8.9 (one step back)", PTX, 90, 0, 84, 89, 0, WS_V_NO_IMAGE},
	{"§2 compute_120 on 12.1", PTX, 120, 0, 87, 121, 12080, WS_V_JIT},
	{"§3 compute_90a on exactly 9.0", PTX, 90, 'a', 80, 90, 0, WS_V_JIT},
	{"§3 compute_90a not on 10.0", PTX, 90, 'a', 80, 100, 0, WS_V_NO_IMAGE},
	{"§3 compute_100a (tcgen05) not on 12.0", PTX, 100, 'a', 87, 120, 0, WS_V_NO_IMAGE},
	{"§3 compute_100f on 10.3 (assumption, ptxas 13.0 agrees)", PTX, 100, 'f', 88, 103, 0, WS_V_JIT},
	{"§3 compute_100f not on 12.0", PTX, 100, 'f', 88, 120, 0, WS_V_NO_IMAGE},
	{"§3 compute_120f on 12.1", PTX, 120, 'f', 88, 121, 0, WS_V_JIT},
	/* the family is one major: ptxas 13.0 refuses compute_100f for sm_90, sm_110 and sm_120 */
	{"§3 compute_100f on 10.0", PTX, 100, 'f', 88, 100, 0, WS_V_JIT},
	{"§3 compute_100f not on 11.0 (Thor is another family)", PTX, 100, 'f', 88, 110, 0, WS_V_NO_IMAGE},
	{"§3 compute_100f not on 9.0", PTX, 100, 'f', 88, 90, 0, WS_V_NO_IMAGE},
	{"§3 compute_103f not on 10.0 (minor below)", PTX, 103, 'f', 88, 100, 0, WS_V_NO_IMAGE},
	{"§3 compute_110f on 11.0", PTX, 110, 'f', 90, 110, 0, WS_V_JIT},
	{"§3 compute_120f not on 10.3", PTX, 120, 'f', 88, 103, 0, WS_V_NO_IMAGE},
	{"§4 PTX ISA 9.0 needs CUDA 13.0: driver 12.8 too old", PTX, 90, 0, 90, 120, 12080, WS_V_PTX_TOO_NEW},
	{"§4 PTX ISA 9.0 with a 13.0 driver", PTX, 90, 0, 90, 120, 13000, WS_V_JIT},
	{"§4 PTX ISA 8.4 with a 12.4 driver", PTX, 90, 0, 84, 90, 12040, WS_V_JIT},
	{"§4 PTX ISA 8.5 with a 12.4 driver", PTX, 90, 0, 85, 90, 12040, WS_V_PTX_TOO_NEW},
	{"§4 PTX ISA 8.6 needs 12.7: driver 12.6 too old", PTX, 80, 0, 86, 90, 12060, WS_V_PTX_TOO_NEW},
	{"§4 unknown newer ISA 9.9, driver 13.0: too new", PTX, 90, 0, 99, 120, 13000, WS_V_PTX_TOO_NEW},
	{"§4 unknown newer ISA 9.9, no driver given: assume new enough", PTX, 90, 0, 99, 120, 0, WS_V_JIT},
	{"§2 wrong arch outranks an old driver", PTX, 120, 0, 90, 90, 12000, WS_V_NO_IMAGE},
	{"§5 LTO-IR is not loadable", LTO, 120, 0, 0, 120, 0, WS_V_NO_IMAGE},
	{"unknown entry kind is not loadable", 7, 120, 0, 0, 120, 0, WS_V_NO_IMAGE},
	{"§1a Thor: sm_110 SASS on the sm_101 target (renamed)", SASS, 110, 0, 0, 101, 0, WS_V_COMPATIBLE},
	{"§1 Thor: sm_101 SASS on the sm_101 target", SASS, 101, 0, 0, 101, 0, WS_V_NATIVE},
	{"§1a Thor: sm_101 SASS on 11.0 (renamed)", SASS, 101, 0, 0, 110, 0, WS_V_COMPATIBLE},
	{"§1a sm_100 not on 10.1 (Thor is integrated)", SASS, 100, 0, 0, 101, 0, WS_V_NO_IMAGE},
	{"§1a sm_100f not on 10.1", SASS, 100, 'f', 0, 101, 0, WS_V_NO_IMAGE},
	{"§1a sm_87 (Orin) not on 8.9", SASS, 87, 0, 0, 89, 0, WS_V_NO_IMAGE},
	{"§1a sm_72 (Xavier) not on 7.5", SASS, 72, 0, 0, 75, 0, WS_V_NO_IMAGE},
	{"§1a sm_87 on Orin", SASS, 87, 0, 0, 87, 0, WS_V_NATIVE},
	{"§1a sm_53 on Nano", SASS, 53, 0, 0, 53, 0, WS_V_NATIVE},
	{"§1a sm_50 not on 5.3 (Nano)", SASS, 50, 0, 0, 53, 0, WS_V_NO_IMAGE},
	{"§1a sm_60 not on 6.2 (TX2)", SASS, 60, 0, 0, 62, 0, WS_V_NO_IMAGE},
	{"§2 compute_80 PTX still JITs on Orin", PTX, 80, 0, 80, 87, 0, WS_V_JIT},
};

/* §1a: discrete-GPU SASS on an integrated GPU, by the CUDA release of the cubin (toolkit
 * note, 132 = 13.2): apart before 13.2, sm_70/80/86 join Xavier and Orin from 13.2 on. Each
 * comparison on both sides of its boundary. */
static const struct { const char *rule; uint16_t arch; unsigned cc, toolkit; enum ws_verdict want; } igpu_rows[] = {
	{"sm_80 (13.1) not on Orin", 80, 87, 131, WS_V_NO_IMAGE},
	{"sm_80 (13.2) on Orin", 80, 87, 132, WS_V_COMPATIBLE},
	{"sm_80 (13.4) on Orin", 80, 87, 134, WS_V_COMPATIBLE},
	{"sm_80 (12.8) not on Orin", 80, 87, 128, WS_V_NO_IMAGE},
	{"sm_80 (note unread) not on Orin", 80, 87, 0, WS_V_NO_IMAGE},
	{"sm_86 (13.2) on Orin", 86, 87, 132, WS_V_COMPATIBLE},
	{"sm_86 (13.1) not on Orin", 86, 87, 131, WS_V_NO_IMAGE},
	{"sm_70 (13.2) on Xavier", 70, 72, 132, WS_V_COMPATIBLE},
	{"sm_70 (12.9) not on Xavier", 70, 72, 129, WS_V_NO_IMAGE},
	{"sm_75 (13.2) not on Xavier (not in PyTorch's list; higher minor)", 75, 72, 132, WS_V_NO_IMAGE},
	{"sm_60 (13.2) not on TX2", 60, 62, 132, WS_V_NO_IMAGE},
	{"sm_50 (13.2) not on Nano", 50, 53, 132, WS_V_NO_IMAGE},
	{"sm_100 (13.2) not on 10.1", 100, 101, 132, WS_V_NO_IMAGE},
	{"sm_87 (13.2) still not on 8.9", 87, 89, 132, WS_V_NO_IMAGE},
	{"sm_80 (13.2) on 8.6: the discrete rule", 80, 86, 132, WS_V_COMPATIBLE},
	{"sm_80 (12.8) on 8.6: the discrete rule", 80, 86, 128, WS_V_COMPATIBLE},
};

static void test_integrated(void)
{
	for (size_t i = 0; i < sizeof igpu_rows / sizeof igpu_rows[0]; i++) {
		struct ws_entry e = ent(SASS, igpu_rows[i].arch, 0, 0);
		struct ws_target t = tgt(igpu_rows[i].cc);
		e.toolkit = (uint16_t)igpu_rows[i].toolkit;
		enum ws_verdict v = ws_entry_verdict(&e, &t, 0);
		CHECK(v == igpu_rows[i].want, "§1a %s: got %s, want %s", igpu_rows[i].rule, ws_verdict_name(v),
		      ws_verdict_name(igpu_rows[i].want));
	}
	static const unsigned integrated[] = {53, 62, 72, 87, 101}, discrete[] = {50, 52, 60, 61, 70, 75, 80, 86, 89,
		90, 100, 103, 110, 120, 121};
	for (size_t i = 0; i < sizeof integrated / sizeof integrated[0]; i++)
		CHECK(ws_cc_integrated(integrated[i]), "%u is integrated", integrated[i]);
	for (size_t i = 0; i < sizeof discrete / sizeof discrete[0]; i++)
		CHECK(!ws_cc_integrated(discrete[i]), "%u is discrete", discrete[i]);
	/* the GPU table agrees: its Jetson rows are the integrated CCs (Thor also as 11.0, the
	 * unified toolkit's name), and no other row is */
	for (size_t g = 0; g < ws_gpu_count(); g++) {
		const struct ws_gpu *gpu = ws_gpu_at(g);
		bool jetson = !strcmp(gpu->segment, "jetson");
		CHECK(jetson ? ws_cc_integrated(gpu->cc) || gpu->cc == 110 : !ws_cc_integrated(gpu->cc),
		      "%s (%u, %s)", gpu->name, gpu->cc, gpu->segment);
	}
}

/* §4a and §4b: the runtime floor under minor-version compatibility, and each family's last
 * driver branch. */
static void test_runtime_floor(void)
{
	int branch = -1;
	CHECK_EQ_INT(ws_runtime_driver_floor(12080), 12000);   /* 12.8 runs on R525 and newer */
	CHECK_EQ_INT(ws_driver_branch_for(ws_runtime_driver_floor(12080)), 525);
	CHECK_EQ_INT(ws_runtime_driver_floor(12000), 12000);
	CHECK_EQ_INT(ws_runtime_driver_floor(13020), 13000);
	CHECK_EQ_INT(ws_driver_branch_for(ws_runtime_driver_floor(13020)), 580);
	CHECK_EQ_INT(ws_runtime_driver_floor(11080), 11000);
	CHECK_EQ_INT(ws_driver_branch_for(ws_runtime_driver_floor(11080)), 450);
	CHECK_EQ_INT(ws_runtime_driver_floor(10020), 10020);   /* before CUDA 11: its own release */
	CHECK_EQ_INT(ws_runtime_driver_floor(0), 0);
	CHECK_EQ_INT(ws_gpu_last_driver(37, &branch), 11040);
	CHECK_EQ_INT(branch, 470);
	CHECK_EQ_INT(ws_gpu_last_driver(35, NULL), 11040);
	static const unsigned r580[] = {50, 52, 60, 61, 70};
	for (size_t i = 0; i < sizeof r580 / sizeof r580[0]; i++) {
		CHECK_EQ_INT(ws_gpu_last_driver(r580[i], &branch), 13000);
		CHECK_EQ_INT(branch, 580);
	}
	static const unsigned open_ended[] = {53, 62, 72, 75, 80, 87, 90, 120};
	for (size_t i = 0; i < sizeof open_ended / sizeof open_ended[0]; i++) {
		CHECK_EQ_INT(ws_gpu_last_driver(open_ended[i], &branch), 0);
		CHECK_EQ_INT(branch, 0);
	}
	/* the last branch supports the CUDA it is said to: R470 11.4, R580 13.0 */
	CHECK_EQ_INT(ws_driver_branch_for(11040), 470);
	CHECK_EQ_INT(ws_driver_branch_for(13000), 580);
}

static void test_entry_rows(void)
{
	for (size_t i = 0; i < sizeof entry_rows / sizeof entry_rows[0]; i++) {
		struct ws_entry e = ent(entry_rows[i].kind, entry_rows[i].arch, entry_rows[i].suffix, entry_rows[i].isa);
		struct ws_target t = tgt(entry_rows[i].cc);
		enum ws_verdict v = ws_entry_verdict(&e, &t, entry_rows[i].driver);
		CHECK(v == entry_rows[i].want, "%s: got %s, want %s", entry_rows[i].rule, ws_verdict_name(v),
		      ws_verdict_name(entry_rows[i].want));
	}
}

static void test_entry_details(void)
{
	struct ws_target t120 = tgt(120), t100 = tgt(100);
	struct ws_entry e = ent(PTX, 90, 0, 0);

	/* ISA from the entry header when the PTX text had no .version (§4) */
	e.fmt_major = 9;
	e.fmt_minor = 0;
	CHECK_EQ_INT(ws_entry_verdict(&e, &t120, 12080), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(ws_entry_verdict(&e, &t120, 13000), WS_V_JIT);
	/* .version wins over the header when both are there */
	e.ptx_major = 8;
	e.ptx_minor = 4;
	CHECK_EQ_INT(ws_entry_verdict(&e, &t120, 12080), WS_V_JIT);

	/* §3: the 'a' marker of PTX also comes from the .target line, settled once when the
	 * payload is decoded; the name follows it */
	e = ent(PTX, 90, 0, 80);
	snprintf(e.ptx_target, sizeof e.ptx_target, "sm_90a");
	ws_entry_finish(&e);
	CHECK_EQ_STR(e.name, "compute_90a");
	CHECK_EQ_INT(ws_entry_verdict(&e, &t100, 0), WS_V_NO_IMAGE);
	/* ... and the 'f' marker: compute_100 whose .target is sm_100f stays in its family */
	struct ws_target t110 = tgt(110);
	e = ent(PTX, 100, 0, 88);
	snprintf(e.ptx_target, sizeof e.ptx_target, "sm_100f");
	ws_entry_finish(&e);
	CHECK_EQ_INT(ws_entry_suffix(&e), 'f');
	CHECK_EQ_INT(ws_entry_verdict(&e, &t110, 0), WS_V_NO_IMAGE);
	CHECK_EQ_INT(ws_entry_verdict(&e, &t120, 0), WS_V_NO_IMAGE);
	e = ent(PTX, 100, 0, 88);
	snprintf(e.ptx_target, sizeof e.ptx_target, "sm_100");
	ws_entry_finish(&e);
	CHECK_EQ_INT(ws_entry_suffix(&e), 0);
	CHECK_EQ_INT(ws_entry_verdict(&e, &t120, 0), WS_V_JIT);

	/* opaque (obfuscated LTO-IR) never serves */
	e = ent(SASS, 120, 0, 0);
	e.opaque = true;
	CHECK_EQ_INT(ws_entry_verdict(&e, &t120, 0), WS_V_NO_IMAGE);
	CHECK_EQ_INT(ws_entry_verdict(NULL, &t120, 0), WS_V_NO_IMAGE);
}

/* Fatbin rows: up to 4 entries {kind, arch, suffix, isa}; nkernels; container verdict. */
struct erow { uint16_t kind, arch; char suffix; unsigned isa; };
static const struct {
	const char *rule;
	struct erow e[4];
	unsigned ne, nkernels, cc;
	int driver;
	enum ws_verdict want;
} fat_rows[] = {
	{"§2 sm_80+sm_90, no PTX: nothing for 12.0", {{SASS, 80, 0, 0}, {SASS, 90, 0, 0}}, 2, 3, 120, 0, WS_V_NO_IMAGE},
	{"§1 sm_80+sm_90 on 8.6: compatible", {{SASS, 80, 0, 0}, {SASS, 90, 0, 0}}, 2, 3, 86, 0, WS_V_COMPATIBLE},
	{"§2 exact SASS beats lower minor", {{SASS, 80, 0, 0}, {SASS, 86, 0, 0}}, 2, 3, 86, 0, WS_V_NATIVE},
	{"§2 PTX fallback: sm_80 + compute_80 on 12.0", {{SASS, 80, 0, 0}, {PTX, 80, 0, 70}}, 2, 1, 120, 0, WS_V_JIT},
	{"§2 PTX-only container", {{PTX, 75, 0, 84}}, 1, 1, 75, 0, WS_V_JIT},
	{"§2 driver prefers SASS over a too-new PTX", {{SASS, 90, 0, 0}, {PTX, 90, 0, 90}}, 2, 1, 90, 12080, WS_V_NATIVE},
	{"§4 only a too-new PTX serves 12.0", {{SASS, 90, 0, 0}, {PTX, 90, 0, 90}}, 2, 1, 120, 12080, WS_V_PTX_TOO_NEW},
	{"§4 same with a 13.0 driver", {{SASS, 90, 0, 0}, {PTX, 90, 0, 90}}, 2, 1, 120, 13000, WS_V_JIT},
	{"§4 an older PTX the driver reads still serves", {{PTX, 90, 0, 90}, {PTX, 80, 0, 80}}, 2, 1, 120, 12080, WS_V_JIT},
	{"§3 only sm_100a + compute_100a: nothing for 10.3", {{SASS, 100, 'a', 0}, {PTX, 100, 'a', 87}}, 2, 1, 103, 0, WS_V_NO_IMAGE},
	{"§5 LTO-IR only: not loadable", {{LTO, 90, 0, 0}}, 1, 1, 90, 0, WS_V_NO_IMAGE},
	{"issue 4: no kernels -> none", {{SASS, 80, 0, 0}, {SASS, 90, 0, 0}}, 2, 0, 120, 0, WS_V_NONE},
	{"issue 4: empty container -> none", {{0, 0, 0, 0}}, 0, 0, 120, 0, WS_V_NONE},
};

static void fill_fatbin(struct ws_fatbin *f, const struct erow *rows, unsigned ne, unsigned nkernels)
{
	memset(f, 0, sizeof *f);
	f->entries = ne ? calloc(ne, sizeof *f->entries) : NULL;
	for (unsigned i = 0; i < ne; i++)
		f->entries[i] = ent(rows[i].kind, rows[i].arch, rows[i].suffix, rows[i].isa);
	f->nentries = ne;
	f->nkernels = nkernels;
}

static void test_fatbin_rows(void)
{
	for (size_t i = 0; i < sizeof fat_rows / sizeof fat_rows[0]; i++) {
		struct ws_fatbin f;
		struct ws_target t = tgt(fat_rows[i].cc);
		fill_fatbin(&f, fat_rows[i].e, fat_rows[i].ne, fat_rows[i].nkernels);
		enum ws_verdict v = ws_fatbin_verdict(&f, &t, fat_rows[i].driver);
		CHECK(v == fat_rows[i].want, "%s: got %s, want %s", fat_rows[i].rule, ws_verdict_name(v),
		      ws_verdict_name(fat_rows[i].want));
		ws_fatbin_clear(&f);
	}
}

static void test_fatbin_unknown_kernels(void)
{
	static const struct erow rows[] = {{LTO, 90, 0, 0}, {SASS, 90, 0, 0}};
	struct ws_target t = tgt(120);
	struct ws_fatbin f;

	/* nkernels 0 but an opaque entry might hold kernels: judged, not "none" */
	fill_fatbin(&f, rows, 2, 0);
	f.entries[0].opaque = true;
	f.entries[0].kernels_known = false;
	CHECK_EQ_INT(ws_fatbin_verdict(&f, &t, 0), WS_V_NO_IMAGE);
	ws_fatbin_clear(&f);

	/* a container-level decode error: kernels unknown */
	fill_fatbin(&f, rows + 1, 1, 0);
	f.error = strdup("truncated");
	CHECK_EQ_INT(ws_fatbin_verdict(&f, &t, 0), WS_V_NO_IMAGE);
	ws_fatbin_clear(&f);

	/* an entry whose kernels were not listed */
	fill_fatbin(&f, rows + 1, 1, 0);
	f.entries[0].kernels_known = false;
	CHECK_EQ_INT(ws_fatbin_verdict(&f, &t, 0), WS_V_NO_IMAGE);
	ws_fatbin_clear(&f);
}

static void test_worst_and_names(void)
{
	/* issue 4 roll-up order, least to most severe */
	static const enum ws_verdict order[] = {WS_V_NONE, WS_V_NATIVE, WS_V_COMPATIBLE, WS_V_JIT,
						WS_V_PTX_TOO_NEW, WS_V_NO_IMAGE};
	static const char *const names[] = {"none", "native", "compatible", "jit", "ptx-too-new", "no-image"};
	const size_t n = sizeof order / sizeof order[0];
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ_STR(ws_verdict_name(order[i]), names[i]);
		for (size_t j = 0; j < n; j++)
			CHECK(ws_verdict_worst(order[i], order[j]) == order[i > j ? i : j], "worst(%s, %s)", names[i], names[j]);
	}
	CHECK(ws_verdict_fails(WS_V_NO_IMAGE) && ws_verdict_fails(WS_V_PTX_TOO_NEW), "ws_verdict_fails(WS_V_NO_IMAGE) && ws_verdict_fails(WS_V_PTX_TOO_NEW)");
	CHECK(!ws_verdict_fails(WS_V_JIT) && !ws_verdict_fails(WS_V_NONE) && !ws_verdict_fails(WS_V_COMPATIBLE), "!ws_verdict_fails(WS_V_JIT) && !ws_verdict_fails(WS_V_NONE) && !ws_verdict_fails(WS_V_COMPATIBLE)");
}

static void test_tables(void)
{
	/* §4 PTX ISA -> CUDA */
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(9, 0), 13000);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(9, 1), 13010);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(8, 8), 12090);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(8, 7), 12080);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(8, 6), 12070);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(8, 5), 12050);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(7, 8), 11080);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(6, 3), 10000);
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(6, 0), 9000);
	CHECK(ws_ptx_isa_min_cuda(2, 0) > 0 && ws_ptx_isa_min_cuda(2, 0) <= 9000, "older ISAs run on any known driver");
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(9, 9), 0);   /* unknown newer */
	CHECK_EQ_INT(ws_ptx_isa_min_cuda(8, 9), 0);   /* gap */
	/* what the rules use: a gap needs the next newer row's driver (the ISA came after the
	 * row below it), newer than the table needs a driver newer than any we can name */
	CHECK_EQ_INT(ws_isa_need_cuda(8, 9), 13000);
	CHECK_EQ_INT(ws_isa_need_cuda(4, 4), 8000);
	CHECK_EQ_INT(ws_isa_need_cuda(9, 5), INT_MAX);
	CHECK_EQ_INT(ws_isa_need_cuda(0, 0), 0);
	CHECK_EQ_INT(ws_isa_need_cuda(8, 6), 12070);

	/* §6 toolkit support */
	CHECK_EQ_INT(ws_first_toolkit_for_arch(120, 0), 12080);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(120, 'a'), 12080);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(120, 'f'), 12090);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(121, 0), 12090);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(103, 'a'), 12090);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(100, 0), 12080);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(90, 'a'), 12000);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(90, 0), 11080);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(89, 0), 11080);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(86, 0), 11010);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(80, 0), 11000);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(75, 0), 10000);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(110, 'f'), 13000);
	CHECK_EQ_INT(ws_first_toolkit_for_arch(90, 'f'), 0);      /* nvcc 13.0 rejects sm_90f */
	CHECK_EQ_INT(ws_first_toolkit_for_arch(95, 0), 0);
	CHECK_EQ_INT(ws_last_toolkit_for_arch(35), 11080);        /* removed in 12.0 */
	CHECK_EQ_INT(ws_last_toolkit_for_arch(50), 12090);        /* removed in 13.0 */
	CHECK_EQ_INT(ws_last_toolkit_for_arch(72), 12090);
	CHECK_EQ_INT(ws_last_toolkit_for_arch(101), 12090);       /* renamed sm_110 */
	CHECK_EQ_INT(ws_last_toolkit_for_arch(75), 0);
	CHECK_EQ_INT(ws_last_toolkit_for_arch(70), 12090);        /* §6: removed in 13.0 */
	CHECK_EQ_INT(ws_last_toolkit_for_arch(61), 12090);

	/* §4 driver branches (release notes' table) and --driver spellings */
	static const struct { const char *in; int cuda; } drv[] = {
		{"525.60.13", 12000}, {"535.104.05", 12020}, {"550.54.14", 12040}, {"560.35.03", 12060},
		{"570.124.06", 12080}, {"575.51.03", 12090}, {"580.65.06", 13000}, {"572.16", 12080},
		{"12.8", 12080}, {"12.4.1", 12040}, {"13.0", 13000}, {"11.8", 11080}, {"12", 12000},
		{"12.10", -1}, {"", -1}, {"12.x", -1}, {"r12.8", -1}, {"100.1", -1},
	};
	for (size_t i = 0; i < sizeof drv / sizeof drv[0]; i++) {
		struct ws_err err = {0};
		int got = ws_driver_parse(drv[i].in, FRESH(err));
		CHECK(got == drv[i].cuda, "--driver '%s' -> %d, want %d (%s)", drv[i].in, got, drv[i].cuda, err.msg);
	}
	CHECK_EQ_INT(ws_last_toolkit_for_arch(120), 0);
}

static const struct { const char *in; int want; } driver_rows[] = {
	{"570.124.06", 12080}, /* §4 R570 -> 12.8 */
	{"570", 12080},
	{"R570", 12080},
	{"580", 13000},        /* §4 R580 -> 13.0 */
	{"580.65.06", 13000},
	{"575.51.03", 12090},
	{"560.35.03", 12060},
	{"550.54.15", 12040},
	{"535.183.01", 12020},
	{"525.60.13", 12000},
	{"572.16", 12080},     /* between branches: the lower one */
	{"12.8", 12080},
	{"12.4.1", 12040},
	{"13", 13000},
	{"13.0", 13000},
	{"11.8", 11080},
	{"", -1}, {"abc", -1}, {"12.", -1}, {"12.x", -1}, {"12.10", -1}, {"R12", -1}, {"-1", -1},
	{"0", -1}, {"300.1", -1}, {"12 .8", -1}, {"9999999", -1},
};

static void test_driver(void)
{
	struct ws_err err = {0};
	for (size_t i = 0; i < sizeof driver_rows / sizeof driver_rows[0]; i++) {
		int v = ws_driver_parse(driver_rows[i].in, FRESH(err));
		CHECK(v == driver_rows[i].want, "driver '%s' -> %d, want %d", driver_rows[i].in, v, driver_rows[i].want);
		if (driver_rows[i].want < 0 && *driver_rows[i].in)
			CHECK(err.msg[0] != 0 && strchr(err.msg, '\'') != NULL, "error names the value: '%s'", err.msg);
	}
	ws_driver_parse("junk", FRESH(err));
	CHECK_EQ_STR(err.msg, "invalid driver version 'junk' (expected a CUDA version such as 12.8 or a driver "
		     "version such as 570.124.06)");
	ws_driver_parse("300", FRESH(err));
	CHECK(strstr(err.msg, "older than any known driver branch") != NULL, "%s", err.msg);
	CHECK_EQ_INT(ws_driver_parse(NULL, NULL), -1);
}

static void explain(const struct erow *rows, unsigned ne, unsigned cc, int driver, char *buf, size_t len)
{
	struct ws_fatbin f;
	const struct ws_fatbin *fp = &f;
	struct ws_target t = tgt(cc);
	fill_fatbin(&f, rows, ne, 1);
	ws_explain(&fp, 1, &t, driver, buf, len);
	ws_fatbin_clear(&f);
}

static void test_explain(void)
{
	char buf[256];

	static const struct erow s90[] = {{SASS, 90, 0, 0}};
	explain(s90, 1, 120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "newest SASS sm_90, no PTX; sm_120 needs SASS sm_120 or PTX <= compute_120");

	static const struct erow ptxnew[] = {{SASS, 80, 0, 0}, {PTX, 90, 0, 90}};
	explain(ptxnew, 2, 120, 12040, buf, sizeof buf);
	CHECK_EQ_STR(buf, "PTX compute_90 has ISA 9.0, needs a CUDA 13.0 driver; driver supports 12.4");

	static const struct erow ptxonly_new[] = {{PTX, 90, 0, 99}};
	explain(ptxonly_new, 1, 120, 13000, buf, sizeof buf);
	CHECK_EQ_STR(buf, "PTX compute_90 has ISA 9.9, newer than any CUDA release wheelscan knows; "
		     "driver supports 13.0 (no SASS)");

	static const struct erow arch_a[] = {{SASS, 90, 0, 0}, {SASS, 100, 'a', 0}, {PTX, 100, 'a', 87}};
	explain(arch_a, 3, 103, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "newest SASS sm_100a (sm_100a runs only on 10.0), newest PTX compute_100a "
		     "(arch-specific: 10.0 only); sm_103 needs SASS sm_100..sm_103 or PTX <= compute_103");

	static const struct erow lto[] = {{LTO, 120, 0, 0}};
	explain(lto, 1, 120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "no SASS, no PTX, LTO-IR lto_120 needs linking first; sm_120 needs SASS sm_120 "
		     "or PTX <= compute_120");

	static const struct erow fam[] = {{PTX, 100, 'f', 88}};
	explain(fam, 1, 120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "no SASS, newest PTX compute_100f (family-specific: 10.0 and newer 10.x only); "
		     "sm_120 needs SASS sm_120 or PTX <= compute_120");

	static const struct erow jit[] = {{SASS, 90, 0, 0}, {PTX, 90, 0, 84}};
	explain(jit, 2, 120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "no SASS for sm_120; PTX compute_90 is JIT-compiled at first load (slow first launch, "
		     "cached in ~/.nv/ComputeCache); needs a driver for CUDA >= 12.4 (PTX ISA 8.4)");

	static const struct erow native[] = {{SASS, 90, 0, 0}, {SASS, 120, 0, 0}};
	explain(native, 2, 120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "SASS sm_120 runs natively on sm_120");
	explain(native, 2, 121, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "SASS sm_120 runs on sm_121 (same major, lower minor)");

	/* several containers: the worst one is explained */
	struct ws_fatbin f1, f2;
	const struct ws_fatbin *both[2] = {&f1, &f2};
	struct ws_target t120 = tgt(120);
	fill_fatbin(&f1, native, 2, 1);
	fill_fatbin(&f2, s90, 1, 1);
	ws_explain(both, 2, &t120, 0, buf, sizeof buf);
	CHECK(strncmp(buf, "newest SASS sm_90, no PTX", 25) == 0, "%s", buf);
	f2.nkernels = 0;   /* a stub never decides */
	ws_explain(both, 2, &t120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "SASS sm_120 runs natively on sm_120");
	ws_explain(both + 1, 1, &t120, 0, buf, sizeof buf);
	CHECK(strstr(buf, "cannot fail a launch") != NULL, "%s", buf);
	/* truncation stays terminated */
	f2.nkernels = 1;
	memset(buf, 'x', sizeof buf);
	ws_explain(both, 2, &t120, 0, buf, 12);
	CHECK_EQ_INT(strlen(buf), 11);
	ws_explain(NULL, 0, &t120, 0, buf, sizeof buf);
	CHECK_EQ_STR(buf, "no device code");
	ws_fatbin_clear(&f1);
	ws_fatbin_clear(&f2);
}

static const struct { unsigned cc; const char *tag; int rc; const char *want; } advise_rows[] = {
	/* §6 + issue 4: first toolkit for the target, tag derived from it */
	{120, "cu124", 0, "needs a build made with CUDA >= 12.8, e.g. +cu128 instead of +cu124"},
	{120, NULL, 0, "needs a build made with CUDA >= 12.8"},
	{120, "cpu", 0, "needs a build made with CUDA >= 12.8"},
	{121, "cu128", 0, "needs a build made with CUDA >= 12.9, e.g. +cu129 instead of +cu128"},
	{100, "cu118", 0, "needs a build made with CUDA >= 12.8, e.g. +cu128 instead of +cu118"},
	{110, "cu12", 0, "needs a build made with CUDA >= 13.0, e.g. +cu13 instead of +cu12"},
	{120, "cu12", 0, "needs a build made with CUDA >= 12.8; a +cu12 build qualifies only if made with CUDA >= 12.8"},
	{86, "cu124", 0, "needs a build made with CUDA >= 11.1; CUDA of this +cu124 build can target sm_86, the build left it out"},
	{50, "cu130", 0, "needs a build made with CUDA 6.0 to 12.9 (CUDA 13 dropped sm_50), e.g. +cu129 instead of +cu130"},
	{37, "cu121", 0, "needs a build made with CUDA 6.5 to 11.8 (CUDA 12 dropped sm_37), e.g. +cu118 instead of +cu121"},
	{101, "cu130", 0, "needs a build made with CUDA 12.8 to 12.9 (sm_101 is called sm_110 from CUDA 13.0), e.g. +cu129 instead of +cu130"},
	{95, "cu124", -1, ""},
};

static void test_advise(void)
{
	char buf[256];
	for (size_t i = 0; i < sizeof advise_rows / sizeof advise_rows[0]; i++) {
		struct ws_target t = tgt(advise_rows[i].cc);
		int rc = ws_advise(&t, advise_rows[i].tag, buf, sizeof buf);
		CHECK_EQ_INT(rc, advise_rows[i].rc);
		CHECK_EQ_STR(buf, advise_rows[i].want);
	}
}

/* Triton's ptxas: its release text is found where it sits, not where it does not, and the
 * search is linear whatever the member holds (issue 40: a member of near-misses or of the
 * text with a bad number cost 19 times another name's scan). */
static void fill(uint8_t *p, size_t n, const char *unit)
{
	size_t u = strlen(unit);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)unit[i % u];
}

static void test_jitc_release(void)
{
	static const struct { const char *text; int want; } rows[] = {
		{"xx Cuda compilation tools, release 12.4, V12.4.99 yy", 12040},
		{"CCuda compilation tools, release 12.8, V12.8.61", 12080},
		{"Cuda compilation tools, Cuda compilation tools, release 3.0,", 3000},
		{"Cuda compilation tools, release %d.%d, V%d.%d Cuda compilation tools, release 11.8", 11080},
		{"Cuda compilation tools, release 12.10,", 0},
		{"Cuda compilation tools, release 123.4,", 0},
		{"Cuda compilation tools, release 0.4,", 0},
		{"Cuda compilation tools, release 12", 0},        /* cut at the end: not found */
		{"Cuda compilation tools, releas", 0},
		{"", 0},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		CHECK_EQ_INT(ws_jitc_find_release((const uint8_t *)rows[i].text, strlen(rows[i].text)), rows[i].want);

	enum { N = 1 << 20 };
	static const char *const hostile[] = {
		"C", "Cu", "Cuda compilation tools, release ", "Cuda compilation tools, release 99.99,",
		"Cuda compilation tools, release C", "Cuda compilation tools, releaseCuda compilation tools, release 1",
	};
	uint8_t *buf = malloc(N);
	CHECK(buf != NULL, "allocation");
	if (!buf)
		return;
	for (size_t h = 0; h < sizeof hostile / sizeof hostile[0]; h++) {
		uint64_t steps = 0;
		fill(buf, N, hostile[h]);
		CHECK_EQ_INT(ws_jitc_find_release_counted(buf, N, &steps), 0);
		CHECK(steps <= 2ull * N, "'%s' x %d: %llu steps, at most %d", hostile[h], N, (unsigned long long)steps, 2 * N);
	}
	fill(buf, N, "Cuda compilation tools, release 99.99,");
	memcpy(buf + N - 64, "Cuda compilation tools, release 12.9,", 37);
	CHECK_EQ_INT(ws_jitc_find_release(buf, N), 12090);
	free(buf);
}

int main(void)
{
	test_integrated();
	test_runtime_floor();
	test_entry_rows();
	test_entry_details();
	test_fatbin_rows();
	test_fatbin_unknown_kernels();
	test_worst_and_names();
	test_tables();
	test_driver();
	test_explain();
	test_advise();
	test_jitc_release();
	return ws_test_done();
}
