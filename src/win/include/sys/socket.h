/* sys/socket.h - what the live-check worker (src/cudaworker.c) sends on: on Windows its
 * descriptor is a named pipe (src/win/cudalive_win.c), written with write(). */
#ifndef WS_WIN_SYS_SOCKET_H
#define WS_WIN_SYS_SOCKET_H
#include <io.h>
#include <stddef.h>
#include <sys/types.h>
#define MSG_NOSIGNAL 0
static inline ssize_t ws_win_send(int fd, const void *p, size_t n, int flags)
{
	(void)flags;
	return _write(fd, p, n > 0x40000000u ? 0x40000000u : (unsigned)n);
}
#define send ws_win_send
#endif
