/* fuzz_elf.c - libFuzzer target: host ELF header, extended numbering, section table,
 * section names and offset lookup, each given only the bytes the file has. */
#include "fuzz.h"
#include "ws_elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_elf_header h;
	char err[WS_ERRMAX];
	if (ws_elf_header(p, size, &h, err, sizeof err) < 0 || h.shoff == 0 || h.shoff >= size) {
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
	if (ws_elf_sections(tab, left, &h, &sec, err, sizeof err) == 0) {
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
		for (uint64_t off = 0; off < size; off += 1 + size / 16)
			ws_elf_section_at(&sec, off);
		ws_elf_section_at(&sec, UINT64_MAX);
	}
	ws_elf_sections_free(&sec);
	fuzz_ro_free(&ro);
	return 0;
}
