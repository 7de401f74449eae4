/* ws_pe.h - Windows PE/COFF images, decoded from bytes (src/core/pescan.c). */
#ifndef WS_PE_H
#define WS_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

struct ws_pe_header {
	uint16_t machine;              /* 0x8664 x86-64, 0xaa64 arm64 */
	uint16_t nsections;
	uint16_t characteristics;      /* 0x2000: a DLL (.dll, .pyd) */
	uint64_t sections_at;          /* file offset of the section table */
};

struct ws_pe_section {
	char name[12];                 /* up to 8 bytes, "__nv_rel" for __nv_relfatbin */
	uint64_t offset, size;         /* raw data in the file */
};

struct ws_pe_sections {
	struct ws_pe_section *s;       /* sections with data in the file, by offset */
	uint32_t n;
};

/* "MZ" and a "PE\0\0" signature inside the first n bytes. */
bool ws_pe_sniff(const uint8_t *p, size_t n);
/* Decodes the DOS and COFF headers from the first n bytes. 0, or -1 with the reason. */
int ws_pe_header(const uint8_t *p, size_t n, struct ws_pe_header *h, struct ws_err *err);
/* Decodes h->nsections headers from tab (n bytes); every section's data must lie within
 * file_size. 0, or -1 with the reason. */
int ws_pe_sections(const uint8_t *tab, size_t n, const struct ws_pe_header *h, uint64_t file_size,
		   struct ws_pe_sections *out, struct ws_err *err);
/* The name of the section whose data holds file offset off, or NULL. */
const char *ws_pe_section_at(const struct ws_pe_sections *s, uint64_t off);
void ws_pe_sections_free(struct ws_pe_sections *s);

#endif
