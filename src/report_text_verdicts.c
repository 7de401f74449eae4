/* report_text_verdicts.c - the text report's verdict lines: per target, whether the
 * artifact runs (natively, by compatible SASS, by JIT) or will not, why and the fix, the
 * groups of alternatives, the remedy from the build table; and the coverage map's ranges
 * of compute capabilities when no GPU was named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_text.h"
#include "ws_builds.h"

/* A coverage map in lines: which compute capabilities of the GPU table run, need JIT, or
 * will not run, and what a GPU newer than all of them gets. */
void ws_text_coverage_lines(struct ws_report *r, const enum ws_verdict *v, const struct ws_judgement *newer,
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
	/* the commands are rendered here, for the shell of the platform they are for */
	if (!ws_cmd_empty(&m->install)) {
		if (m->nshells && m->shells[0] != WS_SHELL_SH)
			fprintf(r->out, "     for %s%s%s%s:\n", ws_shell_title(m->shells[0]), m->nshells > 1 ? " (--json: also " : "",
				m->nshells > 1 ? ws_shell_title(m->shells[1]) : "", m->nshells > 1 ? ")" : "");
		ws_text_command_lines(r->out, "       ", "", &m->install, NULL, m->shells, m->nshells);
	}
	if (!ws_cmd_empty(&m->download)) {
		ws_text_command_lines(r->out, "     ", "offline: ", &m->download, NULL, m->shells, m->nshells);
		ws_text_command_lines(r->out, "       ", "then: ", &m->offline, NULL, m->shells, m->nshells);
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

/* " (sm_86 serves sm_89)": the older SASS of the target's major that the driver loads, as
 * the judgement found them */
static void compatible_from(struct ws_report *r, const struct ws_judgement *j, const struct ws_target *tg)
{
	if (!j->compatible_hi[0])
		return;
	if (!strcmp(j->compatible_lo, j->compatible_hi))
		fprintf(r->out, " (%s serves sm_%u)", j->compatible_hi, (unsigned)tg->cc);
	else
		fprintf(r->out, " (%s to %s serve sm_%u)", j->compatible_lo, j->compatible_hi, (unsigned)tg->cc);
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

void ws_text_verdicts(struct ws_report *r, const struct ws_artifact *a)
{
	if (!a->verdicts)
		return;
	if (r->coverage) {
		/* the map words the main code's verdicts, as the verdict lines do; what is weaker
		 * elsewhere is named per compute capability */
		ws_text_coverage_lines(r, a->headline ? a->headline : a->verdicts, &a->judged[r->ntargets - 1], "  ");
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
			if (j->remedy)                 /* a CPU-only build: its CUDA build (remedy.c) */
				remedy_lines(r, j->remedy);
			continue;
		case WS_V_NATIVE:
			fprintf(r->out, "%sruns%s: native SASS", col(r, GREEN), col(r, RESET));
			break;
		case WS_V_COMPATIBLE:
			fprintf(r->out, "%sruns%s: compatible SASS", col(r, GREEN), col(r, RESET));
			compatible_from(r, j, tg);
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
