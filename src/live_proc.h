/* live_proc.h - the live check's worker processes: the part of it that differs by platform.
 *
 * src/cudalive.c speaks src/live_wire.h's protocol to its workers and is the same on every
 * platform; this is how a worker is started, talked to and ended. src/live_proc_posix.c: a
 * spawner process forks the workers and passes each one's socket back. src/win/
 * live_proc_win.c: each worker is the program started again, on a named pipe. Either way a
 * driver that crashes or hangs takes only its worker down. */
#ifndef WS_LIVE_PROC_H
#define WS_LIVE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct live_spawner;   /* what starting workers takes (Linux: the spawner process) */
struct live_proc;      /* one running worker and its channel */

/* The driver library loaded when WHEELSCAN_LIBCUDA names none (libcuda.so.1; System32's
 * nvcuda.dll, never one beside the program or on PATH), and how --env names it before a
 * driver is opened. */
void live_default_driver(char *buf, size_t len);
const char *live_default_driver_shown(void);
/* --env's line about the kernel-mode driver, where the platform has one to read. */
void live_print_kernel_driver(FILE *f);

/* A monotonic clock in milliseconds: the deadlines of live_proc_io. */
long long live_now_ms(void);

/* Ready to start workers that load libpath; NULL with errno when none can be started. */
struct live_spawner *live_spawner_open(const char *libpath);
void live_spawner_close(struct live_spawner *s);

/* A started worker (flags and nojit as ws_live_worker_main takes them), or NULL with the
 * reason in note ("no CUDA driver: ..."). */
struct live_proc *live_proc_start(struct live_spawner *s, unsigned flags, bool nojit, unsigned start_ms,
				  char *note, size_t len);
/* Exactly n bytes to (wr) or from the worker before the deadline (live_now_ms): 0; -1 it
 * died or closed its end; -2 the deadline passed. */
int live_proc_io(struct live_proc *p, void *buf, size_t n, bool wr, long long deadline);
/* Ends the worker and frees p: at once (force), or after giving it time to exit on its own
 * once its channel closes. With why, how it ended ("the CUDA worker killed by signal 11
 * (Segmentation fault)"). */
void live_proc_end(struct live_spawner *s, struct live_proc *p, bool force, char *why, size_t whylen);

#endif
