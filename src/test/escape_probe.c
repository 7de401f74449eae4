/* escape_probe.c - a compromised decoder for the test suite (LD_PRELOAD): interposes the
 * decoder entry points wheelscan calls (ZSTD_decompressDCtx, ZSTD_decompressStream,
 * LZ4_decompress_safe) and, on the first call, from inside the decoding process and with
 * whatever sandbox it runs under, tries the one escape of src/escape.c named by
 * WS_ESCAPE, then decodes as usual. It reports on stderr (no file can be written inside
 * the sandbox): "escape NAME: trying", then "escape NAME: RESULT" unless the attempt
 * killed the process. WS_ESCAPE_DIR, WS_ESCAPE_FILE, WS_ESCAPE_PID, WS_ESCAPE_WFD: the context. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ws_escape.h"

static atomic_int tried;

/* WS_ESCAPE=every-fd: every writing call through every descriptor the process holds when
 * decoding starts (found with F_GETFD, which the filter allows). The arguments do nothing
 * if the call is let through (0 bytes, the file's own length, a mapping never written), so
 * the answer is which calls reached the kernel: anything but the filter's EPERM. Prints
 * "escape every-fd: held FD,FD,... reached CALL:FD ..." (or "reached none"). */
static void every_fd(void)
{
	char held[512] = "", reached[2048] = "";
	size_t hl = 0, rl = 0;
	char zero = 0;
	struct iovec iov = {&zero, 0};
	for (int fd = 0; fd < 1024; fd++) {
		if (syscall(SYS_fcntl, fd, F_GETFD) < 0)
			continue;
		hl += (size_t)snprintf(held + hl, hl < sizeof held ? sizeof held - hl : 0, "%s%d", hl ? "," : "", fd);
		struct stat st;
		off_t len = syscall(SYS_fstat, fd, &st) == 0 ? st.st_size : 0;
		struct { const char *name; long r; } t[12];
		int n = 0;
#define TRY(nm, call) do { errno = 0; long r_ = (call); t[n].name = nm; t[n++].r = r_ < 0 ? -errno : r_; } while (0)
		TRY("write", syscall(SYS_write, fd, &zero, 0));
		TRY("writev", syscall(SYS_writev, fd, &iov, 1));
		TRY("pwrite64", syscall(SYS_pwrite64, fd, &zero, 0, 0));
		TRY("pwritev", syscall(SYS_pwritev, fd, &iov, 1, 0, 0));
		TRY("ftruncate", syscall(SYS_ftruncate, fd, len));
		TRY("fallocate", syscall(SYS_fallocate, fd, 0, 0, 0));
		TRY("sendto", syscall(SYS_sendto, fd, &zero, 0, MSG_DONTWAIT, NULL, 0));
		TRY("dup", syscall(SYS_dup, fd));
		TRY("dup3", syscall(SYS_dup3, fd, 1000 + fd, O_CLOEXEC));
		TRY("fcntl-dupfd", syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 1000));
		TRY("fchmod", syscall(SYS_fchmod, fd, st.st_mode & 07777));
		void *m = (void *)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		t[n].name = "mmap-shared";
		t[n++].r = m == MAP_FAILED ? -errno : 0;
		if (m != MAP_FAILED)
			munmap(m, 4096);
#undef TRY
		for (int i = 0; i < n; i++) {
			if (t[i].r == -EPERM)
				continue;
			if (!strncmp(t[i].name, "dup", 3) || !strcmp(t[i].name, "fcntl-dupfd"))
				if (t[i].r >= 0)
					close((int)t[i].r);
			rl += (size_t)snprintf(reached + rl, rl < sizeof reached ? sizeof reached - rl : 0, " %s:%d",
					       t[i].name, fd);
		}
	}
	fprintf(stderr, "escape every-fd: held %s reached%s\n", held, rl ? reached : " none");
}

static void escape_once(void)
{
	if (atomic_exchange(&tried, 1))
		return;
	const char *name = getenv("WS_ESCAPE");
	if (name && !strcmp(name, "every-fd")) {
		every_fd();
		return;
	}
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
