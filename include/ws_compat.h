/* ws_compat.h - the compatibility rules (pure: no I/O besides ws_gpus_print):
 * target GPUs, driver versions, per-entry / per-container verdicts, explanations
 * and advice. Sources of every rule and table: ../shared/compat-rules.md. */
#ifndef WS_COMPAT_H
#define WS_COMPAT_H

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

/* Parses one --gpu item: "sm_120", "sm_90a" (judged as sm_90), "compute_86", "12.0", "120",
 * "9.0", or a GPU name from the table (case-insensitive; spaces, dashes, underscores and the
 * prefixes "nvidia", "geforce", "tesla", "quadro", "jetson" are ignored; nvidia-smi suffixes
 * such as "-SXM4-80GB", "PCIe", "Laptop GPU" are tolerated). Returns 0, or -1 with a message
 * in err naming up to three closest table names. */
int ws_target_parse(const char *s, struct ws_target *t, char *err, size_t errlen);
/* Parses a comma-separated list into *out (malloc'd, free() it), count in *n. Duplicate
 * CCs are kept once. -1 + err on the first bad item or an empty list. */
int ws_targets_parse_list(const char *list, struct ws_target **out, size_t *n, char *err, size_t errlen);
/* --list-gpus: the table, one line per CC. */
void ws_gpus_print(FILE *f);

/* --driver: a CUDA version ("12.8", "13", "12.4.1") or a driver version ("570.124.06",
 * "570", "R570") -> the CUDA version it supports as 1000*major+10*minor (12080).
 * -1 + err on a bad value. */
int ws_driver_parse(const char *s, char *err, size_t errlen);
/* Writes a CUDA version (12080) as "12.8" into buf; returns buf. */
char *ws_cuda_str(int cuda, char *buf, size_t len);

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
/* "native", "compatible", "jit", "ptx-too-new", "no-image", "none". */
const char *ws_verdict_name(enum ws_verdict v);
/* True for the verdicts that fail a --gpu gate (no-image, ptx-too-new). */
int ws_verdict_fails(enum ws_verdict v);

/* Fills the verdicts arrays (malloc'd, nt entries; old ones freed) on every fatbin, object
 * and artifact. Relocatable containers are judged like the others: their device code is
 * what the final link can contain. Objects/artifacts roll up their containers with
 * ws_verdict_worst; containers without kernels (WS_V_NONE) drop out by construction.
 * Returns 0, or -1 on allocation failure or nt > WS_MAX_TARGETS. */
/* False only for a container that provably holds no kernels (nvcc's device-link output):
 * none listed, no container error, every entry decoded with known kernels. */
bool ws_fatbin_has_kernels(const struct ws_fatbin *f);
/* Whether f counts in its object's roll-up: relocatable containers (link inputs, never
 * loaded) count only in an object that holds no loadable container. */
bool ws_fatbin_in_rollup(const struct ws_object *o, const struct ws_fatbin *f);
int ws_judge(struct ws_artifact *a, const struct ws_target *t, size_t nt, int driver_cuda);

/* One line on why the worst of these containers gets its verdict for t, e.g.
 * "newest SASS sm_90, no PTX; sm_120 needs SASS sm_120 or PTX <= compute_120". */
void ws_explain(const struct ws_fatbin *const *fatbins, size_t nf, const struct ws_target *t,
		int driver_cuda, char *buf, size_t len);

/* Advice for a target: "needs a build made with CUDA >= 12.8"; with a wheel local tag such
 * as "cu124", also the tag of a build that would cover t ("cu128"), derived from the
 * toolkit table. Returns 0 and fills buf, -1 when there is no advice (unknown arch). */
int ws_advise(const struct ws_target *t, const char *local_tag, char *buf, size_t len);

#endif
