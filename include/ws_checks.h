/* ws_checks.h - the stable check IDs (src/core/checks.c): one table names every kind of
 * finding and error a report can carry, and the rules of --ignore / --select /
 * [tool.wheelscan] decide which gate findings count. IDs never change meaning; a new
 * check gets a new number. The man page's CHECKS section lists the same table (cli.sh
 * compares them). */
#ifndef WS_CHECKS_H
#define WS_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "wheelscan.h"

enum ws_check {
	/* WS1xx: gate findings (exit 1); --ignore and --select apply to these */
	WS_CHECK_MISSING_SASS,         /* WS101 --require: a needed container lacks the SASS */
	WS_CHECK_MISSING_PTX,          /* WS102 --require-ptx: a container with kernels lacks PTX */
	WS_CHECK_WILL_NOT_RUN,         /* WS103 --gpu: an object has no image for a target */
	WS_CHECK_LIVE_MISMATCH,        /* WS104 --live: the driver and the prediction disagree */
	WS_CHECK_LIVE_UNCONFIRMED,     /* WS105 --live: a load did not answer */
	/* WS2xx: integrity (exit 3): never ignored, an input that fails them is not what it says */
	WS_CHECK_INTEGRITY,            /* WS201 record-mismatch: RECORD, CRC-32, size or digest */
	/* WS3xx: inputs not read in full (exit 3): never ignored, nothing unread is judged */
	WS_CHECK_CORRUPT,              /* WS301 */
	WS_CHECK_UNREADABLE,           /* WS302 */
	WS_CHECK_LIMIT,                /* WS303 */
	WS_CHECK_UNSUPPORTED,          /* WS304 */
	WS_CHECK_MEMORY,               /* WS305 */
	/* WS4xx: will it load (src/core/loadres.c): said of the environment, not gates */
	WS_CHECK_LOAD_MISSING,         /* WS401 a needed library no one provides */
	WS_CHECK_LOAD_ORDER,           /* WS402 two different providers of one soname */
	WS_CHECK_LOAD_VERSION,         /* WS403 a needed symbol version the provider lacks */
	WS_CHECK_LOAD_SYMBOL,          /* WS404 a needed symbol the providers lack */
	WS_CHECK_LOAD_CUDA_SPLIT,      /* WS405 CUDA runtimes of two majors needed */
	WS_CHECK_LOAD_ELSEWHERE,       /* WS406 wheels alone: a library expected from elsewhere */
	WS_NCHECKS
};

struct ws_checkdef {
	const char *id;                /* "WS101" */
	const char *name;              /* "missing-sass" */
	const char *word;              /* JSON's older "check" word ("require"), or the error code */
	const char *summary;           /* one line for SARIF rules, --help and the man page */
	bool gate;                     /* a gate finding: --ignore and --select apply */
};

const struct ws_checkdef *ws_check_def(enum ws_check c);
/* "WS101", "ws101" or "missing-sass"; -1 when none. */
int ws_check_lookup(const char *s, size_t n);
/* The check an error of this kind is. */
enum ws_check ws_check_of_error(enum ws_errcode code);

/* --ignore ID[:GLOB] and --select ID: which findings count. A glob (* ? [...], '*'
 * crossing '/') is matched against the artifact path, the member path and
 * "artifact!member"; any match ignores. */
struct ws_check_rule {
	enum ws_check check;
	char *glob;                    /* NULL: everywhere */
};
struct ws_check_rules {
	struct ws_check_rule *ignore;
	size_t nignore;
	bool selected[WS_NCHECKS];
	bool any_selected;             /* --select given: only the selected gate checks count */
};

/* Parses "WS102" or "WS102:*libfoo*.so" (or a name) into rules; returns 0, or -1 with a
 * message in err (format: an unknown ID, a check that cannot be ignored; memory). */
int ws_check_rules_ignore(struct ws_check_rules *r, const char *spec, struct ws_err *err);
int ws_check_rules_select(struct ws_check_rules *r, const char *spec, struct ws_err *err);
/* Whether a finding of check c at (artifact, member) is ignored by the rules. member may
 * be NULL or equal to artifact (a plain file). */
bool ws_check_ignored(const struct ws_check_rules *r, enum ws_check c, const char *artifact, const char *member);
void ws_check_rules_free(struct ws_check_rules *r);

/* Shell-style glob match, bounded: O(len(pattern) * len(s)) with one backtrack point. */
bool ws_glob_match(const char *pat, const char *s);

#endif
