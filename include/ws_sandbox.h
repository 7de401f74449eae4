/* ws_sandbox.h - least privilege while decoding strangers' files. */
#ifndef WS_SANDBOX_H
#define WS_SANDBOX_H

/* Installs a seccomp filter on the calling process (and the threads it starts
 * later): no files opened for writing or created, no renames or deletions, no
 * programs run, no processes forked (threads still start), no sockets. Reading
 * files stays allowed: inputs are opened as they are scanned. Returns 0, or -1
 * when the kernel or libseccomp refuses (the caller warns and goes on). */
int ws_sandbox_enter(void);

/* WHEELSCAN_SANDBOX_TEST=1: tries what the sandbox must refuse and prints one line
 * on stderr saying what happened (for the test suite). */
void ws_sandbox_selftest(void);

#endif
