/* posix_win.c - the POSIX calls of src/win/posix.h on Windows: UTF-8 paths through the wide
 * API, 64-bit stat, pread, directories, anonymous mappings, random bytes. */
#include <windows.h>
#include <bcrypt.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <dlfcn.h>

#include "ws_util.h"

/* UTF-8 to a fresh UTF-16 string (free it), or NULL with errno (EILSEQ: not UTF-8). */
wchar_t *ws_win_utf16(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	wchar_t *w = malloc((size_t)n * sizeof *w);
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

/* Windows' Win32 layer refuses a path of MAX_PATH (260) characters or more, a directory's
 * of 248 (room for an 8.3 name), unless it is spelled \\?\C:\... or \\?\UNC\server\share\...;
 * that form is taken as it stands, so it must be absolute, with '\' only and no '.' or '..'
 * segment: GetFullPathNameW (which has no such limit) makes it. A shorter path is passed as
 * given, so that every error message and every path the program prints is the user's. */
#define LONG_PATH_FROM 240             /* a directory's pattern "dir\*" must fit as well */

static wchar_t *long_form(wchar_t *w)
{
	if (!w || wcsncmp(w, L"\\\\?\\", 4) == 0)
		return w;
	/* a short absolute path is passed as it is; a relative one is long when the current
	 * directory makes it so, which only the full path tells */
	size_t len = wcslen(w);
	bool absolute = (len >= 3 && w[1] == L':' && (w[2] == L'\\' || w[2] == L'/')) ||
			(len >= 2 && (w[0] == L'\\' || w[0] == L'/') && (w[1] == L'\\' || w[1] == L'/'));
	if (len < LONG_PATH_FROM && absolute)
		return w;
	DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
	if (len < LONG_PATH_FROM && n < LONG_PATH_FROM)
		return w;
	wchar_t *full = n > 0 && n <= 32767 ? malloc(((size_t)n + 8) * sizeof *full) : NULL;
	if (!full)
		return w;                      /* the call then fails as it would have */
	DWORD m = GetFullPathNameW(w, n, full + 8, NULL);
	if (m == 0 || m >= n) {
		free(full);
		return w;
	}
	const wchar_t *rest = full + 8, *prefix = L"\\\\?\\";
	if (rest[0] == L'\\' && rest[1] == L'\\') {
		rest += 2;                     /* \\server\share -> \\?\UNC\server\share */
		prefix = L"\\\\?\\UNC\\";
	}
	size_t pl = wcslen(prefix);
	memmove(full, prefix, pl * sizeof *full);
	memmove(full + pl, rest, (wcslen(rest) + 1) * sizeof *full);
	free(w);
	return full;
}

/* A UTF-8 path as the wide API takes it (free it), or NULL with errno. */
wchar_t *ws_win_path(const char *s)
{
	return long_form(ws_win_utf16(s));
}
#define wide ws_win_path

/* A copy of a UTF-16 path in the form the wide API takes (free it). */
static wchar_t *wide_of(const wchar_t *p)
{
	size_t n = wcslen(p) + 1;
	wchar_t *c = malloc(n * sizeof *c);
	if (c)
		memcpy(c, p, n * sizeof *c);
	return long_form(c);
}

/* UTF-16 to UTF-8 in buf; 0, or -1 (ERANGE) when it does not fit. */
static int narrow(const wchar_t *w, char *buf, size_t len)
{
	int cap = len > INT_MAX ? INT_MAX : (int)len;
	if (WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, cap, NULL, NULL) <= 0) {
		errno = ERANGE;
		return -1;
	}
	return 0;
}

/* Windows' error codes as errno, for the few that matter to the callers' messages. */
static int errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_NAME: case ERROR_BAD_NETPATH:
		return ENOENT;
	case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION:
		return EACCES;
	case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_HANDLE_EOF:
		return 0;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	default:
		return EIO;
	}
}

int ws_win_open(const char *path, int flags, ...)
{
	int mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (flags & O_TMPFILE) {
		/* a file nobody can name: created in the directory, deleted on close */
		wchar_t *d = wide(path), name[MAX_PATH + 16];
		if (!d)
			return -1;
		UINT r = GetTempFileNameW(d, L"wsc", 0, name);
		free(d);
		if (!r) {
			errno = errno_of(GetLastError());
			return -1;
		}
		return _wopen(name, (flags & ~O_TMPFILE) | _O_CREAT | _O_TEMPORARY | _O_BINARY | _O_SHORT_LIVED,
			      _S_IREAD | _S_IWRITE);
	}
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	int fd = _wopen(w, flags | _O_BINARY, mode ? _S_IREAD | _S_IWRITE : 0);
	if (fd < 0 && errno == EACCES && !(flags & (O_WRONLY | O_RDWR))) {
		/* a directory: the C runtime will not open one, POSIX does (fstat then says what it
		 * is, and the caller answers "is a directory") */
		DWORD a = GetFileAttributesW(w);
		HANDLE h = a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)
				   ? CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
						 OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL)
				   : INVALID_HANDLE_VALUE;
		if (h != INVALID_HANDLE_VALUE && (fd = _open_osfhandle((intptr_t)h, _O_RDONLY)) < 0)
			CloseHandle(h);
		if (fd < 0)
			errno = EACCES;
	}
	free(w);
	return fd;
}

FILE *ws_win_fopen(const char *path, const char *mode)
{
	wchar_t *w = wide(path), wm[16];
	size_t i = 0;
	if (!w)
		return NULL;
	for (; mode[i] && i < 14; i++)
		wm[i] = (wchar_t)(unsigned char)mode[i];
	if (!strchr(mode, 'b'))
		wm[i++] = L'b';                /* byte for byte, as on Linux */
	wm[i] = 0;
	FILE *f = _wfopen(w, wm);
	free(w);
	return f;
}

static void fill_stat(struct ws_stat *st, const struct _stat64 *s)
{
	memset(st, 0, sizeof *st);
	st->st_dev = (uint32_t)s->st_dev;
	st->st_ino = s->st_ino;
	st->st_mode = s->st_mode;
	st->st_nlink = (unsigned)s->st_nlink;
	st->st_size = s->st_size;
	st->st_atim.tv_sec = s->st_atime;
	st->st_mtim.tv_sec = s->st_mtime;
	st->st_ctim.tv_sec = s->st_ctime;
}

/* What the C runtime's stat leaves out, from the handle: the file's identity (volume serial
 * and file index: st_ino is 0 there, and the callers tell files apart by st_dev:st_ino), its
 * link count, and the last write time to the 100 ns Windows keeps (the runtime's has seconds;
 * the results store compares it to tell a changed file). */
static void from_handle(HANDLE h, struct ws_stat *st)
{
	BY_HANDLE_FILE_INFORMATION fi;
	if (h == INVALID_HANDLE_VALUE || !GetFileInformationByHandle(h, &fi))
		return;
	st->st_dev = fi.dwVolumeSerialNumber;
	st->st_ino = (uint64_t)fi.nFileIndexHigh << 32 | fi.nFileIndexLow;
	st->st_nlink = fi.nNumberOfLinks;
	if (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->st_mode = (st->st_mode & ~(unsigned)S_IFMT) | S_IFDIR;
	uint64_t t = ((uint64_t)fi.ftLastWriteTime.dwHighDateTime << 32 | fi.ftLastWriteTime.dwLowDateTime) -
		     116444736000000000ull;
	st->st_mtim.tv_sec = (time_t)(t / 10000000u);
	st->st_mtim.tv_nsec = (long)(t % 10000000u * 100u);
}

int ws_stat(const char *path, struct ws_stat *st)
{
	struct _stat64 s;
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	int r = _wstat64(w, &s);
	if (r == 0) {
		fill_stat(st, &s);
		HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
				       NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
		from_handle(h, st);
		if (h != INVALID_HANDLE_VALUE)
			CloseHandle(h);
	}
	free(w);
	return r;
}

int ws_fstat(int fd, struct ws_stat *st)
{
	struct _stat64 s;
	if (_fstat64(fd, &s) != 0)
		return -1;
	fill_stat(st, &s);
	from_handle((HANDLE)_get_osfhandle(fd), st);
	return 0;
}

int ws_win_access(const char *path, int mode)
{
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	int r = _waccess(w, mode & (R_OK | W_OK));
	free(w);
	return r;
}

int ws_win_unlink(const char *path)
{
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	int r = _wunlink(w);
	free(w);
	return r;
}

int ws_win_rename(const char *from, const char *to)
{
	wchar_t *a = wide(from), *b = a ? wide(to) : NULL;
	int r = -1;
	if (a && b) {
		r = MoveFileExW(a, b, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
		if (r)
			errno = errno_of(GetLastError());
	}
	free(a);
	free(b);
	return r;
}

int ws_win_mkdir(const char *path, int mode)
{
	(void)mode;
	wchar_t *w = wide(path);
	if (!w)
		return -1;
	int r = _wmkdir(w);
	free(w);
	return r;
}

char *ws_win_realpath(const char *path, char *resolved)
{
	wchar_t *w = ws_win_utf16(path), full[32768];
	if (!w)
		return NULL;
	DWORD n = GetFullPathNameW(w, 32768, full, NULL);
	free(w);
	if (n == 0 || n >= 32768) {
		errno = n ? ENAMETOOLONG : errno_of(GetLastError());
		return NULL;
	}
	/* the answer is the plain spelling; only the existence check needs the long form */
	wchar_t *probe = wide_of(full);
	DWORD attrs = probe ? GetFileAttributesW(probe) : INVALID_FILE_ATTRIBUTES;
	DWORD e = GetLastError();
	free(probe);
	if (attrs == INVALID_FILE_ATTRIBUTES) {
		errno = errno_of(e);
		return NULL;
	}
	size_t cap = resolved ? PATH_MAX : 3 * (size_t)n + 1;
	char *out = resolved ? resolved : malloc(cap);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	if (narrow(full, out, cap) != 0) {
		if (!resolved)
			free(out);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return out;
}

ssize_t ws_win_readlink(const char *path, char *buf, size_t len)
{
	(void)path, (void)buf, (void)len;
	errno = EINVAL;                    /* not a symbolic link, as far as this program is concerned */
	return -1;
}

char *ws_win_getcwd(char *buf, size_t len)
{
	wchar_t w[32768];
	DWORD n = GetCurrentDirectoryW(32768, w);
	if (n == 0 || n >= 32768) {
		errno = ERANGE;
		return NULL;
	}
	if (!buf) {
		len = 3 * (size_t)n + 1;
		if (!(buf = malloc(len))) {
			errno = ENOMEM;
			return NULL;
		}
	}
	return narrow(w, buf, len) == 0 ? buf : NULL;
}

ssize_t ws_win_pread(int fd, void *buf, size_t n, int64_t off)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED ov = {0};
	DWORD got = 0;
	if (h == INVALID_HANDLE_VALUE || off < 0) {
		errno = EBADF;
		return -1;
	}
	if (n > 0x40000000u)
		n = 0x40000000u;               /* a short read, as pread may give */
	ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
	if (!ReadFile(h, buf, (DWORD)n, &got, &ov)) {
		DWORD e = GetLastError();
		if (e == ERROR_HANDLE_EOF)
			return 0;
		errno = errno_of(e);
		return -1;
	}
	return (ssize_t)got;
}

struct ws_DIR {
	HANDLE h;
	bool first;                        /* the entry FindFirstFileW found is still to be read */
	WIN32_FIND_DATAW fd;
	struct ws_dirent ent;
};

ws_DIR *ws_opendir(const char *path)
{
	size_t n = strlen(path);
	char *pat = malloc(n + 3);
	if (!pat) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(pat, path, n);
	if (n && pat[n - 1] != '/' && pat[n - 1] != '\\')
		pat[n++] = '\\';
	pat[n++] = '*';
	pat[n] = 0;
	wchar_t *w = wide(pat);
	free(pat);
	ws_DIR *d = w ? calloc(1, sizeof *d) : NULL;
	if (!d) {
		free(w);
		return NULL;
	}
	d->h = FindFirstFileExW(w, FindExInfoBasic, &d->fd, FindExSearchNameMatch, NULL, 0);
	free(w);
	if (d->h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		free(d);
		errno = e == ERROR_FILE_NOT_FOUND ? ENOENT : errno_of(e);
		return NULL;
	}
	d->first = true;
	return d;
}

struct ws_dirent *ws_readdir(ws_DIR *d)
{
	for (;;) {
		if (!d->first && !FindNextFileW(d->h, &d->fd))
			return NULL;
		d->first = false;
		if (narrow(d->fd.cFileName, d->ent.d_name, sizeof d->ent.d_name) == 0)
			break;
	}
	d->ent.d_type = DT_UNKNOWN;
	return &d->ent;
}

int ws_closedir(ws_DIR *d)
{
	if (d) {
		FindClose(d->h);
		free(d);
	}
	return 0;
}

int ws_dirfd(ws_DIR *d)
{
	(void)d;
	errno = ENOTSUP;
	return -1;
}

long ws_win_sysconf(int name)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	if (name == _SC_NPROCESSORS_ONLN)
		return (long)si.dwNumberOfProcessors;
	if (name == _SC_PAGESIZE)
		return (long)si.dwPageSize;
	errno = EINVAL;
	return -1;
}

int ws_win_setenv(const char *name, const char *value, int overwrite)
{
	if (!overwrite && getenv(name))
		return 0;
	return _putenv_s(name, value) == 0 ? 0 : -1;
}

int ws_win_unsetenv(const char *name)
{
	return _putenv_s(name, "") == 0 ? 0 : -1;
}

char *ws_win_strcasestr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!_strnicmp(hay, needle, n))
			return (char *)hay;
	return n ? NULL : (char *)hay;
}

void *ws_win_mmap(void *addr, size_t len, int prot, int flags, int fd, int64_t off)
{
	(void)addr, (void)prot, (void)off;
	if (!(flags & MAP_ANONYMOUS) || fd != -1 || len == 0) {
		errno = ENOTSUP;               /* files are mapped by src/win/filemap_win.c */
		return MAP_FAILED;
	}
	/* reserved and committed at once: Windows charges commit up front, the pages are
	 * still only touched as used (MAP_NORESERVE has no equivalent) */
	void *p = VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	if (!p) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return p;
}

int ws_win_munmap(void *addr, size_t len)
{
	(void)len;
	return VirtualFree(addr, 0, MEM_RELEASE) ? 0 : -1;
}

ssize_t ws_win_getrandom(void *buf, size_t n, unsigned flags)
{
	(void)flags;
	if (n > 0xffffffffu)
		n = 0xffffffffu;
	if (BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

void *ws_win_memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	while (n--)
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	return NULL;
}

void *ws_win_memmem(const void *hay, size_t n, const void *needle, size_t k)
{
	const unsigned char *h = hay;
	if (k == 0)
		return (void *)h;
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (h[i] == *(const unsigned char *)needle && !memcmp(h + i, needle, k))
			return (void *)(h + i);
	return NULL;
}

struct qsort_ctx {
	int (*cmp)(const void *, const void *, void *);
	void *arg;
};

static int qsort_tramp(void *ctx, const void *a, const void *b)
{
	const struct qsort_ctx *c = ctx;
	return c->cmp(a, b, c->arg);
}

void ws_win_qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *), void *arg)
{
	struct qsort_ctx c = {cmp, arg};
	qsort_s(base, n, size, qsort_tramp, &c);
}

#undef stdout
FILE **ws_win_stdout(void)
{
	static FILE *out;
	if (!out)
		out = __acrt_iob_func(1);
	return &out;
}

/* libelf's own name for it (its file-reading paths, which wheelscan's elf_memory never takes,
 * still link against it). */
#undef pread
ssize_t pread(int fd, void *buf, size_t n, off_t off);
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return ws_win_pread(fd, buf, n, off);
}

static __thread char dl_err[320];

void *ws_win_dlopen(const char *path, int flags)
{
	(void)flags;
	wchar_t *w = wide(path);
	if (!w) {
		snprintf(dl_err, sizeof dl_err, "not a UTF-8 name");
		return NULL;
	}
	bool bare = !strchr(path, '\\') && !strchr(path, '/');
	HMODULE h = LoadLibraryExW(w, NULL, bare ? LOAD_LIBRARY_SEARCH_SYSTEM32 : 0);
	DWORD e = GetLastError();
	free(w);
	if (!h) {
		char msg[256] = "";
		if (!FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg, sizeof msg, NULL))
			msg[0] = 0;
		msg[strcspn(msg, "\r\n")] = 0;
		snprintf(dl_err, sizeof dl_err, "%s (error %lu)", msg[0] ? msg : "LoadLibrary failed", (unsigned long)e);
	}
	return h;
}

void *ws_win_dlsym(void *h, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)h, name);
	void *p;
	memcpy(&p, &f, sizeof p);
	return p;
}

const char *ws_win_dlerror(void)
{
	return dl_err[0] ? dl_err : NULL;
}

int ws_win_pause(void)
{
	for (;;)
		Sleep(INFINITE);
}

#undef isatty
int ws_win_isatty(int fd)
{
	DWORD mode;
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	return h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode) ? 1 : 0;
}
