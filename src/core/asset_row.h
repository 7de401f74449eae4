/* asset_row.h - a release-asset row's parts (src/core/asset_row.c), for the table's parser
 * and the remedy. */
#ifndef WS_ASSET_ROW_H
#define WS_ASSET_ROW_H

#include <stdbool.h>
#include <stddef.h>

#include "ws_builds.h"

struct ws_asset_terms {
	unsigned torch_major, torch_minor;
	unsigned py_lo, py_hi;            /* 309 = 3.9: inclusive lower, exclusive upper */
	unsigned cuda_major;
};

/* "2.8.0" -> 2 and 8; false when it does not start with two numbers. */
bool ws_major_minor(const char *v, unsigned *major, unsigned *minor);
/* The parts of asset row b; false when it is malformed. */
bool ws_asset_terms(const struct ws_build *b, struct ws_asset_terms *at);

#endif
