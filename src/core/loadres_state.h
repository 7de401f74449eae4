/* loadres_state.h - the provider index and the resolution state that loadres.c (the
 * loader's rules) and loadsay.c (what a failure means, as the user meets it) share.
 * Private to them. */
#ifndef WS_LOADRES_STATE_H
#define WS_LOADRES_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_loadres.h"

#define MAX_DEPTH 64
#define MAX_CLOSURE 4096u
#define MAX_PRELOAD 64u                /* libraries an object's preload list names */
#define MAX_PATH_LEN 4096u

struct ent {
	size_t dist;
	const struct ws_dynlib *lib;
	char *path;                    /* normalised, environment-relative ("torch/lib/libc10.so") */
	const char *key;               /* soname, else the file name */
	uint32_t next_key;             /* 1 + next entry of the same key, 0 none */
	/* resolution, once */
	uint8_t state;                 /* 0 not yet, 1 in progress, 2 done */
	bool alone, fails, elsewhere;
	/* fails only for a reference it does not bind: its own (symfail_self, in its own load
	 * scope), or a library's of its closure; a dependant rechecks those in its own scope */
	bool symfail, symfail_self;
	bool symopen;                  /* a C++ reference its own scope could not check */
	char *why;
	uint32_t *pre;                 /* 1 + entries to load first, deps first */
	uint32_t npre;
	uint32_t *prov;                /* per needed: 1 + the entry used, 0 system or none */
	uint8_t *how;                  /* per needed: enum ws_load_how */
};

struct index {
	struct ent *e;
	size_t n;
	uint32_t *by_path, *by_key;    /* open addressing: 1 + entry, 0 empty */
	size_t cap;                    /* a power of two, at least 2n */
	const struct ws_load_dist *dists;
	struct ws_loadres *res;
	bool failed;
	uint32_t *seen, stamp;         /* closure(): visited at this stamp */
	uint32_t *needers;             /* per entry, first of its key: objects that need the key */
	size_t dist_issues;            /* the first issue of the distribution being said */
};

/* an entry's path as its distribution spells it (the index keeps a PE's in lower case) */
#define SHOWN(x) ws_load_installed_path((x)->lib->member)

/* "pkg-1.0.data/platlib/x/y.so" -> "x/y.so" */
const char *ws_load_installed_path(const char *m);
/* 1 + the first entry of soname (or file name) k, 0 none: one hash lookup */
uint32_t ws_load_first_of_key(const struct index *ix, const char *k);
/* loadindex.c */
/* Normalises "a/./b/../c" in place; false when ".." leaves the root (outside). */
bool ws_load_normalise(char *p);
void ws_load_lower(char *s);
const struct ent *ws_load_by_path(const struct index *ix, const char *path);
/* Indexes every library of the dists. 0, or -1 on allocation failure. */
int ws_load_index_build(struct index *ix, const struct ws_load_dist *d, size_t nd);
/* loadsay.c */
bool ws_load_consumer(const struct ent *e);
int ws_load_add_issue(struct ws_loadres *r, enum ws_check c, size_t dist, const char *object, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The issue of a consumer that fails (WS401, WS403 or WS404). 0, or -1 on allocation failure. */
int ws_load_say_failure(struct index *ix, const struct ent *e);
int ws_load_say_order(struct index *ix);
int ws_load_say_majors(struct index *ix);

#endif
