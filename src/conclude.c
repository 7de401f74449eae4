/* conclude.c - the last stage of one artifact (ws_conclude.h): judge, gate, the live
 * compare; then errors and the exit status. The one place a scan, --report and --baseline
 * share it, so that a stored artifact ends as the scan that stored it did. */

#include <stdint.h>
#include <stdio.h>

#include "ws_compat.h"
#include "ws_conclude.h"
#include "ws_gate.h"
#include "ws_live.h"
#include "ws_quote.h"

void ws_conclude(const struct ws_conclude *c, struct ws_result *res)
{
	struct ws_artifact *a = res->a;
	struct ws_judge_opts jo = {.driver_cuda = c->driver_cuda, .strict = c->cfg->strict, .remedy = c->remedy};
	if (ws_judge(a, c->targets, c->nt, &jo) < 0)
		ws_artifact_fail(a, a->path, WS_E_MEMORY, "out of memory judging");
	ws_gate_check(a, c->cfg, c->targets, c->coverage ? 0 : c->nt, &res->findings);
	if (c->live)
		res->live_mismatches = ws_live_compare(c->targets, c->nt, a, &res->findings);
}

int ws_conclude_errors(const struct ws_artifact *a, int status)
{
	for (uint32_t e = 0; e < a->nerrors; e++) {
		const struct ws_error *er = &a->errors[e];
		fprintf(stderr, "wheelscan: '%s': %s\n", ws_q_text(er->where), ws_q_text(er->message));
		if (ws_errcode_status(er->code) > status)
			status = ws_errcode_status(er->code);
	}
	return status;
}

int ws_conclude_status(const struct ws_result *res, int status)
{
	status = ws_conclude_errors(res->a, status);
	if (!res->a->nerrors && res->findings.n && status == 0)
		status = WS_EXIT_CHECK;
	return status;
}
