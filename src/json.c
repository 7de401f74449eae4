/* json.c - the one JSON writer every document uses (the scan, --baseline, --env): values
 * are appended to a ws_buf, each followed by a comma, and closing an object or array
 * drops the last one. Strings are escaped to ASCII: file names come from strangers. */
#include "ws_json.h"

void ws_json_str(struct ws_buf *b, const char *s)
{
	if (!s) {
		ws_buf_puts(b, "null");
		return;
	}
	ws_buf_add(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': ws_buf_add(b, "\\\"", 2); break;
		case '\\': ws_buf_add(b, "\\\\", 2); break;
		case '\n': ws_buf_add(b, "\\n", 2); break;
		case '\t': ws_buf_add(b, "\\t", 2); break;
		case '\r': ws_buf_add(b, "\\r", 2); break;
		default:
			if (*p < 0x20 || *p >= 0x7f)      /* file names from strangers: keep output ASCII */
				ws_buf_printf(b, "\\u%04x", *p);
			else
				ws_buf_add(b, (const char *)p, 1);
		}
	}
	ws_buf_add(b, "\"", 1);
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

void ws_json_close(struct ws_buf *b, char c)
{
	if (b->len && b->p[b->len - 1] == ',')
		b->len--;
	ws_buf_add(b, &c, 1);
	ws_buf_add(b, ",", 1);
}

