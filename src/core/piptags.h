/* piptags.h - between remedy.c and piptags.c (src/core): the words of an offline download
 * that name the platforms and the interpreter a target accepts. */
#ifndef WS_PIPTAGS_H
#define WS_PIPTAGS_H

#include <stddef.h>

#include "ws_builds.h"
#include "ws_command.h"

/* Appends --platform TAG for every tag the set's wheels (or, under --python, the
 * interpreter) accept on platform. */
void ws_pip_platform_words(struct ws_cmd *c, const struct ws_build *const *set, size_t n, const char *platform,
			   const struct ws_remedy_ctx *ctx);
/* Appends --python-version, --implementation and every --abi the interpreter accepts. */
void ws_pip_python_words(struct ws_cmd *c, const struct ws_remedy_ctx *ctx);

#endif
