/* loadres.c - the environment's shared objects resolved as the dynamic loader resolves
 * them (ws_loadres.h). The rules (glibc ld.so(8), "Rpath token expansion" and the search
 * order; Microsoft "Dynamic-link library search order"):
 *  - ELF: a library of that soname already loaded is used first; then DT_RPATH (only when
 *    there is no DT_RUNPATH), LD_LIBRARY_PATH (not set: not read), DT_RUNPATH, with $ORIGIN
 *    the object's own folder; then ld.so.cache and the system folders. Entries outside the
 *    environment (absolute paths, $ORIGIN/.. past the site folder) are the system's and are
 *    not looked at.
 *  - PE: a module of that name already loaded; the module's own folder; folders added
 *    with os.add_dll_directory (not read: noted); the system; PATH.
 * Every needed library is one hash lookup in the provider index (by path for the run path,
 * by soname otherwise); each object's closure is resolved once (memoised, depth-bounded).
 * Symbol checks follow the loader's RTLD_NOW binding: a versioned reference needs that
 * version in the library that defines it; an unversioned C++ reference whose namespace a
 * library of the closure exports ("c10") must be defined in the closure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ws_loadres.h"
#include "ws_util.h"

#define MAX_DEPTH 64
#define MAX_CLOSURE 4096u
#define MAX_PRELOAD 64u                /* libraries an object's preload list names */
#define MAX_PATH_LEN 4096u

struct ent {
	size_t dist;
	const struct ws_dynlib *lib;
	char *path;                    /* normalised, environment-relative ("torch/lib/libc10.so") */
	const char *key;               /* soname, else the file name */
	uint32_t next_key;             /* 1 + next entry of the same key, 0 none */
	/* resolution, once */
	uint8_t state;                 /* 0 not yet, 1 in progress, 2 done */
	bool alone, fails, elsewhere;
	char *why;
	uint32_t *pre;                 /* 1 + entries to load first, deps first */
	uint32_t npre;
	uint32_t *prov;                /* per needed: 1 + the entry used, 0 system or none */
	uint8_t *how;                  /* per needed: enum ws_load_how */
};

struct index {
	struct ent *e;
	size_t n;
	uint32_t *by_path, *by_key;    /* open addressing: 1 + entry, 0 empty */
	size_t cap;                    /* a power of two, at least 2n */
	const struct ws_load_dist *dists;
	struct ws_loadres *res;
	bool failed;
	uint32_t *seen, stamp;         /* closure(): visited at this stamp */
	uint32_t *needers;             /* per entry, first of its key: objects that need the key */
	size_t dist_issues;            /* the first issue of the distribution being said */
};

bool ws_load_system_library(const char *n)
{
	static const char *const elf[] = {
		"libc.so.", "libm.so.", "libdl.so.", "libpthread.so.", "librt.so.", "libutil.so.", "libgcc_s.so.",
		"libstdc++.so.", "ld-linux", "libcuda.so.", "libnvidia-ml.so.", "libnvcuvid.so.",
		"libnvidia-encode.so.", "libcrypt.so.", "libresolv.so.", "libanl.so.", "libz.so.", "libatomic.so.",
		"libgomp.so.", "libmvec.so.", "linux-vdso.so.", NULL};
	static const char *const pe[] = {
		"kernel32.dll", "user32.dll", "advapi32.dll", "ws2_32.dll", "shell32.dll", "ole32.dll",
		"oleaut32.dll", "gdi32.dll", "msvcrt.dll", "ntdll.dll", "bcrypt.dll", "crypt32.dll", "shlwapi.dll",
		"version.dll", "dbghelp.dll", "setupapi.dll", "cfgmgr32.dll", "psapi.dll", "nvcuda.dll", "nvml.dll",
		"ucrtbase.dll", "msvcp140.dll", "msvcp140_1.dll", "msvcp140_2.dll", "vcruntime140.dll",
		"vcruntime140_1.dll", "vcomp140.dll", "concrt140.dll", "secur32.dll", "iphlpapi.dll", "winmm.dll",
		"comdlg32.dll", "rpcrt4.dll", "userenv.dll", "dxgi.dll", "d3d11.dll", "d3d12.dll", NULL};
	for (int i = 0; elf[i]; i++)
		if (!strncmp(n, elf[i], strlen(elf[i])))
			return true;
	if (!strncasecmp(n, "api-ms-win-", 11) || !strncasecmp(n, "ext-ms-", 7) || !strncasecmp(n, "python3", 7))
		return true;
	if (!strncmp(n, "libpython3", 10))
		return true;                   /* the interpreter that imports the module */
	for (int i = 0; pe[i]; i++)
		if (!strcasecmp(n, pe[i]))
			return true;
	return false;
}

/* ---- paths ------------------------------------------------------------------- */

/* "pkg-1.0.data/platlib/x/y.so" -> "x/y.so": a wheel's install scheme folders are the site
 * folder once installed */
static const char *installed_path(const char *m)
{
	const char *d = strstr(m, ".data/");
	if (d && !memchr(m, '/', (size_t)(d - m))) {
		const char *r = d + 6;
		if (!strncmp(r, "purelib/", 8))
			return r + 8;
		if (!strncmp(r, "platlib/", 8))
			return r + 8;
	}
	return m;
}

/* Normalises "a/./b/../c" in place; false when ".." leaves the root (outside). */
static bool normalise(char *p)
{
	size_t starts[512], depth = 0, o = 0;
	const char *seg = p;
	char *out = p;
	while (*seg) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			if (!depth)
				return false;
			o = starts[--depth];
		} else if (len && !(len == 1 && seg[0] == '.')) {
			if (depth >= sizeof starts / sizeof *starts)
				return false;
			starts[depth++] = o;
			if (o)
				out[o++] = '/';
			memmove(out + o, seg, len);   /* o never passes seg: the output only shrinks */
			o += len;
		}
		if (!end)
			break;
		seg = end + 1;
	}
	out[o] = 0;
	return true;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static uint64_t key_hash(const char *s)
{
	return ws_hash64(s, strlen(s));
}

static uint32_t *slot(uint32_t *tab, size_t cap, const struct ent *e, const char *k, bool by_path)
{
	size_t i = (size_t)key_hash(k) & (cap - 1);
	for (;; i = (i + 1) & (cap - 1)) {
		if (!tab[i])
			return &tab[i];
		const struct ent *x = &e[tab[i] - 1];
		if (!strcmp(by_path ? x->path : x->key, k))
			return &tab[i];
	}
}

static const struct ent *by_path(const struct index *ix, const char *path)
{
	uint32_t *s = slot(ix->by_path, ix->cap, ix->e, path, true);
	return *s ? &ix->e[*s - 1] : NULL;
}

static uint32_t first_of_key(const struct index *ix, const char *k)
{
	uint32_t *s = slot(ix->by_key, ix->cap, ix->e, k, false);
	return *s;
}

/* ---- the index ------------------------------------------------------------------ */

/* an entry's path as its distribution spells it (the index keeps a PE's in lower case) */
#define SHOWN(x) installed_path((x)->lib->member)

static int build(struct index *ix, const struct ws_load_dist *d, size_t nd)
{
	size_t n = 0;
	for (size_t i = 0; i < nd; i++)
		n += d[i].nlibs;
	if (n >= UINT32_MAX / 4)
		return -1;
	ix->e = ws_calloc(n ? n : 1, sizeof *ix->e);
	ix->cap = 16;
	while (ix->cap < 2 * n)
		ix->cap *= 2;
	ix->by_path = ws_calloc(ix->cap, sizeof *ix->by_path);
	ix->by_key = ws_calloc(ix->cap, sizeof *ix->by_key);
	ix->seen = ws_calloc(n ? n : 1, sizeof *ix->seen);
	ix->needers = ws_calloc(n ? n : 1, sizeof *ix->needers);
	if (!ix->e || !ix->by_path || !ix->by_key || !ix->seen || !ix->needers)
		return -1;
	for (size_t i = 0; i < nd; i++)
		for (uint32_t k = 0; k < d[i].nlibs; k++) {
			const struct ws_dynlib *l = &d[i].libs[k];
			if (!l->member)
				continue;
			struct ent *e = &ix->e[ix->n];
			e->dist = i;
			e->lib = l;
			if (!(e->path = ws_strdup(installed_path(l->member))))
				return -1;
			if (l->pe)
				lower(e->path);
			if (!normalise(e->path) || !e->path[0]) {
				free(e->path);            /* a name that leaves its root: not indexed */
				e->path = NULL;
				continue;
			}
			const char *base = strrchr(e->path, '/');
			base = base ? base + 1 : e->path;
			e->key = l->soname && !l->pe ? l->soname : base;
			uint32_t *ps = slot(ix->by_path, ix->cap, ix->e, e->path, true);
			if (*ps) {
				free(e->path);            /* the same path twice (two wheels of one dist) */
				e->path = NULL;
				continue;
			}
			*ps = (uint32_t)ix->n + 1;
			uint32_t *ks = slot(ix->by_key, ix->cap, ix->e, e->key, false);
			if (*ks) {                        /* append: dist order decides which is first */
				struct ent *x = &ix->e[*ks - 1];
				while (x->next_key)
					x = &ix->e[x->next_key - 1];
				x->next_key = (uint32_t)ix->n + 1;
			} else {
				*ks = (uint32_t)ix->n + 1;
			}
			ix->n++;
		}
	return 0;
}

/* ---- resolution ----------------------------------------------------------------- */

static int add_assumed(struct ws_loadres *r, const char *name)
{
	for (size_t i = 0; i < r->nassumed; i++)
		if (!strcmp(r->assumed[i], name))
			return 0;
	return ws_strv_push(&r->assumed, &r->nassumed, name) ? 0 : -1;
}

/* The entry a run path entry finds for name, or NULL. dir is the object's folder. */
static const struct ent *search_runpath(struct index *ix, const struct ent *e, const char *name)
{
	const char *rp = e->lib->runpath;
	if (!rp)
		return NULL;
	char dir[MAX_PATH_LEN];
	const char *slash = strrchr(e->path, '/');
	size_t dl = slash ? (size_t)(slash - e->path) : 0;
	while (*rp) {
		const char *colon = strchr(rp, ':');
		size_t len = colon ? (size_t)(colon - rp) : strlen(rp);
		char buf[MAX_PATH_LEN];
		size_t o = 0;
		bool ok = len > 0 && rp[0] != '/';
		/* $ORIGIN and ${ORIGIN} anywhere; another token ($LIB, $PLATFORM) is not expanded */
		for (size_t i = 0; ok && i < len;) {
			size_t tl = !strncmp(rp + i, "$ORIGIN", 7) ? 7 : !strncmp(rp + i, "${ORIGIN}", 9) ? 9 : 0;
			if (tl && i + tl <= len) {
				if (o + dl + 1 >= sizeof buf)
					ok = false;
				else {
					memcpy(buf + o, e->path, dl);
					o += dl;
				}
				i += tl;
			} else if (rp[i] == '$') {
				ok = false;
			} else if (o + 1 < sizeof buf) {
				buf[o++] = rp[i++];
			} else {
				ok = false;
			}
		}
		if (ok && (len < 7 || strncmp(rp, "$ORIGIN", 7)) && strncmp(rp, "${ORIGIN}", 9))
			ok = false;               /* relative to the process's folder: not the environment */
		size_t nl = strlen(name);
		if (ok && o + nl + 2 < sizeof dir) {
			memcpy(dir, buf, o);
			dir[o] = '/';
			memcpy(dir + o + 1, name, nl + 1);
			if (normalise(dir)) {
				const struct ent *x = by_path(ix, dir);
				if (x)
					return x;
			}
		}
		if (!colon)
			break;
		rp = colon + 1;
	}
	return NULL;
}

static const struct ent *search_folder(struct index *ix, const struct ent *e, const char *name)
{
	char p[MAX_PATH_LEN], low[MAX_PATH_LEN];
	const char *slash = strrchr(e->path, '/');
	size_t dl = slash ? (size_t)(slash - e->path) : 0;
	snprintf(low, sizeof low, "%s", name);
	lower(low);
	size_t ll = strlen(low);
	if (dl + ll + 2 >= sizeof p)
		return NULL;
	memcpy(p, e->path, dl);
	if (dl)
		p[dl++] = '/';
	memcpy(p + dl, low, ll + 1);
	return by_path(ix, p);
}

static bool pe_lookup_key(const struct index *ix, const char *name, uint32_t *first)
{
	char low[MAX_PATH_LEN];
	snprintf(low, sizeof low, "%s", name);
	lower(low);
	*first = first_of_key(ix, low);
	return *first != 0;
}

static void set_why(struct ent *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_why(struct ent *e, const char *fmt, ...)
{
	if (e->why)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	e->why = ws_strdup(buf);
}

static bool pre_add(struct ent *e, uint32_t id)
{
	for (uint32_t i = 0; i < e->npre; i++)
		if (e->pre[i] == id)
			return true;
	if (e->npre >= MAX_PRELOAD)
		return true;
	uint32_t *nv = ws_reallocarray(e->pre, (size_t)e->npre + 1, sizeof *nv);
	if (!nv)
		return false;
	e->pre = nv;
	nv[e->npre++] = id;
	return true;
}

static void resolve(struct index *ix, struct ent *e, int depth);

/* How name is found for e (nothing loaded before it), and by which entry (1 + index). */
static enum ws_load_how how_found(struct index *ix, struct ent *e, const char *name, uint32_t *prov)
{
	const struct ent *x;
	*prov = 0;
	ix->res->lookups++;
	if (e->lib->pe) {
		if ((x = search_folder(ix, e, name)))
			return *prov = (uint32_t)(x - ix->e) + 1, WS_LOAD_RUNPATH;
		if (ws_load_system_library(name))
			return WS_LOAD_SYSTEM;
		if (pe_lookup_key(ix, name, prov))
			return WS_LOAD_PRELOADED;
	} else {
		if (strchr(name, '/'))
			return WS_LOAD_MISSING;
		if ((x = search_runpath(ix, e, name)))
			return *prov = (uint32_t)(x - ix->e) + 1, WS_LOAD_RUNPATH;
		if (ws_load_system_library(name))
			return WS_LOAD_SYSTEM;
		if ((*prov = first_of_key(ix, name)))
			return WS_LOAD_PRELOADED;
	}
	return ix->res->wheels_only ? WS_LOAD_ELSEWHERE : WS_LOAD_MISSING;
}

/* The library of e's closure that defines h, with e's providers first. */
static bool closure_defines(struct index *ix, const uint32_t *cl, uint32_t ncl, uint64_t h)
{
	for (uint32_t i = 0; i < ncl; i++)
		if (ws_dyn_defines(ix->e[cl[i]].lib, h))
			return true;
	return false;
}

/* e's closure in the environment: its providers, theirs, ... (bounded); each entry once,
 * by the index's visit stamps. */
static uint32_t closure(struct index *ix, struct ent *e, uint32_t *out)
{
	uint32_t n = 0;
	if (++ix->stamp == 0) {                   /* wrapped: start the stamps afresh */
		memset(ix->seen, 0, ix->n * sizeof *ix->seen);
		ix->stamp = 1;
	}
	out[n++] = (uint32_t)(e - ix->e);
	ix->seen[e - ix->e] = ix->stamp;
	for (uint32_t i = 0; i < n; i++) {
		const struct ent *x = &ix->e[out[i]];
		for (uint32_t k = 0; x->prov && k < x->lib->nneeded && n < MAX_CLOSURE; k++) {
			uint32_t p = x->prov[k];
			if (!p || ix->seen[p - 1] == ix->stamp)
				continue;
			ix->seen[p - 1] = ix->stamp;
			out[n++] = p - 1;
		}
	}
	return n;
}

/* The version and symbol checks of e against what resolves its references. */
static void check_symbols(struct index *ix, struct ent *e)
{
	const struct ws_dynlib *l = e->lib;
	if (l->pe || e->fails)
		return;
	/* needed version nodes: "version `V' not found (required by X)" */
	for (uint32_t v = 0; v < l->nvneeds && !e->fails; v++) {
		const struct ws_dyn_vneed *vn = &l->vneeds[v];
		for (uint32_t k = 0; k < l->nneeded; k++) {
			if (strcmp(l->needed[k], vn->file) || !e->prov || !e->prov[k])
				continue;
			const struct ent *p = &ix->e[e->prov[k] - 1];
			if (!p->lib->nverdefs || vn->weak)
				break;                    /* no versions there: the loader only warns */
			bool has = false;
			for (uint32_t d = 0; d < p->lib->nverdefs && !has; d++)
				has = !strcmp(p->lib->verdefs[d], vn->version);
			if (!has) {
				e->fails = true;
				set_why(e, "version `%s' not found (required by %s): %s %s provides %s without it", vn->version,
					l->member, ix->dists[p->dist].name, ix->dists[p->dist].version, SHOWN(p));
			}
			break;
		}
	}
	if (e->fails || !l->symbols_read || !l->nundefs)
		return;
	uint32_t *cl = ws_calloc(MAX_CLOSURE, sizeof *cl);
	if (!cl) {
		ix->failed = true;
		return;
	}
	uint32_t ncl = closure(ix, e, cl);
	for (uint32_t u = 0; u < l->nundefs && !e->fails; u++) {
		const struct ws_dyn_undef *s = &l->undefs[u];
		if (s->weak)
			continue;
		const char *ver = s->vneed ? l->vneeds[s->vneed - 1].version : NULL;
		const char *file = s->vneed ? l->vneeds[s->vneed - 1].file : NULL;
		bool checked = false, found = false;
		if (ver) {
			/* versioned: the named file, when it is the environment's and defines versions */
			for (uint32_t k = 0; k < l->nneeded && !checked; k++) {
				if (strcmp(l->needed[k], file) || !e->prov || !e->prov[k])
					continue;
				const struct ent *p = &ix->e[e->prov[k] - 1];
				if (p->lib->symbols_read && p->lib->nverdefs) {
					checked = true;
					found = closure_defines(ix, cl, ncl, ws_dyn_hash(s->name, ver));
				}
			}
		} else {
			uint64_t ns = ws_dyn_namespace(s->name);
			for (uint32_t i = 1; ns && i < ncl && !checked; i++)
				checked = ix->e[cl[i]].lib->symbols_read && ws_dyn_owns_namespace(ix->e[cl[i]].lib, ns);
			if (checked)
				found = closure_defines(ix, cl, ncl, ws_dyn_hash(s->name, NULL));
		}
		if (checked && !found) {
			e->fails = true;
			e->alone = false;
			set_why(e, "undefined symbol: %s%s%s", s->name, ver ? ", version " : "", ver ? ver : "");
		}
	}
	free(cl);
}

static void resolve(struct index *ix, struct ent *e, int depth)
{
	const struct ws_dynlib *l = e->lib;
	if (e->state)
		return;                               /* done, or a cycle: the loader allows those */
	e->state = 1;
	e->alone = true;
	if (l->nneeded && (!(e->prov = ws_calloc(l->nneeded, sizeof *e->prov)) ||
			   !(e->how = ws_calloc(l->nneeded, sizeof *e->how)))) {
		ix->failed = true;
		e->state = 2;
		return;
	}
	for (uint32_t k = 0; k < l->nneeded; k++) {
		const char *n = l->needed[k];
		uint32_t prov;
		enum ws_load_how how = how_found(ix, e, n, &prov);
		e->how[k] = (uint8_t)how;
		e->prov[k] = how == WS_LOAD_RUNPATH || how == WS_LOAD_PRELOADED ? prov : 0;
		if (how == WS_LOAD_SYSTEM) {
			if (add_assumed(ix->res, n) < 0)
				ix->failed = true;
			continue;
		}
		if (how == WS_LOAD_MISSING) {
			e->fails = true;
			e->alone = false;
			if (l->pe)
				set_why(e, "%s: The specified module could not be found", n);
			else
				set_why(e, "%s: cannot open shared object file", n);
			continue;
		}
		if (how == WS_LOAD_ELSEWHERE) {
			e->elsewhere = true;
			e->alone = false;
			continue;
		}
		struct ent *p = &ix->e[prov - 1];
		if (depth < MAX_DEPTH)
			resolve(ix, p, depth + 1);
		if (p->state == 2 && p->fails) {
			e->fails = true;
			set_why(e, "%s (%s) does not load: %s", n, SHOWN(p), p->why ? p->why : "?");
		}
		e->elsewhere |= p->elsewhere;
		if (how != WS_LOAD_RUNPATH || !p->alone)
			e->alone = false;
		for (uint32_t i = 0; i < p->npre; i++)
			if (!pre_add(e, p->pre[i]))
				ix->failed = true;
		if (how == WS_LOAD_PRELOADED && !pre_add(e, prov))
			ix->failed = true;
	}
	if (e->npre)
		e->alone = false;
	check_symbols(ix, e);
	e->state = 2;
}

/* ---- what the user meets -------------------------------------------------------- */

static bool cuda_library(const char *n)
{
	static const char *const pre[] = {"libcu", "libnv", "libnccl", "libc10_cuda", "libtorch_cuda", "libcudnn",
					  "cudart64", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn",
					  "nvrtc", "nvjitlink", "nvcuda", NULL};
	for (int i = 0; pre[i]; i++)
		if (!strncasecmp(n, pre[i], strlen(pre[i])))
			return true;
	return false;
}

static bool consumer(const struct ent *e)
{
	if (e->lib->gpu)
		return true;
	for (uint32_t k = 0; k < e->lib->nneeded; k++)
		if (cuda_library(e->lib->needed[k]))
			return true;
	return false;
}

/* The CUDA major a library's soname says, for those whose major is CUDA's; 0 else. */
static int cuda_major_of(const char *n)
{
	static const char *const elf[] = {"libcudart.so.", "libcublas.so.", "libcublasLt.so.", "libnvrtc.so.",
					  "libnvJitLink.so.", NULL};
	static const char *const pe[] = {"cudart64_", "cublas64_", "cublasLt64_", "nvrtc64_", "nvJitLink_", NULL};
	for (int i = 0; elf[i]; i++) {
		size_t l = strlen(elf[i]);
		if (!strncmp(n, elf[i], l) && n[l] >= '1' && n[l] <= '9')
			return atoi(n + l);
	}
	for (int i = 0; pe[i]; i++) {
		size_t l = strlen(pe[i]);
		if (!strncasecmp(n, pe[i], l) && n[l] >= '1' && n[l] <= '9')
			return atoi(n + l) >= 100 ? atoi(n + l) / 10 : atoi(n + l);   /* nvrtc64_120_0 */
	}
	return 0;
}

static int object_cuda_major(const struct ws_dynlib *l)
{
	for (uint32_t k = 0; k < l->nneeded; k++) {
		int m = cuda_major_of(l->needed[k]);
		if (m)
			return m;
	}
	return 0;
}

/* The module an import names for an extension's path, or NULL when it is no extension. */
static bool module_name(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *cp = strstr(base, ".cpython-"), *abi = strstr(base, ".abi3.so"), *cp2 = strstr(base, ".cp3");
	const char *end = cp ? cp : abi ? abi : cp2 ? cp2 : NULL;
	size_t bl = strlen(base);
	if (!end && bl > 4 && !strcasecmp(base + bl - 4, ".pyd"))
		end = base + bl - 4;
	if (!end || (size_t)(end - path) >= len)
		return false;
	size_t n = (size_t)(end - path);
	memcpy(out, path, n);
	out[n] = 0;
	for (char *c = out; *c; c++)
		if (*c == '/')
			*c = '.';
	return true;
}

static void consequence(const struct index *ix, const struct ent *e, const char *error, char *out, size_t len)
{
	char mod[512];
	if (strstr(SHOWN(e), "onnxruntime_providers_cuda") || strstr(SHOWN(e), "onnxruntime_providers_tensorrt"))
		snprintf(out, len, "onnxruntime falls back to the CPU (its CUDA execution provider does not load: "
			 "\"%s\")", error);
	else if (strstr(SHOWN(e), "libbitsandbytes_cuda"))
		snprintf(out, len, "bitsandbytes cannot load its CUDA library (\"%s\") and runs without the GPU", error);
	else if (module_name(SHOWN(e), mod, sizeof mod))
		snprintf(out, len, "import %s fails with ImportError: %s", mod, error);
	else
		snprintf(out, len, "loading it fails with \"%s\", and so does whatever needs it", error);
	(void)ix;
}

static int add_issue(struct ws_loadres *r, enum ws_check c, size_t dist, const char *object, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int add_issue(struct ws_loadres *r, enum ws_check c, size_t dist, const char *object, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct ws_load_issue *nv = ws_reallocarray(r->issues, r->nissues + 1, sizeof *nv);
	if (!nv)
		return -1;
	r->issues = nv;
	nv[r->nissues] = (struct ws_load_issue){c, dist, object ? ws_strdup(object) : NULL, ws_strdup(buf),
						c == WS_CHECK_LOAD_ELSEWHERE};
	if (!nv[r->nissues].what || (object && !nv[r->nissues].object))
		return -1;
	r->nissues++;
	return 0;
}

/* "libcublasLt.so.12" -> "libcublasLt.so." (the name without its major) */
static size_t stem_len(const char *n)
{
	const char *so = strstr(n, ".so.");
	return so ? (size_t)(so - n) + 4 : 0;
}

/* The runtime wheel that provides a CUDA library of major m, as PyPI names it; NULL when
 * no name is sure. */
static bool runtime_wheel(const char *n, int m, char *out, size_t len)
{
	static const struct { const char *lib, *stem; bool cu13_same_major; } t[] = {
		{"libcublasLt.so.", "nvidia-cublas", true}, {"libcublas.so.", "nvidia-cublas", true},
		{"libcudart.so.", "nvidia-cuda-runtime", true}, {"libnvrtc.so.", "nvidia-cuda-nvrtc", true},
		{"libnvJitLink.so.", "nvidia-nvjitlink", true}, {"libcufft.so.", "nvidia-cufft", false},
		{"libcurand.so.", "nvidia-curand", false}, {"libcusparse.so.", "nvidia-cusparse", false},
		{"libcusolver.so.", "nvidia-cusolver", false}, {"libcupti.so.", "nvidia-cuda-cupti", true},
		{"libnccl.so.", "nvidia-nccl", false}, {"libcudnn.so.", "nvidia-cudnn", false},
		{"libnvjpeg.so.", "nvidia-nvjpeg", false},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		size_t l = strlen(t[i].lib);
		if (strncmp(n, t[i].lib, l) != 0)
			continue;
		if (!strcmp(t[i].stem, "nvidia-cudnn") && (m == 12 || m == 13) && n[l] >= '8' && n[l] <= '9' && !n[l + 1])
			return snprintf(out, len, "nvidia-cudnn-cu%d==%c.*", m, n[l]), true;
		if (!strcmp(t[i].stem, "nvidia-cudnn"))
			return false;
		if (m == 11 || m == 12)
			return snprintf(out, len, "%s-cu%d", t[i].stem, m), true;
		if (m == 13 && !strcmp(t[i].stem, "nvidia-nccl"))
			return snprintf(out, len, "nvidia-nccl-cu13"), true;
		if (m == 13 && t[i].cu13_same_major)
			return snprintf(out, len, "%s==13.*", t[i].stem), true;
		return false;
	}
	return false;
}

static int add_install(struct ws_loadres *r, const char *w)
{
	for (size_t i = 0; i < r->ninstall; i++)
		if (!strcmp(r->install[i], w))
			return 0;
	return ws_strv_push(&r->install, &r->ninstall, w) ? 0 : -1;
}

/* The first needed library of e's closure that no one provides, and the object needing it. */
static const struct ent *first_missing(const struct index *ix, const struct ent *e, const char **name, int depth)
{
	for (uint32_t k = 0; e->how && k < e->lib->nneeded; k++) {
		if (e->how[k] == WS_LOAD_MISSING) {
			*name = e->lib->needed[k];
			return e;
		}
		if (e->prov && e->prov[k] && depth < MAX_DEPTH) {
			const struct ent *p = &ix->e[e->prov[k] - 1];
			const struct ent *x = p->fails ? first_missing(ix, p, name, depth + 1) : NULL;
			if (x)
				return x;
		}
	}
	return NULL;
}

static int say_missing(struct index *ix, const struct ent *e)
{
	struct ws_loadres *r = ix->res;
	const char *name = NULL;
	const struct ent *at = first_missing(ix, e, &name, 0);
	if (!at)
		return 0;
	/* once per distribution and library: a distribution's entries, and so its issues, are
	 * consecutive */
	for (size_t i = ix->dist_issues; i < r->nissues; i++)
		if (r->issues[i].check == WS_CHECK_LOAD_MISSING && r->issues[i].dist == e->dist &&
		    strstr(r->issues[i].what, name))
			return 0;
	char others[512] = "", err[600], cons[1200];
	size_t sl = stem_len(name), o = 0;
	/* the same library of another major ("libcublasLt.so.13" for ".so.12"): a lookup each */
	for (int m = 1; sl && sl < 200 && m <= 40 && o < sizeof others - 200; m++) {
		char cand[256];
		memcpy(cand, name, sl);
		snprintf(cand + sl, sizeof cand - sl, "%d", m);
		if (!strcmp(cand, name))
			continue;
		uint32_t id = first_of_key(ix, cand);
		if (!id)
			continue;
		const struct ent *x = &ix->e[id - 1];
		o += (size_t)snprintf(others + o, sizeof others - o, "%s%s (%s %s)", o ? ", " : "", x->key,
				      ix->dists[x->dist].name, ix->dists[x->dist].version);
	}
	if (at->lib->pe)
		snprintf(err, sizeof err, "DLL load failed: The specified module could not be found (%s)", name);
	else
		snprintf(err, sizeof err, "%s: cannot open shared object file", name);
	consequence(ix, e, err, cons, sizeof cons);
	char via[600] = "";
	if (at != e)
		snprintf(via, sizeof via, " (through %s, which needs it)", SHOWN(at));
	int m = object_cuda_major(at->lib);
	char word[128];
	if (!m)
		m = object_cuda_major(e->lib);
	if (runtime_wheel(name, m ? m : cuda_major_of(name), word, sizeof word) && add_install(r, word) < 0)
		return -1;
	if (others[0])
		return add_issue(r, WS_CHECK_LOAD_MISSING, e->dist, SHOWN(e), "%s needs %s%s; this environment provides "
				 "only %s: %s", SHOWN(e), name, via, others, cons);
	return add_issue(r, WS_CHECK_LOAD_MISSING, e->dist, SHOWN(e), "%s needs %s%s, which no distribution here "
			 "provides and the system is not assumed to: %s", SHOWN(e), name, via, cons);
}

static bool same_exports(const struct ws_dynlib *a, const struct ws_dynlib *b)
{
	if (a->ndefs != b->ndefs || a->nverdefs != b->nverdefs)
		return false;
	return !a->ndefs || !memcmp(a->defs, b->defs, a->ndefs * sizeof *a->defs);
}

/* Two distributions provide one soname, with different exports, and an object needs it. */
static int say_order(struct index *ix)
{
	/* how many objects need each soname: one lookup per needed library */
	for (size_t k = 0; k < ix->n; k++) {
		const struct ent *c = &ix->e[k];
		if (!consumer(c))
			continue;
		for (uint32_t q = 0; q < c->lib->nneeded; q++) {
			uint32_t id = first_of_key(ix, c->lib->needed[q]);
			if (id)
				ix->needers[id - 1]++;
		}
	}
	for (size_t i = 0; i < ix->n; i++) {
		const struct ent *a = &ix->e[i];
		if (first_of_key(ix, a->key) != i + 1 || !a->next_key)
			continue;                         /* the first of each key only */
		const struct ent *b = NULL;
		for (uint32_t n = a->next_key; n && !b; n = ix->e[n - 1].next_key) {
			const struct ent *x = &ix->e[n - 1];
			if (x->dist != a->dist && !same_exports(a->lib, x->lib))
				b = x;
		}
		if (!b)
			continue;
		size_t needers = ix->needers[i];
		const struct ent *one = NULL;
		for (size_t k = 0; needers && k < ix->n && !one; k++) {
			const struct ent *c = &ix->e[k];
			for (uint32_t q = 0; q < c->lib->nneeded && !one; q++)
				if (!strcmp(c->lib->needed[q], a->key) && consumer(c))
					one = c;
		}
		if (!needers)
			continue;
		if (add_issue(ix->res, WS_CHECK_LOAD_ORDER, one->dist, SHOWN(one), "%s is provided by %s %s (%s) and by "
			      "%s %s (%s), which differ: every object that needs it (%zu, such as %s) gets whichever "
			      "was loaded first, and a process that loads the other first may fail or misbehave",
			      a->key, ix->dists[a->dist].name, ix->dists[a->dist].version, SHOWN(a),
			      ix->dists[b->dist].name, ix->dists[b->dist].version, SHOWN(b), needers, SHOWN(one)) < 0)
			return -1;
	}
	return 0;
}

static int say_majors(struct index *ix)
{
	char lists[2][1024] = {"", ""};
	int majors[2] = {0, 0};
	for (size_t i = 0; i < ix->n; i++) {
		const struct ent *e = &ix->e[i];
		int m = consumer(e) ? object_cuda_major(e->lib) : 0;
		if (!m)
			continue;
		int slot_ = majors[0] == 0 || majors[0] == m ? 0 : majors[1] == 0 || majors[1] == m ? 1 : -1;
		if (slot_ < 0)
			continue;
		majors[slot_] = m;
		const char *dn = ix->dists[e->dist].name;
		size_t l = strlen(lists[slot_]);
		if (!strstr(lists[slot_], dn) && l + strlen(dn) + 4 < sizeof lists[slot_])
			snprintf(lists[slot_] + l, sizeof lists[slot_] - l, "%s%s", l ? ", " : "", dn);
	}
	if (!majors[0] || !majors[1])
		return 0;
	int lo = majors[0] < majors[1] ? 0 : 1;
	return add_issue(ix->res, WS_CHECK_LOAD_CUDA_SPLIT, SIZE_MAX, NULL, "this environment needs two CUDA majors: CUDA %d "
			 "libraries for %s and CUDA %d libraries for %s; both runtime sets must be installed side by "
			 "side, and each package finds its own only by its run path or its own preloading",
			 majors[lo], lists[lo], majors[1 - lo], lists[1 - lo]);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ws_loadres_judge(const struct ws_load_dist *dists, size_t n, struct ws_loadres *res)
{
	struct index ix = {.dists = dists, .res = res};
	int rc = 0;
	memset(res, 0, sizeof *res);
	res->wheels_only = n > 0;
	for (size_t i = 0; i < n; i++)
		res->wheels_only &= dists[i].wheel;
	if (build(&ix, dists, n) < 0) {
		rc = -1;
		goto out;
	}
	res->nlibs = ix.n;
	for (size_t i = 0; i < ix.n; i++)
		resolve(&ix, &ix.e[i], 0);
	for (size_t i = 0; i < ix.n && rc == 0; i++) {
		struct ent *e = &ix.e[i];
		if (!consumer(e))
			continue;
		if (i == 0 || ix.e[i - 1].dist != e->dist)
			ix.dist_issues = res->nissues;
		struct ws_load_object *nv = ws_reallocarray(res->objects, res->nobjects + 1, sizeof *nv);
		if (!nv) {
			rc = -1;
			break;
		}
		res->objects = nv;
		struct ws_load_object *o = &nv[res->nobjects++];
		memset(o, 0, sizeof *o);
		o->dist = e->dist;
		o->member = e->lib->member;
		o->alone = e->alone && !e->fails;
		o->fails = e->fails;
		if (e->why && !(o->why = ws_strdup(e->why)))
			rc = -1;
		for (uint32_t k = 0; k < e->npre && rc == 0; k++)
			if (!ws_strv_push(&o->preload, &o->npreload, ix.e[e->pre[k] - 1].lib->member))
				rc = -1;
		if (!e->fails) {
			if (e->elsewhere) {
				char list[1024] = "";
				size_t l = 0;
				for (uint32_t k = 0; k < e->lib->nneeded && l < sizeof list - 100; k++)
					if (e->how[k] == WS_LOAD_ELSEWHERE)
						l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "",
								      e->lib->needed[k]);
				if (l && add_issue(res, WS_CHECK_LOAD_ELSEWHERE, e->dist, SHOWN(e), "%s needs %s, which no "
						   "wheel given here provides: expected from elsewhere (the distributions its "
						   "Requires-Dist brings, or the system)", SHOWN(e), list) < 0)
					rc = -1;
			}
			continue;
		}
		char cons[1200];
		const char *name = NULL;
		if (first_missing(&ix, e, &name, 0)) {
			if (say_missing(&ix, e) < 0)
				rc = -1;
		} else if (e->why && strstr(e->why, "version `")) {
			consequence(&ix, e, e->why, cons, sizeof cons);
			if (add_issue(res, WS_CHECK_LOAD_VERSION, e->dist, SHOWN(e), "%s: %s", SHOWN(e), cons) < 0)
				rc = -1;
		} else if (e->why) {
			consequence(&ix, e, e->why, cons, sizeof cons);
			if (add_issue(res, WS_CHECK_LOAD_SYMBOL, e->dist, SHOWN(e), "%s needs a symbol that the libraries it "
				      "loads here do not define (built against another release of them): %s", SHOWN(e),
				      cons) < 0)
				rc = -1;
		}
	}
	if (rc == 0 && (say_order(&ix) < 0 || say_majors(&ix) < 0))
		rc = -1;
	qsort(res->assumed, res->nassumed, sizeof *res->assumed, cmp_str);
	if (ix.failed)
		rc = -1;
out:
	for (size_t i = 0; i < ix.n; i++) {
		free(ix.e[i].path);
		free(ix.e[i].why);
		free(ix.e[i].pre);
		free(ix.e[i].prov);
		free(ix.e[i].how);
	}
	free(ix.e);
	free(ix.by_path);
	free(ix.by_key);
	free(ix.seen);
	free(ix.needers);
	return rc;
}

void ws_loadres_free(struct ws_loadres *r)
{
	for (size_t i = 0; i < r->nissues; i++) {
		free(r->issues[i].object);
		free(r->issues[i].what);
	}
	free(r->issues);
	for (size_t i = 0; i < r->nobjects; i++) {
		for (size_t k = 0; k < r->objects[i].npreload; k++)
			free(r->objects[i].preload[k]);
		free(r->objects[i].preload);
		free(r->objects[i].why);
	}
	free(r->objects);
	for (size_t i = 0; i < r->nassumed; i++)
		free(r->assumed[i]);
	free(r->assumed);
	for (size_t i = 0; i < r->ninstall; i++)
		free(r->install[i]);
	free(r->install);
	memset(r, 0, sizeof *r);
}
