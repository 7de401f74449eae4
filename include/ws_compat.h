/* ws_compat.h - the compatibility rules (pure: no I/O; the names they decide in are ws_vocab.h's):
 * compat.c (tables, entry and container verdicts), judge.c (roles, roll-ups), explain.c (sentences):
 * target GPUs, driver versions, per-entry / per-container verdicts, explanations
 * and advice. Sources of every rule and table: doc/compat-rules.md. */
#ifndef WS_COMPAT_H
#define WS_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wheelscan.h"
#include "ws_vocab.h"

/* The targets of a coverage map (no GPU named, none found): every CC of the table, then
 * "newer GPUs", a CC past the newest (what PTX buys). out holds WS_MAX_TARGETS; returns
 * how many. */
size_t ws_coverage_targets(struct ws_target *out);

/* Parses one --gpu item: "sm_120", "sm_90a" (judged as sm_90), "compute_86", "12.0", "120",
 * "9.0", or a GPU name from the table (case-insensitive; spaces, dashes, underscores and the
 * prefixes "nvidia", "geforce", "tesla", "quadro", "jetson" are ignored; nvidia-smi suffixes
 * such as "-SXM4-80GB", "PCIe", "Laptop GPU" are tolerated). Returns 0, or -1 with a message
 * in err (WS_E_FORMAT) naming up to three closest table names. */
int ws_target_parse(const char *s, struct ws_target *t, struct ws_err *err);
/* Parses a comma-separated list into *out (malloc'd, free() it), count in *n. Duplicate
 * CCs are kept once. -1 + err on the first bad item or an empty list (format), more than
 * WS_MAX_TARGETS (limit) or out of memory. */
int ws_targets_parse_list(const char *list, struct ws_target **out, size_t *n, struct ws_err *err);

/* --driver: a CUDA version ("12.8", "13", "12.4.1") or a driver version ("570.124.06",
 * "570", "R570") -> the CUDA version it supports as 1000*major+10*minor (12080).
 * -1 + err (WS_E_FORMAT) on a bad value. */
int ws_driver_parse(const char *s, struct ws_err *err);

/* Minimum CUDA version whose driver JITs PTX ISA major.minor; 0 if the ISA is not in the
 * table (newer than any known, or a gap). ISAs older than the table map to its first row. */
int ws_ptx_isa_min_cuda(unsigned major, unsigned minor);
/* First CUDA toolkit able to compile SASS for arch (with suffix 'a', 'f' or 0); 0 if unknown. */
int ws_first_toolkit_for_arch(unsigned arch, char suffix);
/* Last CUDA toolkit that compiles SASS for arch; 0 = still supported (or unknown). */
int ws_last_toolkit_for_arch(unsigned arch);

/* Verdict of one entry for one target; driver_cuda 0 = assume a driver new enough.
 * WS_V_NATIVE / WS_V_COMPATIBLE for SASS that runs, WS_V_JIT for PTX that JITs,
 * WS_V_PTX_TOO_NEW for PTX whose ISA the driver is too old for, WS_V_NO_IMAGE when the
 * entry cannot serve this target (LTO-IR, opaque, unknown kind, wrong arch). */
enum ws_verdict ws_entry_verdict(const struct ws_entry *e, const struct ws_target *t, int driver_cuda);
/* What the driver would pick from a container (best SASS, else PTX). WS_V_NONE when the
 * container provably holds no kernels: nkernels == 0, no container error, and every entry
 * decoded with known kernels. */
enum ws_verdict ws_fatbin_verdict(const struct ws_fatbin *f, const struct ws_target *t, int driver_cuda);
/* Worst-of roll-up: NO_IMAGE > PTX_TOO_NEW > JIT > COMPATIBLE > NATIVE > NONE. */
enum ws_verdict ws_verdict_worst(enum ws_verdict a, enum ws_verdict b);

/* False only for a container that provably holds no kernels (nvcc's device-link output):
 * none listed, no container error, every entry decoded with known kernels. */
bool ws_fatbin_has_kernels(const struct ws_fatbin *f);
/* The CUDA driver a PTX ISA needs for the rules: a gap in the table takes the next newer
 * row, newer than the table is INT_MAX, ISA 0.0 (not recorded) is 0. */
int ws_isa_need_cuda(unsigned major, unsigned minor);
/* The PTX ISA that CUDA release cuda (12080) writes; 0.0 when unknown. */
void ws_cuda_ptx_isa(int cuda, unsigned *major, unsigned *minor);
/* The oldest driver (as a CUDA version) that runs code linked against CUDA runtime release
 * cuda under NVIDIA's minor-version compatibility: x.0 from CUDA 11 on (12.8 -> 12.0, i.e.
 * R525), the release itself before; 0 for 0. doc/compat-rules.md §4a. */
int ws_runtime_driver_floor(int cuda);
/* The newest CUDA any driver runs on a GPU of compute capability cc, for families whose
 * driver support ended (Kepler: R470, CUDA 11.4; Maxwell, Pascal, Volta: R580, 13.0), with
 * that branch in *branch (may be NULL); 0 when no last branch is known. §4b. */
int ws_gpu_last_driver(unsigned cc, int *branch);
/* True for the integrated (Jetson) GPUs: 5.3, 6.2, 7.2, 8.7 and 10.1. §1a. */
bool ws_cc_integrated(unsigned cc);
/* The first driver branch (570) that supports a CUDA version (12080); 0 if none known. */
int ws_driver_branch_for(int cuda);

/* ---- bundled run-time compilers (src/core/jitc.c) ---- */
/* Which bundled compiler a member path names (Triton's ptxas or ptxas-blackwell). */
enum ws_jitc ws_jitc_of_member(const char *member);
/* The CUDA release (12040) in "Cuda compilation tools, release 12.4" within p[0..n); 0 if
 * the bytes hold none. A match cut off at n is not found: callers overlap their chunks. */
int ws_jitc_find_release(const uint8_t *p, size_t n);
/* How far into a compiler's bytes its release text is looked for: CUDA 13.0's ptxas is
 * 37,741,528 bytes with the text first at byte 26,111,264 (in .rodata); beyond the bound a
 * member is read as any other, so an attacker's 4 GiB "ptxas" costs what its bytes under
 * another name cost, plus at most this much linear search. */
#define WS_JITC_SEARCH_MAX ((uint64_t)128 << 20)
/* The same, adding to *steps the bytes it compared after a 'C' (at most 2 n: the search is
 * linear whatever the bytes hold; test_compat holds it to that). */
int ws_jitc_find_release_counted(const uint8_t *p, size_t n, uint64_t *steps);
/* The artifact's compiler that makes code for t (ptxas-blackwell for sm_100 and newer when
 * bundled, else ptxas), or NULL. */
const struct ws_object *ws_jitc_for_target(const struct ws_artifact *a, const struct ws_target *t);
/* WS_V_JIT (reason WS_R_JIT_COMPILER) when o's release can target t, WS_V_NO_IMAGE with
 * WS_R_JIT_COMPILER_OLD or _DROPPED when it cannot, WS_V_NONE when unknown. */
enum ws_verdict ws_jitc_verdict(const struct ws_object *o, const struct ws_target *t, uint32_t *reason);

/* ---- judging (src/core/judge.c) ---- */
struct ws_remedy_ctx;
struct ws_judge_opts {
	int driver_cuda;      /* 0: assume a driver new enough */
	bool strict;          /* --strict: every loadable container with kernels must load */
	const struct ws_remedy_ctx *remedy;  /* with a build table: name the build to install */
};
/* Decides what every container is for on each target (role), and the verdicts, reasons,
 * explanations and advice of every container, object and artifact; groups alternatives
 * (objects whose names differ by a CUDA version token). Replaces an earlier judgement.
 * Returns 0, or -1 on allocation failure or nt > WS_MAX_TARGETS. */
int ws_judge(struct ws_artifact *a, const struct ws_target *t, size_t nt, const struct ws_judge_opts *opt);
/* --require: of the containers this object needs on target t (role REQUIRED there; in an
 * object of link inputs only, its link inputs with kernels), how many lack SASS for t's
 * exact arch. An alternative whose CUDA version cannot build t is exempt (returns 0 with
 * *considered 0). */
uint32_t ws_object_require_sass(const struct ws_object *o, const struct ws_target *t, bool strict,
				uint32_t *considered);
/* True when every container of o is a link input (a -dc object or archive). One pass
 * over the containers: callers compute it once per object, not once per container. */
bool ws_object_link_only(const struct ws_object *o);
/* The code a container stands for, target aside: loadable with kernels (role REQUIRED
 * before targets); in an object of link inputs only (link_only, from ws_object_link_only),
 * a link input with kernels (what its link will contain). --require-ptx and --baseline
 * look at these. Needs ws_judge's roles. */
bool ws_fatbin_carries_code(const struct ws_fatbin *f, bool link_only);

/* One line on why the worst of these containers gets its verdict for t, e.g.
 * "newest SASS sm_90, no PTX; sm_120 needs SASS sm_120 or PTX <= compute_120". */
void ws_explain(const struct ws_fatbin *const *fatbins, size_t nf, const struct ws_target *t,
		int driver_cuda, char *buf, size_t len);

/* Advice for a target: "needs a build made with CUDA >= 12.8"; with a wheel local tag such
 * as "cu124", also the tag of a build that would cover t ("cu128"), derived from the
 * toolkit table. Returns 0 and fills buf, -1 when there is no advice (unknown arch). */
int ws_advise(const struct ws_target *t, const char *local_tag, char *buf, size_t len);
/* Advice for code that fails on t, from the CUDA version it was built with (build_cuda,
 * 1000*major+10*minor; major_only when only "12.x" is known), whether it carries PTX, and
 * the wheel's local tag ("cu124" or NULL). Never suggests a CUDA version the build has.
 * Returns the reason (WS_R_PREDATES, WS_R_LEFT_OUT or WS_R_DROPPED) and fills buf; 0 with
 * ws_advise's text when build_cuda is 0 or t is not in the toolkit table. build_words, when
 * not NULL, says build_cuda is only a lower bound read from the PTX ISA and how to name it
 * ("12.5 or 12.6 (from its PTX ISA 8.5)"): the build then "may predate" a GPU. */
uint32_t ws_advise_build(const struct ws_target *t, int build_cuda, bool major_only, bool has_ptx,
			 const char *local_tag, const char *build_words, char *buf, size_t len);
/* A wheel local tag "cu124" / "cu92" / "cu12" -> CUDA version (12040), *major_only for
 * "cuNN" with NN in 10..19; 0 if not such a tag. */
int ws_cuda_tag_parse(const char *tag, bool *major_only);

#endif
