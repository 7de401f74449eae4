/* ws_filemap.h - files read through a private mapping that survive being cut short.
 *
 * A plain file is read through mmap: no copy, and the pages go back as the scan passes
 * them. But a file that shrinks while it is mapped
 * (another process truncates or rewrites it) makes every access past its new end a SIGBUS,
 * which would end the whole scan. A mapping made here is registered; the process's SIGBUS
 * handler (ws_filemap_guard, installed once, before the sandbox) puts zero pages over the
 * rest of a registered mapping that faults and marks it, so the scan goes on, and the
 * caller reports the file as changed while read instead of trusting what it found. A
 * SIGBUS anywhere else keeps its default action.
 */
#ifndef WS_FILEMAP_H
#define WS_FILEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ws_filemap {
	uint8_t *p;                   /* len bytes of the file, private and writable (libelf
				       * may write; the file never sees it) */
	size_t len;
	int slot;                     /* its place among the guarded mappings, -1 if none */
};

/* Installs the SIGBUS handler; idempotent. Returns 0, or -1 with errno set. */
int ws_filemap_guard(void);

/* Maps len (> 0) bytes of fd from its start. Returns 0, or -1 with errno set. A mapping
 * made when every slot is taken works, but a fault in it is not caught. */
int ws_filemap_open(struct ws_filemap *m, int fd, size_t len);

/* Whether the file shrank under the mapping so far: bytes past its new end read as zeros. */
bool ws_filemap_cut(const struct ws_filemap *m);

/* Unmaps; returns ws_filemap_cut's answer for the whole read. */
bool ws_filemap_close(struct ws_filemap *m);

#endif
