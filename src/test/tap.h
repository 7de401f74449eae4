/* tap.h - the minimal unit-test harness every src/test/test_*.c uses.
 * CHECK(cond, ...) counts one assertion; main() ends with `return ws_test_done();`
 * which prints "N passed, N failed" and returns non-zero on any failure. */
#ifndef WS_TAP_H
#define WS_TAP_H
#include <stdio.h>
#include <string.h>
#include <inttypes.h>

static int ws_test_pass, ws_test_fail;

#define CHECK(cond, ...) do { \
	if (cond) ws_test_pass++; \
	else { ws_test_fail++; fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
	       fprintf(stderr, " " __VA_ARGS__); fputc('\n', stderr); } \
} while (0)
#define CHECK_EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	CHECK(_a == _b, "%s = %lld, expected %lld", #a, _a, _b); } while (0)
#define CHECK_EQ_STR(a, b) do { const char *_a = (a), *_b = (b); \
	CHECK(_a && _b && strcmp(_a, _b) == 0, "%s = \"%s\", expected \"%s\"", #a, _a ? _a : "(null)", _b ? _b : "(null)"); } while (0)
/* A struct ws_err (any struct) cleared, and its address: a fresh error for each call, since
 * ws_err_set keeps the first error it is given. */
#define FRESH(e) (memset(&(e), 0, sizeof(e)), &(e))

static inline int ws_test_done(void)
{
	printf("%d passed, %d failed\n", ws_test_pass, ws_test_fail);
	return ws_test_fail != 0;
}
#endif
