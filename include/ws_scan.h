/* ws_scan.h - from bytes to model: content sniffing and object scanning.
 *
 * An input is either a memory span (plain files are mmap'd) or a pull stream
 * (zip members, inflated as they are read). Both are scanned by the same code
 * through a window (src/core/window.c) that keeps only what the current
 * container entry needs, so memory does not grow with the size of the input.
 */
#ifndef WS_SCAN_H
#define WS_SCAN_H

#include "wheelscan.h"
#include "ws_decode.h"

/* A pull stream. read() returns the number of bytes stored (0 at the end, -1 on error,
 * recorded in err with its code). reread(), optional, re-reads an earlier range by offset
 * (used for the rare ELF whose section-name table lies far before its section headers);
 * it returns 0 or -1 with err set. err, optional, is the reader's own record of why it
 * failed: the window hands it to read(), and the scanner that reports the failure marks
 * it reported, so that the reader's owner does not report it a second time. */
struct ws_reader {
	long (*read)(void *ctx, uint8_t *buf, size_t n, struct ws_err *err);
	int (*reread)(void *ctx, uint64_t off, uint8_t *buf, size_t n, struct ws_err *err);
	void *ctx;
	struct ws_err *err;
};

/* What the first bytes of an input say it is. */
enum ws_content {
	WS_CONTENT_OTHER = 0,
	WS_CONTENT_ELF,        /* host ELF (any machine but EM_CUDA) */
	WS_CONTENT_CUBIN,      /* ELF with e_machine EM_CUDA (190) */
	WS_CONTENT_AR,         /* "!<arch>\n" */
	WS_CONTENT_FATBIN,     /* starts with a valid fatbin container header */
	WS_CONTENT_PTX,        /* text with a ".version" directive near the top */
	WS_CONTENT_ZIP,        /* "PK\3\4" or an empty zip's "PK\5\6" */
	WS_CONTENT_PE,         /* a Windows PE image: "MZ" with a "PE\0\0" signature */
};
/* n should be at least WS_SNIFF_BYTES when the input is that long. */
#define WS_SNIFF_BYTES 4096
/* With --no-kernels, containers up to this size are still decoded: whether a container
 * holds kernels decides its role, and the kernel-less ones (device-link stubs, units with
 * only data) measured at most 18.5 KiB in every CUDA 13.0 toolkit library, so decoding
 * the small ones costs little and keeps verdicts equal to a full scan. Larger ones are
 * assumed to hold kernels (reason "kernels-assumed" where that decides a failure). */
#define WS_SMALL_CONTAINER ((uint64_t)64 << 10)
enum ws_content ws_sniff(const uint8_t *p, size_t n);
/* What a file's name promises and its content does not keep: NULL when they agree (or the
 * name promises nothing), else a one-line reason ("not a wheel: not a zip archive"). A
 * ".whl" must be a zip, ".dll"/".pyd" a PE image, ".so"/".so.N"/".o" an ELF file or a
 * linker script, ".a" an ar archive, ".cubin" a cubin, ".fatbin" a fatbin. head holds
 * the first n bytes (n 0: the file is empty). */
const char *ws_name_claim(const char *path, enum ws_content c, const uint8_t *head, size_t n);
/* The artifact type content c makes a file (WS_ART_OTHER for WS_CONTENT_OTHER). */
enum ws_artifact_type ws_content_type(enum ws_content c);
/* The artifact type a file's name promises, for a file whose bytes cannot be read:
 * wheel, zip, pe, elf, archive, cubin, fatbin, ptx, tar, deb, conda, else WS_ART_UNKNOWN. */
enum ws_artifact_type ws_name_type(const char *path);

/* Called with the whole bytes of each container found, when the caller asks
 * for them (the live check loads them); p is only valid during the call. */
typedef void (*ws_container_fn)(void *ctx, struct ws_object *o, struct ws_fatbin *f,
				const uint8_t *p, size_t n);

struct ws_scan_opts {
	const struct ws_limits *lim;
	struct ws_budget *budget;    /* the artifact's, shared by its members and threads; NULL:
				      * the scan keeps one of its own (the input is the artifact) */
	bool want_kernels;           /* decode payloads for kernel names (default true) */
	bool list_kernels;           /* keep every kernel name; otherwise names are kept as
				      * 64-bit hashes, enough to count distinct kernels */
	ws_container_fn on_container;
	void *on_container_ctx;
	/* The threads a scan may use, lent by its caller: the scanner itself starts and locks
	 * nothing. With offload NULL, payloads decode in place with a decode context of the
	 * scan's own; with ws_pool_offload (decodeq.c) they decode as tasks on pool, below
	 * group, borrowing contexts from decoders (never with on_container, which needs each
	 * container's facts at once). The scanner only passes the three pointers on. */
	const struct ws_offload *offload;
	struct ws_pool *pool;
	struct ws_group *group;      /* the tasks' parent group (NULL: top level) */
	struct ws_decoders *decoders;
	bool drop_behind;            /* memory input is a private file mapping: give pages
				      * already scanned back to the kernel (keeps RSS small) */
};

/* Where payloads decode when not in place, and where decode contexts come from. */
struct ws_decodeq;
struct ws_decoders;                   /* decoders.c: the contexts tasks borrow */
/* One payload's decoding, queued by push and given back by next (decodeq.c fills it; the
 * scanner reads the result fields and applies them in entry order). */
struct ws_decode_task {
	struct ws_decodeq *q;
	uint32_t fatbin, entry;        /* where the result goes, as indices into the object */
	struct ws_entry res;           /* the header fields; the decode fills in the rest */
	struct ws_strpool names;       /* res.kernels index this pool */
	uint8_t *payload;              /* a copy while queued, given back once decoded */
	size_t n;
	bool lent;                     /* payload is a buffer lent by the pool */
	int rc;                        /* 0, or -1 with err */
	struct ws_err err;
	bool done;                     /* atomic: decoded */
};

struct ws_offload {
	/* a queue for one scan's payloads, or NULL: decode in place */
	struct ws_decodeq *(*open)(const struct ws_scan_opts *opt, const struct ws_limits *lim);
	int (*push)(struct ws_decodeq *q, uint32_t fatbin, uint32_t entry, const struct ws_entry *hdr,
		    const uint8_t *p, size_t n);
	struct ws_decode_task *(*next)(struct ws_decodeq *q, bool wait);
	void (*task_free)(struct ws_decode_task *t);
	void (*close)(struct ws_decodeq *q);
	struct ws_decoder *(*take)(struct ws_decoders *ds);
	void (*give)(struct ws_decoders *ds, struct ws_decoder *dc);
};

/* Scan one input held in memory. `member` names it inside its artifact (NULL
 * for the artifact itself). Adds one object per ELF/fatbin/cubin/ptx found
 * (an ar archive adds one per member, "lib.a(x.o)"); problems are recorded on
 * the artifact with ws_artifact_error. Returns 0 when clean, -1 when an
 * error was recorded, 1 when the input holds nothing wheelscan reads
 * (not an error: a text file, an image). */
int ws_scan_memory(struct ws_artifact *a, const char *member, const uint8_t *p, size_t n,
		   const struct ws_scan_opts *opt);

/* Same for a stream whose total length is `size` (UINT64_MAX if unknown). */
int ws_scan_stream(struct ws_artifact *a, const char *member, struct ws_reader *r,
		   uint64_t size, const struct ws_scan_opts *opt);

#endif
