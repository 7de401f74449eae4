/* ws_jsonread.h - the bounded strict JSON reader (src/core/jsonread.c) that the readers of
 * package metadata share: conda-meta records and paths.json (condameta.c), container
 * image manifests and indexes (imagemeta.c). A reader walks the values it wants with
 * ws_jp_object / ws_jp_array and steps over the rest with ws_jp_skip_value. */
#ifndef WS_JSONREAD_H
#define WS_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ws_jp {
	const char *start, *p, *end;
	char err[128];                 /* the first failure: "what at byte N" */
	int depth;                     /* objects and arrays open, at most 64 */
};

void ws_jp_skip_ws(struct ws_jp *j);
/* Records what failed (the first failure wins); returns false. */
bool ws_jp_fail(struct ws_jp *j, const char *what);
bool ws_jp_expect(struct ws_jp *j, char c);
/* A string into out (at most cap-1 bytes; longer is an error); \u escapes outside ASCII
 * become '?'. out may be NULL to step over it. */
bool ws_jp_string(struct ws_jp *j, char *out, size_t cap);
/* An integer (fractions and exponents are read over); out may be NULL. */
bool ws_jp_number(struct ws_jp *j, int64_t *out);
bool ws_jp_skip_value(struct ws_jp *j);
/* Walks an object's members, calling member() with each key (keys longer than 63 bytes
 * come as ""); member consumes the value. */
bool ws_jp_object(struct ws_jp *j, bool (*member)(struct ws_jp *, const char *, void *), void *ctx);
/* Walks an array's items; item consumes each. */
bool ws_jp_array(struct ws_jp *j, bool (*item)(struct ws_jp *, void *), void *ctx);

#endif
