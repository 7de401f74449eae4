/* ws_inputs.h - the list of input files: operands, -r trees, --files-from, --shard. */
#ifndef WS_INPUTS_H
#define WS_INPUTS_H

#include "ws_cli.h"

struct ws_input {
	char *path;
	uint64_t size;        /* from stat, for the progress bar; 0 if unknown */
};

struct ws_inputs {
	struct ws_input *v;
	size_t n;
	char **errors;        /* "cannot read directory 'x': Permission denied" */
	size_t nerrors;
};

/* Collects the inputs in a deterministic order (operands as given, each tree
 * sorted by path), then keeps the --shard share. Returns 0, or -1 on a fatal
 * problem (out of memory, unreadable --files-from) reported on stderr. */
int ws_inputs_collect(const struct ws_config *cfg, struct ws_inputs *in);
void ws_inputs_free(struct ws_inputs *in);

#endif
