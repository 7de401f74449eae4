/* ws_dynlib.h - what a shared object asks of the dynamic loader and what it offers it:
 * ELF's dynamic section (DT_SONAME, DT_NEEDED, DT_RUNPATH/DT_RPATH), its dynamic symbols
 * and symbol versions (.gnu.version, .gnu.version_d, .gnu.version_r), and a PE image's
 * import table. Decoded from bytes (src/core/elfdyn.c, src/core/peimports.c); the load
 * resolution of an environment (ws_loadres.h) reads them. Every count is bounded. */
#ifndef WS_DYNLIB_H
#define WS_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"

/* Bounds on what one object may make us keep (a hostile file claims anything). */
#define WS_DYN_MAX_NEEDED 4096u
#define WS_DYN_MAX_VERSIONS 8192u
#define WS_DYN_MAX_SYMBOLS (1u << 21)          /* dynamic symbols read from one object */
#define WS_DYN_MAX_UNDEF_BYTES ((size_t)16 << 20) /* names of undefined symbols kept */
#define WS_DYN_MAX_STRTAB ((uint64_t)128 << 20) /* .dynstr read */
#define WS_DYN_MAX_NAME 4096u                  /* one name (soname, symbol, path) */

/* A version node the object needs from a file (.gnu.version_r). */
struct ws_dyn_vneed {
	char *file;                    /* "libc10.so" as the needing object names it */
	char *version;                 /* "CUDA_12.0" */
	bool weak;                     /* VER_FLG_WEAK: a missing node only warns */
};

/* An undefined symbol the object binds at load (RTLD_NOW: every one of them). */
struct ws_dyn_undef {
	char *name;
	uint32_t vneed;                /* 1 + index into vneeds, or 0: unversioned */
	bool weak;                     /* STB_WEAK: may stay unresolved */
};

struct ws_dynlib {
	char *member;                  /* its path in the artifact ("torch/lib/libc10.so") */
	bool pe;                       /* a Windows image: needed are imported DLL names */
	bool gpu;                      /* it holds CUDA device code */
	char *soname;                  /* DT_SONAME, or NULL (the loader then knows it by file name) */
	char **needed;                 /* DT_NEEDED, or the DLLs of the import table */
	uint32_t nneeded;
	char *runpath;                 /* DT_RUNPATH, else DT_RPATH (rpath true), or NULL */
	bool rpath;
	char **verdefs;                /* version nodes it defines (not the base node) */
	uint32_t nverdefs;
	struct ws_dyn_vneed *vneeds;
	uint32_t nvneeds;
	uint64_t *defs;                /* sorted hashes of exported symbols: "name" and "name@VERSION" */
	uint32_t ndefs;
	uint64_t *nspaces;             /* sorted hashes of the C++ top namespaces it exports ("3c10") */
	uint32_t nnspaces;
	struct ws_dyn_undef *undefs;
	uint32_t nundefs;
	bool symbols_read;             /* false: no symbol tables, or over a bound (then not checked) */
	char *note;                    /* what was not read, or NULL */
};

/* The bytes of one ELF64 little-endian object's dynamic sections, as the section table
 * names them; any may be NULL/0. Strings of all of them are in dynstr. */
struct ws_elfdyn_in {
	const uint8_t *dynamic; size_t ndynamic;
	const uint8_t *dynstr; size_t ndynstr;
	const uint8_t *dynsym; size_t ndynsym;
	const uint8_t *versym; size_t nversym;
	const uint8_t *verdef; size_t nverdef; uint32_t verdefnum;
	const uint8_t *verneed; size_t nverneed; uint32_t verneednum;
};

/* Fills out (zeroed first, member left to the caller) from the sections' bytes. Returns 0,
 * or -1 with the reason in err (memory; a malformed table is a note, not a failure:
 * what could be read is kept). */
int ws_elfdyn_parse(const struct ws_elfdyn_in *in, struct ws_dynlib *out, struct ws_err *err);

/* A PE image's imports: hdr holds the DOS, COFF and optional headers and the section table
 * (hdrlen bytes from the file's start); sec is read by the caller as the one section that
 * holds the import directory. ws_pe_import_span says which file range that is. */
int ws_pe_import_span(const uint8_t *hdr, size_t hdrlen, uint64_t *off, uint64_t *size, uint32_t *rva,
		      struct ws_err *err);
/* Decodes the import descriptors and their DLL names from the section's bytes (loaded at
 * rva). Returns 0, or -1 with the reason. */
int ws_pe_imports_parse(const uint8_t *sec, size_t n, uint32_t sec_rva, const uint8_t *hdr, size_t hdrlen,
			struct ws_dynlib *out, struct ws_err *err);

/* The hash wheelscan keeps of a symbol name (and "name@version"). */
uint64_t ws_dyn_hash(const char *name, const char *version);
/* The hash of name's C++ top namespace ("_ZN3c106detail..." -> "3c10"), 0 when it has none
 * the loader check can use (not mangled, std::, a global-scope name). */
uint64_t ws_dyn_namespace(const char *name);
bool ws_dyn_defines(const struct ws_dynlib *d, uint64_t h);
bool ws_dyn_owns_namespace(const struct ws_dynlib *d, uint64_t ns);

/* Moves d's contents (freeing the source's pointer array) into a's list; on failure d is
 * cleared. Returns 0 or -1. */
int ws_artifact_add_dynlib(struct ws_artifact *a, struct ws_dynlib *d);
void ws_dynlib_clear(struct ws_dynlib *d);

#endif
