/* image_layout.c - an OCI image layout directory (one holding oci-layout) as one artifact:
 * its files are read through the files source (source_files.c) and the member driver
 * (source.c) as a tarball's members are, with the image check (source_image.c) riding
 * along. Apart from the check, so that the check never calls up into the driver that
 * calls it. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "ws_image.h"
#include "ws_source.h"
#include "ws_util.h"

bool ws_image_is_layout(const char *dir)
{
	char p[4096];
	struct stat st;
	if (strlen(dir) + sizeof "/oci-layout" > sizeof p)
		return false;
	ws_fmt(p, sizeof p, "%s/oci-layout", dir);
	return lstat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int ws_image_scan_dir(struct ws_artifact *a, const char *dir, const struct ws_scan_opts *so, uint64_t *progress)
{
	uint32_t nerr0 = a->nerrors;
	struct ws_err e = { 0 };
	struct ws_drive d;
	a->type = WS_ART_IMAGE;
	ws_drive_init(&d, a, so);
	(void)progress;                             /* the files source counts no compressed bytes */
	/* every regular file below dir, sorted, no link followed: oci-layout, index.json and
	 * blobs/sha256/<hex> are its members as they are a tarball's */
	struct ws_source *src = ws_dir_open(dir, d.lim.max_members, &e);
	if (!src) {
		ws_artifact_fail(a, d.label, e.code, "%s", e.msg);
		return -1;
	}
	if (!(d.image = ws_imgcheck_new())) {
		ws_artifact_fail(a, d.label, WS_E_MEMORY, "out of memory");
		ws_source_close(src);
		return -1;
	}
	ws_drive_source(&d, src, "", 1);
	a->size = a->bytes_inflated;                /* the bytes of its files */
	ws_drive_finish(&d);
	ws_source_close(src);
	return a->nerrors > nerr0 ? -1 : 0;
}
