/* ws_toml.h - one table of a TOML file, read strictly (src/core/toml.c). The reader walks
 * the whole file as TOML (strings of the four kinds, arrays, inline tables, comments) so
 * that a table header inside another table's multi-line string is never taken for one,
 * but it keeps only the table asked for, whose values may be strings, booleans and arrays
 * of strings. Anything else there (numbers, dates, nested tables, dotted keys) is an error
 * naming its line: a configuration is read as written or not at all. No I/O: the caller
 * reads the file (bounded) and passes the bytes. */
#ifndef WS_TOML_H
#define WS_TOML_H

#include <stdbool.h>
#include <stddef.h>

#include "wheelscan.h"

enum ws_toml_type { WS_TOML_STRING, WS_TOML_BOOL, WS_TOML_ARRAY };

struct ws_toml_entry {
	char *key;
	enum ws_toml_type type;
	char *str;                     /* STRING */
	bool b;                        /* BOOL */
	char **items;                  /* ARRAY: strings */
	size_t nitems;
	unsigned line;                 /* 1-based, for messages */
};

struct ws_toml_table {
	bool found;                    /* the table's header is in the file */
	unsigned line;                 /* its header's line */
	struct ws_toml_entry *v;
	size_t n;
};

#define WS_TOML_MAX_ITEMS 1024         /* strings in one array */
#define WS_TOML_MAX_STRING 4096        /* bytes of one string in the table */
#define WS_TOML_MAX_DEPTH 64           /* nested arrays and inline tables anywhere */

/* Reads table (a dotted name, "tool.wheelscan") from text[0..n). Returns 0 (out->found
 * says whether the table is there), or -1 with "line N: why" in err (format; limit past the
 * WS_TOML_MAX_* bounds; memory). */
int ws_toml_read_table(const char *text, size_t n, const char *table, struct ws_toml_table *out,
		       struct ws_err *err);
void ws_toml_table_free(struct ws_toml_table *t);

#endif
