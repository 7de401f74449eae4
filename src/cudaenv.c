/* cudaenv.c - `wheelscan --env`: the CUDA driver, its devices, the probe kernel and the
 * CUDA_* variables, as text or JSON. A machine without a driver gets a clear note, exit 0. */
#include <stdio.h>
#include <stdlib.h>

#include "ws_compare.h"
#include "ws_json.h"
#include "ws_live.h"
#include "ws_sandbox.h"

static const char *const env_vars[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT",
	"CUDA_LAUNCH_BLOCKING",
};

int ws_env_command(const struct ws_config *cfg)
{
	char note[512] = "";
	struct ws_live *l = ws_live_open(WS_LIVE_PROBE, note, sizeof note);
	struct ws_sandbox_status sb;
	ws_sandbox_probe(&sb);
	if (cfg->format == WS_FMT_TEXT || cfg->format == WS_FMT_MARKDOWN) {
		ws_live_print_env(stdout, l, note);
		char line[600];
		ws_sandbox_describe(&sb, line, sizeof line, "\n  ");
		printf("sandbox while decoding%s:\n  %s\n", cfg->sandbox ? "" : " (off: --no-sandbox)", line);
		ws_live_close(l);
		return 0;
	}
	struct ws_buf b = {0};
	char v[32], tool[64];
	snprintf(tool, sizeof tool, "wheelscan %s", WS_VERSION);
	ws_buf_add(&b, "{", 1);
	ws_json_kv_u64(&b, "schema_version", WS_SCHEMA_VERSION);
	ws_json_kv_str(&b, "tool", tool);
	ws_json_kv_str(&b, "driver", l ? ws_cuda_str(ws_live_driver_version(l), v, sizeof v) : NULL);
	ws_json_kv_str(&b, "note", l ? NULL : note);
	ws_json_key(&b, "devices");
	ws_buf_add(&b, "[", 1);
	const struct ws_device *dev = NULL;
	size_t n = l ? ws_live_devices(l, &dev) : 0;
	for (size_t i = 0; i < n; i++) {
		char cc[16];
		snprintf(cc, sizeof cc, "%d.%d", dev[i].cc_major, dev[i].cc_minor);
		ws_buf_add(&b, "{", 1);
		ws_buf_printf(&b, "\"index\":%d,", dev[i].index);
		ws_json_kv_str(&b, "name", dev[i].name);
		ws_json_kv_str(&b, "cc", cc);
		ws_json_kv_u64(&b, "memory", dev[i].memory);
		ws_json_kv_bool(&b, "probe_ok", dev[i].probe_ran && dev[i].probe == 0);
		ws_json_kv_str(&b, "probe", dev[i].probe_note);
		ws_json_close(&b, '}');
	}
	ws_json_close(&b, ']');
	ws_json_key(&b, "env");
	ws_buf_add(&b, "{", 1);
	for (size_t i = 0; i < sizeof env_vars / sizeof *env_vars; i++)
		ws_json_kv_str(&b, env_vars[i], ws_live_user_env(env_vars[i]));
	ws_json_close(&b, '}');
	ws_json_key(&b, "sandbox");
	ws_buf_add(&b, "{", 1);
	ws_json_kv_bool(&b, "enabled", cfg->sandbox);
	ws_json_kv_str(&b, "seccomp", sb.seccomp_note);
	ws_json_kv_u64(&b, "landlock_abi", (uint64_t)sb.landlock_abi);
	ws_json_kv_str(&b, "landlock", sb.landlock_note);
	ws_json_kv_str(&b, "capabilities", sb.caps_note);
	ws_json_close(&b, '}');
	ws_json_close(&b, '}');
	b.len--;                                   /* the document's own trailing comma */
	ws_buf_puts(&b, "\n");
	if (b.p)
		fputs(b.p, stdout);
	ws_buf_free(&b);
	ws_live_close(l);
	return 0;
}
