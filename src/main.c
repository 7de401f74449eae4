/* main.c - argv to options to run to exit status; the only file that calls exit, but for
 * ws_out_check, which ends the process on a failed write wherever it happens. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "ws_compare.h"
#include "ws_db.h"
#include "ws_env.h"
#include "ws_guard.h"
#include "ws_quote.h"
#include "ws_run.h"
#include "ws_suggest.h"

int main(int argc, char **argv)
{
	/* Blocks of 1 MiB and more (windows, decoded entries) come from mmap and go back
	 * when freed. glibc's default raises this threshold after each such free, after
	 * which big blocks stay in the heap and peak memory grows with the threads. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	ws_out_init();
	struct ws_config cfg;
	int rc = ws_cli_parse(argc, argv, &cfg);
	if (rc != 0) {
		ws_cli_free(&cfg);
		ws_out_check(stdout);      /* --help, --version, --list-gpus */
		return rc == 1 ? WS_EXIT_OK : WS_EXIT_USAGE;
	}
	if (cfg.pip_argv || cfg.pip_report) {
		rc = ws_guard_command(&cfg);      /* the pip guard chooses its interpreter itself */
		ws_cli_free(&cfg);
		ws_out_check(stdout);
		return rc;
	}
	if (cfg.python) {
		/* Before the sandbox (which forbids running programs): ask the interpreter. */
		struct ws_err err = {0};
		if (ws_python_site_dirs(cfg.python, &cfg.owned_dirs, &cfg.nowned_dirs, &err) < 0) {
			fprintf(stderr, "wheelscan: --python: %s\n", ws_q_text(err.msg));
			ws_cli_free(&cfg);
			return WS_EXIT_USAGE;
		}
		for (size_t i = 0; i < cfg.nowned_dirs; i++)
			if (!ws_cli_add_dir(&cfg, cfg.owned_dirs[i])) {
				fprintf(stderr, "wheelscan: out of memory\n");
				ws_cli_free(&cfg);
				return WS_EXIT_USAGE;
			}
	}
	if (cfg.env) {
		rc = ws_env_command(&cfg);
	} else if (cfg.suggest) {
		rc = ws_suggest_command(&cfg);
	} else if (cfg.db_merge) {
		rc = ws_db_merge(&cfg);
	} else if (cfg.db_report) {
		rc = ws_db_report(&cfg);
	} else if (cfg.baseline) {
		rc = ws_compare_command(&cfg);
	} else {
		rc = ws_run(&cfg);
	}
	ws_cli_free(&cfg);
	ws_out_check(stdout);
	return rc;
}
