/* posix.h - the POSIX names wheelscan's portable files use, on Windows (MinGW-w64).
 *
 * Forced into every file of the Windows build (-include, Makefile WS_OS=win32), so that the
 * files shared with Linux compile unchanged. Paths are UTF-8 throughout the program; every
 * call here that takes a path converts it to UTF-16 and uses the wide API, so a name outside
 * the ANSI code page opens. Descriptors are the C runtime's, always binary. stat reports
 * 64-bit sizes and nanosecond times. What Windows cannot do (symbolic links as lstat sees
 * them, fork, memfd) is not emulated: see src/win/README.
 */
#ifndef WS_WIN_POSIX_H
#define WS_WIN_POSIX_H

#ifndef _WIN32
#error "src/win/posix.h is for the Windows build only"
#endif

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <pthread.h>
#include <unistd.h>
#include <dirent.h>     /* these two before the names below replace their own */
#include <direct.h>

/* open(2): flags Windows lacks are accepted and mean nothing (no descriptor is inherited by
 * a child unless asked: _O_NOINHERIT). O_TMPFILE makes a nameless file in the directory given,
 * deleted when closed. */
#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef O_DIRECTORY
#define O_DIRECTORY 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#define O_TMPFILE 0x40000000
/* UTF-8 as a fresh UTF-16 string (free it), or NULL with errno EILSEQ when it is not UTF-8:
 * a command line, a name. */
wchar_t *ws_win_utf16(const char *s);
/* A UTF-8 path as a fresh UTF-16 string for the wide API (free it): past MAX_PATH in its
 * \\?\ form, which Windows needs there; NULL with errno EILSEQ when it is not UTF-8. */
wchar_t *ws_win_path(const char *path);
int ws_win_open(const char *path, int flags, ...);
#define open ws_win_open

/* stat(2) with 64-bit sizes and timespec times; the struct is wheelscan's own. */
#undef stat
#undef fstat
#undef lstat
#define stat ws_stat
#define fstat ws_fstat
#define lstat ws_stat
struct ws_stat {
	uint32_t st_dev;
	uint64_t st_ino;
	unsigned st_mode;
	unsigned st_nlink;
	int64_t st_size;
	struct timespec st_atim, st_mtim, st_ctim;
};
int ws_stat(const char *path, struct ws_stat *st);
int ws_fstat(int fd, struct ws_stat *st);
#ifndef S_ISLNK
#define S_ISLNK(m) 0
#endif
#ifndef S_ISSOCK
#define S_ISSOCK(m) 0
#endif
#ifndef S_IFLNK
#define S_IFLNK 0
#endif

/* The rest of the path calls, wide underneath. */
FILE *ws_win_fopen(const char *path, const char *mode);
#define fopen ws_win_fopen
int ws_win_access(const char *path, int mode);
#define access ws_win_access
#ifndef X_OK
#define X_OK 0                       /* Windows: whether it exists */
#endif
int ws_win_unlink(const char *path);
#define unlink ws_win_unlink
int ws_win_rename(const char *from, const char *to);
#define rename ws_win_rename
int ws_win_mkdir(const char *path, int mode);
#define mkdir ws_win_mkdir
/* The full path, with the volume; NULL and errno when it does not exist (as realpath). */
char *ws_win_realpath(const char *path, char *resolved);
#define realpath ws_win_realpath
ssize_t ws_win_readlink(const char *path, char *buf, size_t len);
#define readlink ws_win_readlink
char *ws_win_getcwd(char *buf, size_t len);
#define getcwd ws_win_getcwd

/* pread(2): a positioned read that leaves the descriptor's offset alone. */
ssize_t ws_win_pread(int fd, void *buf, size_t n, int64_t off);
#define pread ws_win_pread

/* Directories: dirent over FindFirstFileW, names in UTF-8. */
#define DIR ws_DIR
#define dirent ws_dirent
#define opendir ws_opendir
#define readdir ws_readdir
#define closedir ws_closedir
#define dirfd ws_dirfd
#define DT_UNKNOWN 0
struct ws_dirent {
	unsigned char d_type;
	char d_name[1024];              /* UTF-8: up to 260 UTF-16 units, 3 bytes each */
};
typedef struct ws_DIR ws_DIR;
ws_DIR *ws_opendir(const char *path);
struct ws_dirent *ws_readdir(ws_DIR *d);
int ws_closedir(ws_DIR *d);
int ws_dirfd(ws_DIR *d);

/* Memory hints that Windows does without. */
#define MADV_SEQUENTIAL 0
#define MADV_DONTNEED 0
#define MADV_WILLNEED 0
static inline int ws_win_madvise(void *p, size_t n, int advice)
{
	(void)p, (void)n, (void)advice;
	return 0;
}
#define madvise(p, n, a) ws_win_madvise((void *)(p), (n), (a))

/* No memfd: the spool of standard input is an O_TMPFILE file (above). */
#define MFD_CLOEXEC 1u
static inline int ws_win_memfd_create(const char *name, unsigned flags)
{
	(void)name, (void)flags;
	errno = ENOSYS;
	return -1;
}
#define memfd_create ws_win_memfd_create

/* Processors, page size. */
#define _SC_NPROCESSORS_ONLN 84
#define _SC_PAGESIZE 30
#define _SC_PAGE_SIZE _SC_PAGESIZE
long ws_win_sysconf(int name);
#define sysconf ws_win_sysconf

/* Time. */
#ifndef gmtime_r
#define gmtime_r(t, tm) (gmtime_s((tm), (t)) == 0 ? (tm) : NULL)
#endif
#ifndef localtime_r
#define localtime_r(t, tm) (localtime_s((tm), (t)) == 0 ? (tm) : NULL)
#endif

/* Environment: setenv as POSIX has it (the C runtime's copy, which getenv reads). */
int ws_win_setenv(const char *name, const char *value, int overwrite);
#define setenv ws_win_setenv
int ws_win_unsetenv(const char *name);
#define unsetenv ws_win_unsetenv

/* Linux's key errors (src/errname.c names them); Windows never sets them. */
#ifndef ENOKEY
#define ENOKEY 126
#endif
#ifndef EKEYREVOKED
#define EKEYREVOKED 128
#endif

/* GNU string functions src/core uses. */
char *ws_win_strcasestr(const char *hay, const char *needle);
#define strcasestr ws_win_strcasestr
#include <strings.h>

void *ws_win_memrchr(const void *s, int c, size_t n);
#define memrchr ws_win_memrchr
void *ws_win_memmem(const void *hay, size_t n, const void *needle, size_t k);
#define memmem ws_win_memmem
#define getc_unlocked _getc_nolock
/* qsort_r as glibc has it (the argument last), over the C runtime's qsort_s */
void ws_win_qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg);
#define qsort_r ws_win_qsort_r

/* stdout as a variable, as glibc has it: src/output.c may put its own stream there. */
FILE **ws_win_stdout(void);
#undef stdout
#define stdout (*ws_win_stdout())

/* glibc's allocator tuning (src/main.c) means nothing to the C runtime's. */
#include <malloc.h>
#define M_MMAP_THRESHOLD 0
static inline int ws_win_mallopt(int opt, int v)
{
	(void)opt, (void)v;
	return 1;
}
#define mallopt ws_win_mallopt

/* src/main.c's main, called by src/win/wmain_win.c with UTF-8 arguments (Makefile: -Dmain=) */
int ws_main_utf8(int argc, char **argv);

/* No fopencookie: src/output.c then writes stdout plainly, and a write error is still caught. */
typedef struct {
	ssize_t (*write)(void *cookie, const char *buf, size_t n);
} cookie_io_functions_t;
#define fopencookie(c, m, f) ((void)(c), (void)(m), (void)(f), (FILE *)NULL)

/* isatty(3): a console, not any character device (the C runtime's says yes to NUL, where
 * colour and a progress bar would be wrong). */
int ws_win_isatty(int fd);
#define isatty ws_win_isatty

/* pause(2): sleeps for good (there are no signals to wake it). */
int ws_win_pause(void);
#define pause ws_win_pause

/* There are no signals to speak of: the names exist so that shared code compiles. */
#ifndef SIGPIPE
#define SIGPIPE 13
#endif
#ifndef SIGKILL
#define SIGKILL 9
#endif
#ifndef SIGBUS
#define SIGBUS 7
#endif

#endif
