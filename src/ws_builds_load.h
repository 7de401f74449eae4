/* ws_builds_load.h - where the build table comes from (src/builds_load.c). */
#ifndef WS_BUILDS_LOAD_H
#define WS_BUILDS_LOAD_H

#include <stddef.h>

struct ws_builds;
struct ws_err;

/* The bundled table (path NULL) or the file at path. Returns 0, or -1 with err (io: the
 * file cannot be read; else ws_builds_parse's). */
int ws_builds_load(const char *path, struct ws_builds *out, struct ws_err *err);

struct ws_config;
struct ws_remedy_ctx;
/* Loads the build table of cfg (--builds, else the bundled one) into b and fills ctx for
 * choosing remedies. Returns 0 (also when the bundled table fails: no remedies, said on
 * stderr), or -1 when --builds names a table that cannot be read. */
int ws_remedy_setup(struct ws_builds *b, struct ws_remedy_ctx *ctx, const struct ws_config *cfg);

#endif
