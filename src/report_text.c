/* report_text.c - the report for people: per artifact, per object with device
 * code, the architectures, compression, kernels and a verdict line per target. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_decode.h"
#include "ws_gate.h"
#include "ws_live.h"

#include "report_text.h"

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

/* The release the object was built with (ws_object_build_cuda), and how firmly. */
static void build_line(struct ws_report *r, const struct ws_object *o)
{
	struct ws_build_cuda bc;
	char c1[16], c2[16];
	ws_object_build_cuda(o, &bc);
	if (!bc.cuda)
		return;
	ws_cuda_str(bc.cuda, c1, sizeof c1);
	if (bc.from_isa) {
		fprintf(r->out, "    %-7s CUDA %s or newer (no cubin names its release; from PTX ISA %u.%u)\n",
			"built", c1, bc.isa_major, bc.isa_minor);
		return;
	}
	fprintf(r->out, "    %-7s CUDA %s (named by %llu of %llu cubins' ptxas notes", "built", c1,
		(unsigned long long)bc.cubins, (unsigned long long)bc.noted_cubins);
	if (bc.newest_note > bc.cuda)
		fprintf(r->out, "; the newest note, %s, by fewer", ws_cuda_str(bc.newest_note, c2, sizeof c2));
	fputs(")\n", r->out);
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


static void object_block(struct ws_report *r, const struct ws_artifact *a, const struct ws_object *o)
{
	char hb[32];
	if (o->member)      /* a plain file's only object is described by the artifact line */
		fprintf(r->out, "  %s%s%s  (%s, %s)\n", col(r, BOLD), Q(o->member), col(r, RESET),
			ws_object_type_name(o->type), human(o->size, hb, sizeof hb));
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
		build_line(r, o);
	if (r->coverage && o->verdicts) {
		ws_text_coverage_lines(r, o->verdicts, &o->judged[r->ntargets - 1], "    ");
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
	bool installed = a->type == WS_ART_INSTALLED;
	if (w) {
		fprintf(r->out, "  %-7s %s %s", installed || a->type == WS_ART_CONDA ? "package" : "wheel",
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
	if (r->cfg->verbose || (a->type != WS_ART_INSTALLED && a->type != WS_ART_DIRECTORY) || a->nerrors ||
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
	if (res->from_tree && !r->cfg->verbose && a->type == WS_ART_OTHER && !a->nerrors && !a->nobjects) {
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
	const char *type = a->nobjects == 1 && !a->objects[0].member ? ws_object_type_name(a->objects[0].type)
								       : ws_artifact_type_name(a->type);
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
		if (a->type == WS_ART_WHEEL || a->type == WS_ART_ZIP || a->type == WS_ART_TAR || a->type == WS_ART_DEB ||
		    a->type == WS_ART_CONDA || a->type == WS_ART_IMAGE)
			fprintf(r->out, "  members %llu scanned, %u with CUDA device code\n",
				(unsigned long long)a->members_scanned, with_code);
		else if (a->type == WS_ART_INSTALLED || a->type == WS_ART_DIRECTORY)
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
		ws_text_verdicts(r, a);
	findings_lines(r, res);
	if (a->nerrors)
		fprintf(r->out, "  %s%u error%s%s (see stderr)\n", col(r, RED), a->nerrors, a->nerrors == 1 ? "" : "s",
			col(r, RESET));
}
