/* decoders.c - the stack that lends decode contexts (decoder.c) to whichever scan or
 * payload task decodes next: as many exist as ever decoded at once, and none hides in a
 * thread. The decoders themselves know nothing of threads. */
#include <pthread.h>
#include <stdlib.h>

#include "ws_decoders.h"
#include "ws_util.h"

struct ws_decoders {
	pthread_mutex_t mu;
	struct ws_decoder **v;         /* the idle ones */
	uint32_t n, cap;
};

struct ws_decoders *ws_decoders_new(void)
{
	struct ws_decoders *ds = calloc(1, sizeof *ds);
	if (ds)
		pthread_mutex_init(&ds->mu, NULL);
	return ds;
}

void ws_decoders_free(struct ws_decoders *ds)
{
	if (!ds)
		return;
	for (uint32_t i = 0; i < ds->n; i++)
		ws_decoder_free(ds->v[i]);
	free(ds->v);
	pthread_mutex_destroy(&ds->mu);
	free(ds);
}

struct ws_decoder *ws_decoder_take(struct ws_decoders *ds)
{
	struct ws_decoder *dc = NULL;
	if (ds) {
		pthread_mutex_lock(&ds->mu);
		if (ds->n)
			dc = ds->v[--ds->n];
		pthread_mutex_unlock(&ds->mu);
	}
	return dc ? dc : ws_decoder_new();
}

void ws_decoder_give(struct ws_decoders *ds, struct ws_decoder *dc)
{
	if (!dc)
		return;
	if (!ds) {
		ws_decoder_free(dc);
		return;
	}
	pthread_mutex_lock(&ds->mu);
	bool kept = ws_grow((void **)&ds->v, &ds->cap, ds->n + 1, sizeof *ds->v);
	if (kept)
		ds->v[ds->n++] = dc;
	pthread_mutex_unlock(&ds->mu);
	if (!kept)
		ws_decoder_free(dc);
}
