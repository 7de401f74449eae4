/* inputs.c - collect input paths: operands, -r directory trees (no symlinked
 * directories are followed, so no loops), --files-from lists, --shard, and the
 * installed distributions of Python environments found in the trees. */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_condameta.h"
#include "ws_inputs.h"
#include "ws_open.h"
#include "ws_quote.h"
#include "ws_record.h"
#include "ws_readfile.h"



static bool add(struct ws_inputs *in, const char *path, uint64_t size)
{
	if (in->n >= UINT32_MAX - 1 || !ws_grow((void **)&in->v, &in->cap, (uint32_t)in->n + 1, sizeof *in->v))
		return false;
	struct ws_input *v = &in->v[in->n];
	memset(v, 0, sizeof *v);
	if (!(v->path = ws_strdup(path)))
		return false;
	v->size = size;
	in->n++;
	return true;
}

static void input_clear(struct ws_input *v)
{
	free(v->error);
	free(v->abs_path);
	free(v->path);
	free(v->site);
	for (size_t i = 0; i < v->nfiles; i++)
		free(v->files[i]);
	free(v->files);
	memset(v, 0, sizeof *v);
}

static void add_skipped(struct ws_inputs *in, const char *path, const char *why)
{
	size_t len = strlen(path) + strlen(why) + 3;
	if (in->nskipped >= UINT32_MAX - 1 ||
	    !ws_grow((void **)&in->skipped, &in->skipped_cap, (uint32_t)in->nskipped + 1, sizeof *in->skipped))
		return;
	char **v = in->skipped;
	if ((v[in->nskipped] = ws_malloc(len))) {
		snprintf(v[in->nskipped], len, "%s: %s", path, why);
		in->nskipped++;
	}
}

static bool add_unreadable(struct ws_inputs *in, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool add_unreadable(struct ws_inputs *in, const char *path, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!add(in, path, 0))
		return false;
	return (in->v[in->n - 1].error = ws_strdup(msg)) != NULL;
}

/* Collects every regular file below root into in. Links below the root are not followed:
 * a link to a file is scanned, a link to a directory is not walked, and a link that
 * points nowhere or at itself is said, not silently dropped. The root itself is followed
 * when it is a link, and every path keeps the spelling the user gave. Returns false
 * only when out of memory. */
/* A link to a file whose target is not beneath the tree (realroot: the tree's resolved
 * path): the sandbox reads beneath the inputs only, so the target is named to it here,
 * before it is entered. Past WS_LINKS_OUT_MAX the link is skipped, and says why. Returns
 * whether the link is to be scanned; *ok false only when out of memory. */
static bool allow_link_out(struct ws_inputs *in, const char *realroot, const char *link, bool *ok)
{
	char *target = realpath(link, NULL);
	if (!target)
		return true;                     /* the open says what is wrong */
	size_t rl = realroot ? strlen(realroot) : 0;
	if (realroot && !strncmp(target, realroot, rl) && (target[rl] == '/' || !target[rl] || (rl == 1 && realroot[0] == '/'))) {
		free(target);                    /* inside the tree, which is readable already */
		return true;
	}
	if (in->nlinks_out >= WS_LINKS_OUT_MAX) {
		free(target);
		add_skipped(in, link, "symbolic link out of the tree, past the "
			    "65536 such links one run lets the sandbox read (--no-sandbox reads them all)");
		return false;
	}
	*ok = ws_strv_push(&in->links_out, &in->nlinks_out, target);
	free(target);
	return true;
}

static bool walk(struct ws_inputs *in, const char *root)
{
	char *const roots[] = {(char *)root, NULL};
	FTS *t = fts_open(roots, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, NULL);
	if (!t)                              /* an input of its own, so every format shows it */
		return add_unreadable(in, root, "cannot walk: %s", strerror(errno));
	char *realroot = realpath(root, NULL);
	bool ok = true;
	FTSENT *e;
	errno = 0;
	while (ok && (e = fts_read(t)) != NULL) {
		struct stat tst;
		switch (e->fts_info) {
		case FTS_D:
			/* a directory a format reads whole (an OCI image layout) is one input, not
			 * loose files: the opener says which */
			if (ws_open(&(struct ws_open_in){ .from = WS_FROM_DIR, .name = e->fts_path })) {
				ok = add(in, e->fts_path, 0);
				fts_set(t, e, FTS_SKIP);
			}
			break;
		case FTS_F:
			if (S_ISREG(e->fts_statp->st_mode))
				ok = add(in, e->fts_path, (uint64_t)e->fts_statp->st_size);
			break;
		case FTS_SL:
		case FTS_SLNONE:
			if (stat(e->fts_path, &tst) == 0) {
				if (S_ISREG(tst.st_mode) && allow_link_out(in, realroot, e->fts_path, &ok) && ok)
					ok = add(in, e->fts_path, (uint64_t)tst.st_size);
			} else {
				add_skipped(in, e->fts_path, errno == ELOOP ? "symbolic link loop" : "dangling symbolic link");
			}
			break;
		case FTS_DNR:                   /* an input of its own, so every format shows it */
			ok = add_unreadable(in, e->fts_path, "cannot read directory: %s", strerror(e->fts_errno));
			break;
		case FTS_NS:
		case FTS_ERR:
			if (e->fts_level == 0)
				ok = add_unreadable(in, root, "cannot walk: %s", strerror(e->fts_errno));
			else
				ok = add_unreadable(in, e->fts_path, "cannot stat: %s", strerror(e->fts_errno));
			break;
		default:
			break;
		}
		errno = 0;
	}
	if (ok && errno)
		ok = add_unreadable(in, root, "cannot walk: %s", strerror(errno));
	fts_close(t);
	free(realroot);
	return ok;
}

static int cmp_input(const void *x, const void *y)
{
	return strcmp(((const struct ws_input *)x)->path, ((const struct ws_input *)y)->path);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* ---- Python environments ------------------------------------------------------ */

/* "SITE/NAME.dist-info/RECORD" -> the length of SITE, or 0 when path is no such file. */
static size_t record_site(const char *path)
{
	size_t n = strlen(path);
	static const char tail[] = ".dist-info/RECORD";
	if (n < sizeof tail || strcmp(path + n - (sizeof tail - 1), tail) != 0)
		return 0;
	const char *slash = NULL;
	for (const char *p = path + n - (sizeof tail - 1); p > path; p--)
		if (p[-1] == '/') {
			slash = p - 1;
			break;
		}
	return slash && slash > path ? (size_t)(slash - path) : 0;
}


/* "PREFIX/conda-meta/PKG.json" -> the length of PREFIX, or 0 when path is no such file. */
static size_t conda_prefix(const char *path)
{
	static const char dir[] = "/conda-meta/";
	size_t n = strlen(path);
	const char *m = NULL;
	for (const char *p = strstr(path, dir); p; p = strstr(p + 1, dir))
		m = p;
	if (!m || m == path || n < 5 || strcmp(path + n - 5, ".json") != 0 || strchr(m + sizeof dir - 1, '/'))
		return 0;
	return (size_t)(m - path);
}

/* Remembers that the file at index k lies in the environment `site`: the deepest one wins
 * (a site-packages inside a conda prefix). */
static void note_site(char **site_of, size_t *site_len, size_t k, char *site, size_t len)
{
	if (!site_of[k] || len > site_len[k]) {
		site_of[k] = site;
		site_len[k] = len;           /* kept: sites nest thousands deep, paths run long */
	}
}

static ssize_t find_input(const struct ws_inputs *in, size_t first, const char *path)
{
	size_t lo = first, hi = in->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(in->v[mid].path, path);
		if (c == 0)
			return (ssize_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}


/* The inputs below directory dir ("dir/..."), as the range [*lo, *hi) of the sorted
 * in->v[first..n): they are contiguous ('/' sorts after '-' and '.'). */
static void below(const struct ws_inputs *in, size_t first, const char *dir, size_t dl, size_t *lo, size_t *hi)
{
	size_t a = first, b = in->n;
	while (a < b) {                          /* the first path >= "dir/" */
		size_t mid = a + (b - a) / 2;
		int c = strncmp(in->v[mid].path, dir, dl);
		if (c < 0 || (c == 0 && (unsigned char)in->v[mid].path[dl] < '/'))
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	b = in->n;
	while (a < b) {                          /* the first path past every "dir/..." */
		size_t mid = a + (b - a) / 2;
		if (!strncmp(in->v[mid].path, dir, dl) && in->v[mid].path[dl] == '/')
			a = mid + 1;
		else
			b = mid;
	}
	*hi = a;                                 /* by search: sites nest thousands deep */
}

/* Marks the inputs "root/ROW" for the rows an environment's record lists as owned (1): rows
 * points at the path of the first of nrows records, stride bytes apart (RECORD lines, conda files);
 * returns their total size. Rows outside root (absolute, "..") are not followed. */
static uint64_t own_rows(struct ws_inputs *in, size_t first, uint8_t *owner, const char *root,
			 const char *const *rows, size_t nrows, size_t stride)
{
	char *realroot = realpath(root, NULL);
	bool ok = true;
	uint64_t size = 0;
	size_t rl = strlen(root);
	for (size_t r = 0; r < nrows; r++) {
		const char *row = *(const char *const *)((const char *)rows + r * stride);
		if (!ws_record_row_inside(row))
			continue;
		size_t fl = rl + 1 + strlen(row) + 1;
		char *full = ws_malloc(fl);
		if (!full)
			break;
		snprintf(full, fl, "%s/%s", root, row);
		ssize_t k = find_input(in, first, full);
		struct stat st;
		/* a file the walk did not meet but that is there lies beneath a link to a
		 * directory (a package linked in from a shared store): the sandbox is told */
		if (k < 0 && ok && stat(full, &st) == 0 && S_ISREG(st.st_mode))
			allow_link_out(in, realroot, full, &ok);
		free(full);
		if (k >= 0 && !owner[k - (ssize_t)first]) {
			owner[k - (ssize_t)first] = 1;
			size += in->v[k].size;
		}
	}
	free(realroot);
	return size;
}

/* True the first time dir is seen in done (then added): a pass over the files below a
 * directory is made once per directory, not once per record in it (thousands of conda
 * records share one prefix, thousands of dist-infos one site-packages). */
static bool first_visit(struct ws_strpool *done, const char *dir, size_t len, bool *oom)
{
	uint32_t n = done->n, idx = ws_strpool_intern(done, dir, len);
	if (idx == UINT32_MAX)
		*oom = true;
	return idx == n;
}

/* The files of no distribution below an environment: one input per first directory below
 * it (owner 2); a loose file at the top stays an input of its own. False when out of memory. */
static bool group_loose(struct ws_inputs *in, size_t first, uint8_t *owner, char **site_of, struct ws_inputs *add_in)
{
	/* loose files: grouped by their first directory below the environment; only the last
	 * group grows, files_cap is the room in its files */
	uint32_t files_cap = 0;
	for (size_t k = first; k < in->n; k++) {
		const char *site = site_of[k - first];
		if (owner[k - first] || !site)
			continue;
		size_t sl = strlen(site);
		const char *rest = in->v[k].path + sl + 1;
		const char *slash = strchr(rest, '/');
		if (!slash)
			continue;                    /* a loose file at the top stays a file of its own */
		size_t gl = (size_t)(slash - in->v[k].path);
		struct ws_input *g = add_in->n ? &add_in->v[add_in->n - 1] : NULL;
		if (!g || g->kind != WS_INPUT_LOOSE || strlen(g->path) != gl || strncmp(g->path, in->v[k].path, gl)) {
			char *gp = ws_strndup(in->v[k].path, gl);
			if (!gp || !add(add_in, gp, 0)) {
				free(gp);
				return false;
			}
			free(gp);
			g = &add_in->v[add_in->n - 1];
			g->kind = WS_INPUT_LOOSE;
			files_cap = 0;
			if (!(g->site = ws_strdup(site)))
				return false;
		}
		if (g->nfiles >= UINT32_MAX - 1 ||
		    !ws_grow((void **)&g->files, &files_cap, (uint32_t)g->nfiles + 1, sizeof *g->files))
			return false;
		char **f = g->files;
		if (!(f[g->nfiles] = ws_strdup(in->v[k].path)))
			return false;
		g->nfiles++;
		g->size += in->v[k].size;
		owner[k - first] = 2;
	}
	return true;
}

/* The tree's inputs in->v[first..] replaced: the files left, then the distributions and
 * groups of add_in (moved), sorted. False when out of memory. */
static bool merge_groups(struct ws_inputs *in, size_t first, const uint8_t *owner, struct ws_inputs *add_in)
{
	/* the tree's inputs: files left, then the distributions and groups, sorted again; the
	 * other conda records are inputs of their own (they were marked 3 by an earlier one) */
	size_t w = first;
	for (size_t k = first; k < in->n; k++) {
		if (owner[k - first])
			input_clear(&in->v[k]);
		else
			in->v[w++] = in->v[k];
	}
	in->n = w;
	for (size_t k = 0; k < add_in->n; k++) {
		if (!ws_grow((void **)&in->v, &in->cap, (uint32_t)in->n + 1, sizeof *in->v))
			return false;
		in->v[in->n++] = add_in->v[k];
		memset(&add_in->v[k], 0, sizeof add_in->v[k]);
	}
	if (in->n - first > 1)
		qsort(in->v + first, in->n - first, sizeof *in->v, cmp_input);
	return true;
}

/* Turns the files of in->v[first..] (sorted) that belong to Python environments into one
 * input per installed distribution and one per directory of files no RECORD owns. */
static int group_environments(struct ws_inputs *in, size_t first)
{
	size_t n = in->n - first;
	uint8_t *owner = NULL;               /* 1 owned by a RECORD, 2 loose in an environment */
	char **site_of = NULL;
	size_t *site_len = NULL;
	struct ws_inputs add_in = {0};
	struct ws_strpool done_meta = {0}, done_site = {0};
	int rc = -1;
	bool any = false, oom = false;

	for (size_t i = first; i < in->n && !any; i++)
		any = record_site(in->v[i].path) != 0 || conda_prefix(in->v[i].path) != 0;
	if (!any)
		return 0;
	if (!(owner = ws_calloc(n, 1)) || !(site_of = ws_calloc(n, sizeof *site_of)) ||
	    !(site_len = ws_calloc(n, sizeof *site_len)))
		goto out;
	/* conda packages first: the dist-info of a package conda installed is conda's */
	for (size_t i = first; i < in->n; i++) {
		size_t pl = conda_prefix(in->v[i].path);
		if (!pl)
			continue;
		char *prefix = ws_strndup(in->v[i].path, pl);
		size_t len = 0;
		char *text = prefix ? ws_read_small(in->v[i].path, WS_RECORD_MAX, &len) : NULL;
		struct ws_conda_pkg pkg;
		struct ws_err err = {0};
		uint64_t size = 0;
		size_t lo, hi;
		if (text && prefix && ws_conda_parse(&pkg, text, len, &err) == 0) {
			size = own_rows(in, first, owner, prefix, (const char *const *)&pkg.files[0].path, pkg.nfiles,
					sizeof *pkg.files);
			ws_conda_free(&pkg);
		}
		free(text);
		/* conda's own metadata (the records, history) belongs to no package; the prefix's
		 * first record marks it all (a later pass would find every file marked) */
		if (first_visit(&done_meta, in->v[i].path, pl, &oom)) {
			below(in, first, in->v[i].path, pl + strlen("/conda-meta"), &lo, &hi);
			for (size_t k = lo; k < hi; k++)
				if (!strchr(in->v[k].path + pl + strlen("/conda-meta/"), '/') && !owner[k - first])
					owner[k - first] = 3;
		}
		owner[i - first] = 1;
		if (!prefix || !add(&add_in, in->v[i].path, size)) {
			free(prefix);
			goto out;
		}
		add_in.v[add_in.n - 1].kind = WS_INPUT_CONDA;
		add_in.v[add_in.n - 1].site = prefix;
		if (first_visit(&done_site, prefix, pl, &oom)) {  /* the same prefix notes nothing new */
			below(in, first, prefix, pl, &lo, &hi);
			for (size_t k = lo; k < hi; k++)
				note_site(site_of, site_len, k - first, prefix, pl);
		}
		if (oom)
			goto out;
	}
	for (size_t i = first; i < in->n; i++) {
		size_t sl = record_site(in->v[i].path);
		if (!sl || owner[i - first])
			continue;                    /* no RECORD, or a conda package's */
		char *site = ws_strndup(in->v[i].path, sl);
		const char *rec_path = in->v[i].path;
		size_t dl = strlen(rec_path) - strlen("/RECORD");
		char *distinfo = ws_strndup(rec_path, dl);
		size_t len = 0;
		char *text = site && distinfo ? ws_read_small(rec_path, WS_RECORD_MAX, &len) : NULL;
		struct ws_record_index rec = {0};
		struct ws_err err = {0};
		uint64_t size = 0;
		size_t lo, hi;
		if (text && ws_record_parse(&rec, text, len, &err) == 0 && rec.n)
			size = own_rows(in, first, owner, site, (const char *const *)&rec.line[0].path, rec.n,
					sizeof *rec.line);
		/* the dist-info's own files are the distribution's, listed or not */
		if (distinfo) {
			below(in, first, distinfo, dl, &lo, &hi);
			for (size_t k = lo; k < hi; k++)
				owner[k - first] = 1;
		}
		ws_record_index_free(&rec);
		free(text);
		if (!site || !distinfo || !add(&add_in, distinfo, size)) {
			free(site);
			free(distinfo);
			goto out;
		}
		add_in.v[add_in.n - 1].kind = WS_INPUT_DIST;
		add_in.v[add_in.n - 1].site = site;
		free(distinfo);
		if (first_visit(&done_site, site, sl, &oom)) {
			below(in, first, site, sl, &lo, &hi);
			for (size_t k = lo; k < hi; k++)
				note_site(site_of, site_len, k - first, site, sl);
		}
		if (oom)
			goto out;
	}
	if (!group_loose(in, first, owner, site_of, &add_in) || !merge_groups(in, first, owner, &add_in))
		goto out;
	rc = 0;
out:
	for (size_t k = 0; k < add_in.n; k++)
		input_clear(&add_in.v[k]);
	free(add_in.v);
	free(owner);
	free(site_of);
	free(site_len);
	ws_strpool_free(&done_meta);
	ws_strpool_free(&done_site);
	return rc;
}

static bool add_operand(struct ws_inputs *in, const char *path, bool listed)
{
	struct stat st;
	if (!add(in, path, stat(path, &st) == 0 ? (uint64_t)st.st_size : 0))
		return false;
	const char *slash = strrchr(path, '/');
	if (!listed && slash)
		in->v[in->n - 1].key_off = (size_t)(slash + 1 - path);
	return true;
}

/* --files-from FILE (- for standard input): one path per line, ending in \n (a \r before it
 * is dropped; empty lines are skipped). A line longer than WS_LIST_LINE_MAX, a NUL byte (no
 * path holds one: a NUL-separated list?), a "-" line (standard input is named as an operand)
 * and a read error (a directory, an I/O error) each reject the whole list, naming the line:
 * none of them is the end of the list. Returns 0; -1 out of memory; -2 reported on stderr. */
#define WS_LIST_LINE_MAX ((size_t)64 << 10)
static int read_list(struct ws_inputs *in, const char *name)
{
	bool is_stdin = !strcmp(name, "-");
	FILE *f = is_stdin ? stdin : fopen(name, "r");
	if (!f) {
		fprintf(stderr, "wheelscan: cannot read '%s': %s\n", ws_q_text(name), strerror(errno));
		return -2;
	}
	const char *shown = is_stdin ? "standard input" : ws_q_text(name);
	char *line = malloc(WS_LIST_LINE_MAX + 1);
	size_t len = 0;
	unsigned long long lineno = 1;
	int rc = 0, c;
	if (!line)
		rc = -1;
	while (rc == 0) {
		errno = 0;
		if ((c = getc_unlocked(f)) == EOF) {
			if (ferror(f)) {
				fprintf(stderr, "wheelscan: --files-from: cannot read '%s' (line %llu): %s\n", shown, lineno,
					strerror(errno ? errno : EIO));
				rc = -2;
				break;
			}
			if (len == 0)
				break;
			c = '\n';                       /* a last line without its newline */
		}
		if (c == '\n') {
			while (len > 0 && line[len - 1] == '\r')
				len--;
			line[len] = '\0';
			if (len == 1 && line[0] == '-') {
				fprintf(stderr, "wheelscan: --files-from '%s': line %llu is '-': name standard input as an "
					"operand, not in a list\n", shown, lineno);
				rc = -2;
			} else if (len > 0 && !add_operand(in, line, true))
				rc = -1;
			len = 0;
			lineno++;
			if (feof(f))
				break;
			continue;
		}
		if (c == '\0') {
			fprintf(stderr, "wheelscan: --files-from '%s': line %llu holds a NUL byte (the list is one path "
				"per line, not NUL-separated)\n", shown, lineno);
			rc = -2;
		} else if (len == WS_LIST_LINE_MAX) {
			fprintf(stderr, "wheelscan: --files-from '%s': line %llu is longer than %zu bytes (not a list of "
				"paths?)\n", shown, lineno, WS_LIST_LINE_MAX);
			rc = -2;
		} else
			line[len++] = (char)c;
	}
	free(line);
	if (!is_stdin)
		fclose(f);
	return rc;
}

bool ws_inputs_in_shard(const struct ws_config *cfg, const char *key)
{
	return cfg->shard_n <= 1 || path_hash(key) % cfg->shard_n == cfg->shard_k - 1;
}

int ws_inputs_collect(const struct ws_config *cfg, struct ws_inputs *in)
{
	memset(in, 0, sizeof *in);
	for (size_t i = 0; i < cfg->npaths; i++)
		if (!add_operand(in, cfg->paths[i], false))
			goto oom;
	if (cfg->files_from) {
		int rc = read_list(in, cfg->files_from);
		if (rc < 0) {
			ws_inputs_free(in);          /* the operands and the lines added before it */
			return rc == -1 ? (fprintf(stderr, "wheelscan: out of memory collecting inputs\n"), -1) : -2;
		}
	}
	for (size_t i = 0; i < cfg->ndirs; i++) {
		size_t first = in->n, first_skipped = in->nskipped;
		const char *root = cfg->dirs[i];
		if (!walk(in, root))
			goto oom;
		if (in->n - first > 1)
			qsort(in->v + first, in->n - first, sizeof *in->v, cmp_input);
		if (in->nskipped - first_skipped > 1)
			qsort(in->skipped + first_skipped, in->nskipped - first_skipped, sizeof *in->skipped, cmp_str);
		for (size_t k = first; k < in->n; k++)
			in->v[k].from_tree = true;
		if (group_environments(in, first) < 0)
			goto oom;
		/* every path of the tree starts with the root as spelled; the share hashes what
		 * follows, so "d", "./d/" and "/abs/d" split a tree alike */
		size_t rl = strlen(root);
		while (rl > 1 && root[rl - 1] == '/')
			rl--;
		for (size_t k = first; k < in->n; k++) {
			size_t off = strncmp(in->v[k].path, root, rl) ? 0 : rl;
			while (off && in->v[k].path[off] == '/')
				off++;
			in->v[k].key_off = off;
		}
	}
	in->nlisted = in->n;
	if (cfg->shard_n > 1) {
		/* A share by a hash of the name stays stable when files are added to a mirror,
		 * and does not depend on where the tree is mounted or how its root is spelled. */
		size_t k = 0;
		for (size_t i = 0; i < in->n; i++) {
			if (path_hash(in->v[i].path + in->v[i].key_off) % cfg->shard_n == cfg->shard_k - 1)
				in->v[k++] = in->v[i];
			else
				input_clear(&in->v[i]);
		}
		in->n = k;
	}
	return 0;
oom:
	fprintf(stderr, "wheelscan: out of memory collecting inputs\n");
	return -1;
}

void ws_inputs_free(struct ws_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		input_clear(&in->v[i]);
	free(in->v);
	for (size_t i = 0; i < in->nskipped; i++)
		free(in->skipped[i]);
	free(in->skipped);
	for (size_t i = 0; i < in->nlinks_out; i++)
		free(in->links_out[i]);
	free(in->links_out);
	memset(in, 0, sizeof *in);
}

void ws_inputs_drop(struct ws_inputs *in, size_t i)
{
	if (i >= in->n)
		return;
	input_clear(&in->v[i]);
	memmove(&in->v[i], &in->v[i + 1], (in->n - i - 1) * sizeof *in->v);
	in->n--;
	if (in->nlisted)
		in->nlisted--;
}

