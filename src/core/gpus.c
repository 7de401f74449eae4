/* gpus.c - the GPU name table and --gpu target parsing (names, sm_XY, X.Y, XY). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_compat.h"
#include "ws_quote.h"

/* GPU name -> compute capability.
 * Source: NVIDIA's "CUDA GPUs" page (doc/compat-rules.md §7). Rows marked
 * [ext] extend it from the same NVIDIA page as remembered, not re-checked against it here:
 * unverified. Display names must stay unique after normalisation (test_gpus checks it). */
static const struct ws_gpu gpus[] = {
	/* Kepler [ext]: only for old cloud images; CUDA 12 dropped sm_35/37 (doc/compat-rules.md §6). */
	{35, "Tesla K20", NULL, "datacenter"},
	{35, "Tesla K40", NULL, "datacenter"},
	{37, "Tesla K80", NULL, "datacenter"},
	/* 5.0 Maxwell */
	{50, "GeForce GTX 750", NULL, "geforce"},
	{50, "GeForce GTX 750 Ti", NULL, "geforce"},
	{50, "Quadro K620", NULL, "workstation"},
	{50, "Quadro K1200", NULL, "workstation"},
	{50, "Quadro K2200", NULL, "workstation"},           /* [ext] */
	{50, "Tesla M10", NULL, "datacenter"},               /* [ext] */
	/* 5.2 Maxwell */
	{52, "GeForce GTX 950", NULL, "geforce"},
	{52, "GeForce GTX 960", NULL, "geforce"},
	{52, "GeForce GTX 970", NULL, "geforce"},
	{52, "GeForce GTX 980", NULL, "geforce"},
	{52, "GeForce GTX 980 Ti", NULL, "geforce"},
	{52, "GeForce GTX Titan X", "Titan X|GTX Titan X Maxwell", "geforce"},
	{52, "Tesla M4", NULL, "datacenter"},
	{52, "Tesla M40", NULL, "datacenter"},
	{52, "Tesla M6", NULL, "datacenter"},                /* [ext] */
	{52, "Tesla M60", NULL, "datacenter"},
	{52, "Quadro M4000", NULL, "workstation"},           /* [ext] */
	{52, "Quadro M5000", NULL, "workstation"},           /* [ext] */
	{52, "Quadro M6000", NULL, "workstation"},           /* [ext] */
	/* 5.3 */
	{53, "Jetson TX1", NULL, "jetson"},
	{53, "Jetson Nano", NULL, "jetson"},
	/* 6.0 Pascal */
	{60, "Tesla P100", NULL, "datacenter"},
	{60, "Quadro GP100", NULL, "workstation"},
	/* 6.1 Pascal */
	{61, "GeForce GT 1030", NULL, "geforce"},            /* [ext] */
	{61, "GeForce GTX 1050", NULL, "geforce"},
	{61, "GeForce GTX 1050 Ti", NULL, "geforce"},
	{61, "GeForce GTX 1060", NULL, "geforce"},
	{61, "GeForce GTX 1070", NULL, "geforce"},
	{61, "GeForce GTX 1070 Ti", NULL, "geforce"},
	{61, "GeForce GTX 1080", NULL, "geforce"},
	{61, "GeForce GTX 1080 Ti", NULL, "geforce"},
	{61, "Titan X (Pascal)", "Titan X Pascal", "geforce"},
	{61, "Titan Xp", NULL, "geforce"},
	{61, "Tesla P4", NULL, "datacenter"},
	{61, "Tesla P40", NULL, "datacenter"},
	{61, "Quadro P1000", NULL, "workstation"},           /* [ext] */
	{61, "Quadro P2000", NULL, "workstation"},           /* [ext] */
	{61, "Quadro P4000", NULL, "workstation"},           /* [ext] */
	{61, "Quadro P5000", NULL, "workstation"},           /* [ext] */
	{61, "Quadro P6000", NULL, "workstation"},           /* [ext] */
	/* 6.2 */
	{62, "Jetson TX2", NULL, "jetson"},
	/* 7.0 Volta */
	{70, "Tesla V100", NULL, "datacenter"},
	{70, "Titan V", NULL, "geforce"},
	{70, "Quadro GV100", NULL, "workstation"},
	/* 7.2 */
	{72, "Jetson AGX Xavier", "Xavier|AGX Xavier", "jetson"},
	{72, "Jetson Xavier NX", NULL, "jetson"},
	/* 7.5 Turing */
	{75, "T4", NULL, "datacenter"},
	{75, "GeForce GTX 1650", NULL, "geforce"},
	{75, "GeForce GTX 1650 Super", NULL, "geforce"},     /* [ext] */
	{75, "GeForce GTX 1660", NULL, "geforce"},
	{75, "GeForce GTX 1660 Super", NULL, "geforce"},     /* [ext] */
	{75, "GeForce GTX 1660 Ti", NULL, "geforce"},
	{75, "GeForce RTX 2060", NULL, "geforce"},
	{75, "GeForce RTX 2060 Super", NULL, "geforce"},     /* [ext] */
	{75, "GeForce RTX 2070", NULL, "geforce"},
	{75, "GeForce RTX 2070 Super", NULL, "geforce"},     /* [ext] */
	{75, "GeForce RTX 2080", NULL, "geforce"},
	{75, "GeForce RTX 2080 Super", NULL, "geforce"},     /* [ext] */
	{75, "GeForce RTX 2080 Ti", NULL, "geforce"},
	{75, "Titan RTX", NULL, "geforce"},
	{75, "Quadro RTX 4000", NULL, "workstation"},
	{75, "Quadro RTX 5000", NULL, "workstation"},
	{75, "Quadro RTX 6000", NULL, "workstation"},
	{75, "Quadro RTX 8000", NULL, "workstation"},
	{75, "Quadro T1000", NULL, "workstation"},           /* [ext] */
	{75, "Quadro T2000", NULL, "workstation"},           /* [ext] */
	/* 8.0 Ampere */
	{80, "A100", NULL, "datacenter"},
	{80, "A30", NULL, "datacenter"},
	{80, "A800", NULL, "datacenter"},
	/* 8.6 Ampere */
	{86, "GeForce RTX 3050", NULL, "geforce"},
	{86, "GeForce RTX 3060", NULL, "geforce"},
	{86, "GeForce RTX 3060 Ti", NULL, "geforce"},
	{86, "GeForce RTX 3070", NULL, "geforce"},
	{86, "GeForce RTX 3070 Ti", NULL, "geforce"},
	{86, "GeForce RTX 3080", NULL, "geforce"},
	{86, "GeForce RTX 3080 Ti", NULL, "geforce"},
	{86, "GeForce RTX 3090", NULL, "geforce"},
	{86, "GeForce RTX 3090 Ti", NULL, "geforce"},
	{86, "A10", NULL, "datacenter"},
	{86, "A10G", NULL, "datacenter"},                    /* [ext] AWS g5 */
	{86, "A16", NULL, "datacenter"},
	{86, "A2", NULL, "datacenter"},
	{86, "A40", NULL, "datacenter"},
	{86, "RTX A2000", NULL, "workstation"},
	{86, "RTX A3000", NULL, "workstation"},              /* testdata/nvidia-cuda-gpus.txt */
	{86, "RTX A4000", NULL, "workstation"},
	{86, "RTX A4500", NULL, "workstation"},              /* [ext] */
	{86, "RTX A5000", NULL, "workstation"},
	{86, "RTX A5500", NULL, "workstation"},              /* [ext] */
	{86, "RTX A6000", NULL, "workstation"},
	/* 8.7 */
	{87, "Jetson AGX Orin", "Orin|AGX Orin", "jetson"},
	{87, "Jetson Orin NX", NULL, "jetson"},
	{87, "Jetson Orin Nano", NULL, "jetson"},
	/* 8.9 Ada Lovelace */
	{89, "GeForce RTX 4050", NULL, "geforce"},           /* testdata/nvidia-cuda-gpus.txt */
	{89, "GeForce RTX 4060", NULL, "geforce"},
	{89, "GeForce RTX 4060 Ti", NULL, "geforce"},
	{89, "GeForce RTX 4070", NULL, "geforce"},
	{89, "GeForce RTX 4070 Super", NULL, "geforce"},     /* [ext] */
	{89, "GeForce RTX 4070 Ti", NULL, "geforce"},
	{89, "GeForce RTX 4070 Ti Super", NULL, "geforce"},  /* [ext] */
	{89, "GeForce RTX 4080", NULL, "geforce"},
	{89, "GeForce RTX 4080 Super", NULL, "geforce"},     /* [ext] */
	{89, "GeForce RTX 4090", NULL, "geforce"},
	{89, "GeForce RTX 4090 D", NULL, "geforce"},         /* [ext] */
	{89, "L4", NULL, "datacenter"},
	{89, "L20", NULL, "datacenter"},                     /* [ext] */
	{89, "L40", NULL, "datacenter"},
	{89, "L40S", NULL, "datacenter"},
	{89, "RTX 2000 Ada", "RTX 2000 Ada Generation", "workstation"},  /* [ext] */
	{89, "RTX 4000 Ada", "RTX 4000 Ada Generation|RTX 4000 SFF Ada Generation|RTX 4000 SFF Ada", "workstation"}, /* [ext] */
	{89, "RTX 4500 Ada", "RTX 4500 Ada Generation", "workstation"},  /* [ext] */
	{89, "RTX 5000 Ada", "RTX 5000 Ada Generation", "workstation"},  /* [ext] */
	{89, "RTX 6000 Ada", "RTX 6000 Ada Generation", "workstation"},
	/* 9.0 Hopper */
	{90, "H100", NULL, "datacenter"},
	{90, "H200", NULL, "datacenter"},
	{90, "GH200", "GH200 Grace Hopper Superchip", "datacenter"},
	{90, "H800", NULL, "datacenter"},
	{90, "H20", NULL, "datacenter"},
	/* 10.0 / 10.3 Blackwell (data centre) */
	{100, "B200", NULL, "datacenter"},
	{100, "GB200", NULL, "datacenter"},
	{100, "B100", NULL, "datacenter"},                   /* [ext] */
	{103, "B300", "Blackwell Ultra", "datacenter"},
	{103, "GB300", NULL, "datacenter"},
	/* 11.0: Thor. Its SASS was sm_101 up to CUDA 12.9 and is sm_110 from CUDA 13.0
	 * (doc/compat-rules.md §1, cuRANDDx notes); a device reporting 11.0 is listed here, "sm_101"
	 * stays a target of its own (CC 10.1) because nothing here shows a driver mapping. */
	/* T5000/T4000: the Thor modules as NVIDIA's CUDA GPUs page lists them (testdata/nvidia-cuda-gpus.txt) */
	{110, "Jetson Thor", "Jetson AGX Thor|Thor|AGX Thor|Jetson T5000|Jetson T4000", "jetson"},
	/* 12.0 Blackwell (GeForce / workstation) */
	{120, "GeForce RTX 5050", NULL, "geforce"},
	{120, "GeForce RTX 5060", NULL, "geforce"},
	{120, "GeForce RTX 5060 Ti", NULL, "geforce"},
	{120, "GeForce RTX 5070", NULL, "geforce"},
	{120, "GeForce RTX 5070 Ti", NULL, "geforce"},
	{120, "GeForce RTX 5080", NULL, "geforce"},
	{120, "GeForce RTX 5090", NULL, "geforce"},
	{120, "GeForce RTX 5090 D", NULL, "geforce"},
	{120, "RTX PRO 6000 Blackwell", "RTX PRO 6000|RTX PRO 6000 Blackwell Workstation Edition|"
		"RTX PRO 6000 Blackwell Server Edition|RTX PRO 6000 Blackwell Max-Q Workstation Edition",
		"workstation"},
	{120, "RTX PRO 5000 Blackwell", "RTX PRO 5000", "workstation"},
	{120, "RTX PRO 4500 Blackwell", "RTX PRO 4500", "workstation"},
	{120, "RTX PRO 4000 Blackwell", "RTX PRO 4000|RTX PRO 4000 Blackwell SFF Edition", "workstation"},
	{120, "RTX PRO 2000 Blackwell", "RTX PRO 2000", "workstation"},  /* [ext] */
	/* 12.1 */
	{121, "GB10", "DGX Spark|Spark", "desktop"},
};

size_t ws_gpu_count(void)
{
	return sizeof gpus / sizeof gpus[0];
}

const struct ws_gpu *ws_gpu_at(size_t i)
{
	return i < ws_gpu_count() ? &gpus[i] : NULL;
}

/* The distinct compute capabilities of the GPU table, in CC order, as targets (name
 * "sm_XY", no label), at most max; returns how many. */
static size_t table_ccs(struct ws_target *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < ws_gpu_count(); i++) {
		unsigned cc = gpus[i].cc;
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = out[k].cc == cc;
		if (dup || n == max)
			continue;
		ws_target_set(&out[n++], cc, NULL);
	}
	return n;
}

size_t ws_coverage_targets(struct ws_target *out)
{
	size_t n = table_ccs(out, WS_MAX_TARGETS - 1);
	unsigned newest = n ? out[n - 1].cc : 120;
	ws_target_set(&out[n], (newest / 10 + 1) * 10, "newer GPUs");
	return n + 1;
}

const char *ws_cc_family(unsigned cc)
{
	switch (cc) {
	case 35: case 37: return "Kepler";
	case 50: case 52: case 53: return "Maxwell";
	case 60: case 61: case 62: return "Pascal";
	case 70: case 72: return "Volta";
	case 75: return "Turing";
	case 80: case 86: case 87: return "Ampere";
	case 89: return "Ada Lovelace";
	case 90: return "Hopper";
	case 100: case 101: case 103: case 110: case 120: case 121: return "Blackwell";
	default: return "";   /* includes sm_88: nvcc 13.0 targets it, no known GPU */
	}
}

#define NORM_MAX 64

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Is this lower-cased token nvidia-smi decoration ("80gb", "sxm4", "pcie", "laptop")? */
static bool noise_token(const char *tok)
{
	static const char *const words[] = {"pcie", "laptop", "gpu", "mobile", "maxq", "oem", "nvgpu"};
	size_t n = strlen(tok), d = 0;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(tok, words[i]) == 0)
			return true;
	while (d < n && isdigit((unsigned char)tok[d]))
		d++;
	if (d > 0 && strcmp(tok + d, "gb") == 0)
		return true;   /* 80gb */
	if (has_prefix(tok, "sxm") || has_prefix(tok, "nvl") || has_prefix(tok, "hbm")) {
		for (size_t i = 3; i < n; i++)
			if (!isdigit((unsigned char)tok[i]) && tok[i] != 'e')
				return false;
		return true;   /* sxm4, nvl, hbm3e */
	}
	return false;
}

/* Normalises a GPU name: lower case, alphanumerics only, vendor/line prefixes removed
 * ("NVIDIA GeForce RTX 5090" -> "rtx5090"). With drop_noise, nvidia-smi decorations are
 * dropped too and "MIG ..." ends the name. Output is truncated to NORM_MAX-1 chars. */
static void normalise(const char *in, char *out, bool drop_noise)
{
	static const char *const prefixes[] = {"nvidia", "geforce", "tesla", "quadro", "jetson"};
	char tok[NORM_MAX];
	size_t o = 0, tl = 0;
	bool prev_max = false;

	out[0] = 0;
	for (const char *p = in;; p++) {
		unsigned char c = (unsigned char)*p;
		if (c && isalnum(c)) {
			if (tl + 1 < sizeof tok)
				tok[tl++] = (char)tolower(c);
			continue;
		}
		if (tl) {
			tok[tl] = 0;
			bool keep = true;
			if (drop_noise) {
				if (strcmp(tok, "mig") == 0)
					break;
				/* "Max-Q" arrives as two tokens */
				if (prev_max && strcmp(tok, "q") == 0 && o >= 3) {
					keep = false;
					o -= 3;
				}
				if (keep && noise_token(tok))
					keep = false;
			}
			prev_max = keep && strcmp(tok, "max") == 0;
			if (keep)
				for (size_t i = 0; i < tl && o + 1 < NORM_MAX; i++)
					out[o++] = tok[i];
			out[o] = 0;
			tl = 0;
		}
		if (!c)
			break;
	}
	/* Prefixes are removed from the joined string so "geforcertx4090" works too. */
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
			size_t pl = strlen(prefixes[i]);
			if (has_prefix(out, prefixes[i])) {
				memmove(out, out + pl, strlen(out + pl) + 1);
				again = true;
			}
		}
	}
}

/* Calls fn for the display name and every alias of row g; stops when fn returns true. */
static bool each_name(const struct ws_gpu *g, bool (*fn)(const char *name, size_t len, void *ctx), void *ctx)
{
	if (fn(g->name, strlen(g->name), ctx))
		return true;
	for (const char *a = g->aliases; a && *a;) {
		const char *bar = strchr(a, '|');
		size_t len = bar ? (size_t)(bar - a) : strlen(a);
		if (fn(a, len, ctx))
			return true;
		a = bar ? bar + 1 : a + len;
	}
	return false;
}

static void normalise_n(const char *s, size_t len, char *out)
{
	char tmp[128];
	if (len >= sizeof tmp)
		len = sizeof tmp - 1;
	memcpy(tmp, s, len);
	tmp[len] = 0;
	normalise(tmp, out, false);
}

struct match_ctx { const char *want; };

static bool name_matches(const char *name, size_t len, void *ctx)
{
	const struct match_ctx *m = ctx;
	char n[NORM_MAX];
	normalise_n(name, len, n);
	return strcmp(n, m->want) == 0;
}

static const struct ws_gpu *lookup(const char *norm)
{
	struct match_ctx m = {norm};
	if (!*norm)
		return NULL;
	for (size_t i = 0; i < ws_gpu_count(); i++)
		if (each_name(&gpus[i], name_matches, &m))
			return &gpus[i];
	return NULL;
}

/* lookup, then with the product line the user left out: "4090" -> "rtx4090",
 * "A6000" -> "rtxa6000", "1080 Ti" -> "gtx1080ti". */
static const struct ws_gpu *lookup_loose(const char *norm)
{
	static const char *const lines[] = {"rtx", "gtx"};
	const struct ws_gpu *g = lookup(norm);
	char tmp[NORM_MAX + 4];
	for (size_t i = 0; !g && *norm && i < sizeof lines / sizeof lines[0]; i++) {
		snprintf(tmp, sizeof tmp, "%s%s", lines[i], norm);
		g = lookup(tmp);
	}
	return g;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transposition), so that
 * "rtx5900" is one step from "rtx5090". Inputs are at most NORM_MAX-1 chars. */
static unsigned osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[NORM_MAX + 1][NORM_MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Length of the common prefix: the first tie-break ("h1000" is nearer "h100" than "p1000"). */
static unsigned common_prefix(const char *a, const char *b)
{
	unsigned n = 0;
	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

/* Characters two strings share (as multisets): the second tie-break. */
static unsigned common_chars(const char *a, const char *b)
{
	unsigned ca[256] = {0}, n = 0;
	for (; *a; a++)
		ca[(unsigned char)*a]++;
	for (; *b; b++)
		if (ca[(unsigned char)*b]) {
			ca[(unsigned char)*b]--;
			n++;
		}
	return n;
}

struct near_ctx { const char *want; unsigned best, prefix, common; };

static bool name_distance(const char *name, size_t len, void *ctx)
{
	struct near_ctx *c = ctx;
	char n[NORM_MAX];
	normalise_n(name, len, n);
	unsigned d = osa_distance(c->want, n), p = common_prefix(c->want, n), k = common_chars(c->want, n);
	if (d < c->best || (d == c->best && (p > c->prefix || (p == c->prefix && k > c->common)))) {
		c->best = d;
		c->prefix = p;
		c->common = k;
	}
	return false;
}

/* Appends "; did you mean 'A', 'B', 'C'?" naming the three rows nearest to norm to the
 * message in buf (len bytes, truncated as snprintf does). */
static void suggest(const char *norm, char *buf, size_t len)
{
	size_t pick[3];
	struct near_ctx top[3];
	unsigned np = 0;
	for (size_t i = 0; i < ws_gpu_count(); i++) {
		struct near_ctx c = {norm, ~0u, 0, 0};
		each_name(&gpus[i], name_distance, &c);
		/* insertion into the sorted top 3: lower distance, longer common prefix, more shared
		 * characters, then table order */
		unsigned pos = np;
		while (pos > 0 && (c.best < top[pos - 1].best ||
				   (c.best == top[pos - 1].best && (c.prefix > top[pos - 1].prefix ||
				    (c.prefix == top[pos - 1].prefix && c.common > top[pos - 1].common)))))
			pos--;
		if (pos >= 3)
			continue;
		for (unsigned k = np < 3 ? np : 2; k > pos; k--) {
			pick[k] = pick[k - 1];
			top[k] = top[k - 1];
		}
		pick[pos] = i;
		top[pos] = c;
		if (np < 3)
			np++;
	}
	size_t l = strlen(buf);
	for (unsigned k = 0; k < np && l < len; k++) {
		snprintf(buf + l, len - l, "%s'%s'", k ? ", " : "; did you mean ", gpus[pick[k]].name);
		l += strlen(buf + l);
	}
	if (np && l < len)
		snprintf(buf + l, len - l, "?");
}


void ws_target_set(struct ws_target *t, unsigned cc, const char *label)
{
	memset(t, 0, sizeof *t);
	t->cc = (uint16_t)cc;
	snprintf(t->name, sizeof t->name, "sm_%u", cc);
	if (label)
		snprintf(t->label, sizeof t->label, "%s", label);
}

/* Reads 1-3 decimal digits; returns the count read. */
static size_t digits(const char *s, unsigned *v)
{
	size_t i = 0;
	*v = 0;
	while (i < 4 && isdigit((unsigned char)s[i]))
		*v = *v * 10 + (unsigned)(s[i++] - '0');
	return i;
}

/* CCs accepted as numbers: 3.0 up to 19.9. Unknown CCs in range are accepted on purpose
 * (a newer GPU can be judged by the general rules before the table knows it). */
static bool cc_ok(unsigned cc)
{
	return cc >= 30 && cc < 200;
}

int ws_target_parse(const char *s, struct ws_target *t, struct ws_err *err)
{
	char buf[128], norm[NORM_MAX], shown[64];
	unsigned v, minor;
	size_t n;

	if (!s || !t) {
		ws_err_set(err, WS_E_FORMAT, "no GPU given");
		return -1;
	}
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0) {
		ws_err_set(err, WS_E_FORMAT, "empty GPU name");
		return -1;
	}
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	ws_sanitize(shown, sizeof shown, s, n);   /* for messages: as typed, trimmed */
	memcpy(buf, s, n);
	buf[n] = 0;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);

	/* sm_XY[a|f] / compute_XY[a|f]: the suffix only narrows what code may run, the device is X.Y */
	const char *p = NULL;
	if (has_prefix(buf, "sm"))
		p = buf + 2;
	else if (has_prefix(buf, "compute"))
		p = buf + 7;
	if (p) {
		if (*p == '_')
			p++;
		size_t k = digits(p, &v);
		if (k >= 2 && k <= 3 && (p[k] == 0 || ((p[k] == 'a' || p[k] == 'f') && p[k + 1] == 0)) && cc_ok(v)) {
			ws_target_set(t, v, "");
			return 0;
		}
		if (k > 0) {
			ws_err_set(err, WS_E_FORMAT, "invalid architecture '%s' (expected sm_XY such as sm_90 or sm_120)", shown);
			return -1;
		}
	}
	/* X.Y */
	n = digits(buf, &v);
	if (n >= 1 && n <= 2 && buf[n] == '.' && isdigit((unsigned char)buf[n + 1]) && buf[n + 2] == 0) {
		minor = (unsigned)(buf[n + 1] - '0');
		if (cc_ok(v * 10 + minor)) {
			ws_target_set(t, v * 10 + minor, "");
			return 0;
		}
		ws_err_set(err, WS_E_FORMAT, "invalid compute capability '%s'", shown);
		return -1;
	}
	/* XY / XYZ */
	if (n >= 1 && n <= 3 && buf[n] == 0) {
		if (n >= 2 && cc_ok(v)) {
			ws_target_set(t, v, "");
			return 0;
		}
		ws_err_set(err, WS_E_FORMAT, "invalid compute capability '%s' (write %u.0 or sm_%u0 for major %u)",
			shown, v, v, v);
		return -1;
	}
	/* a GPU name: exact after normalisation, then without nvidia-smi decorations */
	normalise(s, norm, false);
	const struct ws_gpu *g = lookup_loose(norm);
	if (!g) {
		char norm2[NORM_MAX];
		normalise(s, norm2, true);
		g = lookup_loose(norm2);
	}
	if (g) {
		ws_target_set(t, g->cc, g->name);
		return 0;
	}
	if (err && !err->code) {
		ws_err_set(err, WS_E_FORMAT, "unknown GPU '%s'", shown);
		suggest(norm, err->msg, sizeof err->msg);
	}
	return -1;
}

/* Is name one of the '/'-separated parts of label? */
static bool label_has(const char *label, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = label; *p;) {
		const char *slash = strchr(p, '/');
		size_t l = slash ? (size_t)(slash - p) : strlen(p);
		if (l == n && memcmp(p, name, n) == 0)
			return true;
		p += l + (slash != NULL);
	}
	return false;
}

int ws_targets_parse_list(const char *list, struct ws_target **out, size_t *n, struct ws_err *err)
{
	struct ws_target *v;
	size_t nv = 0;

	*out = NULL;
	*n = 0;
	if (!list) {
		ws_err_set(err, WS_E_FORMAT, "empty GPU list");
		return -1;
	}
	v = ws_calloc(WS_MAX_TARGETS, sizeof *v);
	if (!v) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return -1;
	}
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[128];
		struct ws_target t;

		if (len >= sizeof item)
			len = sizeof item - 1;
		memcpy(item, p, len);
		item[len] = 0;
		size_t sp = strspn(item, " \t\n\v\f\r");
		if (!item[sp]) {               /* what ws_target_parse calls an empty GPU name */
			ws_err_set(err, WS_E_FORMAT, "empty item in GPU list '%.60s'", list);
			free(v);
			return -1;
		}
		if (ws_target_parse(item, &t, err) < 0) {
			free(v);
			return -1;
		}
		/* one verdict per CC: a second name for the same CC joins the first one's label */
		size_t i;
		for (i = 0; i < nv && v[i].cc != t.cc; i++)
			;
		if (i < nv) {
			size_t l = strlen(v[i].label), tl = strlen(t.label);
			if (tl && !label_has(v[i].label, t.label) && l + 1 + tl < sizeof v[i].label) {
				char *d = v[i].label + l;
				if (l)
					*d++ = '/';
				memcpy(d, t.label, tl + 1);
			}
		} else if (nv == WS_MAX_TARGETS) {
			ws_err_set(err, WS_E_LIMIT, "too many GPUs in list");
			free(v);
			return -1;
		} else {
			v[nv++] = t;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = v;
	*n = nv;
	return 0;
}
