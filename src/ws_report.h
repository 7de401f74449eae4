/* ws_report.h - what a run hands the report writers: the artifact (already
 * judged), the gate findings and the live results; and the writers. Writers
 * only print: every decision is made before they are called. */
#ifndef WS_REPORT_H
#define WS_REPORT_H

#include <stdio.h>

#include "ws_checks.h"
#include "ws_command.h"
#include "ws_cli.h"
#include "wheelscan.h"
#include "ws_envset.h"
#include "ws_gate.h"
#include "ws_util.h"

/* Devices and driver found by the live check (or none). */
struct ws_live_info {
	bool tried;
	const char *note;                  /* why there is no driver, or NULL */
	int driver_cuda;                   /* from cuDriverGetVersion, 0 if none */
	const struct ws_device *devices;   /* NULL when none */
	size_t ndevices;
	int *target_device;                /* per target: device index or -1 */
};

struct ws_sbom_artifact;

struct ws_report {
	const struct ws_config *cfg;
	FILE *out;
	bool color;
	const struct ws_target *targets;
	size_t ntargets;
	int driver_cuda;
	bool coverage;                     /* no GPU named or found: the targets are the GPU table's
					    * compute capabilities, the last one a GPU newer than all */
	const struct ws_live_info *live;
	const char *const *skipped;        /* links the walk did not follow: "path: why" */
	size_t nskipped;
	size_t nartifacts;                 /* printed so far */
	/* the gate, counted as artifacts are reported (ws_gate_line) */
	size_t gate_failed;                /* artifacts with a finding kept or an error */
	size_t gate_findings, gate_ignored, gate_errors;
	size_t gate_not_wheels;            /* artifacts that are not wheels: the line's noun */
	bool sarif_results;                /* SARIF: a result was written (the next needs a comma) */
	/* summary, filled as artifacts are printed */
	struct ws_summary_row *rows;
	size_t nrows;
	uint32_t rows_cap;
	size_t live_mismatches;
	struct ws_findings mismatches;     /* every live disagreement, for the top-level list */
	char *torch;                       /* environments: "torch 2.5.1 (CUDA 12.4)" when installed */
	size_t quiet_packages;             /* installed packages without device code, not shown */
	size_t quiet_other;                /* files under -r that no format claims, not shown */
	size_t missing;                    /* inputs not there: their error alone is shown */
	bool quiet_row;                    /* the artifact just written was not shown */
	struct ws_envset env;              /* the distributions' facts, judged together at the end */
	const struct ws_remedy_ctx *remedy;    /* the build table for the set's fix, or NULL */
	struct ws_buf details;             /* HTML: each artifact's details, printed at the end */
	struct ws_sbom_artifact *bom_in;   /* --sbom-in: the artifacts, matched at the end */
	size_t nbom_in;
	uint32_t bom_in_cap;
	bool sbom_failed;                  /* --sbom-in could not be read: exit 3 */
};

struct ws_summary_row {
	char *path;
	const char *type;
	uint32_t objects, fatbins, errors, findings;
	enum ws_verdict *verdicts;         /* ntargets */
	char *label;                       /* environments: "torchvision 0.20.1" or a loose directory */
	char *package, *version;           /* from the dist-info (else the file name), or NULL */
	char **advice;                     /* environments: per target, the advice (or reason) */
	bool quiet;                        /* not shown (an installed package without device code) */
	bool unread;                       /* ws_artifact_unread: no verdicts to show */
	bool env;                          /* an installed distribution or a loose directory */
	bool cpu_only;                     /* env: a CPU-only build (ws_artifact_cpu_only) */
};

/* The per-artifact view the writers get. */
struct ws_result {
	struct ws_artifact *a;
	struct ws_findings findings;       /* gates and live mismatches */
	bool from_tree;                    /* found by -r: an unrecognised file is counted, not shown */
	size_t live_mismatches;
};

void ws_report_begin(struct ws_report *r);
void ws_report_artifact(struct ws_report *r, const struct ws_result *res);
void ws_report_end(struct ws_report *r);
void ws_report_free(struct ws_report *r);

/* Per format. */
void ws_text_artifact(struct ws_report *r, const struct ws_result *res);
void ws_text_summary(struct ws_report *r);
void ws_json_begin(struct ws_report *r);
void ws_json_artifact(struct ws_report *r, const struct ws_result *res);
void ws_json_end(struct ws_report *r);
void ws_md_artifact(struct ws_report *r, const struct ws_result *res);
void ws_md_end(struct ws_report *r);
void ws_sarif_begin(struct ws_report *r);
void ws_sarif_artifact(struct ws_report *r, const struct ws_result *res);
void ws_sarif_end(struct ws_report *r);
/* Workflow commands to f: stdout for --format github, stderr beside the text (annotate). */
void ws_github_artifact(struct ws_report *r, const struct ws_result *res, FILE *f);
void ws_github_end(struct ws_report *r, FILE *f);
void ws_cdx_begin(struct ws_report *r);
void ws_cdx_artifact(struct ws_report *r, const struct ws_result *res);
void ws_cdx_end(struct ws_report *r);
/* --sbom-in: reads the BOM now (before the sandbox); -1 said why on stderr. */
int ws_cdx_load_bom(const char *path);
void ws_html_artifact(struct ws_report *r, const struct ws_result *res);
void ws_html_end(struct ws_report *r);

/* Coverage maps: the verdicts of the GPU table's compute capabilities in four classes. */
enum { WS_COV_RUNS, WS_COV_JIT, WS_COV_FAILS, WS_COV_NONE };
int ws_coverage_class(enum ws_verdict v);
/* The table CCs (all targets but the last) whose verdict in v is of class cls, as ranges
 * of neighbours in table order with their architecture names: "7.5-10.3 (Turing-Blackwell),
 * 12.0-12.1 (Blackwell)". Returns how many CCs. */
/* The load issues a report for people shows (text, Markdown, HTML, workflow commands): a
 * minor one (said, not a failure: WS406) only with -v. Machine formats (JSON, SARIF) carry
 * every issue, minor ones marked. _shown counts them; 0 when loads were not judged. */
bool ws_report_shows_load(const struct ws_report *r, const struct ws_load_issue *e);
size_t ws_report_loads_shown(const struct ws_report *r);
size_t ws_coverage_ranges(const struct ws_report *r, const enum ws_verdict *v, int cls, char *buf, size_t len);

/* Where a finding or error is, named from the artifact down, as every finding line of the
 * text and Markdown reports says it: "dist/x.whl!pkg/libx.so [.nv_fatbin @0x1000]", or the
 * path alone when where is the artifact itself (or already begins with its path). */
const char *ws_where(const char *path, const char *where, char *buf, size_t len);

/* Whether this run gates (--require, --require-ptx, --gpu targets, --live): then every
 * format ends with the gate's line. */
bool ws_report_gates(const struct ws_report *r);
/* "gate: FAILED \u2014 2 of 3 wheels, 13 findings" or "gate: passed (3 wheels)" into buf;
 * returns whether the gate passed. The same words in every format. */
bool ws_gate_line(const struct ws_report *r, char *buf, size_t len);

/* A command (c, or the list l when not NULL) rendered for the first of the shells that can
 * carry it (ws_command.h), escaped for text: *used the shell, *escaped whether text had to
 * escape a character (the page then is not the command). NULL with *why when no shell can
 * carry it. Valid until the next call in this thread. */
const char *ws_text_command(const struct ws_cmd *c, const struct ws_cmds *l, const enum ws_shell *shells, size_t n,
			    enum ws_shell *used, const char **why, bool *escaped);
/* "INDENT LABEL command" on one line, or an honest line saying why there is none, and a
 * line more when the command is shown escaped. */
void ws_text_command_lines(FILE *f, const char *indent, const char *label, const struct ws_cmd *c,
			   const struct ws_cmds *l, const enum ws_shell *shells, size_t n);
void ws_text_command_release(void);
/* The remedy as JSON members (report_json.c); the set's fix likewise. */
void ws_json_command_members(struct ws_buf *b, const struct ws_cmd *install, const struct ws_cmd *download,
			     const struct ws_cmd *offline, const struct ws_cmds *list, const enum ws_shell *shells,
			     size_t n);

/* The "loads" member of the document, when any shared object was read (report_json_loads.c). */
void ws_json_loads(struct ws_buf *b, const struct ws_report *r);

/* A remedy (ws_builds.h) as a JSON object, and its comma. */
struct ws_remedy;
struct ws_buf;
void ws_json_remedy(struct ws_buf *b, const struct ws_remedy *m);

/* --list-gpus: the table, one line per CC (report_gpus.c). */
void ws_gpus_print(FILE *f);

#endif
