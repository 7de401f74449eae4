/* jitc.c - compilers that a package bundles and runs on the user's machine to make GPU code
 * at run time: Triton's ptxas. Their CUDA release decides which GPUs that code can be made
 * for, the way a PTX entry's ISA decides which drivers can JIT it (doc/jit-compilers.md).
 *
 * Triton 3.x keeps ptxas in triton/backends/nvidia/bin/, Triton 2.x in
 * triton/third_party/cuda/bin/. Triton 3.3 adds ptxas-blackwell and picks it for
 * arch >= 100 (get_ptxas() in triton/backends/nvidia/compiler.py of its 3.3.0 wheel). The
 * binary is never run: its release is read from the version text it prints,
 * "Cuda compilation tools, release 12.4, V12.4.99", which sits in its bytes as is.
 */
#include <string.h>

#include "wheelscan.h"
#include "ws_compat.h"
#include "ws_decode.h"
#include "ws_util.h"

static const char *const PTXAS_DIRS[] = {
	"triton/backends/nvidia/bin/",
	"triton/third_party/cuda/bin/",
};

enum ws_jitc ws_jitc_of_member(const char *member)
{
	if (!member)
		return WS_JITC_NONE;
	size_t n = strlen(member);
	for (size_t i = 0; i < sizeof PTXAS_DIRS / sizeof *PTXAS_DIRS; i++) {
		static const char *const tools[] = {"ptxas", "ptxas-blackwell"};
		for (size_t k = 0; k < 2; k++) {
			size_t d = strlen(PTXAS_DIRS[i]), t = strlen(tools[k]);
			if (n < d + t || strcmp(member + n - t, tools[k]) != 0 ||
			    strncmp(member + n - t - d, PTXAS_DIRS[i], d) != 0)
				continue;
			/* the directory starts the name or follows a '/' or an archive's '!' */
			size_t at = n - t - d;
			if (at == 0 || member[at - 1] == '/' || member[at - 1] == '!')
				return k ? WS_JITC_PTXAS_BLACKWELL : WS_JITC_PTXAS;
		}
	}
	return WS_JITC_NONE;
}

const char *ws_jitc_name(enum ws_jitc k)
{
	return k == WS_JITC_PTXAS ? "triton-ptxas" : k == WS_JITC_PTXAS_BLACKWELL ? "triton-ptxas-blackwell" : "none";
}

#define RELEASE_TEXT "Cuda compilation tools, release "

int ws_jitc_find_release(const uint8_t *p, size_t n)
{
	const size_t m = sizeof RELEASE_TEXT - 1;
	while (n >= m) {
		const uint8_t *hit = memchr(p, 'C', n - m + 1);
		if (!hit)
			return 0;
		size_t left = n - (size_t)(hit - p);
		if (memcmp(hit, RELEASE_TEXT, m) == 0) {
			/* "release 12.4," - the printf format "release %d.%d" is skipped */
			char text[sizeof RELEASE_TEXT + 8];
			size_t k = left < sizeof text - 1 ? left : sizeof text - 1;
			memcpy(text, hit, k);
			text[k] = '\0';
			uint16_t tk = ws_toolkit_of_producer(text);
			if (tk)
				return (tk / 10) * 1000 + (tk % 10) * 10;
		}
		p = hit + 1;
		n = left - 1;
	}
	return 0;
}

const struct ws_object *ws_jitc_for_target(const struct ws_artifact *a, const struct ws_target *t)
{
	const struct ws_object *plain = NULL, *blackwell = NULL;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		if (o->jitc == WS_JITC_PTXAS && !plain)
			plain = o;
		else if (o->jitc == WS_JITC_PTXAS_BLACKWELL && !blackwell)
			blackwell = o;
	}
	/* a Triton with both picks by arch; one with only ptxas uses it for every GPU */
	return blackwell && t->cc >= 100 ? blackwell : plain;
}

enum ws_verdict ws_jitc_verdict(const struct ws_object *o, const struct ws_target *t, uint32_t *reason)
{
	*reason = 0;
	if (!o || !o->jitc_cuda)
		return WS_V_NONE;                           /* no compiler, or its release unread */
	int first = ws_first_toolkit_for_arch(t->cc, 0), last = ws_last_toolkit_for_arch(t->cc);
	if (!first)
		return WS_V_NONE;                           /* an arch the toolkit table lacks */
	if (o->jitc_cuda < first)
		return *reason = WS_R_JIT_COMPILER_OLD, WS_V_NO_IMAGE;
	if (last && o->jitc_cuda > last)
		return *reason = WS_R_JIT_COMPILER_DROPPED, WS_V_NO_IMAGE;
	return *reason = WS_R_JIT_COMPILER, WS_V_JIT;
}
