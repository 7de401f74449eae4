/* fuzz_elf.c - libFuzzer target: host ELF header, extended numbering, section table,
 * section names and offset lookup (checked against a linear scan), each given only the bytes the file has. */
#include "fuzz.h"
#include "ws_elf.h"

#define SHT_NOBITS_ 8

/* The definition the index must keep: the first section in table order holding off. */
static const char *linear_section_at(const struct ws_elf_sections *s, uint64_t off)
{
	for (uint32_t i = 1; i < s->n; i++) {
		const struct ws_elf_section *c = &s->s[i];
		if (c->type == SHT_NOBITS_ || c->type == 0)
			continue;
		if (off >= c->offset && off - c->offset < c->size)
			return c->name;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_elf_header h;
	struct ws_err err = {0};
	if (ws_elf_header(p, size, &h, &err) < 0 || h.shoff == 0 || h.shoff >= size) {
		fuzz_ro_free(&ro);
		return 0;
	}
	size_t left = size - (size_t)h.shoff;
	const uint8_t *tab = p + h.shoff;
	if (left >= 64)
		ws_elf_extended(tab, &h);
	if (h.shnum > 4096) {
		fuzz_ro_free(&ro);
		return 0;
	}
	struct ws_elf_sections sec;
	if (ws_elf_sections(tab, left, &h, &sec, &err) == 0) {
		if (sec.strndx && sec.strndx < sec.n) {
			const struct ws_elf_section *st = &sec.s[sec.strndx];
			if (st->offset < size) {
				size_t n = size - (size_t)st->offset;
				if (st->size < n)
					n = (size_t)st->size;
				ws_elf_name_sections(&sec, p + st->offset, n);
			}
		}
		for (uint32_t i = 0; i < sec.n; i++)
			if (strnlen(sec.s[i].name, sizeof sec.s[i].name) == sizeof sec.s[i].name)
				abort();
		if (ws_elf_index_sections(&sec) == 0) {
			/* the index must answer as a scan of the table in order would */
			for (uint32_t i = 0; i < sec.n; i++) {
				const struct ws_elf_section *c = &sec.s[i];
				uint64_t probe[4] = {c->offset, c->offset + c->size, c->offset + c->size - 1, c->offset - 1};
				for (int k = 0; k < 4; k++)
					if (ws_elf_section_at(&sec, probe[k]) != linear_section_at(&sec, probe[k]))
						abort();
			}
			for (uint64_t off = 0; off < size; off += 1 + size / 16)
				if (ws_elf_section_at(&sec, off) != linear_section_at(&sec, off))
					abort();
			if (ws_elf_section_at(&sec, UINT64_MAX) != linear_section_at(&sec, UINT64_MAX))
				abort();
		}
	}
	ws_elf_sections_free(&sec);
	fuzz_ro_free(&ro);
	return 0;
}
