/* json.c - the one JSON writer every document uses (the scan, --baseline, --env): values
 * are appended to a ws_buf, each followed by a comma, and closing an object or array
 * drops the last one. Strings are valid UTF-8 with controls and invisible characters
 * escaped, and a byte that is not UTF-8 as \udcXX (ws_quote.h): file names come from
 * strangers, and a reader gets their exact bytes back. */
#include "ws_json.h"
#include "ws_quote.h"

void ws_json_str(struct ws_buf *b, const char *s)
{
	ws_quote_str(b, WS_Q_JSON, s);          /* file names from strangers: ws_quote.h */
}

void ws_json_key(struct ws_buf *b, const char *k)
{
	ws_json_str(b, k);
	ws_buf_add(b, ":", 1);
}

void ws_json_kv_str(struct ws_buf *b, const char *k, const char *v)
{
	ws_json_key(b, k);
	ws_json_str(b, v);
	ws_buf_add(b, ",", 1);
}

void ws_json_kv_u64(struct ws_buf *b, const char *k, uint64_t v)
{
	ws_json_key(b, k);
	ws_buf_printf(b, "%llu,", (unsigned long long)v);
}

void ws_json_kv_bool(struct ws_buf *b, const char *k, bool v)
{
	ws_json_key(b, k);
	ws_buf_puts(b, v ? "true," : "false,");
}

void ws_json_strv(struct ws_buf *b, const char *const *v, size_t n)
{
	ws_buf_add(b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		ws_json_str(b, v[i]);
		ws_buf_add(b, ",", 1);
	}
	ws_json_close(b, ']');
}

void ws_json_close(struct ws_buf *b, char c)
{
	if (b->len && b->p[b->len - 1] == ',')
		b->len--;
	ws_buf_add(b, &c, 1);
	ws_buf_add(b, ",", 1);
}

