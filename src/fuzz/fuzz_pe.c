/* fuzz_pe.c - libFuzzer target: the PE/COFF walker (ws_pe_sniff, ws_pe_header,
 * ws_pe_sections, ws_pe_section_at) on raw bytes, checking what it promises: every
 * section it keeps lies inside the file, sorted by offset, and a lookup names only a
 * section that covers the offset. */
#include "fuzz.h"
#include "ws_pe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ro ro;
	const uint8_t *p = fuzz_ro_copy(&ro, data, size);
	struct ws_pe_header h;
	struct ws_err err = {0};
	size_t head = size < 4096 ? size : 4096;
	if (ws_pe_sniff(p, head) && ws_pe_header(p, head, &h, &err) == 0 &&
	    h.sections_at <= size && (uint64_t)h.nsections * 40 <= size - h.sections_at) {
		struct ws_pe_sections sec;
		if (ws_pe_sections(p + h.sections_at, size - (size_t)h.sections_at, &h, size, &sec, &err) == 0) {
			for (uint32_t i = 0; i < sec.n; i++) {
				if (sec.s[i].offset > size || sec.s[i].size > size - sec.s[i].offset)
					abort();
				if (i && sec.s[i - 1].offset > sec.s[i].offset)
					abort();
			}
			for (uint64_t off = 0; off < size; off += 1 + size / 64) {
				const char *n = ws_pe_section_at(&sec, off);
				bool covered = false;
				for (uint32_t i = 0; i < sec.n && n; i++)
					covered |= !strcmp(sec.s[i].name, n) && off >= sec.s[i].offset &&
						   off - sec.s[i].offset < sec.s[i].size;
				if (n && !covered)
					abort();
			}
			ws_pe_sections_free(&sec);
		}
	}
	fuzz_ro_free(&ro);
	return 0;
}
