/* ws_elf.h - host ELF headers and section tables, decoded from bytes (no libelf:
 * the section table of a streamed member arrives last, as plain bytes). */
#ifndef WS_ELF_H
#define WS_ELF_H

#include "wheelscan.h"

struct ws_elf_header {
	uint16_t type, machine;
	uint64_t shoff;
	uint16_t shentsize;
	uint32_t shnum;                /* 0 with shoff != 0: the count is in section 0 */
	uint32_t shstrndx;             /* SHN_XINDEX (0xffff): the index is in section 0 */
};

struct ws_elf_section {
	uint64_t offset, size;
	uint32_t type;
	uint32_t name_off;
	uint32_t link, info;           /* sh_link, sh_info (the dynamic sections' strings, counts) */
	char name[64];
};

/* [lo, last] holds no other section than sec (the first in table order that covers it). */
struct ws_elf_span {
	uint64_t lo, last;
	uint32_t sec;
};

struct ws_elf_sections {
	struct ws_elf_section *s;
	uint32_t n;
	uint32_t strndx;
	struct ws_elf_span *span;      /* sorted, disjoint; built by ws_elf_index_sections */
	uint32_t nspan;
};

/* Why ws_elf_header refused a header. */
enum {
	WS_ELF_TRUNCATED = -1,         /* fewer than 64 bytes, or no "\177ELF" */
	WS_ELF_OTHER_CLASS = -2,       /* 32-bit or big-endian: legal, not read */
	WS_ELF_BAD_SHENTSIZE = -3,     /* a section table of entries that are not 64 bytes;
					* every field of h is filled in all the same */
};
/* Decodes a 64-byte ELF64 little-endian header: the one reader of ELF headers, for host
 * files (scan.c) and cubins (cubin.c, cubin_stream.c) alike. Returns 0, or one of the
 * codes above with the reason in err (other classes and byte orders are reported, not
 * guessed). */
int ws_elf_header(const uint8_t *p, size_t n, struct ws_elf_header *h, struct ws_err *err);

/* Decodes section 0 (64 bytes) to resolve extended numbering in h. */
void ws_elf_extended(const uint8_t *sh0, struct ws_elf_header *h);

/* Decodes h->shnum section headers from tab (n bytes). */
int ws_elf_sections(const uint8_t *tab, size_t n, const struct ws_elf_header *h,
		    struct ws_elf_sections *out, struct ws_err *err);

/* Names every section from the section-name table's bytes. */
void ws_elf_name_sections(struct ws_elf_sections *s, const uint8_t *strtab, size_t n);

/* Builds the offset index that ws_elf_section_at searches: O(n log n) once, so labelling
 * C containers costs O(C log n), not O(C n). Returns 0, or -1 when out of memory. */
int ws_elf_index_sections(struct ws_elf_sections *s);

/* The name of the first non-NOBITS section (in table order) holding file offset off, or
 * NULL; sections must have been indexed. */
const char *ws_elf_section_at(const struct ws_elf_sections *s, uint64_t off);

void ws_elf_sections_free(struct ws_elf_sections *s);

#endif
