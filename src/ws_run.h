/* ws_run.h - one run of wheelscan over its inputs: scan (in parallel), judge,
 * gate, live-check, report in input order. */
#ifndef WS_RUN_H
#define WS_RUN_H

#include "ws_cli.h"
#include "ws_scan.h"

/* Returns the exit status: 0 ok, 1 a check failed, 3 an input was unreadable or corrupt. */
int ws_run(struct ws_config *cfg);

/* Standard input's spool (made once, before the sandbox): its descriptor, or -1 (scan_path.c). */
int ws_stdin_spool_open(void);
/* Scans one file (plain or zip) into a fresh artifact; never NULL unless out of memory. */
struct ws_artifact *ws_scan_path(const char *path, const struct ws_config *cfg,
				 const struct ws_scan_opts *so, uint64_t *progress);

#endif
