/* ws_json.h - the one JSON writer (json.c). Members are written "key":value, each with a
 * trailing comma; ws_json_close removes the last comma, closes with c and adds its own. */
#ifndef WS_JSON_H
#define WS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_util.h"

/* s as a JSON string (ws_quote.h: UTF-8, stray bytes as \udcXX), or null when s is NULL. */
void ws_json_str(struct ws_buf *b, const char *s);
void ws_json_key(struct ws_buf *b, const char *k);
void ws_json_kv_str(struct ws_buf *b, const char *k, const char *v);
void ws_json_kv_u64(struct ws_buf *b, const char *k, uint64_t v);
void ws_json_kv_bool(struct ws_buf *b, const char *k, bool v);
/* v[0..n) as an array of strings, with its trailing comma like any value. */
void ws_json_strv(struct ws_buf *b, const char *const *v, size_t n);
/* Ends an object (c '}') or array (c ']') opened with ws_buf_add(b, "{", 1). */
void ws_json_close(struct ws_buf *b, char c);

#endif
