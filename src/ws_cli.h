/* ws_cli.h - the command line: one option table drives getopt_long, --help
 * and the man page check; the parsed result is a struct ws_config. */
#ifndef WS_CLI_H
#define WS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "wheelscan.h"
#include "ws_checks.h"
#include "ws_vocab.h"

enum ws_format { WS_FMT_TEXT, WS_FMT_JSON, WS_FMT_JSONL, WS_FMT_MARKDOWN, WS_FMT_CYCLONEDX, WS_FMT_HTML,
                 WS_FMT_SARIF, WS_FMT_GITHUB };

/* How deep a JSON artifact goes (--detail): each level adds the one below it. A mirror
 * wants verdicts and advice per artifact; a torch wheel's every entry is 36 MB. */
enum ws_detail { WS_DETAIL_ARTIFACT = 1, WS_DETAIL_OBJECT, WS_DETAIL_CONTAINER, WS_DETAIL_ENTRY };
const char *ws_detail_name(enum ws_detail d);

struct ws_config {
	enum ws_format format;
	enum ws_detail detail;         /* --detail; default entry, artifact for --jsonl and --report */
	const char *sbom_in;           /* --sbom-in FILE: annotate this CycloneDX BOM */
	int verbose;                   /* -v: containers and entries; -vv: kernels */
	bool quiet;
	bool kernels;                  /* --kernels: list kernels that fail a target */
	bool want_kernels;             /* off with --no-kernels */
	bool verify;                   /* RECORD verification (off with --no-verify) */
	bool sandbox;
	int progress;                  /* -1 auto (a terminal), 0 off, 1 on */
	int color;                     /* -1 auto, 0 never, 1 always */
	int jobs;
	unsigned shard_k, shard_n;     /* --shard K/N, 1-based; n == 0: all */
	/* targets */
	struct ws_target *targets;
	size_t ntargets;
	bool gpu_auto;                 /* judge the devices the driver finds (--gpu auto, --live) */
	bool gpu_auto_asked;           /* --gpu auto itself: no device found is exit 5 */
	int driver_cuda;               /* 0: assume new enough */
	bool driver_given;
	bool strict;                   /* --strict: no container counts as built for other GPUs */
	/* gates */
	struct ws_target *require;     /* --require: SASS needed for each */
	size_t nrequire;
	bool require_ptx;
	struct ws_check_rules rules;   /* --ignore, --select and the configuration's */
	char *config_path;             /* the configuration read (--config, or a pyproject.toml), or NULL */
	char config_applied[64];       /* its keys that changed a setting ("require, ignore"), or "" */
	bool annotate;                 /* GITHUB_ACTIONS=true, no format named: text on stdout and
					* workflow commands on stderr */
	/* comparison */
	const char *baseline;
	bool no_regress;
	/* live */
	bool live, live_nojit, env;
	unsigned live_budget_s;        /* --live-budget: seconds for all loads together (default 300) */
	/* inputs */
	const char **paths;            /* argv operands */
	size_t npaths;
	const char **dirs;             /* -r DIR */
	size_t ndirs;
	const char *files_from;
	const char *python;            /* --python: scan this interpreter's site directories */
	char **owned_dirs;             /* strings cfg->dirs points to that the config owns */
	size_t nowned_dirs;
	struct ws_limits lim;
	bool list_gpus;
	/* the results store */
	const char *db;                /* --db FILE */
	bool verify_db;                /* --verify-db: compare sha256, not size and mtime */
	bool db_report;                /* --report: print from the store alone */
	bool db_merge;                 /* --merge: the operands are stores to merge into db */
	const char *since;             /* --since DATE, with --report */
	/* the cure */
	const char *builds;            /* --builds FILE: the build table (NULL: the bundled one) */
	const char *suggest;           /* --suggest PKGS: the builds that run, no inputs */
	/* the pip guard (src/guard.c) */
	char **pip_argv;               /* `wheelscan ... pip install ARGS`: ARGS (argv's), or NULL */
	int pip_argc;
	const char *pip_report;        /* --pip-report FILE */
	bool guard_force, guard_dry_run, guard_no_build;
};

/* Parses argv into cfg. Returns 0 to go on, 1 when the program should exit 0
 * now (--help, --version, --list-gpus printed), 2 on a usage error
 * (already reported on stderr). */
int ws_cli_parse(int argc, char **argv, struct ws_config *cfg);
void ws_cli_free(struct ws_config *cfg);
/* Adds a directory to scan recursively, as -r does (dir must outlive cfg). */
bool ws_cli_add_dir(struct ws_config *cfg, const char *dir);

/* The configuration (src/config.c): [tool.wheelscan] of FILE (--config), else of the first
 * pyproject.toml found upward from the working directory. Its require and require-ptx
 * count unless the command line gives --require / --require-ptx; its ignore and select
 * add to the command line's. Returns 0, or -1 with err (io: it cannot be read; limit: over 1 MiB;
 * format: not a table wheelscan reads): a usage error all the same. */
int ws_config_read(struct ws_config *cfg, const char *file, bool cli_require, struct ws_err *err);

/* One row of cli.c's option table: names, whether it takes an argument, its help. */
struct ws_option {
	const char *name;
	int val;               /* short option letter, or OPT_* */
	int has_arg;
	const char *arg;       /* argument name for --help */
	const char *help;
};
/* Shell completion from the option table opt[0..n) (src/completion.c; cli.c passes its
 * table, so completion.c needs nothing of cli.c): "bash", "zsh" or "fish"; false for
 * another shell. */
bool ws_completion_print(FILE *f, const char *shell, const struct ws_option *opt, size_t n);
/* --version -v: the libraries this build uses, ISA-L, the sandbox's parts, the commit. */
void ws_version_print(FILE *f, bool verbose);

#define WS_VERSION "0.1.0"

/* Exit statuses: one table, mirrored in --help, the man page and the README. */
enum {
	WS_EXIT_OK = 0,
	WS_EXIT_CHECK = 1,             /* a --gpu/--require/--no-regress/live check failed */
	WS_EXIT_USAGE = 2,
	WS_EXIT_INPUT = 3,             /* an input could not be read or is corrupt */
	WS_EXIT_WRITE = 4,             /* the report could not be written: it is incomplete */
	WS_EXIT_NO_GPU = 5,            /* --gpu auto found no CUDA driver or device */
};

/* Flushes f and checks its error flag; on a failure prints one line naming the error and
 * ends the process with WS_EXIT_WRITE at once (worker threads and all): a report that
 * lost bytes must not be followed by more work or by a status that says all went well.
 * SIGPIPE is left at its default, so a closed pipe ends the process quietly first. */
void ws_out_check(FILE *f);
/* Puts standard output behind a hook that remembers the errno of the first failed write
 * (stdio does not keep it), so that ws_out_check names the real error. Call first. */
void ws_out_init(void);

#endif
