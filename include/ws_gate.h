/* ws_gate.h - CI gates over a judged artifact. */
#ifndef WS_GATE_H
#define WS_GATE_H

#include "ws_cli.h"
#include "ws_report.h"

/* Adds a finding for every failed --gpu target, unmet --require and --require-ptx. */
void ws_gate_check(const struct ws_artifact *a, const struct ws_config *cfg,
		   const struct ws_target *targets, size_t nt, int driver_cuda,
		   struct ws_findings *out);
/* The member path, or the artifact path for a plain file. */
const char *ws_object_name(const struct ws_artifact *a, const struct ws_object *o);

#endif
