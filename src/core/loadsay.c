/* loadsay.c - what a load failure means, said as the user meets it (ws_loadres.h): the
 * import that fails, onnxruntime falling back to the CPU, bitsandbytes without its GPU;
 * the same library of another major that the environment has instead; the runtime wheel
 * that provides what is missing; two different providers of one soname; CUDA runtimes of
 * two majors. loadres.c decides what resolves; this file only words it and picks the
 * requirement words of the fix. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ws_loadres.h"
#include "ws_util.h"
#include "loadres_state.h"


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

bool ws_load_consumer(const struct ent *e)
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
		snprintf(out, len, "onnxruntime falls back to the CPU (its %s execution provider does not load: "
			 "\"%s\")", strstr(SHOWN(e), "tensorrt") ? "TensorRT" : "CUDA", error);
	else if (strstr(SHOWN(e), "libbitsandbytes_cuda"))
		snprintf(out, len, "bitsandbytes cannot load its CUDA library (\"%s\") and runs without the GPU", error);
	else if (module_name(SHOWN(e), mod, sizeof mod))
		snprintf(out, len, "import %s fails with ImportError: %s", mod, error);
	else
		snprintf(out, len, "loading it fails with \"%s\", and so does whatever needs it", error);
	(void)ix;
}

int ws_load_add_issue(struct ws_loadres *r, enum ws_check c, size_t dist, const char *object, const char *fmt, ...)
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
		uint32_t id = ws_load_first_of_key(ix, cand);
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
	/* the loader stops at the first: the others the same object lacks are said too, and the
	 * fix brings them all, so that it is not the first of several rounds */
	char more[512] = "";
	size_t ml = 0, nmore = 0;
	for (uint32_t k = 0; at->how && k < at->lib->nneeded; k++) {
		const char *n2 = at->lib->needed[k];
		if (at->how[k] != WS_LOAD_MISSING || !strcmp(n2, name))
			continue;
		nmore++;
		if (ml < sizeof more - 100)
			ml += (size_t)snprintf(more + ml, sizeof more - ml, "%s%s", ml ? ", " : "", n2);
		if (runtime_wheel(n2, m ? m : cuda_major_of(n2), word, sizeof word) && add_install(r, word) < 0)
			return -1;
	}
	char also[700] = "";
	if (nmore)
		snprintf(also, sizeof also, " (and %zu more no one provides: %s)", nmore, more);
	if (others[0])
		return ws_load_add_issue(r, WS_CHECK_LOAD_MISSING, e->dist, SHOWN(e), "%s needs %s%s%s; this environment "
					 "provides only %s: %s", SHOWN(e), name, also, via, others, cons);
	return ws_load_add_issue(r, WS_CHECK_LOAD_MISSING, e->dist, SHOWN(e), "%s needs %s%s%s, which no distribution "
				 "here provides and the system is not assumed to: %s", SHOWN(e), name, also, via, cons);
}

static bool same_exports(const struct ws_dynlib *a, const struct ws_dynlib *b)
{
	if (a->ndefs != b->ndefs || a->nverdefs != b->nverdefs)
		return false;
	return !a->ndefs || !memcmp(a->defs, b->defs, a->ndefs * sizeof *a->defs);
}

/* Two distributions provide one soname, with different exports, and an object needs it. */
int ws_load_say_order(struct index *ix)
{
	/* how many objects need each soname: one lookup per needed library */
	for (size_t k = 0; k < ix->n; k++) {
		const struct ent *c = &ix->e[k];
		if (!ws_load_consumer(c))
			continue;
		for (uint32_t q = 0; q < c->lib->nneeded; q++) {
			uint32_t id = ws_load_first_of_key(ix, c->lib->needed[q]);
			if (id)
				ix->needers[id - 1]++;
		}
	}
	for (size_t i = 0; i < ix->n; i++) {
		const struct ent *a = &ix->e[i];
		if (ws_load_first_of_key(ix, a->key) != i + 1 || !a->next_key)
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
				if (!strcmp(c->lib->needed[q], a->key) && ws_load_consumer(c))
					one = c;
		}
		if (!needers)
			continue;
		if (ws_load_add_issue(ix->res, WS_CHECK_LOAD_ORDER, one->dist, SHOWN(one), "%s is provided by %s %s (%s) and by "
			      "%s %s (%s), which differ: every object that needs it (%zu, such as %s) gets whichever "
			      "was loaded first, and a process that loads the other first may fail or misbehave",
			      a->key, ix->dists[a->dist].name, ix->dists[a->dist].version, SHOWN(a),
			      ix->dists[b->dist].name, ix->dists[b->dist].version, SHOWN(b), needers, SHOWN(one)) < 0)
			return -1;
	}
	return 0;
}

int ws_load_say_majors(struct index *ix)
{
	char lists[2][1024] = {"", ""};
	int majors[2] = {0, 0};
	for (size_t i = 0; i < ix->n; i++) {
		const struct ent *e = &ix->e[i];
		int m = ws_load_consumer(e) ? object_cuda_major(e->lib) : 0;
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
	return ws_load_add_issue(ix->res, WS_CHECK_LOAD_CUDA_SPLIT, SIZE_MAX, NULL, "this environment needs two CUDA majors: CUDA %d "
			 "libraries for %s and CUDA %d libraries for %s; both runtime sets must be installed side by "
			 "side, and each package finds its own only by its run path or its own preloading",
			 majors[lo], lists[lo], majors[1 - lo], lists[1 - lo]);
}

/* The issue of a consumer that fails: what its loader says, and what the user sees. */
int ws_load_say_failure(struct index *ix, const struct ent *e)
{
	struct ws_loadres *res = ix->res;
	if (!e->fails)
		return 0;
	char cons[1200];
	const char *name = NULL;
	if (first_missing(ix, e, &name, 0))
		return say_missing(ix, e);
	if (e->why && strstr(e->why, "version `")) {
		consequence(ix, e, e->why, cons, sizeof cons);
		return ws_load_add_issue(res, WS_CHECK_LOAD_VERSION, e->dist, SHOWN(e), "%s: %s", SHOWN(e), cons);
	}
	if (e->why) {
		consequence(ix, e, e->why, cons, sizeof cons);
		return ws_load_add_issue(res, WS_CHECK_LOAD_SYMBOL, e->dist, SHOWN(e), "%s needs a symbol that the "
					 "libraries it loads here do not define (built against another release of "
					 "them): %s", SHOWN(e), cons);
	}
	return 0;
}
