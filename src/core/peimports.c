/* peimports.c - a PE image's import table: the DLLs the Windows loader must find before
 * the image runs (ws_dynlib.h). Layouts (Microsoft PE format specification, "Optional
 * Header Data Directories" and "The .idata Section"):
 *  optional header: +0 u16 magic (0x10b PE32, 0x20b PE32+); data directories at +96
 *    (PE32) or +112 (PE32+), after u32 NumberOfRvaAndSizes at +92 / +108; directory 1 is
 *    the import table (u32 RVA, u32 size)
 *  section header (40): +8 u32 VirtualSize +12 u32 VirtualAddress +16 u32 SizeOfRawData
 *    +20 u32 PointerToRawData
 *  import descriptor (20): +12 u32 Name (RVA of the DLL's name); all zero ends the table
 * The names are read from the one section that holds the directory (linkers put both in
 * .idata or .rdata); a name elsewhere is noted, not followed. Delay-load imports are not
 * read: the loader does not need them at load. */
#include <stdlib.h>
#include <string.h>

#include "ws_dynlib.h"
#include "ws_util.h"

#define MAX_IMPORTS 4096u

/* The optional header and section table as offsets into hdr. */
static int layout(const uint8_t *hdr, size_t n, size_t *opt, uint16_t *optsize, size_t *sect, uint16_t *nsect)
{
	if (n < 64 || hdr[0] != 'M' || hdr[1] != 'Z')
		return -1;
	uint32_t lfanew = ws_le32(hdr + 60);
	if (!ws_in_bounds(lfanew, 24, n) || memcmp(hdr + lfanew, "PE\0\0", 4) != 0)
		return -1;
	*nsect = ws_le16(hdr + lfanew + 6);
	*optsize = ws_le16(hdr + lfanew + 20);
	*opt = (size_t)lfanew + 24;
	*sect = *opt + *optsize;
	if (!ws_in_bounds(*opt, *optsize, n) || !ws_in_bounds(*sect, (uint64_t)*nsect * 40, n))
		return -1;
	return 0;
}

int ws_pe_import_span(const uint8_t *hdr, size_t hdrlen, uint64_t *off, uint64_t *size, uint32_t *rva,
		      struct ws_err *err)
{
	size_t opt, sect;
	uint16_t optsize, nsect;
	if (layout(hdr, hdrlen, &opt, &optsize, &sect, &nsect) < 0)
		return ws_err_set(err, WS_E_FORMAT, "the PE headers and section table are not within the first "
				  "%zu bytes", hdrlen), -1;
	uint16_t magic = optsize >= 2 ? ws_le16(hdr + opt) : 0;
	size_t dirs = magic == 0x20b ? 112 : magic == 0x10b ? 96 : 0;
	if (!dirs || optsize < dirs + 16 || ws_le32(hdr + opt + dirs - 4) < 2)
		return ws_err_set(err, WS_E_FORMAT, "no import directory"), -1;
	uint32_t imp = ws_le32(hdr + opt + dirs + 8), impsize = ws_le32(hdr + opt + dirs + 12);
	if (!imp || !impsize)
		return ws_err_set(err, WS_E_FORMAT, "no import directory"), -1;
	for (uint16_t i = 0; i < nsect; i++) {
		const uint8_t *s = hdr + sect + (size_t)i * 40;
		uint32_t vsize = ws_le32(s + 8), va = ws_le32(s + 12), raw = ws_le32(s + 16), ptr = ws_le32(s + 20);
		uint32_t span = vsize > raw ? vsize : raw;
		if (imp >= va && imp - va < span) {
			if (imp - va >= raw)
				break;                        /* in the section's zero fill */
			*off = ptr;
			*size = raw;
			*rva = va;
			return 0;
		}
	}
	return ws_err_set(err, WS_E_FORMAT, "the import directory lies in no section"), -1;
}

int ws_pe_imports_parse(const uint8_t *sec, size_t n, uint32_t sec_rva, const uint8_t *hdr, size_t hdrlen,
			struct ws_dynlib *out, struct ws_err *err)
{
	size_t opt, sect;
	uint16_t optsize, nsect;
	memset(out, 0, sizeof *out);
	if (layout(hdr, hdrlen, &opt, &optsize, &sect, &nsect) < 0)
		return ws_err_set(err, WS_E_FORMAT, "PE headers unreadable"), -1;
	uint16_t magic = ws_le16(hdr + opt);
	size_t dirs = magic == 0x20b ? 112 : 96;
	uint32_t imp = ws_le32(hdr + opt + dirs + 8);
	if (imp < sec_rva)
		return ws_err_set(err, WS_E_FORMAT, "import directory before its section"), -1;
	uint64_t at = imp - sec_rva;
	for (uint32_t k = 0; k < MAX_IMPORTS; k++, at += 20) {
		if (!ws_in_bounds(at, 20, n)) {
			out->note = ws_strdup("the import table runs off its section");
			break;
		}
		const uint8_t *d = sec + at;
		static const uint8_t zero[20];
		if (!memcmp(d, zero, 20))
			break;
		uint32_t name = ws_le32(d + 12);
		if (name < sec_rva || name - sec_rva >= n) {
			if (!out->note)
				out->note = ws_strdup("an imported DLL's name lies outside the import section: not read");
			continue;
		}
		const char *s = (const char *)sec + (name - sec_rva);
		size_t left = n - (name - sec_rva);
		size_t len = strnlen(s, left < WS_DYN_MAX_NAME ? left : WS_DYN_MAX_NAME);
		if (len == 0 || len == left || len == WS_DYN_MAX_NAME)
			continue;
		char **nv = ws_reallocarray(out->needed, (size_t)out->nneeded + 1, sizeof *nv);
		if (!nv)
			goto nomem;
		out->needed = nv;
		if (!(nv[out->nneeded] = ws_strndup(s, len)))
			goto nomem;
		out->nneeded++;
	}
	return 0;
nomem:
	ws_dynlib_clear(out);
	return ws_err_set(err, WS_E_MEMORY, "out of memory reading the imports"), -1;
}
