/* ws_builds_load.h - where the build table comes from (src/builds_load.c). */
#ifndef WS_BUILDS_LOAD_H
#define WS_BUILDS_LOAD_H

#include <stddef.h>

struct ws_builds;
struct ws_err;

/* The bundled table (path NULL) or the file at path. Returns 0, or -1 with err (io: the
 * file cannot be read; else ws_builds_parse's). */
int ws_builds_load(const char *path, struct ws_builds *out, struct ws_err *err);

#endif
