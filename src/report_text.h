/* report_text.h - what the parts of the text report share (report_text.c: the artifact
 * and its objects; report_text_verdicts.c: a verdict per target; report_text_summary.c:
 * the closing summary): colours, the quoting of strangers' strings, and the verdict lines. */
#ifndef WS_REPORT_TEXT_H
#define WS_REPORT_TEXT_H

#include "ws_report.h"
#include "ws_quote.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* Every string that came from a file (names, METADATA, RECORD rows, and the reasons and
 * messages built from them) is printed through Q: controls and invisible characters shown
 * escaped (ws_quote.h), so that no name forges a line, moves the cursor or recolours. */
#define Q(s) ws_q_text(s)

static inline const char *col(const struct ws_report *r, const char *c)
{
	return r->color ? c : "";
}

/* The verdict lines of an artifact, one per target (report_text_verdicts.c). */
void ws_text_verdicts(struct ws_report *r, const struct ws_artifact *a);
/* A coverage map in lines (report_text_verdicts.c): v has one verdict per table CC,
 * newer is the judgement for a GPU newer than all of them. */
void ws_text_coverage_lines(struct ws_report *r, const enum ws_verdict *v, const struct ws_judgement *newer,
			    const char *indent);

#endif
