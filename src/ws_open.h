/* ws_open.h - the one opener: what an input is, chosen by bids (src/open.c), and the walk
 * of one artifact through the format that won (src/walk.c).
 *
 * Every archive, package, image and directory format is chosen here, whatever holds it: a
 * file given on the command line, standard input, a member of an archive (nested, one
 * level), a directory. ws_open asks each format's bidder about the input (where it comes
 * from, its name, its first bytes) and takes the highest bid, the first of equal ones, as
 * libarchive's choose_format does. A format is one file that fills a struct ws_archive_format
 * (struct ws_archive_format: bidder, the source it opens, its steps around the walk) and is listed in open.c's table
 * (libarchive's archive_read_support_format_all.c):
 *
 *   tar, deb, conda       source_pack.c   (their source: source_archive.c, libarchive)
 *   zip (and wheels)      zipsrc.c        (libzip, random access; in a member: libarchive)
 *   oci-layout            image_layout.c  (a directory holding oci-layout; source_files.c)
 *
 * A bare object (ELF, PE, fatbin, cubin, PTX, ar) is no archive format: what bids nothing
 * is told by the object sniffer of the core (ws_sniff) and scanned by scan_path.c or, in a
 * member, by the driver. src/test/layers.sh holds the tree to this: only the opener and the
 * format files use the format sniff helpers and the sources' constructors.
 */
#ifndef WS_OPEN_H
#define WS_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_source.h"

/* Where the bytes to open come from. */
enum ws_open_from {
	WS_FROM_FILE,                  /* a regular file: name is its path, fd open on it */
	WS_FROM_DIR,                   /* a directory: name is its path */
	WS_FROM_STDIN,                 /* standard input: fd gives what follows head; once a format
					* that wants its input whole has won, mem/len hold all of it */
	WS_FROM_MEMBER,                /* a member of an archive: rd gives its bytes from the start */
};

/* What ws_open is asked about. */
struct ws_open_in {
	enum ws_open_from from;
	const char *name;              /* the path ("-" for standard input), or the member's name */
	const uint8_t *head;           /* the first bytes (up to WS_SNIFF_BYTES; none for a directory) */
	size_t nhead;
	int fd;                        /* FILE, STDIN */
	const uint8_t *mem;            /* STDIN spooled, or the zip API's memory */
	size_t len;
	struct ws_reader *rd;          /* MEMBER */
};

/* How the artifact is to be read. */
struct ws_zip_opts;
struct ws_open_opts {
	const struct ws_scan_opts *so; /* NULL: defaults */
	uint64_t *progress;            /* compressed bytes of the top source go here, or NULL */
	bool verify;                   /* a distribution's own record is checked (--no-verify) */
	const struct ws_zip_opts *zip; /* the zip API's own options (ws_zip_scan_file), or NULL */
};

/* One artifact's walk as its format opened it: the format's open fills what the driver
 * walks and how; the walk (walk.c) starts the drive with them, drives it, and calls the
 * format's after and close. */
struct ws_walk {
	struct ws_artifact *a;
	const struct ws_open_in *in;
	const struct ws_open_opts *o;
	struct ws_scan_opts scan;      /* the drive's options (a copy of o->so; a format may adjust) */
	struct ws_source *src;         /* what the driver walks: a sequential source, */
	struct ws_rsource *rsrc;       /* or a random-access one */
	/* set on the drive once it is started (0/NULL: the driver's own) */
	const char *label;
	uint64_t *progress;
	bool input_stream;             /* src is a stream of unknown size (its bytes are the input) */
	ws_member_scan_fn scan_member;
	void *scan_member_ctx;
	struct ws_drive_check *checks[WS_DRIVE_CHECKS];  /* what rides along (ws_walk_check), in order */
	unsigned nchecks;
	struct ws_drive d;             /* the drive, valid in after() */
	void *impl;                    /* the format's */
};

struct ws_archive_format {
	const char *name;              /* "tar", "deb", "conda", "zip", "oci-layout" */
	/* 0: not this format; else higher wins (WS_BID_NAME over WS_BID_CONTENT) */
	int (*bid)(const struct ws_open_in *in);
	bool whole;                    /* from standard input it needs all its bytes (mem, len) */
	/* MEMBER: the member's stream as a nested source; NULL with err set. NULL: the format is
	 * never nested. */
	struct ws_source *(*source)(const struct ws_open_in *in, struct ws_err *err);
	/* FILE, DIR, STDIN: fills w (src or rsrc, and how to drive it); errors are recorded on
	 * w->a. -1: nothing to walk (close is still called). */
	int (*open)(struct ws_walk *w);
	void (*after)(struct ws_walk *w);  /* the members read, before the checks conclude; or NULL */
	void (*close)(struct ws_walk *w);  /* the end, whatever open returned; or NULL */
};

#define WS_BID_NAME 100                /* the name says it (x.deb, x.tar.gz), or it is a layout */
#define WS_BID_CONTENT 50              /* the first bytes say it */
#define WS_BID_WEAK 40                 /* the first bytes may say it (a zip's local header) */

/* The format that bids highest for in, or NULL when none bids. */
const struct ws_archive_format *ws_open(const struct ws_open_in *in);
/* The format of that name, for an API that knows what it holds (ws_zip_scan_file). */
const struct ws_archive_format *ws_open_named(const char *name);

/* Adds a check to the walk (NULL: none; past WS_DRIVE_CHECKS it is freed): the format's
 * open lists the checks its artifact carries, and the walk hands them to the driver. */
static inline void ws_walk_check(struct ws_walk *w, struct ws_drive_check *c)
{
	if (!c)
		return;
	if (w->nchecks < WS_DRIVE_CHECKS)
		w->checks[w->nchecks++] = c;
	else
		c->ops->free(c);
}

/* Walks in through f into a (a->path set by the caller): the format's open, the driver over
 * its source with its checks, the format's after and close. 0, or -1 when an error was
 * recorded on a. */
int ws_walk(struct ws_artifact *a, const struct ws_archive_format *f, const struct ws_open_in *in, const struct ws_open_opts *o);

#endif
