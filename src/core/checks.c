/* checks.c - the stable check IDs and the rules (--ignore, --select) that say which gate
 * findings count. Decided here once; the writers print the IDs, never choose them. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ws_checks.h"
#include "ws_util.h"

static const struct ws_checkdef defs[WS_NCHECKS] = {
	[WS_CHECK_MISSING_SASS] = {"WS101", "missing-sass", "require",
		"a container needed on a --require architecture has no SASS for it", true},
	[WS_CHECK_MISSING_PTX] = {"WS102", "missing-ptx", "require-ptx",
		"a container with kernels has no PTX (--require-ptx)", true},
	[WS_CHECK_WILL_NOT_RUN] = {"WS103", "will-not-run", "gpu",
		"an object has no image that runs on a --gpu target", true},
	[WS_CHECK_LIVE_MISMATCH] = {"WS104", "live-mismatch", "live",
		"the CUDA driver disagrees with the prediction (--live)", true},
	[WS_CHECK_LIVE_UNCONFIRMED] = {"WS105", "live-unconfirmed", "live-unconfirmed",
		"a load through the CUDA driver did not answer in time (--live)", true},
	[WS_CHECK_INTEGRITY] = {"WS201", "record-mismatch", "integrity",
		"a member differs from its RECORD row, CRC-32, declared size or digest", false},
	[WS_CHECK_CORRUPT] = {"WS301", "corrupt", "format",
		"an input or member is corrupt, truncated or not what its name promises", false},
	[WS_CHECK_UNREADABLE] = {"WS302", "unreadable", "io", "an input cannot be opened or read", false},
	[WS_CHECK_LIMIT] = {"WS303", "limit", "limit", "a size or count limit (--max-*) stopped the read", false},
	[WS_CHECK_UNSUPPORTED] = {"WS304", "unsupported", "unsupported",
		"encrypted, or a compression this build cannot read", false},
	[WS_CHECK_MEMORY] = {"WS305", "out-of-memory", "memory", "memory ran out while reading", false},
	[WS_CHECK_LOAD_MISSING] = {"WS401", "load-missing-library", "load-missing-library",
		"an object needs a shared library that no distribution here provides", false},
	[WS_CHECK_LOAD_ORDER] = {"WS402", "load-order", "load-order",
		"two distributions provide different libraries of one soname: load order decides", false},
	[WS_CHECK_LOAD_VERSION] = {"WS403", "load-missing-version", "load-missing-version",
		"an object needs a symbol version that the library it loads does not define", false},
	[WS_CHECK_LOAD_SYMBOL] = {"WS404", "load-missing-symbol", "load-missing-symbol",
		"an object needs a symbol that the libraries it loads do not define", false},
	[WS_CHECK_LOAD_CUDA_SPLIT] = {"WS405", "load-cuda-split", "load-cuda-split",
		"the environment's objects need CUDA runtimes of two majors", false},
	[WS_CHECK_LOAD_ELSEWHERE] = {"WS406", "load-expected-elsewhere", "load-expected-elsewhere",
		"wheels given alone: a needed library none of them provides", false},
};

const struct ws_checkdef *ws_check_def(enum ws_check c)
{
	return (unsigned)c < WS_NCHECKS ? &defs[c] : &defs[WS_CHECK_CORRUPT];
}

int ws_check_lookup(const char *s, size_t n)
{
	for (int i = 0; i < WS_NCHECKS; i++)
		if ((strlen(defs[i].id) == n && !strncasecmp(s, defs[i].id, n)) ||
		    (strlen(defs[i].name) == n && !strncmp(s, defs[i].name, n)))
			return i;
	return -1;
}

enum ws_check ws_check_of_error(enum ws_errcode code)
{
	switch (code) {
	case WS_E_IO: return WS_CHECK_UNREADABLE;
	case WS_E_LIMIT: return WS_CHECK_LIMIT;
	case WS_E_INTEGRITY: return WS_CHECK_INTEGRITY;
	case WS_E_UNSUPPORTED: return WS_CHECK_UNSUPPORTED;
	case WS_E_MEMORY: return WS_CHECK_MEMORY;
	default: return WS_CHECK_CORRUPT;
	}
}

/* The ID part of "ID[:GLOB]" as a gate check, or -1 with err filled. */
static int gate_check(const char *spec, size_t n, const char *what, struct ws_err *err)
{
	int c = ws_check_lookup(spec, n);
	if (c < 0) {
		ws_err_set(err, WS_E_FORMAT, "unknown check '%.*s' in %s (WS101-WS105; see CHECKS in wheelscan(1))",
			 (int)(n > 64 ? 64 : n), spec, what);
		return -1;
	}
	if (!defs[c].gate && defs[c].id[2] == '4') {
		ws_err_set(err, WS_E_FORMAT, "%s %s is said of the environment and never gates: there is nothing to "
			   "ignore or select", defs[c].id, defs[c].name);
		return -1;
	}
	if (!defs[c].gate) {
		/* an input that was not read, or not what it says, cannot pass a gate */
		ws_err_set(err, WS_E_FORMAT, "%s %s cannot be ignored or selected: an input that could not be read or "
			 "verified is never judged", defs[c].id, defs[c].name);
		return -1;
	}
	return c;
}

int ws_check_rules_ignore(struct ws_check_rules *r, const char *spec, struct ws_err *err)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	int c = gate_check(spec, n, "--ignore", err);
	if (c < 0)
		return -1;
	if (colon && !colon[1]) {
		ws_err_set(err, WS_E_FORMAT, "empty glob after '%.*s:' in --ignore", (int)(n > 64 ? 64 : n), spec);
		return -1;
	}
	struct ws_check_rule *v = ws_reallocarray(r->ignore, r->nignore + 1, sizeof *v);
	if (!v) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return -1;
	}
	r->ignore = v;
	v[r->nignore].check = (enum ws_check)c;
	v[r->nignore].glob = NULL;
	if (colon && !(v[r->nignore].glob = ws_strdup(colon + 1))) {
		ws_err_set(err, WS_E_MEMORY, "out of memory");
		return -1;
	}
	r->nignore++;
	return 0;
}

int ws_check_rules_select(struct ws_check_rules *r, const char *spec, struct ws_err *err)
{
	int c = gate_check(spec, strlen(spec), "--select", err);
	if (c < 0)
		return -1;
	r->selected[c] = r->any_selected = true;
	return 0;
}

bool ws_check_ignored(const struct ws_check_rules *r, enum ws_check c, const char *artifact, const char *member)
{
	if (!r || !ws_check_def(c)->gate)
		return false;
	if (r->any_selected && !r->selected[c])
		return true;
	for (size_t i = 0; i < r->nignore; i++) {
		const struct ws_check_rule *k = &r->ignore[i];
		if (k->check != c)
			continue;
		if (!k->glob || (artifact && ws_glob_match(k->glob, artifact)) || (member && ws_glob_match(k->glob, member)))
			return true;
		if (artifact && member && strcmp(artifact, member) != 0) {
			/* "dist/x.whl!pkg/libx.so", as the reports name it */
			size_t al = strlen(artifact), ml = strlen(member);
			char *both = ws_malloc(al + ml + 2);
			bool hit = false;
			if (both) {
				memcpy(both, artifact, al);
				both[al] = '!';
				memcpy(both + al + 1, member, ml + 1);
				hit = ws_glob_match(k->glob, both);
				free(both);
			}
			if (hit)
				return true;
		}
	}
	return false;
}

void ws_check_rules_free(struct ws_check_rules *r)
{
	for (size_t i = 0; i < r->nignore; i++)
		free(r->ignore[i].glob);
	free(r->ignore);
	memset(r, 0, sizeof *r);
}

/* One pattern character (or [...] class) against c; *len is its length in the pattern,
 * 0 for an unterminated class, which then matches a literal '['. */
static bool one(const char *p, unsigned char c, size_t *len)
{
	if (*p == '?') {
		*len = 1;
		return true;
	}
	if (*p != '[') {
		*len = 1;
		return (unsigned char)*p == c;
	}
	const char *q = p + 1;
	bool neg = *q == '!' || *q == '^';
	q += neg;
	bool hit = false;
	for (bool first = true; *q && (first || *q != ']'); first = false) {
		unsigned char lo = (unsigned char)*q, hi = lo;
		if (q[1] == '-' && q[2] && q[2] != ']') {
			hi = (unsigned char)q[2];
			q += 3;
		} else {
			q++;
		}
		hit |= c >= lo && c <= hi;
	}
	if (*q != ']') {                      /* no closing bracket: a plain '[' */
		*len = 1;
		return c == '[';
	}
	*len = (size_t)(q + 1 - p);
	return hit != neg;
}

bool ws_glob_match(const char *pat, const char *s)
{
	/* every token but '*' matches one character, so going back to the last star is
	 * enough: linear steps per star position, no recursion */
	const char *star = NULL, *resume = NULL;
	while (*s) {
		size_t len;
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			if (!*pat)
				return true;
			star = pat;
			resume = s;
		} else if (*pat && one(pat, (unsigned char)*s, &len)) {
			pat += len;
			s++;
		} else if (star) {
			pat = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}
