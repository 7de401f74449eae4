/* ws_compare.h - the commands besides a plain scan: --baseline and --env. */
#ifndef WS_COMPARE_H
#define WS_COMPARE_H

#include "ws_cli.h"

/* --baseline OLD NEW: coverage compared object by object (matched by member path).
 * Returns the exit status. */
int ws_compare_command(const struct ws_config *cfg);

/* --env: the driver and device diagnosis. Returns the exit status. */
int ws_env_command(const struct ws_config *cfg);

#endif
