/* openssl/evp.h - the digest part of OpenSSL's EVP that src/core/sha256.c calls, over
 * Windows' CNG (BCrypt; src/win/evp_win.c): MD5, SHA-256, SHA-384, SHA-512. CNG has no
 * SHA-224, so EVP_sha224 gives NULL and a RECORD hashed with it is an unknown algorithm. */
#ifndef WS_WIN_OPENSSL_EVP_H
#define WS_WIN_OPENSSL_EVP_H
#include <stddef.h>

typedef struct ws_evp_md EVP_MD;
typedef struct ws_evp_md_ctx EVP_MD_CTX;
typedef struct engine_st ENGINE;

const EVP_MD *EVP_md5(void);
const EVP_MD *EVP_sha224(void);
const EVP_MD *EVP_sha256(void);
const EVP_MD *EVP_sha384(void);
const EVP_MD *EVP_sha512(void);
EVP_MD_CTX *EVP_MD_CTX_new(void);
void EVP_MD_CTX_free(EVP_MD_CTX *c);
int EVP_DigestInit_ex(EVP_MD_CTX *c, const EVP_MD *md, ENGINE *e);
int EVP_DigestUpdate(EVP_MD_CTX *c, const void *p, size_t n);
int EVP_DigestFinal_ex(EVP_MD_CTX *c, unsigned char *out, unsigned int *len);
#endif
