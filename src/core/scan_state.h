/* scan_state.h - one input's scan, shared by the core's two scan files: scan.c (what the
 * input is: sniffing, host ELF, PE, ar, bare cubins and PTX) and scan_fatbin.c (the fatbin
 * containers of one object: found by the magic, decoded entry by entry). Private to them. */
#ifndef WS_SCAN_STATE_H
#define WS_SCAN_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ws_decode.h"
#include "ws_window.h"

struct scan {
	struct ws_artifact *a;
	const struct ws_scan_opts *opt;
	struct ws_limits lim;
	struct ws_window *w;
	const char *member;            /* the input's name inside its artifact, or NULL */
	struct ws_decodeq *q;          /* payloads decoded on threads, or NULL: inline */
	struct ws_decoder *dc;         /* inline decoding's, borrowed on first use */
	struct ws_budget *budget;      /* the artifact's (opt's, or own below) */
	struct ws_budget own;
	bool want_release;             /* a bundled compiler's object: look for its release text */
	int release;                   /* what was found (12040), 0 none yet */
	uint64_t release_from;         /* searched for it up to here (each byte once) */
};

/* An error of object o (or of the input, o NULL), named "path!member". */
void ws_scan_obj_fail(const struct scan *s, const struct ws_object *o, enum ws_errcode code, const char *msg);
/* ... of kind "format". */
void ws_scan_obj_error(const struct scan *s, const struct ws_object *o, const char *msg);
/* A read that failed (the reader's error, reported with what was being read) or came up
 * short (the input is truncated). */
void ws_scan_window_error(const struct scan *s, const struct ws_object *o, const char *what);
/* An entry that could not be decoded: recorded on the entry and the object. */
void ws_scan_entry_fail(const struct scan *s, struct ws_object *o, struct ws_entry *e, enum ws_errcode code, const char *msg);
/* Takes n bytes of the artifact's decode budget for entry e; false (said) when spent. */
bool ws_scan_budget_decode(struct scan *s, struct ws_entry *e, uint64_t n);
/* The container's distinct kernels, from its entries' lists. */
void ws_scan_count_kernels(struct ws_fatbin *f);
/* Finds and decodes every fatbin container in [from, to) of the window (origin: the
 * object's first byte). 0, or -1 when the scan of the object must stop. */
int ws_scan_search_containers(struct scan *s, struct ws_object *o, uint64_t origin, uint64_t from, uint64_t to);
/* The object's decoded payloads applied (waiting for queued ones) and its kernels counted. */
void ws_scan_finish_object(struct scan *s, struct ws_object *o);

/* The dynamic linking facts of a shared object (scan_dyn.c): where PT_DYNAMIC lies (from
 * the program headers), its bytes once the search reaches them, and the facts kept on the
 * artifact (ws_dynlib.h) once the section table is known. */
struct ws_dynloc {
	bool found;
	uint64_t dyn_at, dyn_size;     /* absolute window offsets */
	uint8_t *dynamic;              /* copied bytes, or NULL */
};
struct ws_elf_sections;
bool ws_scan_dyn_wanted(uint16_t elf_type);
void ws_scan_dyn_locate(struct scan *s, uint64_t origin, uint64_t limit, const uint8_t *hdr, size_t hdrlen,
			struct ws_dynloc *loc);
void ws_scan_dyn_capture(struct scan *s, struct ws_dynloc *loc);
void ws_scan_dyn_elf(struct scan *s, const char *member, uint64_t origin, uint64_t limit,
		     const struct ws_elf_sections *sec, struct ws_dynloc *loc, bool gpu);
void ws_scan_dyn_done(struct ws_dynloc *loc);
void ws_scan_dyn_pe(struct scan *s, const char *member, uint64_t origin, uint64_t limit, const uint8_t *hdr,
		    size_t hdrlen, bool gpu);

#endif
