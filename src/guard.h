/* guard.h - the pip guard's parts, private to them: guard.c runs pip and installs,
 * guard_judge.c judges the environment as it is and as it would be, guard_report.c says
 * what was decided (text or JSON). */
#ifndef WS_GUARD_PRIVATE_H
#define WS_GUARD_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "ws_cli.h"
#include "ws_envset.h"
#include "ws_pipreport.h"

#define GUARD_PATH_MAX 4096

enum guard_change { CH_INSTALL, CH_UPGRADE, CH_DOWNGRADE, CH_REINSTALL };

/* One distribution pip would install: the file judged and, when it replaces an installed
 * one, that one. */
struct guard_item {
	const struct ws_pip_item *pip;
	char *file;                    /* the wheel judged, or NULL (not fetched, not built) */
	char sha256[65];               /* of file */
	bool built;                    /* built from an sdist, a directory or a checkout */
	enum guard_change change;
	size_t old;                    /* index into installed, or SIZE_MAX */
	struct ws_artifact *a;         /* the wheel judged */
};

/* An installed distribution, judged. */
struct guard_installed {
	struct ws_artifact *a;
	const char *name, *version;    /* a->wheel's */
	bool replaced;                 /* pip would replace it */
};

enum guard_reason_kind {
	GR_FAILS = 1,                  /* a new distribution's GPU code does not run on the target */
	GR_STOPS,                      /* it replaces one whose code runs, and has none that does */
	GR_SET,                        /* the set would break (envset: companion, CPU torch, variant) */
	GR_UNREAD,                     /* the file could not be read: nothing to judge it by */
	GR_NOT_BUILT,                  /* an sdist or project, not built (--no-build) */
};

struct guard_reason {
	enum guard_reason_kind kind;
	size_t item;                   /* index into items (GR_SET: SIZE_MAX when the issue is
					* about an installed distribution) */
	int target;                    /* -1: every target */
	char *text;                    /* one line */
};

struct guard {
	struct ws_config *cfg;
	char python[GUARD_PATH_MAX];
	const char *python_why;        /* how the interpreter was chosen */
	char **sites;
	size_t nsites;
	char tmp[1024];                /* the private temporary directory, or "" */
	char cache[2048];              /* where the downloaded and built wheels are kept */
	struct ws_pip_report report;
	const char *report_path;
	struct guard_item *items;
	size_t nitems;
	struct guard_installed *inst;
	size_t ninst;
	uint32_t inst_cap;
	const struct ws_target *targets;
	size_t nt;
	int driver_cuda;
	struct ws_envset before, after;
	struct guard_reason *reasons;
	size_t nreasons;
	uint32_t reasons_cap;
	char *cure;                    /* the one command that installs a set that runs, rendered, or NULL */
	bool blocked;
	bool installed;                /* pip installed the files judged */
	int install_rc;                /* pip's exit status installing */
};

/* guard_judge.c: scans the installed distributions and the new wheels, judges both sets,
 * fills reasons, blocked and cure. 0, or an exit status (3: a file could not be read...). */
int guard_judge(struct guard *g, const struct ws_remedy_ctx *remedy);
void guard_judge_free(struct guard *g);
const char *guard_change_name(enum guard_change c);

/* guard_report.c: the text lines (stdout) or the JSON document. */
void guard_report_text(const struct guard *g, FILE *f);
void guard_report_json(const struct guard *g, FILE *f);

#endif
