/* ws_source.h - sources that yield members, and the one driver that scans them.
 *
 * A source yields its members: a name, a size when the format says it, and the member's
 * bytes as a pull stream (struct ws_reader, ws_scan.h). Nothing is extracted to disk.
 * There are two kinds. A sequential source (struct ws_source: libarchive's tar family,
 * deb, conda, stdin; a directory) yields one member at a time, each valid until the next.
 * A random-access source (struct ws_rsource: a zip, an installed distribution's files)
 * knows its members up front and opens member i from any thread.
 *
 *   argv -> run.c: one task per input -> scan_path.c: the file opened, its first bytes read
 *     -> ws_open: the format that bids highest                src/open.c (ws_open.h)
 *        tar, deb, conda (source_pack.c), zip (zipsrc.c), oci-layout (image_layout.c);
 *        none: a bare object, scanned by scan_path.c
 *     -> ws_walk: the format's open gives its source and checks src/walk.c
 *        (envsrc.c lists the files a RECORD, conda record or directory names, and walks
 *        them the same way with the files source, source_files.c)
 *     -> ws_drive_source: each member in turn         src/source.c
 *        ws_drive_random: members as tasks on the pool, largest first, each runner with
 *                         its own handle; results merged back in member order
 *                                                     src/source_random.c
 *        -> ws_drive_member: limits (atomic, every level), the digest the package check
 *           wants, sniff
 *           -> ws_scan_stream                          an ELF, PE, cubin, fatbin, PTX, ar
 *           -> ws_open again, for a member: the format's nested source, one level deep
 *                                                      a wheel, zip, tar, deb in a tarball
 *        -> the drive's checks (struct ws_drive_check, listed by the format's open): each
 *           asked what it wants of a member (a digest, a text) and told how it came out,
 *           then its verdicts: md5sums, paths.json (pkgcheck.c), RECORD and conda-meta
 *           (recordcheck.c), image digests (source_image.c; what later layers hide,
 *           image_layers.c)
 *     -> the format's after and close steps (a file's digest), the artifact reported in
 *        input order by run.c
 *
 * A format's own rules stay in its source: a zip's CRC-32 and declared sizes are checked
 * by its member stream (zipstream.c) when the driver closes the member, its Windows
 * separators and drive letters escape the archive (windows_names), and its whole-file
 * sha256 is taken in steps beside the members.
 *
 * Member names.  An object's member is its path inside the artifact. A member of an
 * archive that is itself a member is joined with '!': "dist/x.whl!pkg/lib/libx.so" in a
 * tarball (an error's "where" puts the artifact's path first: "t.tar!dist/x.whl!pkg/..."),
 * as ar members are "lib.a(x.o)". A package format's own wrapper is not a level: a .deb's
 * members are data.tar's paths ("usr/lib/libx.so", "./" dropped), a .conda's the paths of
 * its pkg and info tarballs ("lib/libx.so", "info/index.json"). A zip's member errors
 * name the member in the message, at the artifact ("x.whl: member 'a.so' ..."), as they
 * always have (zip_style).
 *
 * Nesting.  Archives nest one level: an archive found inside a member of the top-level
 * source is read; one found inside that is an error of kind WS_E_UNSUPPORTED ("not
 * read") and never opened, so no input can make the driver recurse without bound. A
 * container image's layer is a wrapper like a .deb's data.tar, not a level: a wheel in
 * a layer is read ("blobs/sha256/<hex>!wheels/x.whl!pkg/libx.so"), an archive in that
 * wheel is not. An installed file is never opened as an archive.
 *
 * Limits (struct ws_limits of the scan options) apply across every level of one
 * artifact: bytes of one member (max_member_bytes), bytes of all members read
 * (max_total_bytes, which includes the bytes a source decompresses to skip a member),
 * and members (max_members). The driver counts what it reads itself, so a source need
 * not, and a compression bomb stops at a limit whatever the format. The total limit ends
 * every walk of the artifact; a random-access member past the member limit ends only
 * itself.
 *
 * Adding a source.  A new archive, package or image format is a file that fills a struct
 * ws_archive_format (ws_open.h): a bidder (by name for a file, by the first bytes for a
 * file, a stream or a member, WS_BID_* for how sure), the nested source it opens on a
 * member's stream (source), and open/after/close, which give the walk its source and its
 * checks (ws_walk_check) and do what comes before and after the members (a file's
 * digest); then it is listed in src/open.c's table. A new check fills struct
 * ws_drive_check_ops (below) and is added by the format that carries it; the driver never
 * names one. No other file chooses a format (src/test/layers.sh). A
 * sequential source fills struct ws_source_ops (next, close) and struct ws_member; a
 * format whose wrapper is not a level (an image's layers, like a .deb's data.tar) drives
 * its inner sources with ws_drive_source at the level of its own members (1) and a prefix
 * of its choice; a member that is an archive is then opened at level 2 by the driver. A
 * random-access one fills struct ws_rsource_ops (a runner's handle, open and close member
 * i) and the member list, and is read with ws_drive_random.
 *
 * Threads.  A sequential source is driven on the caller's thread; payload decoding still
 * goes to the pool of the scan options. A random-access source's members are tasks on
 * that pool: one runner per thread (never more than there are members), the first on the
 * caller's thread; each member is scanned into an artifact of its own and merged in member
 * order, so the output does not depend on --jobs.
 */
#ifndef WS_SOURCE_H
#define WS_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "wheelscan.h"
#include "ws_scan.h"

/* Member names are cut to this many bytes in the messages that name them. */
#define WS_NAME_SHOWN 160

/* ---- what a source yields ------------------------------------------------------------ */

/* One member. name and rd stay valid until the source's next() or close(). */
struct ws_member {
	const char *name;              /* as stored in the archive (not sanitised) */
	uint64_t size;                 /* declared bytes, UINT64_MAX when unknown */
	bool regular;                  /* a regular file: directories, links, devices are skipped */
	bool dir;                      /* a directory (an image layer's directories merge) */
	struct ws_reader rd;           /* the member's bytes from its start; reread optional (a
					* source over files or a zip can; libarchive's cannot) */
	bool hashed;                   /* random-access only: the source feeds the digest the
					* driver lent to open() with every byte it yields (its
					* read-ahead hashes off the scanner's thread) */
};

struct ws_source;
struct ws_digest;

struct ws_source_ops {
	/* 1: *m holds the next member; 0: no more members; -1: the source failed (err set).
	 * A member not read to its end is skipped by the next call. */
	int (*next)(struct ws_source *s, struct ws_member *m, struct ws_err *err);
	void (*close)(struct ws_source *s);
};

/* Archive formats a source can hold, as told by content (ws_pack_sniff) or by name: the
 * bidders' helpers (src/source_archive.c); only the opener's formats use them (ws_open.h). */
enum ws_pack {
	WS_PACK_NONE = 0,
	WS_PACK_TAR,                   /* a tar archive, plain or compressed (gzip, bzip2, xz, zstd) */
	WS_PACK_COMPRESSED,            /* gzip/bzip2/xz/zstd data: a tar inside, or one file */
	WS_PACK_ZIP,                   /* a zip: a wheel, a .conda, any zip */
	WS_PACK_DEB,                   /* a Debian package: ar holding debian-binary first */
	WS_PACK_CONDA,                 /* by name only: a .conda (zip) package */
};

struct ws_source {
	const struct ws_source_ops *ops;
	enum ws_pack pack;             /* what the source was opened as */
	const char *format;            /* what it turned out to be, for messages ("tar", "zip") */
	void *impl;
	bool independent;              /* a member that fails does not end the source (files on
					* disk); a stream's source cannot go past a broken member */
};

/* The format the first bytes (n of them, up to WS_SNIFF_BYTES) show. A tar is known by
 * its ustar magic or a valid header checksum. */
enum ws_pack ws_pack_sniff(const uint8_t *p, size_t n);
/* The format a file name promises: ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2",
 * ".tar.xz", ".txz", ".tar.zst", ".tzst" -> TAR; ".deb" -> DEB; ".conda" -> CONDA. */
enum ws_pack ws_pack_by_name(const char *path);
/* The artifact type a source of this kind makes: tar, deb, conda, zip. */
enum ws_artifact_type ws_pack_type(enum ws_pack k);

/* ---- the libarchive source (src/source_archive.c) ---------------------------------- */

/* Opens a source on a file (fd: an open descriptor of it, read from where it stands, or
 * -1 to open path, closed again by ws_source_close) or on a stream (r, read until it ends;
 * it must outlive the source). kind says what to read it as: TAR (any filter), DEB (the ar wrapper),
 * CONDA / ZIP (a zip read member by member from its local headers), COMPRESSED (a tar,
 * or one compressed file yielded as a single member named ""). NULL with err set
 * (WS_E_FORMAT "not a tar archive: ...", WS_E_IO, WS_E_MEMORY). A descriptor passed in
 * is the caller's to close after ws_source_close. */
struct ws_source *ws_archive_open_file(const char *path, int fd, enum ws_pack kind, struct ws_err *err);
struct ws_source *ws_archive_open_reader(struct ws_reader *r, enum ws_pack kind, struct ws_err *err);
/* Compressed bytes the source has read from its file or stream so far (progress). */
uint64_t ws_archive_bytes_read(const struct ws_source *s);

/* ---- files on disk (src/source_files.c) ------------------------------------------------ */

/* Every regular file below dir (sorted, symbolic links not followed, at most max_files and
 * 64 directories deep), named by its path below dir. Members can be re-read (pread); a
 * file that cannot be opened fails as a member, not as the source. NULL with err set. */
struct ws_source *ws_dir_open(const char *dir, size_t max_files, struct ws_err *err);

/* ---- random-access sources ------------------------------------------------------------ */

/* A source that knows its members up front and opens any of them, from any thread (a zip:
 * one zip_t per runner; files: one open per member). The driver runs its members as tasks
 * on the scan's pool, largest first, and merges what each left in member order. */
struct ws_rsource;
struct ws_rsource_ops {
	/* What one runner (one thread) reads members through; first: the runner on the
	 * driver's own thread, which may borrow the opener's handle; so: the pool and group
	 * of the runners' scans (a read-ahead's tasks go there). NULL with err set. */
	void *(*runner_open)(struct ws_rsource *s, bool first, const struct ws_scan_opts *so, struct ws_err *err);
	void (*runner_close)(struct ws_rsource *s, void *runner);
	/* Opens member i: 1 with *m filled (m->name is names[i]); 0 when the member is not
	 * there (a file RECORD lists and nobody installed: nothing is read or reported); -1
	 * with err set. dg, when not NULL, is the digest the driver wants: a source may feed
	 * it itself (m->hashed), else the driver hashes what it reads. */
	int (*open)(struct ws_rsource *s, void *runner, uint32_t i, struct ws_digest *dg, struct ws_member *m,
		    struct ws_err *err);
	/* Ends the member opened last on runner, read to its end or not: the source's own
	 * checks of a member read to its end (a zip's CRC-32 and declared size); -1 with err
	 * set when they fail. The source stops feeding dg before it returns. */
	int (*close)(struct ws_rsource *s, void *runner, struct ws_err *err);
	/* Optional: work beside the members that no member waits for (a zip's whole-file
	 * sha256), done a short step per call wherever a thread would otherwise idle; true
	 * while steps remain. */
	bool (*beside_step)(struct ws_rsource *s);
};

struct ws_rsource {
	const struct ws_rsource_ops *ops;
	void *impl;
	uint32_t n;                    /* members */
	char **names;                  /* member names as stored (not sanitised) */
	const uint64_t *size;          /* declared sizes (UINT64_MAX unknown), or NULL */
	const uint64_t *cost;          /* bytes to read, for largest-first order, or NULL */
	const bool *skip;              /* no task and no check (a zip's directories), or NULL */
	const uint32_t *same_as;       /* a member that is another one (i > same_as[i], the same
					* file under another name): not read again, its result is
					* the other's; UINT32_MAX for none; or NULL */
	const bool *hash_only;         /* read for the digest only, never scanned, or NULL */
	bool windows_names;            /* '\\' and drive letters escape too (ws_path_escapes) */
	bool nest;                     /* a member that is an archive is read, one level */
	bool drain;                    /* every member is read to its end (a zip's CRC-32 checked)
					* even when nothing scans it; else only for a package check */
	bool zip_style;                /* member errors are named in the message ("member 'x'
					* ..."), at the artifact, as zip errors always were; a
					* member holding an archive counts as one scanned */
	bool stored_members;           /* members are files as stored (nothing inflates): their
					* sizes are the artifact's input for its budget */
};

/* Given files as a random-access source: member i is paths[i] named names[i], opened
 * (following a symbolic link) by whichever runner takes it. A file that is not a regular
 * file is absent; one that is not there is absent when listed (the files a record lists:
 * its check calls them missing), else it fails as a member, as one that cannot be opened
 * does. With algos
 * (the digest each member's check wants, NULL entries for none) a file met before under
 * another name (same device and inode, not reached through a symbolic link) is not read
 * again: it is that member (same_as) when the digest is the same, else read for its digest
 * only (hash_only), as a RECORD that spells one path many ways must not make a large file
 * read once per row. NULL with err set. */
struct ws_rsource *ws_files_rsource(char *const *paths, char *const *names, size_t n, const char *const *algos,
				    bool listed, struct ws_err *err);
/* The size of file i as it was opened (its alias's for a member that is another), or
 * UINT64_MAX when it was absent or not opened. */
uint64_t ws_files_rsource_size(const struct ws_rsource *s, uint32_t i);
void ws_files_rsource_free(struct ws_rsource *s);

static inline int ws_source_next(struct ws_source *s, struct ws_member *m, struct ws_err *err)
{
	return s->ops->next(s, m, err);
}
void ws_source_close(struct ws_source *s);

/* ---- checks: plug-ins of the driver ---------------------------------------------------- */

/* How a member came out, told to the checks (in member order for a random-access source). */
enum ws_member_state {
	WS_MEMBER_UNREAD = 0,          /* not read to its end: skipped, or failed (already an error) */
	WS_MEMBER_ABSENT,              /* not there (a file RECORD lists that nobody installed) */
	WS_MEMBER_READ,                /* read to its end: md (dl bytes; 0 when no digest was
					* taken for this check) and size are the member's */
};

/* What the driver tells a check of one member. */
struct ws_told {
	const char *name;              /* as stored (a nested member: "outer!inner") */
	const char *where;             /* "label!name", sanitised (a sequential source's), or NULL */
	enum ws_member_state state;
	const uint8_t *md;             /* the digest of the algorithm this check asked for */
	size_t dl;                     /* its bytes; 0: none */
	uint64_t size;                 /* bytes read */
	bool archive;                  /* the member was opened as an archive */
	size_t text_max;               /* the text this check asked for (0: none), and what was kept: */
	char *text;                    /* malloc'd, NUL-terminated, taken over by the check (NULL: none) */
	size_t ntext;
	bool text_over;                /* larger than text_max (or memory was short) */
};

/* A check that rides along a drive (a package's own checksums, a distribution's record, an
 * image's digests): the driver asks each what it wants of a member and tells it how the
 * member came out, and never calls one by name. A sequential source's own members (level
 * 1) are told to the checks that asked for a digest or a text; a random-access source's
 * members, every one of them, in member order. The first check that wants a digest of a
 * member chooses its algorithm (every check that asks for it gets it), the first that
 * wants its text gets the text. */
struct ws_drive_check;
struct ws_drive_check_ops {
	/* The digest to take over this member ("sha256", "md5", ...), or NULL. */
	const char *(*algo)(struct ws_drive_check *c, const char *name);
	/* The most bytes of this member to keep as text (0: none), once its first bytes are
	 * known (head); NULL: never. */
	size_t (*wants_text)(struct ws_drive_check *c, const char *name, const uint8_t *head, size_t nhead);
	/* One member, read or not. */
	void (*member)(struct ws_drive_check *c, struct ws_artifact *a, const char *label, struct ws_told *t);
	/* Every member is told (complete: the walk was not stopped short): the verdicts on a. */
	void (*finish)(struct ws_drive_check *c, struct ws_artifact *a, const char *label, bool complete);
	void (*free)(struct ws_drive_check *c);
	/* Optional (NULL: none): a member the source holds, read or not, before it is read
	 * (sequential, level 1); the walk stopped at a broken member before the source's end; a
	 * member that is a layer's wrapper, not a level of nesting; an entry of such a layer
	 * (any type: dir says a directory). */
	void (*present)(struct ws_drive_check *c, const char *name);
	void (*incomplete)(struct ws_drive_check *c);
	bool (*layer)(struct ws_drive_check *c, const char *name);
	void (*entry)(struct ws_drive_check *c, const char *layer, const char *path, bool dir);
};
struct ws_drive_check {
	const struct ws_drive_check_ops *ops;    /* the first member of each check's own state */
};

#define WS_DRIVE_CHECKS 4              /* checks one drive carries at most */

/* ---- the driver (src/source.c) -------------------------------------------------------- */

/* One artifact's walk over its sources: options, limits and running totals shared by
 * every level. Fill it with ws_drive_init; nothing in it needs freeing but its checks,
 * which ws_drive_finish releases. */
/* Scans one member's stream; same contract as ws_scan_stream, which is what runs when
 * struct ws_drive's scan_member is NULL (tests put a double there). */
typedef int (*ws_member_scan_fn)(void *ctx, struct ws_artifact *a, const char *member, struct ws_reader *r,
				 uint64_t size, const struct ws_scan_opts *opt);

struct ws_drive {
	struct ws_artifact *a;
	const char *label;             /* names the artifact in messages (a->path) */
	struct ws_scan_opts scan;      /* lim points at lim below */
	struct ws_limits lim;
	uint64_t total;                /* bytes of all members read, every level (atomic; in root) */
	uint64_t members;              /* members seen, every level (atomic; in root) */
	bool stopped;                  /* a limit or a failed source ended the walk; root's is set
					* (atomically) by the total limit, which ends every walk */
	struct ws_drive *root;         /* the drive whose totals count: itself, or the one a
					* random-access member's task was copied from */
	ws_member_scan_fn scan_member; /* NULL: ws_scan_stream */
	void *scan_member_ctx;
	uint64_t *progress;            /* compressed bytes of the top source go here, or NULL */
	struct ws_drive_check *checks[WS_DRIVE_CHECKS];  /* what rides along, in order: an image's digests
					* (ws_image.h), a package's checksums or a record (ws_pkgcheck.h) */
	unsigned nchecks;
	int layer_levels;              /* 1 while a layer of an image is read: not a level */
	struct ws_source *input_src;   /* a stream of unknown size (standard input): the bytes its
					* top source has read are the artifact's input for its budget */
	uint64_t input_seen;           /* of those, told to the budget so far */
	struct ws_budget own_budget;   /* scan.budget when the options bring none */
};

void ws_drive_init(struct ws_drive *d, struct ws_artifact *a, const struct ws_scan_opts *so);
/* Adds a check to the drive (NULL: none), told of members in the order added; the drive
 * frees it. False (the check freed) when the drive has WS_DRIVE_CHECKS already. */
bool ws_drive_add_check(struct ws_drive *d, struct ws_drive_check *c);
/* Reads every member of s (level: 1 for the artifact's own source, 2 for a nested
 * one) and scans it; prefix joins nested names ("x.whl!", "" at the top). Returns 0,
 * or -1 when an error was recorded on the artifact. */
int ws_drive_source(struct ws_drive *d, struct ws_source *s, const char *prefix, int level);
/* Reads every member of a random-access source as tasks on the scan's pool (the
 * artifact's own source: level 1); merges objects and errors in member order, and tells the checks
 * of each member in that order, so the output does not depend on --jobs. Returns 0, or -1
 * when an error was recorded on the artifact. */
int ws_drive_random(struct ws_drive *d, struct ws_rsource *s);
/* Every check's verdicts once the members are read, in the order the checks were added;
 * frees them. */
void ws_drive_finish(struct ws_drive *d);

#endif
