/* test_sbom.c - --sbom-in's matching (src/core/sbom.c): which artifact a BOM component is,
 * by hash, purl or location, the first in the order given when several are; and the cost,
 * counted in string comparisons, a few binary searches per component (issue 40: 80,000
 * components against 5,000 artifacts compared every pair, 37 s). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "wheelscan.h"
#include "ws_sbom.h"

static char *dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void set(struct ws_sbom_artifact *a, const char *path, const char *sha, const char *purl)
{
	memset(a, 0, sizeof *a);
	a->path = dup(path);
	a->sha256 = dup(sha);
	a->purl = dup(purl);
	a->props = dup("{}");
}

static void unset(struct ws_sbom_artifact *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].path);
		free(a[i].sha256);
		free(a[i].purl);
		free(a[i].props);
	}
}

/* The artifact index each component of bom matched, "-" where none, in file order. */
static void plan(const char *bom, const struct ws_sbom_artifact *arts, size_t n, char *out, size_t cap, uint64_t *work)
{
	struct ws_sbom_edit *e = NULL;
	size_t ne = 0;
	struct ws_err err;
	memset(&err, 0, sizeof err);
	out[0] = '\0';
	if (ws_sbom_plan_counted(bom, strlen(bom), arts, n, &e, &ne, work, &err) < 0) {
		snprintf(out, cap, "error: %s", err.msg);
		return;
	}
	for (size_t i = 0; i < ne; i++)
		snprintf(out + strlen(out), cap - strlen(out), "%s%zu", i ? "," : "", (size_t)(e[i].art - arts));
	free(e);
}

static const char H1[] = "1111111111111111111111111111111111111111111111111111111111111111";
static const char H2[] = "2222222222222222222222222222222222222222222222222222222222222222";

static void test_kinds(void)
{
	struct ws_sbom_artifact a[4];
	set(&a[0], "/m/pkgs/torch-2.5.1-cp311-cp311-linux_x86_64.whl", H1, "pkg:pypi/torch@2.5.1");
	set(&a[1], "/m/lib/libfoo.so", NULL, NULL);
	set(&a[2], "/other/lib/libfoo.so", H2, "pkg:pypi/flash-attn@2.7.0");
	set(&a[3], "/m/x/ab.so", NULL, NULL);
	char got[256];
	static const struct { const char *comp, *want; } rows[] = {
		/* by hash */
		{"{\"hashes\":[{\"alg\":\"SHA-256\",\"content\":\"2222222222222222222222222222222222222222222222222222222222222222\"}]}", "2"},
		/* by purl, normalized (PEP 503) and with qualifiers */
		{"{\"purl\":\"pkg:pypi/Flash_Attn@2.7.0?arch=x86_64\"}", "2"},
		/* by location: the first artifact whose path ends with it at a '/' */
		{"{\"evidence\":{\"occurrences\":[{\"location\":\"/lib/libfoo.so\"}]}}", "1"},
		{"{\"evidence\":{\"occurrences\":[{\"location\":\"./other/lib/libfoo.so\"}]}}", "2"},
		{"{\"evidence\":{\"occurrences\":[{\"location\":\"b.so\"}]}}", ""},           /* not at a '/' */
		{"{\"evidence\":{\"occurrences\":[{\"location\":\"./\"}]}}", ""},
		/* several keys: the first artifact any of them names */
		{"{\"purl\":\"pkg:pypi/flash-attn@2.7.0\",\"properties\":[{\"name\":\"syft:location:0:path\",\"value\":\"ab.so\"},"
		 "{\"name\":\"aquasecurity:trivy:FilePath\",\"value\":\"m/pkgs/torch-2.5.1-cp311-cp311-linux_x86_64.whl\"}]}", "0"},
		{"{\"hashes\":[{\"alg\":\"SHA-256\",\"content\":\"1111111111111111111111111111111111111111111111111111111111111111\"}],"
		 "\"purl\":\"pkg:pypi/flash-attn@2.7.0\"}", "0"},
		{"{\"purl\":\"pkg:pypi/torch@2.5.2\"}", ""},
		{"{\"purl\":\"pkg:npm/torch@2.5.1\"}", ""},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char bom[1024];
		snprintf(bom, sizeof bom, "{\"bomFormat\":\"CycloneDX\",\"components\":[%s]}", rows[i].comp);
		plan(bom, a, 4, got, sizeof got, NULL);
		CHECK_EQ_STR(got, rows[i].want);
	}
	/* nested components are matched each on its own */
	plan("{\"bomFormat\":\"CycloneDX\",\"components\":[{\"purl\":\"pkg:pypi/torch@2.5.1\",\"components\":"
	     "[{\"evidence\":{\"occurrences\":[{\"location\":\"x/ab.so\"}]}}]}]}", a, 4, got, sizeof got, NULL);
	CHECK_EQ_STR(got, "3,0");
	unset(a, 4);
}

/* 2,000 artifacts and 4,000 components: all pairs would be 8,000,000 comparisons per key;
 * the index needs about log2(2,000) = 11 per key and component. */
static void test_cost(void)
{
	enum { NA = 2000, NC = 4000 };
	struct ws_sbom_artifact *a = calloc(NA, sizeof *a);
	size_t cap = (size_t)NC * 300 + 100, len = 0;
	char *bom = malloc(cap);
	CHECK(a && bom, "allocation");
	if (!a || !bom)
		return;
	for (size_t i = 0; i < NA; i++) {
		char path[64], sha[65], purl[64];
		snprintf(path, sizeof path, "/mirror/p%zu/lib/libx%zu.so", i, i);
		snprintf(sha, sizeof sha, "%064zx", i);
		snprintf(purl, sizeof purl, "pkg:pypi/p%zu@1.0", i);
		set(&a[i], path, sha, purl);
	}
	len += (size_t)snprintf(bom + len, cap - len, "{\"bomFormat\":\"CycloneDX\",\"components\":[");
	for (size_t c = 0; c < NC; c++) {
		size_t i = c % (2 * NA);                  /* half name an artifact, half nothing */
		len += (size_t)snprintf(bom + len, cap - len,
					"%s{\"purl\":\"pkg:pypi/q%zu@1.0\",\"hashes\":[{\"alg\":\"SHA-256\",\"content\":\"%064zx\"}],"
					"\"evidence\":{\"occurrences\":[{\"location\":\"lib/libx%zu.so\"}]}}",
					c ? "," : "", c, i + 7 * NA, i);
	}
	snprintf(bom + len, cap - len, "]}");
	uint64_t work = 0;
	char *got = malloc(NC * 8);
	plan(bom, a, NA, got, NC * 8, &work);
	size_t matched = 0;
	for (char *p = got; *p; p++)
		matched += *p == ',';
	CHECK_EQ_INT(matched + (got[0] != 0), NA);
	CHECK(work <= (uint64_t)NC * 3 * 14, "%llu comparisons for %d components, at most %d",
	      (unsigned long long)work, NC, NC * 3 * 14);
	free(got);
	free(bom);
	unset(a, NA);
	free(a);
}

int main(void)
{
	test_kinds();
	test_cost();
	return ws_test_done();
}
