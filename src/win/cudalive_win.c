/* cudalive_win.c - ws_live.h on Windows. The live check is not in the Windows build yet:
 * ws_live_open finds no driver and says why, so --env, --gpu auto and --live report "no CUDA
 * driver" instead of guessing (src/win/README). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_live.h"
#include "ws_quote.h"

struct ws_live {
	int unused;
};

struct ws_live *ws_live_open(unsigned flags, char *note, size_t notelen)
{
	(void)flags;
	snprintf(note, notelen, "no CUDA driver: the live check (nvcuda.dll) is not in this Windows build");
	return NULL;
}

void ws_live_close(struct ws_live *l) { free(l); }
int ws_live_driver_version(const struct ws_live *l) { (void)l; return 0; }

size_t ws_live_devices(const struct ws_live *l, const struct ws_device **out)
{
	(void)l;
	*out = NULL;
	return 0;
}

void ws_live_set_timeout(struct ws_live *l, unsigned ms) { (void)l, (void)ms; }
unsigned ws_live_timeout(const struct ws_live *l) { (void)l; return WS_LIVE_DEFAULT_TIMEOUT_MS; }
bool ws_live_has_nojit(const struct ws_live *l) { (void)l; return false; }
const char *ws_live_last_note(const struct ws_live *l) { (void)l; return ""; }

int ws_live_load(struct ws_live *l, int dev, const uint8_t *p, size_t n, bool nojit)
{
	(void)l, (void)dev, (void)p, (void)n, (void)nojit;
	return WS_LIVE_NOT_RUN;
}

const char *ws_live_user_env(const char *name)
{
	return name ? getenv(name) : NULL;
}

void ws_live_print_env(FILE *f, const struct ws_live *l, const char *note)
{
	(void)l;
	static const char *const vars[] = {
		"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT",
		"CUDA_DISABLE_PTX_JIT", "CUDA_LAUNCH_BLOCKING",
	};
	fprintf(f, "driver library: nvcuda.dll\n");
	fprintf(f, "CUDA driver: none (%s)\n", ws_q_text(note && *note ? note : "not opened"));
	fprintf(f, "environment (as given to wheelscan):\n");
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = ws_live_user_env(vars[i]);
		fprintf(f, "  %s=%s\n", vars[i], ws_q_text(v ? v : "(unset)"));
	}
}
