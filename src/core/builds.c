/* builds.c - the build table in memory: parsing it (every row is checked, since --builds
 * reads a file the user names), comparing release strings, and judging a build on a GPU by
 * the same rules as a container (src/core/compat.c), from its SASS and PTX lists.
 *
 * The table is TSV with a header line (doc/builds.md):
 *   package version variant platform cuda sass ptx requires index provenance source wheel_platform
 * sass and ptx are comma lists of SM numbers ("70,75,80,86,90,100,120"), cuda "12.8". */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_builds.h"
#include "ws_compat.h"

#define NCOLS 12
static const char *const columns[NCOLS] = {"package", "version", "variant", "platform", "cuda", "sass", "ptx",
					   "requires", "index", "provenance", "source", "wheel_platform"};

/* "12.8" -> 12080; "" -> 0; -1 when malformed. */
static int parse_cuda(const char *s)
{
	unsigned major = 0, minor = 0;
	int n = 0;
	if (!*s)
		return 0;
	if (sscanf(s, "%2u.%2u%n", &major, &minor, &n) != 2 || s[n] || major == 0 || minor > 9)
		return -1;
	return (int)(major * 1000 + minor * 10);
}

/* "70,75,80,90a" into v and its a/f suffixes; -1 when malformed or over WS_BUILD_MAX_ARCHS. */
static int parse_archs(const char *s, uint16_t *v, char *suffix, uint8_t *n)
{
	*n = 0;
	while (*s) {
		unsigned a = 0, digits = 0;
		while (isdigit((unsigned char)*s) && digits < 4) {
			a = a * 10 + (unsigned)(*s++ - '0');
			digits++;
		}
		char sx = *s == 'a' || *s == 'f' ? *s++ : 0;
		if (!digits || a < 10 || a > 999 || *n >= WS_BUILD_MAX_ARCHS || (*s && *s != ','))
			return -1;
		suffix[*n] = sx;
		v[(*n)++] = (uint16_t)a;
		if (*s == ',' && !*++s)
			return -1;
	}
	return 0;
}

/* A field is printable ASCII without spaces where it goes into a command line: a table
 * from --builds must not be able to put shell syntax into the printed command. */
static bool field_ok(const char *s, bool command_word)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			return false;
		if (command_word && !(isalnum(c) || strchr(".-_+=:/,<>!~*", c)))
			return false;
	}
	return true;
}

/* The index a command names: PyPI, or a package index at an https URL whose characters
 * are URL-safe and none of them a shell's or pip's ("simple>~/.bashrc" is refused here,
 * and the renderer would quote it anyway: src/core/command.c). */
static bool index_ok(const char *s)
{
	if (!strcmp(s, "pypi"))
		return true;
	if (!strncmp(s, "asset:", 6))
		s += 6;                        /* release assets: the download folder's URL */
	if (strncmp(s, "https://", 8) || !s[8])
		return false;
	for (s += 8; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-._~/:%@+", *s))
			return false;
	return true;
}

static int parse_row(char *line, uint32_t lineno, struct ws_build *r, struct ws_err *err)
{
	char *f[NCOLS];
	size_t n = 0;
	for (char *p = line;; p++) {
		if (n < NCOLS)
			f[n] = n ? f[n] : line;
		if (*p == '\t' || !*p) {
			bool end = !*p;
			*p = 0;
			if (++n < NCOLS)
				f[n] = p + 1;
			if (end)
				break;
		}
	}
	if (n != NCOLS) {
		ws_err_set(err, WS_E_FORMAT, "line %u: %zu fields, not %d", lineno, n, NCOLS);
		return -1;
	}
	for (size_t i = 0; i < NCOLS; i++)
		if (strlen(f[i]) > 512 || !field_ok(f[i], i != 10)) {
			ws_err_set(err, WS_E_FORMAT, "line %u: field '%s' is too long or has a character a command "
				 "cannot carry", lineno, columns[i]);
			return -1;
		}
	if (!*f[0] || !*f[1] || !*f[2] || !*f[3] || !*f[8] || !*f[9]) {
		ws_err_set(err, WS_E_FORMAT, "line %u: package, version, variant, platform, index and provenance "
			 "must not be empty", lineno);
		return -1;
	}
	if (!index_ok(f[8])) {
		ws_err_set(err, WS_E_FORMAT, "line %u: index must be 'pypi' or an (asset:)https URL of letters, digits and "
			 "- . _ ~ / : %% @ + only", lineno);
		return -1;
	}
	if (strcmp(f[9], "scanned") && strcmp(f[9], "declared")) {
		ws_err_set(err, WS_E_FORMAT, "line %u: provenance must be 'scanned' or 'declared'", lineno);
		return -1;
	}
	r->package = f[0];
	r->version = f[1];
	r->variant = f[2];
	r->platform = f[3];
	r->requires = f[7];
	r->index = f[8];
	r->provenance = f[9];
	r->source = f[10];
	r->wheel_platform = f[11];
	r->line = lineno;
	if ((r->cuda = parse_cuda(f[4])) < 0 || parse_archs(f[5], r->sass, r->sass_suffix, &r->nsass) < 0 ||
	    parse_archs(f[6], r->ptx, r->ptx_suffix, &r->nptx) < 0) {
		ws_err_set(err, WS_E_FORMAT, "line %u: cuda, sass or ptx is malformed", lineno);
		return -1;
	}
	if (ws_build_is_asset(r) && !ws_asset_row_ok(r)) {
		ws_err_set(err, WS_E_FORMAT, "line %u: a release-asset row needs an 'asset:https://.../' folder, a "
			 "variant cuNtorchX.Y, requires torch==X.Y.*,python>=A.B,python<C.D and a wheel_platform",
			 lineno);
		return -1;
	}
	return 0;
}

/* PyPI names ordered so that the names ws_pypi_name_eq calls equal are adjacent */
static int name_cmp(const char *a, const char *b)
{
	return ws_pypi_name_cmp(a, strlen(a), b, strlen(b));
}

struct named_row {
	const char *package;
	uint32_t row;
};

static int named_row_cmp(const void *x, const void *y)
{
	const struct named_row *a = x, *b = y;
	int c = name_cmp(a->package, b->package);
	return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* b->by_package: the rows grouped by package, each group in table order, so that what
 * looks up one package (a rank, a companion) reads its rows, not the table's. */
static int index_packages(struct ws_builds *b)
{
	struct named_row *v = ws_calloc(b->n ? b->n : 1, sizeof *v);
	b->by_package = ws_calloc(b->n ? b->n : 1, sizeof *b->by_package);
	if (!v || !b->by_package) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < b->n; i++)
		v[i] = (struct named_row){b->rows[i].package, (uint32_t)i};
	qsort(v, b->n, sizeof *v, named_row_cmp);
	for (size_t i = 0; i < b->n; i++)
		b->by_package[i] = v[i].row;
	free(v);
	return 0;
}

size_t ws_builds_of_package(const struct ws_builds *b, const char *package, const uint32_t **rows)
{
	*rows = NULL;
	if (!b || !package || !b->by_package)
		return 0;
	size_t lo = 0, hi = b->n;
	while (lo < hi) {                                     /* the first row of package */
		size_t mid = lo + (hi - lo) / 2;
		if (name_cmp(b->rows[b->by_package[mid]].package, package) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < b->n && !name_cmp(b->rows[b->by_package[end]].package, package))
		end++;
	if (end > lo)
		*rows = &b->by_package[lo];
	return end - lo;
}

int ws_builds_parse(const char *text, size_t len, const char *origin, struct ws_builds *out,
		    struct ws_err *err)
{
	size_t cap = 0;
	uint32_t lineno = 0;
	bool header = false;
	char *p;

	memset(out, 0, sizeof *out);
	snprintf(out->origin, sizeof out->origin, "%s", origin ? origin : "build table");
	if (len > WS_BUILDS_MAX_BYTES || memchr(text, 0, len)) {
		ws_err_set(err, len > WS_BUILDS_MAX_BYTES ? WS_E_LIMIT : WS_E_FORMAT, "%s",
			   len > WS_BUILDS_MAX_BYTES ? "over 16 MiB" : "holds a NUL byte");
		return -1;
	}
	if (!(out->text = ws_malloc(len + 1)))
		goto nomem;
	memcpy(out->text, text, len);
	out->text[len] = 0;
	for (p = out->text; *p;) {
		char *line = p, *nl = strchr(p, '\n');
		if (nl) {
			*nl = 0;
			p = nl + 1;
		} else {
			p += strlen(p);
		}
		lineno++;
		if (nl > line && nl[-1] == '\r')
			nl[-1] = 0;
		if (!*line || *line == '#')
			continue;
		if (!header) {
			/* the header names the columns, in this order: a reordered table is refused
			 * rather than read into the wrong fields */
			char want[160];
			size_t w = 0;
			for (size_t i = 0; i < NCOLS; i++)
				w += (size_t)snprintf(want + w, sizeof want - w, "%s%s", i ? "\t" : "", columns[i]);
			if (strcmp(line, want)) {
				ws_err_set(err, WS_E_FORMAT, "line %u: the header is not '%s' (tab-separated)", lineno,
					 "package version variant platform cuda sass ptx requires index provenance source "
					 "wheel_platform");
				goto fail;
			}
			header = true;
			continue;
		}
		if (out->n == cap) {
			if (cap >= WS_BUILDS_MAX_ROWS) {
				ws_err_set(err, WS_E_LIMIT, "more than %d rows", WS_BUILDS_MAX_ROWS);
				goto fail;
			}
			size_t ncap = cap ? cap * 2 : 256;
			struct ws_build *nr = ws_reallocarray(out->rows, ncap, sizeof *nr);
			if (!nr)
				goto nomem;
			out->rows = nr;
			cap = ncap;
		}
		memset(&out->rows[out->n], 0, sizeof out->rows[0]);
		if (parse_row(line, lineno, &out->rows[out->n], err) < 0)
			goto fail;
		out->n++;
	}
	if (!header) {
		ws_err_set(err, WS_E_FORMAT, "no header line: not a build table");
		goto fail;
	}
	if (index_packages(out) < 0)
		goto nomem;
	return 0;
nomem:
	ws_err_set(err, WS_E_MEMORY, "out of memory");
fail:
	ws_builds_free(out);
	return -1;
}

void ws_builds_free(struct ws_builds *b)
{
	if (!b)
		return;
	free(b->by_package);
	b->by_package = NULL;
	free(b->rows);
	free(b->text);
	b->rows = NULL;
	b->text = NULL;
	b->n = 0;
}

/* A release string, as PEP 440 orders it: the release numbers, then at most two markers
 * (a pre-release "a1"/"b2"/"rc1", a post-release ".post1", a ".dev1"), then a local tag,
 * which does not order. Numbers saturate instead of overflowing. */
struct release {
	unsigned long num[8];
	size_t n;
	int rank[2];                  /* dev -4 < a -3 < b -2 < rc -1 < (none) 0 < post 1 */
	unsigned long sub[2];
};

static void parse_release(const char *s, struct release *r)
{
	memset(r, 0, sizeof *r);
	while (isdigit((unsigned char)*s)) {
		unsigned long v = 0;
		for (; isdigit((unsigned char)*s); s++)
			if (v < 100000000ul)
				v = v * 10 + (unsigned long)(*s - '0');
		if (r->n < 8)
			r->num[r->n++] = v;
		if (*s == '.' && isdigit((unsigned char)s[1]))
			s++;
		else
			break;
	}
	for (int m = 0; m < 2 && *s && *s != '+'; m++) {
		while (*s == '.' || *s == '-' || *s == '_')
			s++;
		r->rank[m] = !strncmp(s, "rc", 2) || *s == 'c' ? -1 : !strncmp(s, "post", 4) || *s == 'r' ? 1 :
			     !strncmp(s, "dev", 3) ? -4 : *s == 'b' ? -2 : *s == 'a' ? -3 : 0;
		while (isalpha((unsigned char)*s))
			s++;
		for (; isdigit((unsigned char)*s); s++)
			if (r->sub[m] < 100000000ul)
				r->sub[m] = r->sub[m] * 10 + (unsigned long)(*s - '0');
		while (*s && *s != '+' && *s != '.' && *s != '-' && *s != '_')
			s++;                  /* what no rule reads is passed over, not looped on */
	}
}

int ws_version_cmp(const char *a, const char *b)
{
	struct release x, y;
	parse_release(a, &x);
	parse_release(b, &y);
	for (size_t i = 0; i < 8; i++) {
		unsigned long u = i < x.n ? x.num[i] : 0, v = i < y.n ? y.num[i] : 0;
		if (u != v)
			return u < v ? -1 : 1;
	}
	for (int m = 0; m < 2; m++) {
		if (x.rank[m] != y.rank[m])
			return x.rank[m] < y.rank[m] ? -1 : 1;
		if (x.sub[m] != y.sub[m])
			return x.sub[m] < y.sub[m] ? -1 : 1;
	}
	return 0;
}

int ws_build_driver_floor(int cuda)
{
	/* NVIDIA's minor-version compatibility (doc/compat-rules.md §4a): a build of CUDA 12.9
	 * runs on any driver of 12.x from R525, a build of 13.x on R580 and newer. Its PTX is
	 * not covered: ws_build_verdict judges that by the ISA the build writes. */
	return ws_runtime_driver_floor(cuda);
}

/* The best verdict of entry e (its kind and ISA set) at each of n archs, or best. */
static enum ws_verdict best_entry(struct ws_entry *e, const uint16_t *arch, const char *suffix, uint8_t n,
				  const struct ws_target *t, int driver_cuda, enum ws_verdict best)
{
	for (uint8_t i = 0; i < n; i++) {
		e->arch = arch[i];
		e->suffix = suffix[i];
		enum ws_verdict v = ws_entry_verdict(e, t, driver_cuda);
		if (ws_verdict_rank(v) < ws_verdict_rank(best))
			best = v;
	}
	return best;
}

enum ws_verdict ws_build_verdict(const struct ws_build *b, const struct ws_target *t, int driver_cuda)
{
	enum ws_verdict best = WS_V_NO_IMAGE;
	struct ws_entry e;
	unsigned im = 0, in = 0;

	if (!b || !t)
		return WS_V_NO_IMAGE;
	/* a driver older than the GPU cannot run it at all, whatever the build */
	if (driver_cuda > 0 && driver_cuda < ws_first_toolkit_for_arch(t->cc, 0))
		return WS_V_NO_IMAGE;
	if (driver_cuda > 0 && b->cuda && driver_cuda < ws_build_driver_floor(b->cuda))
		return b->nsass || b->nptx ? WS_V_PTX_TOO_NEW : WS_V_NO_IMAGE;
	memset(&e, 0, sizeof e);
	e.kind = WS_KIND_SASS;
	/* the cubins carry the build's release, as ptxas notes it (integrated GPUs, §1a) */
	e.toolkit = b->cuda > 0 && b->cuda < 100000 ? (uint16_t)(b->cuda / 1000 * 10 + b->cuda % 1000 / 10) : 0;
	best = best_entry(&e, b->sass, b->sass_suffix, b->nsass, t, driver_cuda, best);
	if (best == WS_V_NATIVE || best == WS_V_COMPATIBLE)
		return best;
	/* the PTX carries the ISA of the CUDA that built it */
	ws_cuda_ptx_isa(b->cuda, &im, &in);
	e.kind = WS_KIND_PTX;
	e.ptx_major = (uint16_t)im;
	e.ptx_minor = (uint16_t)in;
	return best_entry(&e, b->ptx, b->ptx_suffix, b->nptx, t, driver_cuda, best);
}

const char *ws_builds_platform_of_tag(const char *tag)
{
	if (!tag)
		return NULL;
	if (!strncmp(tag, "win_amd64", 9))
		return "win_amd64";
	if (strstr(tag, "aarch64"))
		return strstr(tag, "linux") ? "linux_aarch64" : NULL;
	if (strstr(tag, "x86_64"))
		return strstr(tag, "linux") ? "linux_x86_64" : NULL;
	return NULL;
}

const char *ws_python_version_of_tag(const char *tag, char *buf, size_t len)
{
	unsigned minor = 0;
	int n = 0;
	if (!tag || strncmp(tag, "cp3", 3) || sscanf(tag + 3, "%3u%n", &minor, &n) != 1 || n < 1)
		return NULL;
	snprintf(buf, len, "3.%u", minor);
	return buf;
}

int ws_build_driver_need(const struct ws_build *b, const struct ws_target *t)
{
	enum ws_verdict v;
	int need, first, isa_need;
	unsigned im = 0, in = 0;
	if (!b || !t)
		return 0;
	v = ws_build_verdict(b, t, 0);
	if (v != WS_V_NATIVE && v != WS_V_COMPATIBLE && v != WS_V_JIT)
		return 0;
	need = ws_runtime_driver_floor(b->cuda);
	/* a driver older than the GPU's first CUDA cannot run it at all (§6) */
	first = ws_first_toolkit_for_arch(t->cc, 0);
	if (first > need)
		need = first;
	/* only PTX serves: the driver must read the ISA the build writes (§2, §4) */
	if (v == WS_V_JIT) {
		ws_cuda_ptx_isa(b->cuda, &im, &in);
		isa_need = ws_isa_need_cuda(im, in);
		if (isa_need > need && isa_need < 100000)
			need = isa_need;
	}
	return need;
}
