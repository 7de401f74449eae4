/* test_checks.c - the check IDs and their rules (core/checks.c), the glob matcher, the
 * TOML reader of [tool.wheelscan] (core/toml.c) on good and hostile input, and the
 * escaping of workflow commands, SARIF messages and URIs (core/quote.c). */
#include <stdlib.h>

#include "tap.h"
#include "ws_checks.h"
#include "ws_quote.h"
#include "ws_toml.h"
#include "ws_util.h"

static const char *q(enum ws_qkind k, const char *s)
{
	static struct ws_buf b;
	b.len = 0;
	ws_quote_str(&b, k, s);
	ws_buf_add(&b, "", 1);
	return b.p;
}

static int toml(const char *text, struct ws_toml_table *t, struct ws_err *err)
{
	return ws_toml_read_table(text, strlen(text), "tool.wheelscan", t, err);
}

/* The line an error names, or 0. */
static unsigned err_line(const char *msg)
{
	return strncmp(msg, "line ", 5) ? 0 : (unsigned)atoi(msg + 5);
}

int main(void)
{
	/* IDs: every one unique, found by ID (any case) and by name */
	for (int c = 0; c < WS_NCHECKS; c++) {
		CHECK_EQ_INT(ws_check_lookup(ws_check_def(c)->id, strlen(ws_check_def(c)->id)), c);
		CHECK_EQ_INT(ws_check_lookup(ws_check_def(c)->name, strlen(ws_check_def(c)->name)), c);
		for (int d = c + 1; d < WS_NCHECKS; d++)
			CHECK(strcmp(ws_check_def(c)->id, ws_check_def(d)->id) != 0, "%s twice", ws_check_def(c)->id);
	}
	CHECK_EQ_INT(ws_check_lookup("ws102", 5), WS_CHECK_MISSING_PTX);
	CHECK_EQ_INT(ws_check_lookup("WS999", 5), -1);
	CHECK_EQ_INT(ws_check_of_error(WS_E_INTEGRITY), WS_CHECK_INTEGRITY);
	CHECK_EQ_STR(ws_check_def(WS_CHECK_INTEGRITY)->id, "WS201");

	/* globs */
	CHECK(ws_glob_match("*libfoo*.so", "dist/x.whl!pkg/libfoo_cuda118.so"), "star");
	CHECK(ws_glob_match("lib?.so", "libx.so") && !ws_glob_match("lib?.so", "libxy.so"), "question mark");
	CHECK(ws_glob_match("lib[a-c].so", "libb.so") && !ws_glob_match("lib[!a-c].so", "libb.so"), "class");
	CHECK(ws_glob_match("a[", "a[") && !ws_glob_match("a[", "ab"), "unterminated class is a literal");
	CHECK(!ws_glob_match("*.so", "x.so.1") && ws_glob_match("*", ""), "anchored");
	/* many stars over a long name end in linear steps, not exponential ones */
	char longname[4097];
	memset(longname, 'a', 4096);
	longname[4096] = '\0';
	CHECK(!ws_glob_match("*a*a*a*a*a*a*a*a*a*a*b", longname), "no match, quickly");

	/* rules */
	struct ws_check_rules r = {0};
	struct ws_err err = {0};
	CHECK_EQ_INT(ws_check_rules_ignore(&r, "WS102:*libold*", FRESH(err)), 0);
	CHECK_EQ_INT(ws_check_rules_ignore(&r, "will-not-run", FRESH(err)), 0);
	CHECK(ws_check_ignored(&r, WS_CHECK_MISSING_PTX, "x.whl", "pkg/libold.so"), "glob on the member");
	CHECK(!ws_check_ignored(&r, WS_CHECK_MISSING_PTX, "x.whl", "pkg/libnew.so"), "glob elsewhere");
	CHECK(!ws_check_ignored(&r, WS_CHECK_MISSING_SASS, "x.whl", "pkg/libold.so"), "another check");
	CHECK(ws_check_ignored(&r, WS_CHECK_WILL_NOT_RUN, "x.whl", "anything"), "no glob: everywhere");
	CHECK_EQ_INT(ws_check_rules_ignore(&r, "WS301", FRESH(err)), -1);
	CHECK(strstr(err.msg, "cannot be ignored") != NULL, "%s", err.msg);
	CHECK_EQ_INT(ws_check_rules_ignore(&r, "WS201:*", FRESH(err)), -1);
	CHECK_EQ_INT(ws_check_rules_ignore(&r, "WS777", FRESH(err)), -1);
	CHECK_EQ_INT(ws_check_rules_ignore(&r, "WS101:", FRESH(err)), -1);
	CHECK_EQ_INT(ws_check_rules_select(&r, "WS101", FRESH(err)), 0);
	CHECK(ws_check_ignored(&r, WS_CHECK_LIVE_MISMATCH, "x", NULL), "not selected");
	CHECK(!ws_check_ignored(&r, WS_CHECK_MISSING_SASS, "x", NULL), "selected");
	CHECK(!ws_check_ignored(&r, WS_CHECK_CORRUPT, "x", NULL), "an error is never ignored");
	ws_check_rules_free(&r);

	/* TOML: the table, its values, the rest of the file skipped as TOML */
	struct ws_toml_table t;
	const char *good =
		"[project]\nname = \"x\"\ndescription = \"\"\"\n[tool.wheelscan]\nrequire = 'forged'\n\"\"\"\n"
		"version = 1.5\nreleased = 1979-05-27 07:32:00Z\nauthors = [{name = \"a\", email = \"b\"}, ]\n"
		"[tool.other]\nx = [[1, 2], ['a']]  # comment\n"
		"\n[ tool . \"wheelscan\" ]   # the table\n"
		"require = [\"sm_80\", # eighty\n  'sm_90',\n]\nrequire-ptx = true\nignore = \"WS102:*lib\\u00e9*\"\n"
		"[tool.after]\ny = '''\nmulti\n'''\n";
	CHECK_EQ_INT(toml(good, &t, FRESH(err)), 0);
	CHECK(t.found && t.line == 13 && t.n == 3, "found %d line %u n %zu: %s", t.found, t.line, t.n, err.msg);
	if (t.n == 3) {
		CHECK_EQ_STR(t.v[0].key, "require");
		CHECK(t.v[0].type == WS_TOML_ARRAY && t.v[0].nitems == 2, "array");
		if (t.v[0].nitems == 2) {
			CHECK_EQ_STR(t.v[0].items[0], "sm_80");
			CHECK_EQ_STR(t.v[0].items[1], "sm_90");
		}
		CHECK(t.v[1].type == WS_TOML_BOOL && t.v[1].b, "bool");
		CHECK_EQ_STR(t.v[2].str, "WS102:*lib\xc3\xa9*");
		CHECK_EQ_INT(t.v[2].line, 18);
	}
	ws_toml_table_free(&t);
	CHECK_EQ_INT(toml("[project]\nname = 'x'\n", &t, FRESH(err)), 0);
	CHECK(!t.found && t.n == 0, "no table");
	ws_toml_table_free(&t);

	/* hostile and unsupported input: one error naming its line, never a crash */
	static const struct { const char *text; unsigned line; const char *why; } bad[] = {
		{"[tool.wheelscan]\nrequire = \"sm_80\n", 2, "newline in a one-line string"},
		{"[tool.wheelscan]\nrequire = \"abc", 2, "unterminated string"},
		{"a = \"\"\"never closed\n\n", 3, "unterminated string"},
		{"[tool.wheelscan]\nrequire = 80\n", 2, "only strings"},
		{"[tool.wheelscan]\nrequire = [\"a\", 1]\n", 2, "strings only"},
		{"[tool.wheelscan]\nrequire = \"a\"\nrequire = \"b\"\n", 3, "twice"},
		{"[tool.wheelscan]\n[tool.wheelscan]\n", 2, "twice"},
		{"[[tool.wheelscan]]\n", 1, "array of tables"},
		{"[tool.wheelscan.sub]\n", 1, "tables inside"},
		{"[tool]\nwheelscan.require = 'x'\n", 2, "table of their own"},
		{"tool.wheelscan = {require = 'x'}\n", 1, "table of their own"},
		{"[tool.wheelscan]\nx.y = 'a'\n", 2, "dotted"},
		{"[tool.wheelscan]\nrequire = \"\\u0000\"\n", 2, "control character"},
		{"[tool.wheelscan]\nrequire = \"\\q\"\n", 2, "unknown escape"},
		{"[tool.wheelscan]\nrequire = \"\\ud800\"\n", 2, "Unicode scalar"},
		{"[tool.wheelscan]\nrequire = \"\xff\"\n", 2, "UTF-8"},
		{"[tool.wheelscan]\nrequire = 'a' 'b'\n", 2, "end of the line"},
		{"[tool.wheelscan]\nrequire-ptx = truex\n", 2, "true or false"},
		{"[tool.wheelscan\n", 1, "expected ']'"},
		{"= 1\n", 1, "expected a key"},
		{"a = \n", 1, "expected a value"},
		{"a = [1, 2\n", 2, "expected ','"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int rc = toml(bad[i].text, &t, FRESH(err));
		CHECK(rc == -1 && err_line(err.msg) == bad[i].line && strstr(err.msg, bad[i].why), "case %zu: rc %d, '%s'", i, rc, err.msg);
		CHECK(t.n == 0 && t.v == NULL, "case %zu: nothing kept after an error", i);
	}
	/* a NUL byte: not a TOML file */
	CHECK_EQ_INT(ws_toml_read_table("a = 1\n\0", 7, "tool.wheelscan", &t, FRESH(err)), -1);
	/* nesting past the bound is an error, not a deep recursion */
	size_t depth = 100000;
	char *deep = malloc(depth + 8);
	memcpy(deep, "a = ", 4);
	memset(deep + 4, '[', depth);
	deep[depth + 4] = '\0';
	CHECK_EQ_INT(toml(deep, &t, FRESH(err)), -1);
	CHECK(strstr(err.msg, "nested too deep") != NULL, "%s", err.msg);
	CHECK_EQ_INT(err.code, WS_E_LIMIT);
	free(deep);
	/* a string past the bound, in the table */
	char *huge = malloc(WS_TOML_MAX_STRING + 64);
	int w = snprintf(huge, 64, "[tool.wheelscan]\nrequire = \"");
	memset(huge + w, 'a', WS_TOML_MAX_STRING + 1);
	strcpy(huge + w + WS_TOML_MAX_STRING + 1, "\"\n");
	CHECK_EQ_INT(toml(huge, &t, FRESH(err)), -1);
	free(huge);
	/* CRLF line ends and a byte order mark */
	CHECK_EQ_INT(toml("\xef\xbb\xbf[tool.wheelscan]\r\nrequire-ptx = false\r\n", &t, FRESH(err)), 0);
	CHECK(t.found && t.n == 1 && !t.v[0].b, "CRLF");
	ws_toml_table_free(&t);

	/* escaping for workflow commands, SARIF messages and URIs */
	CHECK_EQ_STR(q(WS_Q_GHA, "50% done\nnext"), "50%25 done\\nnext");
	CHECK_EQ_STR(q(WS_Q_GHA_PROP, "a,b:c%d"), "a%2Cb%3Ac%25d");
	CHECK_EQ_STR(q(WS_Q_GHA, "x\r\n::error::forged"), "x\\r\\n::error::forged");
	CHECK_EQ_STR(q(WS_Q_SARIF, "see [here](1)"), "see \\[here\\](1)");
	CHECK_EQ_STR(q(WS_Q_URI, "dist/a b,c:%\xff.whl"), "dist/a%20b%2Cc%3A%25%FF.whl");
	CHECK_EQ_STR(q(WS_Q_GHA, "\x1b[2J"), "\\x1b[2J");
	ws_quote_release();
	return ws_test_done();
}
