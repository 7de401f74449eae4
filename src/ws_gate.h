/* ws_gate.h - CI gates over a judged artifact. */
#ifndef WS_GATE_H
#define WS_GATE_H

#include "ws_cli.h"
#include "ws_report.h"

/* Adds a finding for every object that fails a --gpu target (an alternative only when no
 * variant of its group runs), every unmet --require and --require-ptx. The artifact must
 * have been through ws_judge (with nt == 0 when only --require is asked). */
void ws_gate_check(const struct ws_artifact *a, const struct ws_config *cfg,
		   const struct ws_target *targets, size_t nt, struct ws_findings *out);
/* The member path, or the artifact path for a plain file. */
const char *ws_object_name(const struct ws_artifact *a, const struct ws_object *o);

#endif
