/* model.c - construction and release of the artifact > object > fatbin > entry model. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ws_builds.h"
#include "ws_dynlib.h"

void ws_limits_default(struct ws_limits *lim)
{
	lim->max_entry_bytes = (uint64_t)256 << 20;   /* 256 MiB: the largest real entry seen is a 35 MB PTX */
	lim->max_member_bytes = (uint64_t)8 << 30;    /* 8 GiB: libtorch_cuda.so is ~2 GiB */
	lim->max_total_bytes = (uint64_t)32 << 30;    /* 32 GiB per artifact */
	lim->max_entries = 4096;                      /* real containers hold at most ~20 */
	lim->max_containers = 1u << 20;               /* libcufft holds ~24,000 */
	lim->max_kernels = 1u << 20;
	lim->max_sections = 65535;
	lim->max_members = 1u << 20;
	lim->max_kernel_name = 64u << 10;             /* 64 KiB: the longest real name seen is 2.5 KB */
	lim->max_kernel_names = (uint64_t)64 << 20;   /* 64 MiB: cuBLASLt's 18,000 names are 2.3 MB */
	/* A real library decodes at most a few times its size as stored (cuBLASLt: 2.6 GB from
	 * 541 MB); 64 times plus 1 GiB leaves every one far inside, while a bomb of small
	 * entries (an 8 KB zstd entry decodes to 255 MiB) costs at most a few seconds. */
	lim->max_decoded_base = (uint64_t)1 << 30;
	lim->max_decoded_ratio = 64;
	lim->max_artifact_containers = 1u << 20;   /* as per object: a CUDA toolkit wheel holds 3,400 */
	lim->max_artifact_entries = 1u << 20;      /* each costs ~200 bytes; cuFFT holds 24,000 */
	lim->max_artifact_errors = 10000;
}

/* 64 bits: with hash_only pools two names are taken as equal when their hashes are, so
 * the hash must be wide enough for millions of names, and keyed, so that no file can
 * choose names that collide (in the table or as equal names). */
static uint64_t str_hash(const char *s, size_t n)
{
	return ws_hash64(s, n);
}

void ws_strpool_init(struct ws_strpool *p)
{
	memset(p, 0, sizeof *p);
}

void ws_strpool_free(struct ws_strpool *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n; i++)
		free(p->str[i]);
	free(p->str);
	free(p->h64);
	free(p->hash);
	bool hash_only = p->hash_only;
	uint64_t max_bytes = p->max_bytes;
	memset(p, 0, sizeof *p);
	p->hash_only = hash_only;
	p->max_bytes = max_bytes;
}

static bool strpool_rehash(struct ws_strpool *p, uint32_t hcap)
{
	uint32_t *h = ws_calloc(hcap, sizeof *h);
	if (!h)
		return false;
	for (uint32_t i = 0; i < p->n; i++) {
		uint32_t k = (uint32_t)p->h64[i] & (hcap - 1);
		while (h[k])
			k = (k + 1) & (hcap - 1);
		h[k] = i + 1;
	}
	free(p->hash);
	p->hash = h;
	p->hcap = hcap;
	return true;
}

/* Probes for s (hash h): its index, or UINT32_MAX with *slot at the empty place for it. */
static uint32_t strpool_probe(const struct ws_strpool *p, uint64_t h, const char *s, size_t len, uint32_t *slot)
{
	uint32_t k = (uint32_t)h & (p->hcap - 1);
	for (; p->hash[k]; k = (k + 1) & (p->hcap - 1)) {
		uint32_t i = p->hash[k] - 1;
		if (p->h64[i] == h && (p->hash_only || (strncmp(p->str[i], s, len) == 0 && p->str[i][len] == '\0')))
			return i;
	}
	*slot = k;
	return UINT32_MAX;
}

uint32_t ws_strpool_find(const struct ws_strpool *p, const char *s, size_t len)
{
	uint32_t k;
	return p->hcap ? strpool_probe(p, str_hash(s, len), s, len, &k) : UINT32_MAX;
}

/* Adds s (hash h; s NULL only into a hash_only pool) unless present; returns its index. */
static uint32_t strpool_put(struct ws_strpool *p, uint64_t h, const char *s, size_t len)
{
	if (p->n >= UINT32_MAX / 4)
		return UINT32_MAX;
	if ((uint64_t)(p->n + 1) * 2 > p->hcap && !strpool_rehash(p, p->hcap ? p->hcap * 2 : 64))
		return UINT32_MAX;
	uint32_t k, found = strpool_probe(p, h, s, len, &k);
	if (found != UINT32_MAX)
		return found;
	if (!p->hash_only && p->max_bytes && (len >= p->max_bytes || p->bytes > p->max_bytes - len - 1)) {
		p->over = true;
		return UINT32_MAX;
	}
	uint32_t cap = p->cap;
	if (!ws_grow((void **)&p->str, &cap, p->n + 1, sizeof *p->str) ||
	    !ws_grow((void **)&p->h64, &p->cap, p->n + 1, sizeof *p->h64))
		return UINT32_MAX;
	char *c = NULL;
	if (!p->hash_only && !(c = ws_strndup(s, len)))
		return UINT32_MAX;
	if (c)
		p->bytes += len + 1;
	p->str[p->n] = c;
	p->h64[p->n] = h;
	p->hash[k] = ++p->n;
	return p->n - 1;
}

uint32_t ws_strpool_intern(struct ws_strpool *p, const char *s, size_t len)
{
	return strpool_put(p, str_hash(s, len), s, len);
}

uint32_t ws_strpool_adopt(struct ws_strpool *p, const struct ws_strpool *src, uint32_t i)
{
	if (i >= src->n)
		return UINT32_MAX;
	if (src->str[i])
		return strpool_put(p, src->h64[i], src->str[i], strlen(src->str[i]));
	return p->hash_only ? strpool_put(p, src->h64[i], NULL, 0) : UINT32_MAX;
}

void ws_wheel_info_free(struct ws_wheel_info *w)
{
	if (!w)
		return;
	free(w->name); free(w->version); free(w->local);
	free(w->python_tag); free(w->abi_tag); free(w->platform_tag);
	free(w->meta_name); free(w->meta_version); free(w->generator); free(w->requires_torch);
	free(w);
}

void ws_kernel_names_over(const struct ws_entry *e, const struct ws_limits *lim, struct ws_err *err)
{
	ws_err_set(err, WS_E_LIMIT, "%s: the kernel names kept for this object pass %llu MiB: the rest are not listed",
	       e->name, (unsigned long long)(lim->max_kernel_names >> 20));
}

void ws_entry_clear(struct ws_entry *e)
{
	if (!e)
		return;
	free(e->producer);
	free(e->tool_options);
	free(e->identifier);
	free(e->options);
	free(e->kernels);
	free(e->error);
	memset(e, 0, sizeof *e);
}

static void fatbin_unjudge(struct ws_fatbin *f);
static void object_unjudge(struct ws_object *o);

void ws_fatbin_clear(struct ws_fatbin *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nentries; i++)
		ws_entry_clear(&f->entries[i]);
	free(f->entries);
	fatbin_unjudge(f);
	free(f->live);
	free(f->live_nojit);
	free(f->error);
	memset(f, 0, sizeof *f);
}

void ws_object_clear(struct ws_object *o)
{
	if (!o)
		return;
	object_unjudge(o);
	for (uint32_t i = 0; i < o->nfatbins; i++)
		ws_fatbin_clear(&o->fatbins[i]);
	free(o->fatbins);
	free(o->member);
	ws_strpool_free(&o->kernels);
	memset(o, 0, sizeof *o);
}

/* Drops what ws_judge wrote (verdicts, roles, judgements, alternatives). */
static void judgement_clear(struct ws_judgement *j)
{
	free(j->why);
	free(j->advice);
	ws_remedy_free(j->remedy);
	free(j->minority_where);
	memset(j, 0, sizeof *j);
}

static void fatbin_unjudge(struct ws_fatbin *f)
{
	for (uint32_t k = 0; f->gaps && k < f->njudged; k++)
		free(f->gaps[k].kernels);
	free(f->gaps);
	free(f->roles);
	free(f->verdicts);
	f->gaps = NULL;
	f->roles = NULL;
	f->verdicts = NULL;
	f->njudged = 0;
}

static void object_unjudge(struct ws_object *o)
{
	for (uint32_t i = 0; i < o->nfatbins; i++)
		fatbin_unjudge(&o->fatbins[i]);
	for (uint32_t k = 0; o->judged && k < o->njudged; k++)
		judgement_clear(&o->judged[k]);
	free(o->judged);
	free(o->verdicts);
	o->judged = NULL;
	o->verdicts = NULL;
	o->njudged = 0;
	o->alt_group = 0;
}

void ws_artifact_unjudge(struct ws_artifact *a)
{
	for (uint32_t i = 0; i < a->nobjects; i++)
		object_unjudge(&a->objects[i]);
	for (uint32_t k = 0; a->judged && k < a->njudged; k++)
		judgement_clear(&a->judged[k]);
	for (uint32_t g = 0; g < a->nalts; g++) {
		free(a->alts[g].pattern);
		free(a->alts[g].objects);
		free(a->alts[g].verdicts);
	}
	free(a->alts);
	free(a->judged);
	free(a->verdicts);
	free(a->headline);
	a->alts = NULL;
	a->nalts = 0;
	a->judged = NULL;
	a->verdicts = NULL;
	a->headline = NULL;
	a->njudged = 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void image_clear(struct ws_image *im)
{
	free_list(im->names, im->nnames);
	for (uint32_t i = 0; i < im->nlayers; i++)
		free(im->layers[i].member);
	free(im->layers);
	memset(im, 0, sizeof *im);
}

void ws_artifact_free(struct ws_artifact *a)
{
	if (!a)
		return;
	ws_artifact_unjudge(a);
	for (uint32_t i = 0; i < a->nobjects; i++)
		ws_object_clear(&a->objects[i]);
	free(a->objects);
	for (uint32_t i = 0; i < a->nerrors; i++) {
		free(a->errors[i].where);
		free(a->errors[i].message);
	}
	free(a->errors);
	ws_wheel_info_free(a->wheel);
	free(a->origin);
	for (uint32_t i = 0; i < a->nimages; i++)
		image_clear(&a->images[i]);
	free(a->images);
	free_list(a->record.mismatched, a->record.nmismatched);
	free_list(a->record.missing, a->record.nmissing);
	free_list(a->record.unlisted, a->record.nunlisted);
	free_list(a->superseded, a->nsuperseded);
	free_list(a->record.unhashed, a->record.nunhashed);
	for (uint32_t i = 0; i < a->nlibs; i++)
		ws_dynlib_clear(&a->libs[i]);
	free(a->libs);
	free(a->path);
	free(a);
}

/* Arrays in the model grow by doubling; the capacity is not stored, so it is
 * recomputed from the count (powers of two from 4). */
static bool grow_pow2(void **arr, uint32_t n, size_t sz)
{
	if (n >= UINT32_MAX / 2)
		return false;
	if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
		return true;                      /* room left in the current block */
	uint32_t ncap = n ? n * 2 : 4;
	void *p = ws_reallocarray(*arr, ncap, sz);
	if (!p)
		return false;
	*arr = p;
	return true;
}

struct ws_object *ws_artifact_add_object(struct ws_artifact *a)
{
	if (!grow_pow2((void **)&a->objects, a->nobjects, sizeof *a->objects))
		return NULL;
	struct ws_object *o = &a->objects[a->nobjects++];
	memset(o, 0, sizeof *o);
	ws_strpool_init(&o->kernels);
	return o;
}

struct ws_fatbin *ws_object_add_fatbin(struct ws_object *o)
{
	if (!grow_pow2((void **)&o->fatbins, o->nfatbins, sizeof *o->fatbins))
		return NULL;
	struct ws_fatbin *f = &o->fatbins[o->nfatbins++];
	memset(f, 0, sizeof *f);
	return f;
}

uint32_t ws_artifact_code_objects(const struct ws_artifact *a)
{
	/* one mark per group of alternatives (alt_group is 1 + its index), so that counting
	 * stays linear in the objects */
	bool *seen = a->nalts ? calloc(a->nalts, sizeof *seen) : NULL;
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		if (!o->nfatbins)
			continue;
		uint32_t g = o->alt_group;
		if (g && g <= a->nalts && seen) {
			if (seen[g - 1])
				continue;               /* an earlier member of its group was counted */
			seen[g - 1] = true;
		}
		n++;
	}
	free(seen);
	return n;
}

bool ws_artifact_unread(const struct ws_artifact *a)
{
	if (!a->nerrors)
		return false;
	for (uint32_t i = 0; i < a->nobjects; i++)
		if (a->objects[i].nfatbins)
			return false;
	return true;
}


static const char *const object_types[WS_OBJ_NTYPES] = {
	[WS_OBJ_ELF] = "elf", [WS_OBJ_ELF_REL] = "elf-rel", [WS_OBJ_ELF_EXEC] = "elf-exec",
	[WS_OBJ_ELF_SO] = "elf-so", [WS_OBJ_PE_DLL] = "pe-dll", [WS_OBJ_PE_EXE] = "pe-exe",
	[WS_OBJ_FATBIN] = "fatbin", [WS_OBJ_CUBIN] = "cubin", [WS_OBJ_PTX] = "ptx",
};

const char *ws_object_type_name(enum ws_object_type t)
{
	return (unsigned)t < WS_OBJ_NTYPES ? object_types[t] : object_types[WS_OBJ_ELF];
}

int ws_object_type_lookup(const char *s)
{
	for (int t = 0; t < WS_OBJ_NTYPES; t++)
		if (!strcmp(object_types[t], s))
			return t;
	return -1;
}

static const char *const artifact_types[WS_ART_NTYPES] = {
	[WS_ART_NONE] = "unknown", [WS_ART_WHEEL] = "wheel", [WS_ART_ZIP] = "zip", [WS_ART_ELF] = "elf",
	[WS_ART_ARCHIVE] = "archive", [WS_ART_FATBIN] = "fatbin", [WS_ART_CUBIN] = "cubin", [WS_ART_PTX] = "ptx",
	[WS_ART_PE] = "pe", [WS_ART_TAR] = "tar", [WS_ART_DEB] = "deb", [WS_ART_CONDA] = "conda",
	[WS_ART_INSTALLED] = "installed", [WS_ART_DIRECTORY] = "directory", [WS_ART_IMAGE] = "image",
	[WS_ART_OTHER] = "other", [WS_ART_UNKNOWN] = "unknown",
};

const char *ws_artifact_type_name(enum ws_artifact_type t)
{
	return (unsigned)t < WS_ART_NTYPES ? artifact_types[t] : artifact_types[WS_ART_UNKNOWN];
}

int ws_artifact_type_lookup(const char *s)
{
	for (int t = WS_ART_NONE + 1; t < WS_ART_NTYPES; t++)
		if (!strcmp(artifact_types[t], s))
			return t;
	return -1;
}

void ws_artifact_report(struct ws_artifact *a, const char *where, struct ws_err *err)
{
	if (!err->code || err->reported)
		return;
	ws_artifact_fail(a, where, err->code, "%s", err->msg);
	err->reported = true;
}

void ws_artifact_fail(struct ws_artifact *a, const char *where, enum ws_errcode code, const char *fmt, ...)
{
	char msg[WS_ERRMAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (a->nerrors >= 10000)                  /* a hostile input must not flood memory */
		return;
	/* a member's own artifact: all members together hold no more than one artifact */
	if (a->budget && (__atomic_load_n(&a->budget->errors, __ATOMIC_RELAXED) >= a->max_errors ||
			  __atomic_add_fetch(&a->budget->errors, 1, __ATOMIC_RELAXED) > a->max_errors))
		return;
	if (!grow_pow2((void **)&a->errors, a->nerrors, sizeof *a->errors))
		return;
	struct ws_error *e = &a->errors[a->nerrors];
	e->where = ws_strdup(where ? where : (a->path ? a->path : ""));
	e->message = ws_strdup(msg);
	e->code = code;
	if (!e->where || !e->message) {
		free(e->where);
		free(e->message);
		return;
	}
	a->nerrors++;
}
