/* ws_quote.h - one escaping function per output kind (src/core/quote.c), for every string
 * that came from a file: member and file names, METADATA fields, RECORD rows, kernel names,
 * producer strings, image tags, and the messages and reasons built from them. The model
 * keeps the bytes as read; a writer escapes when it prints.
 *
 *   text      for people and terminals: valid UTF-8 is printed as is, but control
 *             characters (C0, DEL, C1: ESC, CSI, ...) and invisible format characters
 *             (bidi overrides and isolates U+202A-202E and U+2066-2069, U+2028/2029,
 *             zero-width characters, tags) are shown as \n, \t, \r, \xNN (C0, DEL),
 *             \uNNNN or \UNNNNNNNN; each byte that is not part of valid UTF-8 as \xNN.
 *             A backslash stays a backslash: text escaping is idempotent (escaping
 *             escaped text changes nothing), and the exact bytes are JSON's to carry.
 *   markdown  text, then every character Markdown or GitHub gives a meaning mid-line
 *             (\ ` * _ < > | [ ] ~ & $ @, and for GFM's extended autolinks the ':' of
 *             "://" and the '.' of "www.") escaped with a backslash: for table cells and
 *             paragraphs; a URL or e-mail address in a name is shown, never linked. A code span is written whole, fenced by more backticks than
 *             the content holds; in a table a '|' inside it is written \|.
 *   json      a JSON string (RFC 8259) with its quotes: valid UTF-8 as is, controls and
 *             the invisible characters as \u escapes, and each byte that is not part of
 *             valid UTF-8 as the lone surrogate \udcXX (XX the byte, 80-ff), as Python's
 *             "surrogateescape" does: s.encode('utf-8', 'surrogateescape') gives the
 *             original bytes back. Defined in man/wheelscan.schema.json and the man page.
 *
 *   sarif     a SARIF plain-text message (SARIF 2.1.0 3.11): the text form, with [ and ]
 *             escaped by a backslash so that no name makes an embedded link, and { and }
 *             doubled (3.11.5) so that none is a placeholder; the writer then writes it
 *             as a JSON string.
 *   gha       data of a GitHub Actions workflow command (::error ...::DATA): the text
 *             form (so no CR or LF is left), then % CR LF as %25 %0D %0A, as the runner
 *             reads them back. gha-prop, a property value (file=, title=): also : and ,
 *             as %3A and %2C, which would end the value.
 *   uri       a URI path (SARIF's artifactLocation.uri): every byte but the unreserved
 *             ones (RFC 3986: A-Z a-z 0-9 - . _ ~) and '/' as %XX, so the exact bytes of
 *             the path come back by percent-decoding.
 *   html      text, then & < > " ' as entities (&amp; &lt; &gt; &quot; &#39;): for HTML
 *             text and quoted attribute values alike (a wheel named <script> stays text).
 */
#ifndef WS_QUOTE_H
#define WS_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_util.h"

enum ws_qkind {
	WS_Q_TEXT,                    /* people and terminals */
	WS_Q_MD,                      /* Markdown text: a paragraph or a table cell */
	WS_Q_MD_CODE,                 /* a Markdown code span, whole, outside a table */
	WS_Q_MD_CODE_CELL,            /* a Markdown code span, whole, in a table cell */
	WS_Q_JSON,                    /* a JSON string, with its quotes */
	WS_Q_SARIF,                   /* a SARIF plain-text message (then written as JSON) */
	WS_Q_GHA,                     /* a workflow command's message */
	WS_Q_GHA_PROP,                /* a workflow command's property value */
	WS_Q_URI,                     /* a URI path, percent-encoded */
	WS_Q_HTML,                    /* HTML text or a quoted attribute value */
};

/* The code point that s (n bytes, n >= 1) begins with, and the length of its encoding;
 * 0 when s does not begin with valid UTF-8 (overlong forms, surrogates, past U+10FFFF). */
size_t ws_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
/* Whether s[0..n) is valid UTF-8 throughout. */
bool ws_utf8_valid(const char *s, size_t n);
/* Writes cp (at most U+10FFFF) as UTF-8 into out, returns its length (1-4); 0 for a
 * surrogate or a value past U+10FFFF. */
size_t ws_utf8_put(uint32_t cp, char out[4]);

/* Appends s[0..n) (NULs included) to b, escaped for kind k. */
void ws_quote(struct ws_buf *b, enum ws_qkind k, const char *s, size_t n);
/* The same for a C string; NULL as the kind's null ("(null)"; JSON null). */
void ws_quote_str(struct ws_buf *b, enum ws_qkind k, const char *s);

/* For fprintf's %s: s escaped for the kind, in one of eight buffers that take turns, so
 * that up to eight may be passed to one call; valid until the eighth call after. The
 * buffers are per thread and grow as needed (the report writers; freed by
 * ws_quote_release). NULL gives "(null)"; out of memory gives "?". */
const char *ws_q_text(const char *s);
const char *ws_q_md(const char *s);
const char *ws_q_html(const char *s);
const char *ws_q_md_code(const char *s, bool in_table);
const char *ws_q_gha(const char *s, bool property);
/* Under GITHUB_ACTIONS=true (set once, before any thread starts): text, JSON and the kinds
 * built on them escape the characters by which a name could make a line of the runner's
 * log a workflow command: a name's leading "::" and any "##[" (src/core/quote.c). */
void ws_quote_ci_log(bool on);
/* Frees this thread's buffers. */
void ws_quote_release(void);

/* s[0..n) escaped for text into buf (len bytes, always terminated), cut before an escape
 * or a character that would not fit whole: for messages built in fixed buffers. Returns buf. */
char *ws_q_text_into(char *buf, size_t len, const char *s, size_t n);

/* Copies a string from a file (at most n bytes, to a NUL) into buf for a message, escaped
 * as text (controls and stray bytes as \xNN...; UTF-8 kept), cut before an escape that
 * would not fit. */
void ws_sanitize(char *buf, size_t len, const char *s, size_t n);
/* Copies a NUL-padded (and space-padded) string field of at most max bytes from a
 * file: trailing blanks dropped, escaped as text. NULL when empty. */
char *ws_strdup_field(const char *s, size_t max);

#endif
