/* ws_decoders.h - the decode contexts the pool's tasks borrow and give back (decoders.c) */
#ifndef WS_DECODERS_H
#define WS_DECODERS_H

#include "ws_decode.h"

/* A stack of decoders that tasks borrow and give back: as many exist as ever decoded at
 * once. ds NULL: take makes a fresh one and give frees it. */
struct ws_decoders;
struct ws_decoders *ws_decoders_new(void);
void ws_decoders_free(struct ws_decoders *ds);
struct ws_decoder *ws_decoder_take(struct ws_decoders *ds);
void ws_decoder_give(struct ws_decoders *ds, struct ws_decoder *dc);

#endif
