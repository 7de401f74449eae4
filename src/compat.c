/* compat.c - the pure compatibility rules: entry x target x driver -> verdict, plus the
 * CUDA tables they need (PTX ISA, driver branches, toolkit support), explanations and advice.
 * Every rule cites ../shared/compat-rules.md ("§N" below); facts not confirmed there or
 * here are marked "unverified". */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_compat.h"
#include "ws_util.h"

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
static int isa_need(unsigned major, unsigned minor)
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

int ws_driver_parse(const char *s, char *err, size_t errlen)
{
	char shown[40];
	const char *p;
	long major, minor = 0, part;
	size_t k;
	bool branch = false;

	if (!s || !*s) {
		ws_fmt(err, errlen, "empty driver version");
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
			ws_fmt(err, errlen, "driver '%s' is older than any known driver branch (R%u)",
				shown, drivers[0].branch);
			return -1;
		}
		return cuda;
	}
	if (branch || major < 1 || minor > 9)
		goto bad;
	return (int)(major * 1000 + minor * 10);
bad:
	ws_fmt(err, errlen, "invalid driver version '%s' (expected a CUDA version such as 12.8 "
		"or a driver version such as 570.124.06)", shown);
	return -1;
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
	}
	return "unknown";
}

/* Severity for the roll-up; an out-of-range value counts as the worst. */
static int rank(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NONE: return 0;
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
	return rank(a) >= rank(b) ? a : b;
}

int ws_verdict_fails(enum ws_verdict v)
{
	return v == WS_V_NO_IMAGE || v == WS_V_PTX_TOO_NEW;
}

/* The entry's a/f marker: the decoder's, else the PTX ".target" suffix (§3: the marker
 * lives in the entry flags and the PTX .target line). */
static char entry_suffix(const struct ws_entry *e)
{
	if (e->suffix == 'a' || e->suffix == 'f')
		return e->suffix;
	if (e->kind == WS_KIND_PTX) {
		size_t n = strnlen(e->ptx_target, sizeof e->ptx_target);
		if (n >= 2 && isdigit((unsigned char)e->ptx_target[n - 2]) &&
		    (e->ptx_target[n - 1] == 'a' || e->ptx_target[n - 1] == 'f'))
			return e->ptx_target[n - 1];
	}
	return 0;
}

/* The PTX ISA of a PTX entry: the ".version" line, else the entry header's version. */
static void entry_isa(const struct ws_entry *e, unsigned *major, unsigned *minor)
{
	if (e->ptx_major || e->ptx_minor) {
		*major = e->ptx_major;
		*minor = e->ptx_minor;
	} else {
		*major = e->fmt_major;
		*minor = e->fmt_minor;
	}
}

/* Can this SASS run on cc? (ignores the driver: minor version compatibility covers cubins, §4) */
static enum ws_verdict sass_verdict(unsigned arch, char suffix, unsigned cc)
{
	/* §3: sm_XYa runs only on exactly X.Y */
	if (suffix == 'a')
		return arch == cc ? WS_V_NATIVE : WS_V_NO_IMAGE;
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
		return sass_verdict(e->arch, entry_suffix(e), t->cc);
	case WS_KIND_PTX:
		if (!ptx_serves(e->arch, entry_suffix(e), t->cc))
			return WS_V_NO_IMAGE;
		/* §2.1 / §4: the driver must know the PTX ISA, else error 222 */
		entry_isa(e, &isa_major, &isa_minor);
		need = isa_need(isa_major, isa_minor);
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

static enum ws_verdict *new_verdicts(size_t nt)
{
	return nt ? ws_calloc(nt, sizeof(enum ws_verdict)) : NULL;
}

bool ws_fatbin_in_rollup(const struct ws_object *o, const struct ws_fatbin *f)
{
	if (!f->relocatable)
		return true;
	for (uint32_t i = 0; i < o->nfatbins; i++)
		if (!o->fatbins[i].relocatable)
			return false;
	return true;
}

int ws_judge(struct ws_artifact *a, const struct ws_target *t, size_t nt, int driver_cuda)
{
	if (!a)
		return 0;
	if (nt > WS_MAX_TARGETS || (nt && !t))
		return -1;
	free(a->verdicts);
	if (!(a->verdicts = new_verdicts(nt)) && nt)
		return -1;
	for (uint32_t o = 0; o < a->nobjects; o++) {
		struct ws_object *obj = &a->objects[o];
		free(obj->verdicts);
		if (!(obj->verdicts = new_verdicts(nt)) && nt)
			return -1;
		/* Relocatable containers (__nv_relfatbin, -rdc) are link inputs: the driver never
		 * loads them, it loads the device-linked container in .nv_fatbin. So when an object
		 * holds a loadable container, the relocatable ones get their own verdicts but stay
		 * out of the roll-up (bitsandbytes' cuda12x libraries carry PTX only in their
		 * relocatable containers, and fail on sm_120). An object of link inputs only (a -dc
		 * .o) is judged by them: they are all the linked result can contain. */
		for (uint32_t i = 0; i < obj->nfatbins; i++) {
			struct ws_fatbin *f = &obj->fatbins[i];
			free(f->verdicts);
			if (!(f->verdicts = new_verdicts(nt)) && nt)
				return -1;
			for (size_t k = 0; k < nt; k++) {
				f->verdicts[k] = ws_fatbin_verdict(f, &t[k], driver_cuda);
				/* WS_V_NONE ranks lowest, so kernel-less containers drop out of the roll-up */
				if (ws_fatbin_in_rollup(obj, f))
					obj->verdicts[k] = ws_verdict_worst(obj->verdicts[k], f->verdicts[k]);
			}
		}
		for (size_t k = 0; k < nt; k++)
			a->verdicts[k] = ws_verdict_worst(a->verdicts[k], obj->verdicts[k]);
	}
	return 0;
}

/* ---- explanations and advice --------------------------------------------------------- */

/* Appends printf output to buf at *pos, never past len. */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (*pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos = (size_t)n < len - *pos ? *pos + (size_t)n : len - 1;
}

/* "sm_90a" / "compute_120" / "lto_100f" for an entry, from its numbers (not file text). */
static const char *entry_name(const struct ws_entry *e, char *buf, size_t len)
{
	const char *prefix = e->kind == WS_KIND_SASS ? "sm_" : e->kind == WS_KIND_PTX ? "compute_" :
			     e->kind == WS_KIND_LTOIR ? "lto_" : "kind?_";
	char s = entry_suffix(e);
	snprintf(buf, len, "%s%u%s", prefix, e->arch, s == 'a' ? "a" : s == 'f' ? "f" : "");
	return buf;
}

/* Newest entry of a kind (highest arch); with serving, only those that can serve t. */
static const struct ws_entry *newest(const struct ws_fatbin *f, uint16_t kind,
				     const struct ws_target *t, int driver_cuda, enum ws_verdict want)
{
	const struct ws_entry *best = NULL;
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct ws_entry *e = &f->entries[i];
		if (e->kind != kind || e->opaque)
			continue;
		if (t && ws_entry_verdict(e, t, driver_cuda) != want)
			continue;
		if (!best || e->arch > best->arch)
			best = e;
	}
	return best;
}

static void explain_fail(const struct ws_fatbin *f, const struct ws_target *t,
			 char *buf, size_t len, size_t *pos)
{
	const struct ws_entry *sass = newest(f, WS_KIND_SASS, NULL, 0, WS_V_NONE);
	const struct ws_entry *ptx = newest(f, WS_KIND_PTX, NULL, 0, WS_V_NONE);
	const struct ws_entry *lto = newest(f, WS_KIND_LTOIR, NULL, 0, WS_V_NONE);
	char n1[32];
	unsigned cc = t->cc, opaque = 0;

	for (uint32_t i = 0; i < f->nentries; i++)
		opaque += f->entries[i].opaque;
	if (sass) {
		append(buf, len, pos, "newest SASS %s", entry_name(sass, n1, sizeof n1));
		/* an arch-specific cubin for the right major: say why it does not count */
		for (uint32_t i = 0; i < f->nentries; i++) {
			const struct ws_entry *e = &f->entries[i];
			if (e->kind == WS_KIND_SASS && !e->opaque && entry_suffix(e) == 'a' &&
			    e->arch / 10 == cc / 10 && e->arch != cc) {
				append(buf, len, pos, " (%s runs only on %u.%u)", entry_name(e, n1, sizeof n1),
				       e->arch / 10, e->arch % 10);
				break;
			}
		}
	} else {
		append(buf, len, pos, "no SASS");
	}
	if (ptx) {
		char s = entry_suffix(ptx);
		append(buf, len, pos, ", newest PTX %s", entry_name(ptx, n1, sizeof n1));
		if (s == 'a')
			append(buf, len, pos, " (arch-specific: %u.%u only)", ptx->arch / 10, ptx->arch % 10);
		else if (s == 'f')
			append(buf, len, pos, " (family-specific: %u.%u and newer %u.x only)", ptx->arch / 10,
			       ptx->arch % 10, ptx->arch / 10);
	} else {
		append(buf, len, pos, ", no PTX");
	}
	if (lto)
		append(buf, len, pos, ", LTO-IR %s needs linking first", entry_name(lto, n1, sizeof n1));
	if (opaque)
		append(buf, len, pos, ", %u undecoded entr%s", opaque, opaque == 1 ? "y" : "ies");
	if (cc % 10)
		append(buf, len, pos, "; %s needs SASS sm_%u..sm_%u or PTX <= compute_%u",
		       t->name, cc - cc % 10, cc, cc);
	else
		append(buf, len, pos, "; %s needs SASS %s or PTX <= compute_%u", t->name, t->name, cc);
}

static void explain_one(const struct ws_fatbin *f, enum ws_verdict v, const struct ws_target *t,
			int driver_cuda, char *buf, size_t len)
{
	const struct ws_entry *e;
	char n1[32], c1[16], c2[16];
	unsigned im, in;
	size_t pos = 0;
	int need;

	switch (v) {
	case WS_V_NONE:
		append(buf, len, &pos, "no kernels in this container (e.g. nvcc's device-link stub): it cannot fail a launch");
		return;
	case WS_V_NATIVE:
	case WS_V_COMPATIBLE:
		e = newest(f, WS_KIND_SASS, t, driver_cuda, v);
		if (!e)
			break;
		if (v == WS_V_NATIVE)
			append(buf, len, &pos, "SASS %s runs natively on %s", entry_name(e, n1, sizeof n1), t->name);
		else
			append(buf, len, &pos, "SASS %s runs on %s (same major, lower minor)",
			       entry_name(e, n1, sizeof n1), t->name);
		return;
	case WS_V_JIT:
		e = newest(f, WS_KIND_PTX, t, driver_cuda, WS_V_JIT);
		if (!e)
			break;
		append(buf, len, &pos, "no SASS for %s; PTX %s is JIT-compiled at first load (slow first launch,"
		       " cached in ~/.nv/ComputeCache)", t->name, entry_name(e, n1, sizeof n1));
		entry_isa(e, &im, &in);
		need = isa_need(im, in);
		if (driver_cuda <= 0 && need > 0 && need != INT_MAX)
			append(buf, len, &pos, "; needs a driver for CUDA >= %s (PTX ISA %u.%u)",
			       ws_cuda_str(need, c1, sizeof c1), im, in);
		return;
	case WS_V_PTX_TOO_NEW:
		/* the PTX closest to usable: lowest driver need */
		e = NULL;
		need = INT_MAX;
		for (uint32_t i = 0; i < f->nentries; i++) {
			const struct ws_entry *x = &f->entries[i];
			if (ws_entry_verdict(x, t, driver_cuda) != WS_V_PTX_TOO_NEW)
				continue;
			entry_isa(x, &im, &in);
			if (!e || isa_need(im, in) < need) {
				e = x;
				need = isa_need(im, in);
			}
		}
		if (!e)
			break;
		entry_isa(e, &im, &in);
		if (need == INT_MAX)
			append(buf, len, &pos, "PTX %s has ISA %u.%u, newer than any CUDA release wheelscan knows; "
			       "driver supports %s", entry_name(e, n1, sizeof n1), im, in,
			       ws_cuda_str(driver_cuda, c2, sizeof c2));
		else
			append(buf, len, &pos, "PTX %s has ISA %u.%u, needs a CUDA %s driver; driver supports %s",
			       entry_name(e, n1, sizeof n1), im, in, ws_cuda_str(need, c1, sizeof c1),
			       ws_cuda_str(driver_cuda, c2, sizeof c2));
		if (!newest(f, WS_KIND_SASS, NULL, 0, WS_V_NONE))
			append(buf, len, &pos, " (no SASS)");
		return;
	default:
		break;
	}
	explain_fail(f, t, buf, len, &pos);
}

void ws_explain(const struct ws_fatbin *const *fatbins, size_t nf, const struct ws_target *t,
		int driver_cuda, char *buf, size_t len)
{
	const struct ws_fatbin *w = NULL;
	enum ws_verdict wv = WS_V_NONE;

	if (!buf || !len)
		return;
	buf[0] = 0;
	if (!t)
		return;
	/* explain the worst container: that is the one that decides the roll-up */
	for (size_t i = 0; i < nf; i++) {
		enum ws_verdict v;
		if (!fatbins || !fatbins[i])
			continue;
		v = ws_fatbin_verdict(fatbins[i], t, driver_cuda);
		if (!w || rank(v) > rank(wv)) {
			w = fatbins[i];
			wv = v;
		}
	}
	if (!w) {
		snprintf(buf, len, "no device code");
		return;
	}
	explain_one(w, wv, t, driver_cuda, buf, len);
}

/* Parses a wheel local tag "cu124" / "cu92" / "cu12" (major only). Returns the CUDA
 * version (12040), with *major_only set for "cuNN" tags with NN in 10..19; 0 if not a tag. */
static int parse_cu_tag(const char *tag, bool *major_only)
{
	size_t k = 0;
	unsigned v = 0;
	*major_only = false;
	if (!tag || tolower((unsigned char)tag[0]) != 'c' || tolower((unsigned char)tag[1]) != 'u')
		return 0;
	tag += 2;
	while (k < 4 && isdigit((unsigned char)tag[k]))
		v = v * 10 + (unsigned)(tag[k++] - '0');
	if (isalnum((unsigned char)tag[k]))
		return 0;
	if (k == 3)
		return (int)(v / 10 * 1000 + v % 10 * 10);       /* cu124 -> 12.4 */
	if (k == 2 && v >= 10 && v <= 19) {
		*major_only = true;                          /* cu12 -> 12.x */
		return (int)(v * 1000);
	}
	if (k == 2)
		return (int)(v / 10 * 1000 + v % 10 * 10);       /* cu92 -> 9.2 */
	return 0;
}

/* The local tag of a CUDA version: "cu128", or "cu13" for a major-only style. */
static void cu_tag(int cuda, bool major_only, char *buf, size_t len)
{
	if (major_only)
		snprintf(buf, len, "cu%d", cuda / 1000);
	else
		snprintf(buf, len, "cu%d%d", cuda / 1000, cuda % 1000 / 10);
}

int ws_advise(const struct ws_target *t, const char *local_tag, char *buf, size_t len)
{
	int first, last, tag = 0;
	bool major_only = false;
	char c1[16], c2[16], want[16], have[16];
	size_t pos = 0;

	if (!t || !buf || !len)
		return -1;
	buf[0] = 0;
	first = ws_first_toolkit_for_arch(t->cc, 0);
	last = ws_last_toolkit_for_arch(t->cc);
	if (!first)
		return -1;
	/* §6: the toolkit window that can emit SASS for this CC */
	if (last)
		append(buf, len, &pos, "needs a build made with CUDA %s to %s", ws_cuda_str(first, c1, sizeof c1),
		       ws_cuda_str(last, c2, sizeof c2));
	else
		append(buf, len, &pos, "needs a build made with CUDA >= %s", ws_cuda_str(first, c1, sizeof c1));
	if (t->cc == 101)
		append(buf, len, &pos, " (sm_101 is called sm_110 from CUDA 13.0)");
	else if (last)
		append(buf, len, &pos, " (CUDA %d dropped %s)", last / 1000 + 1, t->name);

	if (local_tag && (tag = parse_cu_tag(local_tag, &major_only)) != 0) {
		int tag_hi = major_only ? tag + 990 : tag;
		cu_tag(tag, major_only, have, sizeof have);
		if (tag_hi < first) {
			cu_tag(first, major_only, want, sizeof want);
			append(buf, len, &pos, ", e.g. +%s instead of +%s", want, have);
		} else if (last && tag > last) {
			cu_tag(last, major_only, want, sizeof want);
			append(buf, len, &pos, ", e.g. +%s instead of +%s", want, have);
		} else if (major_only && tag < first) {
			append(buf, len, &pos, "; a +%s build qualifies only if made with CUDA >= %s", have,
			       ws_cuda_str(first, c1, sizeof c1));
		} else {
			append(buf, len, &pos, "; CUDA of this +%s build can target %s, the build left it out",
			       have, t->name);
		}
	}
	return 0;
}
