/* fuzz.h - shared setup for the libFuzzer targets: tight limits, a fresh
 * artifact and a read-only copy of the input (decoders must never write to
 * the bytes they are given: plain files are mmap'd read-only). */
#ifndef WS_FUZZ_H
#define WS_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "wheelscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Limits small enough that no input can reach libFuzzer's -rss_limit_mb by design. */
static inline void fuzz_limits(struct ws_limits *lim)
{
	ws_limits_default(lim);
	lim->max_entry_bytes = (uint64_t)64 << 20;
	lim->max_member_bytes = (uint64_t)64 << 20;
	lim->max_total_bytes = (uint64_t)256 << 20;
	lim->max_entries = 1024;
	lim->max_containers = 4096;
	lim->max_kernels = 1u << 16;
	lim->max_sections = 4096;
	lim->max_members = 4096;
}

/* The same for a target that reads archives: members and their sum kept small too. */
static inline void fuzz_archive_limits(struct ws_limits *lim)
{
	fuzz_limits(lim);
	lim->max_member_bytes = (uint64_t)16 << 20;
	lim->max_total_bytes = (uint64_t)64 << 20;
}

static inline struct ws_artifact *fuzz_artifact(void)
{
	struct ws_artifact *a = calloc(1, sizeof *a);
	if (a && !(a->path = strdup("fuzz-input"))) {
		free(a);
		a = NULL;
	}
	if (!a)
		abort();
	return a;
}

/* An entry holding only the header fields a decoder is given; nothing decoded yet. */
static inline struct ws_entry fuzz_entry(uint16_t kind, enum ws_compression c, uint32_t csize, uint64_t usize)
{
	struct ws_entry e;
	memset(&e, 0, sizeof e);
	e.kind = kind;
	e.compression = c;
	e.compressed_size = csize;
	e.uncompressed_size = usize;
	strcpy(e.name, kind == WS_KIND_PTX ? "compute_90" : "sm_90");
	return e;
}

/* Aborts unless every kernel of e names a string of pool. */
static inline void fuzz_check_kernels(const struct ws_entry *e, const struct ws_strpool *pool)
{
	for (uint32_t i = 0; i < e->nkernels; i++)
		if (e->kernels[i] >= pool->n)
			abort();
}

/* A read-only private copy of data, or NULL for size 0 (a write faults). */
struct fuzz_ro { uint8_t *p; size_t len; };
static inline const uint8_t *fuzz_ro_copy(struct fuzz_ro *r, const uint8_t *data, size_t size)
{
	r->p = NULL;
	r->len = size;
	if (size == 0)
		return data;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		abort();
	memcpy(m, data, size);
	if (mprotect(m, size, PROT_READ) != 0)
		abort();
	r->p = m;
	return r->p;
}

static inline void fuzz_ro_free(struct fuzz_ro *r)
{
	if (r->p)
		munmap(r->p, r->len);
}

#endif
