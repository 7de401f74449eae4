/* ws_pipreport.h - pip's installation report (`pip install --dry-run --report FILE`,
 * format version 1, pip >= 23), read for the guard (src/pipreport.c): what pip would
 * install, each with the file it would fetch and that file's sha256. The report is
 * hostile input like any other: every string, count and size is bounded, and names and
 * versions that could not be a distribution's are refused. */
#ifndef WS_PIPREPORT_H
#define WS_PIPREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "wheelscan.h"

#define WS_PIP_REPORT_MAX_BYTES (64u << 20)   /* a report of 10,000 items is ~30 MiB */
#define WS_PIP_REPORT_MAX_ITEMS 10000
#define WS_PIP_URL_MAX 8192

enum ws_pip_source {
	WS_PIP_ARCHIVE = 1,            /* a file: a wheel or an sdist (archive_info) */
	WS_PIP_DIR,                    /* a local project directory (dir_info) */
	WS_PIP_VCS,                    /* a VCS checkout (vcs_info) */
};

struct ws_pip_item {
	char *name;                    /* metadata.name */
	char *version;                 /* metadata.version */
	char *url;                     /* download_info.url */
	char sha256[65];               /* archive_info's sha256, lower-case hex; "" when none */
	enum ws_pip_source source;
	bool wheel;                    /* an archive whose file name ends in .whl */
	bool editable;                 /* dir_info.editable */
	char *vcs, *commit;            /* vcs_info.vcs and commit_id, or NULL */
	bool requested;                /* named on the command line (or in -r) */
};

struct ws_pip_report {
	char *pip_version;             /* "24.0", or NULL */
	struct ws_pip_item *v;
	size_t n;
};

/* Parses a report held in p[0..n). 0, or -1 with the reason in err (format, memory). */
int ws_pip_report_parse(struct ws_pip_report *r, const char *p, size_t n, struct ws_err *err);
/* Reads and parses the report in path (at most WS_PIP_REPORT_MAX_BYTES). */
int ws_pip_report_read(struct ws_pip_report *r, const char *path, struct ws_err *err);
void ws_pip_report_free(struct ws_pip_report *r);

/* The file name an archive's URL ends in, percent-decoded, into buf: false when it is not
 * a plain file name (empty, ".", "..", a slash or a control character once decoded). */
bool ws_pip_url_file(const char *url, char *buf, size_t len);
/* Names equal as PEP 503 normalises them (case, runs of -_. alike). */
bool ws_pip_same_name(const char *a, const char *b);
/* Compares two versions as PEP 440 orders the common forms (release numbers, pre/post/dev
 * tags, then the local label): <0, 0 or >0. */
int ws_pip_version_cmp(const char *a, const char *b);

#endif
