/* ws_escape.h - what a compromised decoder would try: one table of escape attempts, run by
 * the WHEELSCAN_SANDBOX_TEST self-test and by the test suite's LD_PRELOAD probe, which
 * tries one of them from inside a decoder call (src/test/escape_probe.c). */
#ifndef WS_ESCAPE_H
#define WS_ESCAPE_H

#include <sys/types.h>

struct ws_escape_ctx {
	const char *dir;       /* a scratch directory the attempts may write into (unsandboxed) */
	const char *file;      /* a file to tamper with: the input being scanned, or a copy */
	pid_t pid;             /* another process to signal, trace or write to; 0: none */
	int wfd;               /* a writable descriptor inherited from the parent; -1: none */
};

struct ws_escape {
	const char *name;
	/* 0 when the attempt succeeded (or reached the kernel's own checks, see detail),
	 * else -errno. detail gets a short note (what a success did). */
	int (*try)(const struct ws_escape_ctx *c, char *detail, size_t len);
	const char *what;      /* one line: the attack */
};

/* The table, and its length. */
extern const struct ws_escape ws_escapes[];
extern const size_t ws_nescapes;

/* The attempt named name, or NULL. */
const struct ws_escape *ws_escape_find(const char *name);

/* Runs one attempt and writes "ok[ (detail)]" or the errno's name (EPERM, EACCES...) to
 * out. Returns the attempt's result. */
int ws_escape_run(const struct ws_escape *e, const struct ws_escape_ctx *c, char *out, size_t len);

#endif
