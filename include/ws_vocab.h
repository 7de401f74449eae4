/* ws_vocab.h - the model's vocabulary: the GPUs judged for, and the names of what the rules
 * decide (verdicts, roles, reasons, bundled compilers, CUDA versions), with the questions a
 * writer asks of a judged model. Writers include this, not the rules (ws_compat.h), so a
 * report can name a verdict without seeing how one is reached. Defined in the core:
 * gpus.c, compat.c, judge.c, jitc.c, buildcuda.c. */
#ifndef WS_VOCAB_H
#define WS_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wheelscan.h"

/* Most targets one --gpu list may name (bounds the allocation). */
#define WS_MAX_TARGETS 64

/* One GPU to judge for. */
struct ws_target {
	char name[16];     /* "sm_120": the key of JSON "verdicts" */
	uint16_t cc;       /* major*10+minor, e.g. 120 */
	char label[48];    /* "GeForce RTX 5090", or "" when given as a number */
};

/* t as the target of compute capability cc: named "sm_<cc>", labelled label (cut to fit),
 * or unlabelled when label is NULL. The one way a target is built (gpus.c). */
void ws_target_set(struct ws_target *t, unsigned cc, const char *label);

/* One row of the built-in GPU table. */
struct ws_gpu {
	uint16_t cc;
	const char *name;     /* display name, "GeForce RTX 5090" */
	const char *aliases;  /* extra accepted names separated by '|', or NULL */
	const char *segment;  /* "datacenter", "geforce", "workstation", "jetson", "desktop" */
};

/* The GPU table, in CC order. */
size_t ws_gpu_count(void);
const struct ws_gpu *ws_gpu_at(size_t i);
/* Architecture name of a CC ("Blackwell", "Ada Lovelace"), "" if unknown. */
const char *ws_cc_family(unsigned cc);

/* Writes a CUDA version (12080) as "12.8" into buf; returns buf. */
char *ws_cuda_str(int cuda, char *buf, size_t len);

/* "native", "compatible", "jit", "ptx-too-new", "no-image", "none". */
const char *ws_verdict_name(enum ws_verdict v);
/* True for the verdicts that fail a --gpu gate (no-image, ptx-too-new). */
int ws_verdict_fails(enum ws_verdict v);
/* True for the verdicts under which the code runs (native, compatible, jit). */
int ws_verdict_runs(enum ws_verdict v);
/* Severity for roll-ups: NONE = OTHER_GPU < NATIVE < COMPATIBLE < JIT < PTX_TOO_NEW < NO_IMAGE. */
int ws_verdict_rank(enum ws_verdict v);
/* The entry's a/f marker ('a', 'f' or 0): the decoder's, else the PTX ".target" suffix. */
char ws_entry_suffix(const struct ws_entry *e);
/* The PTX ISA of a PTX entry: the ".version" line, else the entry header's version. */
void ws_entry_isa(const struct ws_entry *e, unsigned *major, unsigned *minor);

/* ---- the CUDA release a build was made with (src/core/buildcuda.c) ---- */
struct ws_build_cuda {
	int cuda;             /* 13020: the release most cubins' ptxas notes name (a tie: the
			       * newer), else the lowest CUDA that writes its newest PTX ISA; 0 */
	bool from_isa;        /* cuda is only that lower bound (no cubin names its release) */
	unsigned isa_major, isa_minor;  /* the newest PTX ISA, when from_isa */
	uint64_t cubins;      /* cubins that name cuda */
	uint64_t noted_cubins;/* cubins that name any release */
	int newest_note;      /* the newest release any cubin names (13040), 0 if none */
};
/* Reads o's build release from its entries (doc/builds.md, "The build's CUDA"). */
void ws_object_build_cuda(const struct ws_object *o, struct ws_build_cuda *out);

/* ---- bundled run-time compilers (src/core/jitc.c) ---- */
/* "triton-ptxas", "triton-ptxas-blackwell" (JSON's jit_compiler.kind), "none". */
const char *ws_jitc_name(enum ws_jitc k);

/* ---- judged models (src/core/judge.c) ---- */
/* A failing object that does not fail its artifact: an alternative of a group in which
 * another variant runs on target t (the one the user's CUDA runtime picks). */
bool ws_object_excused(const struct ws_artifact *a, const struct ws_object *o, size_t t);
/* Name of a reason bit ("nothing-serves", ...); NULL for an unknown bit. */
const char *ws_reason_name(uint32_t bit);
/* Name of a role ("required", "other-gpu", "link-input", "no-kernels"). */
const char *ws_role_name(enum ws_role r);

#endif
