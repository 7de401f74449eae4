/* buildcuda.c - the CUDA release an object was built with, read from its own bytes.
 *
 * A build is compiled by one toolkit, and the CUDA runtime it links is that release. Most
 * of its cubins name it in ptxas' producer note ("Cuda compilation tools, release 13.2").
 * A few may name another: PyTorch 2.15.0's libtorch_cuda.so (PyPI, 2.15.0+cu132, pinning
 * cuda-toolkit==13.2.2) carries 2981 cubins from ptxas 13.2 in its .nv_fatbin and 58
 * single-kernel cubins from ptxas 13.4 embedded as data in .lrodata. Taking the newest note
 * called that build 13.4; the release most cubins name is the build's (doc/builds.md). */
#include "ws_compat.h"

#define MAX_RELEASES 16          /* distinct toolkits counted per object; more are pooled */

void ws_object_build_cuda(const struct ws_object *o, struct ws_build_cuda *out)
{
	struct release { int cuda; uint64_t n; } seen[MAX_RELEASES];
	size_t nseen = 0;
	int isa = 0;
	*out = (struct ws_build_cuda){0};
	for (uint32_t i = 0; i < o->nfatbins; i++)
		for (uint32_t e = 0; e < o->fatbins[i].nentries; e++) {
			const struct ws_entry *en = &o->fatbins[i].entries[e];
			if (en->kind == WS_KIND_SASS && en->toolkit) {
				int c = en->toolkit / 10 * 1000 + en->toolkit % 10 * 10;
				size_t s = 0;
				while (s < nseen && seen[s].cuda != c)
					s++;
				if (s == nseen && nseen < MAX_RELEASES)
					seen[nseen++] = (struct release){ c, 0 };
				if (s < nseen)
					seen[s].n++;
				if (c > out->newest_note)
					out->newest_note = c;
			} else if (en->kind == WS_KIND_PTX && !en->opaque) {
				unsigned ma, mi;
				ws_entry_isa(en, &ma, &mi);
				int c = ws_ptx_isa_min_cuda(ma, mi);
				if (c > isa) {
					isa = c;
					out->isa_major = ma;
					out->isa_minor = mi;
				}
			}
		}
	/* the release most cubins name; a tie goes to the newer */
	for (size_t s = 0; s < nseen; s++) {
		out->noted_cubins += seen[s].n;
		if (seen[s].n > out->cubins || (seen[s].n == out->cubins && seen[s].cuda > out->cuda)) {
			out->cuda = seen[s].cuda;
			out->cubins = seen[s].n;
		}
	}
	out->from_isa = !out->cuda && isa;
	if (!out->cuda)
		out->cuda = isa;
}
