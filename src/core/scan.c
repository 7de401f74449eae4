/* scan.c - from an input's bytes to model objects: sniff the content, walk host
 * ELF files, ar archives, raw fatbins, bare cubins and PTX, and decode every
 * fatbin container found by a validated magic search.
 *
 * Containers are found by searching the whole object for the magic, not by
 * trusting section names: CUDA's own libraries keep most of theirs in .ldata,
 * .rodata and .cask_resource (doc/fatbin-format.md (a)). Each container is then
 * labelled with the section that holds it, once the section table (which a
 * streamed ELF delivers last) is known. The containers' search and decoding are
 * scan_fatbin.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ws_compat.h"
#include "ws_elf.h"
#include "ws_pe.h"
#include "ws_quote.h"
#include "scan_state.h"

#define EM_CUDA_ 190
#define AR_MAGIC "!<arch>\n"
#define AR_HDR 60
#define AR_MAX_LONGNAMES ((size_t)16 << 20)

enum ws_artifact_type ws_content_type(enum ws_content c)
{
	static const enum ws_artifact_type types[] = {WS_ART_OTHER, WS_ART_ELF, WS_ART_CUBIN, WS_ART_ARCHIVE,
						      WS_ART_FATBIN, WS_ART_PTX, WS_ART_ZIP, WS_ART_PE};
	return (unsigned)c < sizeof types / sizeof *types ? types[c] : WS_ART_OTHER;
}

/* How many bytes of p are text PTX may hold, up to the first NUL (PTX in a fatbin ends
 * with one), or 0 when a byte PTX may not hold comes first: a control character anywhere,
 * a byte past ASCII outside a comment. Comments hold anything ("// Copyright (c) 2025" with
 * the sign, in UTF-8 or Latin-1, names); a UTF-8 byte order mark may open the text. */
static size_t ptx_text_len(const uint8_t *p, size_t n)
{
	size_t i = n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3) ? 3 : 0;
	enum { CODE, LINE, BLOCK } in = CODE;
	for (; i < n && p[i]; i++) {
		uint8_t c = p[i];
		if (c < 0x09 || (c > 0x0d && c < 0x20) || c == 0x7f || (c >= 0x80 && in == CODE))
			return 0;
		if (in == CODE && c == '/' && i + 1 < n && (p[i + 1] == '/' || p[i + 1] == '*'))
			in = p[++i] == '/' ? LINE : BLOCK;
		else if (in == LINE && c == '\n')
			in = CODE;
		else if (in == BLOCK && c == '*' && i + 1 < n && p[i + 1] == '/')
			in = CODE, i++;
	}
	return i;
}

/* The offset of the first byte of s (n bytes, after a byte order mark) that is not blank
 * and not in a // or block comment: n when there is none (the text may go on). */
static size_t past_comments(const char *s, size_t n)
{
	size_t i = n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;
	while (i < n) {
		if (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
			i++;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			const char *nl = memchr(s + i, '\n', n - i);
			i = nl ? (size_t)(nl - s) + 1 : n;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *e = memmem(s + i + 2, n - i - 2, "*/", 2);
			i = e ? (size_t)(e - s) + 2 : n;
		} else if (s[i] == '/' && i + 1 == n) {
			return n;                       /* a comment the window cuts */
		} else {
			return i;
		}
	}
	return n;
}

/* ".version 8.4" at the start of a line, and a ".target" after it, in n bytes of text. */
static bool version_and_target(const char *s, size_t n)
{
	const char *v = memmem(s, n, ".version ", 9);
	return v && (v == s || v[-1] == '\n' || (v - s == 3 && !memcmp(s, "\xef\xbb\xbf", 3))) &&
	       memmem(s, n, ".target ", 8) != NULL;
}

/* PTX as its first bytes show it (n: at most WS_SNIFF_BYTES). A window that is nothing but
 * comments and blanks up to its end may be PTX whose .version comes after a long licence
 * header: it is taken as PTX here (*unsure), and ptx_confirm decides once the text is read. */
static bool looks_like_ptx(const uint8_t *p, size_t n, bool *unsure)
{
	size_t i = ptx_text_len(p, n);
	const char *s = (const char *)p;
	*unsure = false;
	if (!i)
		return false;
	if (version_and_target(s, i))
		return true;
	*unsure = n == WS_SNIFF_BYTES && i == n && past_comments(s, i) == i;
	return *unsure;
}

/* PTX that looks_like_ptx was unsure of, now that n bytes of it can be read: the first
 * directive after the comments (within PTX_PROLOGUE_MAX) is .version, and a .target
 * follows it. A source file with a long licence header, then code, is not PTX. */
#define PTX_PROLOGUE_MAX ((size_t)1 << 20)
static bool ptx_confirm(const uint8_t *p, size_t n)
{
	size_t i = ptx_text_len(p, n > PTX_PROLOGUE_MAX ? PTX_PROLOGUE_MAX : n);
	const char *s = (const char *)p;
	if (!i)
		return false;
	/* the first directive is .version (PTX begins so), and a .target follows it */
	size_t k = past_comments(s, i);
	return k < i && i - k > 9 && !memcmp(s + k, ".version", 8) && (s[k + 8] == ' ' || s[k + 8] == '\t') &&
	       memmem(s + k, i - k, ".target", 7) != NULL;
}

enum ws_content ws_sniff(const uint8_t *p, size_t n)
{
	if (n >= 20 && memcmp(p, "\177ELF", 4) == 0)
		return ws_le16(p + 18) == EM_CUDA_ ? WS_CONTENT_CUBIN : WS_CONTENT_ELF;
	if (n >= 8 && memcmp(p, AR_MAGIC, 8) == 0)
		return WS_CONTENT_AR;
	if (n >= 4 && (memcmp(p, "PK\3\4", 4) == 0 || memcmp(p, "PK\5\6", 4) == 0))
		return WS_CONTENT_ZIP;
	if (ws_fatbin_candidate(p, n))
		return WS_CONTENT_FATBIN;
	bool unsure;
	if (looks_like_ptx(p, n < WS_SNIFF_BYTES ? n : WS_SNIFF_BYTES, &unsure))
		return WS_CONTENT_PTX;
	if (ws_pe_sniff(p, n))
		return WS_CONTENT_PE;
	return WS_CONTENT_OTHER;
}

/* ---- what a name claims ------------------------------------------------------ */

/* "libx.so", "libx.so.12", "libx.so.12.4.1" */
static bool shared_object_name(const char *base)
{
	const char *so = NULL;
	for (const char *p = strstr(base, ".so"); p; p = strstr(p + 1, ".so"))
		so = p;
	if (!so)
		return false;
	for (const char *q = so + 3; *q; q++)
		if (!(isdigit((unsigned char)*q) || (*q == '.' && isdigit((unsigned char)q[1]))))
			return false;
	return true;
}

/* A text file the linker reads in place of a shared object (/usr/lib/.../libc.so). */
static bool ld_script(const uint8_t *p, size_t n)
{
	static const char *const starts[] = {"/* GNU ld script", "OUTPUT_FORMAT", "GROUP", "INPUT"};
	for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
		if (n >= strlen(starts[i]) && !memcmp(p, starts[i], strlen(starts[i])))
			return true;
	return false;
}

const char *ws_name_claim(const char *path, enum ws_content c, const uint8_t *head, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (ws_ends_with_nocase(base, ".whl"))
		return c == WS_CONTENT_ZIP ? NULL : n ? "not a wheel: not a zip archive" : "not a wheel: empty file";
	if (ws_ends_with_nocase(base, ".zip"))
		return c == WS_CONTENT_ZIP ? NULL : n ? "not a zip archive" : "empty file named as a zip archive";
	if (ws_ends_with_nocase(base, ".dll") || ws_ends_with_nocase(base, ".pyd"))
		return c == WS_CONTENT_PE ? NULL : n ? "not a PE image (a .dll or .pyd must be one)" : "empty file named as a PE image";
	if (shared_object_name(base) || ws_ends_with_nocase(base, ".o"))
		return c == WS_CONTENT_ELF || c == WS_CONTENT_CUBIN || (c == WS_CONTENT_OTHER && ld_script(head, n)) ? NULL :
		       n ? "not an ELF file (nor a linker script)" : "empty file named as an ELF object";
	if (ws_ends_with_nocase(base, ".a"))
		return c == WS_CONTENT_AR ? NULL : n ? "not an ar archive" : "empty file named as an ar archive";
	if (ws_ends_with_nocase(base, ".cubin"))
		return c == WS_CONTENT_CUBIN ? NULL : n ? "not a cubin (an ELF file for EM_CUDA)" : "empty cubin";
	if (ws_ends_with_nocase(base, ".fatbin"))
		return c == WS_CONTENT_FATBIN ? NULL : n ? "not a fatbin container" : "empty fatbin";
	return NULL;
}

enum ws_artifact_type ws_name_type(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	static const struct { const char *suffix; enum ws_artifact_type type; } by_name[] = {
		{".whl", WS_ART_WHEEL}, {".zip", WS_ART_ZIP}, {".dll", WS_ART_PE}, {".pyd", WS_ART_PE},
		{".o", WS_ART_ELF}, {".a", WS_ART_ARCHIVE}, {".cubin", WS_ART_CUBIN}, {".fatbin", WS_ART_FATBIN},
		{".ptx", WS_ART_PTX}, {".deb", WS_ART_DEB}, {".conda", WS_ART_CONDA}, {".tar", WS_ART_TAR},
		{".tar.gz", WS_ART_TAR}, {".tgz", WS_ART_TAR}, {".tar.bz2", WS_ART_TAR}, {".tar.xz", WS_ART_TAR},
		{".tar.zst", WS_ART_TAR},
	};
	for (size_t i = 0; i < sizeof by_name / sizeof *by_name; i++)
		if (ws_ends_with_nocase(base, by_name[i].suffix))
			return by_name[i].type;
	return shared_object_name(base) ? WS_ART_ELF : WS_ART_UNKNOWN;
}

/* ---- object kinds ---------------------------------------------------------- */

static struct ws_object *new_object(struct scan *s, const char *member, enum ws_object_type type)
{
	struct ws_object *o = ws_artifact_add_object(s->a);
	if (!o)
		return NULL;
	o->type = type;
	o->kernels.hash_only = !s->opt->list_kernels;
	o->kernels.max_bytes = s->lim.max_kernel_names;
	if (member && !(o->member = ws_strdup(member))) {
		s->a->nobjects--;
		return NULL;
	}
	return o;
}

/* Members without device code are not listed; the artifact itself always is. */
static void drop_if_empty(struct scan *s, struct ws_object *o, bool keep_empty)
{
	if (o->nfatbins == 0 && !keep_empty && o == &s->a->objects[s->a->nobjects - 1]) {
		ws_object_clear(o);
		s->a->nobjects--;
	}
}

static enum ws_object_type elf_type(uint16_t t)
{
	return t == 1 ? WS_OBJ_ELF_REL : t == 2 ? WS_OBJ_ELF_EXEC : t == 3 ? WS_OBJ_ELF_SO : WS_OBJ_ELF;
}

/* Labels every container with its section and sets the relocatable flag. */
static void label_sections(struct ws_object *o, uint32_t first, const struct ws_elf_sections *sec)
{
	for (uint32_t i = first; i < o->nfatbins; i++) {
		struct ws_fatbin *f = &o->fatbins[i];
		const char *name = sec ? ws_elf_section_at(sec, f->offset) : NULL;
		ws_fmt(f->section, sizeof f->section, "%s", name ? name : "(none)");
		if (strcmp(f->section, "__nv_relfatbin") == 0)
			f->relocatable = true;
	}
}

/* Reads the section table at origin+shoff and the section names. */
static void read_sections(struct scan *s, struct ws_object *o, uint64_t origin, uint64_t limit,
			  struct ws_elf_header *h, struct ws_elf_sections *sec)
{
	struct ws_err err = {0};
	char msg[WS_ERRMAX + 32];
	size_t got;
	uint64_t at = origin + h->shoff, bytes;
	const uint8_t *p = ws_window_peek(s->w, at, 64, &got);
	if (!p || got < 64) {
		ws_scan_obj_error(s, o, "section table lies past the end of the file");
		return;
	}
	ws_elf_extended(p, h);
	if (h->shnum > s->lim.max_sections) {
		ws_scan_obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "ELF claims %u sections (limit %u)", h->shnum,
				       s->lim.max_sections));
		return;
	}
	bytes = (uint64_t)h->shnum * 64;
	if (!ws_in_bounds(h->shoff, bytes, limit - origin)) {
		ws_scan_obj_error(s, o, "section table lies past the end of the file");
		return;
	}
	p = ws_window_peek(s->w, at, (size_t)bytes, &got);
	if (!p || got < bytes || ws_elf_sections(p, got, h, sec, &err) < 0) {
		if (p && got >= bytes)
			ws_scan_obj_fail(s, o, err.code, err.msg);
		else
			ws_scan_obj_error(s, o, "section table is truncated");
		return;
	}
	if (sec->strndx == 0)
		return;                                 /* no names: sections stay "section#N" */
	if (sec->strndx >= sec->n) {
		ws_scan_obj_error(s, o, ws_fmt(msg, sizeof msg, "section name table index %u is out of range",
				       sec->strndx));
		return;
	}
	const struct ws_elf_section *st = &sec->s[sec->strndx];
	if (st->size == 0 || st->size > (1u << 24) || !ws_in_bounds(st->offset, st->size, limit - origin)) {
		ws_scan_obj_error(s, o, "section name table lies outside the file");
		return;
	}
	uint8_t *names = ws_malloc((size_t)st->size);
	if (names && ws_window_copy(s->w, origin + st->offset, names, (size_t)st->size) == 0)
		ws_elf_name_sections(sec, names, (size_t)st->size);
	else
		ws_scan_obj_error(s, o, "cannot read the section name table");
	free(names);
}

static void scan_host_elf(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			  const uint8_t *hdr, size_t hdrlen, bool keep_empty)
{
	struct ws_err err = {0};
	struct ws_elf_header h;
	int hr = ws_elf_header(hdr, hdrlen, &h, &err);
	struct ws_object *o = new_object(s, member, hr == 0 ? elf_type(h.type) : WS_OBJ_ELF);
	if (!o) {
		ws_scan_obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	struct ws_elf_sections sec = {0};
	o->jitc = ws_jitc_of_member(member ? member : s->a->path);
	s->want_release = o->jitc != WS_JITC_NONE;
	s->release = 0;
	s->release_from = 0;
	/* 32-bit and big-endian host files are legal, just not labelled; a broken
	 * 64-bit header is corrupt. */
	if (hr < 0 && hdrlen >= 6 && hdr[4] == 2 && hdr[5] == 1)
		ws_scan_obj_fail(s, o, err.code ? err.code : WS_E_FORMAT, err.msg);
	if (hr == 0 && h.shoff != 0 && h.shoff >= limit - origin)
		ws_scan_obj_error(s, o, "section table lies past the end of the file");
	bool have_table = hr == 0 && h.shoff != 0 && h.shoff < limit - origin;
	/* Sections are labelled after the walk: a stream brings the table last. */
	uint64_t table_at = have_table ? origin + h.shoff : limit;
	/* a shared object's dynamic section is copied as the search passes it (scan_dyn.c) */
	struct ws_dynloc dl = {0};
	bool dyn = hr == 0 && ws_scan_dyn_wanted(h.type);
	uint64_t split = origin;
	bool searched = true;
	if (dyn) {
		ws_scan_dyn_locate(s, origin, limit, hdr, hdrlen, &dl);
		if (dl.found && dl.dyn_at < table_at) {
			split = dl.dyn_at;
			searched = ws_scan_search_containers(s, o, origin, origin, split) == 0;
			if (searched)
				ws_scan_dyn_capture(s, &dl);
		}
	}
	if (searched && ws_scan_search_containers(s, o, origin, split, table_at) == 0 && have_table) {
		read_sections(s, o, origin, limit, &h, &sec);
		uint64_t after;
		if (sec.n && ws_add_u64(table_at, (uint64_t)sec.n * 64, &after) && after < limit)
			ws_scan_search_containers(s, o, origin, after, limit);
	}
	ws_scan_finish_object(s, o);
	if (sec.n && ws_elf_index_sections(&sec) < 0) {
		ws_scan_obj_fail(s, o, WS_E_MEMORY, "out of memory indexing the section table");
		ws_elf_sections_free(&sec);
	}
	label_sections(o, 0, sec.n ? &sec : NULL);
	if (dyn && !s->w->failed)
		ws_scan_dyn_elf(s, member, origin, limit, sec.n ? &sec : NULL, &dl, o->nfatbins != 0);
	ws_scan_dyn_done(&dl);
	ws_elf_sections_free(&sec);
	o->size = limit == UINT64_MAX ? 0 : limit - origin;
	o->jitc_cuda = s->release;
	s->want_release = false;
	drop_if_empty(s, o, keep_empty || o->jitc != WS_JITC_NONE);
}

/* A Windows image: its section table sits near the start, so it is read first; then the
 * whole file is searched and each container labelled with the section that holds it. */
static void scan_host_pe(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			 const uint8_t *hdr, size_t hdrlen, bool keep_empty)
{
	struct ws_err err = {0};
	char msg[WS_ERRMAX + 32];
	struct ws_pe_header h;
	struct ws_pe_sections sec = {0};
	int hr = ws_pe_header(hdr, hdrlen, &h, &err);
	struct ws_object *o = new_object(s, member, hr == 0 && (h.characteristics & 0x2000) ? WS_OBJ_PE_DLL : WS_OBJ_PE_EXE);
	if (!o) {
		ws_scan_obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	uint64_t size = limit == UINT64_MAX ? UINT64_MAX : limit - origin;
	if (hr < 0) {
		ws_scan_obj_fail(s, o, err.code ? err.code : WS_E_FORMAT, err.msg);
	} else if (h.nsections > s->lim.max_sections) {
		ws_scan_obj_fail(s, o, WS_E_LIMIT, ws_fmt(msg, sizeof msg, "PE claims %u sections (limit %u)", h.nsections,
				       s->lim.max_sections));
	} else if (h.nsections) {
		size_t got, bytes = (size_t)h.nsections * 40;
		const uint8_t *p = ws_in_bounds(h.sections_at, bytes, size) ?
				   ws_window_peek(s->w, origin + h.sections_at, bytes, &got) : NULL;
		if (!p || got < bytes)
			ws_scan_obj_error(s, o, "PE section table lies past the end of the file");
		else if (ws_pe_sections(p, got, &h, size, &sec, &err) < 0)
			ws_scan_obj_fail(s, o, err.code, err.msg);
	}
	ws_scan_search_containers(s, o, origin, origin, limit);
	ws_scan_finish_object(s, o);
	for (uint32_t i = 0; i < o->nfatbins; i++) {
		struct ws_fatbin *f = &o->fatbins[i];
		const char *name = ws_pe_section_at(&sec, f->offset);
		ws_fmt(f->section, sizeof f->section, "%s", name ? name : "(none)");
		/* "__nv_rel" is "__nv_relfatbin" cut to the 8 bytes a PE section name has */
		if (strcmp(f->section, "__nv_rel") == 0)
			f->relocatable = true;
	}
	ws_pe_sections_free(&sec);
	if (hr == 0 && !s->w->failed)
		ws_scan_dyn_pe(s, member, origin, limit, hdr, hdrlen, o->nfatbins != 0);
	o->size = limit == UINT64_MAX ? 0 : limit - origin;
	drop_if_empty(s, o, keep_empty);
}

static void scan_raw_fatbin(struct scan *s, const char *member, uint64_t origin, uint64_t limit)
{
	struct ws_object *o = new_object(s, member, WS_OBJ_FATBIN);
	if (!o) {
		ws_scan_obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	ws_scan_search_containers(s, o, origin, origin, limit);
	ws_scan_finish_object(s, o);
	for (uint32_t i = 0; i < o->nfatbins; i++)
		o->fatbins[i].section[0] = '\0';
	o->size = limit == UINT64_MAX ? 0 : limit - origin;
}

/* Whether PTX the sniff was unsure of (comments to the end of its window) is PTX: read on,
 * up to PTX_PROLOGUE_MAX. What is not is no object, and a file is typed "other" again. */
static bool ptx_sure(struct scan *s, const char *member, uint64_t origin, uint64_t limit)
{
	size_t got;
	bool unsure;
	const uint8_t *p = ws_window_peek(s->w, origin, WS_SNIFF_BYTES, &got);
	if (!p || !looks_like_ptx(p, got, &unsure) || !unsure)
		return true;                   /* a read error is scan_bare's to report */
	uint64_t n = limit - origin;
	if (n > PTX_PROLOGUE_MAX)
		n = PTX_PROLOGUE_MAX;
	if (!(p = ws_window_peek(s->w, origin, (size_t)n, &got)) || ptx_confirm(p, got))
		return true;
	if (!member && s->a->type == WS_ART_PTX)
		s->a->type = ws_content_type(WS_CONTENT_OTHER);
	return false;
}

/* A bare cubin or PTX file becomes an object with one pseudo-container of one entry. */
static void scan_bare(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
		      enum ws_content c)
{
	struct ws_err err = {0};
	if (c == WS_CONTENT_PTX && !ptx_sure(s, member, origin, limit))
		return;
	struct ws_object *o = new_object(s, member, c == WS_CONTENT_CUBIN ? WS_OBJ_CUBIN : WS_OBJ_PTX);
	struct ws_fatbin *f = o ? ws_object_add_fatbin(o) : NULL;
	struct ws_entry *e = f ? ws_calloc(1, sizeof *e) : NULL;
	if (!e) {
		ws_scan_obj_fail(s, NULL, WS_E_MEMORY, "out of memory");
		return;
	}
	f->entries = e;
	f->nentries = 1;
	e->kind = c == WS_CONTENT_CUBIN ? WS_KIND_SASS : WS_KIND_PTX;
	strcpy(e->name, c == WS_CONTENT_CUBIN ? "cubin" : "ptx");
	size_t got;
	uint64_t n = limit - origin;
	if (limit == UINT64_MAX || n > s->lim.max_entry_bytes) {
		/* a stream of unknown size: read up to the entry limit */
		n = s->lim.max_entry_bytes;
	}
	const uint8_t *p = ws_window_peek(s->w, origin, (size_t)n, &got);
	if (!p) {
		ws_scan_window_error(s, o, "read");
		return;
	}
	f->size = o->size = e->payload_size = e->content_size = got;
	if (!ws_scan_budget_decode(s, e, got)) {
		e->content_size = 0;
		return;
	}
	int r = c == WS_CONTENT_CUBIN ? ws_cubin_inspect(p, got, e, &o->kernels, &s->lim, &err)
				      : ws_ptx_inspect(p, got, e, &o->kernels, &s->lim, &err);
	if (r < 0) {
		ws_scan_entry_fail(s, o, e, err.code, err.msg);
	} else if (c == WS_CONTENT_CUBIN) {
		/* The suffix survives only in the ptxas options (doc/fatbin-format.md (e)). */
		const char *a = e->tool_options ? strstr(e->tool_options, "-arch sm_") : NULL;
		unsigned arch = 0;
		char suf = 0;
		if (a && sscanf(a + 9, "%u%c", &arch, &suf) >= 1 && arch == e->elf_sm && (suf == 'a' || suf == 'f'))
			e->suffix = suf;
		e->arch = e->elf_sm;
		ws_entry_name(e);
	} else {
		unsigned arch = 0;
		char suf = 0;
		if (sscanf(e->ptx_target, "sm_%u%c", &arch, &suf) >= 1 && arch < 10000) {
			e->arch = (uint16_t)arch;
			e->suffix = (suf == 'a' || suf == 'f') ? suf : 0;
		}
		e->fmt_major = e->ptx_major;
		e->fmt_minor = e->ptx_minor;
		ws_entry_name(e);
	}
	ws_scan_count_kernels(f);
}

static void scan_object(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			int depth, bool keep_empty);

/* Parses a decimal field of an ar header. */
static bool ar_number(const uint8_t *p, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	size_t i = 0;
	for (; i < n && p[i] == ' '; i++)
		;
	if (i == n || p[i] < '0' || p[i] > '9')
		return false;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
		if (!ws_mul_u64(r, 10, &r) || !ws_add_u64(r, (uint64_t)(p[i] - '0'), &r))
			return false;
	for (; i < n; i++)
		if (p[i] != ' ')
			return false;
	*v = r;
	return true;
}

/* ar archive: "!<arch>\n", then members: 60-byte header (name[16] ... size[10] "`\n") and data
 * padded to 2. GNU names: "/" symbol table, "//" long-name table, "/N" long name at N, "x.o/". */
static void scan_archive(struct scan *s, const char *member, uint64_t origin, uint64_t limit, int depth)
{
	char msg[WS_ERRMAX], label[1024];
	const char *base = member ? member : (s->a->path ? s->a->path : "");
	const char *slash = member ? NULL : strrchr(base, '/');
	if (slash)
		base = slash + 1;
	char *longnames = NULL;
	size_t nlong = 0;
	uint64_t pos = origin + 8;
	uint32_t count = 0;
	while (limit == UINT64_MAX || (pos < limit && limit - pos >= AR_HDR)) {
		size_t got;
		const uint8_t *h = ws_window_peek(s->w, pos, AR_HDR, &got);
		if (!h) {
			ws_scan_window_error(s, NULL, "archive");
			break;
		}
		if (got == 0)
			break;
		uint64_t size, data = pos + AR_HDR, next;
		if (got < AR_HDR || h[58] != '`' || h[59] != '\n' || !ar_number(h + 48, 10, &size)) {
			ws_scan_obj_error(s, NULL, ws_fmt(msg, sizeof msg, "archive member header at offset %llu is corrupt",
						  (unsigned long long)(pos - origin)));
			break;
		}
		if (!ws_add_u64(data, size, &next) || next > limit) {
			ws_scan_obj_error(s, NULL, ws_fmt(msg, sizeof msg, "archive member at offset %llu is truncated",
						  (unsigned long long)(pos - origin)));
			break;
		}
		if (++count > s->lim.max_members) {
			ws_scan_obj_fail(s, NULL, WS_E_LIMIT, "archive has too many members");
			break;
		}
		char name[256] = "";
		if (h[0] == '/' && h[1] == '/' && h[2] == ' ') {           /* long-name table */
			free(longnames);
			longnames = NULL;
			nlong = 0;
			if (size <= AR_MAX_LONGNAMES && (longnames = ws_malloc(size ? (size_t)size : 1)) &&
			    ws_window_copy(s->w, data, (uint8_t *)longnames, (size_t)size) == 0)
				nlong = (size_t)size;
		} else if (h[0] == '/' && (h[1] == ' ' || memcmp(h, "/SYM64/", 7) == 0)) {
			;                                             /* symbol table */
		} else {
			uint64_t idx;
			if (h[0] == '/' && ar_number(h + 1, 15, &idx)) {
				if (idx < nlong) {
					/* at most what name holds: a table without ends must not be
					 * read to its end once per member */
					size_t n = 0, most = nlong - idx < sizeof name - 1 ? nlong - idx : sizeof name - 1;
					while (n < most && longnames[idx + n] != '/' && longnames[idx + n] != '\n')
						n++;
					ws_sanitize(name, sizeof name, longnames + idx, n);
				}
			} else {
				size_t n = 0;
				while (n < 16 && h[n] != '/' && h[n] != ' ')
					n++;
				ws_sanitize(name, sizeof name, (const char *)h, n);
			}
			ws_fmt(label, sizeof label, "%s(%s)", base, name[0] ? name : "?");
			scan_object(s, label, data, next, depth + 1, false);
			if (s->w->failed)
				break;
		}
		pos = next + (size & 1);
		ws_window_release(s->w, pos);
	}
	free(longnames);
}

static void scan_object(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
			int depth, bool keep_empty)
{
	size_t got;
	uint64_t n = limit - origin;
	const uint8_t *p = ws_window_peek(s->w, origin, n < WS_SNIFF_BYTES ? (size_t)n : WS_SNIFF_BYTES, &got);
	if (!p) {
		ws_scan_window_error(s, NULL, "read");
		return;
	}
	/* The window may move on the next peek: copy the header we dispatch on. */
	uint8_t head[64];
	size_t hl = got < sizeof head ? got : sizeof head;
	memcpy(head, p, hl);
	switch (ws_sniff(p, got)) {
	case WS_CONTENT_ELF:
		scan_host_elf(s, member, origin, limit, head, hl, keep_empty);
		break;
	case WS_CONTENT_PE: {
		/* the PE signature can sit anywhere in the first 4 KiB: keep all of them */
		uint8_t pe[WS_SNIFF_BYTES];
		memcpy(pe, p, got);
		scan_host_pe(s, member, origin, limit, pe, got, keep_empty);
		break;
	}
	case WS_CONTENT_CUBIN:
		scan_bare(s, member, origin, limit, WS_CONTENT_CUBIN);
		break;
	case WS_CONTENT_PTX:
		scan_bare(s, member, origin, limit, WS_CONTENT_PTX);
		break;
	case WS_CONTENT_FATBIN:
		scan_raw_fatbin(s, member, origin, limit);
		break;
	case WS_CONTENT_AR:
		if (depth == 0)
			scan_archive(s, member, origin, limit, depth);
		break;
	default:
		break;
	}
}

static int scan_input(struct ws_artifact *a, const char *member, struct ws_window *w,
		      const struct ws_scan_opts *opt)
{
	struct scan s = {.a = a, .opt = opt, .w = w, .member = member, .budget = opt->budget};
	if (opt->lim)
		s.lim = *opt->lim;
	else
		ws_limits_default(&s.lim);
	if (!s.budget) {                        /* the input is the whole artifact */
		s.budget = &s.own;
		ws_budget_add_input(s.budget, w->size == UINT64_MAX ? 0 : w->size);
	}
	uint32_t errors = a->nerrors;
	size_t got;
	const uint8_t *p = ws_window_peek(w, 0, WS_SNIFF_BYTES, &got);
	if (!p) {
		ws_scan_window_error(&s, NULL, "read");
		return -1;
	}
	enum ws_content c = ws_sniff(p, got);
	if (c == WS_CONTENT_OTHER || c == WS_CONTENT_ZIP)
		return 1;
	/* payloads decode on the pool's other threads, within its byte budget */
	if (opt->offload && !opt->on_container && opt->want_kernels)
		s.q = opt->offload->open(opt, &s.lim);
	scan_object(&s, member, 0, w->size, 0, member == NULL);
	if (s.q)
		opt->offload->close(s.q);
	if (opt->offload)
		opt->offload->give(opt->decoders, s.dc);
	else
		ws_decoder_free(s.dc);
	return a->nerrors != errors ? -1 : 0;
}

int ws_scan_memory(struct ws_artifact *a, const char *member, const uint8_t *p, size_t n,
		   const struct ws_scan_opts *opt)
{
	struct ws_window w;
	ws_window_memory(&w, p, n);
	w.drop_behind = opt->drop_behind;
	return scan_input(a, member, &w, opt);
}

int ws_scan_stream(struct ws_artifact *a, const char *member, struct ws_reader *r,
		   uint64_t size, const struct ws_scan_opts *opt)
{
	struct ws_limits lim;
	if (opt->lim)
		lim = *opt->lim;
	else
		ws_limits_default(&lim);
	struct ws_window w;
	uint64_t cap = lim.max_entry_bytes + ((uint64_t)4 << 20);
	ws_window_stream(&w, r, size, cap > SIZE_MAX ? SIZE_MAX : (size_t)cap);
	int rc = scan_input(a, member, &w, opt);
	ws_window_free(&w);
	return rc;
}
