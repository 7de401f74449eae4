/* report_json.c - JSON and JSONL output (schema in man/wheelscan.1, OUTPUT).
 * The document is streamed: each artifact is written as soon as it is done. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_builds.h"
#include "ws_decode.h"
#include "ws_live.h"
#include "ws_quote.h"
#include "ws_report.h"
#include "ws_json.h"

/* Without a GPU named or found: "coverage" over every compute capability of the GPU
 * table, and what a GPU newer than all of them gets. */
static void coverage(struct ws_buf *b, const struct ws_report *r, const enum ws_verdict *v)
{
	if (!v || !r->ntargets)
		return;
	ws_json_key(b, "coverage");
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t + 1 < r->ntargets; t++)
		ws_json_kv_str(b, r->targets[t].name, ws_verdict_name(v[t]));
	ws_json_close(b, '}');
	ws_json_kv_str(b, "coverage_newer", ws_verdict_name(v[r->ntargets - 1]));
}

static void verdicts(struct ws_buf *b, const struct ws_report *r, const char *k, const enum ws_verdict *v)
{
	if (!v || !r->ntargets)
		return;
	if (r->coverage) {
		if (!strcmp(k, "verdicts"))
			coverage(b, r, v);
		return;
	}
	ws_json_key(b, k);
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t < r->ntargets; t++)
		ws_json_kv_str(b, r->targets[t].name, ws_verdict_name(v[t]));
	ws_json_close(b, '}');
}

/* The artifact's headline (src/core/judge.c, step b): the verdict its verdict line words,
 * the main code's; "verdicts" (or "coverage") stays the gate's. */
static void headline_json(struct ws_buf *b, const struct ws_report *r, const enum ws_verdict *v)
{
	if (!v || !r->ntargets)
		return;
	ws_json_key(b, r->coverage ? "coverage_headline" : "headline");
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t + (r->coverage ? 1 : 0) < r->ntargets; t++)
		ws_json_kv_str(b, r->targets[t].name, ws_verdict_name(v[t]));
	ws_json_close(b, '}');
	if (r->coverage)
		ws_json_kv_str(b, "coverage_headline_newer", ws_verdict_name(v[r->ntargets - 1]));
}

static void roles_json(struct ws_buf *b, const struct ws_report *r, const struct ws_fatbin *f)
{
	ws_json_kv_str(b, "role", ws_role_name(f->role));
	if (!f->roles || !r->ntargets || r->coverage)
		return;
	ws_json_key(b, "roles");
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t < r->ntargets; t++)
		ws_json_kv_str(b, r->targets[t].name, ws_role_name(f->roles[t]));
	ws_json_close(b, '}');
}

static void gaps_json(struct ws_buf *b, const struct ws_report *r, const struct ws_object *o, const struct ws_fatbin *f)
{
	bool any = false;
	for (size_t t = 0; f->gaps && !r->coverage && t < r->ntargets; t++)
		any |= f->gaps[t].n != 0;
	if (!any)
		return;
	ws_json_key(b, "kernel_gaps");
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t < r->ntargets; t++) {
		if (!f->gaps[t].n)
			continue;
		ws_json_key(b, r->targets[t].name);
		ws_buf_add(b, "[", 1);
		for (uint32_t i = 0; i < f->gaps[t].n; i++) {
			ws_json_str(b, o->kernels.str ? o->kernels.str[f->gaps[t].kernels[i]] : NULL);
			ws_buf_add(b, ",", 1);
		}
		ws_json_close(b, ']');
	}
	ws_json_close(b, '}');
}

static const char *remedy_kind_name(enum ws_remedy_kind k)
{
	switch (k) {
	case WS_REMEDY_INSTALL: return "install";
	case WS_REMEDY_NONE: return "none";
	case WS_REMEDY_DRIVER_FIRST: return "driver-first";
	case WS_REMEDY_REBUILD: return "rebuild";
	}
	return "?";
}

void ws_json_remedy(struct ws_buf *b, const struct ws_remedy *m)
{
	char v[16];
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "kind", remedy_kind_name(m->kind));
	ws_json_kv_str(b, "package", m->package);
	ws_json_key(b, "packages");
	ws_buf_add(b, "[", 1);
	for (uint8_t i = 0; i < m->npkgs; i++) {
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "name", m->pkgs[i].name);
		ws_json_kv_str(b, "version", m->pkgs[i].version);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	ws_json_kv_str(b, "variant", m->variant);
	ws_json_kv_str(b, "index", m->index);
	ws_json_kv_str(b, "platform", m->platform);
	ws_json_kv_str(b, "provenance", m->provenance);
	ws_json_kv_str(b, "cuda", m->cuda ? ws_cuda_str(m->cuda, v, sizeof v) : NULL);
	ws_json_kv_str(b, "driver_cuda_min", m->driver_floor ? ws_cuda_str(m->driver_floor, v, sizeof v) : NULL);
	ws_json_kv_str(b, "verdict", m->kind == WS_REMEDY_NONE ? NULL : ws_verdict_name(m->verdict));
	ws_json_kv_str(b, "summary", m->summary);
	ws_json_command_members(b, &m->install, &m->download, &m->offline, NULL, m->shells, m->nshells);
	ws_json_kv_str(b, "note", m->note);
	ws_json_close(b, '}');
}

/* "judgement": {"sm_120": {"reasons": [...], "why": ..., "advice": ..., counts}} */
static void judgement_json(struct ws_buf *b, const struct ws_report *r, const struct ws_judgement *j, bool artifact)
{
	if (!j || !r->ntargets || r->coverage)
		return;
	ws_json_key(b, "judgement");
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t < r->ntargets; t++) {
		ws_json_key(b, r->targets[t].name);
		ws_buf_add(b, "{", 1);
		ws_json_key(b, "reasons");
		ws_buf_add(b, "[", 1);
		for (unsigned bit = 0; bit < WS_R_COUNT; bit++)
			if (j[t].reasons & (1u << bit)) {
				ws_json_str(b, ws_reason_name(1u << bit));
				ws_buf_add(b, ",", 1);
			}
		ws_json_close(b, ']');
		ws_json_kv_str(b, "why", j[t].why);
		ws_json_kv_str(b, "advice", j[t].advice);
		if (artifact) {
			ws_json_kv_u64(b, "objects", j[t].objects);
			ws_json_kv_u64(b, "objects_failing", j[t].objects_failing);
			ws_json_kv_u64(b, "minority_containers", j[t].minority);
			ws_json_kv_str(b, "minority", j[t].minority_where);
			if (j[t].compatible_hi[0]) {
				const char *sass[] = {j[t].compatible_lo, j[t].compatible_hi};
				ws_json_key(b, "compatible_sass");
				ws_json_strv(b, sass, strcmp(sass[0], sass[1]) ? 2 : 1);
			}
		}
		ws_json_kv_u64(b, "containers_with_kernels", j[t].with_kernels);
		ws_json_kv_u64(b, "containers_serving", j[t].serving);
		ws_json_kv_u64(b, "containers_other_gpu", j[t].other_gpu);
		ws_json_kv_u64(b, "containers_failing", j[t].failing);
		ws_json_kv_u64(b, "kernel_gaps", j[t].kernel_gaps);
		char v[16];
		ws_json_kv_str(b, "build_cuda", j[t].build_cuda ? ws_cuda_str(j[t].build_cuda, v, sizeof v) : NULL);
		if (artifact) {
			ws_json_key(b, "remedy");
			if (j[t].remedy)
				ws_json_remedy(b, j[t].remedy);
			else
				ws_buf_puts(b, "null,");
		}
		ws_json_close(b, '}');
	}
	ws_json_close(b, '}');
}

static void alt_cuda_str(const struct ws_object *o, char *buf, size_t len)
{
	if (o->alt_major_only)
		snprintf(buf, len, "%d.x", o->alt_cuda / 1000);
	else
		ws_cuda_str(o->alt_cuda, buf, len);
}

static void alternatives_json(struct ws_buf *b, const struct ws_report *r, const struct ws_artifact *a)
{
	if (!a->nalts)
		return;
	ws_json_key(b, "alternatives");
	ws_buf_add(b, "[", 1);
	for (uint32_t g = 0; g < a->nalts; g++) {
		const struct ws_altgroup *ag = &a->alts[g];
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "pattern", ag->pattern);
		ws_json_kv_str(b, "chosen_by", "cuda-runtime-version");
		verdicts(b, r, "verdicts", ag->verdicts);
		ws_json_key(b, "variants");
		ws_buf_add(b, "[", 1);
		for (uint32_t i = 0; i < ag->n; i++) {
			const struct ws_object *o = &a->objects[ag->objects[i]];
			char cv[16];
			alt_cuda_str(o, cv, sizeof cv);
			ws_buf_add(b, "{", 1);
			ws_json_kv_str(b, "member", o->member);
			ws_json_kv_str(b, "cuda", cv);
			verdicts(b, r, "verdicts", o->verdicts);
			ws_json_close(b, '}');
		}
		ws_json_close(b, ']');
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
}

static void live_results(struct ws_buf *b, const struct ws_report *r, const char *k, const int *v)
{
	if (!v || !r->ntargets)
		return;
	ws_json_key(b, k);
	ws_buf_add(b, "{", 1);
	for (size_t t = 0; t < r->ntargets; t++)
		if (v[t] != WS_LIVE_NOT_RUN)
			ws_json_kv_str(b, r->targets[t].name, v[t] == 0 ? "ok" : ws_curesult_name(v[t]));
	ws_json_close(b, '}');
}

static void str_list(struct ws_buf *b, const char *k, char *const *v, size_t n)
{
	ws_json_key(b, k);
	ws_json_strv(b, (const char *const *)v, n);
}

static void entry_json(struct ws_buf *b, const struct ws_object *o, const struct ws_entry *e)
{
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "kind", ws_kind_name(e->kind));
	ws_json_kv_str(b, "arch", e->name);
	ws_json_kv_str(b, "compression", ws_compression_name(e->compression));
	ws_json_kv_u64(b, "size", e->payload_size);
	ws_json_kv_u64(b, "uncompressed_size", e->compression != WS_COMP_NONE ? e->uncompressed_size : e->content_size);
	ws_json_key(b, "flags");
	ws_buf_printf(b, "\"0x%llx\",", (unsigned long long)e->flags);
	char v[32];
	if (e->kind == WS_KIND_PTX) {
		unsigned ma, mi;
		ws_entry_isa(e, &ma, &mi);
		snprintf(v, sizeof v, "%u.%u", ma, mi);
		ws_json_kv_str(b, "ptx_isa", v);
		if (e->ptx_target[0])
			ws_json_kv_str(b, "ptx_target", e->ptx_target);
	} else {
		snprintf(v, sizeof v, "%u.%u", e->fmt_major, e->fmt_minor);
		ws_json_kv_str(b, "code_version", v);
	}
	if (e->elf_sm)
		ws_json_kv_u64(b, "elf_sm", e->elf_sm);
	if (e->toolkit) {
		snprintf(v, sizeof v, "%u.%u", e->toolkit / 10, e->toolkit % 10);
		ws_json_kv_str(b, "toolkit", v);
	}
	if (e->producer)
		ws_json_kv_str(b, "producer", e->producer);
	if (e->tool_options)
		ws_json_kv_str(b, "tool_options", e->tool_options);
	if (e->options)
		ws_json_kv_str(b, "options", e->options);
	if (e->identifier)
		ws_json_kv_str(b, "identifier", e->identifier);
	if (e->kind == WS_KIND_SASS)
		ws_json_kv_bool(b, "relocatable", e->relocatable);
	ws_json_kv_bool(b, "debug", e->debug);
	ws_json_kv_bool(b, "opaque", e->opaque);
	ws_json_key(b, "kernels");
	if (e->kernels_known) {
		ws_buf_add(b, "[", 1);
		for (uint32_t k = 0; k < e->nkernels; k++) {
			ws_json_str(b, o->kernels.str[e->kernels[k]]);
			ws_buf_add(b, ",", 1);
		}
		ws_json_close(b, ']');
	} else {
		ws_buf_puts(b, "null,");
	}
	if (e->error)
		ws_json_kv_str(b, "error", e->error);
	ws_json_close(b, '}');
}

/* A container image's names, manifest, config and layers; an object of a layer is named
 * "<layer member>!<path in the layer>". */
static void images_json(struct ws_buf *b, const struct ws_artifact *a)
{
	ws_json_key(b, "images");
	ws_buf_add(b, "[", 1);
	for (uint32_t i = 0; i < a->nimages; i++) {
		const struct ws_image *im = &a->images[i];
		ws_buf_add(b, "{", 1);
		str_list(b, "names", im->names, im->nnames);
		ws_json_kv_str(b, "manifest", im->manifest[0] ? im->manifest : NULL);
		ws_json_kv_str(b, "config", im->config[0] ? im->config : NULL);
		ws_json_key(b, "layers");
		ws_buf_add(b, "[", 1);
		for (uint32_t k = 0; k < im->nlayers; k++) {
			const struct ws_image_layer *l = &im->layers[k];
			ws_buf_add(b, "{", 1);
			ws_json_kv_str(b, "member", l->member);
			ws_json_kv_str(b, "digest", l->digest[0] ? l->digest : NULL);
			ws_json_kv_u64(b, "size", l->size);
			ws_json_close(b, '}');
		}
		ws_json_close(b, ']');
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
}

static void contents_json(struct ws_buf *b, const struct ws_artifact *a);
/* The release the object was built with (ws_object_build_cuda); absent when nothing says. */
static void build_cuda_json(struct ws_buf *b, const struct ws_object *o)
{
	struct ws_build_cuda bc;
	char cv[16];
	ws_object_build_cuda(o, &bc);
	if (!bc.cuda)
		return;
	ws_json_key(b, "build_cuda");
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "cuda", ws_cuda_str(bc.cuda, cv, sizeof cv));
	ws_json_kv_str(b, "from", bc.from_isa ? "ptx_isa" : "ptxas_notes");
	ws_json_kv_u64(b, "cubins", bc.cubins);
	ws_json_kv_u64(b, "noted_cubins", bc.noted_cubins);
	ws_json_kv_str(b, "newest_note", bc.newest_note ? ws_cuda_str(bc.newest_note, cv, sizeof cv) : NULL);
	ws_json_close(b, '}');
}

static void objects_json(struct ws_buf *b, const struct ws_report *r, const struct ws_artifact *a, enum ws_detail detail);
static void findings_errors_json(struct ws_buf *b, const struct ws_result *res);

static void artifact_json(struct ws_buf *b, const struct ws_report *r, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "path", a->path);
	ws_json_kv_str(b, "type", ws_artifact_type_name(a->type));
	ws_json_kv_str(b, "sha256", a->sha256[0] ? a->sha256 : NULL);
	if (a->size_unknown)
		ws_json_kv_str(b, "size", NULL);
	else
		ws_json_kv_u64(b, "size", a->size);
	if (a->origin)
		ws_json_kv_str(b, "origin", a->origin);
	if (a->wheel && a->type == WS_ART_INSTALLED) {
		const struct ws_wheel_info *w = a->wheel;
		ws_json_key(b, "distribution");
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "name", w->meta_name);
		ws_json_kv_str(b, "version", w->meta_version);
		ws_json_key(b, "requires_cuda");
		if (w->requires_cuda_major)
			ws_buf_printf(b, "%d,", w->requires_cuda_major);
		else
			ws_buf_puts(b, "null,");
		ws_json_kv_str(b, "requires_torch", w->requires_torch);
		ws_json_close(b, '}');
	} else if (a->wheel) {
		const struct ws_wheel_info *w = a->wheel;
		ws_json_key(b, "wheel");
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "name", w->meta_name ? w->meta_name : w->name);
		ws_json_kv_str(b, "version", w->meta_version ? w->meta_version : w->version);
		ws_json_kv_str(b, "local", w->local);
		ws_json_kv_str(b, "python_tag", w->python_tag);
		ws_json_kv_str(b, "abi_tag", w->abi_tag);
		ws_json_kv_str(b, "platform_tag", w->platform_tag);
		ws_json_key(b, "requires_cuda");
		if (w->requires_cuda_major)
			ws_buf_printf(b, "%d,", w->requires_cuda_major);
		else
			ws_buf_puts(b, "null,");
		ws_json_kv_str(b, "requires_torch", w->requires_torch);
		ws_json_key(b, "requires_cuda_runtime");
		if (w->requires_cuda_runtime) {
			char c[16];
			ws_buf_printf(b, "\"%s\",", ws_cuda_str(w->requires_cuda_runtime, c, sizeof c));
		} else {
			ws_buf_puts(b, "null,");
		}
		ws_json_kv_str(b, "generator", w->generator);
		ws_json_close(b, '}');
	}
	if (ws_artifact_cpu_only(a))
		ws_json_kv_str(b, "cpu_only_build", ws_artifact_cpu_only(a));
	if (a->record.checked) {
		ws_json_key(b, "record");
		ws_buf_add(b, "{", 1);
		ws_json_kv_bool(b, "ok", a->record.ok);
		str_list(b, "mismatched", a->record.mismatched, a->record.nmismatched);
		str_list(b, "missing", a->record.missing, a->record.nmissing);
		str_list(b, "unlisted", a->record.unlisted, a->record.nunlisted);
		str_list(b, "unhashed", a->record.unhashed, a->record.nunhashed);
		ws_json_kv_u64(b, "not_read", a->record.nunread);
		ws_json_kv_u64(b, "hashed_rows", a->record.nhashed);
		ws_json_close(b, '}');
	}
	if (a->nimages)
		images_json(b, a);
	if (a->nimages)
		str_list(b, "superseded", a->superseded, a->nsuperseded);
	if (a->type == WS_ART_WHEEL || a->type == WS_ART_ZIP || a->type == WS_ART_IMAGE)
		ws_json_kv_u64(b, "members_scanned", a->members_scanned);
	if (a->type == WS_ART_INSTALLED || a->type == WS_ART_DIRECTORY)
		ws_json_kv_u64(b, "files_scanned", a->members_scanned);
	if (!ws_artifact_unread(a)) {                /* not judged: no verdict to claim */
		verdicts(b, r, "verdicts", a->verdicts);
		headline_json(b, r, a->headline);
		judgement_json(b, r, a->judged, true);
	}
	alternatives_json(b, r, a);
	enum ws_detail detail = r->cfg->detail ? r->cfg->detail : WS_DETAIL_ENTRY;
	if (detail < WS_DETAIL_ENTRY)
		contents_json(b, a);
	if (detail >= WS_DETAIL_OBJECT)
		objects_json(b, r, a, detail);
	findings_errors_json(b, res);
	ws_json_close(b, '}');
	b->len--;                                    /* no comma after the artifact itself */
	b->p[b->len] = '\0';
}

/* What a shorter --detail leaves out, counted: a mirror sees how much lies below. */
static void contents_json(struct ws_buf *b, const struct ws_artifact *a)
{
	uint64_t containers = 0, entries = 0;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		containers += a->objects[i].nfatbins;
		for (uint32_t k = 0; k < a->objects[i].nfatbins; k++)
			entries += a->objects[i].fatbins[k].nentries;
	}
	ws_json_key(b, "contents");
	ws_buf_add(b, "{", 1);
	ws_json_kv_u64(b, "objects", a->nobjects);
	ws_json_kv_u64(b, "containers", containers);
	ws_json_kv_u64(b, "entries", entries);
	ws_json_close(b, '}');
}

static void objects_json(struct ws_buf *b, const struct ws_report *r, const struct ws_artifact *a, enum ws_detail detail)
{
	ws_json_key(b, "objects");
	ws_buf_add(b, "[", 1);
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "member", o->member);
		ws_json_kv_str(b, "type", ws_object_type_name(o->type));
		ws_json_kv_u64(b, "size", o->size);
		ws_json_kv_u64(b, "kernels", o->kernels.n);
		verdicts(b, r, "verdicts", o->verdicts);
		judgement_json(b, r, o->judged, false);
		if (o->alt_group) {
			char cv[16];
			alt_cuda_str(o, cv, sizeof cv);
			ws_json_key(b, "alternative");
			ws_buf_add(b, "{", 1);
			ws_json_kv_str(b, "pattern", a->alts[o->alt_group - 1].pattern);
			ws_json_kv_str(b, "cuda", cv);
			ws_json_close(b, '}');
		}
		build_cuda_json(b, o);
		if (o->jitc != WS_JITC_NONE) {
			char cv[16];
			ws_json_key(b, "jit_compiler");
			ws_buf_add(b, "{", 1);
			ws_json_kv_str(b, "kind", ws_jitc_name(o->jitc));
			ws_json_kv_str(b, "cuda", o->jitc_cuda ? ws_cuda_str(o->jitc_cuda, cv, sizeof cv) : NULL);
			ws_json_close(b, '}');
		}
		if (detail < WS_DETAIL_CONTAINER) {
			ws_json_kv_u64(b, "containers", o->nfatbins);
			ws_json_close(b, '}');
			continue;
		}
		ws_json_key(b, "fatbins");
		ws_buf_add(b, "[", 1);
		for (uint32_t k = 0; k < o->nfatbins; k++) {
			const struct ws_fatbin *f = &o->fatbins[k];
			ws_buf_add(b, "{", 1);
			ws_json_kv_str(b, "section", f->section[0] ? f->section : NULL);
			ws_json_kv_u64(b, "offset", f->offset);
			ws_json_kv_u64(b, "size", f->size);
			ws_json_kv_bool(b, "relocatable", f->relocatable);
			ws_json_kv_u64(b, "kernels", f->nkernels == UINT32_MAX ? 0 : f->nkernels);
			roles_json(b, r, f);
			if (!r->coverage)
				verdicts(b, r, "verdicts", f->verdicts);
			gaps_json(b, r, o, f);
			live_results(b, r, "live", f->live);
			live_results(b, r, "live_nojit", f->live_nojit);
			if (f->error)
				ws_json_kv_str(b, "error", f->error);
			if (detail < WS_DETAIL_ENTRY) {
				/* the entries' architectures, in the container's order */
				ws_json_key(b, "archs");
				ws_buf_add(b, "[", 1);
				for (uint32_t e = 0; e < f->nentries; e++) {
					ws_json_str(b, f->entries[e].name);
					ws_buf_add(b, ",", 1);
				}
				ws_json_close(b, ']');
				ws_json_close(b, '}');
				continue;
			}
			ws_json_key(b, "entries");
			ws_buf_add(b, "[", 1);
			for (uint32_t e = 0; e < f->nentries; e++)
				entry_json(b, o, &f->entries[e]);
			ws_json_close(b, ']');
			ws_json_close(b, '}');
		}
		ws_json_close(b, ']');
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
}

static void findings_errors_json(struct ws_buf *b, const struct ws_result *res)
{
	const struct ws_artifact *a = res->a;
	ws_json_key(b, "findings");
	ws_buf_add(b, "[", 1);
	for (size_t i = 0; i < res->findings.n; i++) {
		const struct ws_finding *f = &res->findings.v[i];
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "id", ws_check_def(f->id)->id);
		ws_json_kv_str(b, "check", ws_check_def(f->id)->word);
		ws_json_kv_str(b, "where", f->where);
		ws_json_kv_str(b, "what", f->what);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	ws_json_key(b, "errors");
	ws_buf_add(b, "[", 1);
	for (uint32_t i = 0; i < a->nerrors; i++) {
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "where", a->errors[i].where);
		ws_json_kv_str(b, "id", ws_check_def(ws_check_of_error(a->errors[i].code))->id);
		ws_json_kv_str(b, "code", ws_errcode_name(a->errors[i].code));
		ws_json_kv_str(b, "message", a->errors[i].message);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
}

/* The [tool.wheelscan] table that changed the gates, and the keys that did: a gate
 * whose rules came from a file says which file (absent when none did). */
static void config_json(struct ws_buf *b, const struct ws_config *cfg)
{
	if (!cfg->config_path || !cfg->config_applied[0])
		return;
	ws_json_key(b, "config");
	ws_buf_add(b, "{", 1);
	ws_json_kv_str(b, "path", cfg->config_path);
	ws_json_key(b, "applied");
	ws_buf_add(b, "[", 1);
	for (const char *k = cfg->config_applied; *k;) {
		size_t n = strcspn(k, ",");
		char key[32];
		snprintf(key, sizeof key, "%.*s", (int)n, k);
		ws_json_str(b, key);
		ws_buf_add(b, ",", 1);
		k += n;
		k += strspn(k, ", ");
	}
	ws_json_close(b, ']');
	ws_json_close(b, '}');
}

static void header_json(struct ws_buf *b, const struct ws_report *r)
{
	ws_json_kv_u64(b, "schema_version", WS_SCHEMA_VERSION);
	ws_json_kv_str(b, "tool", "wheelscan " WS_VERSION);
	ws_json_key(b, "targets");
	ws_buf_add(b, "[", 1);
	for (size_t t = 0; !r->coverage && t < r->ntargets; t++) {
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "name", r->targets[t].name);
		char cc[16];
		snprintf(cc, sizeof cc, "%u.%u", r->targets[t].cc / 10, r->targets[t].cc % 10);
		ws_json_kv_str(b, "cc", cc);
		ws_json_kv_str(b, "label", r->targets[t].label[0] ? r->targets[t].label : NULL);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	char v[32];
	ws_json_kv_str(b, "driver", r->driver_cuda ? ws_cuda_str(r->driver_cuda, v, sizeof v) : NULL);
	ws_json_kv_bool(b, "driver_assumed", r->driver_cuda == 0);
	ws_json_kv_str(b, "detail", ws_detail_name(r->cfg->detail ? r->cfg->detail : WS_DETAIL_ENTRY));
	config_json(b, r->cfg);
	if (r->live) {
		ws_json_kv_str(b, "live_note", r->live->note);
		ws_json_key(b, "devices");
		ws_buf_add(b, "[", 1);
		for (size_t d = 0; d < r->live->ndevices; d++) {
			const struct ws_device *dv = &r->live->devices[d];
			ws_buf_add(b, "{", 1);
			ws_json_kv_u64(b, "index", (uint64_t)dv->index);
			ws_json_kv_str(b, "name", dv->name);
			char cc[16];
			snprintf(cc, sizeof cc, "%d.%d", dv->cc_major, dv->cc_minor);
			ws_json_kv_str(b, "cc", cc);
			ws_json_kv_u64(b, "memory", dv->memory);
			if (dv->probe_ran) {
				ws_json_kv_bool(b, "probe_ok", dv->probe == 0);
				ws_json_kv_str(b, "probe", dv->probe_note);
			}
			ws_json_close(b, '}');
		}
		ws_json_close(b, ']');
	}
}

void ws_json_begin(struct ws_report *r)
{
	struct ws_buf b = {0};
	ws_buf_add(&b, "{", 1);
	header_json(&b, r);
	ws_json_key(&b, "artifacts");
	ws_buf_add(&b, "[\n", 2);
	if (b.p)
		fputs(b.p, r->out);
	ws_buf_free(&b);
}

void ws_json_artifact(struct ws_report *r, const struct ws_result *res)
{
	struct ws_buf b = {0};
	if (r->cfg->format == WS_FMT_JSONL) {
		/* Each line stands alone: it carries the run's header fields too. */
		ws_buf_add(&b, "{", 1);
		header_json(&b, r);
		ws_json_key(&b, "artifact");
	} else if (r->nartifacts) {
		ws_buf_add(&b, ",\n", 2);
	}
	artifact_json(&b, r, res);
	if (r->cfg->format == WS_FMT_JSONL)
		ws_buf_add(&b, "}", 1);
	ws_buf_add(&b, "\n", 1);
	if (b.failed)
		fprintf(stderr, "wheelscan: out of memory writing JSON for '%s'\n", ws_q_text(res->a->path));
	else
		fputs(b.p, r->out);
	ws_buf_free(&b);
}

static const char *env_issue_name(enum ws_env_issue_kind k)
{
	switch (k) {
	case WS_ENV_COMPANION: return "companion-for-other-torch";
	case WS_ENV_CPU_TORCH: return "cpu-only-torch";
	case WS_ENV_LOADED_VARIANT: return "loaded-variant-fails";
	}
	return "?";
}

/* "environment": the set judged as a whole, when it was (two distributions or more) */
static void env_set_json(struct ws_buf *b, const struct ws_report *r)
{
	const struct ws_envset *s = &r->env;
	if (s->n < 2 || r->coverage)
		return;
	ws_json_key(b, "environment");
	ws_buf_add(b, "{", 1);
	ws_json_key(b, "issues");
	ws_buf_add(b, "[", 1);
	for (size_t i = 0; i < s->nissues; i++) {
		const struct ws_env_issue *e = &s->issues[i];
		ws_buf_add(b, "{", 1);
		ws_json_kv_str(b, "kind", env_issue_name(e->kind));
		ws_json_kv_str(b, "package", s->pkgs[e->pkg].name);
		ws_json_kv_str(b, "target", e->target >= 0 ? r->targets[e->target].name : NULL);
		ws_json_kv_str(b, "what", e->what);
		ws_json_close(b, '}');
	}
	ws_json_close(b, ']');
	ws_json_key(b, "fix");
	ws_buf_add(b, "{", 1);
	for (size_t k = 0; k < r->ntargets; k++) {
		ws_json_key(b, r->targets[k].name);
		ws_buf_add(b, "{", 1);
		static const struct ws_cmds none;
		ws_json_command_members(b, NULL, NULL, NULL, s->fix ? &s->fix[k] : &none, s->fix_shells, s->nfix_shells);
		ws_json_kv_str(b, "note", s->fix_note ? s->fix_note[k] : NULL);
		ws_json_close(b, '}');
	}
	ws_json_close(b, '}');
	ws_json_close(b, '}');
}

void ws_json_end(struct ws_report *r)
{
	struct ws_buf b = {0};
	ws_buf_puts(&b, "],");
	ws_json_key(&b, "skipped");
	ws_buf_add(&b, "[", 1);
	for (size_t i = 0; i < r->nskipped; i++) {
		/* "path: reason", split at the last ": " */
		const char *s = r->skipped[i], *sep = NULL;
		for (const char *q = strstr(s, ": "); q; q = strstr(q + 1, ": "))
			sep = q;
		char *path = sep ? ws_strndup(s, (size_t)(sep - s)) : NULL;
		ws_buf_add(&b, "{", 1);
		ws_json_kv_str(&b, "path", path ? path : s);
		ws_json_kv_str(&b, "reason", sep ? sep + 2 : "");
		ws_json_close(&b, '}');
		free(path);
	}
	ws_json_close(&b, ']');
	ws_json_key(&b, "live_mismatches");
	ws_buf_add(&b, "[", 1);
	for (size_t i = 0; i < r->mismatches.n; i++) {
		const struct ws_finding *f = &r->mismatches.v[i];
		ws_buf_add(&b, "{", 1);
		ws_json_kv_str(&b, "path", f->artifact);
		ws_json_kv_str(&b, "where", f->where);
		ws_json_kv_str(&b, "what", f->what);
		ws_json_close(&b, '}');
	}
	ws_json_close(&b, ']');
	env_set_json(&b, r);
	ws_json_loads(&b, r);
	if (ws_report_gates(r)) {
		char line[256];
		bool passed = ws_gate_line(r, line, sizeof line);
		ws_json_key(&b, "gate");
		ws_buf_add(&b, "{", 1);
		ws_json_kv_bool(&b, "passed", passed);
		ws_json_kv_u64(&b, "artifacts", r->nartifacts);
		ws_json_kv_u64(&b, "failed", r->gate_failed);
		ws_json_kv_u64(&b, "findings", r->gate_findings);
		ws_json_kv_u64(&b, "ignored", r->gate_ignored);
		ws_json_kv_u64(&b, "errors", r->gate_errors);
		ws_json_kv_str(&b, "line", line);
		ws_json_close(&b, '}');
	}
	b.len--;
	ws_buf_puts(&b, "}\n");
	if (b.p)
		fputs(b.p, r->out);
	ws_buf_free(&b);
}
