/* inputs.c - collect input paths: operands, -r directory trees (no symlinked
 * directories are followed, so no loops), --files-from lists, and --shard. */
#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ws_inputs.h"
#include "ws_util.h"

/* nftw has no user pointer: the tree walk collects into this (one walk at a time). */
static struct ws_inputs *walk_into;
static bool walk_failed;

static bool add(struct ws_inputs *in, const char *path, uint64_t size)
{
	struct ws_input *v = ws_reallocarray(in->v, in->n + 1, sizeof *v);
	if (!v)
		return false;
	in->v = v;
	if (!(v[in->n].path = ws_strdup(path)))
		return false;
	v[in->n++].size = size;
	return true;
}

static void add_error(struct ws_inputs *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_error(struct ws_inputs *in, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char **e = ws_reallocarray(in->errors, in->nerrors + 1, sizeof *e);
	if (!e)
		return;
	in->errors = e;
	if ((e[in->nerrors] = ws_strdup(msg)))
		in->nerrors++;
}

static int walk_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct stat tst;
	switch (flag) {
	case FTW_F:
		if (S_ISREG(st->st_mode) && !add(walk_into, path, (uint64_t)st->st_size))
			return walk_failed = true, 1;
		break;
	case FTW_SL:               /* a link to a file is scanned; a link to a directory is not walked */
		if (stat(path, &tst) == 0 && S_ISREG(tst.st_mode) && !add(walk_into, path, (uint64_t)tst.st_size))
			return walk_failed = true, 1;
		break;
	case FTW_DNR:
		add_error(walk_into, "cannot read directory '%s': %s", path, strerror(EACCES));
		break;
	case FTW_NS:
		add_error(walk_into, "cannot stat '%s': %s", path, strerror(errno ? errno : EACCES));
		break;
	default:
		break;
	}
	return 0;
}

static int cmp_input(const void *x, const void *y)
{
	return strcmp(((const struct ws_input *)x)->path, ((const struct ws_input *)y)->path);
}

static uint32_t path_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static bool add_operand(struct ws_inputs *in, const char *path)
{
	struct stat st;
	return add(in, path, stat(path, &st) == 0 ? (uint64_t)st.st_size : 0);
}

int ws_inputs_collect(const struct ws_config *cfg, struct ws_inputs *in)
{
	memset(in, 0, sizeof *in);
	for (size_t i = 0; i < cfg->npaths; i++)
		if (!add_operand(in, cfg->paths[i]))
			goto oom;
	if (cfg->files_from) {
		FILE *f = strcmp(cfg->files_from, "-") ? fopen(cfg->files_from, "r") : stdin;
		if (!f) {
			fprintf(stderr, "wheelscan: cannot read '%s': %s\n", cfg->files_from, strerror(errno));
			return -1;
		}
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		while ((len = getline(&line, &cap, f)) > 0) {
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = '\0';
			if (len > 0 && !add_operand(in, line)) {
				free(line);
				goto oom;
			}
		}
		free(line);
		if (f != stdin)
			fclose(f);
	}
	for (size_t i = 0; i < cfg->ndirs; i++) {
		size_t first = in->n;
		walk_into = in;
		walk_failed = false;
		if (nftw(cfg->dirs[i], walk_cb, 32, FTW_PHYS) != 0 && !walk_failed)
			add_error(in, "cannot walk '%s': %s", cfg->dirs[i], strerror(errno));
		if (walk_failed)
			goto oom;
		if (in->n - first > 1)
			qsort(in->v + first, in->n - first, sizeof *in->v, cmp_input);
	}
	if (cfg->shard_n > 1) {
		/* A share by path hash stays stable when files are added to a mirror. */
		size_t k = 0;
		for (size_t i = 0; i < in->n; i++) {
			if (path_hash(in->v[i].path) % cfg->shard_n == cfg->shard_k - 1)
				in->v[k++] = in->v[i];
			else
				free(in->v[i].path);
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
		free(in->v[i].path);
	free(in->v);
	for (size_t i = 0; i < in->nerrors; i++)
		free(in->errors[i]);
	free(in->errors);
	memset(in, 0, sizeof *in);
}
