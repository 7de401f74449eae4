/* compare.c - --baseline: what a new release adds or drops against an old one,
 * object by object (matched by member path; for directories, by the file's
 * path below the directory, then the member). A vendored library that auditwheel or
 * delvewheel renamed with a content hash (libnvjpeg.02b6d700.so.12 in one release,
 * libnvjpeg.8dd2b5e6.so.12 in the next) is matched by its name without the hash when
 * no object has its exact key. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ws_compare.h"
#include "ws_compat.h"
#include "ws_conclude.h"
#include "ws_decoders.h"
#include "ws_decodeq.h"
#include "ws_inputs.h"
#include "ws_json.h"
#include "ws_quote.h"
#include "ws_run.h"

/* What one object covers, reduced to names. */
struct cover {
	char *key;
	struct ws_strpool archs;      /* "sm_90", "compute_120", "lto_90" */
	struct ws_strpool kernels;
};

struct side {
	struct cover *v;
	uint32_t n, cap;
	struct ws_strpool keys;       /* distinct keys, so matching two sides is linear */
	uint32_t *first, firstcap;    /* keys index -> the first cover with that key */
	struct ws_strpool hkeys;      /* the same without vendoring hashes (unhashed_key) */
	uint32_t *hfirst, hfirstcap;
	uint32_t errors;
};

static bool hex_run(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)p[i]) || isupper((unsigned char)p[i]))
			return false;
	return true;
}

/* key without the content hash that wheel repair tools put into a vendored library's
 * name: auditwheel writes "libz-1a2b3c4d.so.1" (torch's own repair "libz.1a2b3c4d.so.1"),
 * delvewheel "libopenblas-<32 hex>.dll". Only the last path component is looked at, and
 * only one hash is removed; the result is key itself where there is none. */
static void unhashed_key(const char *key, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s", key);
	const char *slash = strrchr(out, '/'), *bang = strrchr(out, '!');
	char *base = out + (slash > bang ? slash - out + 1 : bang ? bang - out + 1 : 0);
	for (char *p = base + 1; *p; p++) {
		if (*p != '-' && *p != '.')
			continue;
		size_t h = hex_run(p + 1, 8) && p[9] == '.' ? 8 : hex_run(p + 1, 32) && p[33] == '.' ? 32 : 0;
		if (!h)
			continue;
		/* a shared library's name: ".so" after the hash (an ELF) or ".dll" right after it */
		const char *rest = p + 1 + h;
		if (strstr(rest, ".so") || !strcasecmp(rest, ".dll") || !strcasecmp(rest, ".pyd")) {
			memmove(p, rest, strlen(rest) + 1);
			return;
		}
	}
}

static void side_add(struct side *s, const char *prefix, struct ws_artifact *a)
{
	if (ws_judge(a, NULL, 0, NULL) < 0)      /* the roles, which do not depend on a target */
		s->errors++;
	for (uint32_t i = 0; i < a->nobjects; i++) {
		const struct ws_object *o = &a->objects[i];
		if (!ws_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v)) {
			s->errors++;
			return;
		}
		struct cover *c = &s->v[s->n++];
		memset(c, 0, sizeof *c);
		char key[2048];
		if (o->member)
			snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "!" : "", o->member);
		else
			snprintf(key, sizeof key, "%s", prefix);
		c->key = ws_strdup(key);
		/* room for a new key's first cover before the key goes in, so the two never disagree */
		uint32_t nkeys = s->keys.n, ki = UINT32_MAX;
		if (c->key && ws_grow((void **)&s->first, &s->firstcap, nkeys + 1, sizeof *s->first))
			ki = ws_strpool_intern(&s->keys, key, strlen(key));
		if (ki == UINT32_MAX) {
			s->n--;
			free(c->key);
			s->errors++;
			return;
		}
		if (ki == nkeys)
			s->first[ki] = s->n - 1;
		char hkey[sizeof key];
		unhashed_key(key, hkey, sizeof hkey);
		uint32_t nh = s->hkeys.n, hi = UINT32_MAX;
		if (ws_grow((void **)&s->hfirst, &s->hfirstcap, nh + 1, sizeof *s->hfirst))
			hi = ws_strpool_intern(&s->hkeys, hkey, strlen(hkey));
		if (hi == UINT32_MAX)
			s->errors++;
		else if (hi == nh)
			s->hfirst[hi] = s->n - 1;
		/* architectures of the code that matters: not device-link stubs, and link
		 * inputs only where the object is nothing but link inputs */
		bool link_only = ws_object_link_only(o);
		for (uint32_t k = 0; k < o->nfatbins; k++) {
			if (!ws_fatbin_carries_code(&o->fatbins[k], link_only))
				continue;
			for (uint32_t e = 0; e < o->fatbins[k].nentries; e++) {
				const struct ws_entry *en = &o->fatbins[k].entries[e];
				ws_strpool_intern(&c->archs, en->name, strlen(en->name));
			}
		}
		for (uint32_t k = 0; k < o->kernels.n; k++)
			ws_strpool_intern(&c->kernels, o->kernels.str[k], strlen(o->kernels.str[k]));
	}
	s->errors += a->nerrors;
	ws_conclude_errors(a, 0);             /* said as a scan says them; any makes the exit status 3 */
}

static void side_free(struct side *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		ws_strpool_free(&s->v[i].archs);
		ws_strpool_free(&s->v[i].kernels);
	}
	free(s->v);
	free(s->first);
	ws_strpool_free(&s->keys);
	free(s->hfirst);
	ws_strpool_free(&s->hkeys);
}

static int load_side(const struct ws_config *cfg, struct ws_pool *pool, struct ws_decoders *decoders,
		     const char *path, struct side *s)
{
	struct stat st;
	struct ws_scan_opts so = {.lim = &cfg->lim, .want_kernels = cfg->want_kernels, .list_kernels = true,
				  .offload = &ws_pool_offload, .pool = pool, .decoders = decoders};
	memset(s, 0, sizeof *s);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct ws_config c = *cfg;
		const char *dirs[1] = {path};
		c.paths = NULL;
		c.npaths = 0;
		c.dirs = dirs;
		c.ndirs = 1;
		c.files_from = NULL;
		c.shard_n = 0;
		struct ws_inputs in;
		if (ws_inputs_collect(&c, &in) < 0)
			return -1;
		size_t plen = strlen(path);
		for (size_t i = 0; i < in.n; i++) {
			if (in.v[i].error) {         /* a directory the walk could not read */
				fprintf(stderr, "wheelscan: '%s': %s\n", ws_q_text(in.v[i].path), ws_q_text(in.v[i].error));
				s->errors++;
				continue;
			}
			struct ws_artifact *a = ws_scan_path(in.v[i].path, cfg, &so, NULL);
			if (!a)
				continue;
			const char *rel = in.v[i].path + plen;
			while (*rel == '/')
				rel++;
			side_add(s, rel, a);
			ws_artifact_free(a);
		}
		ws_inputs_free(&in);
		return 0;
	}
	struct ws_artifact *a = ws_scan_path(path, cfg, &so, NULL);
	if (!a)
		return -1;
	/* a single file: its objects are keyed by member path only, so two releases match */
	side_add(s, "", a);
	ws_artifact_free(a);
	return 0;
}

static const struct cover *find_exact(const struct side *s, const char *key)
{
	uint32_t i = ws_strpool_find(&s->keys, key, strlen(key));
	return i == UINT32_MAX ? NULL : &s->v[s->first[i]];
}

/* The cover of s with this key, else one whose key differs only by a vendoring hash and
 * which other (the side key comes from) has no exact match for: a renamed library is
 * the same library, but two objects that both exist on both sides are matched as named. */
static const struct cover *find(const struct side *s, const struct side *other, const char *key)
{
	const struct cover *c = find_exact(s, key);
	if (c)
		return c;
	char hkey[2048];
	unhashed_key(key, hkey, sizeof hkey);
	uint32_t i = ws_strpool_find(&s->hkeys, hkey, strlen(hkey));
	if (i == UINT32_MAX)
		return NULL;
	c = &s->v[s->hfirst[i]];
	return find_exact(other, c->key) ? NULL : c;
}

static bool pool_has(const struct ws_strpool *p, const char *s)
{
	return ws_strpool_find(p, s, strlen(s)) != UINT32_MAX;
}

/* Names in a but not in b, space separated into buf; returns how many. */
static size_t diff(const struct ws_strpool *a, const struct ws_strpool *b, struct ws_buf *buf)
{
	size_t n = 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (!pool_has(b, a->str[i])) {
			ws_buf_printf(buf, "%s%s", n ? " " : "", a->str[i]);
			n++;
		}
	return n;
}

/* "k": "sm_80 sm_90" (or NULL) -> "k":["sm_80","sm_90"]: architecture names hold no spaces. */
static void json_words(struct ws_buf *b, const char *k, const char *words)
{
	ws_json_key(b, k);
	ws_buf_add(b, "[", 1);
	for (const char *p = words; p && *p;) {
		size_t n = strcspn(p, " ");
		char w[64];
		snprintf(w, sizeof w, "%.*s", (int)n, p);
		ws_json_str(b, w);
		ws_buf_add(b, ",", 1);
		p += n;
		p += *p == ' ';
	}
	ws_json_close(b, ']');
}

int ws_compare_command(const struct ws_config *cfg)
{
	const char *newpath = cfg->npaths ? cfg->paths[0] : cfg->dirs[0];
	struct side old, neu;
	struct ws_pool *pool = ws_pool_new(cfg->jobs);
	struct ws_decoders *decoders = ws_decoders_new();
	int loaded = load_side(cfg, pool, decoders, cfg->baseline, &old) == 0 &&
		     load_side(cfg, pool, decoders, newpath, &neu) == 0;
	ws_pool_free(pool);
	ws_decoders_free(decoders);
	if (!loaded) {
		fprintf(stderr, "wheelscan: out of memory\n");
		return 3;
	}
	bool json = cfg->format == WS_FMT_JSON || cfg->format == WS_FMT_JSONL;
	struct ws_buf out = {0};
	size_t dropped_archs = 0, dropped_objects = 0;
	if (json) {
		ws_buf_add(&out, "{", 1);
		ws_json_kv_u64(&out, "schema_version", WS_SCHEMA_VERSION);
		ws_json_kv_str(&out, "baseline", cfg->baseline);
		ws_json_kv_str(&out, "new", newpath);
		ws_json_key(&out, "objects");
		ws_buf_add(&out, "[", 1);
	} else {
		ws_buf_printf(&out, "baseline %s\n     new %s\n", ws_q_text(cfg->baseline), ws_q_text(newpath));
	}
	/* objects of the new side, then objects only the old side has */
	for (int pass = 0; pass < 2; pass++) {
		const struct side *s = pass ? &old : &neu;
		for (size_t i = 0; i < s->n; i++) {
			const struct cover *n = pass ? NULL : &s->v[i];
			const struct cover *o = pass ? &s->v[i] : find(&old, &neu, s->v[i].key);
			if (pass && find(&neu, &old, o->key))
				continue;
			static const struct ws_strpool empty;
			const struct ws_strpool *oa = o ? &o->archs : &empty, *na = n ? &n->archs : &empty;
			const struct ws_strpool *ok = o ? &o->kernels : &empty, *nk = n ? &n->kernels : &empty;
			struct ws_buf add = {0}, drop = {0}, kadd = {0}, kdrop = {0};
			size_t nadd = diff(na, oa, &add), ndrop = diff(oa, na, &drop);
			size_t nkadd = diff(nk, ok, &kadd), nkdrop = diff(ok, nk, &kdrop);
			const char *key = (n ? n : o)->key;
			const char *state = !o ? "added" : !n ? "dropped" : (nadd || ndrop || nkadd || nkdrop) ? "changed" : "same";
			dropped_archs += ndrop;
			dropped_objects += !n && oa->n;
			if (json) {
				ws_buf_add(&out, "{", 1);
				ws_json_kv_str(&out, "key", key);
				if (n && o && strcmp(n->key, o->key))
					ws_json_kv_str(&out, "baseline_key", o->key);
				ws_json_kv_str(&out, "state", state);
				json_words(&out, "archs_added", add.p);
				json_words(&out, "archs_dropped", drop.p);
				ws_json_kv_u64(&out, "kernels_added", nkadd);
				ws_json_kv_u64(&out, "kernels_dropped", nkdrop);
				ws_json_close(&out, '}');
			} else if (strcmp(state, "same") != 0 || cfg->verbose) {
				if (n && o && strcmp(n->key, o->key))   /* names: ws_quote.h */
					ws_buf_printf(&out, "  %-8s %s (was %s)\n", state, ws_q_text(key), ws_q_text(o->key));
				else
					ws_buf_printf(&out, "  %-8s %s\n", state, ws_q_text(key));
				if (nadd)
					ws_buf_printf(&out, "           + %s\n", ws_q_text(add.p));
				if (ndrop)
					ws_buf_printf(&out, "           - %s\n", ws_q_text(drop.p));
				if (nkadd || nkdrop)
					ws_buf_printf(&out, "           kernels: %zu added, %zu dropped\n", nkadd, nkdrop);
				if (cfg->verbose && nkdrop)
					ws_buf_printf(&out, "           dropped kernels: %s\n", ws_q_text(kdrop.p));
			}
			ws_buf_free(&add);
			ws_buf_free(&drop);
			ws_buf_free(&kadd);
			ws_buf_free(&kdrop);
		}
	}
	bool regressed = dropped_archs || dropped_objects;
	if (json) {
		ws_json_close(&out, ']');
		ws_json_kv_u64(&out, "dropped_archs", dropped_archs);
		ws_json_kv_u64(&out, "dropped_objects", dropped_objects);
		ws_json_kv_bool(&out, "regressed", regressed);
		ws_json_close(&out, '}');
		out.len--;                       /* the document's own trailing comma */
		ws_buf_puts(&out, "\n");
	} else
		ws_buf_printf(&out, "%s: %zu architecture%s dropped, %zu object%s with device code dropped\n",
			      regressed ? "REGRESSION" : "no regression", dropped_archs, dropped_archs == 1 ? "" : "s",
			      dropped_objects, dropped_objects == 1 ? "" : "s");
	if (out.p)
		fputs(out.p, stdout);
	ws_buf_free(&out);
	int rc = old.errors || neu.errors ? 3 : (cfg->no_regress && regressed) ? 1 : 0;
	side_free(&old);
	side_free(&neu);
	return rc;
}
