/* escape_probe.c - a compromised decoder for the test suite (LD_PRELOAD): interposes the
 * decoder entry points wheelscan calls (ZSTD_decompressDCtx, ZSTD_decompressStream,
 * LZ4_decompress_safe) and, on the first call, from inside the decoding process and with
 * whatever sandbox it runs under, tries the one escape of src/escape.c named by
 * WS_ESCAPE, then decodes as usual. It reports on stderr (no file can be written inside
 * the sandbox): "escape NAME: trying", then "escape NAME: RESULT" unless the attempt
 * killed the process. WS_ESCAPE_DIR, WS_ESCAPE_FILE, WS_ESCAPE_PID, WS_ESCAPE_WFD: the context. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws_escape.h"

static atomic_int tried;

static void escape_once(void)
{
	if (atomic_exchange(&tried, 1))
		return;
	const char *name = getenv("WS_ESCAPE");
	const struct ws_escape *e = ws_escape_find(name);
	if (!e) {
		fprintf(stderr, "escape %s: unknown\n", name ? name : "(unset)");
		return;
	}
	const char *pid = getenv("WS_ESCAPE_PID");
	const char *wfd = getenv("WS_ESCAPE_WFD");
	struct ws_escape_ctx c = {getenv("WS_ESCAPE_DIR"), getenv("WS_ESCAPE_FILE"), pid ? atoi(pid) : 0,
				  wfd ? atoi(wfd) : -1};
	char out[300];
	fprintf(stderr, "escape %s: trying\n", e->name);
	ws_escape_run(e, &c, out, sizeof out);
	fprintf(stderr, "escape %s: %s\n", e->name, out);
}

#define REAL(type, name) static type real_##name; if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

size_t ZSTD_decompressDCtx(void *dctx, void *dst, size_t cap, const void *src, size_t n);
size_t ZSTD_decompressDCtx(void *dctx, void *dst, size_t cap, const void *src, size_t n)
{
	typedef size_t (*fn)(void *, void *, size_t, const void *, size_t);
	REAL(fn, ZSTD_decompressDCtx);
	escape_once();
	return real_ZSTD_decompressDCtx(dctx, dst, cap, src, n);
}

size_t ZSTD_decompressStream(void *zds, void *out, void *in);
size_t ZSTD_decompressStream(void *zds, void *out, void *in)
{
	typedef size_t (*fn)(void *, void *, void *);
	REAL(fn, ZSTD_decompressStream);
	escape_once();
	return real_ZSTD_decompressStream(zds, out, in);
}

int LZ4_decompress_safe(const char *src, char *dst, int n, int cap);
int LZ4_decompress_safe(const char *src, char *dst, int n, int cap)
{
	typedef int (*fn)(const char *, char *, int, int);
	REAL(fn, LZ4_decompress_safe);
	escape_once();
	return real_LZ4_decompress_safe(src, dst, n, cap);
}
