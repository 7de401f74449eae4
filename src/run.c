/* run.c - the pipeline over all inputs: a pool of threads scans and concludes
 * artifacts while the main thread reports them strictly in input order (so
 * output is deterministic whatever --jobs is) and draws the progress bar. One path
 * becomes an artifact in scan_path.c, and is judged and gated in conclude.c; the live
 * check is run_live.c's, the store's part run_store.c's. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ws_builds_load.h"
#include "ws_decoders.h"
#include "ws_decodeq.h"
#include "ws_env.h"
#include "ws_filemap.h"
#include "ws_quote.h"
#include "ws_run.h"
#include "ws_sandbox.h"
#include "ws_zipstream.h"
#include "run_state.h"

static void process(struct runner *R, struct job *j, uint64_t *progress)
{
	struct ws_budget budget = {0};       /* one per artifact, over all its members and threads */
	struct ws_scan_opts so = {.lim = &R->cfg->lim, .want_kernels = R->cfg->want_kernels, .budget = &budget};
	/* kernel names are shown only in JSON, -v and --kernels; otherwise hashes will do */
	so.list_kernels = ((R->cfg->format == WS_FMT_JSON || R->cfg->format == WS_FMT_JSONL) &&
			  R->cfg->detail >= WS_DETAIL_CONTAINER) || R->cfg->verbose > 0 || R->cfg->kernels || R->db;   /* a store keeps the names */
	/* members and payloads are tasks below this file's, on the same pool */
	so.offload = &ws_pool_offload;
	so.pool = R->pool;
	so.group = &j->g;
	so.decoders = R->decoders;
	struct live_ctx lc = {R};
	if (R->live && R->nt) {
		so.on_container = ws_run_live_container;
		so.on_container_ctx = &lc;
	}
	struct ws_artifact *a;
	j->res.from_tree = j->in->from_tree;
	if (j->stored && !ws_run_store_still_good(R, j)) {
		ws_artifact_free(j->stored);
		j->stored = NULL;
	}
	if (j->stored) {
		/* unchanged since the store read it: its model, judged again for this run */
		a = j->stored;
		j->stored = NULL;
		j->from_store = true;
		goto judge;
	}
	if (!j->in->error)
		atomic_fetch_add(&R->files_read, 1);
	if (j->in->error) {                  /* a directory the walk could not read */
		if ((a = ws_calloc(1, sizeof *a)) && !(a->path = ws_strdup(j->in->path))) {
			free(a);
			a = NULL;
		}
		if ((j->res.a = a)) {
			a->type = WS_ART_DIRECTORY;
			a->size_unknown = true;
			ws_artifact_error(a, a->path, "%s", j->in->error);
		}
		return;
	}
	switch (j->in->kind) {
	case WS_INPUT_DIST:
		a = ws_scan_distribution(j->in->path, j->in->site, R->cfg->verify, &so);
		break;
	case WS_INPUT_CONDA:
		a = ws_scan_conda_package(j->in->path, j->in->site, R->cfg->verify, &so);
		break;
	case WS_INPUT_LOOSE:
		a = ws_scan_loose(j->in->path, j->in->site, j->in->files, j->in->nfiles, &so);
		break;
	default:
		a = ws_scan_path(j->in->path, R->cfg, &so, progress);
		if (a)
			ws_torch_extension_facts(a);
		break;
	}
judge:
	j->res.a = a;
	if (a)
		ws_conclude(&R->conclude, &j->res);
}

static void file_task(void *arg)
{
	struct job *j = arg;
	process(j->R, j, &j->progress);
	atomic_fetch_add(&j->R->done_bytes, j->in->size);
	atomic_fetch_add(&j->R->done_files, 1);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
}

/* ---- progress ------------------------------------------------------------------- */

/* Input i's job: a slot of the ring of those in flight (see run_jobs). */
static struct job *job_of(struct runner *R, size_t i)
{
	return &R->jobs[i % R->nslots];
}

static void draw_progress(struct runner *R, bool final)
{
	size_t files = atomic_load(&R->done_files);
	uint64_t bytes = atomic_load(&R->done_bytes);
	/* plus what the archives in flight have read so far: only the queued ones can be */
	for (size_t i = R->queued_from; i < R->queued_to && !final; i++)
		if (!__atomic_load_n(&job_of(R, i)->done, __ATOMIC_ACQUIRE))
			bytes += __atomic_load_n(&job_of(R, i)->progress, __ATOMIC_RELAXED);
	double frac = R->total_bytes ? (double)bytes / (double)R->total_bytes : (double)files / (double)R->njobs;
	if (frac > 1)
		frac = 1;
	char bar[31];
	int fill = (int)(frac * 30);
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = '\0';
	/* A terminal gets one line redrawn in place; a log gets plain lines (no \r, no escape
	 * codes), one every 10 seconds and the last. */
	if (!R->progress_tty) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!final && now.tv_sec - R->progress_last < 10)
			return;
		R->progress_last = now.tv_sec;
	}
	/* MiB, as the report counts sizes */
	fprintf(stderr, "%s[%s] %3d%%  %zu/%zu files  %.1f/%.1f MiB%s", R->progress_tty ? "\r" : "", bar,
		(int)(frac * 100), files, R->njobs, (double)bytes / 1048576, (double)R->total_bytes / 1048576,
		final || !R->progress_tty ? "\n" : "");
	fflush(stderr);
}

/* ---- the sandbox ---------------------------------------------------------------- */

/* Reads beneath the -r trees and the inputs named one by one; nothing else once inside.
 * What libraries would load lazily from elsewhere is loaded first: OpenSSL's
 * configuration, the time zone (libzip's mktime). Fails only when out of memory. */
static int enter_sandbox(const struct ws_config *cfg, const struct ws_inputs *in, bool live)
{
	size_t n = cfg->ndirs + in->nlinks_out;
	for (size_t i = 0; i < in->n; i++)
		n += !in->v[i].from_tree;
	const char **paths = ws_calloc(n ? n : 1, sizeof *paths);
	if (!paths) {
		fprintf(stderr, "wheelscan: out of memory\n");
		return -1;
	}
	n = 0;
	for (size_t i = 0; i < cfg->ndirs; i++)
		paths[n++] = cfg->dirs[i];
	for (size_t i = 0; i < in->n; i++)
		if (!in->v[i].from_tree)
			paths[n++] = in->v[i].path;
	for (size_t i = 0; i < in->nlinks_out; i++)     /* links in a tree to files out of it */
		paths[n++] = in->links_out[i];
	tzset();
	ws_digest_free(ws_digest_new("sha256"));
	struct ws_sandbox_status st;
	if (ws_sandbox_enter(paths, n, live, &st) < 0)
		fprintf(stderr, "wheelscan: warning: no seccomp sandbox (%s); going on without it\n", st.seccomp_note);
	free(paths);
	return 0;
}

/* ---- the run -------------------------------------------------------------------- */

/* What must exist before the sandbox, which opens and creates no file: the inputs' absolute
 * paths and the store's descriptors, standard input's spool, the SIGBUS guard, the --sbom-in
 * document; then the sandbox itself. 0, or the exit status to end the run with. */
static int prepare_sandbox(struct runner *R, struct ws_inputs *in)
{
	const struct ws_config *cfg = R->cfg;
	if (R->db) {
		for (size_t i = 0; i < in->n; i++)
			if (!in->v[i].from_tree && strcmp(in->v[i].path, "-") != 0)
				in->v[i].abs_path = realpath(in->v[i].path, NULL);
		int fds[8];
		ws_sandbox_keep_store(fds, ws_db_descriptors(R->db, fds, sizeof fds / sizeof *fds));
	}
	/* standard input's spool is made now: the sandbox creates no file */
	int spool;
	for (size_t i = 0; i < in->n; i++)
		if (!in->v[i].from_tree && !strcmp(in->v[i].path, "-") && (spool = ws_stdin_spool_open()) >= 0)
			ws_sandbox_keep_spool(spool);
	/* A file cut short while it is mapped must not end the scan with SIGBUS. */
	if (ws_filemap_guard() < 0)
		fprintf(stderr, "wheelscan: warning: cannot catch SIGBUS (%s): a file that shrinks while "
			"it is read will end the scan\n", strerror(errno));
	if (cfg->sbom_in && ws_cdx_load_bom(cfg->sbom_in) < 0)
		return WS_EXIT_INPUT;
	if (cfg->sandbox && enter_sandbox(cfg, in, R->live != NULL) < 0)
		return WS_EXIT_USAGE;
	return 0;
}

/* A finished job, in input order: concluded (its errors on stderr, the exit status they and
 * its findings make with status, the run's so far), its report and its store row; then freed. */
static int report_job(struct runner *R, struct job *j, struct ws_report *rep, int status)
{
	if (!j->res.a) {
		fprintf(stderr, "wheelscan: out of memory scanning '%s'\n", ws_q_text(j->in->path));
		return 3;
	}
	status = ws_conclude_status(&j->res, status);
	ws_report_artifact(rep, &j->res);
	ws_run_store_result(R, j);
	ws_artifact_free(j->res.a);
	j->res.a = NULL;
	ws_findings_free(&j->res.findings);
	return status;
}

/* No input to judge: said, and a check (a gate was asked for) fails; status is the run's so far. */
static int nothing_judged(const struct ws_config *cfg, const struct ws_inputs *in, int status)
{
	bool check = cfg->nrequire || cfg->require_ptx || cfg->ntargets || cfg->live || cfg->gpu_auto_asked;
	if (in->nlisted)
		fprintf(stderr, "wheelscan: nothing was judged: share %u/%u of the %zu inputs is empty\n",
			cfg->shard_k, cfg->shard_n, in->nlisted);
	else {
		fprintf(stderr, "wheelscan: nothing was judged: no input files%s\n",
			check ? ", so the check fails" : "");
		if (check && status == 0)
			status = WS_EXIT_CHECK;
	}
	return status;
}

/* The inputs' count and bytes, for the progress bar. */
static void count_jobs(struct runner *R, const struct ws_inputs *in)
{
	R->njobs = in->n;
	for (size_t i = 0; i < in->n; i++)
		R->total_bytes += in->v[i].size;
}

/* Whether the progress bar is drawn (asked for, or stderr is a terminal), and its clock. */
static bool progress_begin(struct runner *R, size_t ninputs)
{
	const struct ws_config *cfg = R->cfg;
	bool progress = cfg->progress == 1 || (cfg->progress == -1 && isatty(STDERR_FILENO) && !cfg->quiet
					       && ninputs > 0);
	R->progress_tty = isatty(STDERR_FILENO);
	if (!R->progress_tty) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		R->progress_last = now.tv_sec;           /* the first plain line after 10 s */
	}
	return progress;
}

/* The jobs on the pool, each reported as soon as it and those before it are done. Files go
 * to the pool in input order, at most `window` ahead of the report, each in a slot of a ring
 * of that many jobs that is used again once its file is reported: memory holds that many
 * artifacts and results at most, whatever the number of inputs (a job is 288 bytes: 100,000
 * inputs held 28 MB of them when every input had its own). 3 when out of memory. */
static int run_jobs(struct runner *R, const struct ws_inputs *in, struct ws_report *rep, bool progress, int status)
{
	R->pool = ws_pool_new(R->cfg->jobs);
	R->decoders = ws_decoders_new();
	size_t width = (size_t)ws_pool_width(R->pool), window = width == 1 ? 1 : 2 * width, added = 0;
	R->nslots = window;
	if (!(R->jobs = ws_calloc(window, sizeof *R->jobs))) {
		fprintf(stderr, "wheelscan: out of memory\n");
		ws_pool_free(R->pool);
		ws_decoders_free(R->decoders);
		return 3;
	}
	for (size_t i = 0; i < in->n; i++) {
		for (; added < in->n && added < i + window; added++) {
			struct job *j = job_of(R, added);    /* its last file was reported */
			*j = (struct job){ .R = R, .in = &in->v[added] };
			ws_run_store_prepare(R, j);
			ws_group_init(&j->g, NULL);
			ws_pool_add(R->pool, &j->g, file_task, j);
		}
		R->queued_from = i;
		R->queued_to = added;
		struct job *j = job_of(R, i);
		/* the store's batch is held through a short wait, committed before a long one */
		if (R->db && !R->db_failed && !ws_group_wait_ms(R->pool, &j->g, 20) && ws_db_idle(R->db) < 0)
			ws_run_store_failed(R);
		if (progress)
			while (!ws_group_wait_ms(R->pool, &j->g, 200))
				draw_progress(R, false);
		else
			ws_group_wait(R->pool, &j->g);
		if (progress && R->progress_tty)
			fprintf(stderr, "\r\033[K");
		status = report_job(R, j, rep, status);
	}
	ws_pool_free(R->pool);
	ws_decoders_free(R->decoders);
	return status;
}

/* The jobs, and what the live check kept of them. */
static void free_jobs(struct runner *R)
{
	free(R->jobs);
	free(R->live_info.target_device);
	for (size_t i = 0; i < R->nseen; i++) {
		free(R->seen[i].live);
		free(R->seen[i].live_nojit);
	}
	free(R->seen);
}

int ws_run(struct ws_config *cfg)
{
	struct runner R = {.cfg = cfg, .targets = cfg->targets, .nt = cfg->ntargets,
			   .driver_cuda = cfg->driver_cuda};
	struct ws_target *auto_targets = NULL;
	size_t nauto = 0;
	struct ws_inputs in = {0};
	bool mutex = false;
	int status = 0;

	/* Without --gpu the answer is for this machine's GPUs when a driver finds any, else a
	 * coverage map over every compute capability of the GPU table. */
	bool bare = cfg->ntargets == 0 && !cfg->gpu_auto && !cfg->live;
	struct ws_target coverage[WS_MAX_TARGETS];
	bool coverage_mode = false;
	/* The driver's workers are forked before any thread exists and before the sandbox. */
	if (cfg->live || cfg->gpu_auto || bare)
		ws_run_start_live(&R, bare, &auto_targets, &nauto);
	bool auto_failed = cfg->gpu_auto_asked && (!R.live || R.live_info.ndevices == 0);
	if (ws_remedy_setup(&R.builds, &R.remedy, cfg) < 0) {
		status = WS_EXIT_USAGE;
		goto done;
	}
	R.remedy.driver_cuda = R.driver_cuda;     /* the live driver's, when one was found */
	/* --live that can measure nothing (no driver, or no device of any target) never passes */
	bool live_failed = ws_run_live_measures_nothing(&R);
	if (bare && (!R.live || R.nt == 0)) {
		R.nt = ws_coverage_targets(coverage);
		R.targets = coverage;
		R.coverage = coverage_mode = true;
		ws_live_close(R.live);
		R.live = NULL;
	}

	/* The store is opened (and its -wal and -shm files created) before the sandbox,
	 * which refuses to create files; writing to the open descriptors stays allowed. */
	if (cfg->db && !ws_run_store_begin(&R, coverage_mode)) {
		status = WS_EXIT_INPUT;
		goto done;
	}
	int irc = ws_inputs_collect(cfg, &in);
	if (irc < 0) {
		status = irc == -2 ? WS_EXIT_INPUT : WS_EXIT_USAGE;
		goto done;
	}
	if (R.db)
		ws_run_store_drop_own(&R, &in);
	if (!cfg->quiet)
		ws_inputs_name_interpreters(&in, stderr);
	/* Strangers' bytes are decoded in the sandbox, entered once the inputs are listed and
	 * before the pool's threads start. The live check's spawner and workers were forked
	 * above and stay outside it: the driver needs its devices. */
	if ((status = prepare_sandbox(&R, &in)) != 0)
		goto done;
	if (getenv("WHEELSCAN_SANDBOX_TEST"))
		ws_sandbox_selftest(in.n ? in.v[0].path : NULL);
	for (size_t i = 0; i < in.nskipped; i++)
		fprintf(stderr, "wheelscan: skipped %s\n", ws_q_text(in.skipped[i]));

	count_jobs(&R, &in);
	pthread_mutex_init(&R.live_mu, NULL);
	mutex = true;
	R.conclude = (struct ws_conclude){.cfg = cfg, .targets = R.targets, .nt = R.nt, .coverage = R.coverage,
					  .driver_cuda = R.driver_cuda, .live = R.live != NULL,
					  .remedy = R.remedy.builds && !R.coverage ? &R.remedy : NULL};

	struct ws_report rep = {.cfg = cfg, .out = stdout, .targets = R.targets, .ntargets = R.nt,
				.driver_cuda = R.driver_cuda, .coverage = coverage_mode,
				.skipped = (const char *const *)in.skipped, .nskipped = in.nskipped,
				.live = R.live_info.tried && !coverage_mode ? &R.live_info : NULL,
				.remedy = R.remedy.builds ? &R.remedy : NULL};
	rep.color = cfg->color == 1 || (cfg->color == -1 && isatty(STDOUT_FILENO));
	bool progress = progress_begin(&R, in.n);
	ws_report_begin(&rep);

	status = run_jobs(&R, &in, &rep, progress, status);
	if (progress && in.n)
		draw_progress(&R, true);
	ws_report_end(&rep);
	if (rep.live_mismatches && status == 0)
		status = 1;
	if (rep.sbom_failed)
		status = WS_EXIT_INPUT;          /* --sbom-in could not be read: nothing annotated */
	/* A check that judged nothing passes nothing: say so, and fail it. An empty share of a
	 * list that is not empty (--shard) is no failure: the other shares judge the inputs. */
	if (in.n == 0)
		status = nothing_judged(cfg, &in, status);
	if ((auto_failed || live_failed) && status != WS_EXIT_INPUT)
		status = WS_EXIT_NO_GPU;         /* --gpu auto or --live never passes without a GPU to judge */
	if (R.db) {
		status = ws_run_store_end(&R, &in, status);      /* closes the store */
		R.db = NULL;
	}
	ws_report_free(&rep);

done:
	/* one way out: every path closes the store and the live workers and frees the rest */
	ws_db_close(R.db);
	free_jobs(&R);
	free(auto_targets);
	ws_live_close(R.live);
	ws_inputs_free(&in);
	if (mutex)
		pthread_mutex_destroy(&R.live_mu);
	ws_builds_free(&R.builds);
	return status;
}
