/* judge.c - what each container is for, and the verdicts built on it: roles per target,
 * the object and artifact roll-ups, alternatives, reasons, explanations and advice. Three
 * steps live beside it (judge_steps.h): the per-kernel gaps (judge_gaps.c), the sentences
 * and advice (judge_advice.c), the groups of alternatives (alternatives.c).
 *
 * A container is usually one translation unit. Whether a library fails on a GPU depends on
 * the containers it loads there, and libraries differ: most build every unit for one arch
 * list (PyTorch, most extensions); NVIDIA's math libraries, CUTLASS code, NCCL and ONNX
 * Runtime build some units for a subset of GPUs and pick kernels by compute capability at
 * run time (census in doc/guide.md, "How verdicts are decided"). The rule:
 *   1. Link inputs (relocatable; LTO-IR or nothing loadable) and containers that provably
 *      hold no kernels are never required.
 *   2. If no loadable container with kernels has an image for the target, the object will
 *      not run there, whatever the shapes of its containers.
 *   3. Otherwise a container without an image is code built for other GPUs (role OTHER_GPU),
 *      unless nothing in the object was built for the target's generation or newer (no SASS
 *      of its major or a higher one) and the container looks like one general arch list:
 *      not only a/f entries, more than one compute capability, its newest entry older than
 *      the target. (An earlier statement of this rule excused any a/f entry, doc/compat-rules.md
 *      §9; torch 2.5.1's cuSPARSELt 0.6 has sm_80+sm_86+sm_87+sm_90a containers, general
 *      lists with one Hopper entry, and that release did not support sm_120, so an a/f
 *      entry alone does not make a unit targeted.)
 *      Then it is required and fails: built before the target existed, or leaving it out
 *      (torch 2.5.1+cu124 on sm_120).
 *   4. A helper does not carry an object (WS_R_HELPER_ONLY): when the containers that serve
 *      the target are a small minority of the object's containers with kernels, by count
 *      (at most 1 in HELPER_COUNT) and by bytes (at most 1 in HELPER_BYTES), and every
 *      other one was built wholly for other GPUs (its oldest loadable entry newer than the
 *      target, or its newest older), the object will not run there: its code is for other
 *      GPUs, and the few that serve are generic helpers (torch 2.5.1's cuSPARSELt 0.6 has 1 sm_52+compute_52 container of 2,505,
 *      1 kernel of 7,569; the vendor supports 8.0+). The share is weighed by code_bytes(),
 *      which every mode reads, not by kernels, which --no-kernels does not decode past
 *      64 KiB: a verdict must not change with that flag (cuSPARSELt 0.7.1's helper, 1 of
 *      372 containers with 454 of 10,377 kernels, 4.4%, and 3.8% by code_bytes, was "will
 *      NOT run" on sm_75 by default and "runs" under --no-kernels when kernels were
 *      weighed). The census margins: cuBLASLt 13 on sm_75 is
 *      94 of 2,068 serving containers (over 1 in 100 by count: supported); cuDNN 9's
 *      precompiled engines on sm_70 are 2 of 1,047 with 2.7% of the kernels (CUDA 13
 *      supports 7.5+).
 *   5. --strict: every loadable container with kernels is required.
 * The rule is a heuristic about how a library chooses code; every verdict that rests on it
 * carries WS_R_OTHER_GPU and the count of containers it set aside.
 *
 * The artifact (judge_artifact) rolls its objects up, worst first, after two more steps:
 *   a. An object built only for other GPUs is set aside (WS_R_OBJECT_OTHER_GPU, verdict
 *      OTHER_GPU, its containers role OTHER_GPU) when it does not run on the target and
 *      another object of the artifact serves it, as such containers inside one object are:
 *      - an arch-specific object: every loadable entry of every container with kernels is
 *        'a' (FlashAttention-3's Hopper backend, sm_90a only, beside a main extension for
 *        6.0-9.0); any other object that serves the target is enough;
 *      - an object whose code all starts above the target (rule 4, or nothing serves and
 *        every container's oldest entry is newer): only a shared library or program, and
 *        only when one at least twice its size (in bytes) serves, the artifact's main code:
 *        a package's own extension built for newer GPUs only must still fail beside a small
 *        vendored library, and an archive's members are linked into one program. (torch
 *        2.5.1 calls its cuSPARSELt only on 8.0+; libtorch_cuda.so is 4.2 times its size.)
 *      Not under --strict.
 *   b. The headline (a->headline): the artifact's verdict is the worst object's, for gates
 *      and the exit status. Where that is JIT and the containers that only JIT are a small
 *      minority of the counted ones (at most 1 in MINORITY_SHARE, by count and by kernels),
 *      the verdict line words the rest's verdict, the main code's: torch 2.5.1 on an H100
 *      JITs only 1 of its 2,916 containers (in cuSPARSELt), so the line says "runs: native
 *      SASS (1 container in ... only through PTX JIT)" (WS_R_MINORITY, minority,
 *      minority_where). A failing verdict is never reworded. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_builds.h"
#include "judge_steps.h"

/* Target-independent facts about one container, computed once per object. */
struct shape {
	bool only_af;          /* every loadable entry is 'a' or 'f': built for specific GPUs */
	bool several_cc;       /* loadable entries for more than one compute capability */
	uint16_t newest;       /* highest arch among its loadable entries */
	uint16_t oldest;       /* lowest arch among its loadable entries */
};

/* Rule 4's bounds: the serving containers are at most 1 in HELPER_COUNT of the object's
 * containers with kernels and hold at most 1 in HELPER_BYTES of their bytes. */
#define HELPER_COUNT 100u
#define HELPER_BYTES 20u
/* Step b's bound: the containers that only JIT are at most 1 in MINORITY_SHARE. */
#define MINORITY_SHARE 20u

static enum ws_role static_role(const struct ws_fatbin *f)
{
	bool loadable = f->error != NULL;     /* damaged: never assume it is only a link input */
	if (f->relocatable)
		return WS_ROLE_LINK_INPUT;
	for (uint32_t i = 0; i < f->nentries && !loadable; i++)
		loadable = loadable_entry(&f->entries[i]);
	if (!loadable)
		return WS_ROLE_LINK_INPUT;
	if (!ws_fatbin_has_kernels(f))
		return WS_ROLE_NO_KERNELS;
	return WS_ROLE_REQUIRED;
}

static struct shape shape_of(const struct ws_fatbin *f)
{
	struct shape s = {.only_af = true};
	bool any = false;
	uint16_t first = 0;
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct ws_entry *e = &f->entries[i];
		if (!loadable_entry(e))
			continue;
		s.only_af &= ws_entry_suffix(e) != 0;
		if (any && e->arch != first)
			s.several_cc = true;
		if (!any)
			first = e->arch;
		any = true;
		if (e->arch > s.newest)
			s.newest = e->arch;
		if (!s.oldest || e->arch < s.oldest)
			s.oldest = e->arch;
	}
	return s;
}

/* Fills shapes[i] for every container; returns the highest SASS major among the
 * containers of role REQUIRED (what "built for the target's generation" looks at). */
static unsigned prepare_shapes(const struct ws_object *o, struct shape *shapes)
{
	unsigned max_major = 0;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct ws_fatbin *f = &o->fatbins[i];
		shapes[i] = shape_of(f);
		for (uint32_t e = 0; f->role == WS_ROLE_REQUIRED && e < f->nentries; e++)
			if (f->entries[e].kind == WS_KIND_SASS && !f->entries[e].opaque &&
			    f->entries[e].arch / 10u > max_major)
				max_major = f->entries[e].arch / 10u;
	}
	return max_major;
}

/* Rule 4's weight of a container: its bytes per loadable entry, about one GPU's copy of
 * its code (a container holds the same kernels once per arch). Sizes and entry lists are
 * read in every mode; kernels are not decoded past 64 KiB under --no-kernels. At most
 * 2^40 (a container's size is bounded far below), so sums over 2^24 containers hold. */
static uint64_t code_bytes(const struct ws_fatbin *f)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < f->nentries; i++)
		n += loadable_entry(&f->entries[i]);
	uint64_t b = f->size / (n ? n : 1);
	return b < ((uint64_t)1 << 40) ? b : (uint64_t)1 << 40;
}

/* Rule 4: only a helper serves t; every other container with kernels was built wholly for
 * other GPUs, newer (its oldest entry above t) or older (its newest below: a library built
 * for sm_80 alone, with a generic helper whose PTX JITs on sm_90). Fills *h when it holds. */
static bool helper_only(const struct ws_object *o, const struct shape *shapes, const struct ws_target *t,
			const enum ws_verdict *verdicts, const struct ws_judgement *j, struct helper *h)
{
	uint64_t all = 0, serving = 0;
	uint16_t from = 0, upto = 0;
	h->kernels = 0;
	h->kernels_unknown = false;
	if (!j->serving || j->serving == j->with_kernels || (uint64_t)j->serving * HELPER_COUNT > j->with_kernels)
		return false;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct ws_fatbin *f = &o->fatbins[i];
		if (f->role != WS_ROLE_REQUIRED)
			continue;
		uint64_t code = code_bytes(f);
		all += code;
		if (serves(verdicts[i])) {
			serving += code;
			if (f->nkernels && f->nkernels != UINT32_MAX && kernels_all_known(f))
				h->kernels += f->nkernels;
			else
				h->kernels_unknown = true;
		} else if (shapes[i].oldest > t->cc) {
			if (!from || shapes[i].oldest < from)
				from = shapes[i].oldest;
		} else if (shapes[i].newest < t->cc) {
			if (shapes[i].newest > upto)
				upto = shapes[i].newest;
		} else {
			return false;          /* spans the target and leaves it out: rule 3's to judge */
		}
	}
	if (serving > all / HELPER_BYTES)
		return false;
	h->from = from;
	h->upto = upto;
	return true;
}

/* The verdict and role of each container on one target, and the object's verdict. */
struct pass {
	const struct ws_object *o;
	const struct shape *shapes;
	unsigned max_sass_major;      /* over REQUIRED containers' SASS; 0 if none */
	const struct ws_target *t;
	int driver_cuda;
	bool strict;
};

/* Fills roles[i] and verdicts[i] for every container and the counts in *j (and *h when
 * rule 4 holds, h may be NULL); returns the object's verdict (before the driver check). */
static enum ws_verdict judge_pass(const struct pass *p, enum ws_role *roles, enum ws_verdict *verdicts,
				  struct ws_judgement *j, struct helper *h)
{
	const struct ws_object *o = p->o;
	enum ws_verdict worst = WS_V_NONE;
	bool generation = p->max_sass_major >= p->t->cc / 10u;
	struct helper scratch;

	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct ws_fatbin *f = &o->fatbins[i];
		roles[i] = f->role;
		verdicts[i] = WS_V_NONE;
		if (f->role != WS_ROLE_REQUIRED)
			continue;
		verdicts[i] = ws_fatbin_verdict(f, p->t, p->driver_cuda);
		j->with_kernels++;
		j->serving += serves(verdicts[i]);
	}
	bool helper = !p->strict && helper_only(o, p->shapes, p->t, verdicts, j, h ? h : &scratch);
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct shape *s = &p->shapes[i];
		if (roles[i] != WS_ROLE_REQUIRED)
			continue;
		if (!serves(verdicts[i]) && j->serving && !p->strict && !helper &&
		    (generation || s->only_af || !s->several_cc || s->newest >= p->t->cc)) {
			roles[i] = WS_ROLE_OTHER_GPU;
			verdicts[i] = WS_V_OTHER_GPU;
			j->other_gpu++;
			continue;
		}
		if (ws_verdict_fails(verdicts[i]))
			j->failing++;
		worst = ws_verdict_worst(worst, verdicts[i]);
	}
	if (j->with_kernels && !j->serving)
		j->reasons |= WS_R_NOTHING_SERVES;
	if (helper)
		j->reasons |= WS_R_HELPER_ONLY;
	if (j->other_gpu)
		j->reasons |= WS_R_OTHER_GPU;
	if (p->strict)
		j->reasons |= WS_R_STRICT;
	if (worst == WS_V_JIT)
		j->reasons |= WS_R_JIT;
	if (worst == WS_V_PTX_TOO_NEW)
		j->reasons |= WS_R_PTX_DRIVER;
	return worst;
}

/* ---- objects ---------------------------------------------------------------------- */

static int judge_object(struct ws_object *o, const struct ws_target *t, size_t nt,
			const struct ws_judge_opts *opt, const struct ws_wheel_info *wheel, int build_hint)
{
	struct shape *shapes = NULL;
	uint8_t *mark = NULL;
	int rc = -1;
	struct pass p = {.o = o, .driver_cuda = opt->driver_cuda, .strict = opt->strict};

	if (!(o->verdicts = ws_calloc(nt, sizeof *o->verdicts)) || !(o->judged = ws_calloc(nt, sizeof *o->judged)))
		return -1;
	o->njudged = (uint16_t)nt;
	if (o->nfatbins && !(shapes = ws_calloc(o->nfatbins, sizeof *shapes)))
		return -1;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		struct ws_fatbin *f = &o->fatbins[i];
		if (!(f->roles = ws_calloc(nt, sizeof *f->roles)) || !(f->verdicts = ws_calloc(nt, sizeof *f->verdicts)))
			goto out;
		f->njudged = (uint16_t)nt;
	}
	if (o->nfatbins)
		p.max_sass_major = prepare_shapes(o, shapes);
	p.shapes = shapes;
	enum ws_role *roles = ws_calloc(o->nfatbins ? o->nfatbins : 1, sizeof *roles);
	enum ws_verdict *verdicts = ws_calloc(o->nfatbins ? o->nfatbins : 1, sizeof *verdicts);
	if (!roles || !verdicts) {
		free(roles);
		free(verdicts);
		goto out;
	}
	for (size_t k = 0; k < nt; k++) {
		struct ws_judgement *j = &o->judged[k];
		struct helper h = {0};
		p.t = &t[k];
		enum ws_verdict v = judge_pass(&p, roles, verdicts, j, &h);
		for (uint32_t i = 0; i < o->nfatbins; i++) {
			o->fatbins[i].roles[k] = roles[i];
			o->fatbins[i].verdicts[k] = verdicts[i];
		}
		/* doc/compat-rules.md §6: a driver older than the GPU's first CUDA cannot run anything on it */
		int first = ws_first_toolkit_for_arch(t[k].cc, 0);
		if (v != WS_V_NONE && opt->driver_cuda > 0 && first > opt->driver_cuda) {
			v = WS_V_NO_IMAGE;
			j->reasons |= WS_R_DRIVER_GPU;
		}
		/* §4a: code linked against CUDA runtime major M needs a driver of major M or newer,
		 * SASS as much as PTX (minor-version compatibility holds within a major only) */
		if (v != WS_V_NONE && !(j->reasons & WS_R_DRIVER_GPU) && opt->driver_cuda > 0) {
			const char *source;
			int runtime = ws_judge_object_runtime(o, wheel, build_hint, &source);
			if (runtime && ws_runtime_driver_floor(runtime) > opt->driver_cuda) {
				v = WS_V_NO_IMAGE;
				j->reasons |= WS_R_DRIVER_RUNTIME;
			}
		}
		o->verdicts[k] = v;
		if (ws_judge_gaps(o, k, &t[k], opt->driver_cuda, &mark, nt) < 0 ||
		    ws_judge_describe_object(o, k, &t[k], v, opt, wheel, build_hint) < 0 ||
		    (v == WS_V_NONE && ws_judge_describe_link_only(o, k) < 0) ||
		    ((j->reasons & WS_R_HELPER_ONLY) && ws_judge_describe_helper(j, &t[k], &h) < 0)) {
			free(roles);
			free(verdicts);
			goto out;
		}
	}
	free(roles);
	free(verdicts);
	rc = 0;
out:
	free(shapes);
	free(mark);
	return rc;
}

/* ---- artifacts -------------------------------------------------------------------- */

/* Step a's first kind: every loadable entry of every container with kernels is 'a'. */
static bool arch_specific(const struct ws_object *o)
{
	bool any = false;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct ws_fatbin *f = &o->fatbins[i];
		if (f->role != WS_ROLE_REQUIRED)
			continue;
		for (uint32_t e = 0; e < f->nentries; e++)
			if (loadable_entry(&f->entries[e]) && ws_entry_suffix(&f->entries[e]) != 'a')
				return false;
		any = true;
	}
	return any;
}

/* Step a's second kind: the object's code starts above t (rule 4, or nothing serves and
 * every container with kernels is newer); *from gets the oldest arch of that code. */
static bool newer_only(const struct ws_object *o, size_t k, const struct ws_target *t, uint16_t *from)
{
	const struct ws_judgement *j = &o->judged[k];
	bool any = false;
	*from = 0;
	if (!(j->reasons & (WS_R_HELPER_ONLY | WS_R_NOTHING_SERVES)))
		return false;
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		const struct ws_fatbin *f = &o->fatbins[i];
		if (f->role != WS_ROLE_REQUIRED || serves(f->verdicts[k]))
			continue;                  /* a serving one is rule 4's helper */
		uint16_t oldest = shape_of(f).oldest;
		if (oldest <= t->cc)
			return false;
		if (!*from || oldest < *from)
			*from = oldest;
		any = true;
	}
	return any;
}

/* A shared library or program: loaded on its own, where an archive's members are linked
 * into one program together. */
static bool loaded_alone(const struct ws_object *o)
{
	return o->type == WS_OBJ_ELF_SO || o->type == WS_OBJ_ELF_EXEC || o->type == WS_OBJ_PE_DLL ||
	       o->type == WS_OBJ_PE_EXE;
}

/* Step a on target k: sets aside the objects built only for other GPUs that do not run
 * there, when another object of the artifact serves it. */
static int set_aside(struct ws_artifact *a, size_t k, const struct ws_target *t)
{
	/* the largest object that serves t, and the largest shared library or program that
	 * does: one pass, so that a hostile artifact of many objects costs n, not n^2 (an
	 * object set aside fails t, so it is never its own server) */
	const struct ws_object *any = NULL, *alone = NULL;
	for (uint32_t s = 0; s < a->nobjects; s++) {
		const struct ws_object *x = &a->objects[s];
		if (!x->verdicts || !serves(x->verdicts[k]) ||
		    (x->alt_group && !serves(a->alts[x->alt_group - 1].verdicts[k])))
			continue;
		if (!any || x->size > any->size)
			any = x;
		if (loaded_alone(x) && (!alone || x->size > alone->size))
			alone = x;
	}
	for (uint32_t i = 0; any && i < a->nobjects; i++) {
		struct ws_object *o = &a->objects[i];
		struct ws_judgement *j = &o->judged[k];
		uint16_t from = 0;
		if (o->alt_group || o->verdicts[k] != WS_V_NO_IMAGE || (j->reasons & (WS_R_DRIVER_GPU | WS_R_STRICT)))
			continue;
		bool specific = (j->reasons & WS_R_NOTHING_SERVES) && arch_specific(o);
		if (!specific && !newer_only(o, k, t, &from))
			continue;
		const struct ws_object *server = specific ? any : alone;
		/* code for newer GPUs: its own code may be the package's main code unless an object
		 * at least twice its size serves; an archive's members are linked together */
		if (!server || (!specific && (server->size / 2 < o->size || !loaded_alone(o))))
			continue;
		uint32_t moved = 0;
		char list[160] = "", why[640];
		for (uint32_t c = 0; c < o->nfatbins; c++) {
			struct ws_fatbin *f = &o->fatbins[c];
			if (f->roles[k] != WS_ROLE_REQUIRED)
				continue;
			if (!list[0])
				ws_judge_arch_list(f, list, sizeof list);
			f->roles[k] = WS_ROLE_OTHER_GPU;
			f->verdicts[k] = WS_V_OTHER_GPU;
			if (f->gaps) {
				free(f->gaps[k].kernels);
				memset(&f->gaps[k], 0, sizeof f->gaps[k]);
			}
			moved++;
		}
		const char *sname = server->member ? server->member : a->path ? a->path : "";
		if (specific)
			snprintf(why, sizeof why, "built only for other GPUs (every entry arch-specific: %s); %s serves %s",
				 list, sname, t->name);
		else if (j->reasons & WS_R_HELPER_ONLY)
			snprintf(why, sizeof why, "built for sm_%u and newer (%s); %s, an object at least twice its size, serves %s",
				 from, j->why ? j->why : "", sname, t->name);
		else
			snprintf(why, sizeof why, "built for sm_%u and newer; %s, an object at least twice its size, "
				 "serves %s", from, sname, t->name);
		char *w = ws_strdup(why);
		if (!w)
			return -1;
		free(j->why);
		free(j->advice);
		j->why = w;
		j->advice = NULL;
		j->other_gpu += moved;
		j->failing = 0;
		j->kernel_gaps = 0;
		j->build_cuda = 0;
		j->reasons &= ~(uint32_t)(WS_R_NOTHING_SERVES | WS_R_PREDATES | WS_R_LEFT_OUT | WS_R_DROPPED |
					   WS_R_KERNELS_ASSUMED | WS_R_JIT | WS_R_PTX_DRIVER | WS_R_KERNEL_GAPS);
		j->reasons |= WS_R_OTHER_GPU | WS_R_OBJECT_OTHER_GPU;
		o->verdicts[k] = WS_V_OTHER_GPU;
	}
	return 0;
}

/* Step b on target k, after the roll-up: where the worst is JIT and the containers that
 * only JIT are a small minority of the counted containers with kernels (at most 1 in
 * MINORITY_SHARE by count, and by kernels where every count is known), the headline is the
 * worst verdict of the rest, the artifact's main code; the minority is counted and named.
 * used[] holds the counted objects. */
static int headline(struct ws_artifact *a, size_t k, const uint32_t *used, size_t nused)
{
	struct ws_judgement *j = &a->judged[k];
	enum ws_verdict v = a->verdicts[k], rest = WS_V_NONE;
	uint64_t all = 0, jit = 0, kall = 0, kjit = 0;
	bool known = true;
	a->headline[k] = v;
	if (v != WS_V_JIT)
		return 0;              /* a failing verdict is never reworded; SASS runs as it is */
	for (size_t u = 0; u < nused; u++) {
		const struct ws_object *o = &a->objects[used[u]];
		for (uint32_t c = 0; c < o->nfatbins; c++) {
			const struct ws_fatbin *f = &o->fatbins[c];
			if (f->roles[k] != WS_ROLE_REQUIRED)
				continue;
			uint64_t nk = f->nkernels == UINT32_MAX ? 0 : f->nkernels;
			known &= nk != 0;
			all++;
			kall += nk;
			if (f->verdicts[k] == WS_V_JIT) {
				jit++;
				kjit += nk;
			} else {
				rest = ws_verdict_worst(rest, f->verdicts[k]);
			}
		}
	}
	if (!jit || !serves(rest) || rest == WS_V_JIT || jit * MINORITY_SHARE > all ||
	    (known && kjit * MINORITY_SHARE > kall))
		return 0;
	char names[512] = "";
	size_t pos = 0, nobj = 0;
	for (size_t u = 0; u < nused; u++) {
		const struct ws_object *o = &a->objects[used[u]];
		if (o->verdicts[k] != WS_V_JIT)
			continue;
		if (nobj++ < 2 && pos < sizeof names) {
			int w = snprintf(names + pos, sizeof names - pos, "%s%s", pos ? ", " : "",
					 o->member ? o->member : a->path ? a->path : "");
			pos = w < 0 ? sizeof names : pos + (size_t)w;
		}
	}
	char more[48] = "", buf[640];
	if (nobj > 2)
		snprintf(more, sizeof more, " and %zu more object%s", nobj - 2, nobj == 3 ? "" : "s");
	snprintf(buf, sizeof buf, "%llu container%s in %s%s only through PTX JIT", (unsigned long long)jit,
		 jit == 1 ? "" : "s", names, more);
	if (!(j->minority_where = ws_strdup(buf)))
		return -1;
	j->minority = (uint32_t)jit;
	j->reasons |= WS_R_MINORITY;
	a->headline[k] = rest;
	return 0;
}

/* A bundled compiler (Triton's ptxas) makes code at run time: whether its release can target
 * t is judged like a PTX entry's ISA. It decides the artifact where its own device code does
 * not already fail. */
static int judge_jitc(struct ws_artifact *a, size_t k, const struct ws_target *t)
{
	struct ws_judgement *j = &a->judged[k];
	struct ws_object *c = (struct ws_object *)ws_jitc_for_target(a, t);
	uint32_t reason;
	enum ws_verdict v = ws_jitc_verdict(c, t, &reason);
	if (v == WS_V_NONE || !c->verdicts)
		return 0;
	char cv[16], fv[16], what[512], advice[256] = "";
	int first = ws_first_toolkit_for_arch(t->cc, 0), last = ws_last_toolkit_for_arch(t->cc);
	ws_cuda_str(c->jitc_cuda, cv, sizeof cv);
	int w = snprintf(what, sizeof what, "Triton compiles its kernels at run time with this ptxas from CUDA %s, ", cv);
	size_t at = w < 0 ? 0 : (size_t)w < sizeof what ? (size_t)w : sizeof what - 1;
	if (reason == WS_R_JIT_COMPILER_OLD) {
		snprintf(what + at, sizeof what - at, "which predates %s (first in CUDA %s): torch.compile and Triton "
			 "kernels fail ('%s' is not a recognized processor)", t->name, ws_cuda_str(first, fv, sizeof fv), t->name);
		snprintf(advice, sizeof advice, "install a Triton whose bundled ptxas is from CUDA >= %s", fv);
	} else if (reason == WS_R_JIT_COMPILER_DROPPED) {
		snprintf(what + at, sizeof what - at, "which dropped %s (last in CUDA %s): torch.compile and Triton "
			 "kernels fail", t->name, ws_cuda_str(last, fv, sizeof fv));
		snprintf(advice, sizeof advice, "install a Triton whose bundled ptxas is from CUDA %s or older", fv);
	} else {
		snprintf(what + at, sizeof what - at, "which can target %s", t->name);
	}
	/* the compiler is the object that gates and reports name */
	struct ws_judgement *cj = &c->judged[k];
	c->verdicts[k] = v;
	cj->reasons |= reason;
	cj->build_cuda = c->jitc_cuda;
	if (!(cj->why = ws_strdup(what)) || (advice[0] && !(cj->advice = ws_strdup(advice))))
		return -1;
	bool code_fails = ws_verdict_fails(a->verdicts[k]) != 0;
	j->reasons |= reason;
	a->verdicts[k] = ws_verdict_worst(a->verdicts[k], v);
	if (ws_verdict_fails(v) ? !ws_verdict_fails(a->headline[k]) : a->headline[k] == WS_V_NONE)
		a->headline[k] = v;
	if (code_fails || (j->why && !ws_verdict_fails(v)))
		return 0;                  /* the device code's own failure, or its reason, stays first */
	const char *name = c->member ? c->member : a->path ? a->path : "";
	size_t len = strlen(name) + strlen(what) + 3;
	free(j->why);
	free(j->advice);
	j->advice = NULL;
	j->build_cuda = c->jitc_cuda;
	if (!(j->why = ws_malloc(len)) || (advice[0] && !(j->advice = ws_strdup(advice))))
		return -1;
	snprintf(j->why, len, "%s: %s", name, what);
	return 0;
}

static int judge_artifact(struct ws_artifact *a, const struct ws_target *t, size_t nt, const struct ws_judge_opts *opt)
{
	int driver_cuda = opt->driver_cuda;
	uint32_t *used;
	if (!(a->verdicts = ws_calloc(nt, sizeof *a->verdicts)) || !(a->judged = ws_calloc(nt, sizeof *a->judged)) ||
	    !(a->headline = ws_calloc(nt, sizeof *a->headline)))
		return -1;
	a->njudged = (uint16_t)nt;
	for (uint32_t g = 0; g < a->nalts; g++)
		if (!(a->alts[g].verdicts = ws_calloc(nt, sizeof *a->alts[g].verdicts)))
			return -1;
	if (!(used = ws_calloc(a->nobjects ? a->nobjects : 1, sizeof *used)))
		return -1;
	for (size_t k = 0; k < nt; k++) {
		struct ws_judgement *j = &a->judged[k];
		const struct ws_object *decider = NULL;
		enum ws_verdict v = WS_V_NONE;
		size_t nused = 0;
		for (uint32_t g = 0; g < a->nalts; g++) {
			uint32_t best = 0;
			a->alts[g].verdicts[k] = ws_judge_group_verdict(a, &a->alts[g], k, driver_cuda, &best);
			if (a->alts[g].verdicts[k] != WS_V_NONE)
				j->reasons |= WS_R_ALTERNATIVES;
		}
		if (!opt->strict && set_aside(a, k, &t[k]) < 0)
			goto fail;
		for (uint32_t i = 0; i < a->nobjects; i++) {
			const struct ws_object *o = &a->objects[i];
			enum ws_verdict ov = o->verdicts[k];
			if (o->alt_group) {
				uint32_t best = 0;
				const struct ws_altgroup *g = &a->alts[o->alt_group - 1];
				if (g->objects[0] != i)
					continue;          /* a group counts once, by its first member */
				ov = ws_judge_group_verdict(a, g, k, driver_cuda, &best);
				if (ov == WS_V_NONE)
					continue;
				o = &a->objects[best];
			}
			if (ov == WS_V_NONE)
				continue;
			used[nused++] = (uint32_t)(o - a->objects);
			j->objects++;
			j->objects_failing += ws_verdict_fails(ov) != 0;
			j->with_kernels += o->judged[k].with_kernels;
			j->serving += o->judged[k].serving;
			j->failing += o->judged[k].failing;
			j->other_gpu += o->judged[k].other_gpu;
			j->kernel_gaps += o->judged[k].kernel_gaps;
			if (ov == WS_V_JIT && o->judged[k].jit_driver_cuda > j->jit_driver_cuda)
				j->jit_driver_cuda = o->judged[k].jit_driver_cuda;
			if (ov == WS_V_JIT && o->judged[k].jit_from > j->jit_from)
				j->jit_from = o->judged[k].jit_from;
			j->reasons |= o->judged[k].reasons & ~(uint32_t)WS_R_LINK_INPUTS_ONLY;
			/* the object that decides is the worst; among equals, one whose failure rests
			 * on rule 4 last, then the one with the most failing containers (torch's
			 * libtorch_cuda.so, not a bundled helper library) */
			bool oh = o->judged[k].reasons & WS_R_HELPER_ONLY;
			bool dh = decider && (decider->judged[k].reasons & WS_R_HELPER_ONLY);
			if (!decider || ws_verdict_rank(ov) > ws_verdict_rank(v) ||
			    (ws_verdict_rank(ov) == ws_verdict_rank(v) &&
			     (oh != dh ? dh : o->judged[k].failing > decider->judged[k].failing)))
				decider = o;
			v = ws_verdict_worst(v, ov);
		}
		a->verdicts[k] = v;
		for (uint32_t i = 0; v == WS_V_NONE && i < a->nobjects; i++)
			j->reasons |= a->objects[i].judged[k].reasons & WS_R_LINK_INPUTS_ONLY;
		if (decider && decider->judged[k].why && (ws_verdict_fails(v) || v == WS_V_JIT)) {
			const char *name = decider->member ? decider->member : a->path ? a->path : "";
			size_t len = strlen(name) + strlen(decider->judged[k].why) + 3;
			if (!(j->why = ws_malloc(len)))
				goto fail;
			snprintf(j->why, len, "%s: %s", name, decider->judged[k].why);
			j->build_cuda = decider->judged[k].build_cuda;
			if (decider->judged[k].advice && !(j->advice = ws_strdup(decider->judged[k].advice)))
				goto fail;
		}
		if (headline(a, k, used, nused) < 0 || judge_jitc(a, k, &t[k]) < 0)
			goto fail;
		ws_judge_compatible_sass(a, k, &t[k]);
	}
	free(used);
	return 0;
fail:
	free(used);
	return -1;
}

int ws_judge(struct ws_artifact *a, const struct ws_target *t, size_t nt, const struct ws_judge_opts *opt)
{
	struct ws_judge_opts none = {0};
	if (!a)
		return 0;
	if (nt > WS_MAX_TARGETS || (nt && !t))
		return -1;
	if (!opt)
		opt = &none;
	ws_artifact_unjudge(a);
	/* roles and alternatives do not depend on a target: --require uses them too */
	for (uint32_t i = 0; i < a->nobjects; i++)
		for (uint32_t k = 0; k < a->objects[i].nfatbins; k++)
			a->objects[i].fatbins[k].role = static_role(&a->objects[i].fatbins[k]);
	if (ws_judge_find_alternatives(a) < 0)
		return -1;
	if (nt == 0)
		return 0;
	for (uint32_t i = 0; i < a->nobjects; i++)
		if (judge_object(&a->objects[i], t, nt, opt, a->wheel, a->build_cuda_hint) < 0)
			return -1;
	if (judge_artifact(a, t, nt, opt) < 0)
		return -1;
	return opt->remedy ? ws_remedy_attach(a, t, nt, opt->remedy) : 0;
}

/* ---- gates and names ---------------------------------------------------------------- */

static bool has_sass(const struct ws_fatbin *f, unsigned arch)
{
	for (uint32_t i = 0; i < f->nentries; i++)
		if (f->entries[i].kind == WS_KIND_SASS && f->entries[i].arch == arch)
			return true;
	return false;
}

bool ws_object_link_only(const struct ws_object *o)
{
	for (uint32_t i = 0; i < o->nfatbins; i++)
		if (o->fatbins[i].role != WS_ROLE_LINK_INPUT)
			return false;
	return true;
}

bool ws_fatbin_carries_code(const struct ws_fatbin *f, bool link_only)
{
	return link_only ? ws_fatbin_has_kernels(f) : f->role == WS_ROLE_REQUIRED;
}

uint32_t ws_object_require_sass(const struct ws_object *o, const struct ws_target *t, bool strict,
				uint32_t *considered)
{
	struct ws_judge_opts opt = {.strict = strict};
	uint32_t missing = 0, link = 0;
	*considered = 0;
	if (!o->nfatbins)
		return 0;
	/* an alternative whose CUDA cannot build this arch cannot be asked to carry it (doc/compat-rules.md §6) */
	if (o->alt_group) {
		int first = ws_first_toolkit_for_arch(t->cc, 0), last = ws_last_toolkit_for_arch(t->cc);
		int hi = o->alt_major_only ? o->alt_cuda + 990 : o->alt_cuda;
		if ((first && hi < first) || (last && o->alt_cuda > last))
			return 0;
	}
	for (uint32_t i = 0; i < o->nfatbins; i++)
		link += o->fatbins[i].role == WS_ROLE_LINK_INPUT;
	if (link == o->nfatbins) {
		/* a -dc object or archive: what its link will contain is what it carries */
		for (uint32_t i = 0; i < o->nfatbins; i++)
			if (ws_fatbin_carries_code(&o->fatbins[i], true)) {
				(*considered)++;
				missing += !has_sass(&o->fatbins[i], t->cc);
			}
		return missing;
	}
	enum ws_role *roles = ws_calloc(o->nfatbins, sizeof *roles);
	enum ws_verdict *verdicts = ws_calloc(o->nfatbins, sizeof *verdicts);
	struct shape *shapes = ws_calloc(o->nfatbins, sizeof *shapes);
	struct ws_judgement j = {0};
	struct pass p = {.o = o, .t = t, .strict = opt.strict, .shapes = shapes};
	if (roles && verdicts && shapes) {
		p.max_sass_major = prepare_shapes(o, shapes);
		judge_pass(&p, roles, verdicts, &j, NULL);
		for (uint32_t i = 0; i < o->nfatbins; i++)
			if (roles[i] == WS_ROLE_REQUIRED) {
				(*considered)++;
				missing += !has_sass(&o->fatbins[i], t->cc);
			}
	}
	free(roles);
	free(verdicts);
	free(shapes);
	return missing;
}

bool ws_object_excused(const struct ws_artifact *a, const struct ws_object *o, size_t t)
{
	return o->alt_group && a->alts && a->alts[o->alt_group - 1].verdicts &&
	       !ws_verdict_fails(a->alts[o->alt_group - 1].verdicts[t]);
}

const char *ws_reason_name(uint32_t bit)
{
	switch (bit) {
	case WS_R_NOTHING_SERVES: return "nothing-serves";
	case WS_R_PREDATES: return "build-predates-gpu";
	case WS_R_LEFT_OUT: return "build-left-out-gpu";
	case WS_R_DROPPED: return "build-dropped-gpu";
	case WS_R_PTX_DRIVER: return "ptx-needs-newer-driver";
	case WS_R_DRIVER_GPU: return "driver-older-than-gpu";
	case WS_R_DRIVER_RUNTIME: return "driver-older-than-runtime";
	case WS_R_OTHER_GPU: return "other-gpu-containers";
	case WS_R_JIT: return "ptx-jit";
	case WS_R_KERNELS_ASSUMED: return "kernels-assumed";
	case WS_R_STRICT: return "strict";
	case WS_R_ALTERNATIVES: return "alternatives";
	case WS_R_LINK_INPUTS_ONLY: return "link-inputs-only";
	case WS_R_KERNEL_GAPS: return "kernel-gaps";
	case WS_R_HELPER_ONLY: return "helper-only";
	case WS_R_OBJECT_OTHER_GPU: return "object-other-gpu";
	case WS_R_MINORITY: return "minority";
	case WS_R_JIT_COMPILER: return "jit-compiler";
	case WS_R_JIT_COMPILER_OLD: return "jit-compiler-predates-gpu";
	case WS_R_JIT_COMPILER_DROPPED: return "jit-compiler-dropped-gpu";
	}
	return NULL;
}

const char *ws_role_name(enum ws_role r)
{
	switch (r) {
	case WS_ROLE_REQUIRED: return "required";
	case WS_ROLE_OTHER_GPU: return "other-gpu";
	case WS_ROLE_LINK_INPUT: return "link-input";
	case WS_ROLE_NO_KERNELS: return "no-kernels";
	}
	return "unknown";
}
