/* sys/mman.h - the anonymous mappings src/core asks for, as VirtualAlloc regions (Windows).
 * File mappings go through src/win/filemap_win.c instead; mmap of a descriptor fails here. */
#ifndef WS_WIN_SYS_MMAN_H
#define WS_WIN_SYS_MMAN_H
#include <stddef.h>
#include <sys/types.h>

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define MAP_ANON MAP_ANONYMOUS
#define MAP_NORESERVE 0x4000
#define MAP_FAILED ((void *)-1)

void *ws_win_mmap(void *addr, size_t len, int prot, int flags, int fd, int64_t off);
int ws_win_munmap(void *addr, size_t len);
#define mmap ws_win_mmap
#define munmap ws_win_munmap
#endif
