/* util.c - bounded allocation, safe string copies, a growable buffer and the checked
 * flush of the report stream. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_cli.h"
#include "ws_util.h"

/* No single allocation may exceed this: sizes come from files we do not trust. */
#define WS_ALLOC_CAP ((size_t)4 << 30)

/* Sixteen positions at a time: the needle's first and last bytes are compared at once
 * (GCC/Clang vector extensions: SSE2 or NEON code), and only positions where both
 * match are compared whole. About twice glibc's memmem on libraries and PTX, which
 * matters because every byte of every library is searched. */
typedef uint8_t ws_v16 __attribute__((vector_size(16)));
typedef int8_t ws_m16 __attribute__((vector_size(16)));

const uint8_t *ws_find(const uint8_t *p, size_t n, const uint8_t *needle, size_t m)
{
	if (m == 0)
		return p;
	if (n < m)
		return NULL;
	size_t i = 0, last = n - m;            /* the last possible start */
	if (m >= 2 && last >= 16) {
		const ws_v16 first = (ws_v16){0} + needle[0], final = (ws_v16){0} + needle[m - 1];
		for (; i <= last - 16; i += 16) {
			ws_v16 a, b;
			memcpy(&a, p + i, 16);
			memcpy(&b, p + i + m - 1, 16);
			ws_m16 hit = (a == first) & (b == final);
			uint64_t w[2];
			memcpy(w, &hit, sizeof w);
			if (!(w[0] | w[1]))
				continue;
			for (size_t k = 0; k < 16; k++)
				if (p[i + k] == needle[0] && memcmp(p + i + k, needle, m) == 0)
					return p + i + k;
		}
	}
	for (; i <= last; i++)
		if (p[i] == needle[0] && memcmp(p + i, needle, m) == 0)
			return p + i;
	return NULL;
}

struct tbufs {
	void *p[WS_TBUF_SLOTS];
	size_t cap[WS_TBUF_SLOTS];
};
static pthread_key_t tbuf_key;
static pthread_once_t tbuf_once = PTHREAD_ONCE_INIT;
static void tbuf_free(void *v)
{
	struct tbufs *t = v;
	for (int i = 0; i < WS_TBUF_SLOTS; i++)
		free(t->p[i]);
	free(t);
}
static void tbuf_init(void) { pthread_key_create(&tbuf_key, tbuf_free); }

void *ws_tbuf(enum ws_tbuf_slot slot, size_t n)
{
	pthread_once(&tbuf_once, tbuf_init);
	struct tbufs *t = pthread_getspecific(tbuf_key);
	if (!t) {
		if (!(t = calloc(1, sizeof *t)) || pthread_setspecific(tbuf_key, t) != 0) {
			free(t);
			return NULL;
		}
	}
	if (n > t->cap[slot]) {
		void *p = ws_malloc(n);
		if (!p)
			return NULL;
		free(t->p[slot]);
		t->p[slot] = p;
		t->cap[slot] = n;
	}
	return t->p[slot];
}

void *ws_malloc(size_t n)
{
	if (n == 0 || n > WS_ALLOC_CAP)
		return NULL;
	return malloc(n);
}

void *ws_calloc(size_t count, size_t size)
{
	size_t n;
	if (count == 0 || size == 0 || __builtin_mul_overflow(count, size, &n) || n > WS_ALLOC_CAP)
		return NULL;
	return calloc(count, size);
}

void *ws_reallocarray(void *p, size_t count, size_t size)
{
	size_t n;
	if (count == 0 || size == 0 || __builtin_mul_overflow(count, size, &n) || n > WS_ALLOC_CAP)
		return NULL;
	return realloc(p, n);
}

char *ws_strndup(const char *s, size_t n)
{
	char *r = malloc(n + 1 > n ? n + 1 : 0);
	if (!r)
		return NULL;
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

char *ws_strdup(const char *s)
{
	return s ? ws_strndup(s, strlen(s)) : NULL;
}

bool ws_grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
	if (need <= *cap)
		return true;
	uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	void *p = ws_reallocarray(*arr, (size_t)ncap, sz);
	if (!p)
		return false;
	*arr = p;
	*cap = (uint32_t)ncap;
	return true;
}

char *ws_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

void ws_sanitize(char *buf, size_t len, const char *s, size_t n)
{
	size_t o = 0;
	if (len == 0)
		return;
	for (size_t i = 0; i < n && s[i] && o + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	buf[o] = '\0';
}

char *ws_strdup_field(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n == 0)
		return NULL;
	char *r = malloc(n + 1);
	if (r)
		ws_sanitize(r, n + 1, s, n);
	return r;
}

void ws_buf_add(struct ws_buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		char *p = realloc(b->p, ncap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void ws_buf_puts(struct ws_buf *b, const char *s)
{
	ws_buf_add(b, s, strlen(s));
}

void ws_buf_printf(struct ws_buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		ws_buf_add(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ws_buf_add(b, big, (size_t)n);
	free(big);
}

void ws_buf_free(struct ws_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *ws_read_small(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *p = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		errno = EFBIG;
	} else if ((p = ws_malloc((size_t)st.st_size + 1))) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, p + got, (size_t)st.st_size - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		p[got] = 0;
		*len = got;
	}
	close(fd);
	return p;
}

/* stdio forgets the errno of a failed write by the time the stream is checked: standard
 * output goes through this hook, which keeps the first one for the message. */
static int out_errno;

static ssize_t out_write(void *cookie, const char *p, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!out_errno)
				out_errno = w < 0 ? errno : EIO;
			errno = out_errno;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

void ws_out_init(void)
{
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = out_write});
	if (!f)
		return;                    /* plain stdout: the error is still caught, named EIO */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

/* The one place a failed write becomes an exit status (see ws_cli.h). */
void ws_out_check(FILE *f)
{
	errno = 0;
	int r = fflush(f);
	int e = out_errno ? out_errno : errno;
	if (r == 0 && !ferror(f))
		return;
	fprintf(stderr, "wheelscan: write error: %s\n", strerror(e ? e : EIO));
	_exit(WS_EXIT_WRITE);
}
