/* util.c - bounded allocation, safe string copies, a growable buffer, keyed hashing. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	if (n)                         /* memcpy's source may not be NULL, even for 0 bytes */
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

bool ws_path_escapes(const char *s, bool windows)
{
	const char *sep = windows ? "/\\" : "/";
	if (s[0] == '/' || (windows && (s[0] == '\\' || (s[0] && s[1] == ':'))))
		return true;
	for (const char *p = s; *p;) {
		size_t k = strcspn(p, sep);
		if (k == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += k;
		if (*p)
			p++;
	}
	return false;
}

bool ws_strv_push(char ***v, size_t *n, const char *s)
{
	/* capacity is implied: the array doubles whenever the count reaches a power of two */
	if (*n >= SIZE_MAX / 2 / sizeof **v)
		return false;
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		char **nv = ws_reallocarray(*v, *n ? *n * 2 : 4, sizeof *nv);
		if (!nv)
			return false;
		*v = nv;
	}
	if (!((*v)[*n] = ws_strdup(s)))
		return false;
	(*n)++;
	return true;
}

/* ---- keyed hash --------------------------------------------------------------------- */

static uint64_t hash_key[2];
static pthread_once_t hash_once = PTHREAD_ONCE_INIT;

static void hash_key_init(void)
{
	if (getrandom(hash_key, sizeof hash_key, 0) == (ssize_t)sizeof hash_key)
		return;
	/* no getrandom (old kernel, a filter): still unknown to whoever wrote the input */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	hash_key[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&ts;
	hash_key[1] = (uint64_t)ts.tv_sec * 0xc2b2ae3d27d4eb4full ^ (uint64_t)getpid() ^
		      (uint64_t)(uintptr_t)hash_key_init;
}

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND()                                                              \
	do {                                                                    \
		v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32);  \
		v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2;                        \
		v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0;                        \
		v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32);  \
	} while (0)

uint64_t ws_hash64(const void *data, size_t n)
{
	pthread_once(&hash_once, hash_key_init);
	const uint8_t *p = data;
	uint64_t v0 = 0x736f6d6570736575ull ^ hash_key[0], v1 = 0x646f72616e646f6dull ^ hash_key[1];
	uint64_t v2 = 0x6c7967656e657261ull ^ hash_key[0], v3 = 0x7465646279746573ull ^ hash_key[1];
	size_t whole = n & ~(size_t)7;
	for (size_t i = 0; i < whole; i += 8) {
		uint64_t m = ws_le64(p + i);
		v3 ^= m;
		SIPROUND();
		v0 ^= m;
	}
	uint64_t last = (uint64_t)n << 56;
	for (size_t i = whole; i < n; i++)
		last |= (uint64_t)p[i] << (8 * (i - whole));
	v3 ^= last;
	SIPROUND();
	v0 ^= last;
	v2 ^= 0xff;
	SIPROUND();
	SIPROUND();
	SIPROUND();
	return v0 ^ v1 ^ v2 ^ v3;
}

/* the next character of a normalized name at *i: a run of separators is '-', letters lowered;
 * 0 at the end */
static int pypi_next(const char *s, size_t n, size_t *i)
{
	if (*i >= n)
		return 0;
	char c = s[*i];
	if (c == '-' || c == '_' || c == '.') {
		while (*i < n && (s[*i] == '-' || s[*i] == '_' || s[*i] == '.'))
			(*i)++;
		return '-';
	}
	(*i)++;
	return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

int ws_pypi_name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	size_t i = 0, j = 0;
	for (;;) {
		int x = pypi_next(a, al, &i), y = pypi_next(b, bl, &j);
		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
}

bool ws_pypi_name_eq(const char *a, size_t al, const char *b, size_t bl)
{
	return ws_pypi_name_cmp(a, al, b, bl) == 0;
}

bool ws_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

bool ws_ends_with_nocase(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n < k)
		return false;
	for (size_t i = 0; i < k; i++) {
		unsigned char x = (unsigned char)s[n - k + i], y = (unsigned char)suffix[i];
		if ((x >= 'A' && x <= 'Z' ? x | 0x20 : x) != (y >= 'A' && y <= 'Z' ? y | 0x20 : y))
			return false;
	}
	return true;
}

bool ws_pypi_torch_family(const char *name)
{
	size_t n = strlen(name);
	return ws_pypi_name_eq(name, n, "torch", 5) || ws_pypi_name_eq(name, n, "torchvision", 11) ||
	       ws_pypi_name_eq(name, n, "torchaudio", 10);
}
