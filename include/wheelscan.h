/* wheelscan.h - the data model shared by every stage:
 * artifact > object > fatbin (container) > entry > kernel.
 *
 * Decoders fill it, the compatibility rules annotate it, reports print it.
 * Every string in the model is owned by the struct that points to it and
 * released by the matching ws_*_free function.
 */
#ifndef WHEELSCAN_H
#define WHEELSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_SCHEMA_VERSION 2
#define WS_ERRMAX 256

/* What kind of problem an error is: exit status and JSON come from this, never from the
 * message's words (libzip's zip_error_t is the model). */
enum ws_errcode {
	WS_E_FORMAT = 1,               /* corrupt, truncated, or not what its name promises */
	WS_E_IO,                       /* cannot open or read */
	WS_E_LIMIT,                    /* a size or count limit (--max-*) stopped the read */
	WS_E_INTEGRITY,                /* a checksum, declared size or RECORD does not match */
	WS_E_UNSUPPORTED,              /* encrypted, or a compression this build cannot read */
	WS_E_MEMORY,                   /* out of memory */
};

/* One error as it travels from a reader or decoder to the artifact: its kind, its
 * one-line message, and whether a layer above has recorded it already (so that it is
 * reported once, by whoever first had the context to name it). */
struct ws_err {
	enum ws_errcode code;          /* 0: no error */
	bool reported;
	char msg[WS_ERRMAX];
};

/* Sets err (code and printf-style message) unless it already holds an error; returns -1. */
int ws_err_set(struct ws_err *err, enum ws_errcode code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "format", "io", "limit", "integrity", "unsupported", "memory". */
const char *ws_errcode_name(enum ws_errcode code);
/* The exit status an error of this kind gives a run: 3 (the input could not be read in
 * full) for every kind today; one place to change if kinds ever part ways. */
int ws_errcode_status(enum ws_errcode code);

/* Entry kinds as stored in the fatbin entry header (doc/fatbin-format.md (c)). */
enum ws_kind {
	WS_KIND_PTX = 1,
	WS_KIND_SASS = 2,
	WS_KIND_LTOIR = 8,
};

enum ws_compression {
	WS_COMP_NONE = 0,
	WS_COMP_LZ4,
	WS_COMP_ZSTD,
};

/* Upper bounds applied to everything read from a file; see ws_limits_default(). */
struct ws_limits {
	uint64_t max_entry_bytes;      /* one decompressed entry payload */
	uint64_t max_member_bytes;     /* one inflated zip member */
	uint64_t max_total_bytes;      /* all inflated bytes of one artifact */
	uint32_t max_entries;          /* entries in one container */
	uint32_t max_containers;       /* containers in one object */
	uint32_t max_kernels;          /* kernels in one entry */
	uint32_t max_sections;         /* ELF sections in one host object */
	uint32_t max_members;          /* members in one zip / ar archive */
	uint32_t max_kernel_name;      /* bytes of one kernel name */
	uint64_t max_kernel_names;     /* bytes of the kernel names one object keeps (when printed) */
	uint64_t max_decoded_base;     /* entry bytes one artifact may decode: this plus ... */
	uint32_t max_decoded_ratio;    /* ... this many times the artifact's bytes as stored */
	uint32_t max_artifact_containers; /* containers in all objects of one artifact */
	uint32_t max_artifact_entries; /* entries in all its containers */
	uint32_t max_artifact_errors;  /* errors recorded on one artifact, its members' included */
};
void ws_limits_default(struct ws_limits *lim);

/* What one artifact (a wheel, a tarball, a file) may spend over all its members, objects
 * and threads, where the limits above bound one entry or one object: entry bytes decoded
 * (a bomb of many small entries, each within the per-entry limit), containers and errors
 * (each costs memory until the artifact is freed). Counters are atomic; zero it, then
 * tell it the artifact's size with ws_budget_add_input (src/core/budget.c). */
struct ws_budget {
	uint64_t input;                /* bytes of the artifact as stored (read so far for a stream) */
	uint64_t decoded;              /* entry bytes decoded or handed to a decoder */
	uint64_t containers, entries;
	uint32_t errors;               /* recorded on members' own artifacts before their merge */
	bool decoded_spent, containers_spent, entries_spent; /* set once: its one error is recorded */
};
enum ws_budget_take { WS_BUDGET_OK = 0, WS_BUDGET_SPENT, WS_BUDGET_SPENT_NOW /* record its error */ };
void ws_budget_add_input(struct ws_budget *b, uint64_t n);
/* The decoded-bytes limit: max_decoded_base + max_decoded_ratio x input, saturated. */
uint64_t ws_budget_decoded_max(const struct ws_budget *b, const struct ws_limits *lim);
/* Takes n decoded bytes / one container / one entry from the budget; SPENT_NOW for the
 * one caller that found it spent first, SPENT for every one after. */
enum ws_budget_take ws_budget_decode(struct ws_budget *b, const struct ws_limits *lim, uint64_t n);
enum ws_budget_take ws_budget_container(struct ws_budget *b, const struct ws_limits *lim);
enum ws_budget_take ws_budget_entry(struct ws_budget *b, const struct ws_limits *lim);

/* One decoded fatbin entry. */
struct ws_entry {
	uint16_t kind;                 /* enum ws_kind, or any other raw value */
	uint16_t arch;                 /* SM number, major*10+minor (90, 120) */
	char suffix;                   /* 'a', 'f' or 0 */
	char name[24];                 /* "sm_90a", "compute_120", "lto_100f", "kind7_90" */
	uint64_t offset;               /* from the start of the container */
	uint32_t header_size;
	uint64_t payload_size;
	uint64_t flags;
	uint16_t fmt_major, fmt_minor; /* PTX ISA for PTX, cubin code version for SASS */
	enum ws_compression compression;
	uint32_t compressed_size;
	uint64_t uncompressed_size;    /* header claim; 0 when not compressed */
	uint64_t content_size;         /* bytes actually decoded (0 if not decoded) */
	bool opaque;                   /* obfuscated LTO-IR or unknown kind: not decoded, not an error */
	bool debug;                    /* flag 0x2 (-G) */
	bool relocatable;              /* cubin is ET_REL */
	uint16_t ptx_major, ptx_minor; /* PTX ".version" line; 0.0 if none */
	char ptx_target[24];           /* PTX ".target" first word, e.g. "sm_90a" */
	uint16_t elf_sm;               /* SM from cubin e_flags; 0 if unknown */
	uint16_t toolkit;              /* .note.nv.cuinfo toolkit (130 = 13.0); 0 if absent */
	char *producer;                /* .note.nv.tkinfo version string, or NULL */
	char *tool_options;            /* .note.nv.tkinfo options ("-arch sm_100a -m 64"), or NULL */
	char *identifier;              /* identifier string from the entry header, or NULL */
	char *options;                 /* JIT/link options string from the entry header, or NULL */
	uint32_t *kernels;             /* indices into the object's kernel name pool */
	uint32_t nkernels;
	bool kernels_known;            /* false for opaque entries */
	char *error;                   /* why this entry could not be decoded, or NULL */
};

/* Per-target verdicts, in the order of the targets given to the rules. */
enum ws_verdict {
	WS_V_NONE = 0,        /* nothing to judge (no kernels, or a link input) */
	WS_V_NATIVE,
	WS_V_COMPATIBLE,
	WS_V_JIT,
	WS_V_PTX_TOO_NEW,
	WS_V_NO_IMAGE,
	WS_V_OTHER_GPU,       /* no image for this GPU, built for other GPUs: a container, or an object
			       * set aside as a whole (WS_R_OBJECT_OTHER_GPU) */
};

/* What a container is for (src/core/judge.c). The first, third and fourth are properties of the
 * container; REQUIRED or OTHER_GPU is decided per target GPU. */
enum ws_role {
	WS_ROLE_REQUIRED = 0, /* loadable code with kernels that the library needs on this GPU */
	WS_ROLE_OTHER_GPU,    /* loadable code built for other GPUs: the library picks kernels by GPU */
	WS_ROLE_LINK_INPUT,   /* relocatable or LTO-IR only: input to a later link, never loaded as is */
	WS_ROLE_NO_KERNELS,   /* provably no kernels (nvcc's device-link stub): cannot fail a launch */
};

/* Reason codes behind an object's or artifact's verdict on one target (bits). */
enum ws_reason {
	WS_R_NOTHING_SERVES = 1u << 0,  /* no loadable container has an image for the target */
	WS_R_PREDATES = 1u << 1,        /* failing code built with a CUDA older than the target */
	WS_R_LEFT_OUT = 1u << 2,        /* built with a CUDA that supports the target, left it out */
	WS_R_DROPPED = 1u << 3,         /* built with a CUDA that no longer supports the target */
	WS_R_PTX_DRIVER = 1u << 4,      /* only PTX serves, and the driver is too old for its ISA */
	WS_R_DRIVER_GPU = 1u << 5,      /* the driver is older than the GPU: it cannot run it at all */
	WS_R_OTHER_GPU = 1u << 6,       /* containers built for other GPUs were not counted */
	WS_R_JIT = 1u << 7,             /* some needed code runs only through PTX JIT */
	WS_R_KERNELS_ASSUMED = 1u << 8, /* failing containers not decoded (--no-kernels): kernels assumed */
	WS_R_STRICT = 1u << 9,          /* --strict: every loadable container with kernels counted */
	WS_R_ALTERNATIVES = 1u << 10,   /* artifact: decided by the variant that would be loaded */
	WS_R_LINK_INPUTS_ONLY = 1u << 11, /* only link inputs: judged where they are linked */
	WS_R_KERNEL_GAPS = 1u << 12,    /* the image the driver picks lacks kernels other images have */
	WS_R_HELPER_ONLY = 1u << 13,    /* object: only a helper container serves; the rest starts above */
	WS_R_OBJECT_OTHER_GPU = 1u << 14, /* object built only for other GPUs, set aside: others serve */
	WS_R_MINORITY = 1u << 15,       /* artifact: the headline is the main code's; some code is weaker */
	WS_R_JIT_COMPILER = 1u << 16,   /* a bundled compiler (Triton's ptxas) makes the code here at run time */
	WS_R_JIT_COMPILER_OLD = 1u << 17, /* that compiler predates the target: it cannot make code for it */
	WS_R_JIT_COMPILER_DROPPED = 1u << 18, /* that compiler is newer than the target's last CUDA */
	WS_R_DRIVER_RUNTIME = 1u << 19, /* the driver's CUDA major is older than the runtime the code links */
};
#define WS_R_COUNT 20

/* One object or artifact judged on one target: the reasons behind its verdict, the
 * container counts they rest on, and the lines people read. Written by src/core/judge.c. */
struct ws_judgement {
	uint32_t reasons;             /* WS_R_* bits */
	uint32_t with_kernels;        /* loadable containers with kernels (artifacts: summed) */
	uint32_t serving;             /* of those, with an image for the target */
	uint32_t other_gpu;           /* of those, built for other GPUs (not failures) */
	uint32_t failing;             /* required and without a usable image */
	uint32_t kernel_gaps;         /* kernels missing from the images the driver picks */
	uint32_t objects;             /* artifacts: objects with kernels (alternatives count once) */
	uint32_t objects_failing;     /* artifacts: of those, failing on the target */
	int build_cuda;               /* CUDA the failing code was built with (12040); 0 unknown */
	int jit_driver_cuda;          /* jit: the CUDA version the driver needs for that PTX; 0 unknown */
	uint16_t jit_from;            /* jit: the newest PTX arch the driver compiles from (120) */
	uint32_t minority;            /* artifacts: containers whose verdict is weaker than the headline's */
	char *minority_where;         /* artifacts: "1 container in x.so only through PTX JIT", or NULL */
	char compatible_lo[24];       /* artifacts judged compatible: the lowest and highest older */
	char compatible_hi[24];       /* SASS of the GPU's major that serve it ("sm_86"), or "" */
	char *why;                    /* one line on what decides the verdict, or NULL */
	char *advice;                 /* what would make it run, or NULL */
	struct ws_remedy *remedy;     /* artifacts: the build to install instead (ws_builds.h), or NULL */
};

/* Kernels (object pool indices) that a container's other images have and the image the
 * driver picks for one target lacks. */
struct ws_gap {
	uint32_t *kernels;
	uint32_t n;
};

/* One fatbin container (a "blob" of 16 + fat_size bytes). */
struct ws_fatbin {
	char section[64];              /* host ELF section, "" for a raw .fatbin file, "(none)" outside sections */
	uint64_t offset;               /* in the object file */
	uint64_t size;                 /* 16 + fat_size */
	bool relocatable;              /* found in __nv_relfatbin */
	struct ws_entry *entries;
	uint32_t nentries;
	uint32_t nkernels;             /* distinct kernels over all entries (0: cannot fail a launch) */
	enum ws_role role;             /* REQUIRED (loadable, with kernels), LINK_INPUT or NO_KERNELS */
	enum ws_role *roles;           /* ntargets: role on each target, filled by ws_judge */
	enum ws_verdict *verdicts;     /* ntargets, filled by ws_judge */
	struct ws_gap *gaps;           /* ntargets, or NULL when no image lacks a kernel */
	uint16_t njudged;              /* targets in roles, verdicts and gaps */
	int *live;                     /* ntargets CUresult values or WS_LIVE_*, filled by the live check */
	int *live_nojit;               /* the same with PTX JIT disabled (--live-nojit), or NULL */
	char *error;                   /* container-level decode problem, or NULL */
};

#define WS_LIVE_NOT_RUN (-1)
#define WS_LIVE_SKIPPED (-2)     /* relocatable container: not loadable alone */
#define WS_LIVE_CRASH (-3)
#define WS_LIVE_TIMEOUT (-4)
#define WS_LIVE_BUDGET (-6)      /* not loaded: the --live-budget time was spent */

/* A growable pool of distinct strings (kernel names), addressed by index. */
struct ws_strpool {
	char **str;                    /* NULL entries when hash_only */
	uint64_t *h64;                 /* 64-bit hash of each string */
	uint32_t n, cap;
	uint32_t *hash;                /* open addressing table of index+1, 0 = empty */
	uint32_t hcap;
	bool hash_only;                /* keep hashes, not names: distinct counts at a fraction
					* of the memory (C++ kernel names run to kilobytes) */
	uint64_t bytes;                /* bytes of the strings kept */
	uint64_t max_bytes;            /* 0, or the most string bytes kept: past it a new string
					* is not added (UINT32_MAX) and over is set */
	bool over;
};
void ws_strpool_init(struct ws_strpool *p);
void ws_strpool_free(struct ws_strpool *p);
/* Returns the index of s (adding a copy if new), or UINT32_MAX on allocation failure or
 * when the copy would pass max_bytes (then p->over is set). */
uint32_t ws_strpool_intern(struct ws_strpool *p, const char *s, size_t len);
/* Adds string (or hash) i of src to p; returns its index in p, UINT32_MAX when out of memory. */
uint32_t ws_strpool_adopt(struct ws_strpool *p, const struct ws_strpool *src, uint32_t i);
/* Returns the index of s, or UINT32_MAX when the pool does not hold it. */
uint32_t ws_strpool_find(const struct ws_strpool *p, const char *s, size_t len);

/* One ELF file, archive member or raw fatbin/cubin/ptx. */
/* Which bundled compiler an object is (src/core/jitc.c). */
enum ws_jitc {
	WS_JITC_NONE = 0,
	WS_JITC_PTXAS,                 /* Triton's ptxas: every GPU its CUDA release knows */
	WS_JITC_PTXAS_BLACKWELL,       /* Triton's ptxas-blackwell: used for sm_100 and newer */
};

/* What an object is: JSON's object "type", named by ws_object_type_name. */
enum ws_object_type {
	WS_OBJ_ELF = 0,                /* "elf": an ELF file of another e_type, or whose header did not read */
	WS_OBJ_ELF_REL,                /* "elf-rel": ET_REL, an object file */
	WS_OBJ_ELF_EXEC,               /* "elf-exec": ET_EXEC */
	WS_OBJ_ELF_SO,                 /* "elf-so": ET_DYN, a shared library */
	WS_OBJ_PE_DLL,                 /* "pe-dll": a PE image flagged IMAGE_FILE_DLL (.dll, .pyd) */
	WS_OBJ_PE_EXE,                 /* "pe-exe": another PE image */
	WS_OBJ_FATBIN,                 /* "fatbin": a raw fatbin file */
	WS_OBJ_CUBIN,                  /* "cubin": a raw cubin */
	WS_OBJ_PTX,                    /* "ptx": a PTX text file */
	WS_OBJ_NTYPES
};
/* "elf-so", ...: the one table of the words (src/core/model.c); "elf" for a value out of range. */
const char *ws_object_type_name(enum ws_object_type t);
/* The type named s, or -1 when none is. */
int ws_object_type_lookup(const char *s);

struct ws_object {
	char *member;                  /* path inside the artifact; NULL for the artifact itself */
	enum ws_object_type type;
	struct ws_fatbin *fatbins;
	uint32_t nfatbins;
	struct ws_strpool kernels;
	enum ws_verdict *verdicts;     /* ntargets, filled by ws_judge */
	struct ws_judgement *judged;   /* ntargets, filled by ws_judge */
	uint16_t njudged;
	uint32_t alt_group;            /* 1 + index into the artifact's alts, 0 if none */
	int alt_cuda;                  /* the CUDA version its name carries (12080); major-only: 12000 */
	bool alt_major_only;           /* the name carried a major only ("cu12") */
	uint64_t size;                 /* bytes of the object */
	/* A compiler the package runs at run time to make GPU code (Triton's bundled ptxas,
	 * src/core/jitc.c), else WS_JITC_NONE; with the CUDA release its bytes state (12040),
	 * 0 when they state none. Such an object is kept though it holds no container. */
	enum ws_jitc jitc;
	int jitc_cuda;
};

/* Objects of one artifact whose names differ only by a CUDA version token
 * (libx_cuda118.so ... libx_cuda130.so): one of them is loaded, chosen at run time by
 * the CUDA runtime version. */
struct ws_altgroup {
	char *pattern;                 /* the member path with the token's digits as '*' */
	uint32_t *objects;             /* object indices, by CUDA version */
	uint32_t n;
	enum ws_verdict *verdicts;     /* ntargets: the best variant's */
};

/* A container image inside an artifact of type "image": its names, its manifest and its
 * layers in order. An object in a layer is named "<layer member>!<path in the layer>". */
struct ws_image_layer {
	char *member;                  /* "blobs/sha256/<hex>", or docker's "<id>/layer.tar" */
	char digest[72];               /* "sha256:<hex>" of the layer's bytes as stored, "" unread */
	uint64_t size;
};

struct ws_image {
	char **names;                  /* RepoTags / ref.name annotations; none: untagged */
	uint32_t nnames;
	char manifest[72];             /* "sha256:<hex>" of its manifest, "" for docker's legacy layout */
	char config[72];               /* "sha256:<hex>" of its config (the image ID), or "" */
	struct ws_image_layer *layers;
	uint32_t nlayers;
};

struct ws_error {
	char *where;                   /* "x.whl!pkg/lib/libx.so" */
	char *message;
	enum ws_errcode code;
};

/* RECORD verification result of a wheel. */
struct ws_record {
	bool checked;                  /* a RECORD was found and verification ran */
	bool ok;
	char **mismatched; size_t nmismatched;
	char **missing; size_t nmissing;
	char **unlisted; size_t nunlisted;
	/* rows with a hash (nhashed of them) whose file was found but never read to its end
	 * (a limit stopped the walk, it could not be opened): not checked, so never "ok" */
	size_t nunread, nhashed;
	/* a wheel's rows without a hash (but its RECORD's own): nothing to check them by */
	char **unhashed; size_t nunhashed;
};

/* Facts about a wheel from its file name and dist-info. */
struct ws_wheel_info {
	char *name, *version, *local;  /* local = "cu124" from "2.5.1+cu124", or NULL */
	char *python_tag, *abi_tag, *platform_tag;
	char *meta_name, *meta_version;
	int requires_cuda_major;       /* from Requires-Dist: nvidia-*-cuNN, 0 if none */
	int requires_cuda_runtime;     /* pinned nvidia-cuda-runtime-cuNN==X.Y.* or cuda-toolkit[cudart]==X.Y.*: 1000*X+10*Y, 0 if none */
	char *requires_torch;          /* pinned "torch==X" (an extension built for one torch), or NULL */
	char *generator;               /* WHEEL Generator: */
};

/* What an artifact is: JSON's artifact "type", named by ws_artifact_type_name. */
enum ws_artifact_type {
	WS_ART_NONE = 0,               /* not decided yet: named "unknown" */
	WS_ART_WHEEL, WS_ART_ZIP, WS_ART_ELF, WS_ART_ARCHIVE, WS_ART_FATBIN, WS_ART_CUBIN, WS_ART_PTX,
	WS_ART_PE, WS_ART_TAR, WS_ART_DEB, WS_ART_CONDA,
	WS_ART_INSTALLED,              /* an installed distribution (its RECORD), or a conda package's */
	WS_ART_DIRECTORY,              /* loose files of a site directory that no package claims */
	WS_ART_IMAGE,                  /* a container image (docker save, OCI layout) */
	WS_ART_OTHER,                  /* no format claims it */
	WS_ART_UNKNOWN,                /* unreadable, and its name promises no format */
	WS_ART_NTYPES
};
/* "wheel", "zip", ...: the one table of the words (src/core/model.c); "unknown" out of range. */
const char *ws_artifact_type_name(enum ws_artifact_type t);
/* The type named s ("unknown" is WS_ART_UNKNOWN), or -1 when none is. */
int ws_artifact_type_lookup(const char *s);

struct ws_dynlib;

struct ws_artifact {
	char *path;
	enum ws_artifact_type type;
	char sha256[65];               /* hex, "" when not computed */
	uint64_t size;
	bool size_unknown;             /* the input could not even be stat'ed */
	struct ws_object *objects;
	uint32_t nobjects;
	struct ws_error *errors;
	uint32_t nerrors;
	struct ws_wheel_info *wheel;   /* wheels and installed distributions, else NULL */
	char *origin;                  /* what the path says it is ("torch extension 'x' built in
					* place, for Python 3.11 and CUDA 12.4"), or NULL */
	int build_cuda_hint;           /* the CUDA its packaging names (conda build string, a torch
					* extension cache's cuNNN): advice uses it when the code does not say */
	struct ws_record record;
	uint64_t members_scanned;
	uint64_t bytes_inflated;
	enum ws_verdict *verdicts;     /* ntargets: the worst counted object's; gates and exit status */
	enum ws_verdict *headline;     /* ntargets: the verdict of the artifact's main code (src/core/judge.c),
					* what the report's verdict line words; never better than a failing
					* verdicts[t] */
	struct ws_judgement *judged;   /* ntargets */
	uint16_t njudged;
	struct ws_altgroup *alts;      /* filled by ws_judge */
	uint32_t nalts;
	struct ws_image *images;       /* type "image": the images it holds */
	uint32_t nimages;
	char **superseded;             /* type "image": objects ("<layer>!<path>") that a later
					* layer replaces or deletes in every image holding them:
					* not in the final filesystem, so not judged */
	size_t nsuperseded;
	/* A member's own artifact, before its merge: the artifact's budget (borrowed), whose
	 * error count bounds what all members hold at once. NULL elsewhere. */
	struct ws_budget *budget;
	uint32_t max_errors;           /* with budget: its limit */
	struct ws_dynlib *libs;        /* shared objects' dynamic linking facts (ws_dynlib.h) */
	uint32_t nlibs;
};

void ws_wheel_info_free(struct ws_wheel_info *w);
/* Why a wheel or installed distribution is a CPU-only build of a package that has CUDA
 * builds (a "+cpu" local version label, or torch, torchvision or torchaudio, whose PyPI
 * wheels for Windows and macOS are CPU-only): only when it was read without error and
 * holds no device code. NULL otherwise. */
const char *ws_wheel_cpu_only(const struct ws_wheel_info *w);
const char *ws_artifact_cpu_only(const struct ws_artifact *a);
void ws_entry_clear(struct ws_entry *e);
/* The entry error for a kernel name that max_kernel_names left out (a limit, not memory). */
void ws_kernel_names_over(const struct ws_entry *e, const struct ws_limits *lim, struct ws_err *err);
void ws_fatbin_clear(struct ws_fatbin *f);
void ws_object_clear(struct ws_object *o);
void ws_artifact_free(struct ws_artifact *a);
void ws_artifact_unjudge(struct ws_artifact *a);

/* Appends an empty object / fatbin / entry; NULL on allocation failure. */
struct ws_object *ws_artifact_add_object(struct ws_artifact *a);
struct ws_fatbin *ws_object_add_fatbin(struct ws_object *o);
/* Objects with device code (at least one container), a group of alternatives (one is
 * loaded, chosen by CUDA version) counting once: the one count of objects every report
 * format prints, as the judgement counts them. */
uint32_t ws_artifact_code_objects(const struct ws_artifact *a);
/* True when the artifact had errors and no device code was read from it: it is not
 * judged (its verdicts say "none", which must not be shown as "nothing to run"). */
bool ws_artifact_unread(const struct ws_artifact *a);
/* Records an error "where: message" of kind code on the artifact (printf-style message). */
void ws_artifact_fail(struct ws_artifact *a, const char *where, enum ws_errcode code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same for a malformed input (WS_E_FORMAT), the most common kind. */
#define ws_artifact_error(a, where, ...) ws_artifact_fail((a), (where), WS_E_FORMAT, __VA_ARGS__)
/* Records err on the artifact and marks it reported; nothing when it is already. */
void ws_artifact_report(struct ws_artifact *a, const char *where, struct ws_err *err);

#endif
