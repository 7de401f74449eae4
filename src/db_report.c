/* db_report.c - --db FILE --report: the stored artifacts, judged for this run's targets by
 * the same rules and printed by the same writers as a scan, without reading any input. */
#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws_builds.h"
#include "ws_builds_load.h"
#include "ws_conclude.h"
#include "ws_db.h"
#include "ws_quote.h"

/* "2026-11-30", "2026-11-30T19:45" or "2026-11-30T19:45:12" (UTC), compared as text
 * with the stored ISO times. */
static bool valid_date(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t n = strlen(s);
	if (n != 10 && n != 16 && n != 19)
		return false;
	for (size_t i = 0; i < n; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

/* Removed files are rows too: named on stderr, since no writer prints an absent file.
 * Returns how many, or -1. */
static int print_removed(struct ws_db *db, const char *since)
{
	int n = 0;
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(ws_db_handle(db), "SELECT a.path, r.started FROM artifact a JOIN run r"
				" ON r.id = a.removed_run WHERE ?1 IS NOT NULL AND r.started >= ?1 ORDER BY a.path",
				-1, &s, NULL) != SQLITE_OK) {
		ws_db_fail(db, "listing removed files");
		return -1;
	}
	if (since)
		sqlite3_bind_text(s, 1, since, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		fprintf(stderr, "wheelscan: removed since %s: %s (%s)\n", ws_q_text(since),
			ws_q_text((const char *)sqlite3_column_text(s, 0)), ws_q_text((const char *)sqlite3_column_text(s, 1)));
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		ws_db_fail(db, "listing removed files");
		return -1;
	}
	return n;
}

int ws_db_report(struct ws_config *cfg)
{
	if (cfg->since && !valid_date(cfg->since)) {
		fprintf(stderr, "wheelscan: invalid --since '%s' (YYYY-MM-DD, optionally THH:MM[:SS], UTC)\n",
			ws_q_text(cfg->since));
		return WS_EXIT_USAGE;
	}
	if (cfg->gpu_auto || cfg->live) {
		fprintf(stderr, "wheelscan: --report judges named GPUs only (no --gpu auto or --live)\n");
		return WS_EXIT_USAGE;
	}
	if (cfg->sbom_in && ws_cdx_load_bom(cfg->sbom_in) < 0)
		return WS_EXIT_INPUT;
	/* the store's artifacts get the scan's remedies: the same table, driver and python */
	struct ws_builds builds;
	struct ws_remedy_ctx remedy;
	if (ws_remedy_setup(&builds, &remedy, cfg) < 0)
		return WS_EXIT_USAGE;
	struct ws_err err = {0};
	struct ws_db *db = ws_db_open(cfg->db, false, false, &err);
	if (!db) {
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(err.msg));
		if (remedy.builds)
			ws_builds_free(&builds);
		return WS_EXIT_INPUT;
	}
	/* Without --gpu: the coverage map a scan without a driver prints. */
	const struct ws_target *targets = cfg->targets;
	size_t nt = cfg->ntargets;
	struct ws_target coverage[WS_MAX_TARGETS];
	bool coverage_mode = nt == 0;
	if (coverage_mode) {
		nt = ws_coverage_targets(coverage);
		targets = coverage;
	}
	struct ws_report rep = {.cfg = cfg, .out = stdout, .targets = targets, .ntargets = nt,
				.driver_cuda = cfg->driver_cuda, .coverage = coverage_mode,
				.remedy = remedy.builds && !coverage_mode ? &remedy : NULL};
	rep.color = cfg->color == 1 || (cfg->color == -1 && isatty(STDOUT_FILENO));
	int status = 0;
	sqlite3_stmt *s = NULL;
	int removed = 0;
	size_t shown = 0;
	if ((removed = print_removed(db, cfg->since)) < 0 ||
	    sqlite3_prepare_v2(ws_db_handle(db), "SELECT a.id, a.path, a.from_tree FROM artifact a LEFT JOIN run r"
			       " ON r.id = a.changed_run WHERE a.removed_run IS NULL"
			       " AND (?1 IS NULL OR r.started >= ?1) ORDER BY a.path", -1, &s, NULL) != SQLITE_OK) {
		if (s == NULL && !ws_db_error(db)[0])
			ws_db_fail(db, "listing artifacts");
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(ws_db_error(db)));
		ws_db_close(db);
		if (remedy.builds)
			ws_builds_free(&builds);
		return WS_EXIT_INPUT;
	}
	if (cfg->since)
		sqlite3_bind_text(s, 1, cfg->since, -1, SQLITE_STATIC);
	ws_report_begin(&rep);
	rep.env.from_store = true;         /* a wheel already downloaded is in the store */
	struct ws_conclude conclude = {.cfg = cfg, .targets = targets, .nt = nt, .coverage = coverage_mode,
				       .driver_cuda = cfg->driver_cuda, .remedy = rep.remedy};
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 1);
		struct ws_result res = {.from_tree = sqlite3_column_int(s, 2) != 0};
		if (!(res.a = ws_db_load(db, sqlite3_column_int64(s, 0), path ? path : ""))) {
			fprintf(stderr, "wheelscan: store %s\n", ws_q_text(ws_db_error(db)));
			status = WS_EXIT_INPUT;
			break;
		}
		/* the same judgement, errors and status the scan that stored it gave */
		ws_conclude(&conclude, &res);
		status = ws_conclude_status(&res, status);
		ws_report_artifact(&rep, &res);
		shown++;
		ws_artifact_free(res.a);
		ws_findings_free(&res.findings);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		ws_db_fail(db, "listing artifacts");
		fprintf(stderr, "wheelscan: store %s\n", ws_q_text(ws_db_error(db)));
		status = WS_EXIT_INPUT;
	}
	sqlite3_finalize(s);
	/* an empty report is no news: say so, and since when */
	if (cfg->since && !shown && status == 0)
		fprintf(stderr, "wheelscan: store %s: nothing added or changed since %s%s\n", cfg->db, cfg->since,
			removed ? " (the removed files are named above)" : "");
	ws_report_end(&rep);
	if (rep.sbom_failed)
		status = WS_EXIT_INPUT;
	ws_report_free(&rep);
	ws_db_close(db);
	if (remedy.builds)
		ws_builds_free(&builds);
	return status;
}
