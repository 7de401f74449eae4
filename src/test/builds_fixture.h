/* builds_fixture.h - what the build-table tests share (test_builds.c, test_assets.c): a
 * table made of the header and a test's rows, and a target by name. Include after tap.h. */
#ifndef WS_TEST_BUILDS_FIXTURE_H
#define WS_TEST_BUILDS_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "ws_builds.h"
#include "ws_compat.h"

#define HEAD "package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\n"

/* body's rows under the header, parsed; a body too long for the buffer fails the parse */
static inline int parse(const char *body, struct ws_builds *b, struct ws_err *err)
{
	char text[8192];
	int n = snprintf(text, sizeof text, "%s%s", HEAD, body);
	if (n < 0 || (size_t)n >= sizeof text) {
		CHECK(0, "a test table of %d bytes does not fit", n);
		return -1;
	}
	return ws_builds_parse(text, strlen(text), "test table", b, err);
}

static inline struct ws_target target(const char *s)
{
	struct ws_target t;
	struct ws_err err = {0};
	memset(&t, 0, sizeof t);
	CHECK(ws_target_parse(s, &t, FRESH(err)) == 0, "%s: %s", s, err.msg);
	return t;
}

#endif
