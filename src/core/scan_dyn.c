/* scan_dyn.c - the dynamic linking facts of each shared object a scan walks (ws_dynlib.h),
 * read beside the container search of scan.c without a second pass over a streamed member:
 *  - ELF: the program headers (at the start) say where PT_DYNAMIC lies; the search stops
 *    there once to copy it (a few KiB), then goes on. The dynamic symbol and version
 *    sections, which the section table at the end names, lie near the start of the file
 *    and are copied back afterwards (a forward re-read of a zip member, a pread of a file).
 *  - PE: the import directory's section, named by the headers read first.
 * Nothing here judges: src/core/loadres.c resolves the environment's libraries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_dynlib.h"
#include "ws_elf.h"
#include "ws_util.h"
#include "ws_window.h"
#include "scan_state.h"

#define PT_DYNAMIC_ 2
#define PHDR_SIZE 56
#define MAX_PHDRS 4096u
#define MAX_DYNAMIC ((uint64_t)1 << 20)
#define SHT_DYNAMIC_ 6
#define SHT_DYNSYM_ 11
#define SHT_GNU_VERDEF_ 0x6ffffffd
#define SHT_GNU_VERNEED_ 0x6ffffffe
#define SHT_GNU_VERSYM_ 0x6fffffff
#define MAX_VERSION_SECTION ((uint64_t)16 << 20)

bool ws_scan_dyn_wanted(uint16_t elf_type)
{
	return elf_type == 3;                        /* ET_DYN: libraries and extension modules */
}

void ws_scan_dyn_locate(struct scan *s, uint64_t origin, uint64_t limit, const uint8_t *hdr, size_t hdrlen,
			struct ws_dynloc *loc)
{
	memset(loc, 0, sizeof *loc);
	if (hdrlen < 64)
		return;
	uint64_t phoff = ws_le64(hdr + 32);
	uint16_t phentsize = ws_le16(hdr + 54), phnum = ws_le16(hdr + 56);
	size_t got;
	if (!phoff || phentsize != PHDR_SIZE || !phnum || phnum > MAX_PHDRS ||
	    !ws_in_bounds(phoff, (uint64_t)phnum * PHDR_SIZE, limit - origin))
		return;
	const uint8_t *p = ws_window_peek(s->w, origin + phoff, (size_t)phnum * PHDR_SIZE, &got);
	if (!p || got < (size_t)phnum * PHDR_SIZE)
		return;
	for (uint16_t i = 0; i < phnum; i++) {
		const uint8_t *ph = p + (size_t)i * PHDR_SIZE;
		if (ws_le32(ph) != PT_DYNAMIC_)
			continue;
		uint64_t off = ws_le64(ph + 8), size = ws_le64(ph + 32);
		if (size && size <= MAX_DYNAMIC && ws_in_bounds(off, size, limit - origin)) {
			loc->dyn_at = origin + off;
			loc->dyn_size = size;
			loc->found = true;
		}
		break;
	}
}

void ws_scan_dyn_capture(struct scan *s, struct ws_dynloc *loc)
{
	if (!loc->found || loc->dynamic)
		return;
	uint8_t *b = ws_malloc((size_t)loc->dyn_size);
	if (b && ws_window_copy(s->w, loc->dyn_at, b, (size_t)loc->dyn_size) == 0)
		loc->dynamic = b;
	else
		free(b);
}

/* A section's bytes (at most most), or NULL. */
static uint8_t *copy_section(struct scan *s, uint64_t origin, uint64_t limit, const struct ws_elf_section *c,
			     uint64_t most, size_t *n)
{
	*n = 0;
	if (!c || !c->size || c->size > most || !ws_in_bounds(c->offset, c->size, limit - origin))
		return NULL;
	uint8_t *b = ws_malloc((size_t)c->size);
	if (b && ws_window_copy(s->w, origin + c->offset, b, (size_t)c->size) == 0) {
		*n = (size_t)c->size;
		return b;
	}
	free(b);
	return NULL;
}

static const struct ws_elf_section *of_type(const struct ws_elf_sections *sec, uint32_t type)
{
	for (uint32_t i = 1; sec && i < sec->n; i++)
		if (sec->s[i].type == type)
			return &sec->s[i];
	return NULL;
}

static const struct ws_elf_section *linked(const struct ws_elf_sections *sec, const struct ws_elf_section *c)
{
	return c && c->link && c->link < sec->n ? &sec->s[c->link] : NULL;
}

static int by_offset(const void *a, const void *b)
{
	const struct ws_elf_section *x = *(const struct ws_elf_section *const *)a,
				    *y = *(const struct ws_elf_section *const *)b;
	if (!x || !y)
		return (x == NULL) - (y == NULL);         /* absent sections last */
	return (x->offset > y->offset) - (x->offset < y->offset);
}

void ws_scan_dyn_elf(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
		     const struct ws_elf_sections *sec, struct ws_dynloc *loc, bool gpu)
{
	struct ws_dynlib d;
	struct ws_err err = {0};
	struct ws_elfdyn_in in = {0};
	const struct ws_elf_section *dyn = of_type(sec, SHT_DYNAMIC_), *sym = of_type(sec, SHT_DYNSYM_),
				    *vs = of_type(sec, SHT_GNU_VERSYM_), *vd = of_type(sec, SHT_GNU_VERDEF_),
				    *vn = of_type(sec, SHT_GNU_VERNEED_);
	const struct ws_elf_section *str = linked(sec, dyn ? dyn : sym);
	uint8_t *b_str = NULL, *b_sym = NULL, *b_vs = NULL, *b_vd = NULL, *b_vn = NULL;
	if (!loc->dynamic && !dyn)
		return;                                     /* linked statically: asks nothing */
	/* in file order: a zip member's re-read goes forward */
	const struct ws_elf_section *order[5] = {str, sym, vs, vd, vn};
	qsort(order, 5, sizeof *order, by_offset);
	for (int i = 0; i < 5; i++) {
		const struct ws_elf_section *c = order[i];
		if (!c)
			continue;
		size_t n;
		if (c == str)
			b_str = copy_section(s, origin, limit, c, WS_DYN_MAX_STRTAB, &n), in.ndynstr = n;
		else if (c == sym)
			b_sym = copy_section(s, origin, limit, c, (uint64_t)WS_DYN_MAX_SYMBOLS * 24, &n), in.ndynsym = n;
		else if (c == vs)
			b_vs = copy_section(s, origin, limit, c, (uint64_t)WS_DYN_MAX_SYMBOLS * 2, &n), in.nversym = n;
		else if (c == vd)
			b_vd = copy_section(s, origin, limit, c, MAX_VERSION_SECTION, &n), in.nverdef = n;
		else if (c == vn)
			b_vn = copy_section(s, origin, limit, c, MAX_VERSION_SECTION, &n), in.nverneed = n;
	}
	uint8_t *b_dyn = loc->dynamic;
	size_t ndyn = loc->dyn_size;
	if (!b_dyn && dyn)                               /* no program headers: the section */
		b_dyn = copy_section(s, origin, limit, dyn, MAX_DYNAMIC, &ndyn);
	in.dynamic = b_dyn, in.ndynamic = b_dyn ? ndyn : 0;
	in.dynstr = b_str, in.dynsym = b_sym, in.versym = b_vs;
	in.verdef = b_vd, in.verdefnum = vd ? vd->info : 0;
	in.verneed = b_vn, in.verneednum = vn ? vn->info : 0;
	if (ws_elfdyn_parse(&in, &d, &err) < 0) {
		ws_scan_obj_fail(s, NULL, err.code, err.msg);
	} else {
		d.gpu = gpu;
		if (!b_str && !d.note)
			d.note = ws_strdup("its dynamic string table could not be read");
		if ((member && !(d.member = ws_strdup(member))) || ws_artifact_add_dynlib(s->a, &d) < 0)
			ws_scan_obj_fail(s, NULL, WS_E_MEMORY, "out of memory keeping the dynamic symbols");
		ws_dynlib_clear(&d);
	}
	if (b_dyn != loc->dynamic)
		free(b_dyn);
	free(b_str), free(b_sym), free(b_vs), free(b_vd), free(b_vn);
}

void ws_scan_dyn_done(struct ws_dynloc *loc)
{
	free(loc->dynamic);
	memset(loc, 0, sizeof *loc);
}

void ws_scan_dyn_pe(struct scan *s, const char *member, uint64_t origin, uint64_t limit, const uint8_t *hdr,
		    size_t hdrlen, bool gpu)
{
	struct ws_err err = {0};
	uint64_t off, size;
	uint32_t rva;
	struct ws_dynlib d = {0};
	uint8_t *b = NULL;
	/* a DLL without imports is still a provider: it is indexed by its file name */
	if (ws_pe_import_span(hdr, hdrlen, &off, &size, &rva, &err) == 0 && ws_in_bounds(off, size, limit - origin) &&
	    size && size <= MAX_VERSION_SECTION * 4) {
		b = ws_malloc((size_t)size);
		if (b && ws_window_copy(s->w, origin + off, b, (size_t)size) == 0) {
			if (ws_pe_imports_parse(b, (size_t)size, rva, hdr, hdrlen, &d, &err) < 0 && err.code == WS_E_MEMORY) {
				ws_scan_obj_fail(s, NULL, err.code, err.msg);
				free(b);
				return;
			}
		} else if (!d.note) {
			d.note = ws_strdup("its import table could not be read");
		}
	}
	d.gpu = gpu;
	d.pe = true;
	if ((member && !(d.member = ws_strdup(member))) || ws_artifact_add_dynlib(s->a, &d) < 0)
		ws_scan_obj_fail(s, NULL, WS_E_MEMORY, "out of memory keeping the imports");
	ws_dynlib_clear(&d);
	free(b);
}
