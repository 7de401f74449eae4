/* fuzz_image.c - libFuzzer target: the container image JSON readers (ws_imgdoc_parse for
 * OCI indexes and manifests, ws_docker_manifest_parse for docker save's manifest.json)
 * and the image check that puts images together from them. The input is index.json and
 * manifest.json at once, and every blob it points at is "in the archive" holding the
 * input again, so an index that points at itself must stop at the nesting bound. */
#include <stdio.h>

#include "fuzz.h"
#include "ws_image.h"
#include "ws_imgcheck.h"

static void feed_blob(struct ws_imgcheck *c, struct ws_artifact *a, const char *digest, const char *p, size_t n,
		      bool archive)
{
	char name[128];
	if (!ws_digest_valid(digest))
		return;
	snprintf(name, sizeof name, "blobs/sha256/%s", digest + 7);
	char *text = malloc(n + 1);
	if (!text)
		return;
	memcpy(text, p, n);
	text[n] = 0;
	ws_imgcheck_member(c, a, "fuzz-input", name, digest + 7, n, archive, archive ? NULL : text, n, false);
	if (archive)
		free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ro ro;
	const char *p = (const char *)fuzz_ro_copy(&ro, data, size);
	struct ws_err err = {0};
	struct ws_imgdoc doc;
	struct ws_docker_manifest dm;
	bool have_doc = ws_imgdoc_parse(&doc, p, size, &err) == 0;
	if (!have_doc && !err.code)
		abort();                                    /* a refusal always says why */
	memset(&err, 0, sizeof err);
	bool have_dm = ws_docker_manifest_parse(&dm, p, size, &err) == 0;
	if (!have_dm && !err.code)
		abort();
	struct ws_artifact *a = fuzz_artifact();
	struct ws_imgcheck *c = ws_imgcheck_new();
	if (c) {
		ws_imgcheck_member(c, a, "fuzz-input", "oci-layout", "", 0, false, NULL, 0, false);
		char *t1 = malloc(size + 1), *t2 = malloc(size + 1);
		if (t1)
			memcpy(t1, p, size);
		if (t2)
			memcpy(t2, p, size);
		ws_imgcheck_member(c, a, "fuzz-input", "index.json", "", size, false, t1, size, false);
		ws_imgcheck_member(c, a, "fuzz-input", "manifest.json", "", size, false, t2, size, false);
		if (have_doc) {
			for (uint32_t i = 0; i < doc.nmanifests && i < 64; i++)
				feed_blob(c, a, doc.manifests[i].digest, p, size, false);
			for (uint32_t i = 0; i < doc.nlayers && i < 64; i++)
				feed_blob(c, a, doc.layers[i].digest, p, size, i % 2 == 0);
			feed_blob(c, a, doc.config.digest, p, size, false);
		}
		ws_imgcheck_finish(c, a, "fuzz-input", true);
		ws_imgcheck_free(c);
		for (uint32_t i = 0; i < a->nimages; i++)
			for (uint32_t k = 0; k < a->images[i].nlayers; k++)
				if (!a->images[i].layers[k].member)
					abort();                    /* every layer names its member */
	}
	if (have_doc)
		ws_imgdoc_free(&doc);
	if (have_dm)
		ws_docker_manifest_free(&dm);
	ws_artifact_free(a);
	fuzz_ro_free(&ro);
	return 0;
}
