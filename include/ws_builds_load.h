/* ws_builds_load.h - where the build table comes from (src/builds_load.c). */
#ifndef WS_BUILDS_LOAD_H
#define WS_BUILDS_LOAD_H

#include <stddef.h>

struct ws_builds;

/* The bundled table (path NULL) or the file at path. Returns 0, or -1 with err. */
int ws_builds_load(const char *path, struct ws_builds *out, char *err, size_t errlen);

#endif
