/* test_text.c - strangers' strings in and out: the escaping of each output kind
 * (quote.c) and the strict JSON reader of package metadata (jsonread.c), with the two
 * readers that use it (conda records, image manifests). */
#include <stdlib.h>

#include "tap.h"
#include "ws_env.h"
#include "ws_condameta.h"
#include "ws_image.h"
#include "ws_jsonread.h"
#include "ws_quote.h"

static const char *q(enum ws_qkind k, const char *s, size_t n)
{
	static struct ws_buf b;
	b.len = 0;
	ws_quote(&b, k, s, n);
	ws_buf_add(&b, "", 0);
	return b.p;
}
#define QS(k, lit) q(k, lit, sizeof lit - 1)

static void test_utf8(void)
{
	uint32_t cp;
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	CHECK_EQ_INT(cp, 0xe9);
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
	CHECK_EQ_INT(cp, 0x1f600);
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xc0\xaf", 2, &cp), 0);      /* overlong '/' */
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xe0\x80\xaf", 3, &cp), 0);  /* overlong */
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);  /* a surrogate */
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0); /* past U+10FFFF */
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\xe2\x80", 2, &cp), 0);      /* cut short */
	CHECK_EQ_INT(ws_utf8_next((const unsigned char *)"\x80", 1, &cp), 0);
	CHECK(ws_utf8_valid("caf\xc3\xa9", 5), "valid");
	CHECK(!ws_utf8_valid("caf\xe9", 4), "latin-1 is not UTF-8");
	char out[4];
	CHECK_EQ_INT(ws_utf8_put(0x20ac, out), 3);
	CHECK(!memcmp(out, "\xe2\x82\xac", 3), "euro");
	CHECK_EQ_INT(ws_utf8_put(0xd800, out), 0);
	CHECK_EQ_INT(ws_utf8_put(0x110000, out), 0);
}

static void test_text_kind(void)
{
	/* valid UTF-8 unchanged, a backslash too (idempotent) */
	CHECK_EQ_STR(QS(WS_Q_TEXT, "pkg/caf\xc3\xa9.so"), "pkg/caf\xc3\xa9.so");
	CHECK_EQ_STR(QS(WS_Q_TEXT, "a\\b `|*"), "a\\b `|*");
	/* a newline cannot start a forged verdict line; ESC cannot reach the terminal */
	CHECK_EQ_STR(QS(WS_Q_TEXT, "lib\n  => sm_120: runs"), "lib\\n  => sm_120: runs");
	CHECK_EQ_STR(QS(WS_Q_TEXT, "\x1b[2J\x1b[32mok\r\t\x7f"), "\\x1b[2J\\x1b[32mok\\r\\t\\x7f");
	CHECK_EQ_STR(QS(WS_Q_TEXT, "a\0b"), "a\\x00b");
	/* C1 (CSI, in UTF-8 and as a stray byte), bidi override and isolate, line separator, tag */
	CHECK_EQ_STR(QS(WS_Q_TEXT, "\xc2\x9b" "2J \x9b"), "\\u009b2J \\x9b");
	CHECK_EQ_STR(QS(WS_Q_TEXT, "\xe2\x80\xaeos.so \xe2\x81\xa6 \xe2\x80\xa8"), "\\u202eos.so \\u2066 \\u2028");
	CHECK_EQ_STR(QS(WS_Q_TEXT, "\xf3\xa0\x80\x81"), "\\U000e0001");
	CHECK_EQ_STR(QS(WS_Q_TEXT, "bad\xff\xfe.so \xe2\x82"), "bad\\xff\\xfe.so \\xe2\\x82");
	/* escaping escaped text changes nothing */
	const char *once = QS(WS_Q_TEXT, "\x1b\n\xff\xe2\x80\xae");
	char *copy = strdup(once);
	CHECK_EQ_STR(q(WS_Q_TEXT, copy, strlen(copy)), copy);
	free(copy);
	/* the ring: eight at once */
	const char *v[8];
	for (int i = 0; i < 8; i++)
		v[i] = ws_q_text(i % 2 ? "\n" : "x");
	for (int i = 0; i < 8; i++)
		CHECK_EQ_STR(v[i], i % 2 ? "\\n" : "x");
	CHECK_EQ_STR(ws_q_text(NULL), "(null)");
	CHECK_EQ_STR(ws_q_text(""), "");
	/* into a fixed buffer: cut before an escape or a character that would not fit */
	char small[8];
	CHECK_EQ_STR(ws_q_text_into(small, sizeof small, "abcd\x1b", 5), "abcd");
	CHECK_EQ_STR(ws_q_text_into(small, sizeof small, "abcde\xc3\xa9", 7), "abcde\xc3\xa9");
	CHECK_EQ_STR(ws_q_text_into(small, 7, "abcde\xc3\xa9", 7), "abcde");
	char s2[64];
	ws_sanitize(s2, sizeof s2, "RECORD\x1b[2J", 64);
	CHECK_EQ_STR(s2, "RECORD\\x1b[2J");
}

static void test_md_kind(void)
{
	CHECK_EQ_STR(QS(WS_Q_MD, "wscan_example-0.1.0.whl"), "wscan\\_example-0.1.0.whl");
	CHECK_EQ_STR(QS(WS_Q_MD, "a|b`c*<x>[l](u)~~&amp;$m$\\"), "a\\|b\\`c\\*\\<x\\>\\[l\\](u)\\~\\~\\&amp;\\$m\\$\\\\");
	CHECK_EQ_STR(QS(WS_Q_MD, "x\n| forged | row |"), "x\\n\\| forged \\| row \\|");
	CHECK_EQ_STR(QS(WS_Q_MD, "\x1b[31m"), "\\x1b\\[31m");
	/* GFM's extended autolinks (scheme ://, www., mailto:, an e-mail address) are broken */
	CHECK_EQ_STR(QS(WS_Q_MD, "see https://evil.example/x"), "see https\\://evil.example/x");
	CHECK_EQ_STR(QS(WS_Q_MD, "WWW.evil.example and www.x"), "WWW\\.evil.example and www\\.x");
	CHECK_EQ_STR(QS(WS_Q_MD, "mailto:a@b.example x: y"), "mailto:a\\@b.example x: y");
	CHECK_EQ_STR(QS(WS_Q_MD, "ftp://h x:/"), "ftp\\://h x\\:/");
	CHECK_EQ_STR(QS(WS_Q_MD, "ww.x w.w.w.x"), "ww.x w.w.w.x");
	/* SARIF: braces doubled (3.11.5), brackets escaped */
	CHECK_EQ_STR(QS(WS_Q_SARIF, "lib/{0}{1}.so [x]"), "lib/{{0}}{{1}}.so \\[x\\]");
	/* HTML: the text form, then markup characters as entities, in text and attributes alike */
	CHECK_EQ_STR(QS(WS_Q_HTML, "<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	CHECK_EQ_STR(QS(WS_Q_HTML, "a\" onload=\"x&amp;"), "a&quot; onload=&quot;x&amp;amp;");
	CHECK_EQ_STR(QS(WS_Q_HTML, "\x1b[2J\n\xe2\x80\xae"), "\\x1b[2J\\n\\u202e");
	CHECK_EQ_STR(QS(WS_Q_HTML, "caf\xc3\xa9 \xff"), "caf\xc3\xa9 \\xff");
	/* code spans: a fence longer than any run of backticks inside, padded where needed */
	CHECK_EQ_STR(QS(WS_Q_MD_CODE, "pkg/lib.so"), "`pkg/lib.so`");
	CHECK_EQ_STR(QS(WS_Q_MD_CODE, "a`b"), "``a`b``");
	CHECK_EQ_STR(QS(WS_Q_MD_CODE, "a``b`"), "``` a``b` ```");
	CHECK_EQ_STR(QS(WS_Q_MD_CODE, " x "), "`  x  `");
	CHECK_EQ_STR(QS(WS_Q_MD_CODE, ""), "` `");
	CHECK_EQ_STR(QS(WS_Q_MD_CODE, "a|b\n"), "`a|b\\n`");
	CHECK_EQ_STR(QS(WS_Q_MD_CODE_CELL, "a|b"), "`a\\|b`");
	CHECK_EQ_STR(ws_q_md_code("`", false), "`` ` ``");
}

static void test_json_kind(void)
{
	CHECK_EQ_STR(QS(WS_Q_JSON, "caf\xc3\xa9.so"), "\"caf\xc3\xa9.so\"");       /* not cafÃ© */
	CHECK_EQ_STR(QS(WS_Q_JSON, "\"\\\n\t\r\b\f\x01\x1b\x7f"), "\"\\\"\\\\\\n\\t\\r\\b\\f\\u0001\\u001b\\u007f\"");
	CHECK_EQ_STR(QS(WS_Q_JSON, "bad\xff\xfe"), "\"bad\\udcff\\udcfe\"");        /* surrogateescape */
	CHECK_EQ_STR(QS(WS_Q_JSON, "\xe2\x80\xae\xc2\x9b\xe2\x80\xa8"), "\"\\u202e\\u009b\\u2028\"");
	CHECK_EQ_STR(QS(WS_Q_JSON, "\xf3\xa0\x80\x81"), "\"\\udb40\\udc01\"");
	CHECK_EQ_STR(QS(WS_Q_JSON, "\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");
	struct ws_buf b = {0};
	ws_quote_str(&b, WS_Q_JSON, NULL);
	CHECK_EQ_STR(b.p, "null");
	ws_buf_free(&b);
}

/* ---- the reader ------------------------------------------------------------------------ */

struct one { char s[256]; int64_t n; bool have_n; int calls; };

static bool one_member(struct ws_jp *j, const char *key, void *ctx)
{
	struct one *o = ctx;
	o->calls++;
	if (!strcmp(key, "s"))
		return ws_jp_string(j, o->s, sizeof o->s);
	if (!strcmp(key, "n")) {
		o->have_n = true;
		return ws_jp_number(j, &o->n);
	}
	return ws_jp_skip_value(j);
}

/* Parses doc as one object; true when it is accepted whole. */
static bool parse(const char *doc, struct one *o, char *err, size_t len)
{
	struct ws_jp j = {.start = doc, .p = doc, .end = doc + strlen(doc)};
	memset(o, 0, sizeof *o);
	bool ok = ws_jp_object(&j, one_member, o);
	if (ok) {
		ws_jp_skip_ws(&j);
		ok = j.p == j.end || ws_jp_fail(&j, "trailing bytes");
	}
	snprintf(err, len, "%s", j.err);
	return ok;
}

static void accepts_string(const char *doc, const char *want, size_t wantlen)
{
	struct one o;
	char err[128];
	bool ok = parse(doc, &o, err, sizeof err);
	CHECK(ok && strlen(o.s) == wantlen && !memcmp(o.s, want, wantlen), "%s: %s", doc, err);
}

static void rejects(const char *doc, const char *why)
{
	struct one o;
	char err[128];
	CHECK(!parse(doc, &o, err, sizeof err), "accepted %s", doc);
	CHECK(strstr(err, why) != NULL, "%s: '%s', expected '%s'", doc, err, why);
}

static void test_reader_strings(void)
{
	accepts_string("{\"s\":\"caf\\u00e9.so\"}", "caf\xc3\xa9.so", 8);     /* was "caf?.so" */
	accepts_string("{\"s\":\"caf\xc3\xa9.so\"}", "caf\xc3\xa9.so", 8);
	accepts_string("{\"s\":\"\\u20ac\\u0041\\/\\\"\"}", "\xe2\x82\xac" "A/\"", 6);
	accepts_string("{\"s\":\"\\ud83d\\ude00\"}", "\xf0\x9f\x98\x80", 4);  /* a pair: one character */
	accepts_string("{\"s\":\"\\uD83D\\uDE00\"}", "\xf0\x9f\x98\x80", 4);
	accepts_string("{\"s\":\"bad\\udcff\\udcfe\"}", "bad\xff\xfe", 5);    /* surrogateescape */
	accepts_string("{\"s\":\"\\u001b[2J\"}", "\x1b[2J", 4);
	rejects("{\"s\":\"\\ud83d\"}", "lone surrogate");
	rejects("{\"s\":\"\\ud83dx\"}", "lone surrogate");
	rejects("{\"s\":\"\\ud83d\\u0041\"}", "lone surrogate");
	rejects("{\"s\":\"\\ude00\"}", "lone surrogate");
	rejects("{\"s\":\"\\udc7f\"}", "lone surrogate");
	rejects("{\"s\":\"a\\u0000b\"}", "\\u0000");
	rejects("{\"s\":\"\\u12g4\"}", "bad \\u escape");
	rejects("{\"s\":\"\\u12\"}", "bad \\u escape");
	rejects("{\"s\":\"caf\xe9\"}", "not UTF-8");
	rejects("{\"s\":\"\xed\xa0\x80\"}", "not UTF-8");
	rejects("{\"s\":\"a\nb\"}", "control character");
	rejects("{\"s\":\"\\x41\"}", "bad escape");
}

static void test_reader_numbers(void)
{
	static const char *const good[] = {"0", "-0", "7", "-12", "9223372036854775807"};
	static const int64_t want[] = {0, 0, 7, -12, INT64_MAX};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char doc[64];
		struct one o;
		char err[128];
		snprintf(doc, sizeof doc, "{\"n\":%s}", good[i]);
		CHECK(parse(doc, &o, err, sizeof err) && o.n == want[i], "%s: %s", doc, err);
	}
	/* RFC 8259's grammar and nothing else */
	static const char *const bad[] = {"01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "0x10",
					  "1.5.5", "- 1", "Infinity", "NaN", "1ee5"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char doc[64];
		struct one o;
		char err[128];
		snprintf(doc, sizeof doc, "{\"n\":%s}", bad[i]);
		CHECK(!parse(doc, &o, err, sizeof err), "accepted %s", doc);
		snprintf(doc, sizeof doc, "{\"skipped\":%s}", bad[i]);
		CHECK(!parse(doc, &o, err, sizeof err), "stepped over %s", doc);
	}
	/* stepped over, any valid number; wanted as an integer, a fraction is an error */
	static const char *const over[] = {"1.5", "-0.0e-7", "1E+400", "123456789012345678901234567890"};
	for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
		char doc[80];
		struct one o;
		char err[128];
		snprintf(doc, sizeof doc, "{\"x\":%s}", over[i]);
		CHECK(parse(doc, &o, err, sizeof err), "%s: %s", doc, err);
		snprintf(doc, sizeof doc, "{\"n\":%s}", over[i]);
		CHECK(!parse(doc, &o, err, sizeof err), "took %s as an integer", doc);
	}
	rejects("{\"n\":9223372036854775808}", "too large");
	rejects("{\"n\":1.0}", "integer");
}

static void test_reader_duplicates(void)
{
	struct one o;
	char err[128];
	rejects("{\"s\":\"a\",\"s\":\"b\"}", "duplicate key 's'");
	rejects("{\"s\":\"a\",\"\\u0073\":\"b\"}", "duplicate key");          /* the same key, escaped */
	rejects("{\"x\":{\"k\":1,\"k\":2}}", "duplicate key 'k'");             /* in an object stepped over */
	rejects("{\"x\":[{\"k\":1},{\"a\":0,\"k\":2,\"k\":3}]}", "duplicate key");
	CHECK(parse("{\"x\":[{\"k\":1},{\"k\":2}],\"k\":3}", &o, err, sizeof err), "%s", err);  /* one per object */
	/* an object of many keys (past the inline ones, through the table's growth) */
	struct ws_buf b = {0};
	ws_buf_puts(&b, "{");
	for (int i = 0; i < 3000; i++)
		ws_buf_printf(&b, "%s\"key%d\":%d", i ? "," : "", i, i);
	ws_buf_puts(&b, "}");
	CHECK(parse(b.p, &o, err, sizeof err) && o.calls == 3000, "%s", err);
	b.len--;
	ws_buf_puts(&b, ",\"key2999\":0}");
	CHECK(!parse(b.p, &o, err, sizeof err) && strstr(err, "duplicate key 'key2999'"), "%s", err);
	b.len = 0;
	ws_buf_puts(&b, "{\"x\":{");
	for (int i = 0; i < 3000; i++)
		ws_buf_printf(&b, "%s\"key%d\":%d", i ? "," : "", i, i);
	ws_buf_puts(&b, ",\"key17\":0}}");
	CHECK(!parse(b.p, &o, err, sizeof err) && strstr(err, "duplicate key 'key17'"), "%s", err);
	ws_buf_free(&b);
	/* a key is shown escaped in the message */
	rejects("{\"\\u001b[2J\":1,\"\\u001b[2J\":2}", "duplicate key '\\x1b[2J'");
	/* keys longer than a member() sees are still compared whole */
	char big[2 * 300 + 32];
	char k[300];
	memset(k, 'a', sizeof k - 1);
	k[sizeof k - 1] = 0;
	snprintf(big, sizeof big, "{\"%s\":1,\"%s\":2}", k, k);
	CHECK(!parse(big, &o, err, sizeof err) && strstr(err, "duplicate key"), "%s", err);
	k[150] = 'b';
	snprintf(big, sizeof big, "{\"%s\":1,\"%s\":2}", k, k + 1);
	CHECK(parse(big, &o, err, sizeof err), "%s", err);
}

/* The readers built on it: a conda package's paths.json with an escaped non-ASCII path
 * names the file with that UTF-8 name (before, "caf?.so" matched no file: a false
 * integrity error); image manifests with a key twice are refused. */
static void test_readers(void)
{
	const char *doc = "{\"paths\":[{\"_path\":\"lib/caf\\u00e9.so\",\"path_type\":\"hardlink\","
			  "\"sha256\":\"" "0000000000000000000000000000000000000000000000000000000000000000" "\","
			  "\"size_in_bytes\":12},{\"_path\":\"lib/raw\\udcff.so\",\"size_in_bytes\":0}],\"paths_version\":1}";
	struct ws_conda_pkg pkg;
	struct ws_err err = {0};
	CHECK(ws_conda_parse(&pkg, doc, strlen(doc), &err) == 0, "%s", err.msg);
	CHECK(pkg.nfiles == 2 && !strcmp(pkg.files[0].path, "lib/caf\xc3\xa9.so") && pkg.files[0].size == 12 &&
	      !strcmp(pkg.files[1].path, "lib/raw\xff.so"), "conda paths");
	ws_conda_free(&pkg);
	const char *dup = "{\"paths\":[{\"_path\":\"a.so\",\"_path\":\"b.so\"}]}";
	CHECK(ws_conda_parse(&pkg, dup, strlen(dup), &err) < 0 && strstr(err.msg, "duplicate key") && err.code == WS_E_FORMAT,
	      "%s", err.msg);
	const char *m = "{\"schemaVersion\":2,\"config\":{\"mediaType\":\"x\",\"digest\":\"sha256:"
			"1111111111111111111111111111111111111111111111111111111111111111\",\"size\":1},"
			"\"layers\":[],\"layers\":[]}";
	struct ws_imgdoc d;
	memset(&err, 0, sizeof err);
	CHECK(ws_imgdoc_parse(&d, m, strlen(m), &err) < 0 && strstr(err.msg, "duplicate key 'layers'"), "%s", err.msg);
}

int main(void)
{
	test_utf8();
	test_text_kind();
	test_md_kind();
	test_json_kind();
	test_reader_strings();
	test_reader_numbers();
	test_reader_duplicates();
	test_readers();
	ws_quote_release();
	return ws_test_done();
}
