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

#include "ws_compat.h"

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

/* "12.4" at p[0..n): up to two digits, '.', up to two digits, as "release %d.%d" prints
 * them; the CUDA release (12040), or 0 (minor above 9: no such release). */
static int release_number(const uint8_t *p, size_t n)
{
	unsigned major = 0, minor = 0;
	size_t i = 0, d;
	for (d = 0; i < n && d < 2 && p[i] >= '0' && p[i] <= '9'; i++, d++)
		major = major * 10 + (unsigned)(p[i] - '0');
	if (!d || i >= n || p[i++] != '.')
		return 0;
	for (d = 0; i < n && d < 2 && p[i] >= '0' && p[i] <= '9'; i++, d++)
		minor = minor * 10 + (unsigned)(p[i] - '0');
	if (!d || major < 1 || minor > 9)
		return 0;
	return (int)(major * 1000 + minor * 10);
}

/* One pass, each byte compared at most twice: the text's only 'C' is its first byte, so
 * after k matched bytes no match can start before the mismatch (it would need a 'C' among
 * them), and the search goes on from there. A found text costs a bounded parse, so a
 * member full of near-misses or of the text itself costs what any other member does. */
int ws_jitc_find_release_counted(const uint8_t *p, size_t n, uint64_t *steps)
{
	const size_t m = sizeof RELEASE_TEXT - 1;
	const uint8_t *text = (const uint8_t *)RELEASE_TEXT;
	uint64_t work = 0;
	size_t i = 0;
	int found = 0;
	while (!found && n - i >= m) {
		const uint8_t *hit = memchr(p + i, 'C', n - i - m + 1);
		if (!hit)
			break;
		i = (size_t)(hit - p);
		size_t k = 1;
		while (k < m && p[i + k] == text[k])
			k++;
		work += k;
		if (k == m) {
			found = release_number(p + i + m, n - i - m);
			work += 5;
		}
		i += k;
	}
	if (steps)
		*steps += work;
	return found;
}

int ws_jitc_find_release(const uint8_t *p, size_t n)
{
	return ws_jitc_find_release_counted(p, n, NULL);
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
