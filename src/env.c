/* env.c - `wheelscan --env`: the CUDA driver, its devices, the probe kernel and the
 * CUDA_* variables, as text or JSON. A machine without a driver gets a clear note, exit 0. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_compare.h"
#include "ws_compat.h"
#include "ws_live.h"
#include "ws_report.h"
#include "ws_util.h"

static const char *const env_vars[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT",
	"CUDA_LAUNCH_BLOCKING",
};

int ws_env_command(const struct ws_config *cfg)
{
	char note[512] = "";
	struct ws_live *l = ws_live_open(WS_LIVE_PROBE, note, sizeof note);
	if (cfg->format == WS_FMT_TEXT || cfg->format == WS_FMT_MARKDOWN) {
		ws_live_print_env(stdout, l, note);
		ws_live_close(l);
		return 0;
	}
	struct ws_buf b = {0};
	char v[32];
	ws_buf_printf(&b, "{\"schema_version\":%d,\"tool\":\"wheelscan %s\",\"driver\":", WS_SCHEMA_VERSION,
		      WS_VERSION);
	ws_json_str(&b, l ? ws_cuda_str(ws_live_driver_version(l), v, sizeof v) : NULL);
	ws_buf_puts(&b, ",\"note\":");
	ws_json_str(&b, l ? NULL : note);
	ws_buf_puts(&b, ",\"devices\":[");
	const struct ws_device *dev = NULL;
	size_t n = l ? ws_live_devices(l, &dev) : 0;
	for (size_t i = 0; i < n; i++) {
		ws_buf_printf(&b, "%s{\"index\":%d,\"name\":", i ? "," : "", dev[i].index);
		ws_json_str(&b, dev[i].name);
		ws_buf_printf(&b, ",\"cc\":\"%d.%d\",\"memory\":%llu,\"probe_ok\":%s,\"probe\":", dev[i].cc_major,
			      dev[i].cc_minor, (unsigned long long)dev[i].memory,
			      dev[i].probe_ran && dev[i].probe == 0 ? "true" : "false");
		ws_json_str(&b, dev[i].probe_note);
		ws_buf_puts(&b, "}");
	}
	ws_buf_puts(&b, "],\"env\":{");
	for (size_t i = 0; i < sizeof env_vars / sizeof *env_vars; i++) {
		ws_buf_printf(&b, "%s\"%s\":", i ? "," : "", env_vars[i]);
		ws_json_str(&b, ws_live_user_env(env_vars[i]));
	}
	ws_buf_puts(&b, "}}\n");
	if (b.p)
		fputs(b.p, stdout);
	ws_buf_free(&b);
	ws_live_close(l);
	return 0;
}
