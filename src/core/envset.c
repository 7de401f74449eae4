/* envset.c - an environment, or a set of wheels given together, judged as a whole
 * (ws_envset.h). Each distribution leaves a few facts once its artifact is reported (the
 * artifact itself is freed: memory stays small over any number of packages); at the end the
 * facts are judged together:
 *  - a torchvision, torchaudio or xformers built for another torch than the one present
 *    fails to load its extension ("operator torchvision::nms does not exist", undefined
 *    symbols) before any kernel matters;
 *  - a CPU-only torch beside packages with GPU code fails every CUDA call with "Torch not
 *    compiled with CUDA enabled" (PyPI's Windows torch is CPU-only);
 *  - bitsandbytes loads the one library of torch's CUDA version (libbitsandbytes_cudaXYZ,
 *    chosen from torch.version.cuda), not whichever of its libraries runs;
 * and the remedies of what breaks become one command per target. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ws_builds.h"
#include "ws_compat.h"
#include "ws_envset.h"

static enum ws_verdict *copy_verdicts(const enum ws_verdict *v, size_t nt)
{
	enum ws_verdict *c;
	if (!v || !nt || !(c = ws_calloc(nt, sizeof *c)))
		return NULL;
	memcpy(c, v, nt * sizeof *c);
	return c;
}

static bool is_bnb_library(const char *pattern)
{
	return pattern && strstr(pattern, "libbitsandbytes_cuda") != NULL;
}

int ws_envset_add(struct ws_envset *s, const struct ws_artifact *a, size_t ntargets)
{
	const struct ws_wheel_info *w = a ? a->wheel : NULL;
	struct ws_env_pkg *p;
	const char *name, *version, *plus;
	bool major_only;

	if (!w || (a->type != WS_ART_INSTALLED && a->type != WS_ART_WHEEL))
		return 0;
	name = w->meta_name ? w->meta_name : w->name;
	version = w->meta_version ? w->meta_version : w->version;
	if (!name || !version)
		return 0;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		struct ws_env_pkg *np = ws_reallocarray(s->pkgs, ncap, sizeof *np);
		if (!np)
			return -1;
		s->pkgs = np;
		s->cap = ncap;
	}
	p = &s->pkgs[s->n];
	memset(p, 0, sizeof *p);
	s->ntargets = ntargets;
	plus = strchr(version, '+');
	if (!(p->name = ws_strdup(name)) ||
	    !(p->version = plus ? ws_strndup(version, (size_t)(plus - version)) : ws_strdup(version)))
		goto nomem;
	if ((plus && !(p->local = ws_strdup(plus + 1))) || (!plus && w->local && !(p->local = ws_strdup(w->local))))
		goto nomem;
	if (w->requires_torch && !(p->requires_torch = ws_strdup(w->requires_torch)))
		goto nomem;
	p->cuda = w->requires_cuda_runtime ? w->requires_cuda_runtime : p->local ? ws_cuda_tag_parse(p->local, &major_only) : 0;
	for (uint32_t i = 0; i < a->nobjects; i++)
		p->has_code |= a->objects[i].nfatbins != 0;
	p->wheel = a->type == WS_ART_WHEEL;
	if (!(p->path = ws_strdup(a->path)))
		goto nomem;
	p->verdicts = copy_verdicts(a->verdicts, ntargets);
	for (uint32_t g = 0; g < a->nalts; g++) {
		const struct ws_altgroup *ag = &a->alts[g];
		if (!is_bnb_library(ag->pattern) || p->variants)
			continue;
		if (!(p->variants = ws_calloc(ag->n ? ag->n : 1, sizeof *p->variants)))
			goto nomem;
		for (uint32_t k = 0; k < ag->n; k++) {
			const struct ws_object *o = &a->objects[ag->objects[k]];
			struct ws_env_variant *v = &p->variants[p->nvariants++];
			v->cuda = o->alt_cuda;
			v->member = ws_strdup(o->member ? o->member : "?");
			v->verdicts = copy_verdicts(o->verdicts, ntargets);
			if (!v->member)
				goto nomem;
		}
	}
	s->n++;
	return 0;
nomem:
	s->n++;                  /* freed with the set */
	return -1;
}

void ws_envset_take_libs(struct ws_envset *s, struct ws_artifact *a)
{
	/* the last added distribution is a's: ws_envset_add keeps only wheels and installed ones */
	if (!a || !a->nlibs || !s->n || (a->type != WS_ART_INSTALLED && a->type != WS_ART_WHEEL) ||
	    !s->pkgs[s->n - 1].path || strcmp(s->pkgs[s->n - 1].path, a->path) != 0 || s->pkgs[s->n - 1].libs)
		return;
	s->pkgs[s->n - 1].libs = a->libs;
	s->pkgs[s->n - 1].nlibs = a->nlibs;
	a->libs = NULL;
	a->nlibs = 0;
}

int ws_envset_judge_loads(struct ws_envset *s, const struct ws_remedy_ctx *ctx)
{
	struct ws_load_dist *d = ws_calloc(s->n ? s->n : 1, sizeof *d);
	if (!d)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		d[i] = (struct ws_load_dist){s->pkgs[i].name, s->pkgs[i].version, s->pkgs[i].wheel, s->pkgs[i].libs,
					     s->pkgs[i].nlibs};
	int rc = ws_loadres_judge(d, s->n, &s->load);
	free(d);
	s->load_judged = true;
	if (rc == 0 && s->load.ninstall) {
		/* an argument vector, rendered for the first shell of the platform that can carry
		 * it (ws_command.h): the interpreter's path is a word like any other */
		struct ws_cmd cmd = {0};
		struct ws_buf text = {0};
		enum ws_shell shells[WS_SHELLS], used;
		size_t nshells = ws_shells_for(ctx ? ctx->platform : NULL, ctx && ctx->windows_host, shells);
		if (ctx && ctx->python_exe) {
			ws_cmd_add(&cmd, ctx->python_exe);
			ws_cmd_add(&cmd, "-m");
		}
		ws_cmd_add(&cmd, "pip");
		ws_cmd_add(&cmd, "install");
		for (size_t i = 0; i < s->load.ninstall; i++)
			ws_cmd_add(&cmd, s->load.install[i]);
		if (cmd.failed)
			rc = -1;
		else if (ws_cmd_render_first(&text, &cmd, shells, nshells, &used, NULL) &&
			 (text.failed || !(s->load_fix = ws_strdup(text.p))))
			rc = -1;
		ws_cmd_free(&cmd);
		ws_buf_free(&text);
	}
	return rc;
}

static struct ws_env_pkg *find(struct ws_envset *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcasecmp(s->pkgs[i].name, name))
			return &s->pkgs[i];
	return NULL;
}

__attribute__((format(printf, 4, 5)))
static int add_issue(struct ws_envset *s, enum ws_env_issue_kind kind, size_t pkg, const char *fmt, ...);

static int add_issue_t(struct ws_envset *s, enum ws_env_issue_kind kind, size_t pkg, int target, const char *what)
{
	struct ws_env_issue *ni = ws_reallocarray(s->issues, s->nissues + 1, sizeof *ni);
	if (!ni)
		return -1;
	s->issues = ni;
	ni[s->nissues] = (struct ws_env_issue){.kind = kind, .pkg = pkg, .target = target, .what = ws_strdup(what)};
	if (!ni[s->nissues].what)
		return -1;
	s->nissues++;
	return 0;
}

static int add_issue(struct ws_envset *s, enum ws_env_issue_kind kind, size_t pkg, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return add_issue_t(s, kind, pkg, -1, buf);
}

static bool fails(const struct ws_env_pkg *p, size_t k)
{
	return p->verdicts && ws_verdict_fails(p->verdicts[k]);
}

/* Package names as pip compares them (PEP 503: case and runs of - _ . do not matter). */
static int name_cmp(const char *a, const char *b)
{
	return ws_pypi_name_cmp(a, strlen(a), b, strlen(b));
}

static _Thread_local const struct ws_envset *sort_set;   /* qsort has no context argument in C11 */

static int by_name(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = name_cmp(sort_set->pkgs[i].name, sort_set->pkgs[j].name);
	return c ? c : (i > j) - (i < j);     /* the scan's order within a package */
}

/* "pip", or the --python interpreter with "-m pip" */
static void pip_words(struct ws_cmd *c, const char *exe)
{
	ws_cmd_add(c, exe ? exe : "pip");
	if (exe) {
		ws_cmd_add(c, "-m");
		ws_cmd_add(c, "pip");
	}
}

static const struct ws_env_variant *variant_of(const struct ws_env_pkg *p, int cuda)
{
	for (size_t i = 0; i < p->nvariants; i++)
		if (p->variants[i].cuda == cuda)
			return &p->variants[i];
	return NULL;
}

/* What the issues say of each distribution on target k, in one pass over them. */
enum { LOADS_WRONG = 1, MISMATCHED = 2 };

/* The commands that fix the set on target k: the torch family's remedy when torch must
 * change, then one per other package that fails there (all its wheels at once: a mirror
 * holds thousands of one package), each distinct command once. order: the distributions
 * grouped by package name. */
static int fix_for(struct ws_envset *s, size_t k, const struct ws_target *t, const struct ws_remedy_ctx *ctx,
		   bool torch_must_change, const size_t *order, unsigned char *flags)
{
	struct ws_buf note = {0};
	struct ws_cmds *cmd = &s->fix[k];
	struct ws_env_pkg *torch = find(s, "torch");
	struct ws_remedy *rt = NULL;
	int rc = 0;

	memset(flags, 0, s->n);
	for (size_t q = 0; q < s->nissues; q++) {
		if (s->issues[q].kind == WS_ENV_LOADED_VARIANT && s->issues[q].target == (int)k)
			flags[s->issues[q].pkg] |= LOADS_WRONG;
		if (s->issues[q].kind == WS_ENV_COMPANION)
			flags[s->issues[q].pkg] |= MISMATCHED;
	}
	if (torch && torch_must_change) {
		rt = ws_remedy_choose("torch", t, ctx);
		if (rt && !ws_cmd_empty(&rt->install))
			ws_cmds_add(cmd, &rt->install);
		else if (rt)
			ws_buf_puts(&note, rt->summary);
	}
	for (size_t g = 0, end; g < s->n; g = end) {
		/* one package: order[g .. end) */
		const struct ws_env_pkg *first = &s->pkgs[order[g]], *p = NULL, *have = NULL;
		unsigned char why = 0;
		size_t acting = 0;
		for (end = g; end < s->n && !name_cmp(s->pkgs[order[end]].name, first->name); end++) {
			const struct ws_env_pkg *q = &s->pkgs[order[end]];
			if (fails(q, k) || flags[order[end]]) {
				p = p ? p : q;
				why |= flags[order[end]];
				acting++;
			} else if (q->wheel && q->verdicts && q->verdicts[k] != WS_V_NONE &&
				   (!have || ws_version_cmp(q->version, have->version) > 0)) {
				have = q;             /* a wheel of it in this scan that runs here */
			}
		}
		if (!p || (ws_pypi_torch_family(p->name) && rt))
			continue;                          /* nothing fails; or the torch remedy brings them */
		if ((why & MISMATCHED) && !rt && torch) {
			/* keep the torch that runs: the companion made for it */
			struct ws_remedy *rc_ = ws_remedy_companion(p->name, torch->version, torch->local, t, ctx);
			if (rc_ && !ws_cmd_empty(&rc_->install))
				ws_cmds_add(cmd, &rc_->install);
			else
				ws_buf_printf(&note, "%sthe build table has no %s made for torch %s", note.len ? "; " : "",
					      p->name, torch->version);
			ws_remedy_free(rc_);
			continue;
		}
		if ((why & LOADS_WRONG) && rt) {
			/* bitsandbytes follows torch: does the new torch's CUDA pick a library that runs? */
			const struct ws_env_variant *v = variant_of(p, rt->cuda);
			if (v && v->verdicts && !ws_verdict_fails(v->verdicts[k]))
				continue;
		}
		if (have && p->wheel && ws_version_cmp(have->version, p->version)) {
			struct ws_cmd c = {0};
			pip_words(&c, ctx->python_exe);
			ws_cmd_add(&c, "install");
			ws_cmd_add_path(&c, have->path);
			ws_cmds_add(cmd, &c);
			ws_cmd_free(&c);
			ws_buf_printf(&note, "%s%s %s, in this %s too, runs there: install that one instead of %s", note.len ? "; " : "",
				      have->name, have->version, s->from_store ? "store" : "scan", p->version);
			if (acting > 1)
				ws_buf_printf(&note, " and %zu other%s", acting - 1, acting == 2 ? "" : "s");
			if (s->from_store && have->path[0] != '/')
				ws_buf_puts(&note, " (the store keeps paths relative to the folder its scan started in: run it there)");
			continue;
		}
		struct ws_remedy *rp = ws_remedy_choose(p->name, t, ctx);
		if (rp && !ws_cmd_empty(&rp->install))
			ws_cmds_add(cmd, &rp->install);
		else if (rp)
			ws_buf_printf(&note, "%s%s", note.len ? "; " : "", rp->summary);
		else
			ws_buf_printf(&note, "%sthe build table has no build of %s", note.len ? "; " : "", p->name);
		ws_remedy_free(rp);
	}
	ws_remedy_free(rt);
	/* a note alone (no issue of the set, nothing to run) repeats the artifacts' own advice */
	bool issue = false;
	for (size_t q = 0; q < s->nissues; q++)
		issue |= s->issues[q].target < 0 || s->issues[q].target == (int)k;
	if (cmd->failed || note.failed)
		rc = -1;
	else if (!cmd->n && !issue)
		ws_buf_free(&note);
	else if (note.len && !(s->fix_note[k] = ws_strdup(note.p)))
		rc = -1;
	ws_buf_free(&note);
	return rc;
}

int ws_envset_judge(struct ws_envset *s, const struct ws_target *t, size_t nt, const struct ws_remedy_ctx *ctx)
{
	struct ws_env_pkg *torch;
	char c1[16];
	size_t with_code = 0;

	if (s->n < 2 || nt != s->ntargets)
		return 0;
	torch = find(s, "torch");
	for (size_t i = 0; i < s->n; i++)
		with_code += s->pkgs[i].has_code && &s->pkgs[i] != torch;
	if (torch) {
		/* companions built for another torch */
		for (size_t i = 0; i < s->n; i++) {
			const struct ws_env_pkg *p = &s->pkgs[i];
			if (!p->requires_torch || ws_version_cmp(p->requires_torch, torch->version) == 0)
				continue;
			if (add_issue(s, WS_ENV_COMPANION, i, "%s %s is built for torch %s, but torch %s is here: its "
				      "extension will not load (\"operator torchvision::nms does not exist\", or undefined "
				      "symbols) whatever the GPU", p->name, p->version, p->requires_torch, torch->version) < 0)
				return -1;
		}
		/* a torch without CUDA beside GPU code */
		bool cpu = (torch->local && !strcasecmp(torch->local, "cpu")) || (!torch->has_code && !torch->cuda);
		if (cpu && with_code &&
		    add_issue(s, WS_ENV_CPU_TORCH, (size_t)(torch - s->pkgs), "torch %s%s%s is a CPU-only build: every "
			      "CUDA call fails with \"Torch not compiled with CUDA enabled\" before any of the %zu "
			      "package%s with GPU code can run", torch->version, torch->local ? "+" : "",
			      torch->local ? torch->local : "", with_code, with_code == 1 ? "" : "s") < 0)
			return -1;
		/* libraries chosen by torch's CUDA version */
		for (size_t i = 0; i < s->n && torch->cuda; i++) {
			const struct ws_env_pkg *p = &s->pkgs[i];
			const struct ws_env_variant *v;
			if (!p->nvariants)
				continue;
			if (!(v = variant_of(p, torch->cuda))) {
				if (add_issue(s, WS_ENV_LOADED_VARIANT, i, "%s %s has no library for torch's CUDA %s: it "
					      "will not find one to load", p->name, p->version,
					      ws_cuda_str(torch->cuda, c1, sizeof c1)) < 0)
					return -1;
				continue;
			}
			for (size_t k = 0; k < nt; k++) {
				char buf[1024];
				const struct ws_env_variant *good = NULL;
				if (!v->verdicts || !ws_verdict_fails(v->verdicts[k]))
					continue;
				for (size_t j = 0; j < p->nvariants; j++)
					if (p->variants[j].verdicts && !ws_verdict_fails(p->variants[j].verdicts[k]) &&
					    (!good || p->variants[j].cuda > good->cuda))
						good = &p->variants[j];
				snprintf(buf, sizeof buf, "%s %s loads %s, the library of torch's CUDA %s, which will NOT run "
					 "on %s%s%s%s", p->name, p->version, v->member, ws_cuda_str(torch->cuda, c1, sizeof c1),
					 t[k].name, good ? "; its " : "", good ? good->member : "",
					 good ? " would, beside a torch of that CUDA" : "");
				if (add_issue_t(s, WS_ENV_LOADED_VARIANT, i, (int)k, buf) < 0)
					return -1;
			}
		}
	}
	if (!ctx || !ctx->builds)
		return 0;
	if (!(s->fix = ws_calloc(nt ? nt : 1, sizeof *s->fix)) || !(s->fix_note = ws_calloc(nt ? nt : 1, sizeof *s->fix_note)))
		return -1;
	s->nfix_shells = ws_shells_for(ctx->platform ? ctx->platform : "linux_x86_64", ctx->windows_host, s->fix_shells);
	size_t *order = ws_calloc(s->n, sizeof *order);
	unsigned char *flags = ws_calloc(s->n, 1);
	if (!order || !flags) {
		free(order);
		free(flags);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	sort_set = s;
	qsort(order, s->n, sizeof *order, by_name);
	sort_set = NULL;
	int rc = 0;
	for (size_t k = 0; k < nt && rc == 0; k++) {
		/* every issue is fixed by another torch build with what goes with it, except a
		 * companion made for another torch beside a torch that runs: that companion */
		bool torch_change = false, any = false;
		for (size_t q = 0; q < s->nissues; q++)
			if (s->issues[q].target < 0 || s->issues[q].target == (int)k) {
				any = true;
				torch_change |= s->issues[q].kind != WS_ENV_COMPANION;
			}
		for (size_t i = 0; i < s->n; i++)
			if (fails(&s->pkgs[i], k)) {
				any = true;
				torch_change |= ws_pypi_torch_family(s->pkgs[i].name);
			}
		if (any && fix_for(s, k, &t[k], ctx, torch_change && torch, order, flags) < 0)
			rc = -1;
	}
	free(order);
	free(flags);
	return rc;
}

void ws_envset_free(struct ws_envset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct ws_env_pkg *p = &s->pkgs[i];
		free(p->name);
		free(p->version);
		free(p->local);
		free(p->requires_torch);
		free(p->path);
		free(p->verdicts);
		for (size_t j = 0; j < p->nvariants; j++) {
			free(p->variants[j].member);
			free(p->variants[j].verdicts);
		}
		free(p->variants);
		for (uint32_t j = 0; j < p->nlibs; j++)
			ws_dynlib_clear(&p->libs[j]);
		free(p->libs);
	}
	ws_loadres_free(&s->load);
	free(s->load_fix);
	for (size_t i = 0; i < s->nissues; i++)
		free(s->issues[i].what);
	for (size_t k = 0; s->fix && k < s->ntargets; k++)
		ws_cmds_free(&s->fix[k]);
	for (size_t k = 0; s->fix_note && k < s->ntargets; k++)
		free(s->fix_note[k]);
	free(s->fix);
	free(s->fix_note);
	free(s->issues);
	free(s->pkgs);
	memset(s, 0, sizeof *s);
}
