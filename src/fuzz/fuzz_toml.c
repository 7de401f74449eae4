/* fuzz_toml.c - libFuzzer target: ws_toml_read_table (core/toml.c) on bytes that are not
 * NUL-terminated, and every kept value checked for what the reader promises (valid UTF-8,
 * no control characters, within the bounds). */
#include "fuzz.h"
#include "ws_quote.h"
#include "ws_toml.h"

static void check_string(const char *s)
{
	size_t n = strlen(s);
	if (n > WS_TOML_MAX_STRING || !ws_utf8_valid(s, n))
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ro ro;
	const char *p = (const char *)fuzz_ro_copy(&ro, data, size);
	struct ws_toml_table t;
	struct ws_err err = {0};
	if (ws_toml_read_table(p, size, "tool.wheelscan", &t, &err) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			check_string(t.v[i].key);
			if (t.v[i].type == WS_TOML_STRING)
				check_string(t.v[i].str);
			if (t.v[i].nitems > WS_TOML_MAX_ITEMS)
				abort();
			for (size_t k = 0; k < t.v[i].nitems; k++)
				check_string(t.v[i].items[k]);
		}
		ws_toml_table_free(&t);
	} else if (t.n || t.v || strncmp(err.msg, "line ", 5) != 0) {
		abort();                       /* an error keeps nothing and names its line */
	}
	fuzz_ro_free(&ro);
	return 0;
}
