/* fuzz_stream.c - libFuzzer target: ws_scan_stream over a reader that hands out the
 * input in small chunks of pseudo-random sizes (the window code path of zip members).
 * The first byte seeds the chunk sizes and says whether the total size is known and
 * re-reads work; when both hold, the result must equal ws_scan_memory's. */
#include "fuzz.h"
#include "ws_scan.h"

struct src {
	const uint8_t *p;
	size_t n, pos;
	uint32_t rng;
};

static size_t next_chunk(struct src *s)
{
	s->rng = s->rng * 1103515245u + 12345u;
	uint32_t r = s->rng >> 16;
	return (r & 3) == 0 ? 1 + (r >> 2) % 4096 : 1 + (r >> 2) % 61;
}

static long rd(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct src *s = ctx;
	size_t k = next_chunk(s);
	if (k > n)
		k = n;
	if (k > s->n - s->pos)
		k = s->n - s->pos;
	memcpy(buf, s->p + s->pos, k);
	s->pos += k;
	return (long)k;
}

static int rerd(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct src *s = ctx;
	if (off > s->n || n > s->n - off)
		return ws_err_set(err, WS_E_FORMAT, "past the end");
	memcpy(buf, s->p + off, n);
	return 0;
}

static bool same_str(const char *x, const char *y)
{
	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* Same objects, containers, entries, kernels and error lines. */
static bool same(const struct ws_artifact *a, const struct ws_artifact *b)
{
	if (a->nobjects != b->nobjects || a->nerrors != b->nerrors)
		return false;
	for (uint32_t i = 0; i < a->nerrors; i++)
		if (!same_str(a->errors[i].where, b->errors[i].where) ||
		    !same_str(a->errors[i].message, b->errors[i].message))
			return false;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *x = &a->objects[i], *y = &b->objects[i];
		if (!same_str(x->member, y->member) || x->type != y->type ||
		    x->nfatbins != y->nfatbins || x->kernels.n != y->kernels.n || x->size != y->size)
			return false;
		for (uint32_t j = 0; j < x->nfatbins; j++) {
			const struct ws_fatbin *f = &x->fatbins[j], *g = &y->fatbins[j];
			if (f->offset != g->offset || f->size != g->size || f->nentries != g->nentries ||
			    f->nkernels != g->nkernels || strcmp(f->section, g->section) != 0 ||
			    !same_str(f->error, g->error))
				return false;
			for (uint32_t k = 0; k < f->nentries; k++) {
				const struct ws_entry *e = &f->entries[k], *h = &g->entries[k];
				if (strcmp(e->name, h->name) != 0 || e->nkernels != h->nkernels ||
				    e->content_size != h->content_size || !same_str(e->error, h->error))
					return false;
			}
		}
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct ws_limits lim;
	fuzz_limits(&lim);
	lim.max_entry_bytes = (uint64_t)16 << 20;
	struct ws_scan_opts opt = {.lim = &lim, .want_kernels = true};
	struct src s = {.p = data + 1, .n = size - 1, .rng = data[0]};
	struct ws_reader r = {.read = rd, .reread = (data[0] & 0x40) ? NULL : rerd, .ctx = &s};
	struct ws_artifact *a = fuzz_artifact();
	int rs = ws_scan_stream(a, "member", &r, (data[0] & 0x80) ? UINT64_MAX : s.n, &opt);
	if (!(data[0] & 0xc0)) {
		/* Known size and re-reads: the stream must see exactly what memory sees. */
		struct ws_artifact *m = fuzz_artifact();
		int rm = ws_scan_memory(m, "member", data + 1, size - 1, &opt);
		if (rs != rm || !same(a, m))
			abort();
		ws_artifact_free(m);
	}
	ws_artifact_free(a);
	return 0;
}
