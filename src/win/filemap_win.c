/* filemap_win.c - ws_filemap.h on Windows: a copy-on-write view of the file (FILE_MAP_COPY),
 * private and writable as on Linux. Windows refuses to shorten a file while a view of it is
 * open, so the mapping cannot be cut short under the scan, and there is no fault to guard. */
#include <windows.h>

#include "ws_filemap.h"

int ws_filemap_guard(void)
{
	return 0;
}

int ws_filemap_open(struct ws_filemap *m, int fd, size_t len)
{
	m->slot = -1;
	m->len = len;
	m->p = NULL;
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	if (h == INVALID_HANDLE_VALUE || len == 0) {
		errno = EBADF;
		return -1;
	}
	HANDLE map = CreateFileMappingW(h, NULL, PAGE_WRITECOPY, (DWORD)((uint64_t)len >> 32), (DWORD)len, NULL);
	if (!map) {
		errno = GetLastError() == ERROR_NOT_ENOUGH_MEMORY ? ENOMEM : EACCES;
		return -1;
	}
	m->p = MapViewOfFile(map, FILE_MAP_COPY, 0, 0, len);
	CloseHandle(map);                  /* the view keeps the mapping alive */
	if (!m->p) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

bool ws_filemap_cut(const struct ws_filemap *m)
{
	(void)m;
	return false;
}

bool ws_filemap_close(struct ws_filemap *m)
{
	if (m->p)
		UnmapViewOfFile(m->p);
	m->p = NULL;
	return false;
}
