/* fts.h - the part of BSD fts(3) src/inputs.c walks directories with: a physical walk in
 * preorder, directories once (FTS_D), files (FTS_F), fts_set(FTS_SKIP); src/win/fts_win.c. */
#ifndef WS_WIN_FTS_H
#define WS_WIN_FTS_H
#include <stddef.h>
#include <sys/stat.h>

#define FTS_PHYSICAL 0x1
#define FTS_COMFOLLOW 0x2
#define FTS_NOCHDIR 0x4
#define FTS_NOSTAT 0x8
#define FTS_LOGICAL 0x10
#define FTS_XDEV 0x20

enum { FTS_D = 1, FTS_DP, FTS_F, FTS_SL, FTS_SLNONE, FTS_DNR, FTS_ERR, FTS_NS, FTS_DC, FTS_DEFAULT, FTS_NSOK, FTS_DOT };
#define FTS_SKIP 4

typedef struct ws_ftsent {
	char *fts_path;
	char *fts_accpath;
	char *fts_name;
	size_t fts_pathlen;
	int fts_info;
	int fts_errno;
	int fts_level;
	struct stat *fts_statp;
	/* private */
	struct stat st_;
	int instr_;
	void *children_;
} FTSENT;
typedef struct ws_fts FTS;

FTS *fts_open(char *const *roots, int options, int (*compar)(const FTSENT **, const FTSENT **));
FTSENT *fts_read(FTS *t);
int fts_set(FTS *t, FTSENT *e, int instr);
int fts_close(FTS *t);
#endif
