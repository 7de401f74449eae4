/* open.c - the one opener (ws_open.h): every format's bidder is asked about an input and
 * the highest bid wins, the first of equal ones, as libarchive's choose_format does; the
 * table below lists the formats, one file each, as libarchive's
 * archive_read_support_format_all.c does. A file, standard input, a member of an archive
 * and a directory are all chosen here. */
#include <string.h>

#include "ws_open.h"

extern const struct ws_archive_format ws_format_tar, ws_format_deb, ws_format_conda, ws_format_zip, ws_format_oci;

/* In the order a tie is broken in (no two bid the same today). */
static const struct ws_archive_format *const formats[] = {
	&ws_format_deb,                /* source_pack.c */
	&ws_format_conda,              /* source_pack.c */
	&ws_format_tar,                /* source_pack.c */
	&ws_format_zip,                /* zipsrc.c */
	&ws_format_oci,                /* image_layout.c */
};

const struct ws_archive_format *ws_open(const struct ws_open_in *in)
{
	const struct ws_archive_format *best = NULL;
	int top = 0;
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		int b = formats[i]->bid(in);
		if (b > top) {
			top = b;
			best = formats[i];
		}
	}
	return best;
}

const struct ws_archive_format *ws_open_named(const char *name)
{
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}
