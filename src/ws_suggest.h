/* ws_suggest.h - wheelscan --suggest (src/suggest.c). */
#ifndef WS_SUGGEST_H
#define WS_SUGGEST_H

struct ws_config;

/* Prints the builds of cfg->suggest's packages that run on each target; returns the exit
 * status: 0, 1 when some package has no build that runs there now, 2 for a package the
 * table does not know, 5 when --gpu auto finds no device. */
int ws_suggest_command(struct ws_config *cfg);

#endif
