/* ws_loadres.h - will each library load: the environment's shared objects resolved as the
 * dynamic loader resolves them (src/core/loadres.c). A provider index (every shared object
 * by soname or file name, by path, with the distribution that provides it) answers each
 * DT_NEEDED with one hash lookup; the run path ($ORIGIN expanded inside the environment)
 * comes first, then a library of that soname loaded before (torch's preloads, an import),
 * then the system's, which are assumed, not read. What fails is said as the user meets it,
 * with a check ID (WS401-WS406). */
#ifndef WS_LOADRES_H
#define WS_LOADRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_checks.h"
#include "ws_dynlib.h"

/* One distribution's libraries, as the environment set keeps them. */
struct ws_load_dist {
	const char *name, *version;
	bool wheel;                    /* a wheel given (its layout is the installed one) */
	const struct ws_dynlib *libs;
	uint32_t nlibs;
};

/* How one needed library of an object is found. */
enum ws_load_how {
	WS_LOAD_RUNPATH = 1,           /* by its run path, inside the environment */
	WS_LOAD_SYSTEM,                /* a library of the system or the driver: assumed */
	WS_LOAD_PRELOADED,             /* only by soname, once its provider is loaded first */
	WS_LOAD_MISSING,               /* no one provides it */
	WS_LOAD_ELSEWHERE,             /* wheels alone: not among the wheels given */
};

/* The prediction for one object that needs a CUDA library or holds GPU code: what the oracle
 * test compares with dlopen. */
struct ws_load_object {
	size_t dist;                   /* index into the dists */
	const char *member;            /* borrowed from the dist's library */
	bool alone;                    /* dlopen of it alone succeeds (run paths and system only) */
	bool fails;                    /* it fails whatever is loaded first */
	char **preload;                /* members ("dist-relative paths") to load first, in order */
	size_t npreload;
	char *why;                     /* the first reason it fails, or NULL */
};

struct ws_load_issue {
	enum ws_check check;           /* WS401-WS406 */
	size_t dist;                   /* the distribution whose object it concerns; SIZE_MAX: the set's */
	char *object;                  /* the object's path in it, or NULL (a set-wide issue) */
	char *what;                    /* one sentence, as the user meets it */
	bool minor;                    /* said, not a failure (WS406): text shows it with -v only */
};

struct ws_loadres {
	struct ws_load_issue *issues;
	size_t nissues;
	struct ws_load_object *objects;
	size_t nobjects;
	char **assumed;                /* system libraries assumed present, sorted, distinct */
	size_t nassumed;
	char **install;                /* requirement words that fix what is missing ("nvidia-cublas-cu12") */
	size_t ninstall;
	size_t nlibs;                  /* libraries indexed */
	size_t lookups;                /* needed libraries resolved (the index's cost) */
	bool wheels_only;              /* every dist is a wheel: what none provides is expected elsewhere */
};

/* Resolves every library of the dists. Returns 0, or -1 on allocation failure (res then
 * holds what was done). */
int ws_loadres_judge(const struct ws_load_dist *dists, size_t n, struct ws_loadres *res);
void ws_loadres_free(struct ws_loadres *res);

/* Whether a needed library is one the system or the driver provides (libc, libstdc++,
 * libcuda.so.1, nvcuda.dll, the Windows API sets...). */
bool ws_load_system_library(const char *name);

#endif
