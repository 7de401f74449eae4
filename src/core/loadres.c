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
#include "loadres_state.h"

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
			if (ws_load_normalise(dir)) {
				const struct ent *x = ws_load_by_path(ix, dir);
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
	ws_load_lower(low);
	size_t ll = strlen(low);
	if (dl + ll + 2 >= sizeof p)
		return NULL;
	memcpy(p, e->path, dl);
	if (dl)
		p[dl++] = '/';
	memcpy(p + dl, low, ll + 1);
	return ws_load_by_path(ix, p);
}

static bool pe_lookup_key(const struct index *ix, const char *name, uint32_t *first)
{
	char low[MAX_PATH_LEN];
	snprintf(low, sizeof low, "%s", name);
	ws_load_lower(low);
	*first = ws_load_first_of_key(ix, low);
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
		if ((*prov = ws_load_first_of_key(ix, name)))
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

/* Whether x binds every reference it makes within the load scope cl (RTLD_NOW binding);
 * the first it cannot bind is written to why. *open: a C++ reference was left unchecked, its
 * namespace exported by no library of the scope (a wider scope may check it). */
static bool binds_all(struct index *ix, const struct ent *x, const uint32_t *cl, uint32_t ncl, char *why, size_t len,
		      bool *open)
{
	const struct ws_dynlib *l = x->lib;
	uint32_t self = (uint32_t)(x - ix->e);
	if (!l->symbols_read || !l->nundefs)
		return true;
	for (uint32_t u = 0; u < l->nundefs; u++) {
		const struct ws_dyn_undef *s = &l->undefs[u];
		if (s->weak)
			continue;
		const char *ver = s->vneed ? l->vneeds[s->vneed - 1].version : NULL;
		const char *file = s->vneed ? l->vneeds[s->vneed - 1].file : NULL;
		bool checked = false, found = false;
		if (ver) {
			/* versioned: the named file, when it is the environment's and defines versions */
			for (uint32_t k = 0; k < l->nneeded && !checked; k++) {
				if (strcmp(l->needed[k], file) || !x->prov || !x->prov[k])
					continue;
				const struct ent *p = &ix->e[x->prov[k] - 1];
				if (p->lib->symbols_read && p->lib->nverdefs) {
					checked = true;
					found = closure_defines(ix, cl, ncl, ws_dyn_hash(s->name, ver));
				}
			}
		} else {
			/* a C++ symbol of a namespace another library of the scope exports */
			uint64_t ns = ws_dyn_namespace(s->name);
			for (uint32_t i = 0; ns && i < ncl && !checked; i++)
				checked = cl[i] != self && ix->e[cl[i]].lib->symbols_read &&
					  ws_dyn_owns_namespace(ix->e[cl[i]].lib, ns);
			if (checked)
				found = closure_defines(ix, cl, ncl, ws_dyn_hash(s->name, NULL));
			else if (ns)
				*open = true;
		}
		if (checked && !found) {
			snprintf(why, len, "undefined symbol: %s%s%s", s->name, ver ? ", version " : "", ver ? ver : "");
			return false;
		}
	}
	return true;
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
	if (e->fails)
		return;
	uint32_t *cl = ws_calloc(MAX_CLOSURE, sizeof *cl);
	if (!cl) {
		ix->failed = true;
		return;
	}
	/* the load scope of a dlopen of e is e's whole closure: e's references, and those of the
	 * libraries that did not bind or check theirs in their own scope (libtorch_nvshmem.so
	 * needs a c10::cuda symbol of libc10_cuda.so, which only libtorch_cuda.so, its dependant,
	 * needs) */
	uint32_t ncl = closure(ix, e, cl);
	char why[1024];
	bool open = false;
	if (!binds_all(ix, e, cl, ncl, why, sizeof why, &e->symopen)) {
		e->fails = e->symfail = e->symfail_self = true;
		set_why(e, "%s", why);
	}
	for (uint32_t i = 1; i < ncl && !e->fails; i++) {
		const struct ent *x = &ix->e[cl[i]];
		if ((x->symfail_self || x->symopen) && !binds_all(ix, x, cl, ncl, why, sizeof why, &open)) {
			e->fails = e->symfail = true;
			set_why(e, "%s (%s) does not load: %s", x->key, SHOWN(x), why);
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
		if (p->state == 2 && p->fails && !p->symfail) {   /* a symbol: rechecked in e's scope */
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

/* Whether a library of the environment that loads e (needs it) loads, e's references bound
 * in its scope: then e fails only when loaded alone, which nothing does. */
static bool bound_by_dependant(const struct index *ix, const struct ent *e)
{
	uint32_t id = (uint32_t)(e - ix->e) + 1;
	for (size_t i = 0; i < ix->n; i++) {
		const struct ent *d = &ix->e[i];
		for (uint32_t k = 0; d->prov && !d->fails && k < d->lib->nneeded; k++)
			if (d->prov[k] == id)
				return true;
	}
	return false;
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
	if (ws_load_index_build(&ix, dists, n) < 0) {
		rc = -1;
		goto out;
	}
	res->nlibs = ix.n;
	for (size_t i = 0; i < ix.n; i++)
		resolve(&ix, &ix.e[i], 0);
	for (size_t i = 0; i < ix.n && rc == 0; i++) {
		struct ent *e = &ix.e[i];
		if (!ws_load_consumer(e))
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
				if (l && ws_load_add_issue(res, WS_CHECK_LOAD_ELSEWHERE, e->dist, SHOWN(e), "%s needs %s, which no "
						   "wheel given here provides: expected from elsewhere (the distributions its "
						   "Requires-Dist brings, or the system)", SHOWN(e), list) < 0)
					rc = -1;
			}
			continue;
		}
		if (e->symfail_self && bound_by_dependant(&ix, e))
			continue;                 /* fails only alone: whatever loads it binds it */
		if (ws_load_say_failure(&ix, e) < 0)
			rc = -1;
	}
	if (rc == 0 && (ws_load_say_order(&ix) < 0 || ws_load_say_majors(&ix) < 0))
		rc = -1;
	if (res->nassumed)                        /* qsort's base may not be NULL */
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
