/* fts_win.c - the fts(3) walk of src/win/include/fts.h: one root, preorder, each directory's
 * entries in name order, FTS_DP after a directory's last entry, FTS_SKIP honoured. Windows
 * has no symbolic links in the POSIX sense here (a junction is walked as a directory).
 * Every path is spelled with '/' (the root's '\\' too): the callers find a distribution's
 * files, its site and a conda prefix by '/'-separated names, and Windows takes either. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fts.h>

#define DEPTH_MAX 256                  /* deeper trees are reported as an error, not walked */

struct frame {
	char **names;                      /* the directory's entries, sorted */
	size_t n, next;
	size_t pathlen;                    /* the directory's path length in t->path */
};

struct ws_fts {
	char sep;
	char *path;                        /* the current entry's path */
	size_t cap;
	struct frame st[DEPTH_MAX];
	int depth;                         /* frames in use */
	int state;                         /* 0: root not read; 1: walking; 2: done */
	bool descend;                      /* the last entry was FTS_D and may be entered */
	FTSENT e;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool set_path(FTS *t, size_t keep, const char *name)
{
	size_t n = strlen(name), need = keep + 1 + n + 1;
	if (need < n || need > t->cap) {
		char *p = realloc(t->path, need * 2);
		if (!p)
			return false;
		t->path = p;
		t->cap = need * 2;
	}
	if (keep && t->path[keep - 1] != '/' && t->path[keep - 1] != '\\')
		t->path[keep++] = t->sep;
	memcpy(t->path + keep, name, n + 1);
	return true;
}

FTS *fts_open(char *const *roots, int options, int (*compar)(const FTSENT **, const FTSENT **))
{
	(void)options, (void)compar;
	if (!roots[0] || roots[1]) {
		errno = EINVAL;                /* one root, as src/inputs.c walks them */
		return NULL;
	}
	FTS *t = calloc(1, sizeof *t);
	if (!t || !set_path(t, 0, roots[0])) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	for (char *p = t->path; *p; p++)
		if (*p == '\\')
			*p = '/';
	t->sep = '/';
	return t;
}

/* Fills t->e for the path in t->path at level. */
static FTSENT *entry(FTS *t, int level)
{
	FTSENT *e = &t->e;
	e->fts_path = e->fts_accpath = t->path;
	e->fts_pathlen = strlen(t->path);
	const char *s1 = strrchr(t->path, '/'), *s2 = strrchr(t->path, '\\');
	e->fts_name = (char *)(s1 > s2 ? s1 + 1 : s2 ? s2 + 1 : t->path);
	e->fts_level = level;
	e->fts_errno = 0;
	e->fts_statp = &e->st_;
	e->instr_ = 0;
	t->descend = false;
	if (stat(t->path, &e->st_) != 0) {
		e->fts_errno = errno;
		e->fts_info = FTS_NS;
	} else if (S_ISDIR(e->st_.st_mode)) {
		e->fts_info = FTS_D;
		t->descend = true;
	} else {
		e->fts_info = S_ISREG(e->st_.st_mode) ? FTS_F : FTS_DEFAULT;
	}
	return e;
}

/* Reads the directory at t->path into a new frame; false with an FTS_DNR entry ready. */
static bool enter(FTS *t)
{
	struct frame *f = &t->st[t->depth];
	memset(f, 0, sizeof *f);
	f->pathlen = strlen(t->path);
	if (t->depth >= DEPTH_MAX - 1) {
		t->e.fts_info = FTS_ERR;
		t->e.fts_errno = ELOOP;
		return false;
	}
	DIR *d = opendir(t->path);
	if (!d) {
		t->e.fts_info = FTS_DNR;
		t->e.fts_errno = errno;
		return false;
	}
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (f->n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			char **v = nc < cap ? NULL : realloc(f->names, nc * sizeof *v);
			if (!v)
				break;
			f->names = v;
			cap = nc;
		}
		if (!(f->names[f->n] = strdup(de->d_name)))
			break;
		f->n++;
	}
	closedir(d);
	qsort(f->names, f->n, sizeof *f->names, by_name);
	t->depth++;
	return true;
}

static void pop(FTS *t)
{
	struct frame *f = &t->st[--t->depth];
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	t->path[f->pathlen] = 0;
}

FTSENT *fts_read(FTS *t)
{
	if (t->state == 0) {
		t->state = 1;
		return entry(t, 0);
	}
	if (t->state == 2)
		return NULL;
	if (t->descend && !t->e.instr_) {
		size_t level = (size_t)t->depth;
		if (!enter(t)) {
			t->descend = false;
			t->e.fts_level = (int)level;
			return &t->e;          /* the directory again, as FTS_DNR */
		}
	}
	t->descend = false;
	while (t->depth > 0) {
		struct frame *f = &t->st[t->depth - 1];
		if (f->next < f->n) {
			if (!set_path(t, f->pathlen, f->names[f->next++])) {
				errno = ENOMEM;
				return NULL;
			}
			return entry(t, t->depth);
		}
		pop(t);
		FTSENT *e = entry(t, t->depth);
		e->fts_info = FTS_DP;
		t->descend = false;
		if (t->depth == 0)
			t->state = 2;
		return e;
	}
	t->state = 2;
	return NULL;
}

int fts_set(FTS *t, FTSENT *e, int instr)
{
	(void)t;
	e->instr_ = instr;
	return 0;
}

int fts_close(FTS *t)
{
	while (t && t->depth > 0)
		pop(t);
	if (t)
		free(t->path);
	free(t);
	return 0;
}
