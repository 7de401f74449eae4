/* run_state.h - what the run's files share: a job per input and the runner over them
 * (run.c: the pool, the order, the store glue, the progress; run_live.c: the live check).
 * Private to them. */
#ifndef WS_RUN_STATE_H
#define WS_RUN_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ws_builds.h"
#include "ws_cli.h"
#include "ws_conclude.h"
#include "ws_db.h"
#include "ws_gate.h"
#include "ws_inputs.h"
#include "ws_live.h"
#include "ws_pool.h"
#include "ws_report.h"

struct job {
	struct runner *R;
	const struct ws_input *in;
	struct ws_result res;
	uint64_t progress;                 /* compressed bytes read so far (zip members), atomic */
	bool done;                         /* atomic */
	struct ws_group g;                 /* the file's task, and below it everything it spawns */
	/* --db: the file as stat saw it before the scan, and what the store holds of it */
	bool stat_ok;
	uint64_t st_size;
	int64_t st_mtime_ns;
	struct ws_artifact *stored;        /* loaded by the main thread; the task uses or frees it */
	struct ws_db_stored st;
	bool from_store;                   /* reported from the store: the file was not scanned */
};

struct runner {
	struct ws_config *cfg;
	struct job *jobs;                  /* a ring: input i's job is jobs[i % nslots] */
	size_t nslots, njobs;
	struct ws_pool *pool;
	struct ws_decoders *decoders;      /* lent to every scan and payload task */
	const struct ws_target *targets;
	size_t nt;
	bool coverage;                     /* targets are a coverage map: judged, never gates */
	int driver_cuda;
	struct ws_live *live;
	struct ws_live_info live_info;
	pthread_mutex_t live_mu;           /* one worker process: loads go one at a time */
	/* under live_mu: the time the loads took so far (--live-budget bounds it), and the
	 * results of each container loaded, by sha256, so identical ones are not loaded again */
	long long live_spent_ms, live_budget_ms;
	unsigned live_load_ms;             /* the per-load limit */
	struct live_seen *seen;
	size_t nseen;
	uint32_t seen_cap;
	size_t queued_from, queued_to;     /* the files in the pool: reported .. queued */
	atomic_uint_fast64_t done_bytes;
	atomic_size_t done_files;
	uint64_t total_bytes;
	bool progress_tty;                 /* stderr is a terminal: redraw the bar in place */
	time_t progress_last;              /* not a terminal: when the last line was written */
	struct ws_db *db;                  /* --db: used by the main thread only */
	bool db_failed;                    /* a store error was reported: the store is left alone */
	struct ws_db_counts counts;
	atomic_size_t files_read;          /* inputs read (scanned or hashed), for the store's summary */
	struct ws_builds builds;           /* the build table the remedies come from */
	struct ws_remedy_ctx remedy;       /* .builds NULL: no table, no remedies */
	struct ws_conclude conclude;       /* how each artifact is judged and gated (conclude.c) */
};

struct live_ctx {
	struct runner *R;
};

struct live_seen {
	char sha256[65];
	int *live, *live_nojit;            /* R->nt each; live_nojit may be NULL */
};

/* The scanner's hook (on_container): each container with kernels loaded by the live
 * worker on every target's device, within --live-budget (run_live.c). */
void ws_run_live_container(void *ctx, struct ws_object *o, struct ws_fatbin *f, const uint8_t *p, size_t n);
/* The store's part of a run (run_store.c): begun before the sandbox (false, said on stderr,
 * when it cannot be); a file prepared before it is queued (its stat, and its stored model
 * when that may stand); a stored model checked again on the file's task under --verify-db;
 * each reported artifact stored or marked seen; the run ended with status (the run's
 * status is returned: WS_EXIT_INPUT when the store failed). A store error is said once. */
bool ws_run_store_begin(struct runner *R, bool coverage_mode);
void ws_run_store_prepare(struct runner *R, struct job *j);
void ws_run_store_drop_own(struct runner *R, struct ws_inputs *in);
bool ws_run_store_still_good(struct runner *R, struct job *j);
void ws_run_store_result(struct runner *R, struct job *j);
int ws_run_store_end(struct runner *R, const struct ws_inputs *in, int status);
void ws_run_store_failed(struct runner *R);

/* --live with no driver, or with no device of any target: nothing can be measured (said
 * once on stderr), and the run never passes (run_live.c). */
bool ws_run_live_measures_nothing(const struct runner *R);
/* Starts the live check (the driver's worker, forked before any thread): the devices,
 * and with bare or --gpu auto the targets they are (run_live.c). */
void ws_run_start_live(struct runner *R, bool bare, struct ws_target **owned, size_t *nowned);

#endif
