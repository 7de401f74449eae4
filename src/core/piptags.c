/* piptags.c - the words of an offline `pip download` that name what the target accepts:
 * every --platform tag a machine of the set's glibc and architecture takes, and the
 * interpreter's --python-version, --implementation and --abi (pip matches each exactly).
 * Part of the remedy's commands (remedy.c); no I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "piptags.h"

/* ---- the platforms an offline download names ------------------------------------------
 * pip download --platform matches each tag exactly, so the line names every tag a machine
 * of that glibc and architecture accepts, as packaging.tags derives them
 * (packaging/_manylinux.py): manylinux_2_N from the glibc the set needs down to 2_17 (2_5
 * on x86_64 and i686), each legacy alias where its glibc is passed (manylinux2014 = 2_17,
 * manylinux2010 = 2_12, manylinux1 = 2_5), then linux_<arch>. */

/* A manylinux tag's glibc minor and architecture: manylinux_2_28_x86_64, manylinux2014_x86_64,
 * manylinux2010_*, manylinux1_*; false for any other tag. */
static bool manylinux_tag(const char *tag, size_t len, unsigned *minor, char *arch, size_t alen)
{
	static const struct { const char *prefix; unsigned minor; } legacy[] = {
		{"manylinux2014_", 17}, {"manylinux2010_", 12}, {"manylinux1_", 5}};
	const char *a = NULL;
	if (len > 13 && !strncmp(tag, "manylinux_2_", 12)) {
		unsigned m = 0;
		size_t i = 12;
		while (i < len && tag[i] >= '0' && tag[i] <= '9' && m < 1000)
			m = m * 10 + (unsigned)(tag[i++] - '0');
		if (i == 12 || i >= len || tag[i] != '_')
			return false;
		*minor = m;
		a = tag + i + 1;
	}
	for (size_t k = 0; !a && k < sizeof legacy / sizeof legacy[0]; k++) {
		size_t pl = strlen(legacy[k].prefix);
		if (len > pl && !strncmp(tag, legacy[k].prefix, pl)) {
			*minor = legacy[k].minor;
			a = tag + pl;
		}
	}
	if (!a || (size_t)(tag + len - a) >= alen || a == tag + len)
		return false;
	memcpy(arch, a, (size_t)(tag + len - a));
	arch[tag + len - a] = 0;
	return true;
}

static void add_platform(struct ws_cmd *c, const char *tag)
{
	for (size_t i = 1; i < c->argc; i++)
		if (!strcmp(c->argv[i], tag) && !strcmp(c->argv[i - 1], "--platform"))
			return;
	ws_cmd_add(c, "--platform");
	ws_cmd_add(c, tag);
}

/* The --platform words of the set: the interpreter's own tags under --python, else those
 * derived from the wheels' tags (declared rows without one: manylinux_2_28, what PyTorch's
 * and NVIDIA's current Linux wheels are published under). */
void ws_pip_platform_words(struct ws_cmd *c, const struct ws_build *const *set, size_t n, const char *platform,
			   const struct ws_remedy_ctx *ctx)
{
	char arch[32] = "", a[32];
	unsigned need = 0, m;
	if (ctx->npip_platforms) {
		for (size_t i = 0; i < ctx->npip_platforms; i++)
			add_platform(c, ctx->pip_platforms[i]);
		return;
	}
	if (ws_platform_windows(platform)) {
		add_platform(c, "win_amd64");
		return;
	}
	if (!strncmp(platform, "linux_", 6) && strlen(platform + 6) < sizeof arch)
		strcpy(arch, platform + 6);
	for (size_t i = 0; i < n; i++) {
		const char *wp = set[i]->wheel_platform;
		if (!*wp && need < 28)
			need = 28;
		while (*wp) {
			size_t k = strcspn(wp, " ");
			if (manylinux_tag(wp, k, &m, a, sizeof a) && (!arch[0] || !strcmp(a, arch))) {
				strcpy(arch, a);
				need = m > need ? m : need;
			} else if (k && k < 96 && strncmp(wp, "--platform", k)) {
				char one[96];
				memcpy(one, wp, k);
				one[k] = 0;
				if (strncmp(one, "linux_", 6))
					add_platform(c, one);     /* musllinux, macosx: as published */
			}
			wp += k;
			while (*wp == ' ')
				wp++;
		}
	}
	if (!arch[0])
		return;
	unsigned lowest = !strcmp(arch, "x86_64") || !strcmp(arch, "i686") ? 5 : 17;
	for (unsigned g = need; g >= lowest && g <= 1000; g--) {
		char tag[64];
		snprintf(tag, sizeof tag, "manylinux_2_%u_%s", g, arch);
		add_platform(c, tag);
		const char *legacy = g == 17 ? "manylinux2014" : g == 12 ? "manylinux2010" : g == 5 ? "manylinux1" : NULL;
		if (legacy) {
			snprintf(tag, sizeof tag, "%s_%s", legacy, arch);
			add_platform(c, tag);
		}
	}
	char tag[64];
	snprintf(tag, sizeof tag, "linux_%s", arch);
	add_platform(c, tag);
}

/* --python-version, --implementation and every --abi the interpreter accepts: "3.11" ->
 * cp311, abi3, none (pip matches --abi exactly too). */
void ws_pip_python_words(struct ws_cmd *c, const struct ws_remedy_ctx *ctx)
{
	unsigned major, minor;
	char abi[32];
	if (!ctx->python_version)
		return;
	ws_cmd_add(c, "--python-version");
	ws_cmd_add(c, ctx->python_version);
	ws_cmd_add(c, "--implementation");
	ws_cmd_add(c, ctx->pip_implementation ? ctx->pip_implementation : "cp");
	if (ctx->npip_abis) {
		for (size_t i = 0; i < ctx->npip_abis; i++) {
			ws_cmd_add(c, "--abi");
			ws_cmd_add(c, ctx->pip_abis[i]);
		}
		return;
	}
	if (sscanf(ctx->python_version, "%2u.%3u", &major, &minor) != 2)
		return;
	snprintf(abi, sizeof abi, "cp%u%u", major, minor);
	const char *abis[] = {abi, "abi3", "none"};
	for (size_t i = 0; i < 3; i++) {
		ws_cmd_add(c, "--abi");
		ws_cmd_add(c, abis[i]);
	}
}
