/* guard.c - `wheelscan [OPTIONS] pip install ARGS...` and `--pip-report FILE`: pip says what
 * it would install (its installation report), pip fetches exactly those files (built into
 * wheels where they are sdists or projects), wheelscan judges the environment as it would
 * be (guard_judge.c), then pip installs exactly the files judged, from those files alone,
 * or nothing. wheelscan fetches nothing itself: every download is pip's, with the user's
 * own configuration. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guard.h"
#include "ws_builds.h"
#include "ws_builds_load.h"
#include "ws_env.h"
#include "ws_guard.h"
#include "ws_live.h"
#include "ws_os.h"
#include "ws_quote.h"
#include "ws_readfile.h"
#include "ws_util.h"

#ifdef _WIN32
#define WS_WINDOWS 1
#else
#define WS_WINDOWS 0
#endif
#define PIP_TIMEOUT_DEFAULT_S 1800     /* resolution, downloads and builds of one step */
#define MAX_PIP_ARGS 4096

/* ---- pip's own options: which go to the fetch and which to the final install ---- */

struct pip_opt {
	const char *name;
	bool value;                        /* takes the next word (or =VALUE) */
	bool fetch;                        /* pip download / pip wheel need it (where to get files) */
	bool install;                      /* the final install needs it (how to install) */
};

static const struct pip_opt pip_opts[] = {
	{"-i", true, true, false}, {"--index-url", true, true, false}, {"--extra-index-url", true, true, false},
	{"--no-index", false, true, false}, {"-f", true, true, false}, {"--find-links", true, true, false},
	{"--trusted-host", true, true, false}, {"--cert", true, true, false}, {"--client-cert", true, true, false},
	{"--proxy", true, true, false}, {"--timeout", true, true, false}, {"--retries", true, true, false},
	{"--no-build-isolation", false, true, false}, {"-C", true, true, false}, {"--config-settings", true, true, false},
	{"--isolated", false, true, true},
	{"--force-reinstall", false, false, true}, {"-I", false, false, true}, {"--ignore-installed", false, false, true},
	{"--user", false, false, true}, {"--no-compile", false, false, true},
	{"--no-warn-script-location", false, false, true},
	{"--no-warn-conflicts", false, false, true}, {"--break-system-packages", false, false, true},
	{"--root-user-action", true, false, true}, {"--prefix", true, false, true}, {"--root", true, false, true},
	{"--target", true, false, true}, {"-t", true, false, true},
};

static const struct pip_opt *pip_opt_find(const char *arg, bool *inline_value)
{
	size_t eq = strcspn(arg, "=");
	*inline_value = arg[eq] == '=';
	for (size_t i = 0; i < sizeof pip_opts / sizeof *pip_opts; i++) {
		const struct pip_opt *o = &pip_opts[i];
		if (strlen(o->name) == eq && !strncmp(arg, o->name, eq) && (!*inline_value || o->value))
			return o;
		/* "-ihttps://...": a short option with its value attached */
		if (o->value && o->name[1] != '-' && !strncmp(arg, o->name, 2) && arg[2] && o->name[2] == 0) {
			*inline_value = true;
			return o;
		}
	}
	return NULL;
}

/* A NULL-terminated argv being built. */
struct argv_buf {
	const char **v;
	size_t n;
	uint32_t cap;
	bool failed;
};

static void av_add(struct argv_buf *a, const char *s)
{
	if (a->failed || a->n + 2 > MAX_PIP_ARGS + 64 ||
	    !ws_grow((void **)&a->v, &a->cap, (uint32_t)a->n + 2, sizeof *a->v)) {
		a->failed = true;
		return;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* pip's own options of ARGS that serve fetch (or install): copied with their values. */
static void av_add_pip_opts(struct argv_buf *a, const struct guard *g, bool fetch)
{
	for (int i = 0; i < g->cfg->pip_argc; i++) {
		bool inl;
		const struct pip_opt *o = pip_opt_find(g->cfg->pip_argv[i], &inl);
		if (!o || !(fetch ? o->fetch : o->install))
			continue;
		av_add(a, g->cfg->pip_argv[i]);
		if (o->value && !inl && i + 1 < g->cfg->pip_argc)
			av_add(a, g->cfg->pip_argv[++i]);
	}
}

static void av_pip(struct argv_buf *a, const struct guard *g, const char *cmd)
{
	av_add(a, g->python);
	av_add(a, "-m");
	av_add(a, "pip");
	av_add(a, cmd);
}

static unsigned pip_timeout(void)
{
	const char *s = getenv("WHEELSCAN_PIP_TIMEOUT");
	char *end;
	unsigned long v = s ? strtoul(s, &end, 10) : 0;
	return s && *s && !*end && v > 0 && v <= 86400 ? (unsigned)v : PIP_TIMEOUT_DEFAULT_S;
}

/* Runs pip; its output is the user's to read (onto stderr when stdout carries JSON). */
static int run_pip(const struct guard *g, struct argv_buf *a, const char *step)
{
	if (a->failed) {
		fprintf(stderr, "wheelscan: out of memory\n");
		return -1;
	}
	char why[512];
	fflush(stdout);
	int rc = ws_spawn_wait(a->v, pip_timeout(), g->cfg->format == WS_FMT_JSON, why, sizeof why);
	if (rc < 0)
		fprintf(stderr, "wheelscan: %s: %s\n", step, why);
	return rc;
}

/* ---- the interpreter ---- */

static bool is_file(const char *p, bool exec)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && (!exec || access(p, X_OK) == 0);
}

/* --python; else the Python beside this wheelscan (a venv's bin, an embedded Python's
 * Scripts); else python3 (or python) found on PATH. */
static void choose_python(struct guard *g)
{
	char dir[GUARD_PATH_MAX];
	if (g->cfg->python) {
		snprintf(g->python, sizeof g->python, "%s", g->cfg->python);
		g->python_why = "--python";
		return;
	}
	if (ws_self_dir(dir, sizeof dir)) {
		/* a venv's bin (or Scripts), then an embedded Python's folder above its Scripts */
		static const char *const names[] = {"python", "python3", "python.exe", "../python.exe"};
		char *up = strrchr(dir, '/');
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			bool parent = !strncmp(names[i], "../", 3);
			if (parent && !up)
				continue;
			int n = parent ? snprintf(g->python, sizeof g->python, "%.*s/%s", (int)(up - dir), dir, names[i] + 3)
				       : snprintf(g->python, sizeof g->python, "%s/%s", dir, names[i]);
			if (n > 0 && n < (int)sizeof g->python && is_file(g->python, true)) {
				/* Windows spelling, as the cure for cmd.exe shows it */
				for (char *p = g->python; WS_WINDOWS && *p; p++)
					if (*p == '/')
						*p = '\\';
				g->python_why = "the Python beside this wheelscan";
				return;
			}
		}
	}
	const char *path = getenv("PATH");
	snprintf(g->python, sizeof g->python, "python3");
	g->python_why = "python3 on PATH";
	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, ":");
		char cand[GUARD_PATH_MAX];
		if (n && n < 3000) {
			snprintf(cand, sizeof cand, "%.*s/python3", (int)n, p);
			if (is_file(cand, true))
				return;
			snprintf(cand, sizeof cand, "%.*s/python", (int)n, p);
			if (is_file(cand, true)) {
				snprintf(g->python, sizeof g->python, "python");
				g->python_why = "python on PATH";
			}
		}
		p += n + (p[n] == ':');
	}
}

/* pip's major version by `PY -m pip --version`, or -1. */
static int pip_major(const struct guard *g, char *ver, size_t len)
{
	const char *argv[] = {g->python, "-m", "pip", "--version", NULL};
	char out[1024], why[256];
	snprintf(ver, len, "unknown");
	if (ws_spawn_capture(argv, out, sizeof out, why, sizeof why) != 0 || strncmp(out, "pip ", 4))
		return -1;
	size_t n = strcspn(out + 4, " \n");
	snprintf(ver, len, "%.*s", (int)(n < 32 ? n : 32), out + 4);
	return atoi(ver);
}

static int too_old(const struct guard *g, const char *ver)
{
	fprintf(stderr, "wheelscan: pip %s is older than 23.0, whose installation report (format 1) the guard "
		"reads: upgrade it first (%s -m pip install -U 'pip>=23')\n", ws_q_text(ver), ws_q_text(g->python));
	return WS_EXIT_USAGE;
}

/* ---- the files ---- */

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The names in dir but . and .. (at most 100000). 0, or -1. */
static int list_dir(const char *dir, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n >= 100000 || !ws_strv_push(names, n, e->d_name)) {
			rc = -1;
			break;
		}
	}
	closedir(d);
	return rc;
}

/* Each folder of path, made where missing. A folder above that cannot be made ("C:" of a
 * Windows path, a parent the user may not write but that exists) is stepped over: only the
 * last one must exist in the end. */
static bool mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		char sep = *p;
		if (sep != '/' && !(sep == '\\' && WS_WINDOWS))
			continue;
		*p = 0;
		mkdir(path, 0700);
		*p = sep;
	}
	struct stat st;
	return (mkdir(path, 0700) == 0 || errno == EEXIST) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $WHEELSCAN_CACHE_DIR, else $XDG_CACHE_HOME/wheelscan/wheels, else ~/.cache/wheelscan/wheels
 * (on Windows %LOCALAPPDATA%\wheelscan\wheels, where HOME is not set). */
static bool choose_cache(struct guard *g)
{
	const char *c = getenv("WHEELSCAN_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	const char *l = WS_WINDOWS ? getenv("LOCALAPPDATA") : NULL;
	int n;
	if (c && ws_path_absolute(c))
		n = snprintf(g->cache, sizeof g->cache, "%s", c);
	else if (x && ws_path_absolute(x))
		n = snprintf(g->cache, sizeof g->cache, "%s/wheelscan/wheels", x);
	else if (l && ws_path_absolute(l))
		n = snprintf(g->cache, sizeof g->cache, "%s/wheelscan/wheels", l);
	else if (h && ws_path_absolute(h))
		n = snprintf(g->cache, sizeof g->cache, "%s/.cache/wheelscan/wheels", h);
	else
		n = snprintf(g->cache, sizeof g->cache, "%s/cache", g->tmp);
	return n > 0 && n < (int)sizeof g->cache - 200 && mkdirs(g->cache);
}

static int file_sha256(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t size;
	if (fd < 0)
		return -1;
	int rc = ws_sha256_fd(fd, hex, &size, NULL);
	close(fd);
	return rc;
}

/* cache/<sha256>/<file>: one place per content, so two files of one name never meet. */
static bool cache_path(const struct guard *g, const struct ws_pip_item *it, char *buf, size_t len)
{
	char file[512];
	return ws_pip_url_file(it->url, file, sizeof file) &&
	       snprintf(buf, len, "%s/%s/%s", g->cache, it->sha256, file) < (int)len;
}

static bool sha_mismatch(const char *path, const char *want, const char *got)
{
	fprintf(stderr, "wheelscan: %s: sha256 %s, but pip's report says %s: not judged, not installed\n",
		ws_q_text(path), got, want);
	return false;
}

/* The wheels pip would install, each from the cache when there with the report's sha256,
 * else by one `pip download --no-deps` of exactly their URLs. 0, or an exit status. */
static int fetch_wheels(struct guard *g)
{
	char incoming[GUARD_PATH_MAX];
	struct argv_buf a = {0};
	size_t want = 0;
	char **specs = ws_calloc(g->nitems ? g->nitems : 1, sizeof *specs);
	if (!specs)
		return WS_EXIT_INPUT;
	snprintf(incoming, sizeof incoming, "%s/download", g->tmp);
	av_pip(&a, g, "download");
	av_add(&a, "--no-deps");
	av_add(&a, "--quiet");
	av_add(&a, "--dest");
	av_add(&a, incoming);
	av_add_pip_opts(&a, g, true);
	for (size_t k = 0; k < g->nitems; k++) {
		struct guard_item *it = &g->items[k];
		char path[GUARD_PATH_MAX];
		if (it->pip->source != WS_PIP_ARCHIVE || !it->pip->wheel)
			continue;
		if (!it->pip->sha256[0]) {
			fprintf(stderr, "wheelscan: pip's report gives no sha256 for %s: the file cannot be checked\n",
				ws_q_text(it->pip->url));
			free(specs);
			free(a.v);
			return WS_EXIT_INPUT;
		}
		if (!cache_path(g, it->pip, path, sizeof path)) {
			free(specs);
			free(a.v);
			return WS_EXIT_INPUT;
		}
		char hex[65];
		if (is_file(path, false) && file_sha256(path, hex) == 0 && !strcmp(hex, it->pip->sha256)) {
			it->file = ws_strdup(path);
			memcpy(it->sha256, hex, sizeof hex);
			continue;              /* cached: no download */
		}
		size_t len = strlen(it->pip->name) + strlen(it->pip->url) + 8;
		if (!(specs[k] = ws_malloc(len)))
			break;
		snprintf(specs[k], len, "%s @ %s", it->pip->name, it->pip->url);
		av_add(&a, specs[k]);
		want++;
	}
	int rc = 0;
	if (want) {
		if (!g->cfg->quiet && g->cfg->format != WS_FMT_JSON)
			printf("wheelscan: pip downloads the %zu wheel%s it would install\n", want, want == 1 ? "" : "s");
		int prc = run_pip(g, &a, "pip download");
		if (prc != 0)
			rc = prc < 0 ? WS_EXIT_INPUT : prc;
	}
	for (size_t k = 0; k < g->nitems && !rc; k++) {
		struct guard_item *it = &g->items[k];
		if (!specs[k])
			continue;
		char file[512], got[GUARD_PATH_MAX], path[GUARD_PATH_MAX], hex[65];
		if (!ws_pip_url_file(it->pip->url, file, sizeof file) || !cache_path(g, it->pip, path, sizeof path) ||
		    snprintf(got, sizeof got, "%s/%s", incoming, file) >= (int)sizeof got) {
			rc = WS_EXIT_INPUT;
			break;
		}
		if (file_sha256(got, hex) < 0) {
			fprintf(stderr, "wheelscan: pip download left no %s: %s\n", ws_q_text(file), strerror(errno));
			rc = WS_EXIT_INPUT;
			break;
		}
		if (strcmp(hex, it->pip->sha256)) {
			sha_mismatch(got, it->pip->sha256, hex);
			rc = WS_EXIT_INPUT;
			break;
		}
		/* into the cache, by content; where it cannot go, judged where it lies */
		char dir[GUARD_PATH_MAX];
		snprintf(dir, sizeof dir, "%s/%s", g->cache, it->pip->sha256);
		bool moved = mkdirs(dir) && rename(got, path) == 0;
		it->file = ws_strdup(moved ? path : got);
		memcpy(it->sha256, hex, sizeof hex);
	}
	for (size_t k = 0; k < g->nitems; k++)
		free(specs[k]);
	free(specs);
	free(a.v);
	return rc;
}

/* An sdist, a local project or a VCS checkout, built into a wheel by `pip wheel --no-deps`. */
static int build_one(struct guard *g, size_t k)
{
	struct guard_item *it = &g->items[k];
	char dir[GUARD_PATH_MAX], spec[WS_PIP_URL_MAX + 512];
	snprintf(dir, sizeof dir, "%s/built-%zu", g->tmp, k);
	if (it->pip->source == WS_PIP_VCS)
		snprintf(spec, sizeof spec, "%s @ %s+%s%s%s", it->pip->name, it->pip->vcs ? it->pip->vcs : "git",
			 it->pip->url, it->pip->commit ? "@" : "", it->pip->commit ? it->pip->commit : "");
	else if (it->pip->sha256[0])
		snprintf(spec, sizeof spec, "%s @ %s#sha256=%s", it->pip->name, it->pip->url, it->pip->sha256);
	else
		snprintf(spec, sizeof spec, "%s @ %s", it->pip->name, it->pip->url);
	struct argv_buf a = {0};
	av_pip(&a, g, "wheel");
	av_add(&a, "--no-deps");
	av_add(&a, "--quiet");
	av_add(&a, "--wheel-dir");
	av_add(&a, dir);
	av_add_pip_opts(&a, g, true);
	av_add(&a, spec);
	if (!g->cfg->quiet && g->cfg->format != WS_FMT_JSON)
		printf("wheelscan: pip builds %s %s into a wheel, to judge what it compiled\n", ws_q_text(it->pip->name),
		       ws_q_text(it->pip->version));
	int prc = run_pip(g, &a, "pip wheel");
	free(a.v);
	if (prc != 0)
		return prc < 0 ? WS_EXIT_INPUT : prc;
	/* the one wheel in its own directory */
	char **names = NULL;
	size_t n = 0;
	if (list_dir(dir, &names, &n) < 0 || n != 1) {
		fprintf(stderr, "wheelscan: pip wheel of %s left %zu files, not one wheel\n", ws_q_text(it->pip->name), n);
		strv_free(names, n);
		return WS_EXIT_INPUT;
	}
	char path[GUARD_PATH_MAX + 256];
	bool fits = snprintf(path, sizeof path, "%s/%s", dir, names[0]) < (int)sizeof path;
	strv_free(names, n);
	if (!fits)
		return WS_EXIT_INPUT;
	it->built = true;
	if (file_sha256(path, it->sha256) < 0)
		return WS_EXIT_INPUT;
	/* kept in the cache by content, as a downloaded wheel is; where it cannot go, judged
	 * where it lies */
	char keep[GUARD_PATH_MAX + 512], kdir[GUARD_PATH_MAX];
	const char *base = strrchr(path, '/') + 1;
	snprintf(kdir, sizeof kdir, "%s/%s", g->cache, it->sha256);
	bool moved = snprintf(keep, sizeof keep, "%s/%s", kdir, base) < (int)sizeof keep && mkdirs(kdir) &&
		     rename(path, keep) == 0;
	if (!(it->file = ws_strdup(moved ? keep : path)))
		return WS_EXIT_INPUT;
	return 0;
}

static int get_files(struct guard *g)
{
	int rc = fetch_wheels(g);
	for (size_t k = 0; k < g->nitems && !rc; k++) {
		const struct ws_pip_item *p = g->items[k].pip;
		if ((p->source != WS_PIP_ARCHIVE || !p->wheel) && !g->cfg->guard_no_build)
			rc = build_one(g, k);
	}
	return rc;
}

/* ---- the steps ---- */

/* The targets: --gpu, else this machine's GPUs; the driver: --driver, else this one's. */
static int choose_targets(struct guard *g, struct ws_target **owned)
{
	g->driver_cuda = g->cfg->driver_cuda;
	if (g->cfg->ntargets && !g->cfg->gpu_auto) {
		g->targets = g->cfg->targets;
		g->nt = g->cfg->ntargets;
		return 0;
	}
	char note[512];
	struct ws_live *l = ws_live_open(0, note, sizeof note);
	const struct ws_device *dev = NULL;
	size_t nd = l ? ws_live_devices(l, &dev) : 0;
	struct ws_target *t = ws_calloc(g->cfg->ntargets + nd + 1, sizeof *t);
	size_t n = 0;
	for (size_t k = 0; t && k < g->cfg->ntargets; k++)
		t[n++] = g->cfg->targets[k];
	for (size_t d = 0; t && d < nd; d++)
		ws_target_set(&t[n++], (unsigned)(dev[d].cc_major * 10 + dev[d].cc_minor), dev[d].name);
	if (l && !g->cfg->driver_given)
		g->driver_cuda = ws_live_driver_version(l);
	ws_live_close(l);
	*owned = t;
	g->targets = t;
	g->nt = n;
	if (!n) {
		fprintf(stderr, "wheelscan: no GPU to judge for: %s; name the GPUs with --gpu (sm_120, 'RTX 5090')\n",
			l ? "the CUDA driver found no device" : note);
		return WS_EXIT_NO_GPU;
	}
	return 0;
}

/* `PY -m pip install --dry-run --quiet --report FILE ARGS`: what pip would install. */
static int ask_pip(struct guard *g, char *report, size_t len)
{
	if (g->cfg->pip_argc > MAX_PIP_ARGS) {
		fprintf(stderr, "wheelscan: more than %d arguments for pip\n", MAX_PIP_ARGS);
		return WS_EXIT_USAGE;
	}
	snprintf(report, len, "%s/report.json", g->tmp);
	struct argv_buf a = {0};
	av_pip(&a, g, "install");
	av_add(&a, "--dry-run");
	av_add(&a, "--quiet");
	av_add(&a, "--report");
	av_add(&a, report);
	for (int i = 0; i < g->cfg->pip_argc; i++)
		av_add(&a, g->cfg->pip_argv[i]);
	int rc = run_pip(g, &a, "pip install --dry-run");
	free(a.v);
	if (rc != 0) {
		char ver[40];
		int major = pip_major(g, ver, sizeof ver);
		if (major >= 0 && major < 23)
			return too_old(g, ver);
		/* pip's own failure, said by pip: its status passes through */
		return rc < 0 ? WS_EXIT_USAGE : rc;
	}
	return 0;
}

static int read_report(struct guard *g, const char *path)
{
	struct ws_err err = {0};
	if (ws_pip_report_read(&g->report, path, &err) < 0) {
		fprintf(stderr, "wheelscan: %s: %s\n", ws_q_text(path), ws_q_text(err.msg));
		return WS_EXIT_INPUT;
	}
	if (g->report.pip_version && atoi(g->report.pip_version) < 23 && atoi(g->report.pip_version) > 0)
		return too_old(g, g->report.pip_version);
	g->nitems = g->report.n;
	g->items = ws_calloc(g->nitems ? g->nitems : 1, sizeof *g->items);
	if (!g->items)
		return WS_EXIT_INPUT;
	for (size_t k = 0; k < g->nitems; k++)
		g->items[k].pip = &g->report.v[k];
	return 0;
}

/* `PY -m pip install --no-index --no-deps FILES`: exactly the files judged, nothing else. */
static int install(struct guard *g)
{
	struct argv_buf a = {0};
	av_pip(&a, g, "install");
	av_add(&a, "--no-index");
	av_add(&a, "--no-deps");
	av_add_pip_opts(&a, g, false);
	size_t n = 0;
	for (size_t k = 0; k < g->nitems; k++)
		if (g->items[k].file) {
			av_add(&a, g->items[k].file);
			n++;
		}
	if (!n) {
		free(a.v);
		return 0;
	}
	int rc = run_pip(g, &a, "pip install");
	free(a.v);
	g->installed = rc == 0;
	g->install_rc = rc;
	return rc < 0 ? WS_EXIT_INPUT : rc;
}

static void say_interpreter(const struct guard *g)
{
	if (g->cfg->quiet || g->cfg->format == WS_FMT_JSON)
		return;
	printf("wheelscan: guarding %s (%s)", ws_q_text(g->python), g->python_why);
	for (size_t i = 0; i < g->nsites; i++)
		printf("%s%s", i ? ", " : "; its packages: ", ws_q_text(g->sites[i]));
	printf("\n");
}

static void rm_tree(const char *dir)
{
	char **names = NULL;
	size_t n = 0;
	if (list_dir(dir, &names, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			char p[GUARD_PATH_MAX];
			struct stat st;
			if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= (int)sizeof p)
				continue;
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				rm_tree(p);
			else
				unlink(p);
		}
	strv_free(names, n);
	rmdir(dir);
}

/* The judgement, confined (ws_run_confined): strangers' bytes are decoded in a child inside
 * the sandbox, which prints the report and says by its exit status whether the set runs. */
struct judge_job {
	struct guard *g;
	const struct ws_remedy_ctx *remedy;
};

static int judge_child(void *arg)
{
	struct judge_job *J = arg;
	struct guard *g = J->g;
	int rc = guard_judge(g, J->remedy);
	if (rc)
		return rc;
	if (g->cfg->format == WS_FMT_JSON)
		guard_report_json(g, stdout);
	else
		guard_report_text(g, stdout);
	return g->blocked ? WS_EXIT_CHECK : 0;
}

/* JSON: the child wrote "installed":false, not knowing; the key is written once, after
 * every string that came from a file (in which a quote is always escaped). */
static void json_say_installed(char *doc)
{
	static const char key[] = "\"installed\":false";
	char *p = NULL;
	for (char *q = strstr(doc, key); q; q = strstr(q + 1, key))
		p = q;
	if (!p)
		return;
	char *f = p + sizeof key - 6;      /* "false" */
	memmove(f + 4, f + 5, strlen(f + 5) + 1);
	memcpy(f, "true", 4);
}

static int judge_then_install(struct guard *g, const struct ws_remedy_ctx *remedy)
{
	const struct ws_config *cfg = g->cfg;
	bool json = cfg->format == WS_FMT_JSON;
	const char *paths[64];
	size_t np = 0;
	for (size_t i = 0; i < g->nsites && np < 60; i++)
		paths[np++] = g->sites[i];
	paths[np++] = g->cache;
	paths[np++] = g->tmp;
	struct judge_job job = {g, remedy};
	char *doc = NULL, why[256];
	int rc = ws_run_confined(judge_child, &job, cfg->sandbox, paths, np, json ? &doc : NULL, 64u << 20, why,
				 sizeof why);
	if (rc < 0) {
		fprintf(stderr, "wheelscan: the judgement failed: %s\n", why);
		free(doc);
		return WS_EXIT_INPUT;
	}
	if (rc != 0 && rc != WS_EXIT_CHECK) {
		free(doc);
		return rc;
	}
	g->blocked = rc == WS_EXIT_CHECK;
	bool go = cfg->pip_argv && !cfg->guard_dry_run && (!g->blocked || cfg->guard_force);
	if (go)
		rc = install(g);
	if (json) {
		if (g->installed)
			json_say_installed(doc);
		fputs(doc, stdout);
	} else if (go && !rc && g->nitems && !cfg->quiet) {
		printf("wheelscan: installed the %zu file%s judged\n", g->nitems, g->nitems == 1 ? "" : "s");
	}
	free(doc);
	return rc;
}

static int guard_run(struct guard *g)
{
	struct ws_config *cfg = g->cfg;
	struct ws_err err = {0};
	choose_python(g);
	/* --pip-report alone judges the new distributions as a set; with --python (and always for
	 * pip install), against that interpreter's environment */
	if ((cfg->pip_argv || cfg->python) && ws_python_site_dirs(g->python, &g->sites, &g->nsites, &err) < 0) {
		fprintf(stderr, "wheelscan: %s: %s\n", ws_q_text(g->python), ws_q_text(err.msg));
		return WS_EXIT_USAGE;
	}
	if (cfg->pip_argv || cfg->python)
		say_interpreter(g);
	if (!ws_temp_dir(g->tmp, sizeof g->tmp)) {
		g->tmp[0] = 0;
		fprintf(stderr, "wheelscan: cannot make a temporary directory: %s\n", strerror(errno));
		return WS_EXIT_USAGE;
	}
	if (!choose_cache(g)) {
		fprintf(stderr, "wheelscan: cannot make the cache directory %s: %s\n", ws_q_text(g->cache), strerror(errno));
		return WS_EXIT_USAGE;
	}
	char report[GUARD_PATH_MAX];
	int rc = cfg->pip_report ? 0 : ask_pip(g, report, sizeof report);
	if (!rc)
		rc = read_report(g, cfg->pip_report ? cfg->pip_report : report);
	struct ws_target *owned = NULL;
	if (!rc)
		rc = choose_targets(g, &owned);
	if (!rc)
		rc = get_files(g);
	struct ws_builds builds = {0};
	struct ws_remedy_ctx remedy = {0};
	if (!rc && ws_remedy_setup(&builds, &remedy, cfg) < 0)
		rc = WS_EXIT_USAGE;
	remedy.driver_cuda = g->driver_cuda;
	remedy.python_exe = cfg->pip_argv || cfg->python ? g->python : NULL;
	if (!rc)
		rc = judge_then_install(g, &remedy);
	ws_builds_free(&builds);
	free(owned);
	return rc;
}

int ws_guard_command(struct ws_config *cfg)
{
	struct guard g = {.cfg = cfg};
	setenv("PIP_NO_INPUT", "1", 1);    /* pip asks nothing: its standard input is closed too */
	int rc = guard_run(&g);
	if (g.tmp[0])
		rm_tree(g.tmp);
	guard_judge_free(&g);
	ws_pip_report_free(&g.report);
	strv_free(g.sites, g.nsites);
	return rc;
}
