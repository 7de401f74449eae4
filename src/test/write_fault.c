/* write_fault.c - write errors that happen once (LD_PRELOAD, for src/test/write_faults.sh).
 * Interposes write() and writev() on standard output. The Nth call (WS_FAULT_AT, from 1)
 * gets the fault WS_FAULT names, and every other call goes through:
 *   short   writes half of what was asked (at least one byte): a pipe or socket does this
 *   eagain  fails once with EAGAIN: a non-blocking descriptor whose reader is slow
 *   enospc  fails once with ENOSPC: a full disk that has space again a moment later
 *   eintr   fails once with EINTR: a signal arrived before anything was written
 * WS_FAULT_COUNT, a file name: the number of calls on standard output is written there at
 * exit (so that the test knows how many there are to fault; the sandbox refuses that
 * file, so the counting run is made with --no-sandbox).
 * WS_FAULT_BUF, a number of bytes: every stream wheelscan gives a buffer (setvbuf: standard
 * output's) gets one of that size instead, fully buffered, so that every report, however
 * short, drains stdio's buffer in several writes: a write that fails is then followed by
 * writes and a final flush that succeed, and a program that looks only at the last flush
 * forgets the hole in its output. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static long calls;

static int fault_now(void)
{
	const char *at = getenv("WS_FAULT_AT");
	long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return at && atol(at) == n;
}

/* -1 with errno set for the error faults, 1 for short, 0 for none */
static int fault_kind(void)
{
	const char *k = getenv("WS_FAULT");
	if (!k)
		return 0;
	if (!strcmp(k, "short"))
		return 1;
	errno = !strcmp(k, "eagain") ? EAGAIN : !strcmp(k, "enospc") ? ENOSPC : !strcmp(k, "eintr") ? EINTR : EIO;
	return -1;
}

ssize_t write(int fd, const void *p, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd == STDOUT_FILENO && n > 0 && fault_now()) {
		int k = fault_kind();
		if (k < 0)
			return -1;
		if (k == 1)
			n = n > 1 ? n / 2 : 1;
	}
	return real(fd, p, n);
}

ssize_t writev(int fd, const struct iovec *v, int cnt)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	if (fd == STDOUT_FILENO && cnt > 0 && fault_now()) {
		int k = fault_kind();
		if (k < 0)
			return -1;
		if (k == 1) {  /* the first buffer, half of it */
			static ssize_t (*real_write)(int, const void *, size_t);
			if (!real_write)
				real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
			size_t n = v[0].iov_len > 1 ? v[0].iov_len / 2 : v[0].iov_len;
			return real_write(fd, v[0].iov_base, n);
		}
	}
	return real(fd, v, cnt);
}

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	static int (*real)(FILE *, char *, int, size_t);
	if (!real)
		real = (int (*)(FILE *, char *, int, size_t))dlsym(RTLD_NEXT, "setvbuf");
	const char *b = getenv("WS_FAULT_BUF");
	long want = b ? atol(b) : 0;
	if (want > 0 && want < (1L << 20) && mode != _IONBF) {
		/* glibc ignores the size when no buffer is given: give one (kept until exit) */
		char *own = malloc((size_t)want);
		if (own)
			return real(f, own, _IOFBF, (size_t)want);
	}
	return real(f, buf, mode, size);
}

__attribute__((destructor)) static void count_out(void)
{
	const char *f = getenv("WS_FAULT_COUNT");
	if (!f)
		return;
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	char b[32];
	int len = snprintf(b, sizeof b, "%ld\n", calls);
	static ssize_t (*real)(int, const void *, size_t);
	real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (len > 0)
		real(fd, b, (size_t)len);
	close(fd);
}
