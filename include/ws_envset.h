/* ws_envset.h - an environment (or a set of wheels given together) judged as a whole:
 * the facts each distribution leaves behind once its artifact is reported, and what they
 * say together - companions built for another torch, a CPU-only torch beside packages with
 * GPU code, the bitsandbytes library torch's CUDA version makes it load - with the one
 * command that fixes what breaks (src/core/envset.c). */
#ifndef WS_ENVSET_H
#define WS_ENVSET_H

#include <stdbool.h>
#include <stddef.h>

#include "wheelscan.h"
#include "ws_command.h"
#include "ws_vocab.h"
#include "ws_loadres.h"

struct ws_remedy_ctx;

/* One variant of a library chosen by the CUDA runtime version (bitsandbytes' cudaXYZ). */
struct ws_env_variant {
	int cuda;                      /* 12060 */
	char *member;                  /* its path in the distribution */
	enum ws_verdict *verdicts;     /* ntargets */
};

struct ws_env_pkg {
	char *name;                    /* the distribution's name, as its METADATA spells it */
	char *version;                 /* without the local tag */
	char *local;                   /* "cu126", "cpu", or NULL */
	char *requires_torch;          /* the torch it pins, or NULL */
	int cuda;                      /* the CUDA build it says it is (pinned runtime, local tag); 0 */
	bool has_code;                 /* it holds CUDA device code */
	bool wheel;                    /* a wheel file (else an installed distribution) */
	char *path;                    /* the artifact's path */
	enum ws_verdict *verdicts;     /* ntargets; NULL when not judged */
	struct ws_env_variant *variants;   /* bitsandbytes: its libraries by CUDA version */
	size_t nvariants;
	struct ws_dynlib *libs;        /* its shared objects' linking facts (ws_envset_take_libs) */
	uint32_t nlibs;
};

enum ws_env_issue_kind {
	WS_ENV_COMPANION = 1,          /* built for another torch than the one present */
	WS_ENV_CPU_TORCH,              /* torch without CUDA beside packages with GPU code */
	WS_ENV_LOADED_VARIANT,         /* the library torch's CUDA picks does not run on the target */
};

struct ws_env_issue {
	enum ws_env_issue_kind kind;
	size_t pkg;                    /* index into pkgs */
	int target;                    /* index into the targets, -1 for every target */
	char *what;                    /* one sentence: what breaks, and how it shows */
};

struct ws_envset {
	struct ws_env_pkg *pkgs;
	size_t n, cap;
	size_t ntargets;
	struct ws_env_issue *issues;
	size_t nissues;
	/* ntargets: the commands that fix the set there, one per package and per distinct
	 * command, run one after another (ws_cmds_render); n 0 where there is none */
	struct ws_cmds *fix;
	char **fix_note;               /* ntargets: what the commands cannot cover, or NULL */
	enum ws_shell fix_shells[WS_SHELLS];   /* the shells the fix is for, text's first */
	size_t nfix_shells;
	bool from_store;               /* the set is a results store's (--db --report), not a scan's */
	/* will each library load (ws_envset_judge_loads, src/core/loadres.c) */
	struct ws_loadres load;
	bool load_judged;
	char *load_fix;                /* the command that installs what is missing, or NULL */
};

/* Keeps the facts of an installed distribution or wheel (other artifacts are ignored).
 * Returns 0, or -1 on allocation failure. */
int ws_envset_add(struct ws_envset *s, const struct ws_artifact *a, size_t ntargets);
/* Judges the set on the targets: fills issues and, with a build table in ctx, fix. A set
 * with fewer than two distributions is left alone. Returns 0, or -1 on allocation failure. */
int ws_envset_judge(struct ws_envset *s, const struct ws_target *t, size_t nt, const struct ws_remedy_ctx *ctx);
/* Takes the dynamic linking facts of the artifact just added (they leave a). */
void ws_envset_take_libs(struct ws_envset *s, struct ws_artifact *a);
/* Resolves every library of the set as the loader would (ws_loadres.h), whatever the
 * targets; fills load and load_fix. ctx may be NULL (commands then say "pip"). Returns 0,
 * or -1 on allocation failure. */
int ws_envset_judge_loads(struct ws_envset *s, const struct ws_remedy_ctx *ctx);
void ws_envset_free(struct ws_envset *s);

#endif
