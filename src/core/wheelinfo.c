/* wheelinfo.c - wheel facts: file name tags, METADATA, WHEEL and the RECORD table.
 *
 * File name (PEP 427):  {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl
 * METADATA / WHEEL:     RFC 822 style "Key: value" headers up to the first blank line
 * RECORD (PEP 376):     CSV rows  path,algo=<urlsafe base64, no padding>,size
 *                       (quoted fields with "" escapes, as Python's csv module writes)
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ws_util.h"
#include "ws_wheelinfo.h"
#include "ws_record.h"

/* ---- file name --------------------------------------------------------- */

int ws_wheel_parse_filename(struct ws_wheel_info *w, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len <= 4 || strcasecmp(base + len - 4, ".whl") != 0)
		return -1;
	len -= 4;
	const char *part[6];
	size_t plen[6], np = 0, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && base[i] != '-')
			continue;
		if (np == 6 || i == start)
			return -1;                /* too many parts, or an empty one */
		part[np] = base + start;
		plen[np++] = i - start;
		start = i + 1;
	}
	if (np != 5 && np != 6)
		return -1;
	char *name = ws_strndup(part[0], plen[0]);
	char *version = ws_strndup(part[1], plen[1]);
	char *py = ws_strndup(part[np - 3], plen[np - 3]);
	char *abi = ws_strndup(part[np - 2], plen[np - 2]);
	char *plat = ws_strndup(part[np - 1], plen[np - 1]);
	char *local = NULL;
	const char *plus = version ? strchr(version, '+') : NULL;
	if (plus && plus[1])
		local = ws_strdup(plus + 1);
	if (!name || !version || !py || !abi || !plat || (plus && plus[1] && !local)) {
		free(name); free(version); free(py); free(abi); free(plat); free(local);
		return -1;
	}
	free(w->name); free(w->version); free(w->local);
	free(w->python_tag); free(w->abi_tag); free(w->platform_tag);
	w->name = name;
	w->version = version;
	w->local = local;
	w->python_tag = py;
	w->abi_tag = abi;
	w->platform_tag = plat;
	return 0;
}

/* ---- CPU-only builds ---------------------------------------------------- */

/* The local version label of "2.5.1+cpu" (a version's text after '+'), or NULL. */
static const char *local_label(const struct ws_wheel_info *w)
{
	if (w->local)
		return w->local;
	const char *v = w->meta_version ? strchr(w->meta_version, '+') : NULL;
	return v && v[1] ? v + 1 : NULL;
}

const char *ws_wheel_cpu_only(const struct ws_wheel_info *w)
{
	if (!w)
		return NULL;
	/* PyTorch's index labels its CPU builds: "+cpu", "+cpu.cxx11.abi", "+cpu-cxx11-abi";
	 * PyG's extensions built for one torch "+pt25cpu" (beside "+pt25cu124") */
	const char *l = local_label(w);
	for (const char *c = l ? strcasestr(l, "cpu") : NULL; c; c = strcasestr(c + 1, "cpu"))
		if ((c == l || !isalpha((unsigned char)c[-1])) && !isalnum((unsigned char)c[3]))
			return "its version's local label says cpu";
	/* PyPI's torch, torchvision and torchaudio for Windows and macOS are CPU-only builds
	 * of packages whose Linux wheels (and PyTorch's index) carry CUDA device code. Names
	 * compare as PEP 503 normalises them: case, '-', '_' and '.' alike. */
	static const char *const family[] = {"torch", "torchvision", "torchaudio", "pytorch"};  /* conda: pytorch */
	const char *name = w->meta_name ? w->meta_name : w->name;
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof family / sizeof *family; i++)
		if (!strcasecmp(name, family[i]))
			return "PyPI's torch, torchvision and torchaudio for Windows and macOS are CPU-only builds";
	return NULL;
}

const char *ws_artifact_cpu_only(const struct ws_artifact *a)
{
	if (!a->wheel || a->nerrors)
		return NULL;
	for (uint32_t i = 0; i < a->nobjects; i++)
		if (a->objects[i].nfatbins)
			return NULL;
	return ws_wheel_cpu_only(a->wheel);
}

/* ---- METADATA and WHEEL ------------------------------------------------ */

/* Calls fn for each "Key: value" header line before the first blank line. */
static void each_header(const char *p, size_t n, void (*fn)(void *ctx, const char *k, size_t kl,
							     const char *v, size_t vl), void *ctx)
{
	size_t i = 0;
	while (i < n) {
		size_t e = i;
		while (e < n && p[e] != '\n')
			e++;
		size_t le = e;
		if (le > i && p[le - 1] == '\r')
			le--;
		if (le == i)
			break;                    /* blank line: the body (description) follows */
		if (p[i] != ' ' && p[i] != '\t') {    /* continuation lines are skipped */
			const char *c = memchr(p + i, ':', le - i);
			if (c) {
				size_t kl = (size_t)(c - (p + i));
				const char *v = c + 1;
				while (v < p + le && (*v == ' ' || *v == '\t'))
					v++;
				size_t vl = (size_t)(p + le - v);
				while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
					vl--;
				fn(ctx, p + i, kl, v, vl);
			}
		}
		i = e + 1;
	}
}

static bool key_is(const char *k, size_t kl, const char *want)
{
	return strlen(want) == kl && strncasecmp(k, want, kl) == 0;
}

struct meta_ctx {
	struct ws_wheel_info *w;
	int major, extra_major;
};

/* "torch (==2.5.1)" or "torch==2.5.1+cu124; ..." -> the pinned version (a build made for
 * one torch: extensions such as xformers pin the torch they were built against). */
static char *pinned_torch(const char *v, size_t vl)
{
	size_t i = 5;
	if (vl < 8 || strncasecmp(v, "torch", 5) != 0)
		return NULL;
	while (i < vl && (v[i] == ' ' || v[i] == '('))
		i++;
	if (i + 2 >= vl || v[i] != '=' || v[i + 1] != '=')
		return NULL;
	i += 2;
	size_t e = i;
	while (e < vl && (isalnum((unsigned char)v[e]) || v[e] == '.' || v[e] == '+' || v[e] == '_' || v[e] == '-'))
		e++;
	return e > i && e - i < 64 ? ws_strndup(v + i, e - i) : NULL;
}

/* "nvidia-cuda-runtime-cu12 (==12.4.127) ; ..." -> 12040: the CUDA runtime a wheel pins
 * is the CUDA it was built with (PyTorch pins the one it built against). From torch 2.11 on
 * PyTorch pins NVIDIA's metapackage instead, "cuda-toolkit[cudart,...]==13.2.2" (its cudart
 * extra is the runtime). 0 if none. */
static int pinned_runtime(const char *v, size_t vl)
{
	static const char name[] = "nvidia-cuda-runtime-cu", kit[] = "cuda-toolkit";
	size_t i = sizeof name - 1, k = sizeof kit - 1;
	unsigned major = 0, minor = 0, nd = 0;
	if (vl > k && strncasecmp(v, kit, k) == 0 && (v[k] == '[' || v[k] == ' ' || v[k] == '=')) {
		const char *close = v[k] == '[' ? memchr(v + k, ']', vl - k) : NULL;
		if (v[k] == '[' && (!close || !memmem(v + k, (size_t)(close - v) - k, "cudart", 6)))
			return 0;            /* no runtime among the extras: it pins no runtime */
		i = close ? (size_t)(close - v) + 1 : k;
	} else if (vl < i || strncasecmp(v, name, i) != 0) {
		return 0;
	}
	while (i < vl && isdigit((unsigned char)v[i]))
		i++;
	while (i < vl && (v[i] == ' ' || v[i] == '('))
		i++;
	if (i + 2 > vl || v[i] != '=' || v[i + 1] != '=')
		return 0;
	for (i += 2; i < vl && isdigit((unsigned char)v[i]) && nd < 3; i++, nd++)
		major = major * 10 + (unsigned)(v[i] - '0');
	if (!nd || i >= vl || v[i] != '.' || ++i >= vl || !isdigit((unsigned char)v[i]))
		return 0;
	minor = (unsigned)(v[i] - '0');
	if (i + 1 < vl && isdigit((unsigned char)v[i + 1]))
		return 0;
	return (int)(major * 1000 + minor * 10);
}

static void meta_header(void *ctx, const char *k, size_t kl, const char *v, size_t vl)
{
	struct meta_ctx *m = ctx;
	if (key_is(k, kl, "Name") && !m->w->meta_name) {
		m->w->meta_name = ws_strndup(v, vl);
	} else if (key_is(k, kl, "Version") && !m->w->meta_version) {
		m->w->meta_version = ws_strndup(v, vl);
	} else if (key_is(k, kl, "Requires-Dist")) {
		bool extra = false;
		int major = ws_requirement_cuda_major(v, vl, &extra);
		int *slot = extra ? &m->extra_major : &m->major;
		if (major > *slot)
			*slot = major;
		int rt = extra ? 0 : pinned_runtime(v, vl);
		if (rt)
			m->w->requires_cuda_runtime = rt;
		char *torch = extra || m->w->requires_torch ? NULL : pinned_torch(v, vl);
		if (torch)
			m->w->requires_torch = torch;
	}
}

void ws_wheel_parse_metadata(struct ws_wheel_info *w, const char *p, size_t n)
{
	struct meta_ctx m = { .w = w };
	each_header(p, n, meta_header, &m);
	/* What the wheel always pulls in wins; an optional extra's CUDA is the fallback. */
	w->requires_cuda_major = m.major ? m.major : m.extra_major;
}

struct wheel_ctx {
	struct ws_wheel_info *w;
	bool tags;                         /* take the tags from "Tag:" (the file name had none) */
};

/* Adds part to the dotted set *set ("py2.py3"), once, as a file name's compressed tag set
 * says it; a set grows to WS_TAGSET_MAX bytes at most (a WHEEL is a stranger's file). */
#define WS_TAGSET_MAX 256
static void tagset_add(char **set, const char *part, size_t n)
{
	size_t have = *set ? strlen(*set) : 0;
	for (const char *q = *set; q && *q;) {
		const char *dot = strchr(q, '.');
		size_t l = dot ? (size_t)(dot - q) : strlen(q);
		if (l == n && !memcmp(q, part, n))
			return;
		q += l + (dot != NULL);
	}
	if (!n || memchr(part, '.', n) || have + 1 + n > WS_TAGSET_MAX)
		return;
	char *grown = ws_reallocarray(*set, have + n + 2, 1);
	if (!grown)
		return;
	if (have)
		grown[have++] = '.';
	memcpy(grown + have, part, n);
	grown[have + n] = '\0';
	*set = grown;
}

static void wheel_header(void *ctx, const char *k, size_t kl, const char *v, size_t vl)
{
	struct wheel_ctx *c = ctx;
	struct ws_wheel_info *w = c->w;
	if (key_is(k, kl, "Generator") && !w->generator)
		w->generator = ws_strndup(v, vl);
	if (key_is(k, kl, "Tag") && c->tags) {
		/* "cp311-cp311-manylinux_2_28_x86_64": three parts, none empty */
		const char *d1 = memchr(v, '-', vl);
		const char *d2 = d1 ? memchr(d1 + 1, '-', vl - (size_t)(d1 + 1 - v)) : NULL;
		if (!d1 || !d2 || d1 == v || d2 == d1 + 1 || d2 + 1 == v + vl ||
		    memchr(d2 + 1, '-', vl - (size_t)(d2 + 1 - v)))
			return;
		tagset_add(&w->python_tag, v, (size_t)(d1 - v));
		tagset_add(&w->abi_tag, d1 + 1, (size_t)(d2 - d1 - 1));
		tagset_add(&w->platform_tag, d2 + 1, vl - (size_t)(d2 + 1 - v));
	}
}

void ws_wheel_parse_wheelfile(struct ws_wheel_info *w, const char *p, size_t n)
{
	struct wheel_ctx c = {w, !w->python_tag && !w->abi_tag && !w->platform_tag};
	each_header(p, n, wheel_header, &c);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int ws_requirement_cuda_major(const char *s, size_t n, bool *extra_only)
{
	char name[128];
	size_t i = 0, k = 0;
	*extra_only = false;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	for (; i < n; i++) {
		char c = s[i];
		bool namechar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
				c == '-' || c == '_' || c == '.';
		if (!namechar)
			break;
		if (k + 1 >= sizeof name)
			return 0;
		/* PEP 503 normalisation: case-insensitive, runs of -_. are one '-' */
		if (c == '_' || c == '.')
			c = '-';
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c == '-' && k && name[k - 1] == '-')
			continue;
		name[k++] = c;
	}
	name[k] = '\0';
	const char *rest = s + i;
	size_t restn = n - i;
	const char *semi = memchr(rest, ';', restn);
	if (semi) {
		/* the marker mentions extra: only wanted with that extra */
		for (const char *q = semi; q + 5 <= rest + restn; q++)
			if (memcmp(q, "extra", 5) == 0) {
				*extra_only = true;
				break;
			}
		restn = (size_t)(semi - rest);
	}
	if (strncmp(name, "nvidia-", 7) != 0)
		return 0;
	/* nvidia-*-cuNN: the suffix names the CUDA major */
	const char *cu = strrchr(name, '-');
	if (cu && cu[1] == 'c' && cu[2] == 'u' && is_digit(cu[3])) {
		int v = 0;
		const char *d = cu + 3;
		while (is_digit(*d) && v < 1000)
			v = v * 10 + (*d++ - '0');
		return *d == '\0' && v >= 1 && v < 1000 ? v : 0;
	}
	/* CUDA 13 wheels dropped the suffix; for these three the package's own
	 * major version is the CUDA major ("nvidia-cuda-runtime==13.0.96"). */
	if (strcmp(name, "nvidia-cuda-runtime") != 0 && strcmp(name, "nvidia-cuda-nvrtc") != 0 &&
	    strcmp(name, "nvidia-cublas") != 0)
		return 0;
	for (size_t j = 0; j + 2 < restn; j++) {
		if ((rest[j] == '=' || rest[j] == '>' || rest[j] == '~') && rest[j + 1] == '=') {
			size_t d = j + 2;
			while (d < restn && rest[d] == ' ')
				d++;
			int v = 0;
			size_t nd = 0;
			while (d < restn && is_digit(rest[d]) && nd < 4) {
				v = v * 10 + (rest[d++] - '0');
				nd++;
			}
			if (nd && v >= 10 && v < 100)
				return v;
			return 0;
		}
	}
	return 0;
}

/* ---- dist-info --------------------------------------------------------- */

bool ws_distinfo_file(const char *name, const char *file, size_t *prefix_len)
{
	const char *slash = strchr(name, '/');
	if (!slash || slash == name)
		return false;
	size_t dl = (size_t)(slash - name);
	if (dl <= 10 || memcmp(slash - 10, ".dist-info", 10) != 0)
		return false;
	if (strcmp(slash + 1, file) != 0)
		return false;
	if (prefix_len)
		*prefix_len = dl + 1;
	return true;
}

/* ---- RECORD ------------------------------------------------------------ */

/* Keyed (ws_hash64): a RECORD cannot be written to make its paths collide. */
static uint64_t path_hash(const char *s)
{
	return ws_hash64(s, strlen(s));
}

static bool record_rehash(struct ws_record_index *r, uint32_t nslot)
{
	uint32_t *slot = ws_calloc(nslot, sizeof *slot);
	if (!slot)
		return false;
	for (uint32_t i = 0; i < r->n; i++) {
		uint32_t k = (uint32_t)r->line[i].hash & (nslot - 1);
		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = i + 1;
	}
	free(r->slot);
	r->slot = slot;
	r->nslot = nslot;
	return true;
}

int64_t ws_record_find(const struct ws_record_index *r, const char *path)
{
	if (!r->nslot)
		return -1;
	uint64_t h = path_hash(path);
	uint32_t k = (uint32_t)h & (r->nslot - 1);
	while (r->slot[k]) {
		const struct ws_record_line *L = &r->line[r->slot[k] - 1];
		if (L->hash == h && strcmp(L->path, path) == 0)
			return r->slot[k] - 1;
		k = (k + 1) & (r->nslot - 1);
	}
	return -1;
}

void ws_record_index_free(struct ws_record_index *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n; i++) {
		free(r->line[i].path);
		free(r->line[i].digest);
	}
	free(r->line);
	free(r->slot);
	memset(r, 0, sizeof *r);
}

/* One CSV field starting at *pos, unquoted into a fresh string; sets *eol
 * when it ended its row, *bad on a broken quote or no memory. */
static char *csv_field(const char *p, size_t n, size_t *pos, bool *eol, bool *bad)
{
	size_t i = *pos, from, to, len = 0;
	bool quoted = i < n && p[i] == '"';
	*eol = false;
	if (quoted) {
		from = ++i;
		for (;;) {
			if (i >= n) {             /* unterminated quote */
				*bad = true;
				return NULL;
			}
			if (p[i] == '"') {
				if (i + 1 < n && p[i + 1] == '"') {
					len++;
					i += 2;
					continue;
				}
				break;
			}
			len++;
			i++;
		}
		to = i++;
		/* after the closing quote only a separator or the row end may follow */
		if (i < n && p[i] != ',' && p[i] != '\n' && p[i] != '\r') {
			*bad = true;
			return NULL;
		}
	} else {
		from = i;
		while (i < n && p[i] != ',' && p[i] != '\n' && p[i] != '\r')
			i++;
		to = i;
		len = to - from;
	}
	char *out = ws_malloc(len + 1);
	if (!out) {
		*bad = true;
		return NULL;
	}
	size_t o = 0;
	for (size_t j = from; j < to; j++) {
		out[o++] = p[j];
		if (quoted && p[j] == '"')
			j++;                      /* "" stands for one quote */
	}
	out[o] = '\0';
	if (i >= n) {
		*eol = true;
	} else if (p[i] == ',') {
		i++;
	} else {
		if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
			i++;
		i++;
		*eol = true;
	}
	*pos = i;
	return out;
}

static bool parse_size(const char *s, int64_t *v)
{
	if (!*s) {
		*v = -1;
		return true;
	}
	uint64_t x = 0;
	for (; *s; s++) {
		if (!is_digit(*s) || x > (uint64_t)INT64_MAX / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x > (uint64_t)INT64_MAX)
		return false;
	*v = (int64_t)x;
	return true;
}

int ws_record_parse(struct ws_record_index *r, const char *p, size_t n, struct ws_err *err)
{
	size_t pos = 0;
	uint32_t row = 0;
	memset(r, 0, sizeof *r);
	while (pos < n) {
		row++;
		char *f[3] = { NULL, NULL, NULL };
		size_t nf = 0;
		bool eol = false, bad = false;
		while (!eol && !bad) {
			char *v = csv_field(p, n, &pos, &eol, &bad);
			if (!v)
				break;
			if (nf < 3)
				f[nf++] = v;
			else
				free(v);          /* extra columns are ignored */
		}
		if (bad) {
			free(f[0]); free(f[1]); free(f[2]);
			ws_err_set(err, WS_E_FORMAT, "RECORD is malformed at row %u", row);
			goto fail;
		}
		if (nf == 1 && f[0][0] == '\0') {     /* blank line */
			free(f[0]);
			continue;
		}
		struct ws_record_line L = { .size = -1 };
		const char *h = nf > 1 ? f[1] : "";
		const char *eq = strchr(h, '=');
		bool ok = f[0][0] != '\0' && parse_size(nf > 2 ? f[2] : "", &L.size);
		if (ok && *h) {
			size_t al = eq ? (size_t)(eq - h) : 0;
			ok = eq && al > 0 && al < sizeof L.algo;
			if (ok) {
				memcpy(L.algo, h, al);
				L.algo[al] = '\0';
				size_t dl = strlen(eq + 1);
				while (dl && eq[1 + dl - 1] == '=')
					dl--;
				L.digest = ws_strndup(eq + 1, dl);
				ok = L.digest != NULL;
			}
		}
		free(f[1]);
		free(f[2]);
		if (!ok) {
			free(f[0]);
			free(L.digest);
			ws_err_set(err, WS_E_FORMAT, "RECORD is malformed at row %u", row);
			goto fail;
		}
		L.path = f[0];
		L.hash = path_hash(L.path);
		if (ws_record_find(r, L.path) >= 0) {  /* a repeated row adds nothing */
			free(L.path);
			free(L.digest);
			continue;
		}
		if (!ws_grow((void **)&r->line, &r->cap, r->n + 1, sizeof *r->line) ||
		    ((uint64_t)(r->n + 1) * 2 > r->nslot && !record_rehash(r, r->nslot ? r->nslot * 2 : 64))) {
			free(L.path);
			free(L.digest);
			ws_err_set(err, WS_E_MEMORY, "out of memory reading RECORD");
			goto fail;
		}
		r->line[r->n++] = L;
		/* insert into the table */
		uint32_t k = (uint32_t)L.hash & (r->nslot - 1);
		while (r->slot[k])
			k = (k + 1) & (r->nslot - 1);
		r->slot[k] = r->n;
	}
	return 0;
fail:
	ws_record_index_free(r);
	return -1;
}

bool ws_record_row_inside(const char *p)
{
	if (!*p || *p == '/')
		return false;
	for (const char *s = p; *s; ) {
		const char *e = strchr(s, '/');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (l == 2 && s[0] == '.' && s[1] == '.')
			return false;
		s += l + (e != NULL);
	}
	return true;
}
