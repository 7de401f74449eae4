/* compat.c - the pure compatibility rules: entry x target x driver -> verdict, plus the
 * CUDA tables they need (PTX ISA, driver branches, toolkit support), explanations and advice.
 * Every rule cites doc/compat-rules.md ("§N" below); facts not confirmed there or
 * here are marked "unverified". */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_compat.h"
#include "ws_quote.h"

/* ---- tables ------------------------------------------------------------------------- */

/* PTX ISA -> minimum CUDA driver (§4, from NVIDIA cuda-python _ptx_utils.py).
 * Rows before 6.0 are from the PTX ISA release history as remembered: unverified; they
 * only matter for drivers older than CUDA 9. nvcc 13.0 here emits ".version 9.0". */
static const struct { uint8_t major, minor; int cuda; } ptx_isa[] = {
	{3, 1, 5000}, {3, 2, 5050}, {4, 0, 6000}, {4, 1, 6050}, {4, 2, 7000}, {4, 3, 7050},
	{5, 0, 8000},                                                    /* unverified */
	{6, 0, 9000}, {6, 1, 9010}, {6, 2, 9020}, {6, 3, 10000}, {6, 4, 10010}, {6, 5, 10020},
	{7, 0, 11000}, {7, 1, 11010}, {7, 2, 11020}, {7, 3, 11030}, {7, 4, 11040},
	{7, 5, 11050}, {7, 6, 11060}, {7, 7, 11070}, {7, 8, 11080},
	{8, 0, 12000}, {8, 1, 12010}, {8, 2, 12020}, {8, 3, 12030}, {8, 4, 12040},
	{8, 5, 12050}, {8, 6, 12070}, {8, 7, 12080}, {8, 8, 12090},
	{9, 0, 13000}, {9, 1, 13010},
	{9, 2, 13020},   /* seen in bytes: torchvision 0.29.2's PTX beside cubins of "release 13.2" */
};
#define NPTX (sizeof ptx_isa / sizeof ptx_isa[0])

/* Driver branch -> CUDA version it supports (§4: R525..R580 from the CUDA release notes'
 * driver table). R530, R545, R555 and every branch before R525 are from the same release
 * notes as remembered: unverified. A driver between branches maps to the lower one, which
 * can only understate what it supports; drivers newer than R580 map to 13.0 likewise. */
static const struct { uint16_t branch; int cuda; } drivers[] = {
	{384, 9000}, {390, 9010}, {396, 9020}, {410, 10000}, {418, 10010}, {440, 10020},
	{450, 11000}, {455, 11010}, {460, 11020}, {465, 11030}, {470, 11040}, {495, 11050},
	{510, 11060}, {515, 11070}, {520, 11080},
	{525, 12000}, {530, 12010}, {535, 12020}, {545, 12030}, {550, 12040}, {555, 12050},
	{560, 12060}, {570, 12080}, {575, 12090}, {580, 13000},
	{590, 13010}, {595, 13020},   /* CUDA 13.2 Update 2 release notes, "Corresponding Driver Versions" */
};

/* SASS target -> first CUDA toolkit that compiles it, last one that still does (0 = current).
 * §6. Splits §6 gives only as ranges (sm_50 6.0, sm_52 6.5, sm_53 7.0; sm_37 6.5) are from
 * nvcc release history: unverified. Checked with nvcc 13.0 here: it accepts sm_75..sm_121,
 * sm_88, sm_90a, sm_103a/110a/121a and every listed f target, and rejects sm_101, sm_101a,
 * sm_90f, sm_87a (so sm_101 ends at 12.9). sm_88 has no known GPU; 13.0 is only the first
 * toolkit seen to accept it (unverified lower bound). */
static const struct { uint16_t arch; char suffix; int first, last; } toolkits[] = {
	{35, 0, 5000, 11080}, {37, 0, 6050, 11080},
	{50, 0, 6000, 12090}, {52, 0, 6050, 12090}, {53, 0, 7000, 12090},
	{60, 0, 8000, 12090}, {61, 0, 8000, 12090}, {62, 0, 8000, 12090},
	{70, 0, 9000, 12090}, {72, 0, 10000, 12090},
	{75, 0, 10000, 0},
	{80, 0, 11000, 0}, {86, 0, 11010, 0}, {87, 0, 11040, 0}, {88, 0, 13000, 0},
	{89, 0, 11080, 0}, {90, 0, 11080, 0}, {90, 'a', 12000, 0},
	{100, 0, 12080, 0}, {100, 'a', 12080, 0}, {100, 'f', 12090, 0},
	{101, 0, 12080, 12090}, {101, 'a', 12080, 12090},
	{101, 'f', 12090, 12090},                                        /* unverified: 12.9 only */
	{103, 0, 12090, 0}, {103, 'a', 12090, 0}, {103, 'f', 12090, 0},
	{110, 0, 13000, 0}, {110, 'a', 13000, 0}, {110, 'f', 13000, 0},
	{120, 0, 12080, 0}, {120, 'a', 12080, 0}, {120, 'f', 12090, 0},
	{121, 0, 12090, 0}, {121, 'a', 12090, 0}, {121, 'f', 12090, 0},
};

int ws_ptx_isa_min_cuda(unsigned major, unsigned minor)
{
	unsigned v = major * 10 + minor;
	if (minor > 9)
		return 0;
	for (size_t i = 0; i < NPTX; i++)
		if (ptx_isa[i].major == major && ptx_isa[i].minor == minor)
			return ptx_isa[i].cuda;
	/* older than the table: every driver the table knows JITs it */
	if (v < ptx_isa[0].major * 10u + ptx_isa[0].minor)
		return ptx_isa[0].cuda;
	return 0;
}

/* The driver an ISA needs, for the rules: exact row; a gap in the table takes the next
 * newer row (the ISA came later than the row below it); newer than the table -> INT_MAX,
 * i.e. newer than any driver we can name. ISA 0.0 (not recorded) -> 0: not judged. */
int ws_isa_need_cuda(unsigned major, unsigned minor)
{
	unsigned v = major * 10 + minor;
	int c;
	if (v == 0)
		return 0;
	if (minor > 9)
		return INT_MAX;
	if ((c = ws_ptx_isa_min_cuda(major, minor)) != 0)
		return c;
	for (size_t i = 0; i < NPTX; i++)
		if (ptx_isa[i].major * 10u + ptx_isa[i].minor > v)
			return ptx_isa[i].cuda;
	return INT_MAX;
}

int ws_first_toolkit_for_arch(unsigned arch, char suffix)
{
	for (size_t i = 0; i < sizeof toolkits / sizeof toolkits[0]; i++)
		if (toolkits[i].arch == arch && toolkits[i].suffix == suffix)
			return toolkits[i].first;
	return 0;
}

int ws_last_toolkit_for_arch(unsigned arch)
{
	for (size_t i = 0; i < sizeof toolkits / sizeof toolkits[0]; i++)
		if (toolkits[i].arch == arch && toolkits[i].suffix == 0)
			return toolkits[i].last;
	return 0;
}

/* §4a: the oldest driver that runs code linked against CUDA runtime release cuda. From
 * CUDA 11 on, NVIDIA's minor-version compatibility lets a build of any minor run on the
 * major's minimum driver (11.x: R450, 12.x: R525, 13.x: R580, "CUDA Compatibility", Minor
 * Version Compatibility), and those branches are exactly the x.0 rows of drivers[]; before
 * CUDA 11 a build needs its own release's driver. PTX JIT is not covered: a PTX needs the
 * driver of its ISA (ws_isa_need_cuda), and a GPU the driver of its first CUDA. */
int ws_runtime_driver_floor(int cuda)
{
	if (cuda <= 0)
		return 0;
	return cuda >= 11000 ? cuda / 1000 * 1000 : cuda;
}

/* §4b: the last driver branch of each GPU family that ended on one (NVIDIA: R470 is the
 * last for Kepler; R580 for Maxwell, Pascal and Volta). Jetson modules (5.3, 6.2, 7.2) run
 * the drivers of their Jetson Linux release, not these branches: none is claimed for them. */
int ws_gpu_last_driver(unsigned cc, int *branch)
{
	int b = 0, cuda = 0;
	switch (cc) {
	case 35: case 37: b = 470; cuda = 11040; break;
	case 50: case 52: case 60: case 61: case 70: b = 580; cuda = 13000; break;
	default: break;
	}
	if (branch)
		*branch = b;
	return cuda;
}

/* §1a: integrated GPUs (Jetson TX1/Nano 5.3, TX2 6.2, Xavier 7.2, Orin 8.7, Thor before CUDA
 * 13 as 10.1), whose SASS is not binary-compatible with the discrete GPUs' of their major. */
bool ws_cc_integrated(unsigned cc)
{
	return cc == 53 || cc == 62 || cc == 72 || cc == 87 || cc == 101;
}

int ws_driver_branch_for(int cuda)
{
	for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
		if (drivers[i].cuda >= cuda)
			return drivers[i].branch;
	return 0;
}

char *ws_cuda_str(int cuda, char *buf, size_t len)
{
	if (len)
		snprintf(buf, len, "%d.%d", cuda / 1000, cuda % 1000 / 10);
	return buf;
}


/* Reads a decimal number of 1..6 digits; returns the digit count (0 = none). */
static size_t read_num(const char *s, long *v)
{
	size_t i = 0;
	*v = 0;
	while (i < 7 && isdigit((unsigned char)s[i]))
		*v = *v * 10 + (s[i++] - '0');
	return i > 6 ? 0 : i;
}

int ws_driver_parse(const char *s, struct ws_err *err)
{
	char shown[40];
	const char *p;
	long major, minor = 0, part;
	size_t k;
	bool branch = false;

	if (!s || !*s) {
		ws_err_set(err, WS_E_FORMAT, "empty driver version");
		return -1;
	}
	ws_sanitize(shown, sizeof shown, s, strlen(s));
	p = s;
	if (*p == 'r' || *p == 'R') {
		branch = true;
		p++;
	}
	if (!(k = read_num(p, &major)))
		goto bad;
	p += k;
	/* further ".N" parts: the first is the minor, the rest (patch, build) are ignored */
	for (int n = 0; *p; n++) {
		if (*p != '.' || !(k = read_num(p + 1, &part)))
			goto bad;
		if (n == 0)
			minor = part;
		p += 1 + k;
	}
	if (major >= 100) {
		/* a driver version "570.124.06": its branch is the first number */
		int cuda = 0;
		for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
			if (drivers[i].branch <= major)
				cuda = drivers[i].cuda;
		if (!cuda) {
			ws_err_set(err, WS_E_FORMAT, "driver '%s' is older than any known driver branch (R%u)",
				shown, drivers[0].branch);
			return -1;
		}
		return cuda;
	}
	if (branch || major < 1 || minor > 9)
		goto bad;
	return (int)(major * 1000 + minor * 10);
bad:
	ws_err_set(err, WS_E_FORMAT, "invalid driver version '%s' (expected a CUDA version such as 12.8 "
		"or a driver version such as 570.124.06)", shown);
	return -1;
}

/* The PTX ISA a CUDA release writes: the newest ISA whose first CUDA is not after it
 * (12.6 -> 8.5, 12.8 -> 8.7). 0.0 for 0 or a CUDA before the table. */
void ws_cuda_ptx_isa(int cuda, unsigned *major, unsigned *minor)
{
	*major = *minor = 0;
	for (size_t i = 0; i < NPTX; i++)
		if (ptx_isa[i].cuda <= cuda) {
			*major = ptx_isa[i].major;
			*minor = ptx_isa[i].minor;
		}
}

/* ---- verdicts ----------------------------------------------------------------------- */

const char *ws_verdict_name(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NONE: return "none";
	case WS_V_NATIVE: return "native";
	case WS_V_COMPATIBLE: return "compatible";
	case WS_V_JIT: return "jit";
	case WS_V_PTX_TOO_NEW: return "ptx-too-new";
	case WS_V_NO_IMAGE: return "no-image";
	case WS_V_OTHER_GPU: return "other-gpu";
	}
	return "unknown";
}

/* Severity for the roll-up; an out-of-range value counts as the worst. */
int ws_verdict_rank(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NONE: return 0;
	case WS_V_OTHER_GPU: return 0;   /* not a failure: code the library runs on other GPUs */
	case WS_V_NATIVE: return 1;
	case WS_V_COMPATIBLE: return 2;
	case WS_V_JIT: return 3;
	case WS_V_PTX_TOO_NEW: return 4;
	case WS_V_NO_IMAGE: return 5;
	}
	return 6;
}

enum ws_verdict ws_verdict_worst(enum ws_verdict a, enum ws_verdict b)
{
	return ws_verdict_rank(a) >= ws_verdict_rank(b) ? a : b;
}

int ws_verdict_fails(enum ws_verdict v)
{
	return v == WS_V_NO_IMAGE || v == WS_V_PTX_TOO_NEW;
}

int ws_verdict_runs(enum ws_verdict v)
{
	return v == WS_V_NATIVE || v == WS_V_COMPATIBLE || v == WS_V_JIT;
}

/* The entry's a/f marker, settled once by ws_entry_finish. */
char ws_entry_suffix(const struct ws_entry *e)
{
	return e->suffix == 'a' || e->suffix == 'f' ? e->suffix : 0;
}

/* The PTX ISA of a PTX entry: the ".version" line, else the entry header's version. */
void ws_entry_isa(const struct ws_entry *e, unsigned *major, unsigned *minor)
{
	if (e->ptx_major || e->ptx_minor) {
		*major = e->ptx_major;
		*minor = e->ptx_minor;
	} else {
		*major = e->fmt_major;
		*minor = e->fmt_minor;
	}
}

/* Can this SASS run on cc? toolkit: the CUDA release that built it (128), 0 unknown. The
 * driver is judged apart: by the runtime the code links (§4a, judge.c) and the GPU's first
 * CUDA (§6). */
static enum ws_verdict sass_verdict(unsigned arch, char suffix, unsigned cc, unsigned toolkit)
{
	/* §3: sm_XYa runs only on exactly X.Y */
	if (suffix == 'a')
		return arch == cc ? WS_V_NATIVE : WS_V_NO_IMAGE;
	/* §1a: Thor's sm_101 was renamed sm_110: code of either runs on both (PyTorch's
	 * DEVICE_REQUIREMENT, torch/cuda/__init__.py of torch 2.15.0) */
	if ((arch == 101 || arch == 110) && (cc == 101 || cc == 110))
		return arch == cc ? WS_V_NATIVE : WS_V_COMPATIBLE;
	/* §1a: discrete and integrated GPUs do not share SASS (CUDA Programming Guide, "Binary
	 * Compatibility": not between desktop and Tegra), an integrated GPU's runs only on
	 * itself; from CUDA 13.2 SBSA builds of sm_70, sm_80 and sm_86 run on the Jetson of
	 * their major (Xavier, Orin): PyTorch's DEVICE_REQUIREMENT_POST_JETSON_SBSA_UNIFICATION.
	 * A cubin whose toolkit note was not read counts as older than 13.2. */
	if (ws_cc_integrated(arch) || ws_cc_integrated(cc)) {
		if (arch == cc)
			return WS_V_NATIVE;
		if (toolkit >= 132 && ws_cc_integrated(cc) && (arch == 70 || arch == 80 || arch == 86) &&
		    arch / 10 == cc / 10 && arch % 10 <= cc % 10)
			return WS_V_COMPATIBLE;
		return WS_V_NO_IMAGE;
	}
	/* §1: sm_XY runs on X'.Y' iff X == X' and Y <= Y'.
	 * §3: sm_XYf runs within its family: same major, minor >= Y (sm_100f on 10.0/10.3,
	 * sm_120f on 12.0/12.1). Checked here with nvlink 13.0: an sm_100f cubin links for
	 * sm_100 and sm_103 but not sm_110/sm_120/sm_121, sm_120f for sm_120/sm_121 only;
	 * the driver loading sm_100f SASS on a 10.3 device is unverified (no such GPU here).
	 * Thor: sm_101 is kept as CC 10.1 of its own (§1), so sm_100 SASS counts as compatible
	 * with it and nothing maps sm_101 to 11.0 - unverified either way. */
	if (arch / 10 != cc / 10 || arch % 10 > cc % 10)
		return WS_V_NO_IMAGE;
	return arch == cc ? WS_V_NATIVE : WS_V_COMPATIBLE;
}

/* Can this PTX be JIT-compiled for cc, ignoring the driver? */
static bool ptx_serves(unsigned arch, char suffix, unsigned cc)
{
	if (arch == 0)
		return false;
	/* §3: compute_XYa only on exactly X.Y (ptxas 13.0 here: compute_90a PTX refuses sm_90
	 * and every newer target). */
	if (suffix == 'a')
		return arch == cc;
	/* compute_XYf within the family. Assumption carried over from the SASS rule, checked
	 * with ptxas 13.0 (the offline half of the JIT): compute_100f compiles for sm_100 and
	 * sm_103 but not sm_90/110/120/121; compute_120f for sm_120/121 only; compute_110f
	 * for sm_110 only. The driver JIT behaving the same is an assumption. */
	if (suffix == 'f')
		return arch / 10 == cc / 10 && arch % 10 <= cc % 10;
	/* §2: compute_XY JIT-compiles on any CC >= X.Y */
	return cc >= arch;
}

enum ws_verdict ws_entry_verdict(const struct ws_entry *e, const struct ws_target *t, int driver_cuda)
{
	unsigned isa_major, isa_minor;
	int need;

	if (!e || !t || e->opaque)
		return WS_V_NO_IMAGE;
	switch (e->kind) {
	case WS_KIND_SASS:
		return sass_verdict(e->arch, ws_entry_suffix(e), t->cc, e->toolkit);
	case WS_KIND_PTX:
		if (!ptx_serves(e->arch, ws_entry_suffix(e), t->cc))
			return WS_V_NO_IMAGE;
		/* §2.1 / §4: the driver must know the PTX ISA, else error 222 */
		ws_entry_isa(e, &isa_major, &isa_minor);
		need = ws_isa_need_cuda(isa_major, isa_minor);
		if (driver_cuda > 0 && need > driver_cuda)
			return WS_V_PTX_TOO_NEW;
		return WS_V_JIT;
	default:
		/* LTO-IR must be linked first (nvJitLink), unknown kinds are not loadable */
		return WS_V_NO_IMAGE;
	}
}

/* Could this container hold kernels we do not see? (container error, undecoded entries) */
static bool kernels_unknown(const struct ws_fatbin *f)
{
	if (f->error)
		return true;
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct ws_entry *e = &f->entries[i];
		if (e->opaque || !e->kernels_known || e->error)
			return true;
	}
	return false;
}

bool ws_fatbin_has_kernels(const struct ws_fatbin *f)
{
	return f->nkernels != 0 || kernels_unknown(f);
}

enum ws_verdict ws_fatbin_verdict(const struct ws_fatbin *f, const struct ws_target *t, int driver_cuda)
{
	bool native = false, compat = false, jit = false, too_new = false;

	if (!f || !t)
		return WS_V_NO_IMAGE;
	/* issue 4: a container without kernels (nvcc's device-link stub) cannot fail a launch */
	if (!ws_fatbin_has_kernels(f))
		return WS_V_NONE;
	for (uint32_t i = 0; i < f->nentries; i++) {
		switch (ws_entry_verdict(&f->entries[i], t, driver_cuda)) {
		case WS_V_NATIVE: native = true; break;
		case WS_V_COMPATIBLE: compat = true; break;
		case WS_V_JIT: jit = true; break;
		case WS_V_PTX_TOO_NEW: too_new = true; break;
		default: break;
		}
	}
	/* §2: the driver takes the best cubin, else JITs a compatible PTX. A PTX the driver
	 * cannot read does not stop it from using another PTX it can. */
	if (native)
		return WS_V_NATIVE;
	if (compat)
		return WS_V_COMPATIBLE;
	if (jit)
		return WS_V_JIT;
	if (too_new)
		return WS_V_PTX_TOO_NEW;
	return WS_V_NO_IMAGE;
}

