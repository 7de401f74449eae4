/* cubin_stream.c - a large compressed cubin decoded as a stream, keeping only what the
 * cubin reader looks at.
 *
 * A 16 MB cubin is mostly .text. Kernels and notes need the ELF header, the section
 * header table, the symbol table with its string table, and the notes. The payload is
 * decoded chunk by chunk into a sparse image: an anonymous mapping of the cubin's full
 * size in which only the kept ranges are written, so the pages never written never
 * become resident. ws_cubin_inspect then reads the image exactly as it reads a whole
 * cubin (libelf touches only the header, the table and the sections it is asked for).
 *
 * What is kept, in one pass:
 *   - the first WS_CUBIN_PREFIX bytes: nvcc writes .shstrtab, .strtab and .symtab right
 *     after the ELF header and the section table at the end (doc/fatbin-format.md (e));
 *   - the section table, once the ELF header says where it is;
 *   - once the table is in, every section the reader needs that has not streamed past
 *     (cuBLASLt's cask cubins put the table first and the notes last).
 * A needed section that streamed past before the table arrived (a symbol table beyond
 * the prefix) costs a second pass that keeps exactly the needed ranges. A cubin with no
 * usable table is read from its header alone (all the reader would look at), never
 * decoded whole at its full size. With extended section numbering the count is in
 * section 0, which is kept and read as it streams in; the table follows it.
 *
 * The mapping belongs to the thread and is reused: the prefix is rewritten whole by
 * every entry, so its pages stay resident (no page faults per entry); the other kept
 * ranges are given back after each entry, so no stale byte is ever read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ws_decode.h"
#include "ws_elf.h"
#include "ws_util.h"

#ifndef WS_CUBIN_PREFIX                 /* fuzz builds shrink it to reach the second pass */
#define WS_CUBIN_PREFIX ((uint64_t)2 << 20)
#endif
#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define SHT_SYMTAB_ 2
#define SHT_NOTE_ 7

struct range {
	uint64_t off, end;
};

struct keep {
	uint8_t *img;
	uint64_t size;               /* the cubin's declared size: the image's size */
	uint64_t pos;                /* bytes decoded so far */
	struct range *r;             /* ranges to write into the image */
	size_t nr, cap;
	size_t sorted_from;          /* r[sorted_from..nr) are sorted and disjoint */
	bool pass1;                  /* add the section table, then the needed sections */
	bool table_added, needs_added;
	struct range table;
	bool missed;                 /* a needed section streamed past unkept: pass 2 */
	bool unusual;                /* no usable section table: the header is all there is */
	bool section0_pending;       /* extended numbering: the count is in section 0, at section0 */
	uint64_t section0;
	bool oom;
	struct ws_decoder *dc;        /* whose stream buffer and image this pass uses */
};

/* Gives back the pages written outside the prefix (they would hold this entry's bytes):
 * one call over the span of every range past it (pages never touched cost nothing). */
static void image_release(const struct keep *k, uint64_t prefix_end)
{
	const uintptr_t page = 4096;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < k->nr; i++) {
		uint64_t off = k->r[i].off > prefix_end ? k->r[i].off : prefix_end;
		if (off < k->r[i].end) {
			lo = off < lo ? off : lo;
			hi = k->r[i].end > hi ? k->r[i].end : hi;
		}
	}
	if (lo >= hi)
		return;
	uintptr_t from = ((uintptr_t)k->img + lo) & ~(page - 1);
	uintptr_t to = ((uintptr_t)k->img + hi + page - 1) & ~(page - 1);
	madvise((void *)from, to - from, MADV_DONTNEED);
}

static bool add_range(struct keep *k, uint64_t off, uint64_t len)
{
	uint64_t end;
	if (off >= k->size || len == 0)
		return true;
	if (!ws_add_u64(off, len, &end) || end > k->size)
		end = k->size;               /* libelf refuses what lies past the image itself */
	if (k->nr == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 8;
		struct range *v = ws_reallocarray(k->r, ncap, sizeof *v);
		if (!v)
			return k->oom = true, false;
		k->r = v;
		k->cap = ncap;
	}
	k->r[k->nr++] = (struct range){off, end};
	return true;
}

/* True when [off, end) lies inside the prefix and the section table: the only ranges
 * kept from the start of the stream. */
static bool kept_from_start(const struct keep *k, uint64_t off, uint64_t end)
{
	const struct range *pre = &k->r[0], *tab = &k->table;
	for (int moved = 1; moved && off < end;) {
		moved = 0;
		if (pre->off <= off && off < pre->end)
			off = pre->end, moved = 1;
		if (tab->off <= off && off < tab->end)
			off = tab->end, moved = 1;
	}
	return off >= end;
}

/* Reads the ELF header (kept: the prefix holds it) for the section table's range. */
static void find_table(struct keep *k)
{
	struct ws_elf_header h;
	struct ws_err err = {0};
	uint64_t size;
	k->table_added = true;
	bool header = ws_elf_header(k->img, EHDR_SIZE, &h, &err) == 0;
	if (header && h.shnum == 0 && h.shoff != 0 && ws_in_bounds(h.shoff, SHDR_SIZE, k->size)) {
		/* Extended numbering: section 0's sh_size holds the count. Keep section 0 and
		 * learn the table's extent when the stream reaches it (table_from_section0). */
		k->section0 = h.shoff;
		k->section0_pending = true;
		add_range(k, h.shoff, SHDR_SIZE);
		return;
	}
	if (!header || h.shoff == 0 || h.shnum == 0 ||
	    !ws_in_bounds(h.shoff, size = (uint64_t)h.shnum * SHDR_SIZE, k->size)) {
		k->unusual = true;           /* none, or not ours to judge */
		return;
	}
	k->table = (struct range){h.shoff, h.shoff + size};
	add_range(k, h.shoff, size);
}

/* Section 0 has streamed in: its sh_size is the section count. The rest of the table
 * follows it, so none of it has streamed past yet. */
static void table_from_section0(struct keep *k)
{
	uint64_t count = ws_le64(k->img + k->section0 + 32), size;
	k->section0_pending = false;
	if (count == 0 || count > UINT64_MAX / SHDR_SIZE || !ws_in_bounds(k->section0, size = count * SHDR_SIZE, k->size)) {
		k->unusual = true;
		return;
	}
	k->table = (struct range){k->section0, k->section0 + size};
	add_range(k, k->section0, size);
}

static int by_offset(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts r[from..nr) and merges the ranges that overlap or touch, so that a chunk is
 * copied once however many section headers name the same bytes. */
static void merge_ranges(struct keep *k, size_t from)
{
	if (k->nr - from > 1)
		qsort(k->r + from, k->nr - from, sizeof *k->r, by_offset);
	size_t out = from;
	for (size_t i = from; i < k->nr; i++) {
		if (out > from && k->r[i].off <= k->r[out - 1].end) {
			if (k->r[i].end > k->r[out - 1].end)
				k->r[out - 1].end = k->r[i].end;
		} else {
			k->r[out++] = k->r[i];
		}
	}
	k->nr = out;
	k->sorted_from = from;
}

/* The sections ws_cubin_inspect reads: the first symbol table and its string table, and
 * the notes, chosen as it chooses them (so that headers repeating the same bytes cost no
 * more here than there). In pass 1 a needed range with bytes before k->pos that were not
 * kept sets k->missed. */
static void add_needed(struct keep *k, bool pass1)
{
	const uint8_t *t = k->img + k->table.off;
	uint64_t n = (k->table.end - k->table.off) / SHDR_SIZE;
	size_t first = k->nr;
	bool have_symtab = false;
	uint64_t note_bytes_left = k->size;
	k->needs_added = true;
	for (uint64_t i = 1; i < n && !k->oom; i++) {      /* libelf skips section 0 too */
		const uint8_t *s = t + i * SHDR_SIZE;
		uint32_t type = ws_le32(s + 4), link = ws_le32(s + 40);
		const uint8_t *want[2];
		int nw = 0;
		if (type == SHT_SYMTAB_ && !have_symtab) {
			have_symtab = true;
			want[nw++] = s;
			if (link < n)
				want[nw++] = t + (uint64_t)link * SHDR_SIZE;
		} else if (type == SHT_NOTE_ && ws_le64(s + 32) <= note_bytes_left) {
			note_bytes_left -= ws_le64(s + 32);
			want[nw++] = s;
		}
		for (int w = 0; w < nw; w++) {
			uint64_t off = ws_le64(want[w] + 24), end;
			if (off >= k->size)
				continue;
			if (!ws_add_u64(off, ws_le64(want[w] + 32), &end) || end > k->size)
				end = k->size;
			if (pass1 && off < k->pos && !kept_from_start(k, off, end < k->pos ? end : k->pos))
				k->missed = true;
			add_range(k, off, end - off);
		}
	}
	merge_ranges(k, first);
}

static void copy_range(struct keep *k, const struct range *r, const uint8_t *p, uint64_t from, uint64_t to)
{
	uint64_t lo = r->off > from ? r->off : from;
	uint64_t hi = r->end < to ? r->end : to;
	if (lo < hi)
		memcpy(k->img + lo, p + (lo - from), (size_t)(hi - lo));
}

/* Writes the parts of the chunk [from, to) that ranges first.. keep into the image. The
 * sorted ranges are found by binary search: a chunk costs the ranges it meets, not all. */
static void copy_ranges(struct keep *k, size_t first, const uint8_t *p, uint64_t from, uint64_t to)
{
	size_t i = first;
	for (; i < k->nr && i < k->sorted_from; i++)
		copy_range(k, &k->r[i], p, from, to);
	size_t lo = i, hi = k->nr;           /* the first sorted range that ends after from */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->r[mid].end <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < k->nr && k->r[i].off < to; i++)
		copy_range(k, &k->r[i], p, from, to);
}

static int keep_sink(void *ctx, const uint8_t *p, size_t n, struct ws_err *err)
{
	struct keep *k = ctx;
	uint64_t from = k->pos, to;
	if (!ws_add_u64(from, n, &to) || to > k->size)
		return -1;                   /* cannot happen: the decoder caps the output */
	copy_ranges(k, 0, p, from, to);
	if (k->pass1) {
		/* Ranges learnt from this chunk may start inside it: copy them from it too. While
		 * this runs k->pos is the chunk's start, so only bytes before it count as gone. */
		size_t nr = k->nr;
		if (!k->table_added && to >= EHDR_SIZE) {
			find_table(k);
			copy_ranges(k, nr, p, from, to);
			nr = k->nr;
		}
		if (k->section0_pending && to >= k->section0 + SHDR_SIZE) {
			table_from_section0(k);
			copy_ranges(k, nr, p, from, to);
			nr = k->nr;
		}
		if (!k->unusual && !k->section0_pending && !k->needs_added && to >= k->table.end) {
			add_needed(k, true);
			copy_ranges(k, nr, p, from, to);
		}
	}
	k->pos = to;
	return k->oom ? ws_err_set(err, WS_E_MEMORY, "out of memory") : 0;
}

/* One decoding pass through the sink; -1 with err set (naming the entry) on failure. */
static int stream_pass(struct keep *k, const uint8_t *p, size_t n, struct ws_entry *e,
		       const struct ws_limits *lim, struct ws_err *err)
{
	struct ws_err perr = {0};
	if (ws_payload_stream(k->dc, e, p, n, lim, keep_sink, k, &perr) == 0)
		return 0;
	ws_err_set(err, perr.code ? perr.code : WS_E_FORMAT, "%s: %s", e->name, perr.msg);
	return -1;
}

int ws_cubin_inspect_stream(struct ws_decoder *dc, const uint8_t *p, size_t n, struct ws_entry *e, struct ws_strpool *pool,
			    const struct ws_limits *lim, struct ws_err *err)
{
	struct ws_err perr = {0};
	if (ws_payload_check(e, n, lim, &perr) < 0)
		return ws_err_set(err, perr.code, "%s: %s", e->name, perr.msg), -1;
	struct keep k = {.size = e->uncompressed_size, .pass1 = true, .sorted_from = SIZE_MAX, .dc = dc};
	uint64_t prefix = WS_CUBIN_PREFIX > EHDR_SIZE ? WS_CUBIN_PREFIX : EHDR_SIZE;
	if (!(k.img = ws_decoder_image(dc, (size_t)k.size)))
		return ws_err_set(err, WS_E_MEMORY, "%s: out of memory for a %llu-byte cubin", e->name,
			      (unsigned long long)k.size), -1;
	int rc = -1;
	if (!add_range(&k, 0, prefix))
		goto oom;
	if (stream_pass(&k, p, n, e, lim, err) < 0)
		goto out;
	if (k.unusual || !k.table_added || k.section0_pending) {
		/* No table to follow (none, out of bounds, or a header that is not ELF): the reader
		 * looks at the header alone, which the prefix holds, so it finds what it would
		 * find in the whole cubin; decoding it whole would cost its full size in memory. */
		e->content_size = k.size;
		rc = ws_cubin_inspect(k.img, (size_t)k.size, e, pool, lim, err);
		goto out;
	}
	/* the sink has added the needed sections: every byte, the table's last among them,
	 * went through it */
	if (k.missed) {
		/* pass 2: the table is known now; keep exactly what the reader needs (the
		 * same ranges as pass 1 beyond the prefix, so the release below covers both) */
		k.nr = 0;
		k.pos = 0;
		k.pass1 = false;
		k.sorted_from = SIZE_MAX;
		if (!add_range(&k, k.table.off, k.table.end - k.table.off))
			goto oom;
		add_needed(&k, false);
		if (k.oom)
			goto oom;
		if (stream_pass(&k, p, n, e, lim, err) < 0)
			goto out;
	}
	e->content_size = k.size;
	rc = ws_cubin_inspect(k.img, (size_t)k.size, e, pool, lim, err);
	goto out;
oom:
	ws_err_set(err, WS_E_MEMORY, "%s: out of memory", e->name);
out:
	image_release(&k, prefix);
	free(k.r);
	return rc;
}
