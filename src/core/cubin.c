/* cubin.c - device ELF (EM_CUDA) through libelf, from memory: SM, kernels, producer notes.
 *
 * Kernels are .symtab symbols with STT_FUNC and STO_CUDA_ENTRY (st_other & 0x10).
 * SM: ABI v2 (e_ident[EI_ABIVERSION] >= 8) keeps it in e_flags bits 8..15, ABI v1 in
 * bits 0..7 (verified on 19,774 cubins, doc/fatbin-format.md (e)).
 * .note.nv.cuinfo (type 1000):  desc {u16 version, u16 sm, u32 toolkit (130 = 13.0)}; the
 *     toolkit word means that only from note version 2 (ptxas 13). Version 1 (ptxas 12.8 and
 *     12.9, new-ABI cubins) has {u16 1, u16 sm, u32 1, u32 1}: that 1 is no CUDA version
 *     (torchvision 0.23.0's CUDA 12.8 cubins; doc/fatbin-format.md (e)).
 * .note.nv.tkinfo (type 2000):  desc {u32 ?, u32 off0, u32 tool, u32 version, u32 build,
 *                                     u32 options} then a string table; offsets are into it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>

#include "ws_decode.h"
#include "ws_elf.h"
#include "ws_quote.h"

#define EM_CUDA_ 190
#define STO_CUDA_ENTRY 0x10
#define NOTE_CUINFO 1000
#define NOTE_TKINFO 2000

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static void elf_init(void) { elf_version(EV_CURRENT); }

static char *tk_string(const uint8_t *tab, size_t n, uint32_t off)
{
	return off < n ? ws_strdup_field((const char *)tab + off, n - off) : NULL;
}

/* "Cuda compilation tools, release 12.8, V12.8.93" -> 128; 0 when the text says no version.
 * ptxas writes this in every cubin's .note.nv.tkinfo (12.x and 13.x alike). */
uint16_t ws_toolkit_of_producer(const char *s)
{
	const char *r = s ? strstr(s, "release ") : NULL;
	unsigned major = 0, minor = 0;
	int n = 0;
	if (!r || sscanf(r + 8, "%2u.%2u%n", &major, &minor, &n) != 2 || n < 3 || major < 1 || minor > 9)
		return 0;
	return (uint16_t)(major * 10 + minor);
}

static void read_notes(Elf_Data *d, struct ws_entry *e)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;
	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		const uint8_t *desc = (const uint8_t *)d->d_buf + desc_off;
		if (nh.n_type == NOTE_CUINFO && nh.n_descsz >= 8 && ws_le16(desc) >= 2) {
			uint32_t tk = ws_le32(desc + 4);
			e->toolkit = tk < 90 || tk > 9999 ? 0 : (uint16_t)tk;
		}
		if (nh.n_type == NOTE_TKINFO && nh.n_descsz >= 24 && !e->producer && !e->tool_options) {
			const uint8_t *tab = desc + 24;
			size_t tn = nh.n_descsz - 24;
			e->producer = tk_string(tab, tn, ws_le32(desc + 12));
			e->tool_options = tk_string(tab, tn, ws_le32(desc + 20));
		}
		off = next;
	}
	if (!e->toolkit && e->producer)
		e->toolkit = ws_toolkit_of_producer(e->producer);
}

/* A kernel symbol: where its name starts in the string table, its place in the symbol
 * table, and (once named) its name in the pool. */
struct kernel_sym {
	uint32_t name_off, order, idx;
};

static int by_name_off(const void *a, const void *b)
{
	const struct kernel_sym *x = a, *y = b;
	if (x->name_off != y->name_off)
		return x->name_off < y->name_off ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_order(const void *a, const void *b)
{
	const struct kernel_sym *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The bytes of the symbol table's string table up to its last NUL (what elf_strptr would
 * accept), or *len 0 when there is none. */
static const char *string_table(Elf *elf, size_t link, size_t *len)
{
	Elf_Scn *scn = elf_getscn(elf, link);
	GElf_Shdr sh;
	Elf_Data *d;
	*len = 0;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return NULL;
	const char *last_nul = memrchr(d->d_buf, 0, d->d_size);
	*len = last_nul ? (size_t)(last_nul - (const char *)d->d_buf) + 1 : 0;
	return d->d_buf;
}

/* Kernels in symbol order, each name offset once. Symbols can all name the same bytes,
 * or start inside one another's names: each distinct offset is measured and interned
 * once, the NUL ending it found by a walk over the table in offset order, and the name
 * bytes interned are bounded by a multiple of the table's size (names that do not
 * overlap, every real cubin's, never come near it). */
static int read_kernels(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct ws_entry *e,
			struct ws_strpool *pool, const struct ws_limits *lim, struct ws_err *err)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize == 0)
		return 0;
	size_t names_len, count = d->d_size / sizeof(Elf64_Sym);
	const char *names = string_table(elf, sh->sh_link, &names_len);
	if (!names_len || count < 2)
		return 0;
	struct kernel_sym *ks = ws_reallocarray(NULL, count - 1, sizeof *ks);
	if (!ks)
		return ws_err_set(err, WS_E_MEMORY, "out of memory listing kernels"), -1;
	size_t nk = 0;
	for (size_t i = 1; i < count && i <= UINT32_MAX; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && (sym.st_other & STO_CUDA_ENTRY) &&
		    sym.st_name < names_len)
			ks[nk++] = (struct kernel_sym){sym.st_name, (uint32_t)i, UINT32_MAX};
	}
	qsort(ks, nk, sizeof *ks, by_name_off);
	uint64_t name_bytes = 0, name_budget = 4 * (uint64_t)names_len + ((uint64_t)1 << 20);
	size_t nul = 0, named = 0;                   /* the NUL ending the name at hand */
	int rc = 0;
	for (size_t i = 0; i < nk && rc == 0; i++) {
		size_t off = ks[i].name_off;
		if (i > 0 && off == ks[i - 1].name_off)
			continue;                    /* the same name again: listed once */
		if (i == 0 || nul < off)
			nul = (size_t)((const char *)memchr(names + off, 0, names_len - off) - names);
		if (nul == off)
			continue;                    /* an empty name */
		if ((name_bytes += nul - off) > name_budget)
			rc = (ws_err_set(err, WS_E_FORMAT, "%s: kernel names overlap in the string table", e->name), -1);
		else if (named >= lim->max_kernels)
			rc = (ws_err_set(err, WS_E_LIMIT, "%s: more than %u kernels", e->name, lim->max_kernels), -1);
		else if (nul - off > lim->max_kernel_name)
			rc = (ws_err_set(err, WS_E_LIMIT, "%s: a kernel name of %zu bytes (more than %u)", e->name, nul - off,
				     lim->max_kernel_name), -1);
		else if ((ks[i].idx = ws_strpool_intern(pool, names + off, nul - off)) == UINT32_MAX)
			rc = pool->over ? (ws_kernel_names_over(e, lim, err), -1)
					: (ws_err_set(err, WS_E_MEMORY, "out of memory listing kernels"), -1);
		else
			named++;
	}
	uint32_t *k = rc == 0 && named ? ws_reallocarray(e->kernels, e->nkernels + named, sizeof *k) : NULL;
	if (rc == 0 && named && !k)
		rc = (ws_err_set(err, WS_E_MEMORY, "out of memory listing kernels"), -1);
	if (k) {
		e->kernels = k;
		qsort(ks, nk, sizeof *ks, by_order);
		for (size_t i = 0; i < nk; i++)
			if (ks[i].idx != UINT32_MAX)
				e->kernels[e->nkernels++] = ks[i].idx;
	}
	free(ks);
	return rc;
}

int ws_cubin_inspect(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		     const struct ws_limits *lim, struct ws_err *err)
{
	/* Check what libelf would otherwise convert in place: only native ELF64 LSB is read.
	 * An odd section header size is left to libelf, which refuses it. */
	struct ws_elf_header h;
	struct ws_err herr = {0};
	int hr = ws_elf_header(p, n, &h, &herr);
	if (hr == WS_ELF_TRUNCATED)
		return ws_err_set(err, WS_E_FORMAT, "%s: payload is not an ELF cubin", e->name), -1;
	if (hr == WS_ELF_OTHER_CLASS)
		return ws_err_set(err, WS_E_FORMAT, "%s: cubin is not ELF64 little-endian", e->name), -1;
	if (h.machine != EM_CUDA_)
		return ws_err_set(err, WS_E_FORMAT, "%s: cubin machine is %u, not EM_CUDA", e->name, h.machine), -1;
	if (h.shnum > lim->max_sections)
		return ws_err_set(err, WS_E_LIMIT, "%s: cubin claims %u sections", e->name, h.shnum), -1;
	/* libelf would quietly skip sections it cannot read: a truncated cubin must say so */
	if (h.shoff && !ws_in_bounds(h.shoff, (uint64_t)h.shnum * h.shentsize, n))
		return ws_err_set(err, WS_E_FORMAT, "%s: section table lies outside the cubin", e->name), -1;

	pthread_once(&elf_once, elf_init);
	/* libelf reads in place; the cast drops const only for its API. */
	Elf *elf = elf_memory((char *)(uintptr_t)p, n);
	if (!elf)
		return ws_err_set(err, WS_E_FORMAT, "%s: libelf: %s", e->name, elf_errmsg(-1)), -1;
	int rc = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh)) {
		rc = -1;
		ws_err_set(err, WS_E_FORMAT, "%s: bad cubin ELF header: %s", e->name, elf_errmsg(-1));
		goto out;
	}
	unsigned abiver = eh.e_ident[EI_ABIVERSION];
	e->elf_sm = (uint16_t)(abiver >= 8 ? (eh.e_flags >> 8) & 0xff : eh.e_flags & 0xff);
	e->relocatable = eh.e_type == ET_REL;
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	Elf_Scn *scn = NULL;
	unsigned guard = 0;
	/* Section headers may all point at the same bytes: reading each would cost sections x
	 * bytes. ELF allows one SHT_SYMTAB (gABI: "only one section of each type"), so later
	 * ones are ignored; notes are read while the note bytes read stay within the cubin's
	 * size, which notes that do not overlap (every real cubin's) never exceed. */
	bool have_symtab = false;
	uint64_t note_bytes_left = n;
	while ((scn = elf_nextscn(elf, scn)) != NULL && guard++ <= lim->max_sections) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !have_symtab) {
			have_symtab = true;
			if (read_kernels(elf, scn, &sh, e, pool, lim, err) < 0) {
				rc = -1;
				goto out;
			}
		} else if (sh.sh_type == SHT_NOTE && sh.sh_size <= note_bytes_left) {
			note_bytes_left -= sh.sh_size;
			Elf_Data *d = elf_getdata(scn, NULL);
			if (d && d->d_buf)
				read_notes(d, e);
		}
	}
	e->kernels_known = true;
out:
	elf_end(elf);
	return rc;
}
