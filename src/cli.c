/* cli.c - the option table, getopt_long over it, and --help generated from it. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ws_cli.h"
#include "ws_compat.h"
#include "ws_quote.h"
#include "ws_report.h"

enum {
	OPT_JSON = 256, OPT_JSONL, OPT_FORMAT, OPT_FILES_FROM, OPT_GPU, OPT_DRIVER, OPT_LIST_GPUS,
	OPT_REQUIRE, OPT_REQUIRE_PTX, OPT_KERNELS, OPT_BASELINE, OPT_NO_REGRESS, OPT_NO_VERIFY,
	OPT_NO_KERNELS, OPT_LIVE, OPT_LIVE_NOJIT, OPT_ENV, OPT_SHARD, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_NO_SANDBOX, OPT_COLOR, OPT_STRICT, OPT_PYTHON, OPT_MAX_ENTRY, OPT_MAX_MEMBER, OPT_MAX_TOTAL,
	OPT_DB, OPT_VERIFY_DB, OPT_REPORT, OPT_SINCE, OPT_MERGE, OPT_BUILDS, OPT_SUGGEST, OPT_LIVE_BUDGET,
	OPT_IGNORE, OPT_SELECT, OPT_CONFIG, OPT_NO_CONFIG, OPT_COMPLETION,
	OPT_DETAIL, OPT_SBOM_IN,
	OPT_PIP_REPORT, OPT_FORCE, OPT_DRY_RUN, OPT_NO_BUILD,    /* the pip guard (src/guard.c) */
};

/* The one table: getopt_long's options and --help both come from it. */
static const struct ws_option options[] = {
	{"recursive", 'r', required_argument, "DIR", "scan every file under DIR (repeatable)"},
	{"files-from", OPT_FILES_FROM, required_argument, "FILE", "read input paths from FILE, one per line (- for stdin)"},
	{"python", OPT_PYTHON, optional_argument, "[=PYTHON]", "scan the packages installed for PYTHON (default python3)"},
	{"gpu", OPT_GPU, required_argument, "LIST", "judge for these GPUs: sm_120, 12.0, 'RTX 5090', auto (this machine's)"},
	{"driver", OPT_DRIVER, required_argument, "VER", "driver as a CUDA version (12.8) or driver version (570.124.06)"},
	{"list-gpus", OPT_LIST_GPUS, no_argument, NULL, "print the GPU name table and exit"},
	{"suggest", OPT_SUGGEST, required_argument, "PKGS", "no inputs: the builds of PKGS (torch,xformers) that run on --gpu"},
	{"builds", OPT_BUILDS, required_argument, "FILE", "use this build table for advice instead of the bundled one"},
	{"strict", OPT_STRICT, no_argument, NULL, "count every loadable container, also those built for other GPUs"},
	{"require", OPT_REQUIRE, required_argument, "LIST", "fail unless every container needed on each has its SASS"},
	{"require-ptx", OPT_REQUIRE_PTX, no_argument, NULL, "fail unless every container with kernels has PTX"},
	{"ignore", OPT_IGNORE, required_argument, "ID[:GLOB]", "do not count check ID (WS102), or only where GLOB matches (repeatable)"},
	{"select", OPT_SELECT, required_argument, "IDS", "count only these gate checks (WS101,WS103)"},
	{"config", OPT_CONFIG, required_argument, "FILE", "read [tool.wheelscan] from FILE, not the nearest pyproject.toml"},
	{"no-config", OPT_NO_CONFIG, no_argument, NULL, "read no configuration file"},
	{"kernels", OPT_KERNELS, no_argument, NULL, "list the kernels that cannot run on a target"},
	{"baseline", OPT_BASELINE, required_argument, "OLD", "compare the input against OLD (wheel, file or directory)"},
	{"no-regress", OPT_NO_REGRESS, no_argument, NULL, "with --baseline: exit 1 if any architecture was dropped"},
	{"json", OPT_JSON, no_argument, NULL, "write one JSON document"},
	{"jsonl", OPT_JSONL, no_argument, NULL, "write one JSON object per artifact, as each is done"},
	{"format", OPT_FORMAT, required_argument, "FMT", "text, json, jsonl, markdown, cyclonedx, html, sarif or github"},
	{"detail", OPT_DETAIL, required_argument, "LEVEL", "JSON depth: artifact, object, container, entry (--jsonl: artifact)"},
	{"sbom-in", OPT_SBOM_IN, required_argument, "FILE", "add the CUDA properties to this CycloneDX BOM's components"},
	{"verbose", 'v', no_argument, NULL, "a block per object; twice: every container and entry; thrice: kernels"},
	{"quiet", 'q', no_argument, NULL, "print only the verdict lines and errors"},
	{"jobs", 'j', required_argument, "N", "scan N files at once (default: number of CPUs)"},
	{"shard", OPT_SHARD, required_argument, "K/N", "scan only the K-th of N stable shares of the inputs"},
	{"no-verify", OPT_NO_VERIFY, no_argument, NULL, "do not check wheel members against RECORD"},
	{"no-kernels", OPT_NO_KERNELS, no_argument, NULL, "read entry headers only (faster; no kernel names)"},
	{"live", OPT_LIVE, no_argument, NULL, "load every container through the CUDA driver and compare"},
	{"live-nojit", OPT_LIVE_NOJIT, no_argument, NULL, "with --live: a second pass with PTX JIT disabled"},
	{"live-budget", OPT_LIVE_BUDGET, required_argument, "SECONDS", "with --live: time for all loads together (default 300)"},
	{"env", OPT_ENV, no_argument, NULL, "print the CUDA driver, devices and environment, then exit"},
	{"progress", OPT_PROGRESS, no_argument, NULL, "show progress on stderr also when not a terminal"},
	{"no-progress", OPT_NO_PROGRESS, no_argument, NULL, "never show a progress bar"},
	{"color", OPT_COLOR, required_argument, "WHEN", "auto, always or never (NO_COLOR is honoured)"},
	{"no-sandbox", OPT_NO_SANDBOX, no_argument, NULL, "do not restrict the process while decoding"},
	{"max-entry-size", OPT_MAX_ENTRY, required_argument, "BYTES", "largest decompressed entry (default 256M)"},
	{"max-member-size", OPT_MAX_MEMBER, required_argument, "BYTES", "largest inflated zip or tar member, and largest file read (default 8G)"},
	{"max-total-size", OPT_MAX_TOTAL, required_argument, "BYTES", "most inflated bytes per artifact (default 32G)"},
	{"db", OPT_DB, required_argument, "FILE", "keep results in the SQLite store FILE; unchanged files are not read again"},
	{"verify-db", OPT_VERIFY_DB, no_argument, NULL, "with --db: trust a stored result only if the file's sha256 matches"},
	{"report", OPT_REPORT, no_argument, NULL, "with --db: print the stored results, reading no input"},
	{"since", OPT_SINCE, required_argument, "DATE", "with --report: only artifacts added or changed since DATE"},
	{"merge", OPT_MERGE, no_argument, NULL, "with --db: merge the store FILEs given as operands into it"},
	{"pip-report", OPT_PIP_REPORT, required_argument, "FILE", "judge the installation report pip wrote (pip install --dry-run --report FILE)"},
	{"force", OPT_FORCE, no_argument, NULL, "with pip install: install even what would break, after saying so"},
	{"dry-run", OPT_DRY_RUN, no_argument, NULL, "with pip install: judge what pip would install, install nothing"},
	{"no-build", OPT_NO_BUILD, no_argument, NULL, "with pip install: refuse to build sdists and projects into wheels"},
	{"help", 'h', no_argument, NULL, "print this help and exit"},
	{"version", 'V', no_argument, NULL, "print the version and exit; with -v, the build too"},
	{"completion", OPT_COMPLETION, required_argument, "SHELL", "print the completion script for bash, zsh or fish"},
};
#define NOPTIONS (sizeof options / sizeof *options)

static void cli_help(FILE *f)
{
	fprintf(f, "usage: wheelscan [OPTION]... [FILE]...\n"
		   "       wheelscan [OPTION]... pip install PIP-ARGS...   (judge, then install what runs)\n"
		   "       wheelscan [OPTION]... --pip-report FILE\n"
		   "Report the CUDA architectures covered by the GPU code in wheels, ELF files,\n"
		   "archives, fatbins, cubins and PTX, and whether it runs on a given GPU.\n"
		   "Also reads tarballs (.tar, .tar.gz/.tgz, .tar.bz2, .tar.xz, .tar.zst), Debian\n"
		   "packages (.deb) and conda packages (.conda, legacy .tar.bz2), archives inside\n"
		   "them one level deep (named outer!inner), and '-' (standard input).\n"
		   "Container images: docker save archives and OCI image layouts (a tarball, or a\n"
		   "directory holding oci-layout), every blob's digest checked, objects named\n"
		   "blobs/sha256/<hex>!path by the layer that holds them.\n\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct ws_option *o = &options[i];
		char left[64];
		int n = o->val < 256 ? snprintf(left, sizeof left, "-%c, --%s", o->val, o->name)
				     : snprintf(left, sizeof left, "    --%s", o->name);
		if (o->arg)
			snprintf(left + n, sizeof left - (size_t)n, o->has_arg == optional_argument ? "%s" : " %s", o->arg);
		fprintf(f, "  %-28s %s\n", left, o->help);
	}
	fprintf(f, "\nWithout --gpu: the GPUs of this machine when a CUDA driver finds any, else a\n"
		   "coverage map over every compute capability wheelscan knows.\n"
		   "\nFindings carry check IDs (WS101 missing-sass, WS102 missing-ptx, WS103 will-not-run, ...;\n"
		   "CHECKS in wheelscan(1)). [tool.wheelscan] in the nearest pyproject.toml sets require,\n"
		   "require-ptx, ignore and select. Long options are never abbreviated.\n"
		   "\nExit status: 0 ok, 1 a check failed (--gpu, --require, --no-regress, a live mismatch\n"
		   "or a live load that did not answer, nothing judged under a check), 2 usage error,\n"
		   "3 an input could not be read or is corrupt (standard input empty or of no known\n"
		   "format too), 4 the report could not be written (a write error), 5 --gpu auto or\n"
		   "--live found no CUDA driver or GPU. A closed\n"
		   "pipe ends wheelscan quietly (SIGPIPE).\n"
		   "\nThe pip guard (wheelscan [OPTION]... pip install ARGS): pip says what it would install,\n"
		   "pip fetches those files (sdists built with pip wheel unless --no-build), wheelscan judges\n"
		   "the environment as it would be, then pip installs exactly the files judged, or nothing:\n"
		   "0 installed, 1 it would break what runs (the cure printed; --force installs anyway),\n"
		   "3 a file is not the one pip reported, pip's own status when pip fails. GUARD in wheelscan(1).\n"
		   "See wheelscan(1) for the report formats and the limits.\n");
}

const char *ws_detail_name(enum ws_detail d)
{
	switch (d) {
	case WS_DETAIL_ARTIFACT: return "artifact";
	case WS_DETAIL_OBJECT: return "object";
	case WS_DETAIL_CONTAINER: return "container";
	case WS_DETAIL_ENTRY: return "entry";
	}
	return "?";
}

/* "512M", "1G", "4096" -> bytes; 0 on a bad value. */
static uint64_t parse_size(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return 0;
	uint64_t mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	case 't': case 'T': mul = 1ull << 40; end++; break;
	default: break;
	}
	uint64_t r;
	if (*end || !ws_mul_u64(v, mul, &r))
		return 0;
	return r;
}

/* The table entry of a getopt value (OPT_* or a short letter), for messages. */
static const struct ws_option *option_of(int val)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].val == val)
			return &options[i];
	return NULL;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* an argument may be a stranger's file name (a shell glob): shown escaped, ws_quote.h */
	fprintf(stderr, "wheelscan: %s", ws_q_text(msg));
	fprintf(stderr, "\nTry 'wheelscan --help' for more information.\n");
	return 2;
}

/* "python3.12", "/opt/venv/bin/python", "pypy3": the name of an interpreter, which a bare
 * --python followed by a space would otherwise take as a file to scan (running the default
 * python3 instead of the one named). */
static bool names_interpreter(const char *arg)
{
	const char *b = strrchr(arg, '/');
	b = b ? b + 1 : arg;
	if (!strncmp(b, "python", 6))
		b += 6;
	else if (!strncmp(b, "pypy", 4))
		b += 4;
	else
		return false;
	while ((*b >= '0' && *b <= '9') || *b == '.')
		b++;
	/* an ABI suffix: python3.13t, python3.6m, python3-dbg's "d" */
	for (int n = 0; *b && n < 2; n++, b++)
		if (!strchr("tdmw", *b))
			return false;
	return *b == '\0';
}

/* "/opt/venv" after a bare --python: a virtual environment, whose interpreter is meant.
 * Its bin/python (or bin/python3) into buf. */
static bool venv_python(const char *dir, char *buf, size_t len)
{
	static const char *const names[] = {"bin/python", "bin/python3"};
	for (size_t i = 0; i < 2; i++) {
		if (snprintf(buf, len, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]) >= (int)len)
			return false;
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

static int bad_size(int val, const char *arg)
{
	return usage_error("invalid --%s '%s': a number of bytes, optionally followed by K, M, G or T "
			   "(e.g. 512M)", option_of(val)->name, arg);
}

static bool push(const char ***v, size_t *n, const char *s)
{
	const char **p = ws_reallocarray(*v, *n + 1, sizeof *p);
	if (!p)
		return false;
	p[(*n)++] = s;
	*v = p;
	return true;
}

/* getopt_long takes any unambiguous prefix ("--req" for --require-ptx until --require came
 * along): a script that works today would break, or change meaning, when an option is
 * added. So every long option is spelled in full, checked here before getopt sees argv:
 * arguments of options that take one are skipped as getopt would take them. */
static int abbreviated(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			return 0;
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] != '-') {
			/* a cluster of short options: the first that takes an argument ends it */
			for (const char *c = a + 1; *c; c++) {
				const struct ws_option *o = option_of((unsigned char)*c);
				if (o && o->has_arg == required_argument) {
					i += !c[1];
					break;
				}
			}
			continue;
		}
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		const struct ws_option *o = NULL;
		for (size_t k = 0; k < NOPTIONS && !o; k++)
			if (strlen(options[k].name) == n && !strncmp(options[k].name, name, n))
				o = &options[k];
		if (o) {
			i += o->has_arg == required_argument && !eq;
			continue;
		}
		char alts[256] = "";
		size_t used = 0;
		for (size_t k = 0; k < NOPTIONS; k++)
			if (n && !strncmp(options[k].name, name, n) && used < sizeof alts - 40) {
				int w = snprintf(alts + used, sizeof alts - used, "%s--%s", used ? ", " : "", options[k].name);
				used += w > 0 ? (size_t)w : 0;
			}
		if (used)
			return usage_error("option '--%.*s' is not spelled in full (options are never abbreviated: %s)",
					   (int)(n > 64 ? 64 : n), name, alts);
		return usage_error("unrecognized option '--%.*s'", (int)(n > 64 ? 64 : n), name);
	}
	return 0;
}

/* What the options leave for after the loop: values judged once all are read. */
struct parsed {
	const char *gpu, *require, *config, *completion;
	bool no_config, version;
	char format_opt[48];            /* the option that chose the format, for conflicts */
};

/* getopt_long's tables from the option table: lo holds NOPTIONS + 1, shorts 3 * NOPTIONS + 2. */
static void getopt_tables(struct option *lo, char *shorts)
{
	size_t ns = 0;
	shorts[ns++] = ':';          /* a missing argument is ':', told apart from an unknown option */
	for (size_t i = 0; i < NOPTIONS; i++) {
		lo[i] = (struct option){options[i].name, options[i].has_arg, NULL, options[i].val};
		if (options[i].val < 256) {
			shorts[ns++] = (char)options[i].val;
			if (options[i].has_arg)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	lo[NOPTIONS] = (struct option){0};
}

/* What holds before any option: everything verified and sandboxed, one job per CPU (64 at most). */
static void set_defaults(struct ws_config *cfg)
{
	cfg->want_kernels = cfg->verify = cfg->sandbox = true;
	cfg->progress = cfg->color = -1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cfg->jobs = ncpu > 0 ? (int)(ncpu > 64 ? 64 : ncpu) : 1;
	ws_limits_default(&cfg->lim);
}

/* An option that sets a flag or keeps its argument as it is; false when c is not one. */
static bool take_flag(int c, struct ws_config *cfg, struct parsed *p)
{
	switch (c) {
	case OPT_FILES_FROM: cfg->files_from = optarg; break;
	case OPT_GPU: p->gpu = optarg; break;
	case OPT_LIST_GPUS: cfg->list_gpus = true; break;
	case OPT_REQUIRE: p->require = optarg; break;
	case OPT_STRICT: cfg->strict = true; break;
	case OPT_REQUIRE_PTX: cfg->require_ptx = true; break;
	case OPT_KERNELS: cfg->kernels = true; break;
	case OPT_BASELINE: cfg->baseline = optarg; break;
	case OPT_NO_REGRESS: cfg->no_regress = true; break;
	case OPT_SBOM_IN: cfg->sbom_in = optarg; break;
	case 'v': cfg->verbose++; break;
	case 'q': cfg->quiet = true; break;
	case OPT_NO_VERIFY: cfg->verify = false; break;
	case OPT_NO_KERNELS: cfg->want_kernels = false; break;
	case OPT_LIVE: cfg->live = true; break;
	case OPT_LIVE_NOJIT: cfg->live = cfg->live_nojit = true; break;
	case OPT_ENV: cfg->env = true; break;
	case OPT_PROGRESS: cfg->progress = 1; break;
	case OPT_NO_PROGRESS: cfg->progress = 0; break;
	case OPT_NO_SANDBOX: cfg->sandbox = false; break;
	case OPT_DB: cfg->db = optarg; break;
	case OPT_VERIFY_DB: cfg->verify_db = true; break;
	case OPT_REPORT: cfg->db_report = true; break;
	case OPT_SINCE: cfg->since = optarg; break;
	case OPT_MERGE: cfg->db_merge = true; break;
	case OPT_BUILDS: cfg->builds = optarg; break;
	case OPT_SUGGEST: cfg->suggest = optarg; break;
	case OPT_COMPLETION: p->completion = optarg; break;
	case OPT_PIP_REPORT: cfg->pip_report = optarg; break;
	case OPT_FORCE: cfg->guard_force = true; break;
	case OPT_DRY_RUN: cfg->guard_dry_run = true; break;
	case OPT_NO_BUILD: cfg->guard_no_build = true; break;
	case OPT_CONFIG: p->config = optarg; break;
	case OPT_NO_CONFIG: p->no_config = true; break;
	case 'V': p->version = true; break;         /* printed after all options: -v may follow */
	default:
		return false;
	}
	return true;
}

/* --json, --jsonl or --format NAME: the format, unless another option chose another. */
static int choose_format(int c, struct ws_config *cfg, struct parsed *p)
{
	enum ws_format f;
	if (c == OPT_JSON) f = WS_FMT_JSON;
	else if (c == OPT_JSONL) f = WS_FMT_JSONL;
	else if (!strcmp(optarg, "text")) f = WS_FMT_TEXT;
	else if (!strcmp(optarg, "json")) f = WS_FMT_JSON;
	else if (!strcmp(optarg, "jsonl")) f = WS_FMT_JSONL;
	else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md")) f = WS_FMT_MARKDOWN;
	else if (!strcmp(optarg, "cyclonedx")) f = WS_FMT_CYCLONEDX;
	else if (!strcmp(optarg, "html")) f = WS_FMT_HTML;
	else if (!strcmp(optarg, "sarif")) f = WS_FMT_SARIF;
	else if (!strcmp(optarg, "github")) f = WS_FMT_GITHUB;
	else return usage_error("unknown format '%s' (text, json, jsonl, markdown, cyclonedx, html, sarif, github)", optarg);
	/* two different formats is a mistake to name, not a choice to guess */
	char this_opt[48];
	snprintf(this_opt, sizeof this_opt, "--%s%s%.32s", option_of(c)->name, c == OPT_FORMAT ? " " : "",
		 c == OPT_FORMAT ? optarg : "");
	if (p->format_opt[0] && f != cfg->format)
		return usage_error("%s and %s conflict: choose one output format", p->format_opt, this_opt);
	cfg->format = f;
	snprintf(p->format_opt, sizeof p->format_opt, "%s", this_opt);
	return 0;
}

/* --jobs N: 1 to 256. */
static int parse_jobs(struct ws_config *cfg, const char *arg)
{
	char *end;
	long j = strtol(arg, &end, 10);
	if (*end || j < 1 || j > 256)
		return usage_error("invalid --jobs '%s' (1 to 256)", arg);
	cfg->jobs = (int)j;
	return 0;
}

/* --shard K/N: this run judges share K of N. */
static int parse_shard(struct ws_config *cfg, const char *arg)
{
	unsigned k, n;
	char extra;
	if (sscanf(arg, "%u/%u%c", &k, &n, &extra) != 2 || n == 0 || k == 0 || k > n)
		return usage_error("invalid --shard '%s' (K/N with 1 <= K <= N)", arg);
	cfg->shard_k = k;
	cfg->shard_n = n;
	return 0;
}

/* --live-budget SECONDS: 1 to 86400. */
static int parse_live_budget(struct ws_config *cfg, const char *arg)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > 86400 || arg[0] == '-')
		return usage_error("invalid --live-budget '%s' (seconds, 1 to 86400)", arg);
	cfg->live_budget_s = (unsigned)v;
	return 0;
}

/* --select WS101,WS103: the checks to keep. */
static int select_checks(struct ws_config *cfg, const char *arg)
{
	struct ws_err err = {0};
	/* a list: WS101,WS103 */
	char *list = ws_strdup(arg);
	if (!list)
		return usage_error("%s", "out of memory");
	int bad = 0;
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && !bad; tok = strtok_r(NULL, ",", &save))
		bad = ws_check_rules_select(&cfg->rules, tok, &err) < 0;
	free(list);
	if (bad || !cfg->rules.any_selected)
		return usage_error("%s", bad ? err.msg : "--select needs a check ID (WS101-WS105)");
	return 0;
}

/* An option whose argument is parsed (or that ends the parse: --help, a bad option):
 * 0 to go on, else what ws_cli_parse returns. */
static int take_value(int c, int argc, char **argv, struct ws_config *cfg, struct parsed *p)
{
	uint64_t sz;
	struct ws_err err = {0};
	char py[512];                      /* a venv's interpreter, for the hint */
	switch (c) {
	case 'r':
		if (!push(&cfg->dirs, &cfg->ndirs, optarg))
			return usage_error("%s", "out of memory");
		break;
	case OPT_DRIVER:
		if ((cfg->driver_cuda = ws_driver_parse(optarg, &err)) < 0)
			return usage_error("%s", err.msg);
		cfg->driver_given = true;
		break;
	case OPT_PYTHON:
		/* "--python /usr/bin/python3.12" is optional_argument's trap: the name would be
		 * scanned as a file and the default python3's packages judged instead */
		if (!optarg && optind < argc && argv[optind][0] != '-' && names_interpreter(argv[optind]))
			return usage_error("--python takes its interpreter after '=': did you mean --python=%s?",
					   argv[optind]);
		if (!optarg && optind < argc && argv[optind][0] != '-' && venv_python(argv[optind], py, sizeof py))
			return usage_error("--python takes its interpreter after '=': did you mean --python=%s?", py);
		cfg->python = optarg ? optarg : "python3";
		break;
	case OPT_JSON:
	case OPT_JSONL:
	case OPT_FORMAT:
		return choose_format(c, cfg, p);
	case OPT_DETAIL: {
		enum ws_detail d = WS_DETAIL_ARTIFACT;
		while (d <= WS_DETAIL_ENTRY && strcmp(optarg, ws_detail_name(d)))
			d++;
		if (d > WS_DETAIL_ENTRY)
			return usage_error("unknown --detail '%s' (artifact, object, container, entry)", optarg);
		cfg->detail = d;
		break;
	}
	case 'j':
		return parse_jobs(cfg, optarg);
	case OPT_SHARD:
		return parse_shard(cfg, optarg);
	case OPT_LIVE_BUDGET:
		return parse_live_budget(cfg, optarg);
	case OPT_COLOR:
		if (!strcmp(optarg, "auto")) cfg->color = -1;
		else if (!strcmp(optarg, "always")) cfg->color = 1;
		else if (!strcmp(optarg, "never")) cfg->color = 0;
		else return usage_error("invalid --color '%s' (auto, always, never)", optarg);
		break;
	case OPT_MAX_ENTRY:
		if (!(sz = parse_size(optarg)))
			return bad_size(c, optarg);
		cfg->lim.max_entry_bytes = sz;
		break;
	case OPT_MAX_MEMBER:
		if (!(sz = parse_size(optarg)))
			return bad_size(c, optarg);
		cfg->lim.max_member_bytes = sz;
		break;
	case OPT_MAX_TOTAL:
		if (!(sz = parse_size(optarg)))
			return bad_size(c, optarg);
		cfg->lim.max_total_bytes = sz;
		break;
	case 'h':
		cli_help(stdout);
		return 1;
	case OPT_IGNORE:
		if (ws_check_rules_ignore(&cfg->rules, optarg, &err) < 0)
			return usage_error("%s", err.msg);
		break;
	case OPT_SELECT:
		return select_checks(cfg, optarg);
	case ':': {
		const struct ws_option *o = option_of(optopt);
		if (o && o->val < 256)
			return usage_error("-%c (--%s) requires an argument", o->val, o->name);
		return usage_error("--%s requires an argument", o ? o->name : "?");
	}
	default:
		if (optopt && optopt < 256)
			return usage_error("invalid option '-%c'", optopt);
		return usage_error("unrecognized or ambiguous option '%s'", argv[optind - 1]);
	}
	return 0;
}

/* --gpu LIST: "auto" may stand beside names (--gpu auto,sm_120); the names are parsed
 * as targets. */
static int parse_gpus(struct ws_config *cfg, const char *gpu)
{
	struct ws_err err = {0};
	/* the names other than "auto" are copied to rest; the tokens come from a copy of
	 * their own (compacting in place let strtok_r run past the end of the string) */
	char *rest = ws_strdup(gpu), *toks = ws_strdup(gpu);
	size_t w = 0, gl = strlen(gpu);
	if (!rest || !toks) {
		free(rest);
		free(toks);
		return usage_error("%s", "out of memory");
	}
	if (!gl || gpu[0] == ',' || gpu[gl - 1] == ',' || strstr(gpu, ",,")) {
		/* an empty item: let the list parser name the problem */
		ws_targets_parse_list(gpu, &cfg->targets, &cfg->ntargets, &err);
		free(rest);
		free(toks);
		return usage_error("%s", err.msg);
	}
	for (char *save = NULL, *tok = strtok_r(toks, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (!strcasecmp(tok, "auto")) {
			cfg->gpu_auto = cfg->gpu_auto_asked = true;
			continue;
		}
		size_t n = strlen(tok);
		memmove(rest + w, tok, n);
		w += n;
		rest[w++] = ',';
	}
	if (w)
		rest[w - 1] = '\0';
	else
		rest[0] = '\0';
	free(toks);
	int bad = (w || !cfg->gpu_auto) &&
		  ws_targets_parse_list(rest, &cfg->targets, &cfg->ntargets, &err) < 0;
	free(rest);
	if (bad)
		return usage_error("%s", err.msg);
	return 0;
}

/* Whether --suggest's list names a package in each of its comma-separated items: not '',
 * ',' or 'torch,,xformers', which a script's empty variable gives (a usage error, not an
 * empty answer that passes). */
static bool suggest_list_ok(const char *pkgs)
{
	/* every item between commas holds a non-blank character */
	bool item = false;
	for (const char *p = pkgs;; p++) {
		if (*p == ',' || !*p) {
			if (!item)
				return false;
			if (!*p)
				return true;
			item = false;
		} else if (*p != ' ' && *p != '\t') {
			item = true;
		}
	}
}

/* Options that cannot go together, or that need another. */
static int check_conflicts(const struct ws_config *cfg)
{
	if (cfg->no_regress && !cfg->baseline)
		return usage_error("%s", "--no-regress needs --baseline");
	if (cfg->baseline && cfg->npaths + cfg->ndirs != 1)
		return usage_error("%s", "--baseline compares exactly one new input against OLD");
	if ((cfg->verify_db || cfg->db_report || cfg->db_merge) && !cfg->db)
		return usage_error("%s", "--verify-db, --report and --merge need --db FILE");
	if (cfg->since && !cfg->db_report)
		return usage_error("%s", "--since needs --report");
	if (cfg->db_report && cfg->db_merge)
		return usage_error("%s", "--report and --merge are separate commands");
	if (cfg->db_report && (cfg->npaths || cfg->ndirs || cfg->files_from || cfg->python))
		return usage_error("%s", "--report reads the store alone: no inputs");
	if (cfg->db_merge && (cfg->npaths == 0 || cfg->ndirs || cfg->files_from || cfg->python))
		return usage_error("%s", "--merge takes the stores to merge as operands");
	if (cfg->db && cfg->baseline)
		return usage_error("%s", "--db and --baseline cannot be combined");
	if (cfg->suggest && (cfg->npaths || cfg->ndirs || cfg->files_from || cfg->python || cfg->db || cfg->baseline))
		return usage_error("%s", "--suggest takes no inputs: it answers from the build table alone");
	if (cfg->suggest && !suggest_list_ok(cfg->suggest))
		return usage_error("--suggest '%s': name a package in each comma-separated item (torch,xformers)",
				   ws_q_text(cfg->suggest));
	if (cfg->suggest && cfg->ntargets == 0 && !cfg->gpu_auto)
		return usage_error("%s", "--suggest needs --gpu (a name, sm_XY, X.Y or auto)");
	/* the pip guard: its inputs are pip's (src/guard.c) */
	bool guard = cfg->pip_argv || cfg->pip_report;
	if ((cfg->guard_force || cfg->guard_dry_run || cfg->guard_no_build) && !cfg->pip_argv)
		return usage_error("%s", "--force, --dry-run and --no-build go with 'wheelscan pip install ...'");
	if (cfg->pip_argv && cfg->pip_report)
		return usage_error("%s", "--pip-report judges a report made elsewhere: not with 'pip install'");
	if (guard && (cfg->npaths || cfg->ndirs || cfg->files_from || cfg->db || cfg->baseline || cfg->suggest || cfg->env || cfg->live))
		return usage_error("%s", "the pip guard takes no other inputs (nor --db, --baseline, --suggest, --env, --live)");
	if (guard && cfg->format != WS_FMT_TEXT && cfg->format != WS_FMT_JSON)
		return usage_error("%s", "the pip guard writes text or --json");
	if (!guard && !cfg->env && !cfg->suggest && !cfg->db_report && cfg->npaths == 0 && cfg->ndirs == 0 && !cfg->files_from &&
	    !cfg->python)
		return usage_error("%s", "no input files");
	return 0;
}

/* `wheelscan [OPTION]... pip install ARGS...`: everything after "pip install" is pip's, kept
 * in cfg for the guard; wheelscan parses what comes before. Returns that count. */
static int pip_split(int argc, char **argv, struct ws_config *cfg)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "pip") && !strcmp(argv[i + 1], "install")) {
			cfg->pip_argv = argv + i + 2;
			cfg->pip_argc = argc - i - 2;
			return i;
		}
	}
	return argc;
}

int ws_cli_parse(int argc, char **argv, struct ws_config *cfg)
{
	struct option lo[NOPTIONS + 1];
	char shorts[3 * NOPTIONS + 2];
	getopt_tables(lo, shorts);

	/* a GitHub Actions step: no name may make a line of its log a workflow command */
	if (getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true"))
		ws_quote_ci_log(true);
	memset(cfg, 0, sizeof *cfg);
	argc = pip_split(argc, argv, cfg);
	if (abbreviated(argc, argv))
		return 2;
	set_defaults(cfg);
	struct parsed p = { 0 };
	struct ws_err err = {0};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (take_flag(c, cfg, &p))
			continue;
		int rc = take_value(c, argc, argv, cfg, &p);
		if (rc)
			return rc;
	}
	if (p.version) {
		ws_version_print(stdout, cfg->verbose > 0);
		return 1;
	}
	if (p.completion) {
		if (!ws_completion_print(stdout, p.completion, options, NOPTIONS))
			return usage_error("no completion for shell '%s' (bash, zsh, fish)", p.completion);
		return 1;
	}
	if (cfg->list_gpus) {
		ws_gpus_print(stdout);
		return 1;
	}
	if (p.config && p.no_config)
		return usage_error("%s", "--config and --no-config conflict");
	/* GitHub Actions: annotations beside the text, unless a format was chosen */
	if (!p.format_opt[0] && getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true"))
		cfg->annotate = true;
	for (int i = optind; i < argc; i++)
		if (!push(&cfg->paths, &cfg->npaths, argv[i]))
			return usage_error("%s", "out of memory");
	if (p.gpu) {
		int rc = parse_gpus(cfg, p.gpu);
		if (rc)
			return rc;
	}
	/* standard input is read once: a second "-" (or "-" beside --files-from -) would scan
	 * what the first left, nothing */
	size_t nstdin = (cfg->files_from && !strcmp(cfg->files_from, "-")) + (cfg->baseline && !strcmp(cfg->baseline, "-"));
	for (size_t i = 0; i < cfg->npaths; i++)
		nstdin += !strcmp(cfg->paths[i], "-");
	if (nstdin > 1)
		return usage_error("%s", "standard input ('-') can be read only once: name it once, and not "
				   "beside --files-from - or --baseline -");
	if (p.require && ws_targets_parse_list(p.require, &cfg->require, &cfg->nrequire, &err) < 0)
		return usage_error("%s", err.msg);
	/* the configuration of a project: not for the commands that judge no inputs */
	if (!p.no_config && !cfg->env && !cfg->suggest && !cfg->db_merge &&
	    ws_config_read(cfg, p.config, p.require != NULL, &err) < 0)
		return usage_error("%s", err.msg);
	/* a gate another file steered is named, always (a passing gate says whose rules it ran) */
	if (cfg->config_path && cfg->config_applied[0])
		fprintf(stderr, "wheelscan: gates from [tool.wheelscan] of '%s': %s\n", ws_q_text(cfg->config_path),
			cfg->config_applied);
	else if (cfg->config_path && cfg->verbose)
		fprintf(stderr, "wheelscan: settings from [tool.wheelscan] of '%s'\n", ws_q_text(cfg->config_path));
	int rc = check_conflicts(cfg);
	if (rc)
		return rc;
	/* --sbom-in writes a CycloneDX BOM: the format it implies, or the one given */
	if (cfg->sbom_in && p.format_opt[0] && cfg->format != WS_FMT_CYCLONEDX)
		return usage_error("--sbom-in and %s conflict: --sbom-in writes a CycloneDX BOM", p.format_opt);
	if (cfg->sbom_in)
		cfg->format = WS_FMT_CYCLONEDX;
	if ((cfg->format == WS_FMT_CYCLONEDX || cfg->format == WS_FMT_HTML) && (cfg->baseline || cfg->env || cfg->suggest))
		return usage_error("--format %s describes scanned artifacts: not with --baseline, --env or --suggest",
				   cfg->format == WS_FMT_HTML ? "html" : "cyclonedx");
	if (cfg->detail && cfg->format != WS_FMT_JSON && cfg->format != WS_FMT_JSONL)
		return usage_error("%s", "--detail is for JSON output: add --json or --jsonl");
	/* a line per artifact, and a store's report, are for mirrors: the verdicts, not every entry */
	if (!cfg->detail)
		cfg->detail = cfg->format == WS_FMT_JSONL || cfg->db_report ? WS_DETAIL_ARTIFACT : WS_DETAIL_ENTRY;
	if (cfg->live && cfg->ntargets == 0)
		cfg->gpu_auto = true;               /* --live judges for the devices it finds */
	if (getenv("NO_COLOR") && *getenv("NO_COLOR") && cfg->color == -1)
		cfg->color = 0;
	return 0;
}

void ws_cli_free(struct ws_config *cfg)
{
	free(cfg->targets);
	free(cfg->require);
	free(cfg->config_path);
	ws_check_rules_free(&cfg->rules);
	free(cfg->paths);
	free(cfg->dirs);
	for (size_t i = 0; i < cfg->nowned_dirs; i++)
		free(cfg->owned_dirs[i]);
	free(cfg->owned_dirs);
}

bool ws_cli_add_dir(struct ws_config *cfg, const char *dir)
{
	return push(&cfg->dirs, &cfg->ndirs, dir);
}
