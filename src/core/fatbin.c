/* fatbin.c - fatbin container and entry headers (the layout NVIDIA does not document).
 *
 * Container (16 bytes, then entries back to back):
 *   +0  u32 magic 0xBA55ED50   +4 u16 version (1)   +6 u16 header size (16)   +8 u64 fat_size
 *
 * Entry header (64 bytes fixed, then an extension area up to header_size):
 *   +0  u16 kind (1 PTX, 2 SASS, 8 LTO-IR)   +2 u16 0x0101   +4 u32 header_size
 *   +8  u64 payload_size (padded to 8; next entry = entry + header_size + payload_size)
 *   +16 u32 compressed_size   +20 u32 options descriptor offset ({u32 off, u32 len})
 *   +24 u16 minor  +26 u16 major (PTX ISA / cubin code version)   +28 u32 arch (sm number)
 *   +32 u32 identifier offset +36 u32 identifier length   +40 u64 flags   +48 u64 reserved
 *   +56 u64 uncompressed_size
 * Every field above was verified in bytes (doc/fatbin-format.md (b), (c)); flag meanings
 * marked there as [guess] are not relied on here, except that unknown bits are ignored.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ws_decode.h"
#include "ws_quote.h"

int ws_fatbin_header(const uint8_t *p, size_t n, uint64_t *fat_size, struct ws_err *err)
{
	if (n < WS_FATBIN_HEADER_SIZE)
		return ws_err_set(err, WS_E_FORMAT, "fatbin header truncated"), -1;
	if (ws_le32(p) != WS_FATBIN_MAGIC)
		return ws_err_set(err, WS_E_FORMAT, "bad fatbin magic 0x%08x", ws_le32(p)), -1;
	if (ws_le16(p + 4) != 1)
		return ws_err_set(err, WS_E_FORMAT, "unsupported fatbin version %u", ws_le16(p + 4)), -1;
	if (ws_le16(p + 6) != WS_FATBIN_HEADER_SIZE)
		return ws_err_set(err, WS_E_FORMAT, "unsupported fatbin header size %u", ws_le16(p + 6)), -1;
	/* Any size is taken here; the caller checks it against what the object holds. */
	*fat_size = ws_le64(p + 8);
	return 0;
}

int ws_entry_peek(const uint8_t *p, size_t n, uint64_t remaining, uint32_t *hdr_size,
		  uint64_t *payload_size, struct ws_err *err)
{
	if (n < WS_ENTRY_MIN_HEADER || remaining < WS_ENTRY_MIN_HEADER)
		return ws_err_set(err, WS_E_FORMAT, "entry header truncated"), -1;
	if (ws_le16(p + 2) != 0x0101)
		return ws_err_set(err, WS_E_FORMAT, "bad entry version 0x%04x", ws_le16(p + 2)), -1;
	uint32_t hs = ws_le32(p + 4);
	uint64_t ps = ws_le64(p + 8);
	if (hs < WS_ENTRY_MIN_HEADER || hs > WS_ENTRY_MAX_HEADER || hs % 8)
		return ws_err_set(err, WS_E_FORMAT, "bad entry header size %u", hs), -1;
	if (!ws_in_bounds(hs, ps, remaining))
		return ws_err_set(err, WS_E_FORMAT, "entry of %u+%llu bytes runs past its container (%llu left)",
			      hs, (unsigned long long)ps, (unsigned long long)remaining), -1;
	*hdr_size = hs;
	*payload_size = ps;
	return 0;
}

bool ws_fatbin_candidate(const uint8_t *p, size_t n)
{
	struct ws_err err = {0};
	uint64_t fat, ps;
	uint32_t hs;
	if (n < WS_FATBIN_PROBE_BYTES || ws_fatbin_header(p, n, &fat, &err) < 0)
		return false;
	if (fat == 0)
		return true;             /* an empty container is valid, if useless */
	return ws_entry_peek(p + WS_FATBIN_HEADER_SIZE, n - WS_FATBIN_HEADER_SIZE, fat, &hs, &ps,
			     &err) == 0 && ws_le16(p + WS_FATBIN_HEADER_SIZE) != 0;
}

const uint8_t *ws_fatbin_find(const uint8_t *p, size_t n)
{
	static const uint8_t magic[4] = {0x50, 0xED, 0x55, 0xBA};   /* WS_FATBIN_MAGIC, little-endian */
	return ws_find(p, n, magic, sizeof magic);
}

const char *ws_kind_name(uint16_t kind)
{
	switch (kind) {
	case WS_KIND_PTX: return "ptx";
	case WS_KIND_SASS: return "sass";
	case WS_KIND_LTOIR: return "ltoir";
	default: return "unknown";
	}
}

const char *ws_compression_name(enum ws_compression c)
{
	switch (c) {
	case WS_COMP_LZ4: return "lz4";
	case WS_COMP_ZSTD: return "zstd";
	default: return "none";
	}
}

/* Copies a string that the header places at [off, off+len) of the entry. */
static char *header_string(const uint8_t *p, uint32_t hs, uint32_t off, uint32_t len)
{
	/* options are space padded, identifiers NUL padded */
	return len && ws_in_bounds(off, len, hs) ? ws_strdup_field((const char *)p + off, len) : NULL;
}

void ws_entry_name(struct ws_entry *e)
{
	const char *prefix = e->kind == WS_KIND_SASS ? "sm_" : e->kind == WS_KIND_PTX ? "compute_"
			   : e->kind == WS_KIND_LTOIR ? "lto_" : NULL;
	const char *suffix = e->suffix == 'a' ? "a" : e->suffix == 'f' ? "f" : "";
	if (prefix)
		ws_fmt(e->name, sizeof e->name, "%s%u%s", prefix, e->arch, suffix);
	else
		ws_fmt(e->name, sizeof e->name, "kind%u_%u", e->kind, e->arch);
}

void ws_entry_finish(struct ws_entry *e)
{
	/* the flags decide; a PTX entry whose flags carry no marker takes its .target's */
	if (e->suffix || e->kind != WS_KIND_PTX)
		return;
	size_t n = strnlen(e->ptx_target, sizeof e->ptx_target);
	if (n >= 2 && e->ptx_target[n - 2] >= '0' && e->ptx_target[n - 2] <= '9' &&
	    (e->ptx_target[n - 1] == 'a' || e->ptx_target[n - 1] == 'f')) {
		e->suffix = e->ptx_target[n - 1];
		ws_entry_name(e);
	}
}

int ws_entry_header(const uint8_t *p, size_t n, struct ws_entry *e, struct ws_err *err)
{
	if (n < WS_ENTRY_MIN_HEADER)
		return ws_err_set(err, WS_E_FORMAT, "entry header truncated"), -1;
	uint32_t hs = ws_le32(p + 4);
	if (hs < WS_ENTRY_MIN_HEADER || hs > n)
		return ws_err_set(err, WS_E_FORMAT, "bad entry header size %u", hs), -1;

	e->kind = ws_le16(p);
	e->header_size = hs;
	e->payload_size = ws_le64(p + 8);
	e->compressed_size = ws_le32(p + 16);
	e->fmt_minor = ws_le16(p + 24);
	e->fmt_major = ws_le16(p + 26);
	uint32_t arch = ws_le32(p + 28);
	e->arch = arch > 9999 ? 9999 : (uint16_t)arch;
	e->flags = ws_le64(p + 40);
	e->uncompressed_size = ws_le64(p + 56);
	e->debug = (e->flags & WS_EF_DEBUG) != 0;
	e->suffix = (e->flags & WS_EF_ARCH_A) ? 'a' : (e->flags & WS_EF_ARCH_F) ? 'f' : 0;

	ws_entry_name(e);

	if ((e->flags & WS_EF_LZ4) && (e->flags & WS_EF_ZSTD))
		return ws_err_set(err, WS_E_FORMAT, "%s: entry claims both LZ4 and zstd compression", e->name), -1;
	e->compression = (e->flags & WS_EF_LZ4) ? WS_COMP_LZ4 : (e->flags & WS_EF_ZSTD) ? WS_COMP_ZSTD
		       : WS_COMP_NONE;
	if (e->compression != WS_COMP_NONE && (e->compressed_size == 0 ||
					       e->compressed_size > e->payload_size))
		return ws_err_set(err, WS_E_FORMAT, "%s: compressed size %u does not fit the payload of %llu bytes",
			      e->name, e->compressed_size, (unsigned long long)e->payload_size), -1;
	/* Unknown kinds and obfuscated LTO-IR are stepped over, not decoded. */
	bool known = e->kind == WS_KIND_SASS || e->kind == WS_KIND_PTX || e->kind == WS_KIND_LTOIR;
	e->opaque = !known || (e->flags & WS_EF_OBFUSCATED) || e->kind == WS_KIND_LTOIR;

	e->identifier = header_string(p, hs, ws_le32(p + 32), ws_le32(p + 36));
	uint32_t od = ws_le32(p + 20);
	/* For SASS the descriptor points at a binary compat blob, not at options. */
	if (od && e->kind != WS_KIND_SASS && ws_in_bounds(od, 8, hs))
		e->options = header_string(p, hs, ws_le32(p + od), ws_le32(p + od + 4));
	return 0;
}
