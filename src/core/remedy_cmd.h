/* remedy_cmd.h - between remedy.c and remedy_cmd.c (src/core): the commands that install a
 * chosen set of builds, online and offline, as argument vectors. */
#ifndef WS_REMEDY_CMD_H
#define WS_REMEDY_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "ws_builds.h"

/* Whether index is a release page (GitHub's .../releases/tag/V): no package index. */
bool ws_remedy_release_page(const char *index);
/* Fills r's install, download and offline commands (and its shells) for set[0..n), the
 * chosen build first. A failure to allocate marks the command failed. */
void ws_remedy_commands(struct ws_remedy *r, const struct ws_build *const *set, size_t n,
			const struct ws_remedy_ctx *ctx);

#endif
