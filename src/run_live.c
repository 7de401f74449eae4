/* run_live.c - the live check inside a run: started before any thread (the CUDA driver's
 * worker is forked then), called by the scanner with each container's bytes to load them
 * on the targets' devices within --live-budget, and compared with the predicted verdicts
 * once an artifact is judged. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ws_zipstream.h"
#include "run_state.h"

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One load within what is left of the budget: the per-load limit, or less when less is
 * left; a load cut short by the budget, or not started, is WS_LIVE_BUDGET, not a timeout. */
static int live_load_budgeted(struct runner *R, int dev, const uint8_t *p, size_t n, bool nojit)
{
	long long left = R->live_budget_ms - R->live_spent_ms;
	if (left <= 0)
		return WS_LIVE_BUDGET;
	bool cut = left < (long long)R->live_load_ms;
	ws_live_set_timeout(R->live, cut ? (unsigned)left : R->live_load_ms);
	long long t0 = mono_ms();
	int r = ws_live_load(R->live, dev, p, n, nojit);
	R->live_spent_ms += mono_ms() - t0;
	return r == WS_LIVE_TIMEOUT && cut ? WS_LIVE_BUDGET : r;
}

void ws_run_live_container(void *ctx, struct ws_object *o, struct ws_fatbin *f, const uint8_t *p, size_t n)
{
	struct runner *R = ((struct live_ctx *)ctx)->R;
	(void)o;
	f->live = ws_calloc(R->nt, sizeof *f->live);
	if (R->cfg->live_nojit)
		f->live_nojit = ws_calloc(R->nt, sizeof *f->live_nojit);
	if (!f->live)
		return;
	for (size_t t = 0; t < R->nt; t++) {
		f->live[t] = WS_LIVE_NOT_RUN;
		if (f->live_nojit)
			f->live_nojit[t] = WS_LIVE_NOT_RUN;
	}
	char sha[65];
	if (ws_sha256_mem(p, n, sha, NULL) < 0)
		sha[0] = '\0';
	pthread_mutex_lock(&R->live_mu);
	/* the same bytes were loaded before (a library vendored twice, a container repeated):
	 * their results stand, and a hanging container costs its timeout once */
	for (size_t i = 0; sha[0] && i < R->nseen; i++)
		if (!strcmp(R->seen[i].sha256, sha)) {
			memcpy(f->live, R->seen[i].live, R->nt * sizeof *f->live);
			if (f->live_nojit && R->seen[i].live_nojit)
				memcpy(f->live_nojit, R->seen[i].live_nojit, R->nt * sizeof *f->live_nojit);
			pthread_mutex_unlock(&R->live_mu);
			return;
		}
	for (size_t t = 0; t < R->nt; t++) {
		int dev = R->live_info.target_device ? R->live_info.target_device[t] : -1;
		if (dev < 0)
			continue;
		/* Whether the container is relocatable (__nv_relfatbin) is known only once the
		 * section table is read, which a stream brings last: load every container here,
		 * and set the relocatable ones aside when comparing. */
		f->live[t] = live_load_budgeted(R, dev, p, n, false);
		if (f->live_nojit && ws_live_has_nojit(R->live))
			f->live_nojit[t] = live_load_budgeted(R, dev, p, n, true);
	}
	if (sha[0] && R->nseen < UINT32_MAX - 1 &&
	    ws_grow((void **)&R->seen, &R->seen_cap, (uint32_t)R->nseen + 1, sizeof *R->seen)) {
		struct live_seen *s = &R->seen[R->nseen];
		memcpy(s->sha256, sha, sizeof sha);
		s->live = ws_calloc(R->nt, sizeof *s->live);
		s->live_nojit = f->live_nojit ? ws_calloc(R->nt, sizeof *s->live_nojit) : NULL;
		if (s->live && (!f->live_nojit || s->live_nojit)) {
			memcpy(s->live, f->live, R->nt * sizeof *s->live);
			if (s->live_nojit)
				memcpy(s->live_nojit, f->live_nojit, R->nt * sizeof *s->live_nojit);
			R->nseen++;
		} else {
			free(s->live);
			free(s->live_nojit);
		}
	}
	pthread_mutex_unlock(&R->live_mu);
}

/* Prediction vs measurement for one container and target; true on disagreement. */
static bool live_disagrees(enum ws_verdict v, int live, bool nojit)
{
	if (live < 0 || v == WS_V_NONE)
		return false;                    /* not run, skipped, crash, timeout; or nothing to run */
	bool predicted_ok = nojit ? (v == WS_V_NATIVE || v == WS_V_COMPATIBLE)
				  : (v == WS_V_NATIVE || v == WS_V_COMPATIBLE || v == WS_V_JIT);
	return predicted_ok != (live == 0);
}

size_t ws_live_compare(const struct ws_target *targets, size_t nt, struct ws_artifact *a, struct ws_findings *fs)
{
	size_t mismatches = 0;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		for (uint32_t k = 0; k < o->nfatbins; k++) {
			struct ws_fatbin *f = &o->fatbins[k];
			if (!f->live || !f->verdicts)
				continue;
			if (f->role == WS_ROLE_LINK_INPUT) {  /* not loadable alone, not compared */
				for (size_t t = 0; t < nt; t++) {
					if (f->live[t] != WS_LIVE_NOT_RUN)
						f->live[t] = WS_LIVE_SKIPPED;
					if (f->live_nojit && f->live_nojit[t] != WS_LIVE_NOT_RUN)
						f->live_nojit[t] = WS_LIVE_SKIPPED;
				}
				continue;
			}
			for (size_t t = 0; t < nt; t++) {
				for (int pass = 0; pass < 2; pass++) {
					const int *lv = pass ? f->live_nojit : f->live;
					if (!lv || !live_disagrees(f->verdicts[t], lv[t], pass))
						continue;
					char where[1024];
					snprintf(where, sizeof where, "%s [%s @0x%llx]", ws_object_name(a, o), f->section,
						 (unsigned long long)f->offset);
					mismatches += ws_findings_add(fs, WS_CHECK_LIVE_MISMATCH, where,
								      "predicted %s on %s, driver%s says %s",
								      ws_verdict_name(f->verdicts[t]), targets[t].name,
								      pass ? " without JIT" : "", ws_curesult_name(lv[t]));
				}
			}
		}
	}
	/* A load that did not answer (timeout, crash, the budget spent) confirms nothing: per
	 * target, one finding says so, and the run fails as a check that could not pass. */
	for (size_t t = 0; t < nt; t++) {
		unsigned judged = 0, timeout = 0, crash = 0, budget = 0;
		const char *first = NULL;
		for (uint32_t i = 0; i < a->nobjects; i++) {
			const struct ws_object *o = &a->objects[i];
			for (uint32_t k = 0; k < o->nfatbins; k++) {
				const struct ws_fatbin *f = &o->fatbins[k];
				if (!f->live || !f->verdicts || f->role == WS_ROLE_LINK_INPUT || f->verdicts[t] == WS_V_NONE ||
				    f->live[t] == WS_LIVE_NOT_RUN)
					continue;
				judged++;
				bool miss = false;
				for (int pass = 0; pass < 2; pass++) {
					const int *lv = pass ? f->live_nojit : f->live;
					if (!lv)
						continue;
					timeout += lv[t] == WS_LIVE_TIMEOUT;
					crash += lv[t] == WS_LIVE_CRASH;
					budget += lv[t] == WS_LIVE_BUDGET;
					miss |= lv[t] == WS_LIVE_TIMEOUT || lv[t] == WS_LIVE_CRASH || lv[t] == WS_LIVE_BUDGET;
				}
				if (miss && !first)
					first = ws_object_name(a, o);
			}
		}
		if (!first)
			continue;
		char how[96];
		snprintf(how, sizeof how, "%s%s%s%s%s", timeout ? "timeout" : "", timeout && (crash || budget) ? ", " : "",
			 crash ? "crash" : "", crash && budget ? ", " : "", budget ? "--live-budget spent" : "");
		ws_findings_add(fs, WS_CHECK_LIVE_UNCONFIRMED, first, "%s: not measured (%s) for %u load%s of %u container%s: "
				"the live check did not confirm the prediction", targets[t].name, how,
				timeout + crash + budget, timeout + crash + budget == 1 ? "" : "s", judged, judged == 1 ? "" : "s");
	}
	return mismatches;
}

/* --live with no driver, or with no device of any target: nothing can be measured (said
 * once here), and the run never passes. */
bool ws_run_live_measures_nothing(const struct runner *R)
{
	if (!R->cfg->live)
		return false;
	if (!R->live)
		return true;
	bool none = true;
	for (size_t t = 0; R->live_info.target_device && t < R->nt; t++)
		none &= R->live_info.target_device[t] < 0;
	if (none)
		fprintf(stderr, "wheelscan: --live: the CUDA driver found no device of the GPUs named; nothing can "
			"be measured, so the prediction is not checked\n");
	return none;
}

/* Opens the driver. With --gpu auto, or no --gpu at all (bare), the devices it finds join
 * the named targets, and its CUDA version becomes the --driver. A bare run without a driver
 * says nothing here (the report shows a coverage map instead); --gpu auto says it once. */
void ws_run_start_live(struct runner *R, bool bare, struct ws_target **owned, size_t *nowned)
{
	static char note[512];
	struct ws_config *cfg = R->cfg;
	R->live_info.tried = true;
	unsigned flags = WS_LIVE_PROBE | (cfg->live_nojit ? WS_LIVE_NOJIT_PASS : 0);
	R->live = ws_live_open(flags, note, sizeof note);
	if (!R->live) {
		R->live_info.note = note;
		if (cfg->live)
			fprintf(stderr, "wheelscan: --live: %s; nothing can be measured, so the prediction is not checked\n",
				note);
		else if (!bare)
			fprintf(stderr, "wheelscan: %s; %s\n", note, cfg->gpu_auto && !cfg->ntargets ?
				"no GPU to judge" : "printing the prediction only");
		return;
	}
	R->live_load_ms = ws_live_timeout(R->live);
	R->live_budget_ms = (long long)(cfg->live_budget_s ? cfg->live_budget_s : WS_LIVE_DEFAULT_BUDGET_S) * 1000;
	R->live_info.driver_cuda = ws_live_driver_version(R->live);
	R->live_info.ndevices = ws_live_devices(R->live, &R->live_info.devices);
	if (cfg->gpu_auto && R->live_info.ndevices == 0)
		fprintf(stderr, "wheelscan: --gpu auto: the CUDA driver found no device\n");
	if (cfg->gpu_auto || bare) {
		/* The named targets, then the devices not named already. */
		size_t cap = cfg->ntargets + R->live_info.ndevices;
		struct ws_target *t = ws_calloc(cap ? cap : 1, sizeof *t);
		size_t n = 0;
		for (size_t k = 0; t && k < cfg->ntargets; k++)
			t[n++] = cfg->targets[k];
		for (size_t d = 0; t && d < R->live_info.ndevices; d++) {
			const struct ws_device *dev = &R->live_info.devices[d];
			unsigned cc = (unsigned)(dev->cc_major * 10 + dev->cc_minor);
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				dup |= t[k].cc == cc;
			if (dup)
				continue;
			ws_target_set(&t[n++], cc, dev->name);
		}
		*owned = t;
		*nowned = n;
		R->targets = t;
		R->nt = n;
		if (!cfg->driver_given)
			R->driver_cuda = R->live_info.driver_cuda;
	}
	R->live_info.target_device = ws_calloc(R->nt ? R->nt : 1, sizeof(int));
	for (size_t t = 0; R->live_info.target_device && t < R->nt; t++) {
		R->live_info.target_device[t] = -1;
		for (size_t d = 0; d < R->live_info.ndevices; d++) {
			const struct ws_device *dev = &R->live_info.devices[d];
			if ((unsigned)(dev->cc_major * 10 + dev->cc_minor) == R->targets[t].cc) {
				R->live_info.target_device[t] = (int)d;
				break;
			}
		}
	}
}
