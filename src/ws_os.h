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
#endif
