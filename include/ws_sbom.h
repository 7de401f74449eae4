/* ws_sbom.h - --sbom-in (src/core/sbom.c): where in an existing CycloneDX JSON BOM
 * wheelscan's properties go, for the components that are scanned artifacts. */
#ifndef WS_SBOM_H
#define WS_SBOM_H

#include <stddef.h>
#include <stdint.h>

struct ws_err;

/* A scanned artifact as a BOM component is matched: by its SHA-256, its purl, its path. */
struct ws_sbom_artifact {
	char *path;
	char *sha256;                  /* hex, or NULL */
	char *purl;                    /* pkg:pypi/name@version, or NULL */
	char *props;                   /* its properties as JSON array items, "{...},{...}" */
	size_t matched;                /* components it was matched to */
};

enum ws_sbom_edit_kind {
	WS_SBOM_NEW_KEY,               /* at the component's '}': add a "properties" member */
	WS_SBOM_APPEND,                /* at its properties' ']': add items after the others */
	WS_SBOM_INTO_EMPTY,            /* at its empty properties' ']': the items alone */
};

struct ws_sbom_edit {
	size_t at;                     /* byte offset in the BOM: insert before this byte */
	const struct ws_sbom_artifact *art;
	enum ws_sbom_edit_kind kind;
};

/* Reads the BOM (n bytes, strict JSON, a CycloneDX document) and lists, in file order, the
 * insertions that annotate each component matching one of arts (components nested in
 * components included). Returns 0, or -1 with err: format ("what at byte N"), or memory. */
int ws_sbom_plan(const char *bom, size_t n, const struct ws_sbom_artifact *arts, size_t narts,
		 struct ws_sbom_edit **edits, size_t *nedits, struct ws_err *err);
/* The same, adding to *work the string comparisons its matching made: a few binary
 * searches per component (its hash, purl and locations against every artifact's, each
 * indexed once), not one pass over the artifacts per component. */
int ws_sbom_plan_counted(const char *bom, size_t n, const struct ws_sbom_artifact *arts, size_t narts,
			 struct ws_sbom_edit **edits, size_t *nedits, uint64_t *work, struct ws_err *err);

#endif
