/* report_text.c - the report for people: per artifact, per object with device
 * code, the architectures, compression, kernels and a verdict line per target. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_builds.h"
#include "ws_checks.h"
#include "ws_vocab.h"
#include "ws_decode.h"
#include "ws_gate.h"
#include "ws_live.h"
#include "ws_quote.h"
#include "ws_report.h"
#include "ws_util.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* Every string that came from a file (names, METADATA, RECORD rows, and the reasons and
 * messages built from them) is printed through Q: controls and invisible characters shown
 * escaped (ws_quote.h), so that no name forges a line, moves the cursor or recolours. */
#define Q(s) ws_q_text(s)

static const char *col(const struct ws_report *r, const char *c)
{
	return r->color ? c : "";
}

static const char *verdict_color(enum ws_verdict v)
{
	switch (v) {
	case WS_V_NATIVE: case WS_V_COMPATIBLE: return GREEN;
	case WS_V_JIT: return YELLOW;
	case WS_V_NO_IMAGE: case WS_V_PTX_TOO_NEW: return RED;
	default: return "";
	}
}

static const char *human(uint64_t n, char *buf, size_t len)
{
	if (n >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)n / (1ull << 30));
	else if (n >= (1ull << 20))
		snprintf(buf, len, "%.1f MiB", (double)n / (1ull << 20));
	else if (n >= 1024)
		snprintf(buf, len, "%.1f KiB", (double)n / 1024);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	return buf;
}

/* Counts entries by name, in first-seen order, for the architecture table. */
struct arch_count {
	char name[24];
	uint16_t kind, arch;
	char suffix;
	uint32_t n;
	uint16_t isa_major, isa_minor;   /* PTX: the newest ISA seen */
	size_t first;                    /* place of its first entry in the object */
};

static int cmp_arch(const void *x, const void *y)
{
	const struct arch_count *a = x, *b = y;
	if (a->arch != b->arch)
		return a->arch < b->arch ? -1 : 1;
	return a->suffix - b->suffix;
}

/* An entry of the kind a line counts, with its place in the object. */
struct arch_ref {
	const struct ws_entry *e;
	size_t seq;
};

static int by_name_seq(const void *x, const void *y)
{
	const struct arch_ref *a = x, *b = y;
	int c = strncmp(a->e->name, b->e->name, sizeof a->e->name);
	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_seq(const void *x, const void *y)
{
	const struct arch_count *a = x, *b = y;
	return (a->first > b->first) - (a->first < b->first);
}

static bool counted_kind(const struct ws_entry *e, uint16_t kind)
{
	return e->kind == kind || (kind == 0 && e->kind != WS_KIND_SASS && e->kind != WS_KIND_PTX &&
				   e->kind != WS_KIND_LTOIR);
}

/* The entries of one kind counted by name in first-seen order: sorted by name to count
 * (an object can hold 4,096 entries per container, each with its own arch), then put
 * back in first-seen order. */
static struct arch_count *count_archs(const struct ws_object *o, uint16_t kind, size_t *count)
{
	size_t nref = 0, n = 0;
	*count = 0;
	for (uint32_t k = 0; k < o->nfatbins; k++)
		for (uint32_t i = 0; i < o->fatbins[k].nentries; i++)
			nref += counted_kind(&o->fatbins[k].entries[i], kind);
	if (nref == 0)
		return NULL;
	struct arch_ref *refs = ws_reallocarray(NULL, nref, sizeof *refs);
	struct arch_count *v = ws_calloc(nref, sizeof *v);
	if (!refs || !v) {
		free(refs);
		free(v);
		return NULL;
	}
	nref = 0;
	for (uint32_t k = 0; k < o->nfatbins; k++)
		for (uint32_t i = 0; i < o->fatbins[k].nentries; i++)
			if (counted_kind(&o->fatbins[k].entries[i], kind)) {
				refs[nref].e = &o->fatbins[k].entries[i];
				refs[nref].seq = nref;
				nref++;
			}
	qsort(refs, nref, sizeof *refs, by_name_seq);
	for (size_t i = 0; i < nref; i++) {
		const struct ws_entry *e = refs[i].e;
		if (i == 0 || strncmp(e->name, refs[i - 1].e->name, sizeof e->name) != 0) {
			memcpy(v[n].name, e->name, sizeof v[n].name);
			v[n].arch = e->arch;
			v[n].suffix = e->suffix;
			v[n].first = refs[i].seq;
			n++;
		}
		struct arch_count *c = &v[n - 1];
		c->n++;
		unsigned ma, mi;
		ws_entry_isa(e, &ma, &mi);
		if (ma > c->isa_major || (ma == c->isa_major && mi > c->isa_minor)) {
			c->isa_major = (uint16_t)ma;
			c->isa_minor = (uint16_t)mi;
		}
	}
	free(refs);
	qsort(v, n, sizeof *v, by_seq);
	*count = n;
	return v;
}

static void arch_line(struct ws_report *r, const struct ws_object *o, uint16_t kind, const char *label)
{
	size_t n;
	struct arch_count *v = count_archs(o, kind, &n);
	if (n == 0 && kind == 0)
		return;
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_arch);
	fprintf(r->out, "    %-7s", label);
	if (n == 0)
		fputs(" -", r->out);
	for (size_t j = 0; j < n; j++) {
		fprintf(r->out, " %s", v[j].name);
		if (v[j].n > 1)
			fprintf(r->out, "x%u", v[j].n);
		if (kind == WS_KIND_PTX)
			fprintf(r->out, "(ISA %u.%u)", v[j].isa_major, v[j].isa_minor);
	}
	fputc('\n', r->out);
	free(v);
}

static void sections_line(struct ws_report *r, const struct ws_object *o)
{
	/* sections in first-seen order with their container counts */
	const char *names[16];
	uint32_t counts[16];
	size_t n = 0, other = 0;
	for (uint32_t k = 0; k < o->nfatbins; k++) {
		const char *s = o->fatbins[k].section[0] ? o->fatbins[k].section : "(file)";
		size_t j = 0;
		while (j < n && strcmp(names[j], s) != 0)
			j++;
		if (j == n) {
			if (n == 16) {
				other++;
				continue;
			}
			names[n] = s;
			counts[n++] = 0;
		}
		counts[j]++;
	}
	for (size_t j = 0; j < n; j++)
		fprintf(r->out, "%s%s %u", j ? ", " : "", Q(names[j]), counts[j]);
	if (other)
		fprintf(r->out, ", other %zu", other);
}

static void compression_line(struct ws_report *r, const struct ws_object *o)
{
	uint32_t c[3] = {0}, opaque = 0, errors = 0;
	for (uint32_t k = 0; k < o->nfatbins; k++)
		for (uint32_t i = 0; i < o->fatbins[k].nentries; i++) {
			const struct ws_entry *e = &o->fatbins[k].entries[i];
			c[e->compression]++;
			opaque += e->opaque;
			errors += e->error != NULL;
		}
	fprintf(r->out, "    %-7s none %u, zstd %u, lz4 %u", "packing", c[WS_COMP_NONE], c[WS_COMP_ZSTD],
		c[WS_COMP_LZ4]);
	if (opaque)
		fprintf(r->out, "; %u opaque (LTO-IR or unknown kind, not decoded)", opaque);
	if (errors)
		fprintf(r->out, "; %s%u undecodable%s", col(r, RED), errors, col(r, RESET));
	fputc('\n', r->out);
}

/* The kernels of container f, each name once: a kernel of an earlier entry is not printed
 * again. Earlier entries' kernels are marked in mark (one byte per name of the object's
 * pool, all zero on entry and on return; NULL when it could not be had: no de-duplication). */
static void kernel_names(struct ws_report *r, const struct ws_object *o, const struct ws_fatbin *f,
			 const char *indent, uint8_t *mark)
{
	for (uint32_t i = 0; i < f->nentries; i++) {
		const struct ws_entry *e = &f->entries[i];
		for (uint32_t k = 0; k < e->nkernels; k++) {
			uint32_t x = e->kernels[k];
			if (mark && x < o->kernels.n && mark[x])
				continue;
			fprintf(r->out, "%s%s\n", indent, o->kernels.str[x] ? Q(o->kernels.str[x]) : "(name not kept)");
		}
		for (uint32_t k = 0; mark && k < e->nkernels; k++)
			if (e->kernels[k] < o->kernels.n)
				mark[e->kernels[k]] = 1;
	}
	for (uint32_t i = 0; mark && i < f->nentries; i++)
		for (uint32_t k = 0; k < f->entries[i].nkernels; k++)
			if (f->entries[i].kernels[k] < o->kernels.n)
				mark[f->entries[i].kernels[k]] = 0;
}

/* The kernels that the images the driver picks for target t lack (other images have them). */
static void kernel_gaps(struct ws_report *r, const struct ws_object *o, size_t t, const char *indent)
{
	fprintf(r->out, "%skernels missing from the image the driver picks for %s (%u):\n", indent,
		r->targets[t].name, o->judged[t].kernel_gaps);
	for (uint32_t k = 0; k < o->nfatbins; k++) {
		const struct ws_fatbin *f = &o->fatbins[k];
		for (uint32_t i = 0; f->gaps && i < f->gaps[t].n; i++) {
			const char *n = o->kernels.str ? o->kernels.str[f->gaps[t].kernels[i]] : NULL;
			fprintf(r->out, "%s  %s\n", indent, n ? Q(n) : "(name not kept)");
		}
	}
}

static void container_details(struct ws_report *r, const struct ws_object *o)
{
	uint8_t *mark = r->cfg->verbose >= 3 ? ws_calloc(o->kernels.n ? o->kernels.n : 1, 1) : NULL;
	for (uint32_t k = 0; k < o->nfatbins; k++) {
		const struct ws_fatbin *f = &o->fatbins[k];
		char hb[32];
		fprintf(r->out, "      [%s @0x%llx, %s] %u entr%s, %u kernel%s%s%s\n",
			f->section[0] ? Q(f->section) : "file", (unsigned long long)f->offset,
			human(f->size, hb, sizeof hb), f->nentries, f->nentries == 1 ? "y" : "ies",
			f->nkernels, f->nkernels == 1 ? "" : "s", f->relocatable ? ", relocatable" : "",
			f->error ? ", damaged" : "");
		for (size_t t = 0; f->verdicts && t < r->ntargets; t++) {
			fprintf(r->out, "        %s: %s, %s", r->targets[t].name, ws_role_name(f->roles[t]),
				ws_verdict_name(f->verdicts[t]));
			if (f->gaps && f->gaps[t].n)
				fprintf(r->out, ", %u kernel%s missing from the picked image", f->gaps[t].n,
					f->gaps[t].n == 1 ? "" : "s");
			fputc('\n', r->out);
		}
		if (!f->verdicts)
			fprintf(r->out, "        role: %s\n", ws_role_name(f->role));
		for (size_t t = 0; f->live && t < r->ntargets; t++)
			if (f->live[t] != WS_LIVE_NOT_RUN)
				fprintf(r->out, "        %s: predicted %s, driver says %s%s%s\n", r->targets[t].name,
					f->verdicts ? ws_verdict_name(f->verdicts[t]) : "-",
					f->live[t] == 0 ? "ok" : ws_curesult_name(f->live[t]),
					f->live_nojit ? ", without JIT " : "",
					f->live_nojit ? (f->live_nojit[t] == 0 ? "ok" : ws_curesult_name(f->live_nojit[t])) : "");
		for (uint32_t i = 0; i < f->nentries; i++) {
			const struct ws_entry *e = &f->entries[i];
			fprintf(r->out, "        %-5s %-13s %-4s %9llu B", ws_kind_name(e->kind), e->name,
				ws_compression_name(e->compression), (unsigned long long)e->payload_size);
			if (e->kind == WS_KIND_PTX) {
				unsigned ma, mi;
				ws_entry_isa(e, &ma, &mi);
				fprintf(r->out, "  ISA %u.%u", ma, mi);
			}
			if (e->toolkit)
				fprintf(r->out, "  CUDA %u.%u", e->toolkit / 10, e->toolkit % 10);
			if (e->kernels_known)
				fprintf(r->out, "  %u kernel%s", e->nkernels, e->nkernels == 1 ? "" : "s");
			if (e->opaque)
				fputs("  opaque", r->out);
			if (e->debug)
				fputs("  debug", r->out);
			if (e->options)
				fprintf(r->out, "  options '%s'", Q(e->options));
			if (e->error)
				fprintf(r->out, "  %serror: %s%s", col(r, RED), Q(e->error), col(r, RESET));
			fputc('\n', r->out);
		}
		if (r->cfg->verbose >= 3)
			kernel_names(r, o, f, "          ", mark);
	}
	free(mark);
}

/* The live results of an object's containers for target t, tallied: "ok x2, skipped x1". */
static void live_tally(struct ws_report *r, const struct ws_object *o, size_t t, bool nojit)
{
	int codes[8];
	unsigned counts[8], n = 0, other = 0;
	for (uint32_t k = 0; k < o->nfatbins; k++) {
		const int *lv = nojit ? o->fatbins[k].live_nojit : o->fatbins[k].live;
		if (!lv || lv[t] == WS_LIVE_NOT_RUN)
			continue;
		unsigned j = 0;
		while (j < n && codes[j] != lv[t])
			j++;
		if (j == n) {
			if (n == 8) {
				other++;
				continue;
			}
			codes[n] = lv[t];
			counts[n++] = 0;
		}
		counts[j]++;
	}
	if (n == 0)
		return;
	fputs(nojit ? "; without JIT:" : " measured:", r->out);
	for (unsigned j = 0; j < n; j++)
		fprintf(r->out, "%s %s x%u", j ? "," : "", codes[j] == 0 ? "ok" : ws_curesult_name(codes[j]), counts[j]);
	if (other)
		fprintf(r->out, ", other x%u", other);
}

/* --kernels: the kernels of the containers the object needs on target t that have no
 * image there, then the kernels that the images the driver picks lack. */
static void failing_kernels(struct ws_report *r, const struct ws_object *o, size_t t)
{
	if (ws_verdict_fails(o->verdicts[t])) {
		fprintf(r->out, "      kernels without an image for %s:\n", r->targets[t].name);
		uint8_t *mark = ws_calloc(o->kernels.n ? o->kernels.n : 1, 1);
		for (uint32_t k = 0; k < o->nfatbins; k++) {
			const struct ws_fatbin *f = &o->fatbins[k];
			if (f->roles && f->roles[t] == WS_ROLE_REQUIRED && ws_verdict_fails(f->verdicts[t]))
				kernel_names(r, o, f, "        ", mark);
		}
		free(mark);
	}
	if (o->judged[t].kernel_gaps)
		kernel_gaps(r, o, t, "        ");
}

/* A coverage map in lines: which compute capabilities of the GPU table run, need JIT, or
 * will not run, and what a GPU newer than all of them gets. */
static void coverage_lines(struct ws_report *r, const enum ws_verdict *v, const struct ws_judgement *newer,
			   const char *indent)
{
	static const char *const label[] = {"runs on", "PTX JIT only", "will NOT run"};
	static const char *const color[] = {GREEN, YELLOW, RED};
	char buf[512];
	size_t shown = 0;
	for (int c = WS_COV_RUNS; c <= WS_COV_FAILS; c++) {
		if (!ws_coverage_ranges(r, v, c, buf, sizeof buf))
			continue;
		fprintf(r->out, "%s%s%-12s%s %s", indent, col(r, color[c]), label[c], col(r, RESET), buf);
		if (c == WS_COV_JIT)
			fputs(": the first launch compiles, code may be slower", r->out);
		fputc('\n', r->out);
		shown++;
	}
	if (!shown) {
		fprintf(r->out, "%snothing to run (no kernels found)\n", indent);
		return;
	}
	enum ws_verdict nv = v[r->ntargets - 1];
	fprintf(r->out, "%s%-12s ", indent, "newer GPUs");
	if (nv == WS_V_JIT) {
		fputs("through PTX JIT", r->out);
		if (newer && newer->jit_from)
			fprintf(r->out, " from compute_%u", newer->jit_from);
		if (newer && newer->jit_driver_cuda) {
			char cv[16];
			fprintf(r->out, " (a driver for CUDA >= %s)", ws_cuda_str(newer->jit_driver_cuda, cv, sizeof cv));
		}
		fputc('\n', r->out);
	} else {
		fputs(ws_coverage_class(nv) == WS_COV_NONE ? "nothing to run\n" : "will NOT run: no PTX to compile for them\n",
		      r->out);
	}
}

static void object_block(struct ws_report *r, const struct ws_artifact *a, const struct ws_object *o)
{
	char hb[32];
	if (o->member)      /* a plain file's only object is described by the artifact line */
		fprintf(r->out, "  %s%s%s  (%s, %s)\n", col(r, BOLD), Q(o->member), col(r, RESET), o->type,
			human(o->size, hb, sizeof hb));
	if (o->nfatbins == 0) {
		fprintf(r->out, "    no CUDA device code\n");
		return;
	}
	fprintf(r->out, "    %-7s %u", "fatbins", o->nfatbins);
	if (o->fatbins[0].section[0]) {           /* raw fatbin files have no sections */
		fputs(" (", r->out);
		sections_line(r, o);
		fputc(')', r->out);
	}
	fprintf(r->out, ", %u distinct kernel%s\n", o->kernels.n, o->kernels.n == 1 ? "" : "s");
	arch_line(r, o, WS_KIND_SASS, "SASS");
	arch_line(r, o, WS_KIND_PTX, "PTX");
	arch_line(r, o, WS_KIND_LTOIR, "LTO-IR");
	arch_line(r, o, 0, "other");
	compression_line(r, o);
	if (r->coverage && o->verdicts) {
		coverage_lines(r, o->verdicts, &o->judged[r->ntargets - 1], "    ");
		if (r->cfg->verbose >= 2)
			container_details(r, o);
		return;
	}
	for (size_t t = 0; t < r->ntargets && o->verdicts; t++) {
		enum ws_verdict v = o->verdicts[t];
		const struct ws_judgement *j = &o->judged[t];
		fprintf(r->out, "    %-7s %s%s%s", r->targets[t].name, col(r, verdict_color(v)),
			ws_verdict_name(v), col(r, RESET));
		if (j->why)
			fprintf(r->out, "  %s", Q(j->why));
		if (j->other_gpu)
			fprintf(r->out, "%s%u of %u containers built for other GPUs (the library picks kernels by GPU)",
				j->why ? "; " : "  ", j->other_gpu, j->with_kernels);
		if (j->reasons & WS_R_KERNELS_ASSUMED)
			fputs("; kernels assumed in containers not decoded (--no-kernels)", r->out);
		if (j->kernel_gaps)
			fprintf(r->out, "; %u kernel%s missing from picked images (-v)", j->kernel_gaps,
				j->kernel_gaps == 1 ? "" : "s");
		if (o->alt_group)
			fprintf(r->out, "%sone of %u alternatives", j->why || j->other_gpu ? "; " : "  ",
				a->alts[o->alt_group - 1].n);
		if (r->live && r->live->target_device && r->live->target_device[t] >= 0) {
			fputs(" |", r->out);
			live_tally(r, o, t, false);
			live_tally(r, o, t, true);
		}
		fputc('\n', r->out);
		if (r->cfg->kernels && (ws_verdict_fails(v) || j->kernel_gaps))
			failing_kernels(r, o, t);
		if (r->cfg->verbose >= 2 && j->kernel_gaps && !r->cfg->kernels)
			kernel_gaps(r, o, t, "      ");
	}
	if (r->cfg->verbose >= 2)
		container_details(r, o);
}

/* A container image: its names, its manifest and its layers by short digest (12 hex, as
 * docker shows them); objects of a layer are named "<layer member>!<path>" under -v. */
static void image_lines(struct ws_report *r, const struct ws_artifact *a)
{
	for (uint32_t i = 0; i < a->nimages; i++) {
		const struct ws_image *im = &a->images[i];
		char nb[160];
		fputs("  image   ", r->out);
		for (uint32_t k = 0; k < im->nnames && k < 3; k++)   /* a tag is cut to one screen line */
			fprintf(r->out, "%s%s", k ? ", " : "", ws_q_text_into(nb, sizeof nb, im->names[k], strlen(im->names[k])));
		if (im->nnames > 3)
			fprintf(r->out, " (+%u)", im->nnames - 3);
		if (!im->nnames)
			fputs("untagged", r->out);
		if (im->manifest[0])
			fprintf(r->out, "  manifest %.12s", im->manifest + 7);
		else if (im->config[0])
			fprintf(r->out, "  id %.12s", im->config + 7);
		fprintf(r->out, "  layers %u:", im->nlayers);
		for (uint32_t k = 0; k < im->nlayers; k++)
			fprintf(r->out, " %.12s", im->layers[k].digest[0] ? im->layers[k].digest + 7 : "(unread)");
		fputc('\n', r->out);
	}
	/* what a later layer replaced or deleted is not in the image: said, not judged */
	if (a->nsuperseded)
		fprintf(r->out, "  superseded %zu object%s that a later layer replaces or deletes: not judged%s\n",
			a->nsuperseded, a->nsuperseded == 1 ? "" : "s", r->cfg->verbose ? "" : " (-v lists them)");
	for (size_t i = 0; r->cfg->verbose && i < a->nsuperseded; i++) {
		char nb[320];
		ws_sanitize(nb, sizeof nb, a->superseded[i], strlen(a->superseded[i]));
		fprintf(r->out, "          superseded: %s\n", nb);
	}
}

static void wheel_lines(struct ws_report *r, const struct ws_artifact *a)
{
	const struct ws_wheel_info *w = a->wheel;
	bool installed = !strcmp(a->type, "installed");
	if (w) {
		fprintf(r->out, "  %-7s %s %s", installed || !strcmp(a->type, "conda") ? "package" : "wheel",
			Q(w->meta_name ? w->meta_name : w->name ? w->name : "?"),
			Q(w->meta_version ? w->meta_version : w->version ? w->version : "?"));
		if (w->python_tag)
			fprintf(r->out, "  %s-%s-%s", Q(w->python_tag), Q(w->abi_tag ? w->abi_tag : "?"),
				Q(w->platform_tag ? w->platform_tag : "?"));
		if (w->requires_cuda_major)
			fprintf(r->out, "  requires CUDA %d libraries", w->requires_cuda_major);
		if (w->requires_torch)
			fprintf(r->out, "  built for torch %s", Q(w->requires_torch));
		fputc('\n', r->out);
	}
	if (a->record.checked) {
		if (a->record.ok)
			fprintf(r->out, "  RECORD  %sok%s: every %s matches its hash and size\n", col(r, GREEN),
				col(r, RESET), installed ? "installed file" : "member");
		else {
			/* what failed, then what could not be checked (rows not read, rows without a hash) */
			bool failed = a->record.nmismatched || a->record.nmissing || a->record.nunlisted;
			fprintf(r->out, "  RECORD  %s%s%s:", col(r, RED), failed ? "FAILED" : "incomplete", col(r, RESET));
			const char *sep = " ";
			if (failed) {
				fprintf(r->out, " %zu mismatched, %zu missing, %zu unlisted", a->record.nmismatched,
					a->record.nmissing, a->record.nunlisted);
				sep = ", ";
			}
			if (a->record.nunread) {
				fprintf(r->out, "%s%zu of %zu %s%s not read", sep, a->record.nunread, a->record.nhashed,
					failed ? "" : installed ? "installed file" : "member", failed ? "" : "s");
				sep = ", ";
			}
			if (a->record.nunhashed)
				fprintf(r->out, "%s%zu listed without a hash", sep, a->record.nunhashed);
			fputc('\n', r->out);
		}
		for (size_t i = 0; i < a->record.nmismatched; i++)
			fprintf(r->out, "          mismatched: %s\n", Q(a->record.mismatched[i]));
		for (size_t i = 0; i < a->record.nmissing; i++)
			fprintf(r->out, "          missing: %s\n", Q(a->record.missing[i]));
		for (size_t i = 0; i < a->record.nunlisted; i++)
			fprintf(r->out, "          unlisted: %s\n", Q(a->record.unlisted[i]));
		for (size_t i = 0; i < a->record.nunhashed; i++)
			fprintf(r->out, "          no hash: %s\n", Q(a->record.unhashed[i]));
	} else if (a->wheel && !r->cfg->verify) {
		fprintf(r->out, "  RECORD  not checked (--no-verify)\n");
	}
}

/* One line per group of alternatives: which variants run on target t. */
static void alternatives_line(struct ws_report *r, const struct ws_artifact *a, const struct ws_altgroup *g, size_t t)
{
	char cv[16];
	fprintf(r->out, "     alternatives %s (one is loaded, chosen by the CUDA runtime version):", Q(g->pattern));
	bool any = false;                      /* a variant that runs was named */
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;
		for (uint32_t i = 0; i < g->n; i++) {
			const struct ws_object *o = &a->objects[g->objects[i]];
			bool fails = ws_verdict_fails(o->verdicts[t]) || o->verdicts[t] == WS_V_NONE;
			if (fails != (pass == 1))
				continue;
			if (o->alt_major_only)
				snprintf(cv, sizeof cv, "%d.x", o->alt_cuda / 1000);
			else
				ws_cuda_str(o->alt_cuda, cv, sizeof cv);
			fprintf(r->out, "%s%s", !first ? ", " : !pass ? " runs with " : any ? "; not with " : " none runs: not with ",
				cv);
			first = false;
			any |= !pass;
		}
	}
	fputc('\n', r->out);
}

/* One line per target for the whole artifact, with the reason and advice where it fails. */
/* The objects that make an artifact fail on target t, when more than the one the "why"
 * line names: "also in: x.so, y.so". */
static void failing_objects(struct ws_report *r, const struct ws_artifact *a, size_t t)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		if (!o->verdicts || !ws_verdict_fails(o->verdicts[t]) || ws_object_excused(a, o, t))
			continue;
		if (n < 6)
			fprintf(r->out, "%s%s", n ? ", " : "     fails in: ", Q(o->member ? o->member : a->path));
		n++;
	}
	if (n > 6)
		fprintf(r->out, " and %u more", n - 6);
	if (n)
		fputc('\n', r->out);
}

/* The build to install instead, and the commands (src/core/remedy.c chose them; every
 * word comes from the build table, whose fields are checked when it is read). */
static void remedy_lines(struct ws_report *r, const struct ws_remedy *m)
{
	/* from the build table (--builds FILE) and the package's METADATA: escaped too */
	fprintf(r->out, "     %s: %s\n", m->kind == WS_REMEDY_REBUILD ? "rebuild" : "install", Q(m->summary));
	if (m->install && m->kind == WS_REMEDY_REBUILD) {
		fprintf(r->out, "       %s\n", Q(m->install));
	} else if (m->install) {
		fprintf(r->out, "       %s\n", Q(m->install));
		fprintf(r->out, "     offline: %s\n", Q(m->download));
		fprintf(r->out, "       then: %s\n", Q(m->offline));
	}
	if (m->note)
		fprintf(r->out, "     note: %s\n", Q(m->note));
}

/* Objects set aside on target t as built only for other GPUs, and why (judge.c, step a). */
static void set_aside_lines(struct ws_report *r, const struct ws_artifact *a, size_t t)
{
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		if (o->verdicts && o->verdicts[t] == WS_V_OTHER_GPU && o->judged[t].why)
			fprintf(r->out, "     set aside: %s: %s\n", o->member ? o->member : a->path, o->judged[t].why);
	}
}

/* " (sm_86 serves sm_89)": the older SASS of the target's major that the driver loads
 * (plain sm_XY, or family sm_XYf; an arch-specific sm_XYa runs on its own GPU alone). */
static void compatible_from(struct ws_report *r, const struct ws_artifact *a, const struct ws_target *tg)
{
	const struct ws_entry *lo = NULL, *hi = NULL;
	for (uint32_t o = 0; o < a->nobjects; o++)
		for (uint32_t f = 0; f < a->objects[o].nfatbins; f++) {
			const struct ws_fatbin *fb = &a->objects[o].fatbins[f];
			for (uint32_t e = 0; e < fb->nentries; e++) {
				const struct ws_entry *en = &fb->entries[e];
				char plain[24], family[24];
				snprintf(plain, sizeof plain, "sm_%u", (unsigned)en->arch);
				snprintf(family, sizeof family, "sm_%uf", (unsigned)en->arch);
				if (en->kind != WS_KIND_SASS || (strcmp(en->name, plain) && strcmp(en->name, family)) ||
				    en->arch / 10 != tg->cc / 10 || en->arch >= tg->cc)
					continue;
				if (!lo || en->arch < lo->arch)
					lo = en;
				if (!hi || en->arch > hi->arch)
					hi = en;
			}
		}
	if (hi && lo->arch == hi->arch)
		fprintf(r->out, " (%s serves sm_%u)", hi->name, (unsigned)tg->cc);
	else if (hi)
		fprintf(r->out, " (%s to %s serve sm_%u)", lo->name, hi->name, (unsigned)tg->cc);
}

/* --live: a verdict whose loads did not all answer (timeout, crash, the budget spent) was
 * not confirmed, and the headline says so (run.c adds the finding and fails the run). */
static void live_unmeasured(struct ws_report *r, const struct ws_artifact *a, size_t t)
{
	if (!r->live || !r->live->target_device || r->live->target_device[t] < 0)
		return;
	unsigned timeout = 0, crash = 0, budget = 0;
	for (uint32_t i = 0; i < a->nobjects; i++)
		for (uint32_t k = 0; k < a->objects[i].nfatbins; k++) {
			const struct ws_fatbin *f = &a->objects[i].fatbins[k];
			for (int pass = 0; pass < 2; pass++) {
				const int *lv = pass ? f->live_nojit : f->live;
				if (!lv || !f->verdicts || f->verdicts[t] == WS_V_NONE)
					continue;
				timeout += lv[t] == WS_LIVE_TIMEOUT;
				crash += lv[t] == WS_LIVE_CRASH;
				budget += lv[t] == WS_LIVE_BUDGET;
			}
		}
	if (timeout + crash + budget)
		fprintf(r->out, "; %snot measured (%s)%s: the live check did not confirm it", col(r, RED),
			timeout ? "timeout" : crash ? "crash" : "--live-budget spent", col(r, RESET));
}

static void artifact_verdicts(struct ws_report *r, const struct ws_artifact *a)
{
	if (!a->verdicts)
		return;
	if (r->coverage) {
		/* the map words the main code's verdicts, as the verdict lines do; what is weaker
		 * elsewhere is named per compute capability */
		coverage_lines(r, a->headline ? a->headline : a->verdicts, &a->judged[r->ntargets - 1], "  ");
		for (size_t t = 0; t < r->ntargets; t++)
			if (a->judged[t].minority_where)
				fprintf(r->out, "  %-12s %s: %s\n", t + 1 < r->ntargets ? "except" : "except newer",
					t + 1 < r->ntargets ? r->targets[t].name : "GPUs", a->judged[t].minority_where);
		return;
	}
	for (size_t t = 0; t < r->ntargets; t++) {
		enum ws_verdict v = a->verdicts[t];
		const struct ws_judgement *j = &a->judged[t];
		const struct ws_target *tg = &r->targets[t];
		char name[96];
		if (tg->label[0])
			snprintf(name, sizeof name, "%s (%s)", tg->label, tg->name);
		else
			snprintf(name, sizeof name, "%s", tg->name);
		fprintf(r->out, "  => %s: ", Q(name));        /* a label may be the driver's device name */
		/* the main code's verdict words the line; the gate's v decides the rest (judge.c) */
		switch (a->headline ? a->headline[t] : v) {
		case WS_V_NONE:
			/* an input that could not be read is not judged: it is not "nothing to run" */
			if (ws_artifact_unread(a))
				fprintf(r->out, "%snot judged%s: the input could not be read (see the error)\n",
					col(r, RED), col(r, RESET));
			else
				fprintf(r->out, "nothing to run (%s)\n", a->nobjects && (j->reasons & WS_R_LINK_INPUTS_ONLY)
					? "link inputs only" : "no kernels found");
			continue;
		case WS_V_NATIVE:
			fprintf(r->out, "%sruns%s: native SASS", col(r, GREEN), col(r, RESET));
			break;
		case WS_V_COMPATIBLE:
			fprintf(r->out, "%sruns%s: compatible SASS", col(r, GREEN), col(r, RESET));
			compatible_from(r, a, tg);
			break;
		case WS_V_JIT:
			if ((j->reasons & WS_R_JIT_COMPILER) && !j->objects) {
				char cv[16];
				fprintf(r->out, "%sruns through JIT%s: Triton compiles its kernels at run time, with its "
					"bundled ptxas from CUDA %s", col(r, YELLOW), col(r, RESET),
					ws_cuda_str(j->build_cuda, cv, sizeof cv));
			} else {
				fprintf(r->out, "%sruns through PTX JIT%s: first launch compiles, code may be slower",
					col(r, YELLOW), col(r, RESET));
			}
			break;
		default:
			if ((j->reasons & (WS_R_JIT_COMPILER_OLD | WS_R_JIT_COMPILER_DROPPED)) && !j->objects_failing)
				fprintf(r->out, "%swill NOT run%s: its bundled compiler cannot make code for this GPU\n",
					col(r, RED), col(r, RESET));
			else if (j->reasons & WS_R_DRIVER_GPU)
				fprintf(r->out, "%swill NOT run%s: this driver cannot run this GPU\n", col(r, RED), col(r, RESET));
			else
				fprintf(r->out, "%swill NOT run%s (%s in %u of %u objects with device code)\n", col(r, RED),
					col(r, RESET), ws_verdict_name(v), j->objects_failing, j->objects);
			break;
		}
		if (!ws_verdict_fails(v)) {
			if (j->minority_where)
				fprintf(r->out, " (%s)", j->minority_where);
			if (j->other_gpu)
				fprintf(r->out, "; relies on the library picking kernels by GPU (%u of %u containers are "
					"built for other GPUs; --strict counts them)", j->other_gpu, j->with_kernels);
			live_unmeasured(r, a, t);
			fputc('\n', r->out);
		}
		if (ws_verdict_fails(v) && j->objects_failing > 1)
			failing_objects(r, a, t);
		set_aside_lines(r, a, t);
		if (j->why && v != WS_V_JIT)
			fprintf(r->out, "     why: %s\n", Q(j->why));
		if (j->advice)
			fprintf(r->out, "     fix: %s\n", Q(j->advice));
		if (j->remedy)
			remedy_lines(r, j->remedy);
		for (uint32_t g = 0; g < a->nalts; g++)
			alternatives_line(r, a, &a->alts[g], t);
		if (ws_verdict_fails(v) && j->objects_failing < j->objects && !(j->reasons & WS_R_DRIVER_GPU))
			fprintf(r->out, "     note: %u other object%s with device code do%s load. With lazy loading (the\n"
				"     default since CUDA 12.2) a small test can pass and a real workload fail later\n"
				"     with 'CUDA error: no kernel image is available for execution on the device'.\n",
				j->objects - j->objects_failing, j->objects - j->objects_failing == 1 ? "" : "s",
				j->objects - j->objects_failing == 1 ? "es" : "");
	}
}

static void findings_lines(struct ws_report *r, const struct ws_result *res)
{
	for (size_t i = 0; i < res->findings.n; i++) {
		const struct ws_finding *f = &res->findings.v[i];
		if (f->id == WS_CHECK_WILL_NOT_RUN)
			continue;                         /* already in the verdict lines */
		char wb[2048];
		fprintf(r->out, "  %s%s %s%s: %s: %s\n", col(r, RED), ws_check_def(f->id)->id, ws_check_def(f->id)->name, col(r, RESET),
			Q(ws_where(res->a->path, f->where, wb, sizeof wb)), Q(f->what));
	}
	if (res->findings.dropped)
		fprintf(r->out, "  ... and %zu more findings\n", res->findings.dropped);
}

/* An installed package with nothing to say: no device code, no error, RECORD good. An
 * environment holds hundreds; they are counted, and shown with -v. */
static bool quiet_package(const struct ws_report *r, const struct ws_artifact *a)
{
	if (r->cfg->verbose || (strcmp(a->type, "installed") != 0 && strcmp(a->type, "directory") != 0) || a->nerrors ||
	    (a->record.checked && !a->record.ok) || ws_artifact_cpu_only(a))
		return false;
	for (uint32_t i = 0; i < a->nobjects; i++)
		if (a->objects[i].nfatbins || a->objects[i].jitc != WS_JITC_NONE)
			return false;              /* device code, or a compiler that makes it */
	return true;
}

void ws_text_artifact(struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	char hb[32];
	if (quiet_package(r, a)) {
		r->quiet_packages++;
		r->quiet_row = true;            /* the summary leaves its row out too */
		return;
	}
	if (res->from_tree && !r->cfg->verbose && !strcmp(a->type, "other") && !a->nerrors && !a->nobjects) {
		r->quiet_other++;               /* a README or a .py under -r: counted, not listed */
		r->quiet_row = true;
		return;
	}
	/* an input that is not there (cannot be opened, no size): the error on stderr says
	 * all there is, a block here would only repeat it */
	if (a->size_unknown && !a->nobjects && a->nerrors && a->errors[0].code == WS_E_IO) {
		r->missing++;
		return;
	}
	if (r->nartifacts > r->quiet_packages + r->quiet_other + r->missing)
		fputc('\n', r->out);
	/* a plain file is one object: show its precise type (elf-so, elf-rel, ...) */
	const char *type = a->nobjects == 1 && !a->objects[0].member ? a->objects[0].type : a->type;
	fprintf(r->out, "%s%s%s  (%s", col(r, BOLD), Q(a->path), col(r, RESET), type);
	if (!a->size_unknown)
		fprintf(r->out, ", %s", human(a->size, hb, sizeof hb));
	if (a->sha256[0])
		fprintf(r->out, ", sha256 %.16s...", a->sha256);
	fputs(")\n", r->out);
	uint32_t with_code = 0;
	for (uint32_t i = 0; i < a->nobjects; i++)
		with_code += a->objects[i].nfatbins != 0;
	if (!r->cfg->quiet) {
		if (a->origin)
			fprintf(r->out, "  origin  %s\n", Q(a->origin));
		wheel_lines(r, a);
		image_lines(r, a);
		if (!strcmp(a->type, "wheel") || !strcmp(a->type, "zip") || !strcmp(a->type, "tar") ||
		    !strcmp(a->type, "deb") || !strcmp(a->type, "conda") || !strcmp(a->type, "image"))
			fprintf(r->out, "  members %llu scanned, %u with CUDA device code\n",
				(unsigned long long)a->members_scanned, with_code);
		else if (!strcmp(a->type, "installed") || !strcmp(a->type, "directory"))
			fprintf(r->out, "  files   %llu read as binaries, %u with CUDA device code\n",
				(unsigned long long)a->members_scanned, with_code);
		/* per-object detail is -v's (and --kernels'): the first screen is the answer */
		if (r->cfg->verbose || r->cfg->kernels)
			for (uint32_t i = 0; i < a->nobjects; i++)
				object_block(r, a, &a->objects[i]);
	}
	const char *cpu = ws_artifact_cpu_only(a);
	if (cpu)
		fprintf(r->out, "  %sCPU-only build%s of %s, a package with CUDA builds: no CUDA device code (%s)\n",
			col(r, YELLOW), col(r, RESET), Q(a->wheel->meta_name ? a->wheel->meta_name : a->wheel->name), cpu);
	else if (with_code == 0 && a->nerrors == 0)
		fprintf(r->out, "  no CUDA device code found\n");
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		char cv[16];
		if (o->jitc == WS_JITC_NONE)
			continue;
		fprintf(r->out, "  jit     %s: ptxas from CUDA %s, which Triton runs to compile its kernels%s\n",
			Q(ws_object_name(a, o)), o->jitc_cuda ? ws_cuda_str(o->jitc_cuda, cv, sizeof cv) : "(release not found)",
			o->jitc == WS_JITC_PTXAS_BLACKWELL ? " for sm_100 and newer" : "");
	}
	if (!r->coverage || with_code)
		artifact_verdicts(r, a);
	findings_lines(r, res);
	if (a->nerrors)
		fprintf(r->out, "  %s%u error%s%s (see stderr)\n", col(r, RED), a->nerrors, a->nerrors == 1 ? "" : "s",
			col(r, RESET));
}

/* Environments: which installed distributions (and loose directories) will NOT run on each
 * target, and which only through JIT, with the reason or advice the model gave. */
static void env_summary(struct ws_report *r)
{
	bool any = false;
	for (size_t i = 0; i < r->nrows && !any; i++)
		any = r->rows[i].env;
	if (!any || r->coverage)
		return;
	/* the claim is over every labelled row (loose files too), and only when one has code */
	bool bad = false;
	size_t with_code = 0, unread = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_summary_row *row = &r->rows[i];
		if (!row->label)
			continue;
		with_code += row->objects != 0;
		unread += row->unread;
		for (size_t t = 0; row->verdicts && t < r->ntargets && !bad; t++)
			bad = ws_verdict_fails(row->verdicts[t]) || row->verdicts[t] == WS_V_JIT;
	}
	/* a package that could not be read is in neither claim */
	fprintf(r->out, "\nenvironment%s%s:%s%s", r->torch ? " with " : "", r->torch ? Q(r->torch) : "",
		bad || !unread ? "" : " of the packages read,",
		bad ? "" : with_code ? " every installed package with CUDA device code runs natively on the targets"
				     : " no installed package has CUDA device code");
	if (!bad && unread)
		fprintf(r->out, " (%zu not judged: see the errors)", unread);
	fputc('\n', r->out);
	for (size_t i = 0, n = 0; i < r->nrows; i++)
		if (r->rows[i].cpu_only)
			fprintf(r->out, "%s%s", n++ ? ", " : "  CPU-only builds of packages with CUDA builds (no CUDA device code): ",
				Q(r->rows[i].label));
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].cpu_only) {
			fputc('\n', r->out);
			break;
		}
	for (size_t t = 0; t < r->ntargets; t++) {
		const struct ws_target *tg = &r->targets[t];
		for (int pass = 0; pass < 2; pass++) {
			bool head = false;
			for (size_t i = 0; i < r->nrows; i++) {
				const struct ws_summary_row *row = &r->rows[i];
				if (!row->label || !row->verdicts)
					continue;
				enum ws_verdict v = row->verdicts[t];
				if (pass == 0 ? !ws_verdict_fails(v) : v != WS_V_JIT)
					continue;
				if (!head)
					fprintf(r->out, "  %s%s%s on %s%s%s%s:\n", col(r, pass ? YELLOW : RED),
						pass ? "only through PTX JIT (slow first start)" : "will NOT run", col(r, RESET),
						Q(tg->label[0] ? tg->label : tg->name), tg->label[0] ? " (" : "",
						tg->label[0] ? tg->name : "", tg->label[0] ? ")" : "");
				head = true;
				fprintf(r->out, "    %s", Q(row->label));
				if (pass == 0 && row->advice && row->advice[t])
					fprintf(r->out, ": %s", Q(row->advice[t]));
				fputc('\n', r->out);
			}
		}
	}
}

/* The set judged as a whole (src/core/envset.c): what breaks together, and per target the
 * one command that fixes it. */
static void env_set_lines(struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	bool fix = false;
	for (size_t k = 0; s->fix && k < r->ntargets; k++)
		fix |= s->fix[k] || s->fix_note[k];
	if (!s->nissues && !fix)
		return;
	fprintf(r->out, "\n%sthe packages together%s:\n", col(r, BOLD), col(r, RESET));
	for (size_t i = 0; i < s->nissues; i++) {
		const struct ws_env_issue *e = &s->issues[i];
		if (e->target >= 0)
			fprintf(r->out, "  on %s: %s\n", r->targets[e->target].name, Q(e->what));   /* names METADATA's */
		else
			fprintf(r->out, "  %s\n", Q(e->what));
	}
	for (size_t k = 0; s->fix && k < r->ntargets; k++) {
		const struct ws_target *tg = &r->targets[k];
		if (!s->fix[k] && !s->fix_note[k])
			continue;
		fprintf(r->out, "  to fix it on %s%s%s%s:\n", Q(tg->label[0] ? tg->label : tg->name), tg->label[0] ? " (" : "",
			tg->label[0] ? tg->name : "", tg->label[0] ? ")" : "");
		if (s->fix[k])
			fprintf(r->out, "    %s\n", Q(s->fix[k]));
		if (s->fix_note[k])
			fprintf(r->out, "    note: %s\n", Q(s->fix_note[k]));
	}
}

static void summary_table(struct ws_report *r);

void ws_text_summary(struct ws_report *r)
{
	if (r->live_mismatches) {
		fprintf(r->out, "\n%sLIVE MISMATCHES: %zu%s (prediction and driver disagree; the rules are wrong)\n",
			col(r, RED), r->live_mismatches, col(r, RESET));
		for (size_t i = 0; i < r->mismatches.n; i++)
			fprintf(r->out, "  %s: %s: %s\n", Q(r->mismatches.v[i].artifact), Q(r->mismatches.v[i].where),
				Q(r->mismatches.v[i].what));
	}
	if (r->quiet_other)
		fprintf(r->out, "\n%zu file%s in no package or object format wheelscan reads, not shown (-v shows them)\n",
			r->quiet_other, r->quiet_other == 1 ? "" : "s");
	if (r->nskipped)
		fprintf(r->out, "\n%zu symbolic link%s skipped (dangling or looping; named on stderr)\n", r->nskipped,
			r->nskipped == 1 ? "" : "s");
	if (r->quiet_packages)
		fprintf(r->out, "\n%zu installed package%s or director%s without CUDA device code not shown (-v shows them)\n",
			r->quiet_packages, r->quiet_packages == 1 ? "" : "s", r->quiet_packages == 1 ? "y" : "ies");
	env_summary(r);
	env_set_lines(r);
	if (r->nrows - r->quiet_packages - r->quiet_other >= 2)
		summary_table(r);
	/* no hint about inputs not there, nor when --require was the point of the run */
	if (r->coverage && !(r->nrows && r->missing == r->nrows) && !r->cfg->nrequire && !r->cfg->require_ptx)
		fputs("\nNo GPU was named, and none was found here. --gpu 'RTX 5090' (or sm_120, 12.0)\n"
		      "judges one GPU; --list-gpus names them.\n", r->out);
	if (ws_report_gates(r)) {
		char line[256];
		bool passed = ws_gate_line(r, line, sizeof line);
		fprintf(r->out, "\n%s%s%s\n", col(r, passed ? GREEN : RED), line, col(r, RESET));
	}
}

/* A name column is as wide as its longest name, up to 40: a stranger's long name shifts
 * only its own row. */
static int column_width(int w, const char *s)
{
	int n = s ? (int)strlen(ws_q_text(s)) : 0;
	return n > w ? (n > 40 ? 40 : n) : w;
}

/* The package and version cells of a summary row, escaped, "-" where unknown. */
static void name_cells(struct ws_report *r, const struct ws_summary_row *row, int pw, int vw)
{
	fprintf(r->out, "%-*s ", pw, row->package ? Q(row->package) : "-");
	fprintf(r->out, "%-*s ", vw, row->version ? Q(row->version) : "-");
}

static void summary_table(struct ws_report *r)
{
	/* the type column is as wide as its longest entry, so no row shifts the others */
	int tw = 9, pw = 7, vw = 7;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_summary_row *row = &r->rows[i];
		if (row->quiet)
			continue;
		if (row->type && (int)strlen(row->type) > tw)
			tw = (int)strlen(row->type);
		pw = column_width(pw, row->package);
		vw = column_width(vw, row->version);
	}
	fprintf(r->out, "\nsummary: %zu artifacts\n  %-*s %-*s %-*s %7s %9s %6s", r->nrows - r->quiet_packages - r->quiet_other,
		tw, "type", pw, "package", vw, "version", "objects", "fatbins", "errors");
	if (r->coverage) {
		/* a coverage map per row: the compute capabilities it runs on (JIT included) */
		fputs("  path: runs on\n", r->out);
		for (size_t i = 0; i < r->nrows; i++) {
			const struct ws_summary_row *row = &r->rows[i];
			char runs[512], jit[512];
			if (row->quiet)
				continue;
			fprintf(r->out, "  %-*s ", tw, row->type);
			name_cells(r, row, pw, vw);
			fprintf(r->out, "%7u %9u %6u  %s: ", row->objects, row->fatbins, row->errors, Q(row->path));
			size_t n = ws_coverage_ranges(r, row->verdicts, WS_COV_RUNS, runs, sizeof runs);
			size_t nj = ws_coverage_ranges(r, row->verdicts, WS_COV_JIT, jit, sizeof jit);
			fprintf(r->out, "%s%s%s%s%s\n", n ? runs : "", n && nj ? "; " : "", nj ? "JIT " : "", nj ? jit : "",
				n || nj ? "" : "-");
		}
		return;
	}
	for (size_t t = 0; t < r->ntargets; t++)
		fprintf(r->out, " %-11s", r->targets[t].name);
	fputs("  path\n", r->out);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_summary_row *row = &r->rows[i];
		if (row->quiet)
			continue;
		fprintf(r->out, "  %-*s ", tw, row->type);
		name_cells(r, row, pw, vw);
		fprintf(r->out, "%7u %9u %6u", row->objects, row->fatbins, row->errors);
		for (size_t t = 0; t < r->ntargets; t++)
			fprintf(r->out, " %-11s", row->unread ? "not-read" : row->verdicts ? ws_verdict_name(row->verdicts[t]) : "-");
		fprintf(r->out, "  %s\n", Q(row->path));
	}
}
