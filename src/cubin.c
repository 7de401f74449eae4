/* cubin.c - device ELF (EM_CUDA) through libelf, from memory: SM, kernels, producer notes.
 *
 * Kernels are .symtab symbols with STT_FUNC and STO_CUDA_ENTRY (st_other & 0x10).
 * SM: ABI v2 (e_ident[EI_ABIVERSION] >= 8) keeps it in e_flags bits 8..15, ABI v1 in
 * bits 0..7 (verified on 19,774 cubins, fatbin-format.md (e)).
 * .note.nv.cuinfo (type 1000):  desc {u16 version, u16 sm, u32 toolkit (130 = 13.0)}
 * .note.nv.tkinfo (type 2000):  desc {u32 ?, u32 off0, u32 tool, u32 version, u32 build,
 *                                     u32 options} then a string table; offsets are into it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>

#include "ws_decode.h"
#include "ws_util.h"

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

static void read_notes(Elf_Data *d, struct ws_entry *e)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;
	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		const uint8_t *desc = (const uint8_t *)d->d_buf + desc_off;
		if (nh.n_type == NOTE_CUINFO && nh.n_descsz >= 8) {
			uint32_t tk = ws_le32(desc + 4);
			e->toolkit = tk > 9999 ? 0 : (uint16_t)tk;
		}
		if (nh.n_type == NOTE_TKINFO && nh.n_descsz >= 24 && !e->producer && !e->tool_options) {
			const uint8_t *tab = desc + 24;
			size_t tn = nh.n_descsz - 24;
			e->producer = tk_string(tab, tn, ws_le32(desc + 12));
			e->tool_options = tk_string(tab, tn, ws_le32(desc + 20));
		}
		off = next;
	}
}

static int read_kernels(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct ws_entry *e,
			struct ws_strpool *pool, const struct ws_limits *lim, char *err, size_t errlen)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize == 0)
		return 0;
	size_t count = d->d_size / sizeof(Elf64_Sym);
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !(sym.st_other & STO_CUDA_ENTRY))
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (e->nkernels >= lim->max_kernels)
			return ws_fmt(err, errlen, "%s: more than %u kernels", e->name, lim->max_kernels), -1;
		uint32_t idx = ws_strpool_intern(pool, name, strlen(name));
		uint32_t *k = ws_reallocarray(e->kernels, e->nkernels + 1, sizeof *k);
		if (idx == UINT32_MAX || !k) {
			if (k)
				e->kernels = k;
			return ws_fmt(err, errlen, "out of memory listing kernels"), -1;
		}
		e->kernels = k;
		e->kernels[e->nkernels++] = idx;
	}
	return 0;
}

int ws_cubin_inspect(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
		     const struct ws_limits *lim, char *err, size_t errlen)
{
	/* Check what libelf would otherwise convert in place: only native ELF64 LSB is read. */
	if (n < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0)
		return ws_fmt(err, errlen, "%s: payload is not an ELF cubin", e->name), -1;
	if (p[EI_CLASS] != ELFCLASS64 || p[EI_DATA] != ELFDATA2LSB)
		return ws_fmt(err, errlen, "%s: cubin is not ELF64 little-endian", e->name), -1;
	if (ws_le16(p + 18) != EM_CUDA_)
		return ws_fmt(err, errlen, "%s: cubin machine is %u, not EM_CUDA", e->name, ws_le16(p + 18)), -1;
	uint16_t shnum = ws_le16(p + 60);
	if (shnum > lim->max_sections)
		return ws_fmt(err, errlen, "%s: cubin claims %u sections", e->name, shnum), -1;
	/* libelf would quietly skip sections it cannot read: a truncated cubin must say so */
	uint64_t shoff = ws_le64(p + 40);
	if (shoff && !ws_in_bounds(shoff, (uint64_t)shnum * ws_le16(p + 58), n))
		return ws_fmt(err, errlen, "%s: section table lies outside the cubin", e->name), -1;

	pthread_once(&elf_once, elf_init);
	/* libelf reads in place; the cast drops const only for its API. */
	Elf *elf = elf_memory((char *)(uintptr_t)p, n);
	if (!elf)
		return ws_fmt(err, errlen, "%s: libelf: %s", e->name, elf_errmsg(-1)), -1;
	int rc = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh)) {
		rc = -1;
		ws_fmt(err, errlen, "%s: bad cubin ELF header: %s", e->name, elf_errmsg(-1));
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
			if (read_kernels(elf, scn, &sh, e, pool, lim, err, errlen) < 0) {
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
