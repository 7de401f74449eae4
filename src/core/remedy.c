/* remedy.c - the cure: which build of a package to install so that it runs on a target GPU
 * and driver, with its companions, and the exact commands that install it, online and
 * offline. Chosen once here from the build table (builds.c); writers only print it.
 *
 * The choice (doc/builds.md): among the table's builds of the package for the platform in
 * use, those that run on the target with the driver given; the newest release first; at one
 * release, native SASS before PTX JIT, then the build on PyPI (no index to name), then the
 * newest CUDA. torch brings the newest torchvision and torchaudio whose Requires-Dist accepts
 * it, in the same variant where the table has one;
 * a package that pins one torch (xformers) brings that torch. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_compat.h"
#include "piptags.h"
#include "rank.h"
#include "remedy_cmd.h"

static bool same_name(const char *a, const char *b)
{
	return ws_pypi_name_eq(a, strlen(a), b, strlen(b));
}

static bool on_pypi(const struct ws_build *b)
{
	return !strcmp(b->index, "pypi");
}

/* a is a better choice than b on the same target (both run): the newer release; native
 * before JIT; PyPI's build (no index to name); the newer CUDA. */
static bool better(const struct ws_build *a, enum ws_verdict va, const struct ws_build *b, enum ws_verdict vb)
{
	int c = ws_version_cmp(a->version, b->version);
	if (c)
		return c > 0;
	if ((va == WS_V_JIT) != (vb == WS_V_JIT))
		return vb == WS_V_JIT;
	if (on_pypi(a) != on_pypi(b))
		return on_pypi(a);
	if (a->cuda != b->cuda)
		return a->cuda > b->cuda;
	return !strcmp(a->provenance, "scanned") && strcmp(b->provenance, "scanned");
}

/* "2.14.1" and "2.14.0" are of one minor series. */
static bool same_minor(const char *a, const char *b)
{
	const char *da = strchr(a, '.'), *db = strchr(b, '.');
	if (!da || !db)
		return false;
	da = strchr(da + 1, '.');
	db = strchr(db + 1, '.');
	size_t la = da ? (size_t)(da - a) : strlen(a), lb = db ? (size_t)(db - b) : strlen(b);
	return la == lb && !strncmp(a, b, la);
}

/* Whether companion build r accepts torch_version, by its own Requires-Dist on torch (the
 * requires column, as PyPI's METADATA says): "torch==X" that torch only; "torch>=X" every
 * torch from X on (torchvision 0.29.2 asks torch>=2.14.0 and serves 2.15.0; torchaudio
 * 2.11.1 asks torch>=2.11), as pip resolves them. A torchaudio that pins nothing goes with
 * torch of its own minor series (its releases carry torch's version). */
/* Whether a requires column on torch ("torch==X", "torch>=X", "torch<3,>=2.3": PEP 440
 * clauses joined by ',') accepts torch version v. Anything it cannot read accepts nothing. */
static bool torch_spec_accepts(const char *spec, const char *v)
{
	if (strncmp(spec, "torch", 5) || !strchr("=<>!", spec[5]) || !spec[5])
		return false;
	for (const char *p = spec + 5; *p;) {
		static const char *const ops[] = {"==", ">=", "<=", "!=", "<", ">"};
		size_t op = 0;
		while (op < 6 && strncmp(p, ops[op], strlen(ops[op])))
			op++;
		if (op == 6)
			return false;
		p += strlen(ops[op]);
		size_t n = strcspn(p, ",");
		char *want = n ? ws_malloc(n + 1) : NULL;
		if (!want)
			return false;
		memcpy(want, p, n);
		want[n] = 0;
		p += n + (p[n] == ',');
		bool wild = n > 2 && !strcmp(want + n - 2, ".*");
		int c = wild ? strncmp(v, want, n - 1) : ws_version_cmp(v, want);
		free(want);
		bool ok = op == 0 ? c == 0 : op == 1 ? c >= 0 : op == 2 ? c <= 0 : op == 3 ? c != 0 :
			  op == 4 ? c < 0 : c > 0;
		if (!ok || (wild && op != 0 && op != 3))
			return false;
	}
	return true;
}

static bool fits_torch(const struct ws_build *r, const char *torch_version)
{
	if (!strncmp(r->requires, "torch", 5))
		return torch_spec_accepts(r->requires, torch_version);
	if (!r->requires[0] && same_name(r->package, "torchaudio"))
		return same_minor(r->version, torch_version);
	return false;
}

/* The build of companion that goes with torch_version for platform, as pip picks it: of the
 * releases that accept that torch, in variant (a companion of another CUDA release links
 * another runtime) and on index (one install command reaches one index; NULL: any), the
 * newest. With variant "" (the torch's is unknown) any variant. */
static const struct ws_build *pinned_companion(const struct ws_builds *b, const char *companion,
					       const char *torch_version, const char *variant, const char *platform,
					       const char *index)
{
	const struct ws_build *best = NULL;
	const uint32_t *rows;
	size_t n = ws_builds_of_package(b, companion, &rows);
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &b->rows[rows[i]];
		if (strcmp(r->platform, platform) || (variant[0] && strcmp(r->variant, variant)) ||
		    (index && strcmp(r->index, index)) || !fits_torch(r, torch_version))
			continue;
		if (!best || ws_version_cmp(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

/* better(), and for torch first the builds whose companions the table has */
static bool better_in(const struct ws_rank_sets *s, const struct ws_build *x, enum ws_verdict vx,
		      const struct ws_build *y, enum ws_verdict vy)
{
	if (s->complete && same_name(x->package, "torch")) {
		bool cx = ws_rank_complete(s, x), cy = ws_rank_complete(s, y);
		if (cx != cy)
			return cx;
	}
	return better(x, vx, y, vy);
}

size_t ws_builds_rank(const struct ws_builds *b, const char *package, const char *platform,
		      const struct ws_target *t, int driver_cuda, const struct ws_build **out, size_t max)
{
	return ws_builds_rank_counted(b, package, platform, t, driver_cuda, out, max, NULL);
}

size_t ws_builds_rank_counted(const struct ws_builds *b, const char *package, const char *platform,
			      const struct ws_target *t, int driver_cuda, const struct ws_build **out, size_t max,
			      uint64_t *lookups)
{
	size_t n = 0;
	if (!b || !package || !t || !out)
		return 0;
	struct ws_rank_sets s = {.b = b};
	s.n = ws_builds_of_package(b, package, &s.rows);
	if (s.n && same_name(package, "torch")) {
		if (!(s.complete = ws_calloc(s.n, sizeof *s.complete)) || ws_rank_sets_fill(&s, platform, lookups, fits_torch) < 0) {
			free(s.complete);
			return 0;
		}
	}
	for (size_t i = 0; i < s.n; i++) {
		const struct ws_build *r = &b->rows[s.rows[i]];
		enum ws_verdict v;
		if ((platform && strcmp(r->platform, platform)) || !ws_verdict_runs(v = ws_build_verdict(r, t, driver_cuda)))
			continue;
		/* one entry per install: a release's variant on PyPI and on its own index is one
		 * build, and so are the variants one wheel carries (bitsandbytes' libraries) */
		size_t same = n;
		for (size_t k = 0; k < n && same == n; k++)
			if (!strcmp(out[k]->version, r->version) &&
			    (!strcmp(out[k]->variant, r->variant) || (r->source[0] && !strcmp(out[k]->source, r->source))))
				same = k;
		if (same < n) {
			if (!better_in(&s, r, v, out[same], ws_build_verdict(out[same], t, driver_cuda)))
				continue;
			memmove(&out[same], &out[same + 1], (n - 1 - same) * sizeof *out);
			n--;
		}
		/* insertion into the best-first list, keeping at most max */
		size_t at = n;
		while (at > 0 && better_in(&s, r, v, out[at - 1], ws_build_verdict(out[at - 1], t, driver_cuda)))
			at--;
		if (at >= max)
			continue;
		if (n < max)
			n++;
		memmove(&out[at + 1], &out[at], (n - 1 - at) * sizeof *out);
		out[at] = r;
	}
	free(s.complete);
	return n;
}

/* The newest torch on b's platform that b's requirement on torch accepts and that runs on t
 * with driver, on index and of variant (NULL: any). */
static const struct ws_build *torch_on(const struct ws_builds *bs, const struct ws_build *b, const struct ws_target *t,
				       int driver, const char *index, const char *variant)
{
	const struct ws_build *best = NULL;
	const uint32_t *rows;
	size_t n = ws_builds_of_package(bs, "torch", &rows);
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &bs->rows[rows[i]];
		if (strcmp(r->platform, b->platform) || (index && strcmp(r->index, index)) ||
		    (variant && strcmp(r->variant, variant)) || !torch_spec_accepts(b->requires, r->version) ||
		    !ws_verdict_runs(ws_build_verdict(r, t, driver)))
			continue;
		if (!best || ws_version_cmp(r->version, best->version) > 0)
			best = r;
	}
	return best;
}

/* The row of b's release (same package, version, platform and index) in variant: the
 * libraries one bitsandbytes wheel carries, one per CUDA release, are rows of one release. */
static const struct ws_build *release_in_variant(const struct ws_builds *bs, const struct ws_build *b, const char *variant)
{
	const uint32_t *rows;
	size_t n = ws_builds_of_package(bs, b->package, &rows);
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &bs->rows[rows[i]];
		if (!strcmp(r->version, b->version) && !strcmp(r->platform, b->platform) && !strcmp(r->index, b->index) &&
		    !strcmp(r->variant, variant))
			return r;
	}
	return NULL;
}

/* A package that accepts a range of torch (xformers' "torch>=2.10", bitsandbytes'
 * "torch<3,>=2.3") brings, unnamed, the newest torch its index has, which may be built for
 * a newer CUDA than the driver runs, or for no CUDA (PyPI's torch for Windows): the torch to
 * name beside it is the newest its requirement accepts that runs on t with driver: of its
 * variant on its own index where there is one (its library follows torch's CUDA); else,
 * for a build on PyPI, from a variant index, in a variant its release also has a build of
 * that runs here, and *b becomes that build. NULL when none does. */
static const struct ws_build *torch_for(const struct ws_builds *bs, const struct ws_build **b, const struct ws_target *t,
					int driver)
{
	const struct ws_build *own = torch_on(bs, *b, t, driver, (*b)->index, (*b)->variant), *best = NULL, *best_b = NULL;
	if (own || strcmp((*b)->index, "pypi"))
		return own;
	const uint32_t *rows;
	size_t n = ws_builds_of_package(bs, "torch", &rows);
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &bs->rows[rows[i]], *rb;
		if (!strcmp(r->index, "pypi") || strcmp(r->platform, (*b)->platform) ||
		    !torch_spec_accepts((*b)->requires, r->version) || !ws_verdict_runs(ws_build_verdict(r, t, driver)) ||
		    !(rb = release_in_variant(bs, *b, r->variant)) || !ws_verdict_runs(ws_build_verdict(rb, t, driver)))
			continue;
		/* the newest torch; at one release the chosen build's own variant, then the newer CUDA */
		bool take = !best;
		if (best) {
			int c = ws_version_cmp(r->version, best->version);
			take = c ? c > 0 : (rb == *b) != (best_b == *b) ? rb == *b : r->cuda > best->cuda;
		}
		if (take) {
			best = r;
			best_b = rb;
		}
	}
	if (best)
		*b = best_b;
	return best;
}

/* The build of package at version in variant (NULL: any) for platform, the one on index
 * first, if the table has it. */
static const struct ws_build *find_build(const struct ws_builds *b, const char *package, const char *version,
					 const char *variant, const char *platform, const char *index)
{
	const struct ws_build *first = NULL;
	const uint32_t *rows;
	size_t n = ws_builds_of_package(b, package, &rows);
	for (size_t i = 0; i < n; i++) {
		const struct ws_build *r = &b->rows[rows[i]];
		if (!strcmp(r->version, version) && !strcmp(r->platform, platform) &&
		    (!variant || !strcmp(r->variant, variant))) {
			if (!strcmp(r->index, index))
				return r;
			if (!first)
				first = r;
		}
	}
	return first;
}

struct text {
	char buf[2048];
	size_t pos;
	bool cut;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (t->pos >= sizeof t->buf - 1) {
		t->cut = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->pos, sizeof t->buf - t->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof t->buf - t->pos) {
		t->cut = true;
		t->pos = sizeof t->buf - 1;
	} else {
		t->pos += (size_t)n;
	}
}

/* "SASS sm_70/75/80/86/90/100/120, PTX compute_120" */
static char *archs_text(const struct ws_build *b)
{
	struct text t = {.pos = 0};
	for (uint8_t i = 0; i < b->nsass; i++)
		put(&t, "%s%u%s", i ? "/" : "SASS sm_", b->sass[i], b->sass_suffix[i] == 'a' ? "a" :
		    b->sass_suffix[i] == 'f' ? "f" : "");
	for (uint8_t i = 0; i < b->nptx; i++)
		put(&t, "%s%u%s", i ? "/" : b->nsass ? ", PTX compute_" : "PTX compute_", b->ptx[i],
		    b->ptx_suffix[i] == 'a' ? "a" : b->ptx_suffix[i] == 'f' ? "f" : "");
	return ws_strdup(t.pos ? t.buf : "no device code");
}

static const char *verdict_words(enum ws_verdict v)
{
	return v == WS_V_NATIVE ? "runs natively on" : v == WS_V_COMPATIBLE ? "runs (compatible SASS) on" :
	       "runs through PTX JIT on";
}

void ws_remedy_free(struct ws_remedy *r)
{
	if (!r)
		return;
	free(r->package);
	for (uint8_t i = 0; i < r->npkgs; i++) {
		free(r->pkgs[i].name);
		free(r->pkgs[i].version);
	}
	free(r->variant);
	free(r->index);
	free(r->platform);
	free(r->provenance);
	free(r->summary);
	ws_cmd_free(&r->install);
	ws_cmd_free(&r->download);
	ws_cmd_free(&r->offline);
	free(r->note);
	free(r);
}

static int add_pkg(struct ws_remedy *r, const struct ws_build *b)
{
	if (r->npkgs >= WS_REMEDY_MAX_PKGS)
		return 0;
	r->pkgs[r->npkgs].name = ws_strdup(b->package);
	r->pkgs[r->npkgs].version = ws_strdup(b->version);
	if (!r->pkgs[r->npkgs].name || !r->pkgs[r->npkgs].version)
		return -1;
	r->npkgs++;
	return 0;
}

/* The newest release of package on platform, whatever it runs on. */
static const struct ws_build *newest_release(const struct ws_builds *b, const char *package, const char *platform)
{
	const struct ws_build *best = NULL;
	for (size_t i = 0; i < b->n; i++) {
		const struct ws_build *r = &b->rows[i];
		if (same_name(r->package, package) && !strcmp(r->platform, platform) && strcmp(r->variant, "cpu") &&
		    (!best || ws_version_cmp(r->version, best->version) > 0))
			best = r;
	}
	return best;
}

/* The least driver (CUDA version) with which some build of package's release version runs
 * on t; 0 when none of them runs on t with any driver. */
static int release_driver_need(const struct ws_builds *bs, const char *package, const char *platform,
			       const char *version, const struct ws_target *t)
{
	int best = 0;
	for (size_t i = 0; i < bs->n; i++) {
		const struct ws_build *x = &bs->rows[i];
		int need;
		if (!same_name(x->package, package) || strcmp(x->platform, platform) || strcmp(x->version, version) ||
		    !(need = ws_build_driver_need(x, t)))
			continue;
		if (!best || need < best)
			best = need;
	}
	return best;
}

/* " (R570 or newer)" after a driver's CUDA version, bounded by the GPU family's last branch;
 * nothing when no branch is known for it. */
static void put_branch(struct text *s, int cuda, const struct ws_target *t)
{
	int last_branch = 0, branch = ws_driver_branch_for(cuda), last = ws_gpu_last_driver(t->cc, &last_branch);
	char c1[16];
	if (last && cuda > last)
		put(s, ", which no driver for %s runs (R%d, the last branch for %s GPUs, supports CUDA %s)", t->name,
		    last_branch, ws_cc_family(t->cc), ws_cuda_str(last, c1, sizeof c1));
	else if (!branch || ws_cc_integrated(t->cc))
		return;                    /* Jetson runs its Jetson Linux release's driver, not R-branches */
	else if (last_branch && branch < last_branch)
		put(s, " (R%d to R%d, the last branch for %s GPUs)", branch, last_branch, ws_cc_family(t->cc));
	else
		put(s, " (R%d or newer)", branch);
}

/* The note on a newer release than the one chosen: "has none" only when no build of the
 * newest release runs on t with any driver; otherwise what it needs, or that no driver for
 * this GPU gives it that (doc/builds.md). */
static void newest_release_note(struct text *note, const struct ws_build *b, const struct ws_build *newest,
				const struct ws_target *t, const struct ws_remedy_ctx *ctx, enum ws_remedy_kind kind)
{
	char c1[16], c2[16];
	int driver = ctx->driver_cuda, last_branch = 0, last = ws_gpu_last_driver(t->cc, &last_branch);
	int nneed = release_driver_need(ctx->builds, b->package, b->platform, newest->version, t);
	if (!nneed)
		put(note, "%s%s %s is the newest release with a build that runs on %s (the newest release, %s, "
		    "has none)", note->pos ? "; " : "", b->package, b->version, t->name, newest->version);
	else if (last && nneed > last)
		put(note, "%sno driver for %s runs CUDA >= %s (R%d, the last branch for %s GPUs, supports CUDA %s): "
		    "the last release that runs is %s %s; the newest, %s, needs CUDA >= %s", note->pos ? "; " : "",
		    t->name, ws_cuda_str(nneed, c1, sizeof c1), last_branch, ws_cc_family(t->cc),
		    ws_cuda_str(last, c2, sizeof c2), b->package, b->version, newest->version, c1);
	else {
		put(note, "%sthe newest release, %s %s, needs a driver for CUDA >= %s", note->pos ? "; " : "", b->package,
		    newest->version, ws_cuda_str(nneed, c1, sizeof c1));
		put_branch(note, nneed, t);
		if (driver > 0 && kind != WS_REMEDY_DRIVER_FIRST)
			put(note, ", and this one supports CUDA %s", ws_cuda_str(driver, c2, sizeof c2));
	}
}

/* Whether b accepts a range of torch (not one release): torch_for names the one beside it. */
static bool ranged_torch(const struct ws_build *b)
{
	return !same_name(b->package, "torch") && !strncmp(b->requires, "torch", 5) && strncmp(b->requires, "torch==", 7) &&
	       !ws_remedy_release_page(b->index);
}

/* What goes with build b into one install: the torch family together at one torch release
 * (torchvision and torchaudio pin it), any other package that pins one torch (xformers)
 * brings it, and one that accepts a range of torch gets torch_pick (torch_for), the newest
 * that runs here, or a note that none does. */
static void companions(const struct ws_build *b, const struct ws_build *torch_pick, const struct ws_remedy_ctx *ctx,
		       const struct ws_build **set, size_t *nset, struct text *note)
{
	const char *package = b->package, *platform = b->platform;
	const char *torch_v = same_name(package, "torch") ? b->version :
			      !strncmp(b->requires, "torch==", 7) ? b->requires + 7 : torch_pick ? torch_pick->version : NULL;
	if (!torch_v && ranged_torch(b))
		put(note, "it accepts %s, and no torch of the table that does runs here: pip would "
		    "bring the newest", b->requires);
	if (torch_v && !same_name(package, "torch")) {
		const struct ws_build *tb = torch_pick;
		if (!tb)
			tb = find_build(ctx->builds, "torch", torch_v, b->variant, platform, b->index);
		if (!tb)
			tb = find_build(ctx->builds, "torch", torch_v, NULL, platform, b->index);
		if (tb)
			set[(*nset)++] = tb;
		else
			put(note, "it needs torch %s, which the table does not list", torch_v);
	}
	if (torch_v && ws_pypi_torch_family(package)) {
		static const char *const comp[] = {"torchvision", "torchaudio"};
		for (size_t i = 0; i < 2; i++) {
			if (same_name(package, comp[i]))
				continue;
			const struct ws_build *c = pinned_companion(ctx->builds, comp[i], torch_v, b->variant, platform, b->index);
			if (c)
				set[(*nset)++] = c;
			else
				put(note, "%sthe table has no %s made for torch %s: uninstall it or find the matching "
				    "release before you run this", note->pos ? "; " : "", comp[i], torch_v);
		}
	}
}

/* The remedy of installing build b (with its companions) for target t; kind as given. */
static struct ws_remedy *remedy_of_build(const struct ws_build *b, enum ws_remedy_kind kind, const struct ws_target *t,
					 const struct ws_remedy_ctx *ctx)
{
	const struct ws_build *set[WS_REMEDY_MAX_PKGS], *newest;
	const char *package = b->package, *platform = b->platform;
	struct ws_remedy *r;
	struct text s = {.pos = 0}, note = {.pos = 0};
	size_t nset = 0;
	int driver = ctx->driver_cuda;
	char c1[16], c2[16];

	if (!(r = ws_calloc(1, sizeof *r)))
		return NULL;
	r->kind = kind;
	if (!(r->package = ws_strdup(package)) || !(r->platform = ws_strdup(platform)))
		goto nomem;
	newest = newest_release(ctx->builds, package, platform);
	/* before anything is said of b: the torch it needs may choose its variant */
	const struct ws_build *torch_pick = ranged_torch(b) ?
		torch_for(ctx->builds, &b, t, kind == WS_REMEDY_DRIVER_FIRST ? 0 : driver) : NULL;
	set[nset++] = b;
	r->verdict = ws_build_verdict(b, t, kind == WS_REMEDY_DRIVER_FIRST ? 0 : driver);

	companions(b, torch_pick, ctx, set, &nset, &note);
	for (size_t i = 0; i < nset; i++)
		if (add_pkg(r, set[i]) < 0)
			goto nomem;
	if (!(r->variant = ws_strdup(b->variant)) || !(r->index = ws_strdup(b->index)) ||
	    !(r->provenance = ws_strdup(b->provenance)))
		goto nomem;
	r->cuda = b->cuda;
	/* the build's own CUDA release (which also reads the PTX a JIT build carries), or
	 * the first CUDA that knows the GPU, whichever is newer */
	/* the build's runtime under minor-version compatibility, the first CUDA that knows the
	 * GPU, and the ISA of its PTX when only PTX serves, whichever is newest (§4a) */
	r->driver_floor = ws_build_driver_need(b, t);
	if (!r->driver_floor)
		r->driver_floor = ws_build_driver_floor(b->cuda);

	char *archs = archs_text(b);
	if (!archs)
		goto nomem;
	if (kind == WS_REMEDY_DRIVER_FIRST) {
		put(&s, "first a driver for CUDA >= %s", ws_cuda_str(r->driver_floor, c1, sizeof c1));
		put_branch(&s, r->driver_floor, t);
		put(&s, ", since this one supports CUDA %s; then ", ws_cuda_str(driver, c2, sizeof c2));
	}
	put(&s, "%s %s", b->package, b->version);
	for (size_t i = 1; i < nset; i++)
		put(&s, "%s%s %s", i + 1 == nset ? " and " : ", ", set[i]->package, set[i]->version);
	put(&s, ": the %s build (CUDA %s, %s)%s %s %s", b->variant, ws_cuda_str(b->cuda, c1, sizeof c1), archs,
	    on_pypi(b) ? " on PyPI" : "", verdict_words(r->verdict), t->name);
	free(archs);
	if (kind == WS_REMEDY_INSTALL && !driver) {
		put(&s, "; needs a driver for CUDA >= %s", ws_cuda_str(r->driver_floor, c1, sizeof c1));
		put_branch(&s, r->driver_floor, t);
	}
	if (strcmp(b->provenance, "scanned"))
		put(&s, " [declared by the vendor's build scripts, not read from a wheel]");
	if (torch_pick && strcmp(torch_pick->index, b->index))
		put(&note, "%sno torch on %s that %s accepts runs here: torch %s comes from %s (--extra-index-url)",
		    note.pos ? "; " : "", on_pypi(b) ? "PyPI" : b->index, b->package, torch_pick->version,
		    torch_pick->index);
	if (same_name(package, "bitsandbytes"))
		put(&note, "%sbitsandbytes loads the library of torch's CUDA version (libbitsandbytes_cuda%s with a %s torch): "
		    "the torch in use must be a %s build", note.pos ? "; " : "", b->variant + 2, b->variant, b->variant);
	const struct ws_build *top_alone = NULL;
	for (size_t i = 0; i < ctx->builds->n; i++) {
		const struct ws_build *x = &ctx->builds->rows[i];
		if (same_name(x->package, package) && !strcmp(x->platform, platform) &&
		    ws_verdict_runs(ws_build_verdict(x, t, kind == WS_REMEDY_DRIVER_FIRST ? 0 : driver)) &&
		    (!top_alone || ws_version_cmp(x->version, top_alone->version) > 0))
			top_alone = x;
	}
	if (top_alone && ws_version_cmp(top_alone->version, b->version) > 0 && same_name(package, "torch")) {
		bool vision = pinned_companion(ctx->builds, "torchvision", top_alone->version, top_alone->variant, platform,
					       top_alone->index);
		bool audio = pinned_companion(ctx->builds, "torchaudio", top_alone->version, top_alone->variant, platform,
					      top_alone->index);
		put(&note, "%storch %s runs there too, but the table has no %s made for it: without %s, install torch==%s",
		    note.pos ? "; " : "", top_alone->version, !vision && !audio ? "torchvision and torchaudio" :
		    !vision ? "torchvision" : "torchaudio", !vision && !audio ? "them" : "it", top_alone->version);
		if (newest && ws_version_cmp(newest->version, top_alone->version) > 0)
			newest_release_note(&note, top_alone, newest, t, ctx, kind);
	}
	else if (newest && ws_version_cmp(newest->version, b->version) > 0)
		newest_release_note(&note, b, newest, t, ctx, kind);
	bool page = ws_remedy_release_page(b->index);
	if (page)
		put(&note, "%sno package index serves this build: its wheels are assets of %s, one per torch minor, Python, "
		    "CUDA major and C++ ABI; pick the one for your torch there and pip install its URL",
		    note.pos ? "; " : "", b->index);
	if (!(r->summary = ws_strdup(s.buf)) || (note.pos && !(r->note = ws_strdup(note.buf))))
		goto nomem;
	if (!page)
		ws_remedy_commands(r, set, nset, ctx);
	if (r->install.failed || r->download.failed || r->offline.failed)
		goto nomem;
	return r;
nomem:
	ws_remedy_free(r);
	return NULL;
}

struct ws_remedy *ws_remedy_companion(const char *companion, const char *torch_version, const char *torch_variant,
				      const struct ws_target *t, const struct ws_remedy_ctx *ctx)
{
	const char *platform;
	const struct ws_build *c;
	if (!companion || !torch_version || !t || !ctx || !ctx->builds)
		return NULL;
	platform = ctx->platform ? ctx->platform : "linux_x86_64";
	c = pinned_companion(ctx->builds, companion, torch_version, torch_variant ? torch_variant : "", platform, NULL);
	return c ? remedy_of_build(c, WS_REMEDY_INSTALL, t, ctx) : NULL;
}

/* A release asset (remedy_asset.c): row only, or the one that fits the torch this table
 * advises for t, which is chosen here. */
static struct ws_remedy *asset_remedy(const char *package, const struct ws_build *only, const struct ws_target *t,
				      const struct ws_remedy_ctx *ctx)
{
	struct ws_remedy *r = ws_calloc(1, sizeof *r), *torch = NULL;
	int rc;
	if (!r)
		return NULL;
	if (only) {
		rc = ws_asset_fill_for_build(r, only, t, ctx);
	} else {
		struct ws_asset_torch tv = {0};
		torch = ws_remedy_choose("torch", t, ctx);
		if (torch && torch->npkgs && (torch->kind == WS_REMEDY_INSTALL || torch->kind == WS_REMEDY_DRIVER_FIRST))
			tv = (struct ws_asset_torch){torch->pkgs[0].version, torch->cuda, torch->kind == WS_REMEDY_DRIVER_FIRST};
		rc = ws_asset_fill_choice(r, package, t, ctx, tv.version ? &tv : NULL);
	}
	ws_remedy_free(torch);
	if (rc < 0) {
		ws_remedy_free(r);
		return NULL;
	}
	return r;
}

struct ws_remedy *ws_remedy_for_build(const struct ws_build *b, const struct ws_target *t,
				      const struct ws_remedy_ctx *ctx)
{
	if (!b || !t || !ctx || !ctx->builds)
		return NULL;
	if (ws_build_is_asset(b))
		return asset_remedy(b->package, b, t, ctx);
	return remedy_of_build(b, WS_REMEDY_INSTALL, t, ctx);
}

struct ws_remedy *ws_remedy_choose(const char *package, const struct ws_target *t, const struct ws_remedy_ctx *ctx)
{
	const struct ws_build *top[1], *newest;
	const char *platform;
	struct ws_remedy *r;
	struct text s = {.pos = 0};
	int driver;

	if (!package || !t || !ctx || !ctx->builds)
		return NULL;
	driver = ctx->driver_cuda;
	platform = ctx->platform ? ctx->platform : "linux_x86_64";
	if (!(newest = newest_release(ctx->builds, package, platform)))
		return NULL;                              /* the table does not know it */
	if (ws_build_is_asset(newest))
		return asset_remedy(package, NULL, t, ctx);
	/* a GPU whose family's driver support ended runs no newer CUDA than its last branch's
	 * (§4b): with no driver given, advice stays within it */
	int last_branch = 0, last = ws_gpu_last_driver(t->cc, &last_branch);
	if (ws_builds_rank(ctx->builds, package, platform, t, driver > 0 ? driver : last, top, 1) == 1)
		return remedy_of_build(top[0], WS_REMEDY_INSTALL, t, ctx);
	if (driver > 0) {
		/* nothing runs with this driver: the build that runs after the least upgrade, the
		 * GPU's own first CUDA, else with any driver this GPU can have */
		int need = ws_first_toolkit_for_arch(t->cc, 0);
		if ((need > driver && (!last || need <= last) &&
		     ws_builds_rank(ctx->builds, package, platform, t, need, top, 1) == 1) ||
		    ((!last || last > driver) && ws_builds_rank(ctx->builds, package, platform, t, last, top, 1) == 1))
			return remedy_of_build(top[0], WS_REMEDY_DRIVER_FIRST, t, ctx);
	}

	if (!(r = ws_calloc(1, sizeof *r)))
		return NULL;
	r->kind = WS_REMEDY_NONE;
	size_t nb = 0;
	for (size_t i = 0; i < ctx->builds->n; i++)
		nb += same_name(ctx->builds->rows[i].package, package) && !strcmp(ctx->builds->rows[i].platform, platform);
	/* every word from the table, none from the file: the table's fields are checked */
	put(&s, "no build of %s that the %s knows (%zu for %s, newest %s) runs on %s", newest->package,
	    ctx->builds->origin, nb, platform, newest->version, t->name);
	if (last && ws_builds_rank(ctx->builds, package, platform, t, 0, top, 1) == 1) {
		/* builds with code for it exist, but they need a driver this GPU never gets */
		char c1[16], c2[16];
		put(&s, " with a driver it can have: no driver for %s runs CUDA >= %s (R%d, the last branch for %s GPUs, "
		    "supports CUDA %s), and %s %s needs it", t->name,
		    ws_cuda_str(ws_build_driver_need(top[0], t), c1, sizeof c1), last_branch, ws_cc_family(t->cc),
		    ws_cuda_str(last, c2, sizeof c2), top[0]->package, top[0]->version);
	}
	if (!(r->package = ws_strdup(newest->package)) || !(r->platform = ws_strdup(platform)) || !(r->summary = ws_strdup(s.buf))) {
		ws_remedy_free(r);
		return NULL;
	}
	return r;
}

/* Code built in place (a torch extension's build directory, a UI's custom node: files no
 * package owns): no build to download, only the line that rebuilds it for the GPU. */
static struct ws_remedy *rebuild_remedy(bool torch_extension, const struct ws_target *t, const struct ws_remedy_ctx *ctx)
{
	struct ws_remedy *r = ws_calloc(1, sizeof *r);
	struct text s = {.pos = 0};
	unsigned cc = t->cc;
	int last = ws_last_toolkit_for_arch(cc);
	char c1[16], list[32];
	if (!r)
		return NULL;
	r->kind = WS_REMEDY_REBUILD;
	r->nshells = ws_shells_for(ctx->platform, ctx->windows_host, r->shells);
	if (torch_extension) {
		put(&s, "rebuild the extension for %s in its source tree, against the torch installed here", t->name);
		snprintf(list, sizeof list, "%u.%u+PTX", cc / 10, cc % 10);
		ws_cmd_setenv(&r->install, "TORCH_CUDA_ARCH_LIST", list);
		ws_cmd_pip(&r->install, ctx->python_exe);
		ws_cmd_add(&r->install, "install");
		ws_cmd_add(&r->install, "--no-build-isolation");
		ws_cmd_add(&r->install, "--force-reinstall");
		ws_cmd_add(&r->install, ".");
	} else {
		put(&s, "rebuild it for %s: nvcc -gencode arch=compute_%u,code=[sm_%u,compute_%u] (CMake: "
		    "CMAKE_CUDA_ARCHITECTURES=%u; a torch extension: TORCH_CUDA_ARCH_LIST=\"%u.%u+PTX\")", t->name, cc, cc, cc,
		    cc, cc / 10, cc % 10);
	}
	if (last)
		put(&s, "; with a CUDA toolkit of %s or older, the last that targets %s", ws_cuda_str(last, c1, sizeof c1),
		    t->name);
	if (!(r->summary = ws_strdup(s.buf)) || r->install.failed) {
		ws_remedy_free(r);
		return NULL;
	}
	return r;
}

int ws_remedy_attach(struct ws_artifact *a, const struct ws_target *t, size_t nt, const struct ws_remedy_ctx *ctx)
{
	struct ws_remedy_ctx c;
	char py[16];
	const char *package;

	if (!a || !a->judged || !a->verdicts || !ctx)
		return 0;
	if (!a->wheel && (a->type == WS_ART_DIRECTORY || (a->origin && !strncmp(a->origin, "torch extension", 15)))) {
		for (size_t k = 0; k < nt && k < a->njudged; k++)
			if (ws_verdict_fails(a->verdicts[k]) && !(a->judged[k].reasons & WS_R_DRIVER_GPU)) {
				ws_remedy_free(a->judged[k].remedy);
				a->judged[k].remedy = rebuild_remedy(a->origin != NULL, &t[k], ctx);
			}
		return 0;
	}
	if (!a->wheel || !ctx->builds)
		return 0;
	package = a->wheel->meta_name ? a->wheel->meta_name : a->wheel->name;
	if (!package)
		return 0;
	c = *ctx;
	if (!c.platform && c.windows_host)
		c.platform = "win_amd64";     /* a Windows interpreter's packages are Windows builds */
	if (!c.platform)
		c.platform = ws_builds_platform_of_tag(a->wheel->platform_tag);
	if (!c.python_version)
		c.python_version = ws_python_version_of_tag(a->wheel->python_tag, py, sizeof py);
	c.artifact_local = a->wheel->local;
	/* a CPU-only build of a package with CUDA builds (PyPI's torch for Windows): the CUDA
	 * build that runs on each GPU is the cure, though nothing in this one fails */
	bool cpu_only = ws_artifact_cpu_only(a) != NULL;
	for (size_t k = 0; k < nt && k < a->njudged; k++) {
		struct ws_judgement *j = &a->judged[k];
		if (!ws_verdict_fails(a->verdicts[k]) && !(j->reasons & WS_R_DRIVER_GPU) && !cpu_only)
			continue;
		ws_remedy_free(j->remedy);
		j->remedy = ws_remedy_choose(package, &t[k], &c);
	}
	return 0;
}
