/* ws_jsonread.h - the bounded strict JSON reader (src/core/jsonread.c) that the readers of
 * package metadata share: conda-meta records and paths.json (condameta.c), container
 * image manifests and indexes (imagemeta.c). A reader walks the values it wants with
 * ws_jp_object / ws_jp_array and steps over the rest with ws_jp_skip_value. */
#ifndef WS_JSONREAD_H
#define WS_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_JP_KEY_MAX 4096             /* bytes of a key, decoded, plus its NUL */

struct ws_jp {
	const char *start, *p, *end;
	char err[128];                 /* the first failure: "what at byte N" */
	int depth;                     /* objects and arrays open, at most 64 */
	char key[WS_JP_KEY_MAX];       /* the key being read: longer is an error */
};

void ws_jp_skip_ws(struct ws_jp *j);
/* Records what failed (the first failure wins); returns false. */
bool ws_jp_fail(struct ws_jp *j, const char *what);
/* A string into out (at most cap-1 bytes; longer is an error), UTF-8: \u escapes are
 * decoded (a surrogate pair to one character, a lone \udc80-\udcff to the byte 80-ff as
 * Python's surrogateescape writes it); raw bytes that are not UTF-8, other lone
 * surrogates and \u0000 are errors. out may be NULL to step over it. */
bool ws_jp_string(struct ws_jp *j, char *out, size_t cap);
/* A number as RFC 8259 writes it (no leading zeros, "+", "1.", ".5"...). With out, an
 * integer that fits int64 (a fraction or exponent is an error); out NULL steps over any. */
bool ws_jp_number(struct ws_jp *j, int64_t *out);
bool ws_jp_skip_value(struct ws_jp *j);
/* Walks an object's members, calling member() with each key (keys longer than 63 bytes
 * come as ""); member consumes the value. A key twice in one object (compared decoded)
 * fails the parse, here and in every object stepped over: no first-or-last-wins. */
bool ws_jp_object(struct ws_jp *j, bool (*member)(struct ws_jp *, const char *, void *), void *ctx);
/* Walks an array's items; item consumes each. */
bool ws_jp_array(struct ws_jp *j, bool (*item)(struct ws_jp *, void *), void *ctx);

#endif
