/* ws_guard.h - the pip guard (src/guard.c): `wheelscan [OPTIONS] pip install ARGS...` judges
 * what pip would install before it is installed, and installs exactly what was judged or
 * nothing; `--pip-report FILE` judges a report pip wrote elsewhere. */
#ifndef WS_GUARD_H
#define WS_GUARD_H

#include "ws_cli.h"

/* Returns the exit status: 0 installed (or, with --dry-run and --pip-report, nothing would
 * break), 1 something would break (nothing installed unless --force), 2 a usage error or a
 * pip too old, 3 a file unreadable or not the one pip reported, 5 no GPU to judge for, or
 * pip's own status when pip fails. */
int ws_guard_command(struct ws_config *cfg);

#endif
