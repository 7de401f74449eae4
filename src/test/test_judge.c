/* test_judge.c - what each container is for (src/core/judge.c): roles, roll-ups, alternatives,
 * reasons, kernel gaps and advice, on small objects shaped like the real libraries whose
 * published support the rule must give (README, "How verdicts are decided"). */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "wheelscan.h"
#include "ws_compat.h"

#define SASS WS_KIND_SASS
#define PTX WS_KIND_PTX
#define LTO WS_KIND_LTOIR

/* One entry: kind, arch, suffix, PTX ISA (major*10+minor), cuinfo toolkit (124 = 12.4). */
struct er { uint16_t kind, arch; char suffix; unsigned isa, toolkit; };
#define END {0, 0, 0, 0, 0}

static struct ws_target tgt(unsigned cc)
{
	struct ws_target t;
	memset(&t, 0, sizeof t);
	t.cc = (uint16_t)cc;
	snprintf(t.name, sizeof t.name, "sm_%u", cc);
	return t;
}

/* Adds a container whose entries all hold kernel "k<kernel>" (and more: see add_kernel). */
static struct ws_fatbin *add(struct ws_object *o, const struct er *rows, unsigned kernel)
{
	struct ws_fatbin *f = ws_object_add_fatbin(o);
	unsigned n = 0;
	char name[16];
	while (rows[n].kind)
		n++;
	snprintf(name, sizeof name, "k%u", kernel);
	uint32_t idx = ws_strpool_intern(&o->kernels, name, strlen(name));
	f->entries = calloc(n, sizeof *f->entries);
	f->nentries = n;
	for (unsigned i = 0; i < n; i++) {
		struct ws_entry *e = &f->entries[i];
		e->kind = rows[i].kind;
		e->arch = rows[i].arch;
		e->suffix = rows[i].suffix;
		e->toolkit = (uint16_t)rows[i].toolkit;
		e->ptx_major = (uint16_t)(rows[i].isa / 10);
		e->ptx_minor = (uint16_t)(rows[i].isa % 10);
		e->opaque = e->kind == LTO;
		e->kernels_known = !e->opaque;
		if (!e->opaque) {
			e->kernels = malloc(sizeof *e->kernels);
			e->kernels[0] = idx;
			e->nkernels = 1;
		}
	}
	f->nkernels = 1;
	return f;
}

static struct ws_object *obj(struct ws_artifact *a, const char *member)
{
	struct ws_object *o = ws_artifact_add_object(a);
	o->member = member ? strdup(member) : NULL;
	o->type = WS_OBJ_ELF_SO;
	return o;
}

static enum ws_verdict judge1(struct ws_artifact *a, unsigned cc, int driver, bool strict)
{
	struct ws_target t = tgt(cc);
	struct ws_judge_opts opt = {.driver_cuda = driver, .strict = strict};
	CHECK_EQ_INT(ws_judge(a, &t, 1, &opt), 0);
	return a->verdicts ? a->verdicts[0] : (enum ws_verdict)-1;
}

static const struct er torch_list[] = {{SASS, 50, 0, 0, 0}, {SASS, 60, 0, 0, 0}, {SASS, 70, 0, 0, 0},
	{SASS, 75, 0, 0, 0}, {SASS, 80, 0, 0, 0}, {SASS, 86, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};

/* One arch list for everything (PyTorch): the list decides, nothing is "other GPU". */
static void test_one_list(void)
{
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "torch/lib/libtorch_cuda.so");
	for (unsigned i = 0; i < 3; i++)
		add(o, torch_list, i);
	o = &a->objects[0];
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK(a->objects[0].judged[0].reasons & WS_R_NOTHING_SERVES, "nothing serves sm_120");
	CHECK_EQ_INT(a->objects[0].judged[0].failing, 3);
	CHECK_EQ_INT(a->objects[0].fatbins[1].roles[0], WS_ROLE_REQUIRED);
	CHECK_EQ_STR(a->judged[0].why, "torch/lib/libtorch_cuda.so: 3 of 3 containers with kernels: newest SASS "
		     "sm_90, no PTX; sm_120 needs SASS sm_120 or PTX <= compute_120");
	CHECK_EQ_STR(a->judged[0].advice, "needs a build made with CUDA >= 12.8");
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(judge1(a, 89, 0, false), WS_V_COMPATIBLE);
	CHECK_EQ_INT(a->judged[0].other_gpu, 0);
	CHECK(a->judged[0].why == NULL && a->judged[0].advice == NULL, "no sentences when it runs");
	CHECK_EQ_INT(judge1(a, 37, 0, false), WS_V_NO_IMAGE);
	ws_artifact_free(a);
}

/* Kernels picked by compute capability (NCCL, cuBLASLt): other-GPU units are not failures. */
static void test_picked_by_gpu(void)
{
	static const struct er general[] = {{SASS, 60, 0, 0, 0}, {SASS, 70, 0, 0, 0}, {SASS, 80, 0, 0, 0},
		{SASS, 90, 0, 0, 0}, {SASS, 100, 0, 0, 0}, {SASS, 120, 0, 0, 0}, {PTX, 120, 0, 87, 0}, END};
	static const struct er fam100[] = {{SASS, 100, 'f', 0, 0}, END};
	static const struct er hop_bw[] = {{SASS, 90, 'a', 0, 0}, {SASS, 120, 'f', 0, 0}, END};
	static const struct er turing[] = {{SASS, 75, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "nvidia/nccl/lib/libnccl.so.2");
	add(o, general, 0);
	add(o, general, 1);
	add(o, fam100, 2);
	add(o, hop_bw, 3);
	add(o, turing, 4);
	struct { unsigned cc; enum ws_verdict want; unsigned other; } rows[] = {
		{75, WS_V_COMPATIBLE, 2}, {80, WS_V_NATIVE, 3}, {86, WS_V_COMPATIBLE, 3}, {89, WS_V_COMPATIBLE, 3},
		{90, WS_V_NATIVE, 2}, {100, WS_V_NATIVE, 2}, {103, WS_V_COMPATIBLE, 2}, {120, WS_V_NATIVE, 2},
		{121, WS_V_COMPATIBLE, 2}, {61, WS_V_COMPATIBLE, 3}, {52, WS_V_NO_IMAGE, 0},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		enum ws_verdict v = judge1(a, rows[i].cc, 0, false);
		CHECK(v == rows[i].want, "sm_%u: %s, want %s", rows[i].cc, ws_verdict_name(v), ws_verdict_name(rows[i].want));
		CHECK(a->objects[0].judged[0].other_gpu == rows[i].other, "sm_%u: %u other-gpu, want %u", rows[i].cc,
		      a->objects[0].judged[0].other_gpu, rows[i].other);
		CHECK(!rows[i].other || (a->judged[0].reasons & WS_R_OTHER_GPU), "sm_%u: reason other-gpu", rows[i].cc);
	}
	judge1(a, 90, 0, false);
	CHECK_EQ_INT(a->objects[0].fatbins[2].roles[0], WS_ROLE_OTHER_GPU);
	CHECK_EQ_INT(a->objects[0].fatbins[2].verdicts[0], WS_V_OTHER_GPU);
	CHECK_EQ_INT(a->objects[0].fatbins[3].roles[0], WS_ROLE_REQUIRED);
	/* --strict: every loadable container must load */
	CHECK_EQ_INT(judge1(a, 90, 0, true), WS_V_NO_IMAGE);
	CHECK(a->judged[0].reasons & WS_R_STRICT, "strict reason");
	CHECK_EQ_INT(a->objects[0].judged[0].failing, 2);
	/* --require: the containers needed on sm_90 have sm_90 SASS; with --strict two lack it */
	struct ws_target t90 = tgt(90), t100 = tgt(100);
	uint32_t considered = 0;
	CHECK_EQ_INT(ws_object_require_sass(&a->objects[0], &t90, false, &considered), 0);   /* sm_90a counts as 90 */
	CHECK_EQ_INT(considered, 3);
	CHECK_EQ_INT(ws_object_require_sass(&a->objects[0], &t100, false, &considered), 0);
	CHECK_EQ_INT(ws_object_require_sass(&a->objects[0], &t90, true, &considered), 2);
	CHECK_EQ_INT(considered, 5);
	ws_artifact_free(a);
}

/* Nothing in the object serves: no-image whatever the shapes (a wheel for sm_90a and
 * sm_120a only, on a B200). */
static void test_nothing_serves(void)
{
	static const struct er a90[] = {{SASS, 90, 'a', 0, 0}, END};
	static const struct er a120[] = {{SASS, 120, 'a', 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "x.so");
	add(o, a90, 0);
	add(o, a120, 1);
	CHECK_EQ_INT(judge1(a, 100, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->objects[0].judged[0].other_gpu, 0);
	CHECK_EQ_INT(a->objects[0].fatbins[0].roles[0], WS_ROLE_REQUIRED);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(a->objects[0].fatbins[1].roles[0], WS_ROLE_OTHER_GPU);
	ws_artifact_free(a);
}

/* Nothing built for the target's generation, PTX serves some units: a general list that
 * fails is a failure; single-CC and a/f-only units are built for other GPUs. */
static void test_older_generation(void)
{
	static const struct er with_ptx[] = {{SASS, 70, 0, 0, 0}, {SASS, 80, 0, 0, 0}, {PTX, 80, 0, 84, 0}, END};
	static const struct er general[] = {{SASS, 70, 0, 0, 0}, {SASS, 80, 0, 0, 0}, END};
	static const struct er single[] = {{SASS, 80, 0, 0, 0}, END};
	static const struct er hopper[] = {{SASS, 90, 'a', 0, 0}, END};
	static const struct er mixed_a[] = {{SASS, 86, 0, 0, 0}, {SASS, 90, 'a', 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "ext.so");
	add(o, with_ptx, 0);
	add(o, single, 1);
	add(o, hopper, 2);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_JIT);        /* the first unit needs its PTX on 9.0 */
	CHECK_EQ_INT(a->objects[0].fatbins[1].roles[0], WS_ROLE_OTHER_GPU);   /* sm_90a: 9.x is built for */
	CHECK_EQ_INT(judge1(a, 100, 0, false), WS_V_JIT);
	CHECK_EQ_INT(a->objects[0].judged[0].other_gpu, 2);
	CHECK(a->judged[0].reasons & WS_R_JIT, "jit reason");
	o = obj(a, "ext2.so");
	add(o, with_ptx, 0);
	add(o, general, 1);
	CHECK_EQ_INT(judge1(a, 100, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->objects[1].fatbins[1].roles[0], WS_ROLE_REQUIRED);
	CHECK_EQ_INT(a->objects[1].judged[0].failing, 1);
	CHECK_EQ_INT(a->judged[0].objects, 2);
	CHECK_EQ_INT(a->judged[0].objects_failing, 1);
	o = obj(a, "ext3.so");
	add(o, with_ptx, 0);
	add(o, mixed_a, 1);                      /* a general list with one Hopper entry */
	judge1(a, 120, 0, false);
	CHECK_EQ_INT(a->objects[2].verdicts[0], WS_V_NO_IMAGE);
	ws_artifact_free(a);
}

/* Link inputs and kernel-less containers are never required. */
static void test_link_inputs(void)
{
	static const struct er s90[] = {{SASS, 90, 0, 0, 0}, END};
	static const struct er ptx90[] = {{PTX, 90, 0, 84, 0}, END};
	static const struct er lto[] = {{LTO, 75, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "libbnb_cuda124.so");
	add(o, s90, 0);
	add(o, ptx90, 1)->relocatable = true;    /* bitsandbytes: PTX only in __nv_relfatbin */
	struct ws_fatbin *stub = add(o, s90, 2);
	stub->nkernels = 0;
	free(stub->entries[0].kernels);
	stub->entries[0].kernels = NULL;
	stub->entries[0].nkernels = 0;
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->objects[0].fatbins[1].role, WS_ROLE_LINK_INPUT);
	CHECK_EQ_INT(a->objects[0].fatbins[1].verdicts[0], WS_V_NONE);
	CHECK_EQ_INT(a->objects[0].fatbins[2].role, WS_ROLE_NO_KERNELS);
	CHECK_EQ_INT(a->objects[0].judged[0].with_kernels, 1);
	o = obj(a, "libcufft.so");
	add(o, lto, 0);
	add(o, lto, 1);
	judge1(a, 120, 0, false);
	CHECK_EQ_INT(a->objects[1].verdicts[0], WS_V_NONE);
	CHECK(a->objects[1].judged[0].reasons & WS_R_LINK_INPUTS_ONLY, "link inputs only");
	CHECK_EQ_INT(a->objects[1].fatbins[0].role, WS_ROLE_LINK_INPUT);
	/* a -dc object: --require looks at what its link will contain */
	struct ws_target t90 = tgt(90);
	uint32_t considered = 0;
	o = obj(a, "k.o");
	add(o, ptx90, 0)->relocatable = true;
	judge1(a, 90, 0, false);
	CHECK_EQ_INT(ws_object_require_sass(&a->objects[2], &t90, false, &considered), 1);
	CHECK_EQ_INT(considered, 1);
	CHECK(ws_object_link_only(&a->objects[2]), "an object of link inputs only");
	CHECK(!ws_object_link_only(&a->objects[0]), "an object with loadable code");
	CHECK(ws_fatbin_carries_code(&a->objects[2].fatbins[0], ws_object_link_only(&a->objects[2])),
	      "link input of a link-only object");
	CHECK(!ws_fatbin_carries_code(&a->objects[0].fatbins[1], ws_object_link_only(&a->objects[0])),
	      "link input beside loadable code");
	ws_artifact_free(a);
}

/* The driver older than the GPU: nothing runs, and no rebuild is offered. */
static void test_driver_older_than_gpu(void)
{
	static const struct er s120[] = {{SASS, 120, 0, 0, 128}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	add(obj(a, NULL), s120, 0);
	CHECK_EQ_INT(judge1(a, 120, 12060, false), WS_V_NO_IMAGE);
	CHECK(a->judged[0].reasons & WS_R_DRIVER_GPU, "driver reason");
	CHECK_EQ_INT(a->objects[0].fatbins[0].verdicts[0], WS_V_NATIVE);   /* the code itself is fine */
	CHECK(a->judged[0].why && strstr(a->judged[0].why, "a driver for CUDA 12.6 cannot run sm_120 at all"),
	      "%s", a->judged[0].why);
	CHECK_EQ_STR(a->judged[0].advice, "install a driver for CUDA >= 12.8 (R570 or newer); no rebuild helps "
		     "with this driver");
	CHECK_EQ_INT(judge1(a, 120, 12080, false), WS_V_NATIVE);
	ws_artifact_free(a);
}

/* Issue 36 item 4: code linked against CUDA runtime major M needs a driver of major >= M,
 * SASS too; within a major, minor-version compatibility. The runtime is read from the
 * cubins' ptxas notes (13.2 here), then the file name, then the wheel. */
static void test_driver_runtime(void)
{
	static const struct er cu132[] = {{SASS, 90, 0, 0, 132}, {SASS, 120, 0, 0, 132}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	add(obj(a, "torch/lib/libtorch_cuda.so"), cu132, 0);
	/* R570 (12.8): will not run, and the reason says why */
	CHECK_EQ_INT(judge1(a, 120, 12080, false), WS_V_NO_IMAGE);
	CHECK(a->judged[0].reasons & WS_R_DRIVER_RUNTIME, "runtime reason");
	CHECK(!(a->judged[0].reasons & WS_R_DRIVER_GPU), "not the GPU's reason");
	CHECK_EQ_STR(a->judged[0].why, "torch/lib/libtorch_cuda.so: built with CUDA 13.2 (the ptxas notes of its "
		     "cubins): a CUDA 13 runtime needs a driver for CUDA >= 13.0 (R580 or newer), and this driver "
		     "supports CUDA 12.8");
	CHECK_EQ_STR(a->judged[0].advice, "install a driver for CUDA >= 13.0 (R580 or newer), or a build made with "
		     "CUDA 12.x or older");
	CHECK_EQ_INT(a->judged[0].build_cuda, 13020);
	CHECK_EQ_STR(ws_reason_name(WS_R_DRIVER_RUNTIME), "driver-older-than-runtime");
	/* both sides of the major: 12.9 fails, R580 (13.0) runs a 13.2 build (minor-version
	 * compatibility), and so does a newer driver; no driver known: judged by the code */
	CHECK_EQ_INT(judge1(a, 90, 12090, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(judge1(a, 90, 13000, false), WS_V_NATIVE);
	CHECK_EQ_INT(judge1(a, 90, 13020, false), WS_V_NATIVE);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NATIVE);
	ws_artifact_free(a);
	/* a CUDA 12.8 build on R535 (12.2): its SASS runs (minor-version compatibility), its PTX
	 * alone would not (ISA 8.7 needs 12.8) */
	static const struct er cu128[] = {{SASS, 90, 0, 0, 128}, {PTX, 90, 0, 87, 0}, END};
	static const struct er cu128_ptx[] = {{PTX, 90, 0, 87, 0}, END};
	a = calloc(1, sizeof *a);
	add(obj(a, "x.so"), cu128, 0);
	CHECK_EQ_INT(judge1(a, 90, 12020, false), WS_V_NATIVE);
	CHECK_EQ_INT(judge1(a, 90, 12000, false), WS_V_NATIVE);
	CHECK_EQ_INT(judge1(a, 90, 11080, false), WS_V_NO_IMAGE);
	CHECK(a->judged[0].reasons & WS_R_DRIVER_RUNTIME, "a 12.8 build on an 11.8 driver");
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	add(obj(a, "x.so"), cu128_ptx, 0);
	CHECK_EQ_INT(judge1(a, 90, 12020, false), WS_V_PTX_TOO_NEW);
	CHECK_EQ_INT(judge1(a, 90, 12080, false), WS_V_JIT);
	ws_artifact_free(a);
	/* no note: the file name's CUDA token decides (a variant's own name) */
	static const struct er bare[] = {{SASS, 90, 0, 0, 0}, END};
	a = calloc(1, sizeof *a);
	add(obj(a, "lib/libx_cuda130.so"), bare, 0);
	add(obj(a, "lib/libx_cuda126.so"), bare, 0);
	CHECK_EQ_INT(judge1(a, 90, 12080, false), WS_V_NATIVE);         /* cuda126 loads */
	CHECK_EQ_INT(a->objects[0].verdicts[0], WS_V_NO_IMAGE);
	CHECK(a->objects[0].judged[0].reasons & WS_R_DRIVER_RUNTIME, "cuda130 on 12.8");
	CHECK(a->objects[0].judged[0].why && strstr(a->objects[0].judged[0].why, "(its file name)"), "%s",
	      a->objects[0].judged[0].why);
	ws_artifact_free(a);
	/* Kepler: no driver runs CUDA 12, so no branch is named for it */
	static const struct er k[] = {{SASS, 37, 0, 0, 120}, END};
	a = calloc(1, sizeof *a);
	add(obj(a, "k.so"), k, 0);
	CHECK_EQ_INT(judge1(a, 37, 11040, false), WS_V_NO_IMAGE);
	CHECK_EQ_STR(a->judged[0].advice, "a build made with CUDA 11.x or older: no driver for sm_37 runs CUDA >= 12.0 "
		     "(R470, the last branch for Kepler GPUs, supports CUDA 11.4)");
	CHECK(a->judged[0].why && !strstr(a->judged[0].why, "R525"), "%s", a->judged[0].why);
	ws_artifact_free(a);
	/* Kepler, PTX of ISA 7.8 (CUDA 11.8) on R470: no driver for it reads that; none is named */
	static const struct er kp[] = {{PTX, 35, 0, 78, 0}, END};
	a = calloc(1, sizeof *a);
	add(obj(a, "kp.so"), kp, 0);
	CHECK_EQ_INT(judge1(a, 37, 11040, false), WS_V_PTX_TOO_NEW);
	CHECK_EQ_STR(a->judged[0].advice, "a build with SASS for sm_37: no driver for sm_37 reads this PTX, which needs "
		     "CUDA >= 11.8 (R470, the last branch for Kepler GPUs, supports CUDA 11.4)");
	/* Turing has no last branch: the driver is named */
	CHECK_EQ_INT(judge1(a, 75, 11040, false), WS_V_PTX_TOO_NEW);
	CHECK(a->judged[0].advice && strstr(a->judged[0].advice, "a driver for CUDA >= 11.8 (this one supports 11.4)"),
	      "%s", a->judged[0].advice);
	ws_artifact_free(a);
}

/* Issue 40 §6 (a): a library variant's CUDA against the driver's, major against major. The
 * only variant with the target's SASS is cuda129; the other (cuda126) has none for sm_90.
 * On a 12.8 driver (one minor below the variant), at 12.9 and above it (13.0) it loads; on
 * an 11.8 driver nothing does. A comparison of full versions fails the first. */
static void test_alternatives_driver(void)
{
	static const struct er serving[] = {{SASS, 80, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
	static const struct er other[] = {{SASS, 80, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	add(obj(a, "bnb/libbitsandbytes_cuda126.so"), other, 0);
	add(obj(a, "bnb/libbitsandbytes_cuda129.so"), serving, 0);
	static const struct { int driver; enum ws_verdict want; } rows[] = {
		{12080, WS_V_NATIVE}, {12090, WS_V_NATIVE}, {13000, WS_V_NATIVE}, {12000, WS_V_NATIVE},
		{11080, WS_V_NO_IMAGE}, {0, WS_V_NATIVE},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		enum ws_verdict v = judge1(a, 90, rows[i].driver, false);
		CHECK(v == rows[i].want, "cuda129 only serving, driver %d: got %s, want %s", rows[i].driver,
		      ws_verdict_name(v), ws_verdict_name(rows[i].want));
		CHECK_EQ_INT(a->nalts, 1);
	}
	/* a cuda130 variant beside it: on 12.8 the cuda129 one is the one that loads */
	static const struct er neu[] = {{SASS, 90, 0, 0, 0}, {SASS, 120, 0, 0, 0}, END};
	add(obj(a, "bnb/libbitsandbytes_cuda130.so"), neu, 0);
	CHECK_EQ_INT(judge1(a, 120, 12080, false), WS_V_NO_IMAGE);    /* only cuda130 has sm_120 */
	CHECK_EQ_INT(judge1(a, 120, 13000, false), WS_V_NATIVE);
	CHECK_EQ_INT(judge1(a, 90, 12080, false), WS_V_NATIVE);
	ws_artifact_free(a);
}

/* Issue 40 §6 (b): the bundled compiler at its boundaries. sm_120 first came in CUDA 12.8:
 * a ptxas of 12.7 cannot build for it, 12.8 can; sm_70 last came in 12.9: 12.9 can, 13.0
 * cannot. A Triton with ptxas and ptxas-blackwell of different releases is judged at
 * exactly 10.0 by ptxas-blackwell, below it by ptxas. */
static struct ws_object *jitc(struct ws_artifact *a, const char *member, enum ws_jitc kind, int cuda)
{
	struct ws_object *o = obj(a, member);
	o->jitc = kind;
	o->jitc_cuda = cuda;
	return o;
}

static void test_jit_compiler_bounds(void)
{
	static const struct { int cuda; unsigned cc; enum ws_verdict want; uint32_t reason; } rows[] = {
		{12070, 120, WS_V_NO_IMAGE, WS_R_JIT_COMPILER_OLD},
		{12080, 120, WS_V_JIT, WS_R_JIT_COMPILER},
		{12070, 100, WS_V_NO_IMAGE, WS_R_JIT_COMPILER_OLD},
		{12080, 100, WS_V_JIT, WS_R_JIT_COMPILER},
		{12090, 70, WS_V_JIT, WS_R_JIT_COMPILER},
		{13000, 70, WS_V_NO_IMAGE, WS_R_JIT_COMPILER_DROPPED},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct ws_artifact *a = calloc(1, sizeof *a);
		jitc(a, "triton/backends/nvidia/bin/ptxas", WS_JITC_PTXAS, rows[i].cuda);
		enum ws_verdict v = judge1(a, rows[i].cc, 0, false);
		CHECK(v == rows[i].want && (a->judged[0].reasons & rows[i].reason),
		      "ptxas %d on sm_%u: got %s (reasons %x)", rows[i].cuda, rows[i].cc, ws_verdict_name(v),
		      a->judged[0].reasons);
		ws_artifact_free(a);
	}
	/* two compilers that differ: at exactly 10.0 ptxas-blackwell decides, below it ptxas */
	static const struct { int plain, blackwell; unsigned cc; enum ws_verdict want; int used; } pairs[] = {
		{12040, 12080, 100, WS_V_JIT, 12080},       /* plain alone would fail at 10.0 */
		{12080, 12070, 100, WS_V_NO_IMAGE, 12070},  /* blackwell alone fails at 10.0 */
		{12090, 13000, 70, WS_V_JIT, 12090},        /* plain serves sm_70; blackwell dropped it */
		{13000, 12090, 70, WS_V_NO_IMAGE, 13000},
		{12040, 12070, 90, WS_V_JIT, 12040},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		struct ws_artifact *a = calloc(1, sizeof *a);
		jitc(a, "triton/backends/nvidia/bin/ptxas", WS_JITC_PTXAS, pairs[i].plain);
		jitc(a, "triton/backends/nvidia/bin/ptxas-blackwell", WS_JITC_PTXAS_BLACKWELL, pairs[i].blackwell);
		struct ws_target t = tgt(pairs[i].cc);
		const struct ws_object *c = ws_jitc_for_target(a, &t);
		enum ws_verdict v = judge1(a, pairs[i].cc, 0, false);
		CHECK(c && c->jitc_cuda == pairs[i].used && v == pairs[i].want,
		      "ptxas %d + blackwell %d on sm_%u: used %d, got %s", pairs[i].plain, pairs[i].blackwell, pairs[i].cc,
		      c ? c->jitc_cuda : 0, ws_verdict_name(v));
		ws_artifact_free(a);
	}
}

/* Objects whose names differ by a CUDA version token: the variant that loads decides. */
static void test_alternatives(void)
{
	static const struct er old[] = {{SASS, 70, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
	static const struct er neu[] = {{SASS, 90, 0, 0, 0}, {SASS, 120, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	add(obj(a, "bnb/libbnb_cuda130.so"), neu, 0);
	add(obj(a, "bnb/libbnb_cuda118.so"), old, 0);
	add(obj(a, "bnb/libbnb_cuda128.so"), neu, 0);
	add(obj(a, "bnb/libother.so"), old, 1);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(a->nalts, 1);
	CHECK_EQ_STR(a->alts[0].pattern, "bnb/libbnb_cuda*.so");
	CHECK_EQ_INT(a->alts[0].n, 3);
	CHECK_EQ_INT(a->objects[a->alts[0].objects[0]].alt_cuda, 11080);     /* by CUDA version */
	CHECK_EQ_INT(a->objects[3].alt_group, 0);
	/* sm_120: the group runs through cuda128/130, libother.so does not */
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->alts[0].verdicts[0], WS_V_NATIVE);
	CHECK_EQ_INT(a->judged[0].objects, 2);
	CHECK_EQ_INT(a->judged[0].objects_failing, 1);
	CHECK(a->judged[0].reasons & WS_R_ALTERNATIVES, "alternatives reason");
	/* drop libother.so's code: the artifact runs */
	ws_object_clear(&a->objects[3]);
	a->nobjects = 3;
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NATIVE);
	/* a CUDA 12 driver cannot load the cuda130 variant; cuda128 still runs */
	CHECK_EQ_INT(judge1(a, 120, 12090, false), WS_V_NATIVE);
	/* a CUDA 11.8 driver: only cuda118 can load, and it has sm_90 */
	CHECK_EQ_INT(judge1(a, 90, 11080, false), WS_V_NATIVE);
	/* --require sm_120: cuda118 cannot carry it and is exempt; the others have it */
	struct ws_target t120 = tgt(120);
	uint32_t considered = 0;
	for (uint32_t i = 0; i < 3; i++)
		CHECK_EQ_INT(ws_object_require_sass(&a->objects[i], &t120, false, &considered), 0);
	/* names that are not a version token */
	struct ws_artifact *b = calloc(1, sizeof *b);
	add(obj(b, "x/libcuda_helpers.so"), old, 0);
	add(obj(b, "x/libcublas_cu.so"), old, 0);
	add(obj(b, "x/libfoo_cu12.so"), old, 0);
	judge1(b, 90, 0, false);
	CHECK_EQ_INT(b->nalts, 0);
	ws_artifact_free(b);
	ws_artifact_free(a);
}

/* A container loads, but the image the driver picks lacks kernels its other images have. */
static void test_kernel_gaps(void)
{
	static const struct er two[] = {{SASS, 75, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "libcublasLt.so.11");
	struct ws_fatbin *f = add(o, two, 0);
	uint32_t extra = ws_strpool_intern(&o->kernels, "cutlass_75_only", 15);
	struct ws_entry *e75 = &f->entries[0];
	e75->kernels = realloc(e75->kernels, 2 * sizeof *e75->kernels);
	e75->kernels[e75->nkernels++] = extra;
	f->nkernels = 2;
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(a->objects[0].judged[0].kernel_gaps, 1);
	CHECK(a->objects[0].fatbins[0].gaps && a->objects[0].fatbins[0].gaps[0].n == 1 &&
	      a->objects[0].fatbins[0].gaps[0].kernels[0] == extra, "the sm_90 image lacks cutlass_75_only");
	CHECK(a->judged[0].reasons & WS_R_KERNEL_GAPS, "gap reason");
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(a->objects[0].judged[0].kernel_gaps, 0);
	ws_artifact_free(a);
}

/* Advice from the build's own toolkit: never a version the build already has. */
static void test_advice(void)
{
	static const struct er b124[] = {{SASS, 80, 0, 0, 124}, {SASS, 90, 0, 0, 124}, END};
	static const struct er b128[] = {{SASS, 80, 0, 0, 128}, {SASS, 90, 0, 0, 128}, END};
	static const struct er b130[] = {{SASS, 75, 0, 0, 130}, {SASS, 90, 0, 0, 130}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_wheel_info *w = calloc(1, sizeof *w);
	w->local = strdup("cu124");
	a->wheel = w;
	add(obj(a, "m.so"), b124, 0);
	judge1(a, 120, 0, false);
	CHECK_EQ_STR(a->judged[0].advice, "built with CUDA 12.4, which predates sm_120 (CUDA 12.8+): use a +cu128 build");
	CHECK(a->judged[0].reasons & WS_R_PREDATES, "predates");
	ws_artifact_free(a);

	a = calloc(1, sizeof *a);
	add(obj(a, "m.so"), b128, 0);
	judge1(a, 120, 0, false);
	CHECK_EQ_STR(a->judged[0].advice, "built with CUDA 12.8, which supports sm_120, but left it out and has no PTX: "
		     "ask for a build with sm_120 or PTX");
	CHECK(a->judged[0].reasons & WS_R_LEFT_OUT, "left out");
	CHECK_EQ_INT(a->judged[0].build_cuda, 12080);
	ws_artifact_free(a);

	a = calloc(1, sizeof *a);
	add(obj(a, "m.so"), b130, 0);
	judge1(a, 61, 0, false);
	CHECK_EQ_STR(a->judged[0].advice, "built with CUDA 13.0, which dropped sm_61 (last in CUDA 12.9): use a build "
		     "made with CUDA 8.0 to 12.9");
	CHECK(a->judged[0].reasons & WS_R_DROPPED, "dropped");
	ws_artifact_free(a);

	/* no notes: the wheel's pinned CUDA runtime, then its CUDA major */
	static const struct er bare[] = {{SASS, 80, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
	a = calloc(1, sizeof *a);
	a->wheel = w = calloc(1, sizeof *w);
	w->requires_cuda_major = 12;
	add(obj(a, "m.so"), bare, 0);
	judge1(a, 120, 0, false);
	CHECK_EQ_STR(a->judged[0].advice, "built with CUDA 12.x, which may predate sm_120 (CUDA 12.8+): use a build "
		     "made with CUDA >= 12.8");
	w->requires_cuda_runtime = 12040;
	judge1(a, 120, 0, false);
	CHECK_EQ_STR(a->judged[0].advice, "built with CUDA 12.4, which predates sm_120 (CUDA 12.8+): use a build made "
		     "with CUDA >= 12.8");
	ws_artifact_free(a);

	char buf[256];
	struct ws_target t = tgt(90);
	CHECK_EQ_INT(ws_advise_build(&t, 12040, false, true, NULL, NULL, buf, sizeof buf), WS_R_LEFT_OUT);
	CHECK_EQ_STR(buf, "built with CUDA 12.4, which supports sm_90, but left it out and has no usable PTX: ask for a "
		     "build with sm_90 or PTX");
	CHECK_EQ_INT(ws_advise_build(&t, 0, false, false, "cu118", NULL, buf, sizeof buf), 0);
	CHECK(strncmp(buf, "needs a build made with CUDA >= 11.8", 36) == 0, "%s", buf);
	/* doc/compat-rules.md §6 at the edges: CUDA 12.7 predates sm_120 (first in 12.8); 13.0 dropped sm_70 (last 12.9) */
	struct ws_target t120 = tgt(120), t70 = tgt(70);
	CHECK_EQ_INT(ws_advise_build(&t120, 12070, false, false, "cu127", NULL, buf, sizeof buf), WS_R_PREDATES);
	CHECK_EQ_STR(buf, "built with CUDA 12.7, which predates sm_120 (CUDA 12.8+): use a +cu128 build");
	CHECK_EQ_INT(ws_advise_build(&t120, 12080, false, false, NULL, NULL, buf, sizeof buf), WS_R_LEFT_OUT);
	CHECK_EQ_INT(ws_advise_build(&t70, 13000, false, false, "cu130", NULL, buf, sizeof buf), WS_R_DROPPED);
	CHECK(strncmp(buf, "built with CUDA 13.0, which dropped sm_70 (last in CUDA 12.9)", 61) == 0, "%s", buf);
	CHECK(strstr(buf, "e.g. +cu129") != NULL, "%s", buf);
	CHECK_EQ_INT(ws_advise_build(&t70, 12090, false, false, NULL, NULL, buf, sizeof buf), WS_R_LEFT_OUT);
}

static void test_names(void)
{
	for (unsigned bit = 0; bit < WS_R_COUNT; bit++)
		CHECK(ws_reason_name(1u << bit) != NULL, "reason bit %u has a name", bit);
	CHECK(ws_reason_name(1u << WS_R_COUNT) == NULL, "no name past the last bit");
	CHECK_EQ_STR(ws_role_name(WS_ROLE_OTHER_GPU), "other-gpu");
	CHECK_EQ_STR(ws_role_name(WS_ROLE_LINK_INPUT), "link-input");
	CHECK_EQ_STR(ws_role_name(WS_ROLE_NO_KERNELS), "no-kernels");
	CHECK_EQ_STR(ws_verdict_name(WS_V_OTHER_GPU), "other-gpu");
	CHECK_EQ_INT(ws_verdict_worst(WS_V_OTHER_GPU, WS_V_NATIVE), WS_V_NATIVE);
	struct ws_target t = tgt(90);
	CHECK_EQ_INT(ws_judge(NULL, &t, 1, NULL), 0);
	struct ws_artifact *a = calloc(1, sizeof *a);
	CHECK_EQ_INT(ws_judge(a, &t, WS_MAX_TARGETS + 1, NULL), -1);
	CHECK_EQ_INT(ws_judge(a, &t, 0, NULL), 0);
	CHECK(a->verdicts == NULL, "no targets: no verdicts");
	ws_artifact_free(a);
}

/* "Built for the target's generation" looks at the containers the library loads: SASS
 * sm_120 in a link input (-rdc, never loaded alone) does not excuse an sm_80/sm_86
 * container that cannot run on 12.0. */
static void test_generation_of_loaded_code(void)
{
	static const struct er old2[] = {{SASS, 80, 0, 0, 0}, {SASS, 86, 0, 0, 0}, END};
	static const struct er jit80[] = {{PTX, 80, 0, 70, 0}, END};
	static const struct er new120[] = {{SASS, 120, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "lib.so");
	add(o, old2, 0);
	add(o, jit80, 1);
	add(o, new120, 2)->relocatable = true;
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->objects[0].fatbins[0].roles[0], WS_ROLE_REQUIRED);
	CHECK_EQ_INT(a->objects[0].fatbins[2].roles[0], WS_ROLE_LINK_INPUT);
	ws_artifact_free(a);

	/* sm_80 SASS with compute_90a PTX holds two CCs, the newest (9.0) older than 12.0, and
	 * nothing in the object is built for 12.x: it fails on 12.0 even though another
	 * container serves through JIT; counted as single-CC it would be excused */
	static const struct er sass80_ptx90a[] = {{SASS, 80, 0, 0, 0}, {PTX, 90, 'a', 80, 0}, END};
	a = calloc(1, sizeof *a);
	o = obj(a, "lib.so");
	add(o, sass80_ptx90a, 0);
	add(o, jit80, 1);
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->objects[0].fatbins[0].roles[0], WS_ROLE_REQUIRED);
	CHECK_EQ_INT(a->objects[0].judged[0].failing, 1);
	ws_artifact_free(a);

	/* PTX the driver cannot read still serves the GPU (a newer driver fixes it): the verdict
	 * is ptx-too-new, not "nothing serves", and a single-CC sm_90 container is another GPU's */
	static const struct er ptx120[] = {{PTX, 120, 0, 90, 0}, END};
	static const struct er sass90[] = {{SASS, 90, 0, 0, 0}, END};
	a = calloc(1, sizeof *a);
	o = obj(a, "lib.so");
	add(o, ptx120, 0);
	add(o, sass90, 1);
	CHECK_EQ_INT(judge1(a, 120, 12080, false), WS_V_PTX_TOO_NEW);
	CHECK(a->objects[0].judged[0].reasons & WS_R_PTX_DRIVER, "reason ptx-needs-newer-driver");
	CHECK(!(a->objects[0].judged[0].reasons & WS_R_NOTHING_SERVES), "not nothing-serves");
	CHECK_EQ_INT(a->objects[0].fatbins[1].roles[0], WS_ROLE_OTHER_GPU);
	ws_artifact_free(a);
}

/* The PTX ISA is only a lower bound of the CUDA that built it: ISA 8.5 is written by 12.5 and
 * 12.6, so the advice says "12.5 or 12.6"; 8.4 gives "12.4 or newer"; a cubin's producer
 * note, when there is one, is the version. */
static void test_isa_lower_bound(void)
{
	static const struct er isa85[] = {{SASS, 80, 0, 0, 0}, {PTX, 80, 0, 85, 0}, END};
	static const struct er isa84[] = {{SASS, 80, 0, 0, 0}, {PTX, 80, 0, 84, 0}, END};
	static const struct er noted[] = {{SASS, 80, 0, 0, 125}, {PTX, 80, 0, 83, 0}, END};
	static const struct er isa80[] = {{SASS, 86, 0, 0, 0}, {PTX, 90, 'a', 80, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	add(obj(a, "libx.so"), isa85, 0);
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NO_IMAGE);
	CHECK(a->judged[0].advice && strstr(a->judged[0].advice, "built with CUDA 12.5 or 12.6 (from its PTX ISA 8.5), "
					    "which supports sm_75"), "%s", a->judged[0].advice);
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	add(obj(a, "libx.so"), isa84, 0);
	judge1(a, 75, 0, false);
	CHECK(a->judged[0].advice && strstr(a->judged[0].advice, "built with CUDA 12.4 or newer (from its PTX ISA 8.4)"),
	      "%s", a->judged[0].advice);
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	add(obj(a, "libx.so"), noted, 0);
	judge1(a, 75, 0, false);
	CHECK(a->judged[0].advice && strstr(a->judged[0].advice, "built with CUDA 12.5, which supports sm_75"), "%s",
	      a->judged[0].advice);
	ws_artifact_free(a);
	/* a lower bound below the GPU's first CUDA only "may predate" it (sm_120: 12.8) */
	a = calloc(1, sizeof *a);
	add(obj(a, "libx.so"), isa80, 0);
	judge1(a, 120, 0, false);
	CHECK(a->judged[0].advice && strstr(a->judged[0].advice, "12.0 or newer (from its PTX ISA 8.0), which may predate sm_120"),
	      "%s", a->judged[0].advice);
	ws_artifact_free(a);
}

/* Names f's entries as the decoder does ("sm_90a", "compute_80"), for the sentences. */
static struct ws_fatbin *named(struct ws_fatbin *f)
{
	for (uint32_t i = 0; i < f->nentries; i++) {
		struct ws_entry *e = &f->entries[i];
		snprintf(e->name, sizeof e->name, "%s_%u%s", e->kind == SASS ? "sm" : e->kind == PTX ? "compute" : "lto",
			 e->arch, e->suffix == 'a' ? "a" : e->suffix == 'f' ? "f" : "");
	}
	return f;
}

/* Gives every entry of f n more kernels "x<base>".."x<base+n-1>" (f->nkernels counts them). */
static void more_kernels(struct ws_object *o, struct ws_fatbin *f, unsigned base, unsigned n)
{
	for (uint32_t i = 0; i < f->nentries; i++) {
		struct ws_entry *e = &f->entries[i];
		if (!e->kernels_known)
			continue;
		e->kernels = realloc(e->kernels, (e->nkernels + n) * sizeof *e->kernels);
		for (unsigned k = 0; k < n; k++) {
			char name[24];
			snprintf(name, sizeof name, "x%u", base + k);
			e->kernels[e->nkernels + k] = ws_strpool_intern(&o->kernels, name, strlen(name));
		}
		e->nkernels += n;
	}
	f->nkernels += n;
}

static const struct er ampere_up[] = {{SASS, 80, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
static const struct er helper52[] = {{SASS, 52, 0, 0, 0}, {PTX, 52, 0, 84, 0}, END};

/* A library of n containers for sm_80+sm_90 (3 kernels each) and one generic helper
 * (sm_52 + compute_52, 1 kernel), as cuSPARSELt 0.6 is in torch 2.5.1. */
static struct ws_object *helper_lib(struct ws_artifact *a, const char *member, unsigned n, uint64_t size)
{
	struct ws_object *o = obj(a, member);
	o->size = size;
	add(o, helper52, 0)->size = 1000;
	for (unsigned i = 0; i < n; i++) {
		struct ws_fatbin *f = add(o, ampere_up, 1000 + i);
		f->size = 1000;
		more_kernels(o, f, 10 * i, 2);
	}
	return &a->objects[a->nobjects - 1];
}

/* Rule 4: "runs" must not rest on a helper when the rest of the object starts above the
 * target; and where the rule must not reach. */
static void test_helper_only(void)
{
	struct ws_artifact *a = calloc(1, sizeof *a);
	helper_lib(a, "lib/libsparse.so", 371, 1000);
	struct { unsigned cc; enum ws_verdict want; } rows[] = {
		{52, WS_V_NO_IMAGE}, {61, WS_V_NO_IMAGE}, {70, WS_V_NO_IMAGE}, {75, WS_V_NO_IMAGE},
		{80, WS_V_JIT}, {90, WS_V_JIT},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		enum ws_verdict v = judge1(a, rows[i].cc, 0, false);
		CHECK(v == rows[i].want, "helper: sm_%u %s, want %s", rows[i].cc, ws_verdict_name(v),
		      ws_verdict_name(rows[i].want));
		CHECK(!!(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY) == (rows[i].cc < 80),
		      "helper: sm_%u reason helper-only", rows[i].cc);
	}
	judge1(a, 75, 0, false);
	CHECK_EQ_STR(a->objects[0].judged[0].why, "only a helper container (1 of 372, 1 kernel) has code for sm_75; "
		     "the other 371 start at sm_80");
	CHECK_EQ_INT(a->objects[0].judged[0].failing, 371);
	CHECK_EQ_INT(a->objects[0].judged[0].other_gpu, 0);
	CHECK_EQ_INT(a->objects[0].fatbins[5].roles[0], WS_ROLE_REQUIRED);
	CHECK_EQ_INT(a->objects[0].fatbins[0].verdicts[0], WS_V_JIT);       /* the helper itself serves */
	/* --require sm_75 counts every container the object needs there */
	struct ws_target t75 = tgt(75);
	uint32_t considered = 0;
	CHECK_EQ_INT(ws_object_require_sass(&a->objects[0], &t75, false, &considered), 372);
	ws_artifact_free(a);

	/* the bounds: 1 in 100 by count (1 of 100 fires, 1 of 99 does not) ... */
	a = calloc(1, sizeof *a);
	helper_lib(a, "lib.so", 99, 0);
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NO_IMAGE);
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	helper_lib(a, "lib.so", 98, 0);
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_JIT);
	CHECK(!(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY), "99 containers: no helper rule");
	ws_artifact_free(a);
	/* ... and 1 in 20 by bytes per loadable entry (what every mode reads): a "helper" with
	 * a larger share of the object's code is real support. 199 containers of 1000 bytes
	 * and two entries (500 each): a helper of 10473 bytes (5236 a copy) is 4.99996%, one
	 * of 10474 (5237) is 5.00005% */
	a = calloc(1, sizeof *a);
	struct ws_object *o = helper_lib(a, "lib.so", 199, 0);
	o->fatbins[0].size = 10474;
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_JIT);
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	o = helper_lib(a, "lib.so", 199, 0);
	o->fatbins[0].size = 10473;
	more_kernels(o, &o->fatbins[0], 100000, 100);      /* kernels do not weigh: 101 of 699 */
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NO_IMAGE);
	/* --strict already counts everything */
	CHECK_EQ_INT(judge1(a, 75, 0, true), WS_V_NO_IMAGE);
	CHECK(!(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY), "strict: not the helper rule");
	ws_artifact_free(a);
	/* --no-kernels leaves the large containers' kernels unread: the same verdict (issue 40:
	 * cuSPARSELt 0.7.1 "runs" on sm_75 under --no-kernels when kernels were weighed) */
	a = calloc(1, sizeof *a);
	o = helper_lib(a, "lib.so", 371, 0);
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		o->fatbins[i].nkernels = i ? UINT32_MAX : 0;    /* as --no-kernels leaves them */
		for (uint32_t e = 0; e < o->fatbins[i].nentries; e++)
			o->fatbins[i].entries[e].kernels_known = false;
	}
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NO_IMAGE);
	CHECK(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY, "--no-kernels: helper-only");
	CHECK_EQ_STR(a->objects[0].judged[0].why, "only a helper container (1 of 372, kernels not decoded) has code "
		     "for sm_75; the other 371 start at sm_80");
	ws_artifact_free(a);
	/* a container built for the target or older among the rest: not "built for newer GPUs" */
	static const struct er volta[] = {{SASS, 61, 0, 0, 0}, {SASS, 80, 0, 0, 0}, END};
	a = calloc(1, sizeof *a);
	o = helper_lib(a, "lib.so", 371, 0);
	add(o, volta, 5);
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_JIT);
	CHECK_EQ_INT(a->objects[0].fatbins[372].roles[0], WS_ROLE_OTHER_GPU);
	ws_artifact_free(a);
}

/* Rule 4 on the other side: a library built for sm_80 alone, whose generic helper's PTX
 * JITs on newer GPUs; a container that spans the target and leaves it out is rule 3's. */
static void test_helper_older(void)
{
	static const struct er ampere[] = {{SASS, 80, 0, 0, 0}, END};
	static const struct er spans[] = {{SASS, 80, 0, 0, 0}, {SASS, 100, 0, 0, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *o = obj(a, "lib.so");
	add(o, helper52, 0);
	for (unsigned i = 0; i < 150; i++)
		add(o, ampere, 1000 + i);
	CHECK_EQ_INT(judge1(a, 80, 0, false), WS_V_JIT);      /* the helper JITs, the rest native */
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NO_IMAGE);
	CHECK(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY, "sm_90: reason helper-only");
	CHECK_EQ_STR(a->objects[0].judged[0].why, "only a helper container (1 of 151, 1 kernel) has code for sm_90; "
		     "the other 150 stop at sm_80");
	/* the artifact's why names the main code's failure before one that rests on rule 4,
	 * though the helper library fails in more containers (torch 2.5.1 on sm_120) */
	struct ws_object *m = obj(a, "torch/lib/libtorch_cuda.so");
	for (unsigned i = 0; i < 3; i++)
		add(m, torch_list, 7000 + i);
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY, "sm_120: helper-only");
	CHECK(a->judged[0].why && !strncmp(a->judged[0].why, "torch/lib/libtorch_cuda.so: ", 28), "why: %s", a->judged[0].why);
	add(&a->objects[0], spans, 5000);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_JIT);
	CHECK(!(a->objects[0].judged[0].reasons & WS_R_HELPER_ONLY), "a container spanning sm_90: not rule 4");
	ws_artifact_free(a);
}

/* Step a: an object built only for other GPUs is set aside when another object serves. */
static void test_object_set_aside(void)
{
	static const struct er hopper_a[] = {{SASS, 90, 'a', 0, 0}, END};
	static const struct er main_list[] = {{SASS, 60, 0, 0, 0}, {SASS, 70, 0, 0, 0}, {SASS, 75, 0, 0, 0},
		{SASS, 80, 0, 0, 0}, {SASS, 86, 0, 0, 0}, {SASS, 90, 0, 0, 0}, {PTX, 90, 0, 84, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *m = obj(a, "pkg/_C.so");
	m->size = 100;
	add(m, main_list, 0);
	struct ws_object *fa3 = obj(a, "pkg/flash_attn_3.so");
	fa3->size = 5000;                                    /* larger: an arch-specific object needs no size */
	named(add(fa3, hopper_a, 1));
	named(add(fa3, hopper_a, 2));
	unsigned ccs[] = {60, 70, 75, 80, 86, 89};
	for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
		enum ws_verdict v = judge1(a, ccs[i], 0, false);
		CHECK(!ws_verdict_fails(v), "fa3 package on sm_%u: %s", ccs[i], ws_verdict_name(v));
		CHECK_EQ_INT(a->objects[1].verdicts[0], WS_V_OTHER_GPU);
		CHECK(a->objects[1].judged[0].reasons & WS_R_OBJECT_OTHER_GPU, "sm_%u: reason object-other-gpu", ccs[i]);
		CHECK_EQ_INT(a->objects[1].fatbins[0].roles[0], WS_ROLE_OTHER_GPU);
		CHECK_EQ_INT(a->judged[0].objects_failing, 0);
		CHECK_EQ_INT(a->judged[0].other_gpu, 2);
	}
	judge1(a, 80, 0, false);
	CHECK_EQ_STR(a->objects[1].judged[0].why, "built only for other GPUs (every entry arch-specific: sm_90a); "
		     "pkg/_C.so serves sm_80");
	CHECK(a->objects[1].judged[0].advice == NULL, "no advice for code set aside");
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(a->objects[1].verdicts[0], WS_V_NATIVE);
	/* --strict sets nothing aside; with nothing else serving it still fails */
	CHECK_EQ_INT(judge1(a, 80, 0, true), WS_V_NO_IMAGE);
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_JIT);    /* _C.so's PTX serves sm_120 */
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	add(obj(a, "flash_attn_3.so"), hopper_a, 1);
	CHECK_EQ_INT(judge1(a, 80, 0, false), WS_V_NO_IMAGE);
	ws_artifact_free(a);
	/* a and f mixed: not an arch-specific object (the brief: every entry 'a') */
	static const struct er a_f[] = {{SASS, 90, 'a', 0, 0}, {SASS, 100, 'f', 0, 0}, END};
	a = calloc(1, sizeof *a);
	m = obj(a, "pkg/_C.so");
	m->size = 100;
	add(m, main_list, 0);
	add(obj(a, "pkg/fa.so"), a_f, 1)->nkernels = 1;
	a->objects[1].size = 100;
	CHECK_EQ_INT(judge1(a, 80, 0, false), WS_V_NO_IMAGE);
	ws_artifact_free(a);

	/* code for newer GPUs (helper-only, or nothing serves and all of it newer): set aside
	 * beside an object at least twice its size (torch's libtorch_cuda.so and cuSPARSELt) */
	static const struct er torch_main[] = {{SASS, 50, 0, 0, 0}, {SASS, 60, 0, 0, 0}, {SASS, 70, 0, 0, 0},
		{SASS, 75, 0, 0, 0}, {SASS, 80, 0, 0, 0}, {SASS, 86, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
	a = calloc(1, sizeof *a);
	m = obj(a, "torch/lib/libtorch_cuda.so");
	m->size = 900;
	add(m, torch_main, 0);
	helper_lib(a, "torch/lib/libcusparseLt.so.0", 371, 450);
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NATIVE);
	CHECK_EQ_INT(a->objects[1].verdicts[0], WS_V_OTHER_GPU);
	CHECK(a->objects[1].judged[0].reasons & WS_R_HELPER_ONLY, "helper rule still named");
	CHECK_EQ_STR(a->objects[1].judged[0].why, "built for sm_80 and newer (only a helper container (1 of 372, 1 kernel) "
		     "has code for sm_75; the other 371 start at sm_80); torch/lib/libtorch_cuda.so, an object at least "
		     "twice its size, serves sm_75");
	CHECK_EQ_INT(judge1(a, 50, 0, false), WS_V_NATIVE);  /* nothing serves sm_50 there, all of it newer */
	CHECK_EQ_INT(a->objects[1].verdicts[0], WS_V_OTHER_GPU);
	/* less than twice its size: the object may be the package's main code */
	a->objects[0].size = 899;
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->objects[1].verdicts[0], WS_V_NO_IMAGE);
	/* members of an archive are linked into one program: not set aside */
	a->objects[0].size = 900;
	a->objects[0].type = WS_OBJ_ELF_REL;
	CHECK_EQ_INT(judge1(a, 75, 0, false), WS_V_NO_IMAGE);
	ws_artifact_free(a);
}

/* Step b: the headline words the main code's verdict when a small minority only JITs. */
static void test_headline(void)
{
	static const struct er sm90[] = {{SASS, 80, 0, 0, 0}, {SASS, 90, 0, 0, 0}, END};
	static const struct er jit80[] = {{SASS, 80, 0, 0, 0}, {PTX, 80, 0, 84, 0}, END};
	struct ws_artifact *a = calloc(1, sizeof *a);
	struct ws_object *m = obj(a, "torch/lib/libtorch_cuda.so");
	m->size = 900;
	for (unsigned i = 0; i < 19; i++)
		add(m, sm90, i);
	struct ws_object *v = obj(a, "torch/lib/libcusparseLt.so.0");
	v->size = 200;
	add(v, jit80, 100);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_JIT);      /* gates: still a JIT */
	CHECK_EQ_INT(a->headline[0], WS_V_NATIVE);
	CHECK(a->judged[0].reasons & WS_R_MINORITY, "reason minority");
	CHECK_EQ_INT(a->judged[0].minority, 1);
	CHECK_EQ_STR(a->judged[0].minority_where, "1 container in torch/lib/libcusparseLt.so.0 only through PTX JIT");
	struct ws_target t90 = tgt(90);
	uint32_t considered = 0;
	CHECK_EQ_INT(ws_object_require_sass(&a->objects[1], &t90, false, &considered), 1);
	/* 1 of 20 is the bound; 2 of 21 is not a small minority */
	add(&a->objects[1], jit80, 101);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_JIT);
	CHECK_EQ_INT(a->headline[0], WS_V_JIT);
	CHECK(a->judged[0].minority_where == NULL && a->judged[0].minority == 0, "no minority");
	/* nor by kernels: one container of 20 holding most kernels */
	ws_artifact_free(a);
	a = calloc(1, sizeof *a);
	m = obj(a, "main.so");
	for (unsigned i = 0; i < 19; i++)
		add(m, sm90, i);
	more_kernels(m, add(obj(a, "vend.so"), jit80, 100), 0, 5);
	CHECK_EQ_INT(judge1(a, 90, 0, false), WS_V_JIT);
	CHECK_EQ_INT(a->headline[0], WS_V_JIT);
	/* a failing verdict is never reworded */
	CHECK_EQ_INT(judge1(a, 120, 0, false), WS_V_NO_IMAGE);
	CHECK_EQ_INT(a->headline[0], WS_V_NO_IMAGE);
	ws_artifact_free(a);
}

int main(void)
{
	test_isa_lower_bound();
	test_one_list();
	test_picked_by_gpu();
	test_nothing_serves();
	test_older_generation();
	test_link_inputs();
	test_generation_of_loaded_code();
	test_driver_older_than_gpu();
	test_alternatives();
	test_driver_runtime();
	test_alternatives_driver();
	test_jit_compiler_bounds();
	test_kernel_gaps();
	test_advice();
	test_names();
	test_helper_only();
	test_helper_older();
	test_object_set_aside();
	test_headline();
	return ws_test_done();
}
