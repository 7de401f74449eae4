/* source_files.c - sources over files on disk: every regular file below a directory (an
 * OCI layout given as a directory), yielded in order, and a given list (an installed
 * distribution's files, the loose files of an environment) as a random-access source,
 * each file read through its own descriptor with pread so that the scanner can re-read an
 * earlier range (ws_reader.reread). Symbolic links are not followed out of a walk; a file
 * that cannot be opened is an error of kind io. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

/* The next bytes of fd at *pos (what struct ws_reader's read returns), for both sources. */
static long pread_next(int fd, uint64_t *pos, uint8_t *buf, size_t n, struct ws_err *err)
{
	ssize_t r;
	do
		r = pread(fd, buf, n, (off_t)*pos);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return ws_err_set(err, WS_E_IO, "cannot read: %s", strerror(errno));
	*pos += (uint64_t)r;
	return (long)r;
}

/* Exactly n bytes of fd at off (struct ws_reader's reread), for both sources. */
static int pread_exact(int fd, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	while (n) {
		ssize_t r = pread(fd, buf, n, (off_t)off);
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

static long file_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct fsrc *s = ctx;
	if (s->fd < 0)
		return ws_err_set(err, s->merr.code, "%s", s->merr.msg);
	return pread_next(s->fd, &s->pos, buf, n, err);
}

static int file_reread(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct fsrc *s = ctx;
	return pread_exact(s->fd, off, buf, n, err);
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

/* ---- the same files, random access ---------------------------------------------------- */

struct frs {
	struct ws_rsource s;
	bool listed;                   /* a file not there is absent, not an error */
	char **paths;
	uint64_t *cost;                /* sizes seen before reading, for largest-first order */
	uint64_t *opened;              /* sizes when opened, UINT64_MAX: absent or not opened */
	uint32_t *same_as;
	bool *hash_only;
};

/* One runner's file: one member at a time. */
struct frunner {
	int fd;
	uint64_t pos, size;
	bool eof;
	struct ws_err err;
};

static long frs_read(void *ctx, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct frunner *h = ctx;
	long r = pread_next(h->fd, &h->pos, buf, n, err);
	h->eof = r == 0;
	return r;
}

static int frs_reread(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err)
{
	struct frunner *h = ctx;
	return pread_exact(h->fd, off, buf, n, err);
}

static void *frs_runner_open(struct ws_rsource *s, bool first, const struct ws_scan_opts *so, struct ws_err *err)
{
	struct frunner *h = ws_calloc(1, sizeof *h);
	if (!h) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return NULL;
	}
	h->fd = -1;
	return h;
}

static void frs_runner_close(struct ws_rsource *s, void *runner)
{
	struct frunner *h = runner;
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

static int frs_open(struct ws_rsource *src, void *runner, uint32_t i, struct ws_digest *dg, struct ws_member *m,
		    struct ws_err *err)
{
	struct frs *s = src->impl;
	struct frunner *h = runner;
	struct stat st;
	int fd = open(s->paths[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return s->listed && (errno == ENOENT || errno == ENOTDIR) ? 0
									  : ws_err_set(err, WS_E_IO, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	*h = (struct frunner){ .fd = fd, .size = (uint64_t)st.st_size };
	s->opened[i] = h->size;
	memset(m, 0, sizeof *m);
	m->name = src->names[i];
	m->size = h->size;
	m->regular = true;
	m->rd = (struct ws_reader){ .read = frs_read, .reread = frs_reread, .ctx = h, .err = &h->err };
	return 1;
}

static int frs_close(struct ws_rsource *s, void *runner, struct ws_err *err)
{
	struct frunner *h = runner;
	int rc = 0;
	if (h->eof && h->pos != h->size)             /* it changed while it was read */
		rc = ws_err_set(err, WS_E_FORMAT, "member ends after %llu bytes, not the %llu its header declares",
				(unsigned long long)h->pos, (unsigned long long)h->size);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	return rc;
}

static const struct ws_rsource_ops frs_ops = {
	.runner_open = frs_runner_open,
	.runner_close = frs_runner_close,
	.open = frs_open,
	.close = frs_close,
};

/* path with every "//" run and "/./" step made one "/": one name however it is spelled
 * (".." is left alone: through a link it need not mean the parent). NULL: no memory. */
static char *spelled_once(const char *path)
{
	char *out = ws_strdup(path);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; path[i];) {
		if (path[i] == '/' && o && out[o - 1] == '/') {
			i++;                                  /* "//" */
		} else if (path[i] == '.' && o && out[o - 1] == '/' && (path[i + 1] == '/' || !path[i + 1])) {
			i += path[i + 1] ? 2 : 1;             /* "/./" or a final "/." */
		} else {
			out[o++] = path[i++];
		}
	}
	out[o] = '\0';
	return out;
}

/* Marks each file met before (by device and inode, never through a link) as that member
 * again, or as read for its digest only; and a link met before under another spelling
 * of the same name as that member. */
static bool frs_dedup(struct frs *s, const char *const *algos)
{
	struct ws_strpool files = { 0 }, digests = { 0 }, links = { 0 };
	uint32_t *first_file = NULL, *first_digest = NULL, *first_link = NULL, fcap = 0, dcap = 0, lcap = 0;
	bool ok = true;
	for (uint32_t i = 0; ok && i < s->s.n; i++) {
		struct stat st;
		char key[160];
		if (lstat(s->paths[i], &st) != 0)
			continue;                    /* absent */
		if (S_ISLNK(st.st_mode)) {
			/* A link is read under each of its names, but one name spelled many ways
			 * ("a//l", "a/./l") is one name: read once. */
			char *norm = spelled_once(s->paths[i]);
			if (!norm) {
				ok = false;
				break;
			}
			uint32_t n0 = links.n, l = ws_strpool_intern(&links, norm, strlen(norm));
			free(norm);
			if (l == UINT32_MAX || !ws_grow((void **)&first_link, &lcap, links.n, sizeof *first_link)) {
				ok = false;
				break;
			}
			if (l == n0)
				first_link[l] = i;
			else if (!algos || !algos[i] || !algos[first_link[l]] || !strcmp(algos[i], algos[first_link[l]]))
				s->same_as[i] = first_link[l];
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
		uint32_t n0 = files.n, f = ws_strpool_intern(&files, key, strlen(key));
		if (f == UINT32_MAX || !ws_grow((void **)&first_file, &fcap, files.n, sizeof *first_file)) {
			ok = false;
			break;
		}
		if (f == n0)
			first_file[f] = i;
		const char *algo = algos ? algos[i] : NULL;
		if (!algo) {
			if (f != n0)
				s->same_as[i] = first_file[f];   /* found, and nothing to hash */
			continue;
		}
		size_t kl = strlen(key);
		snprintf(key + kl, sizeof key - kl, ":%.32s", algo);
		uint32_t d0 = digests.n, k = ws_strpool_intern(&digests, key, strlen(key));
		if (k == UINT32_MAX || !ws_grow((void **)&first_digest, &dcap, digests.n, sizeof *first_digest)) {
			ok = false;
			break;
		}
		if (k == d0)
			first_digest[k] = i;
		if (k != d0)
			s->same_as[i] = first_digest[k];
		else if (f != n0)
			s->hash_only[i] = true;          /* scanned under its first name */
	}
	ws_strpool_free(&files);
	ws_strpool_free(&digests);
	ws_strpool_free(&links);
	free(first_file);
	free(first_digest);
	free(first_link);
	return ok;
}

struct ws_rsource *ws_files_rsource(char *const *paths, char *const *names, size_t n, const char *const *algos,
				    bool listed, struct ws_err *err)
{
	struct frs *s = ws_calloc(1, sizeof *s);
	if (!s || n >= UINT32_MAX)
		goto nomem;
	s->s.ops = &frs_ops;
	s->s.impl = s;
	s->s.n = (uint32_t)n;
	s->s.stored_members = true;
	s->listed = listed;
	if (n && (!(s->paths = ws_calloc(n, sizeof *s->paths)) || !(s->s.names = ws_calloc(n, sizeof *s->s.names)) ||
		  !(s->cost = ws_calloc(n, sizeof *s->cost)) || !(s->opened = ws_calloc(n, sizeof *s->opened)) ||
		  !(s->same_as = ws_calloc(n, sizeof *s->same_as)) || !(s->hash_only = ws_calloc(n, sizeof *s->hash_only))))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!(s->paths[i] = ws_strdup(paths[i])) || !(s->s.names[i] = ws_strdup(names[i])))
			goto nomem;
		s->cost[i] = stat(paths[i], &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		s->opened[i] = UINT64_MAX;
		s->same_as[i] = UINT32_MAX;
	}
	if (!frs_dedup(s, algos))
		goto nomem;
	s->s.cost = s->cost;
	s->s.same_as = s->same_as;
	s->s.hash_only = s->hash_only;
	return &s->s;
nomem:
	ws_files_rsource_free(s ? &s->s : NULL);
	ws_err_set(err, WS_E_MEMORY, "out of memory");
	return NULL;
}

uint64_t ws_files_rsource_size(const struct ws_rsource *src, uint32_t i)
{
	const struct frs *s = src->impl;
	if (s->same_as[i] != UINT32_MAX)
		i = s->same_as[i];
	return s->opened[i];
}

void ws_files_rsource_free(struct ws_rsource *src)
{
	if (!src)
		return;
	struct frs *s = src->impl ? src->impl : (struct frs *)src;
	for (uint32_t i = 0; i < s->s.n; i++) {
		if (s->paths)
			free(s->paths[i]);
		if (s->s.names)
			free(s->s.names[i]);
	}
	free(s->paths);
	free(s->s.names);
	free(s->cost);
	free(s->opened);
	free(s->same_as);
	free(s->hash_only);
	free(s);
}
