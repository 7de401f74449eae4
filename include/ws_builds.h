/* ws_builds.h - the build table (which release of which package carries code for which
 * GPUs, on which index) and the remedy chosen from it: the build to install, and the exact
 * commands that install it. The table's format and sources: doc/builds.md. */
#ifndef WS_BUILDS_H
#define WS_BUILDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheelscan.h"
#include "ws_command.h"
#include "ws_vocab.h"

#define WS_BUILD_MAX_ARCHS 48
#define WS_BUILDS_MAX_ROWS 100000
#define WS_BUILDS_MAX_BYTES (16u << 20)

/* One row: one build of one release of one package for one platform. Strings point into
 * the table's own copy of the text. */
struct ws_build {
	const char *package;           /* "torch" (PyPI's normalized name) */
	const char *version;           /* "2.8.0" */
	const char *variant;           /* "cu128", "cpu" */
	const char *platform;          /* "linux_x86_64", "linux_aarch64", "win_amd64" */
	const char *requires;          /* "torch==2.8.0", or "" */
	const char *index;             /* "pypi" or an index URL */
	const char *provenance;        /* "scanned" or "declared" */
	const char *source;            /* the wheel's sha256 and date, or repo:path@tag */
	const char *wheel_platform;    /* the wheel's platform tag ("manylinux_2_28_x86_64"), or "" */
	int cuda;                      /* 12080; 0 unknown */
	uint16_t sass[WS_BUILD_MAX_ARCHS];
	uint16_t ptx[WS_BUILD_MAX_ARCHS];
	char sass_suffix[WS_BUILD_MAX_ARCHS], ptx_suffix[WS_BUILD_MAX_ARCHS];  /* 'a', 'f' or 0 */
	uint8_t nsass, nptx;
	uint32_t line;                 /* in the table's text */
};

struct ws_builds {
	char *text;                    /* owned copy; fields point into it */
	struct ws_build *rows;
	size_t n;
	uint32_t *by_package;          /* row indices grouped by package, table order within */
	char origin[256];              /* "bundled table (2026-12-01)" or the --builds path */
};

/* Parses a table (TSV, doc/builds.md). Lines starting with '#' are comments; "# made:"
 * names the date. A malformed row is an error naming its line. Returns 0, or -1 with err
 * (format; limit: over WS_BUILDS_MAX_BYTES or WS_BUILDS_MAX_ROWS; memory). */
int ws_builds_parse(const char *text, size_t len, const char *origin, struct ws_builds *out,
		    struct ws_err *err);
void ws_builds_free(struct ws_builds *b);
/* The rows of package (PyPI names compared as ws_pypi_name_eq does), as indices into
 * b->rows in table order: their count, *rows pointing at the first (NULL when none). */
size_t ws_builds_of_package(const struct ws_builds *b, const char *package, const uint32_t **rows);

/* PEP 440-ish comparison of release strings ("2.10.0" > "2.9.1", "0.0.33.post2" >
 * "0.0.33", "2.0.0rc1" < "2.0.0"). */
int ws_version_cmp(const char *a, const char *b);

/* How a build fares on target t with a driver for driver_cuda (0: unknown, assumed new
 * enough): by the same rules as a container's verdict, from its SASS and PTX lists. A
 * driver older than the build's CUDA major needs is WS_V_PTX_TOO_NEW. */
enum ws_verdict ws_build_verdict(const struct ws_build *b, const struct ws_target *t, int driver_cuda);

/* The oldest driver (as a CUDA version, 12000) that runs a build made with CUDA cuda:
 * NVIDIA's minor-version compatibility, ws_runtime_driver_floor (doc/compat-rules.md §4a).
 * Its PTX, and the GPU's first CUDA, may ask for more: ws_build_driver_need. */
int ws_build_driver_floor(int cuda);

/* The oldest driver (CUDA version) with which build b runs on t: the runtime floor, the
 * GPU's first CUDA, and when only PTX serves t, the driver of the build's PTX ISA; 0 when
 * the build does not run on t with any driver. */
int ws_build_driver_need(const struct ws_build *b, const struct ws_target *t);

/* ---- remedies ------------------------------------------------------------------------ */

enum ws_remedy_kind {
	WS_REMEDY_INSTALL = 1,         /* a release that runs: install it */
	WS_REMEDY_NONE,                /* no build in the table runs there */
	WS_REMEDY_DRIVER_FIRST,        /* a build runs, but only after a driver upgrade */
	WS_REMEDY_REBUILD,             /* code built in place: the line that rebuilds it for the GPU */
};

#define WS_REMEDY_MAX_PKGS 4

struct ws_remedy {
	enum ws_remedy_kind kind;
	char *package;                 /* the package the remedy is for */
	struct { char *name, *version; } pkgs[WS_REMEDY_MAX_PKGS];  /* pkgs[0] is package */
	uint8_t npkgs;
	char *variant, *index, *platform, *provenance;
	int cuda;                      /* the chosen build's CUDA */
	int driver_floor;              /* the driver it needs (CUDA version) */
	enum ws_verdict verdict;       /* how the chosen build fares on the target */
	char *summary;                 /* one sentence: what to install and why it runs */
	/* The commands, as argument vectors (ws_command.h); argc 0 where there is none. A writer
	 * renders them with ws_cmd_render_first(..., shells, nshells, ...). */
	struct ws_cmd install;         /* the command, online (rebuild: the line that rebuilds) */
	struct ws_cmd download;        /* offline: fetch the wheels on a connected machine */
	struct ws_cmd offline;         /* offline: install them */
	enum ws_shell shells[WS_SHELLS];   /* the shells they are for, the one text shows first */
	size_t nshells;
	char *note;                    /* what else the user should know, or NULL */
};

/* What the remedy is judged against: the driver, and the interpreter and platform in use. */
struct ws_remedy_ctx {
	const struct ws_builds *builds;
	int driver_cuda;               /* 0: unknown */
	const char *platform;          /* table platform; NULL: from the artifact's tags */
	const char *python_version;    /* "3.11", or NULL: from the artifact's tags */
	const char *python_exe;        /* --python=PATH: commands run "PATH -m pip"; NULL: "pip" */
	bool windows_host;             /* python_exe is a Windows interpreter: Windows shells */
	/* What the interpreter of --python accepts (src/interp.c asks "PATH -m pip debug
	 * --verbose"), for the offline download; NULL/0: derived from the table's tags. */
	char *const *pip_platforms;    /* its platform tags, best first */
	size_t npip_platforms;
	char *const *pip_abis;         /* its ABI tags ("cp312", "abi3", "none") */
	size_t npip_abis;
	const char *pip_implementation;    /* "cp", "pp" */
	/* The local tag of the wheel judged ("cu12torch2.8cxx11abiTRUE"), or NULL: a release
	 * asset's tag names the torch minor, CUDA major and C++ ABI it was chosen for. */
	const char *artifact_local;
};

/* The remedy for package (PyPI name) on target t, or NULL when the table knows no build of
 * it (or on allocation failure). Companions (torchvision and torchaudio with torch, the
 * torch an extension pins) are added to the command. */
struct ws_remedy *ws_remedy_choose(const char *package, const struct ws_target *t,
				   const struct ws_remedy_ctx *ctx);
/* The companion (torchvision, torchaudio, xformers) made for torch_version, of that torch's
 * variant where the table has it, with that torch; NULL when the table has none. */
struct ws_remedy *ws_remedy_companion(const char *companion, const char *torch_version, const char *torch_variant,
				      const struct ws_target *t, const struct ws_remedy_ctx *ctx);
/* The remedy of installing build b itself (--suggest lists several). */
struct ws_remedy *ws_remedy_for_build(const struct ws_build *b, const struct ws_target *t,
				      const struct ws_remedy_ctx *ctx);
void ws_remedy_free(struct ws_remedy *r);
/* Sets a->judged[k].remedy on every target where the artifact will not run (or runs only
 * after a driver upgrade), for a wheel or installed distribution the table knows; its
 * platform and Python come from the artifact's tags unless ctx names them. Returns 0, or
 * -1 on allocation failure. */
int ws_remedy_attach(struct ws_artifact *a, const struct ws_target *t, size_t nt, const struct ws_remedy_ctx *ctx);

/* --suggest: the builds of package that run on t with driver_cuda, best first (newest
 * release, native before JIT, the index's own variant before others), at most max. */
size_t ws_builds_rank(const struct ws_builds *b, const char *package, const char *platform,
		      const struct ws_target *t, int driver_cuda, const struct ws_build **out, size_t max);
/* The same, adding to *lookups the companion searches it made: one per release and
 * platform among the package's rows (torch only), not one per comparison. */
size_t ws_builds_rank_counted(const struct ws_builds *b, const char *package, const char *platform,
			      const struct ws_target *t, int driver_cuda, const struct ws_build **out, size_t max,
			      uint64_t *lookups);

/* ---- release assets (src/core/remedy_asset.c; doc/builds.md "Release assets") ---------- */

/* Whether row b is a wheel published as a release asset (index "asset:URL/"), not on an
 * index; ws_asset_row_ok: and well formed (the parser refuses a malformed one). */
bool ws_build_is_asset(const struct ws_build *b);
bool ws_asset_row_ok(const struct ws_build *b);
bool ws_builds_package_is_asset(const struct ws_builds *bs, const char *package);
/* Whether PyPI's torch of that release is built with the C++11 ABI (2.7 on). */
bool ws_torch_cxx11abi(const char *torch_version);
/* Whether asset row b serves torch torch_version built with CUDA torch_cuda (12080) and
 * Python python_version ("3.11"; NULL: any). */
bool ws_asset_fits(const struct ws_build *b, const char *torch_version, int torch_cuda, const char *python_version);
/* The URL of the asset of row b for that Python and ABI, as the release workflow names it;
 * NULL when b is no asset row or python_version is not "X.Y". Caller frees. */
char *ws_asset_url(const struct ws_build *b, const char *python_version, bool cxx11abi);
/* The torch an asset must fit: the one the table advises for the GPU (remedy.c chooses it). */
struct ws_asset_torch {
	const char *version;           /* "2.8.0" */
	int cuda;                      /* its CUDA, 12090 */
	bool driver_first;             /* it runs only after a driver upgrade */
};
/* Fills r (zeroed) with the remedy for an asset package on t: the asset that fits the torch
 * (the scanned wheel's own tag, else torch; NULL: none runs), the Python and the ABI; else
 * WS_REMEDY_NONE saying there is no prebuilt wheel. ..._for_build: installing asset row b for
 * PyPI's torch of its minor. Return 0, or -1 on allocation failure (the caller frees r). */
int ws_asset_fill_choice(struct ws_remedy *r, const char *package, const struct ws_target *t,
			 const struct ws_remedy_ctx *ctx, const struct ws_asset_torch *torch);
int ws_asset_fill_for_build(struct ws_remedy *r, const struct ws_build *b, const struct ws_target *t,
			    const struct ws_remedy_ctx *ctx);

/* The table platform of a wheel platform tag ("manylinux_2_28_x86_64" -> "linux_x86_64"),
 * or NULL when it is none of the three. */
const char *ws_builds_platform_of_tag(const char *tag);
/* "cp311" -> "3.11" into buf; NULL when the tag names no CPython minor. */
const char *ws_python_version_of_tag(const char *tag, char *buf, size_t len);

#endif
