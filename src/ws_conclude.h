/* ws_conclude.h - the last stage of one artifact, the same for a scan, --report and
 * --baseline (src/conclude.c): judged for the run's targets, gated, the live check's loads
 * compared with the prediction; then its errors said and the exit status they and the
 * findings make. Two calls, because a scan judges on the pool's threads and says errors
 * on the main thread in input order; --report makes both in turn. */
#ifndef WS_CONCLUDE_H
#define WS_CONCLUDE_H

#include <stdbool.h>
#include <stddef.h>

#include "ws_cli.h"
#include "ws_report.h"

struct ws_remedy_ctx;

/* How a run concludes each of its artifacts. */
struct ws_conclude {
	const struct ws_config *cfg;   /* the gates: --require, --require-ptx, --strict, the rules */
	const struct ws_target *targets;
	size_t nt;
	bool coverage;                 /* targets are a coverage map: judged, never gated */
	int driver_cuda;               /* the driver judged for (0: new enough) */
	const struct ws_remedy_ctx *remedy;  /* the builds to name as the cure, or NULL */
	bool live;                     /* the live check ran: its loads are compared (run_live.c) */
};

/* Judges res->a, then adds to res->findings its gate findings and, with c->live, a finding
 * per disagreement of the loads measured with the prediction (counted in
 * res->live_mismatches). Out of memory judging is an error on the artifact. Any thread. */
void ws_conclude(const struct ws_conclude *c, struct ws_result *res);
/* The artifact's errors, one line each on stderr, and the exit status they make with
 * status (the run's so far): the worst of their kinds' (ws_errcode_status). */
int ws_conclude_errors(const struct ws_artifact *a, int status);
/* ws_conclude_errors, then WS_EXIT_CHECK when an artifact read without error has a finding
 * and nothing worse was found before. */
int ws_conclude_status(const struct ws_result *res, int status);

#endif
