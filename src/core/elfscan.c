/* elfscan.c - host ELF64 header and section table, decoded from bytes.
 *
 * Ehdr: +0 "\x7fELF"  +4 class (2 = 64-bit)  +5 data (1 = LSB)  +16 u16 type  +18 u16 machine
 *       +40 u64 shoff  +58 u16 shentsize (64)  +60 u16 shnum  +62 u16 shstrndx
 * Shdr (64 bytes): +0 u32 name  +4 u32 type  +24 u64 offset  +32 u64 size  +40 u32 link
 *                  +44 u32 info
 * Extended numbering: shnum 0 -> section 0's size; shstrndx 0xffff -> section 0's link.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ws_elf.h"
#include "ws_quote.h"

#define SHT_NOBITS_ 8
#define SHN_XINDEX_ 0xffff
#define SHDR_SIZE 64

int ws_elf_header(const uint8_t *p, size_t n, struct ws_elf_header *h, struct ws_err *err)
{
	memset(h, 0, sizeof *h);
	if (n < 64 || memcmp(p, "\177ELF", 4) != 0)
		return ws_err_set(err, WS_E_FORMAT, "truncated ELF header"), WS_ELF_TRUNCATED;
	if (p[4] != 2 || p[5] != 1)
		return ws_err_set(err, WS_E_FORMAT, "ELF class %u / byte order %u is not 64-bit little-endian",
			      p[4], p[5]), WS_ELF_OTHER_CLASS;
	h->type = ws_le16(p + 16);
	h->machine = ws_le16(p + 18);
	h->shoff = ws_le64(p + 40);
	h->shentsize = ws_le16(p + 58);
	h->shnum = ws_le16(p + 60);
	h->shstrndx = ws_le16(p + 62);
	if (h->shoff && h->shentsize != SHDR_SIZE)
		return ws_err_set(err, WS_E_FORMAT, "section header size %u is not %u", h->shentsize, SHDR_SIZE),
		       WS_ELF_BAD_SHENTSIZE;
	return 0;
}

void ws_elf_extended(const uint8_t *sh0, struct ws_elf_header *h)
{
	if (h->shnum == 0) {
		uint64_t n = ws_le64(sh0 + 32);
		h->shnum = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
	if (h->shstrndx == SHN_XINDEX_)
		h->shstrndx = ws_le32(sh0 + 40);
}

int ws_elf_sections(const uint8_t *tab, size_t n, const struct ws_elf_header *h,
		    struct ws_elf_sections *out, struct ws_err *err)
{
	memset(out, 0, sizeof *out);
	uint64_t need;
	if (!ws_mul_u64(h->shnum, SHDR_SIZE, &need) || need > n)
		return ws_err_set(err, WS_E_FORMAT, "section table of %u entries is truncated", h->shnum), -1;
	if (h->shnum == 0)
		return 0;
	out->s = ws_calloc(h->shnum, sizeof *out->s);
	if (!out->s)
		return ws_err_set(err, WS_E_MEMORY, "out of memory for %u sections", h->shnum), -1;
	out->n = h->shnum;
	out->strndx = h->shstrndx;
	for (uint32_t i = 0; i < h->shnum; i++) {
		const uint8_t *s = tab + (size_t)i * SHDR_SIZE;
		out->s[i].name_off = ws_le32(s);
		out->s[i].type = ws_le32(s + 4);
		out->s[i].offset = ws_le64(s + 24);
		out->s[i].size = ws_le64(s + 32);
		out->s[i].link = ws_le32(s + 40);
		out->s[i].info = ws_le32(s + 44);
		ws_fmt(out->s[i].name, sizeof out->s[i].name, "section#%u", i);
	}
	return 0;
}

void ws_elf_name_sections(struct ws_elf_sections *s, const uint8_t *strtab, size_t n)
{
	/* A name is terminated when it starts at or before the table's last NUL; found once,
	 * so no name is measured past what it can store (the table can be most of the file,
	 * and every section can point into one long run of it). */
	const uint8_t *last_nul = n ? memrchr(strtab, 0, n) : NULL;
	size_t ended = last_nul ? (size_t)(last_nul - strtab) + 1 : 0;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t o = s->s[i].name_off;
		if (o >= ended || strtab[o] == 0)      /* not terminated, or empty */
			continue;
		size_t most = ended - o < sizeof s->s[i].name ? ended - o : sizeof s->s[i].name;
		ws_sanitize(s->s[i].name, sizeof s->s[i].name, (const char *)strtab + o,
			    strnlen((const char *)strtab + o, most));
	}
}

/* A section as an inclusive range [lo, last]: last saturates, so a range that runs off the
 * end of the 64-bit space still holds every offset the linear definition gives it. */
struct range {
	uint64_t lo, last;
	uint32_t sec;
};

static int by_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : (x->sec > y->sec) - (x->sec < y->sec);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Min-heap of ranges keyed by section index: the covering section that wins is the
 * first in table order, as a linear scan of the table would find. */
static void heap_push(struct range *h, uint32_t *n, struct range r)
{
	uint32_t i = (*n)++;
	while (i && h[(i - 1) / 2].sec > r.sec) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = r;
}

static void heap_pop(struct range *h, uint32_t *n)
{
	struct range last = h[--*n];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].sec < h[c].sec)
			c++;
		if (h[c].sec >= last.sec)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

int ws_elf_index_sections(struct ws_elf_sections *s)
{
	free(s->span);
	s->span = NULL;
	s->nspan = 0;
	uint32_t m = 0, ncut = 0, nheap = 0, nspan = 0;
	struct range *r = ws_calloc(s->n ? s->n : 1, sizeof *r), *heap = ws_calloc(s->n ? s->n : 1, sizeof *heap);
	uint64_t *cut = ws_calloc(s->n ? (size_t)s->n * 2 : 1, sizeof *cut);
	struct ws_elf_span *span = ws_calloc(s->n ? (size_t)s->n * 2 : 1, sizeof *span);
	if (!r || !heap || !cut || !span) {
		free(r), free(heap), free(cut), free(span);
		return -1;
	}
	for (uint32_t i = 1; i < s->n; i++) {
		const struct ws_elf_section *c = &s->s[i];
		if (c->type == SHT_NOBITS_ || c->type == 0 || c->size == 0)
			continue;
		uint64_t last = c->size - 1 > UINT64_MAX - c->offset ? UINT64_MAX : c->offset + (c->size - 1);
		r[m++] = (struct range){c->offset, last, i};
		cut[ncut++] = c->offset;
		if (last != UINT64_MAX)
			cut[ncut++] = last + 1;
	}
	qsort(r, m, sizeof *r, by_lo);
	qsort(cut, ncut, sizeof *cut, by_u64);
	/* Sweep the cut points: between two of them the set of covering sections is fixed. */
	uint32_t next = 0;
	for (uint32_t k = 0; k < ncut; k++) {
		if (k && cut[k] == cut[k - 1])
			continue;
		uint64_t at = cut[k];
		while (next < m && r[next].lo <= at)
			heap_push(heap, &nheap, r[next++]);
		while (nheap && heap[0].last < at)
			heap_pop(heap, &nheap);
		if (!nheap)
			continue;
		uint32_t k2 = k + 1;
		while (k2 < ncut && cut[k2] == at)
			k2++;
		uint64_t end = k2 < ncut ? cut[k2] - 1 : UINT64_MAX;
		if (nspan && span[nspan - 1].sec == heap[0].sec && span[nspan - 1].last + 1 == at)
			span[nspan - 1].last = end;
		else
			span[nspan++] = (struct ws_elf_span){at, end, heap[0].sec};
	}
	free(r), free(heap), free(cut);
	s->span = span;
	s->nspan = nspan;
	return 0;
}

const char *ws_elf_section_at(const struct ws_elf_sections *s, uint64_t off)
{
	uint32_t lo = 0, hi = s->nspan;             /* the last span starting at or before off */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->span[mid].lo <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || off > s->span[lo - 1].last)
		return NULL;
	return s->s[s->span[lo - 1].sec].name;
}

void ws_elf_sections_free(struct ws_elf_sections *s)
{
	if (s) {
		free(s->s);
		free(s->span);
		memset(s, 0, sizeof *s);
	}
}
