/* source_files.c - a source over files on disk: a given list (the loose files of an
 * environment) or every regular file below a directory (an OCI layout given as a
 * directory), yielded in order, each read through its own descriptor with pread so that
 * the scanner can re-read an earlier range (ws_reader.reread). Symbolic links are not
 * followed out of a walk; a file that cannot be opened is an error of kind io. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_source.h"
#include "ws_util.h"

#define WALK_DEPTH 64

struct fsrc {
	struct ws_source s;
	char **paths;                  /* full paths, in order */
	size_t n, next;
	size_t strip;                  /* bytes of each path before the member name */
	int fd;                        /* the current member's, or -1 */
	uint64_t pos;
	struct ws_err merr;            /* the current member's failure */
};

static long file_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct fsrc *s = ctx;
	ssize_t r;
	if (s->fd < 0)
		return ws_err_set(err, s->merr.code, "%s", s->merr.msg);
	do
		r = pread(s->fd, buf, n, (off_t)s->pos);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return ws_err_set(err, WS_E_IO, "cannot read: %s", strerror(errno));
	s->pos += (uint64_t)r;
	return (long)r;
}

static int file_reread(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct fsrc *s = ctx;
	while (n) {
		ssize_t r = pread(s->fd, buf, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return ws_err_set(err, WS_E_IO, "cannot re-read: %s", r < 0 ? strerror(errno) : "the file is shorter");
		buf += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int fsrc_next(struct ws_source *src, struct ws_member *m, struct ws_err *err)
{
	struct fsrc *s = src->impl;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->next >= s->n)
		return 0;
	const char *path = s->paths[s->next++];
	memset(m, 0, sizeof *m);
	m->name = strlen(path) > s->strip ? path + s->strip : path;
	m->size = UINT64_MAX;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	s->pos = 0;
	m->rd = (struct ws_reader){ .read = file_read, .reread = file_reread, .ctx = s, .err = &s->merr };
	memset(&s->merr, 0, sizeof s->merr);
	if (fd < 0 || fstat(fd, &st) != 0) {
		/* one file's failure is no reason to stop: the member fails when read */
		ws_err_set(&s->merr, WS_E_IO, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		m->regular = true;
		return 1;
	}
	s->fd = fd;
	m->regular = S_ISREG(st.st_mode);
	m->size = m->regular ? (uint64_t)st.st_size : 0;
	return 1;
}

static void fsrc_close(struct ws_source *src)
{
	struct fsrc *s = src->impl;
	if (s->fd >= 0)
		close(s->fd);
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s);
}

static const struct ws_source_ops fsrc_ops = { .next = fsrc_next, .close = fsrc_close };

static struct fsrc *fsrc_new(struct ws_err *err)
{
	struct fsrc *s = ws_calloc(1, sizeof *s);
	if (!s) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return NULL;
	}
	s->s.ops = &fsrc_ops;
	s->s.pack = WS_PACK_NONE;
	s->s.format = "files";
	s->s.impl = s;
	s->s.independent = true;
	s->fd = -1;
	return s;
}

static bool push(struct fsrc *s, uint32_t *cap, const char *path)
{
	if (!ws_grow((void **)&s->paths, cap, (uint32_t)s->n + 1, sizeof *s->paths))
		return false;
	if (!(s->paths[s->n] = ws_strdup(path)))
		return false;
	s->n++;
	return true;
}

struct ws_source *ws_files_open(char *const *files, size_t n, size_t strip, struct ws_err *err)
{
	struct fsrc *s = fsrc_new(err);
	uint32_t cap = 0;
	if (!s)
		return NULL;
	s->strip = strip;
	for (size_t i = 0; i < n; i++)
		if (!push(s, &cap, files[i])) {
			fsrc_close(&s->s);
			ws_err_set(err, WS_E_MEMORY, "out of memory");
			return NULL;
		}
	return &s->s;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every regular file below dir (depth-first, names sorted per directory). */
static int walk(struct fsrc *s, uint32_t *cap, const char *dir, int depth, size_t max, struct ws_err *err)
{
	if (depth > WALK_DEPTH)
		return ws_err_set(err, WS_E_LIMIT, "directories nested deeper than %d below '%s'", WALK_DEPTH, dir);
	DIR *d = opendir(dir);
	if (!d)
		return ws_err_set(err, WS_E_IO, "cannot read directory '%s': %s", dir, strerror(errno));
	char **names = NULL;
	uint32_t ncap = 0;
	size_t nn = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (s->n + nn >= max) {
			rc = ws_err_set(err, WS_E_LIMIT, "more than %zu files below '%s'", max, dir);
			break;
		}
		if (!ws_grow((void **)&names, &ncap, (uint32_t)nn + 1, sizeof *names) || !(names[nn] = ws_strdup(de->d_name))) {
			rc = ws_err_set(err, WS_E_MEMORY, "out of memory");
			break;
		}
		nn++;
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof *names, cmp_str);
	for (size_t i = 0; i < nn && rc == 0; i++) {
		size_t dl = strlen(dir), kl = strlen(names[i]);
		char *p = ws_malloc(dl + kl + 2);
		struct stat st;
		if (!p) {
			rc = ws_err_set(err, WS_E_MEMORY, "out of memory");
			break;
		}
		memcpy(p, dir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, names[i], kl + 1);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rc = walk(s, cap, p, depth + 1, max, err);
		else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && !push(s, cap, p))
			rc = ws_err_set(err, WS_E_MEMORY, "out of memory");
		free(p);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return rc;
}

struct ws_source *ws_dir_open(const char *dir, size_t max_files, struct ws_err *err)
{
	struct fsrc *s = fsrc_new(err);
	uint32_t cap = 0;
	if (!s)
		return NULL;
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	char *root = ws_strndup(dir, dl);
	if (!root || walk(s, &cap, root, 0, max_files, err) < 0) {
		if (!root)
			ws_err_set(err, WS_E_MEMORY, "out of memory");
		free(root);
		fsrc_close(&s->s);
		return NULL;
	}
	s->strip = dl + 1;
	free(root);
	return &s->s;
}
