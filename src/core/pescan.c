/* pescan.c - Windows PE/COFF images (.dll, .pyd, .exe): the headers and section table,
 * decoded from bytes, for labelling the fatbin containers found in them.
 *
 * DOS header: +0 "MZ"  +60 u32 e_lfanew (offset of the PE signature)
 * PE:         +0 "PE\0\0"  COFF header +4: u16 Machine, u16 NumberOfSections, u32 time,
 *             u32 symbol table, u32 symbols, u16 SizeOfOptionalHeader, u16 Characteristics
 *             (0x2000 = DLL); section headers follow the optional header, 40 bytes each:
 *             +0 char Name[8] (NUL-padded)  +8 u32 VirtualSize  +12 u32 VirtualAddress
 *             +16 u32 SizeOfRawData  +20 u32 PointerToRawData
 * (Microsoft PE format specification.) CUDA's sections, measured on the nvidia-curand-cu12
 * and bitsandbytes Windows wheels: ".nv_fatb" holds the loadable fatbins, "__nv_rel" the
 * relocatable ones (the 8-byte cut of "__nv_relfatbin"), ".nvFatBi" the 24-byte wrappers
 * that point at them, "__nv_mod" the module ids. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_pe.h"
#include "ws_quote.h"

#define SECTION_HEADER 40

bool ws_pe_sniff(const uint8_t *p, size_t n)
{
	if (n < 64 || p[0] != 'M' || p[1] != 'Z')
		return false;
	uint32_t lfanew = ws_le32(p + 60);
	return ws_in_bounds(lfanew, 24, n) && !memcmp(p + lfanew, "PE\0\0", 4);
}

int ws_pe_header(const uint8_t *p, size_t n, struct ws_pe_header *h, struct ws_err *err)
{
	memset(h, 0, sizeof *h);
	if (n < 64 || p[0] != 'M' || p[1] != 'Z')
		return ws_err_set(err, WS_E_FORMAT, "not a PE image (no MZ header)"), -1;
	uint32_t lfanew = ws_le32(p + 60);
	if (!ws_in_bounds(lfanew, 24, n) || memcmp(p + lfanew, "PE\0\0", 4) != 0)
		return ws_err_set(err, WS_E_FORMAT, "PE signature missing at offset %u", lfanew), -1;
	const uint8_t *c = p + lfanew + 4;
	h->machine = ws_le16(c);
	h->nsections = ws_le16(c + 2);
	h->characteristics = ws_le16(c + 18);
	/* 24 bytes of signature and COFF header, then the optional header: no overflow, all
	 * three are below 2^32 + 2^16 */
	h->sections_at = (uint64_t)lfanew + 24 + ws_le16(c + 16);
	return 0;
}

static int cmp_offset(const void *x, const void *y)
{
	const struct ws_pe_section *a = x, *b = y;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

int ws_pe_sections(const uint8_t *tab, size_t n, const struct ws_pe_header *h, uint64_t file_size,
		   struct ws_pe_sections *out, struct ws_err *err)
{
	memset(out, 0, sizeof *out);
	if ((uint64_t)h->nsections * SECTION_HEADER > n)
		return ws_err_set(err, WS_E_FORMAT, "section table is truncated"), -1;
	if (h->nsections == 0)
		return 0;
	out->s = ws_calloc(h->nsections, sizeof *out->s);
	if (!out->s)
		return ws_err_set(err, WS_E_MEMORY, "out of memory"), -1;
	for (uint32_t i = 0; i < h->nsections; i++) {
		const uint8_t *e = tab + (size_t)i * SECTION_HEADER;
		struct ws_pe_section *s = &out->s[out->n];
		uint32_t size = ws_le32(e + 16), at = ws_le32(e + 20);
		/* a name is 8 bytes, NUL-padded, or all 8 used */
		ws_sanitize(s->name, sizeof s->name, (const char *)e, strnlen((const char *)e, 8));
		if (size == 0 || at == 0)
			continue;                         /* uninitialised data: nothing in the file */
		if (!ws_in_bounds(at, size, file_size))
			return ws_err_set(err, WS_E_FORMAT, "section '%s' lies past the end of the file", s->name),
			       ws_pe_sections_free(out), -1;
		s->offset = at;
		s->size = size;
		out->n++;
	}
	if (out->n > 1)
		qsort(out->s, out->n, sizeof *out->s, cmp_offset);
	return 0;
}

const char *ws_pe_section_at(const struct ws_pe_sections *s, uint64_t off)
{
	/* the last section starting at or before off, if it covers off (sorted by offset) */
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->s[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ws_pe_section *c = &s->s[lo - 1];
	return off - c->offset < c->size ? c->name : NULL;
}

void ws_pe_sections_free(struct ws_pe_sections *s)
{
	free(s->s);
	memset(s, 0, sizeof *s);
}
