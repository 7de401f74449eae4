/* elfdyn.c - an ELF64 object's dynamic linking facts, decoded from its sections' bytes
 * (ws_dynlib.h). Layouts (System V gABI, "Dynamic Section" and "Symbol Table"; the
 * symbol versioning of the Linux Standard Base Core, "Symbol Versioning"):
 *  Elf64_Dyn  (16): +0 i64 tag  +8 u64 value; DT_NULL ends it
 *  Elf64_Sym  (24): +0 u32 name  +4 u8 info (bind << 4 | type)  +5 u8 other (visibility)
 *                   +6 u16 shndx (0: undefined)
 *  versym (2 per symbol): 0 local, 1 global, n >= 2 a version index; bit 15 hidden
 *  Elf64_Verdef (20): +0 u16 version +2 u16 flags (1 base) +4 u16 ndx +6 u16 cnt +8 u32 hash
 *                     +12 u32 aux +16 u32 next;  Verdaux (8): +0 u32 name +4 u32 next
 *  Elf64_Verneed (16): +0 u16 version +2 u16 cnt +4 u32 file +8 u32 aux +12 u32 next
 *  Elf64_Vernaux (16): +0 u32 hash +4 u16 flags (2 weak) +6 u16 other (the index)
 *                      +8 u32 name +12 u32 next
 * Every chain is walked at most its declared count and within its section; every offset
 * is checked before it is read. */
#include <stdlib.h>
#include <string.h>

#include "ws_dynlib.h"
#include "ws_util.h"

#define DT_NULL_ 0
#define DT_NEEDED_ 1
#define DT_SONAME_ 14
#define DT_RPATH_ 15
#define DT_RUNPATH_ 29
#define VER_FLG_BASE_ 1
#define VER_FLG_WEAK_ 2
#define VERSYM_HIDDEN_ 0x8000
#define VERSYM_INDEX_ 0x7fff

uint64_t ws_dyn_hash(const char *name, const char *version)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	if (version) {
		h = (h ^ '@') * 0x100000001b3ULL;
		for (const unsigned char *c = (const unsigned char *)version; *c; c++)
			h = (h ^ *c) * 0x100000001b3ULL;
	}
	return h ? h : 1;
}

uint64_t ws_dyn_namespace(const char *name)
{
	/* _ZN [r V K]* <len><identifier> ...: the first name of a nested name; std (St, NSt)
	 * and unnested names have none the environment can own */
	if (strncmp(name, "_ZN", 3) != 0)
		return 0;
	const char *p = name + 3;
	while (*p == 'r' || *p == 'V' || *p == 'K')
		p++;
	if (*p < '1' || *p > '9')
		return 0;
	size_t len = 0;
	const char *d = p;
	while (*d >= '0' && *d <= '9' && len < 1000)
		len = len * 10 + (size_t)(*d++ - '0');
	if (len == 0 || len >= 1000 || strnlen(d, len) < len)
		return 0;
	char buf[1008];
	size_t n = (size_t)(d - p) + len;
	memcpy(buf, p, n);
	buf[n] = 0;
	return ws_dyn_hash(buf, NULL);
}

static bool sorted_has(const uint64_t *v, uint32_t n, uint64_t h)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == h;
}

bool ws_dyn_defines(const struct ws_dynlib *d, uint64_t h)
{
	return sorted_has(d->defs, d->ndefs, h);
}

bool ws_dyn_owns_namespace(const struct ws_dynlib *d, uint64_t ns)
{
	return ns && sorted_has(d->nspaces, d->nnspaces, ns);
}

/* A NUL-terminated string at off of the string table, at most WS_DYN_MAX_NAME bytes;
 * NULL when it runs off the table. */
static const char *str_at(const struct ws_elfdyn_in *in, uint64_t off)
{
	if (!in->dynstr || off >= in->ndynstr)
		return NULL;
	size_t left = in->ndynstr - (size_t)off, most = left < WS_DYN_MAX_NAME ? left : WS_DYN_MAX_NAME;
	const char *s = (const char *)in->dynstr + off;
	return memchr(s, 0, most) ? s : NULL;
}

static void note(struct ws_dynlib *d, const char *what)
{
	if (!d->note)
		d->note = ws_strdup(what);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint32_t uniq(uint64_t *v, uint32_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_u64);
	uint32_t o = 1;
	for (uint32_t i = 1; i < n; i++)
		if (v[i] != v[o - 1])
			v[o++] = v[i];
	return o;
}

static int dynamic_entries(const struct ws_elfdyn_in *in, struct ws_dynlib *d)
{
	size_t n = in->ndynamic / 16;
	uint64_t runpath = UINT64_MAX, rpath = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = in->dynamic + i * 16;
		uint64_t tag = ws_le64(e), val = ws_le64(e + 8);
		if (tag == DT_NULL_)
			break;
		const char *s;
		if (tag == DT_NEEDED_) {
			if (d->nneeded >= WS_DYN_MAX_NEEDED) {
				note(d, "more DT_NEEDED entries than wheelscan reads (4096)");
				continue;
			}
			if (!(s = str_at(in, val))) {
				note(d, "a DT_NEEDED name lies outside the string table");
				continue;
			}
			char **nv = ws_reallocarray(d->needed, (size_t)d->nneeded + 1, sizeof *nv);
			if (!nv)
				return -1;
			d->needed = nv;
			if (!(nv[d->nneeded] = ws_strdup(s)))
				return -1;
			d->nneeded++;
		} else if (tag == DT_SONAME_ && !d->soname) {
			if ((s = str_at(in, val)) && !(d->soname = ws_strdup(s)))
				return -1;
		} else if (tag == DT_RUNPATH_ && runpath == UINT64_MAX) {
			runpath = val;
		} else if (tag == DT_RPATH_ && rpath == UINT64_MAX) {
			rpath = val;
		}
	}
	/* the loader ignores DT_RPATH when DT_RUNPATH is there */
	uint64_t which = runpath != UINT64_MAX ? runpath : rpath;
	if (which != UINT64_MAX) {
		const char *s = str_at(in, which);
		if (!s)
			note(d, "the run path lies outside the string table");
		else if (!(d->runpath = ws_strdup(s)))
			return -1;
		d->rpath = runpath == UINT64_MAX;
	}
	return 0;
}

/* Version index -> name: verdef's vd_ndx, vernaux's vna_other. name[i] points into dynstr.
 * Sized to the largest index the symbols use (most objects: a handful), not 2^15. */
struct vermap {
	uint32_t n;
	const char **name;
	uint32_t *vneed;               /* 1 + index into d->vneeds */
};

static int verdefs(const struct ws_elfdyn_in *in, struct ws_dynlib *d, struct vermap *m)
{
	uint64_t at = 0;
	for (uint32_t k = 0; k < in->verdefnum && k < WS_DYN_MAX_VERSIONS; k++) {
		if (!ws_in_bounds(at, 20, in->nverdef)) {
			note(d, "the version definitions run off their section");
			break;
		}
		const uint8_t *v = in->verdef + at;
		uint16_t flags = ws_le16(v + 2), ndx = ws_le16(v + 4) & VERSYM_INDEX_, cnt = ws_le16(v + 6);
		uint32_t aux = ws_le32(v + 12), next = ws_le32(v + 16);
		uint64_t ap;
		if (cnt && ws_add_u64(at, aux, &ap) && ws_in_bounds(ap, 8, in->nverdef)) {
			const char *s = str_at(in, ws_le32(in->verdef + ap));
			if (s) {
				if (ndx < m->n)
					m->name[ndx] = s;
				if (!(flags & VER_FLG_BASE_)) {
					char **nv = ws_reallocarray(d->verdefs, (size_t)d->nverdefs + 1, sizeof *nv);
					if (!nv)
						return -1;
					d->verdefs = nv;
					if (!(nv[d->nverdefs] = ws_strdup(s)))
						return -1;
					d->nverdefs++;
				}
			}
		}
		if (!next)
			break;
		if (!ws_add_u64(at, next, &at))
			break;
	}
	return 0;
}

static int verneeds(const struct ws_elfdyn_in *in, struct ws_dynlib *d, struct vermap *m)
{
	uint64_t at = 0;
	uint32_t total = 0;
	for (uint32_t k = 0; k < in->verneednum && k < WS_DYN_MAX_VERSIONS; k++) {
		if (!ws_in_bounds(at, 16, in->nverneed)) {
			note(d, "the needed versions run off their section");
			break;
		}
		const uint8_t *v = in->verneed + at;
		uint16_t cnt = ws_le16(v + 2);
		const char *file = str_at(in, ws_le32(v + 4));
		uint64_t ap = at;
		uint32_t aux = ws_le32(v + 8), next = ws_le32(v + 12);
		bool ok = ws_add_u64(ap, aux, &ap);
		for (uint16_t j = 0; ok && j < cnt && total < WS_DYN_MAX_VERSIONS; j++, total++) {
			if (!ws_in_bounds(ap, 16, in->nverneed)) {
				note(d, "the needed versions run off their section");
				break;
			}
			const uint8_t *x = in->verneed + ap;
			uint16_t flags = ws_le16(x + 4), other = ws_le16(x + 6) & VERSYM_INDEX_;
			const char *name = str_at(in, ws_le32(x + 8));
			if (file && name) {
				struct ws_dyn_vneed *nv = ws_reallocarray(d->vneeds, (size_t)d->nvneeds + 1, sizeof *nv);
				if (!nv)
					return -1;
				d->vneeds = nv;
				nv[d->nvneeds] = (struct ws_dyn_vneed){ws_strdup(file), ws_strdup(name), (flags & VER_FLG_WEAK_) != 0};
				if (!nv[d->nvneeds].file || !nv[d->nvneeds].version) {
					free(nv[d->nvneeds].file);
					free(nv[d->nvneeds].version);
					return -1;
				}
				d->nvneeds++;
				if (other < m->n) {
					m->name[other] = name;
					m->vneed[other] = d->nvneeds;
				}
			}
			uint32_t nx = ws_le32(x + 12);
			if (!nx || !ws_add_u64(ap, nx, &ap))
				break;
		}
		if (!next || !ws_add_u64(at, next, &at))
			break;
	}
	return 0;
}

static int symbols(const struct ws_elfdyn_in *in, struct ws_dynlib *d, const struct vermap *m)
{
	size_t n = in->ndynsym / 24;
	if (!in->dynsym || !in->dynstr)
		return 0;
	if (n > WS_DYN_MAX_SYMBOLS) {
		note(d, "more dynamic symbols than wheelscan reads (2097152): its symbols are not checked");
		return 0;
	}
	bool versioned = in->versym && in->nversym / 2 >= n;
	/* at most two hashes a definition */
	uint64_t *defs = ws_calloc(n ? n * 2 : 1, sizeof *defs), *ns = ws_calloc(n ? n : 1, sizeof *ns);
	uint32_t nd = 0, nn = 0;
	size_t undef_bytes = 0;
	if (!defs || !ns) {
		free(defs), free(ns);
		return -1;
	}
	for (size_t i = 1; i < n; i++) {
		const uint8_t *y = in->dynsym + i * 24;
		uint8_t bind = y[4] >> 4, type = y[4] & 0xf, vis = y[5] & 3;
		uint16_t shndx = ws_le16(y + 6);
		const char *name = str_at(in, ws_le32(y));
		uint16_t vs = versioned ? ws_le16(in->versym + i * 2) : 1;
		uint16_t vi = vs & VERSYM_INDEX_;
		if (!name || !*name || bind == 0 /* local */ || type == 3 || type == 4)
			continue;
		if (shndx != 0) {
			if (vis == 2 || vis == 1)          /* hidden, internal: not exported */
				continue;
			const char *ver = vi >= 2 && vi < m->n ? m->name[vi] : NULL;
			if (!(vs & VERSYM_HIDDEN_))
				defs[nd++] = ws_dyn_hash(name, NULL);
			if (ver)
				defs[nd++] = ws_dyn_hash(name, ver);
			uint64_t h = ws_dyn_namespace(name);
			if (h)
				ns[nn++] = h;
			continue;
		}
		size_t len = strlen(name);
		if (undef_bytes + len + 1 > WS_DYN_MAX_UNDEF_BYTES) {
			note(d, "more undefined symbols than wheelscan keeps: the rest are not checked");
			break;
		}
		struct ws_dyn_undef *nu = ws_reallocarray(d->undefs, (size_t)d->nundefs + 1, sizeof *nu);
		if (!nu)
			goto nomem;
		d->undefs = nu;
		nu[d->nundefs] = (struct ws_dyn_undef){ws_strdup(name), vi >= 2 && vi < m->n ? m->vneed[vi] : 0, bind == 2};
		if (!nu[d->nundefs].name)
			goto nomem;
		d->nundefs++;
		undef_bytes += len + 1;
	}
	d->defs = defs;
	d->ndefs = uniq(defs, nd);
	d->nspaces = ns;
	d->nnspaces = uniq(ns, nn);
	d->symbols_read = true;
	return 0;
nomem:
	free(defs), free(ns);
	return -1;
}

int ws_elfdyn_parse(const struct ws_elfdyn_in *in, struct ws_dynlib *out, struct ws_err *err)
{
	struct vermap *m = NULL;
	memset(out, 0, sizeof *out);
	if (dynamic_entries(in, out) < 0)
		goto nomem;
	if (!(m = ws_calloc(1, sizeof *m)))
		goto nomem;
	/* the largest version index a symbol names */
	for (size_t i = 0; in->versym && i < in->nversym / 2; i++) {
		uint32_t v = ws_le16(in->versym + i * 2) & VERSYM_INDEX_;
		if (v >= m->n)
			m->n = v + 1;
	}
	if (m->n && (!(m->name = ws_calloc(m->n, sizeof *m->name)) || !(m->vneed = ws_calloc(m->n, sizeof *m->vneed))))
		goto nomem;
	if ((in->verdef && verdefs(in, out, m) < 0) || (in->verneed && verneeds(in, out, m) < 0) ||
	    symbols(in, out, m) < 0)
		goto nomem;
	free(m->name), free(m->vneed), free(m);
	return 0;
nomem:
	if (m)
		free(m->name), free(m->vneed);
	free(m);
	ws_dynlib_clear(out);
	ws_err_set(err, WS_E_MEMORY, "out of memory reading the dynamic symbols");
	return -1;
}

void ws_dynlib_clear(struct ws_dynlib *d)
{
	if (!d)
		return;
	free(d->member);
	free(d->soname);
	for (uint32_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->runpath);
	for (uint32_t i = 0; i < d->nverdefs; i++)
		free(d->verdefs[i]);
	free(d->verdefs);
	for (uint32_t i = 0; i < d->nvneeds; i++) {
		free(d->vneeds[i].file);
		free(d->vneeds[i].version);
	}
	free(d->vneeds);
	free(d->defs);
	free(d->nspaces);
	for (uint32_t i = 0; i < d->nundefs; i++)
		free(d->undefs[i].name);
	free(d->undefs);
	free(d->note);
	memset(d, 0, sizeof *d);
}

int ws_artifact_add_dynlib(struct ws_artifact *a, struct ws_dynlib *d)
{
	struct ws_dynlib *nv;
	if (a->nlibs >= UINT32_MAX - 1 || !(nv = ws_reallocarray(a->libs, (size_t)a->nlibs + 1, sizeof *nv))) {
		ws_dynlib_clear(d);
		return -1;
	}
	a->libs = nv;
	nv[a->nlibs++] = *d;
	memset(d, 0, sizeof *d);
	return 0;
}
