/* ws_os.h - what the shared files of src/ need from the operating system beyond C and the
 * POSIX names src/win/posix.h gives Windows: src/os_posix.c (Linux) and src/win/os_win.c. */
#ifndef WS_OS_H
#define WS_OS_H
#include <stdbool.h>
#include <stddef.h>

/* Whether path is absolute: "/..." on POSIX; "C:\...", "C:/...", "\\server\..." on Windows. */
bool ws_path_absolute(const char *path);

/* Runs argv[0] (looked up in PATH when it has no directory), with argv, no shell, its standard
 * output into out (line ends as "\n": Windows' "\r\n" is folded) (at most outlen - 1 bytes, NUL-terminated; more is dropped). Returns the
 * exit status (0..255) with why "exit status N"; -1 when it could not start, with why
 * "cannot run 'X': REASON"; -2 when it did not exit normally, with why "signal N". */
int ws_spawn_capture(const char *const *argv, char *out, size_t outlen, char *why, size_t whylen);

/* ---- the pip guard (src/guard.c) ---- */
/* Runs argv[0] (looked up in PATH when it has no directory), no shell, standard input
 * closed (/dev/null), standard output onto standard error when stdout_to_stderr (a JSON
 * report keeps stdout to itself), standard error inherited, in a process group of its own
 * that is ended (TERM, then KILL) after timeout_s seconds (0: no limit). Returns the exit
 * status (0..255); -1 it could not start; -2 it ended on a signal; -3 the time ran out;
 * why says which. */
int ws_spawn_wait(const char *const *argv, unsigned timeout_s, bool stdout_to_stderr, char *why, size_t whylen);
/* The directory this program's executable lies in, into buf; false when unknown. */
bool ws_self_dir(char *buf, size_t len);
/* A new private directory under the system's temporary directory, its path into buf. */
bool ws_temp_dir(char *buf, size_t len);
/* Runs fn(ctx) confined, for decoding strangers' bytes while the caller goes on to run
 * programs: on Linux in a forked child inside the sandbox (unless !sandbox: --no-sandbox;
 * reading beneath readable[0..n) only), whose exit status is fn's value; with out, the child's standard output is kept in
 * *out (malloc'd, NUL-terminated, at most max bytes: more is an error), else it is this
 * process's. On Windows fn runs in this process, unconfined. Returns fn's value (0..255),
 * or -1 with the reason in why (it could not start, ended on a signal, wrote too much). */
int ws_run_confined(int (*fn)(void *), void *ctx, bool sandbox, const char *const *readable, size_t n, char **out,
		    size_t max, char *why, size_t whylen);
#endif
