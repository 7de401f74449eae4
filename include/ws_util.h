/* ws_util.h - small helpers every module may use: checked arithmetic,
 * little-endian loads, bounded allocation and string building. */
#ifndef WS_UTIL_H
#define WS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Overflow-checked arithmetic: return false (and leave *r unspecified) on overflow. */
static inline bool ws_add_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool ws_mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/* True when [off, off+len) lies inside [0, total); never adds two file numbers. */
static inline bool ws_in_bounds(uint64_t off, uint64_t len, uint64_t total)
{
	return len <= total && off <= total - len;
}

static inline uint16_t ws_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t ws_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ws_le64(const uint8_t *p) { return ws_le32(p) | (uint64_t)ws_le32(p + 4) << 32; }

/* malloc/calloc/realloc that return NULL for n == 0 overflows and sizes over the cap. */
void *ws_malloc(size_t n);
void *ws_calloc(size_t count, size_t size);
void *ws_reallocarray(void *p, size_t count, size_t size);
char *ws_strndup(const char *s, size_t n);
char *ws_strdup(const char *s);
/* The first occurrence of needle (m bytes) in (p, n), or NULL: memmem, faster. */
const uint8_t *ws_find(const uint8_t *p, size_t n, const uint8_t *needle, size_t m);

/* Grow *arr (of *cap elements of size sz) to hold at least need elements. */
bool ws_grow(void **arr, uint32_t *cap, uint32_t need, size_t sz);
/* Appends a copy of s to the array v of n strings (growing it geometrically); false when
 * out of memory. */
bool ws_strv_push(char ***v, size_t *n, const char *s);
/* Whether an archive's member path would land outside the archive's root when extracted:
 * absolute, or with a ".." component. windows also takes '\\' for a separator and a
 * drive letter ("C:") for absolute (zip names come from Windows tools too). */
bool ws_path_escapes(const char *s, bool windows);
/* Two Python distribution names compared as PEP 503 normalizes them: a run of '-', '_' and
 * '.' is one '-', ASCII case folded. Lengths bound both (no NUL needed). _cmp orders them
 * (names it calls equal are adjacent in a sort by it); _eq is _cmp() == 0. The one place
 * the project compares package names. */
int ws_pypi_name_cmp(const char *a, size_t al, const char *b, size_t bl);
bool ws_pypi_name_eq(const char *a, size_t al, const char *b, size_t bl);
/* s ends with suffix: byte for byte, or with ASCII case folded (file names on
 * case-insensitive file systems: "TORCH.WHL", "x.DLL") */
bool ws_ends_with(const char *s, const char *suffix);
bool ws_ends_with_nocase(const char *s, const char *suffix);
/* torch, torchvision or torchaudio (PEP 503 names): released together, in lockstep, so
 * advice and the set judge treat them as one family. */
bool ws_pypi_torch_family(const char *name);
/* A 64-bit hash of p[0..n) keyed once per process (SipHash-1-3, key from getrandom):
 * names from a file cannot be chosen to collide in a hash table, and equal hashes of
 * two names are as unlikely as chance makes them. Not stable across runs: use it for
 * lookups only, never in output. */
uint64_t ws_hash64(const void *p, size_t n);

/* snprintf into a fixed buffer, always terminated; returns buf. */
char *ws_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));


/* Growable string buffer, used by report writers. */
struct ws_buf { char *p; size_t len, cap; bool failed; };
void ws_buf_add(struct ws_buf *b, const char *s, size_t n);
void ws_buf_puts(struct ws_buf *b, const char *s);
void ws_buf_printf(struct ws_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ws_buf_free(struct ws_buf *b);

#endif
