/* ws_gate.h - CI gates over a judged artifact: the findings (what failed, where, under
 * which check ID) and the gate's matrix cells, which every writer prints. */
#ifndef WS_GATE_H
#define WS_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_checks.h"
#include "ws_cli.h"
#include "wheelscan.h"

/* One unmet requirement or failed target, for people and for JSON. */
struct ws_finding {
	char *where;          /* member (or path) and container, "pkg/libx.so [.nv_fatbin @0x1000]" */
	char *what;           /* "no SASS sm_120", "no-image on sm_120 (RTX 5090)" */
	enum ws_check id;     /* WS101 ... (ws_checks.h): ws_check_def names it and gives its JSON word */
	char *artifact;       /* in a report's list across artifacts (ws_findings_note): its path */
};

/* One cell of the gate's matrix: an artifact against one --require architecture (or
 * --require-ptx): the containers that need it and those of them that lack it, and whether
 * its findings were kept or all ignored. */
struct ws_gate_cell {
	uint32_t missing, considered;
	uint32_t kept, ignored;
};

struct ws_findings {
	struct ws_finding *v;
	size_t n;
	uint32_t cap;         /* room in v */
	size_t dropped;       /* findings beyond the cap, counted only */
	size_t ignored;       /* findings the rules (--ignore, --select) left out, counted only */
	const struct ws_check_rules *rules;    /* set by ws_gate_check */
	const char *artifact;                  /* the path the rules match, set with rules */
	/* the matrix row: cfg->nrequire cells for SASS, then one for PTX with --require-ptx */
	struct ws_gate_cell *cells;
	size_t ncells;
};
/* Adds a finding of check id at where (a member path, or the artifact's), unless the rules
 * ignore it there (then counted in ignored); returns whether it was kept. */
bool ws_findings_add(struct ws_findings *f, enum ws_check id, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Adds an entry to a report's list across artifacts (no check, never ignored). */
void ws_findings_note(struct ws_findings *f, const char *artifact, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ws_findings_free(struct ws_findings *f);


/* Adds a finding for every object that fails a --gpu target (an alternative only when no
 * variant of its group runs), every unmet --require and --require-ptx. The artifact must
 * have been through ws_judge (with nt == 0 when only --require is asked). */
void ws_gate_check(const struct ws_artifact *a, const struct ws_config *cfg,
		   const struct ws_target *targets, size_t nt, struct ws_findings *out);
/* The member path, or the artifact path for a plain file. */
const char *ws_object_name(const struct ws_artifact *a, const struct ws_object *o);

#endif
