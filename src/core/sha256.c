/* sha256.c - incremental SHA-2 digests through OpenSSL's EVP, hex and RECORD's base64. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "ws_util.h"
#include "ws_digest.h"

struct ws_digest {
	EVP_MD_CTX *ctx;
};

static const EVP_MD *digest_by_name(const char *algo)
{
	if (!algo)
		return NULL;
	/* Only SHA-2: wheels may not use md5 or sha1 (PEP 427). */
	if (strcmp(algo, "sha256") == 0)
		return EVP_sha256();
	if (strcmp(algo, "sha384") == 0)
		return EVP_sha384();
	if (strcmp(algo, "sha512") == 0)
		return EVP_sha512();
	if (strcmp(algo, "sha224") == 0)
		return EVP_sha224();
	return NULL;
}

bool ws_digest_known(const char *algo)
{
	return digest_by_name(algo) != NULL;
}

struct ws_digest *ws_digest_new(const char *algo)
{
	const EVP_MD *md = digest_by_name(algo);
	if (!md)
		return NULL;
	struct ws_digest *d = ws_malloc(sizeof *d);
	if (!d)
		return NULL;
	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx || EVP_DigestInit_ex(d->ctx, md, NULL) != 1) {
		EVP_MD_CTX_free(d->ctx);
		free(d);
		return NULL;
	}
	return d;
}

struct ws_digest *ws_digest_new_md5(void)
{
	struct ws_digest *d = ws_malloc(sizeof *d);
	if (!d)
		return NULL;
	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx || EVP_DigestInit_ex(d->ctx, EVP_md5(), NULL) != 1) {
		EVP_MD_CTX_free(d->ctx);
		free(d);
		return NULL;
	}
	return d;
}

void ws_digest_update(struct ws_digest *d, const void *p, size_t n)
{
	if (n)
		EVP_DigestUpdate(d->ctx, p, n);
}

size_t ws_digest_final(struct ws_digest *d, uint8_t out[WS_DIGEST_MAX])
{
	unsigned int len = 0;
	if (EVP_DigestFinal_ex(d->ctx, out, &len) != 1)
		return 0;
	return len;
}

void ws_digest_free(struct ws_digest *d)
{
	if (!d)
		return;
	EVP_MD_CTX_free(d->ctx);
	free(d);
}

void ws_hex(const uint8_t *p, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}

size_t ws_b64url_nopad(const uint8_t *p, size_t n, char *out, size_t cap)
{
	static const char tb[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t need = n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0);
	if (n > SIZE_MAX / 2 || need >= cap)
		return 0;
	size_t o = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		out[o++] = tb[v >> 18];
		out[o++] = tb[(v >> 12) & 63];
		out[o++] = tb[(v >> 6) & 63];
		out[o++] = tb[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)p[i] << 16;
		out[o++] = tb[v >> 18];
		out[o++] = tb[(v >> 12) & 63];
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		out[o++] = tb[v >> 18];
		out[o++] = tb[(v >> 12) & 63];
		out[o++] = tb[(v >> 6) & 63];
	}
	out[o] = '\0';
	return o;
}

/* Ends a SHA-256 context into hex; 0, or -1 with the reason in err. */
static int final_hex(struct ws_digest *d, char hex[65], struct ws_err *err)
{
	uint8_t md[WS_DIGEST_MAX];
	if (ws_digest_final(d, md) != 32)
		return ws_err_set(err, WS_E_MEMORY, "sha-256 failed");
	ws_hex(md, 32, hex);
	return 0;
}

int ws_sha256_mem(const uint8_t *p, size_t n, char hex[65], struct ws_err *err)
{
	struct ws_digest *d = ws_digest_new("sha256");
	if (!d)
		return ws_err_set(err, WS_E_MEMORY, "out of memory");
	ws_digest_update(d, p, n);
	int rc = final_hex(d, hex, err);
	ws_digest_free(d);
	return rc;
}

void ws_digest_mapping(struct ws_digest *d, const uint8_t *p, size_t n)
{
	const size_t chunk = (size_t)8 << 20;      /* a multiple of the page size */
	for (size_t off = 0; off < n; off += chunk) {
		size_t len = n - off < chunk ? n - off : chunk;
		ws_digest_update(d, p + off, len);
		/* the mapping is private and read-only for us: its pages can go back at once */
		madvise((void *)(p + off), len, MADV_DONTNEED);
	}
}
