/* sys/random.h - getrandom(2) from the system's generator (BCryptGenRandom). */
#ifndef WS_WIN_SYS_RANDOM_H
#define WS_WIN_SYS_RANDOM_H
#include <stddef.h>
#include <sys/types.h>
ssize_t ws_win_getrandom(void *buf, size_t n, unsigned flags);
#define getrandom ws_win_getrandom
#endif
