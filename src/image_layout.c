/* image_layout.c - the OCI layout format of the opener (ws_open.h): a directory holding
 * oci-layout is one artifact, its files read through the files source (source_files.c)
 * and the member driver (source.c) as a tarball's members are, with the image check
 * (source_image.c) riding along. Apart from the check, so that the check never calls up
 * into the driver that calls it. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "ws_imgcheck.h"
#include "ws_open.h"
#include "ws_util.h"

/* A directory that holds a regular file "oci-layout". */
static int oci_bid(const struct ws_open_in *in)
{
	char p[4096];
	struct stat st;
	if (in->from != WS_FROM_DIR || strlen(in->name) + sizeof "/oci-layout" > sizeof p)
		return 0;
	ws_fmt(p, sizeof p, "%s/oci-layout", in->name);
	return lstat(p, &st) == 0 && S_ISREG(st.st_mode) ? WS_BID_NAME : 0;
}

static int oci_open(struct ws_walk *w)
{
	struct ws_artifact *a = w->a;
	struct ws_err e = { 0 };
	struct ws_limits lim;
	a->type = WS_ART_IMAGE;
	if (w->scan.lim)
		lim = *w->scan.lim;
	else
		ws_limits_default(&lim);
	/* every regular file below dir, sorted, no link followed: oci-layout, index.json and
	 * blobs/sha256/<hex> are its members as they are a tarball's (the files source counts
	 * no compressed bytes: no progress) */
	const char *label = a->path ? a->path : "-";
	if (!(w->src = ws_dir_open(w->in->name, lim.max_members, &e))) {
		ws_artifact_fail(a, label, e.code, "%s", e.msg);
		return -1;
	}
	struct ws_imgcheck *c = ws_imgcheck_new();
	if (!c) {
		ws_artifact_fail(a, label, WS_E_MEMORY, "out of memory");
		return -1;
	}
	ws_walk_check(w, ws_imgcheck_check(c));
	return 0;
}

static void oci_after(struct ws_walk *w)
{
	w->a->size = w->a->bytes_inflated;          /* the bytes of its files */
}

static void oci_close(struct ws_walk *w)
{
	ws_source_close(w->src);
}

const struct ws_archive_format ws_format_oci = {
	.name = "oci-layout", .bid = oci_bid, .open = oci_open, .after = oci_after, .close = oci_close,
};
