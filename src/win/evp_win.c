/* evp_win.c - src/win/include/openssl/evp.h over BCrypt: one hash object per context. */
#include <windows.h>
#include <bcrypt.h>
#include <stdlib.h>

#include <openssl/evp.h>

struct ws_evp_md {
	const wchar_t *alg;
	unsigned len;
};
struct ws_evp_md_ctx {
	BCRYPT_ALG_HANDLE alg;
	BCRYPT_HASH_HANDLE h;
	unsigned len;
};

static const EVP_MD md5 = {BCRYPT_MD5_ALGORITHM, 16}, sha256 = {BCRYPT_SHA256_ALGORITHM, 32},
		    sha384 = {BCRYPT_SHA384_ALGORITHM, 48}, sha512 = {BCRYPT_SHA512_ALGORITHM, 64};

const EVP_MD *EVP_md5(void) { return &md5; }
const EVP_MD *EVP_sha224(void) { return NULL; }
const EVP_MD *EVP_sha256(void) { return &sha256; }
const EVP_MD *EVP_sha384(void) { return &sha384; }
const EVP_MD *EVP_sha512(void) { return &sha512; }

EVP_MD_CTX *EVP_MD_CTX_new(void)
{
	return calloc(1, sizeof(EVP_MD_CTX));
}

void EVP_MD_CTX_free(EVP_MD_CTX *c)
{
	if (!c)
		return;
	if (c->h)
		BCryptDestroyHash(c->h);
	if (c->alg)
		BCryptCloseAlgorithmProvider(c->alg, 0);
	free(c);
}

int EVP_DigestInit_ex(EVP_MD_CTX *c, const EVP_MD *md, ENGINE *e)
{
	(void)e;
	if (!md || BCryptOpenAlgorithmProvider(&c->alg, md->alg, NULL, 0) != 0)
		return 0;
	if (BCryptCreateHash(c->alg, &c->h, NULL, 0, NULL, 0, 0) != 0)
		return 0;
	c->len = md->len;
	return 1;
}

int EVP_DigestUpdate(EVP_MD_CTX *c, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n) {
		ULONG k = n > 0x40000000u ? 0x40000000u : (ULONG)n;
		if (BCryptHashData(c->h, (PUCHAR)b, k, 0) != 0)
			return 0;
		b += k;
		n -= k;
	}
	return 1;
}

int EVP_DigestFinal_ex(EVP_MD_CTX *c, unsigned char *out, unsigned int *len)
{
	if (BCryptFinishHash(c->h, out, c->len, 0) != 0)
		return 0;
	if (len)
		*len = c->len;
	return 1;
}
