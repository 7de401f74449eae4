/* walk.c - one artifact's walk through the format the opener chose (ws_open.h): the
 * format's open gives a source and the checks that ride along (struct ws_drive_check), the
 * driver (source.c, source_random.c) reads its members and tells the checks, and the
 * format's after and close steps end it. Also the zip API of
 * ws_zip.h (a zip known to be one: tests, the fuzzer) over the same walk. */
#include <string.h>

#include "ws_open.h"
#include "ws_zip.h"

int ws_walk(struct ws_artifact *a, const struct ws_archive_format *f, const struct ws_open_in *in, const struct ws_open_opts *o)
{
	uint32_t nerr0 = a->nerrors;
	struct ws_walk w = { .a = a, .in = in, .o = o };
	if (o && o->so)
		w.scan = *o->so;
	else
		w.scan.want_kernels = true;
	if (f->open(&w) == 0 && (w.src || w.rsrc)) {
		struct ws_drive *d = &w.d;
		ws_drive_init(d, a, &w.scan);
		if (w.label)
			d->label = w.label;
		d->progress = w.progress;
		d->input_src = w.input_stream ? w.src : NULL;
		d->scan_member = w.scan_member;
		d->scan_member_ctx = w.scan_member_ctx;
		for (unsigned i = 0; i < w.nchecks; i++)
			ws_drive_add_check(d, w.checks[i]);
		w.nchecks = 0;
		if (w.src)
			ws_drive_source(d, w.src, "", 1);
		else
			ws_drive_random(d, w.rsrc);
		if (f->after)
			f->after(&w);
		ws_drive_finish(d);
	}
	for (unsigned i = 0; i < w.nchecks; i++)    /* open failed after making them */
		w.checks[i]->ops->free(w.checks[i]);
	if (f->close)
		f->close(&w);
	return a->nerrors > nerr0 ? -1 : 0;
}

static int zip_walk(struct ws_artifact *a, const struct ws_open_in *in, const struct ws_zip_opts *zo)
{
	struct ws_zip_opts def;
	if (!zo) {
		ws_zip_opts_default(&def);
		zo = &def;
	}
	struct ws_open_opts o = { .so = zo->scan, .zip = zo };
	return ws_walk(a, ws_open_named("zip"), in, &o);
}

int ws_zip_scan_file(struct ws_artifact *a, const char *path, const struct ws_zip_opts *o)
{
	struct ws_open_in in = { .from = WS_FROM_FILE, .name = path, .fd = -1 };
	return zip_walk(a, &in, o);
}

int ws_zip_scan_memory(struct ws_artifact *a, const uint8_t *p, size_t n, const struct ws_zip_opts *o)
{
	struct ws_open_in in = { .from = WS_FROM_FILE, .fd = -1, .mem = p, .len = n };
	return zip_walk(a, &in, o);
}
