/* asset_row.c - the rows of builds published as release assets (doc/builds.md "Release
 * assets"): index "asset:<download folder>/", variant "cu12torch2.8", requires
 * "torch==2.8.*,python>=3.9,python<3.14". Parsed here, alone, so that the table's parser
 * (builds.c) can refuse a malformed one and the remedy (remedy_asset.c) can match it. */
#include <stdio.h>
#include <string.h>

#include "asset_row.h"

#define ASSET_PREFIX "asset:"

bool ws_build_is_asset(const struct ws_build *b)
{
	return b && !strncmp(b->index, ASSET_PREFIX, sizeof ASSET_PREFIX - 1);
}


/* "2.8.0" -> major 2, minor 8; false when it does not start with two numbers. */
bool ws_major_minor(const char *v, unsigned *major, unsigned *minor)
{
	int n = 0;
	return sscanf(v, "%3u.%3u%n", major, minor, &n) == 2 && (!v[n] || v[n] == '.' || v[n] == '+');
}

static bool parse_py(const char *s, size_t len, unsigned *out)
{
	char buf[16];
	unsigned major, minor;
	if (len >= sizeof buf)
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (!ws_major_minor(buf, &major, &minor) || strchr(strchr(buf, '.') + 1, '.'))
		return false;
	*out = major * 100 + minor;
	return true;
}

bool ws_asset_terms(const struct ws_build *b, struct ws_asset_terms *at)
{
	const char *s = b->requires, *v = b->variant;
	bool torch = false;
	unsigned tmaj, tmin;
	int n = 0;
	memset(at, 0, sizeof *at);
	/* variant: cu<major>torch<major>.<minor>, the local tag before "cxx11abi" */
	if (sscanf(v, "cu%3utorch%3u.%3u%n", &at->cuda_major, &tmaj, &tmin, &n) != 3 || v[n] || !at->cuda_major)
		return false;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (len > 9 && !strncmp(s, "torch==", 7) && !strncmp(s + len - 2, ".*", 2)) {
			char buf[16];
			if (len - 9 >= sizeof buf)
				return false;
			memcpy(buf, s + 7, len - 9);
			buf[len - 9] = 0;
			if (!ws_major_minor(buf, &at->torch_major, &at->torch_minor) || strchr(strchr(buf, '.') + 1, '.'))
				return false;
			torch = true;
		} else if (len > 8 && !strncmp(s, "python>=", 8)) {
			if (!parse_py(s + 8, len - 8, &at->py_lo))
				return false;
		} else if (len > 7 && !strncmp(s, "python<", 7) && s[7] != '=') {
			if (!parse_py(s + 7, len - 7, &at->py_hi))
				return false;
		} else {
			return false;
		}
		s += len;
		if (*s == ',' && !*++s)
			return false;
	}
	/* the variant's torch and the requirement's must be the same torch minor */
	return torch && tmaj == at->torch_major && tmin == at->torch_minor && at->py_lo && at->py_hi &&
	       at->py_lo < at->py_hi;
}

bool ws_asset_row_ok(const struct ws_build *b)
{
	struct ws_asset_terms at;
	size_t n = strlen(b->index);
	return ws_build_is_asset(b) && n > sizeof ASSET_PREFIX + 8 && b->index[n - 1] == '/' &&
	       !strncmp(b->index + sizeof ASSET_PREFIX - 1, "https://", 8) && b->wheel_platform[0] &&
	       ws_asset_terms(b, &at);
}

bool ws_asset_fits(const struct ws_build *b, const char *torch_version, int torch_cuda, const char *python_version)
{
	struct ws_asset_terms at;
	unsigned major, minor, py;
	if (!ws_build_is_asset(b) || !ws_asset_terms(b, &at) || !torch_version ||
	    !ws_major_minor(torch_version, &major, &minor) || major != at.torch_major || minor != at.torch_minor ||
	    torch_cuda / 1000 != (int)at.cuda_major)
		return false;
	if (!python_version)
		return true;                   /* unknown: decided when the command is made */
	if (!parse_py(python_version, strlen(python_version), &py))
		return false;
	return py >= at.py_lo && py < at.py_hi;
}
