/* sandbox_win.c - ws_sandbox.h on Windows: there is no sandbox. Windows has no seccomp, no
 * Landlock and no capability sets; a restricted token or an AppContainer would have to be
 * made before the process starts, so the decoders run with the user's rights. ws_sandbox_enter
 * succeeds (a warning on every run would say nothing new) and --env and --version -v say so. */
#include <stdio.h>
#include <string.h>

#include "ws_sandbox.h"

static const char NONE[] = "none on Windows (the decoders run with the user's rights)";

void ws_sandbox_probe(struct ws_sandbox_status *st)
{
	memset(st, 0, sizeof *st);
	snprintf(st->seccomp_note, sizeof st->seccomp_note, "%s", NONE);
	snprintf(st->landlock_note, sizeof st->landlock_note, "none on Windows");
	snprintf(st->caps_note, sizeof st->caps_note, "none on Windows");
}

int ws_sandbox_enter(const char *const *readable, size_t n, bool live, struct ws_sandbox_status *st)
{
	(void)readable, (void)n, (void)live;
	ws_sandbox_probe(st);
	return 0;
}

void ws_sandbox_keep_store(const int *fds, size_t n) { (void)fds, (void)n; }
void ws_sandbox_keep_spool(int fd) { (void)fd; }

void ws_sandbox_describe(const struct ws_sandbox_status *st, char *buf, size_t len, const char *sep)
{
	snprintf(buf, len, "seccomp: %s%slandlock: %s%scapabilities: %s", st->seccomp_note, sep, st->landlock_note,
		 sep, st->caps_note);
}

void ws_sandbox_selftest(const char *file)
{
	(void)file;
	fprintf(stderr, "sandbox test: none on Windows\n");
}

int ws_landlock_abi(char *why, size_t len)
{
	snprintf(why, len, "none on Windows");
	return 0;
}

int ws_landlock_enter(const char *const *readable, size_t n, bool proc_too, char *why, size_t len)
{
	(void)readable, (void)n, (void)proc_too;
	snprintf(why, len, "none on Windows");
	return -1;
}
