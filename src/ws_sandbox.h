/* ws_sandbox.h - least privilege while decoding strangers' files. */
#ifndef WS_SANDBOX_H
#define WS_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

/* What the process runs under (or, for --env, what it would run under). */
struct ws_sandbox_status {
	bool seccomp;                  /* the allowlist filter is loaded (or loadable) */
	char seccomp_note[160];        /* why not */
	int landlock_abi;              /* the kernel's Landlock ABI; 0 when unavailable */
	bool landlock;                 /* the read-only ruleset is enforced (or enforceable) */
	char landlock_note[160];       /* why not, or "" */
	bool caps_dropped;             /* no capability left in any set, bounding set empty */
	char caps_note[160];
	bool no_new_privs;
};

/* Enters the sandbox for good, in this order: PR_SET_NO_NEW_PRIVS; Landlock (where the
 * kernel has it) allowing only reads beneath the paths in readable (files or directories;
 * "-" is skipped), no writes anywhere; every capability dropped (effective, permitted,
 * inheritable, ambient, bounding); then the seccomp allowlist (src/sandbox.c). Call it
 * before any thread starts: Landlock and capabilities bind the calling thread only.
 * The output must already be open (stdout, stderr). live: the live check's workers run
 * (forked before); the filter also lets this process talk to them over their sockets. Returns 0 when the seccomp filter is
 * on (Landlock and capabilities may have degraded; st says how), -1 when it is not. */
int ws_sandbox_enter(const char *const *readable, size_t n, bool live, struct ws_sandbox_status *st);

/* Before ws_sandbox_enter: a results store is open on these descriptors (the store, its
 * -wal, its -shm; ws_db_descriptors); writing through them, and only them, stays allowed. */
void ws_sandbox_keep_store(const int *fds, size_t n);

/* Before ws_sandbox_enter: standard input is spooled to this descriptor (an unlinked file or
 * a memfd, src/run.c); write(2) through it, and only it, stays allowed. */
void ws_sandbox_keep_spool(int fd);

/* What this kernel and process offer, without entering (for --env). */
void ws_sandbox_probe(struct ws_sandbox_status *st);

/* One line per part: "seccomp: ...", "landlock: ...", "capabilities: ...". */
void ws_sandbox_describe(const struct ws_sandbox_status *st, char *buf, size_t len, const char *sep);

/* WHEELSCAN_SANDBOX_TEST=1: tries every escape of src/escape.c (but the one that kills the
 * process) and prints one line each on stderr ("sandbox escape NAME: RESULT"), after a
 * line "sandbox test: seccomp=MODE landlock=ABI caps=..." (for the test suite). file: an
 * input to tamper with; dir: a scratch directory ($WHEELSCAN_SANDBOX_TEST_DIR). */
void ws_sandbox_selftest(const char *file);

/* Landlock (src/landlock.c): the kernel's ABI version, or 0 with the reason in why. */
int ws_landlock_abi(char *why, size_t len);
/* Restricts the calling thread to reading beneath readable; 0, or -1 with why. */
int ws_landlock_enter(const char *const *readable, size_t n, bool proc_too, char *why, size_t len);

#endif
