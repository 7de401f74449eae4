/* cudalive.c - the live check's parent side, the same on every platform: the workers'
 * start-up (their hello and device list), module loads with time limits, restarts after a
 * crash or a hang, and --env's text. The workers speak src/live_wire.h's protocol; how one is
 * started, talked to and ended is the platform's (src/live_proc.h). wheelscan itself never
 * loads the driver. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_proc.h"
#include "live_wire.h"
#include "ws_live.h"
#include "ws_quote.h"

struct worker {
	struct live_proc *proc;    /* NULL when not running */
	bool nojit;
};

struct ws_live {
	unsigned flags;
	struct live_spawner *spawner;
	struct worker w[2];        /* [0] normal, [1] JIT disabled */
	bool nojit_ok;
	int driver;
	struct ws_device dev[WS_LIVE_MAX_DEVICES];
	size_t ndev;
	unsigned timeout_ms, start_ms;
	char libpath[1024];
	char last[256];
};

static void stop_worker(struct ws_live *l, struct worker *w, bool force, char *why, size_t whylen)
{
	if (!w->proc)
		return;
	live_proc_end(l->spawner, w->proc, force, why, whylen);
	w->proc = NULL;
}

/* Starts a worker and reads its hello (and device list). 0 on success; otherwise -1 with the
 * reason in note. */
static int start_worker(struct ws_live *l, struct worker *w, unsigned flags, char *note, size_t len)
{
	struct ws_live_hello h;
	if (!(w->proc = live_proc_start(l->spawner, flags, w->nojit, l->start_ms, note, len)))
		return -1;
	int r = live_proc_io(w->proc, &h, sizeof h, false, live_now_ms() + l->start_ms);
	if (r == 0 && h.magic != WS_LIVE_MAGIC)
		r = -1;
	if (r == 0 && h.status != 0) {
		h.note[sizeof h.note - 1] = 0;
		snprintf(note, len, "%s", h.note);
		stop_worker(l, w, false, NULL, 0);
		return -1;
	}
	if (r == 0 && h.ndevices > WS_LIVE_MAX_DEVICES)
		r = -1;
	struct ws_device dev[WS_LIVE_MAX_DEVICES];
	if (r == 0)
		r = live_proc_io(w->proc, dev, sizeof dev[0] * h.ndevices, false, live_now_ms() + l->start_ms);
	if (r != 0) {
		char why[128];
		stop_worker(l, w, true, why, sizeof why);
		if (r == -2)
			snprintf(note, len, "no CUDA driver: the CUDA worker for '%s' did not start within %u ms",
			         l->libpath, l->start_ms);
		else
			snprintf(note, len, "no CUDA driver: %s while starting with '%s'", why, l->libpath);
		return -1;
	}
	if (w == &l->w[0] && l->ndev == 0) {   /* the first start of the main worker fills the list */
		l->driver = h.driver;
		l->ndev = h.ndevices;
		memcpy(l->dev, dev, sizeof dev[0] * h.ndevices);
		for (size_t i = 0; i < l->ndev; i++) {
			l->dev[i].name[sizeof l->dev[i].name - 1] = 0;
			l->dev[i].probe_note[sizeof l->dev[i].probe_note - 1] = 0;
		}
	}
	return 0;
}

static unsigned env_ms(void)
{
	const char *s = getenv("WHEELSCAN_LIVE_TIMEOUT_MS");
	char *end;
	if (!s || !*s)
		return 0;
	unsigned long v = strtoul(s, &end, 10);
	return *end == 0 && v > 0 && v <= 3600000ul ? (unsigned)v : 0;
}

struct ws_live *ws_live_open(unsigned flags, char *note, size_t notelen)
{
	char dummy[8];
	if (!note || notelen == 0) {
		note = dummy;
		notelen = sizeof dummy;
	}
	note[0] = 0;
	struct ws_live *l = calloc(1, sizeof *l);
	if (!l) {
		snprintf(note, notelen, "no CUDA driver: out of memory");
		return NULL;
	}
	const char *lib = getenv("WHEELSCAN_LIBCUDA");
	if (lib && *lib)
		snprintf(l->libpath, sizeof l->libpath, "%s", lib);
	else
		live_default_driver(l->libpath, sizeof l->libpath);
	l->flags = flags;
	l->w[1].nojit = true;
	unsigned ms = env_ms();
	l->timeout_ms = ms ? ms : WS_LIVE_DEFAULT_TIMEOUT_MS;
	l->start_ms = ms ? ms : WS_LIVE_DEFAULT_START_TIMEOUT_MS;

	if (!(l->spawner = live_spawner_open(l->libpath))) {
		snprintf(note, notelen, "no CUDA driver: cannot start a worker process for '%s': %s",
		         l->libpath, strerror(errno));
		ws_live_close(l);
		return NULL;
	}
	if (start_worker(l, &l->w[0], flags & WS_LIVE_PROBE, note, notelen) != 0) {
		ws_live_close(l);
		return NULL;
	}
	if (flags & WS_LIVE_NOJIT_PASS) {
		l->nojit_ok = start_worker(l, &l->w[1], 0, l->last, sizeof l->last) == 0;
		if (!l->nojit_ok)
			snprintf(note, notelen, "the JIT-disabled pass is not available: %s", l->last);
	}
	return l;
}

void ws_live_close(struct ws_live *l)
{
	if (!l)
		return;
	for (int i = 0; i < 2; i++) {
		struct ws_live_req q = { .op = WS_LIVE_OP_QUIT };
		if (l->w[i].proc)
			live_proc_io(l->w[i].proc, &q, sizeof q, true, live_now_ms() + 1000);
		stop_worker(l, &l->w[i], false, NULL, 0);
	}
	live_spawner_close(l->spawner);
	free(l);
}

int ws_live_driver_version(const struct ws_live *l)
{
	return l ? l->driver : 0;
}

size_t ws_live_devices(const struct ws_live *l, const struct ws_device **out)
{
	if (out)
		*out = l ? l->dev : NULL;
	return l ? l->ndev : 0;
}

void ws_live_set_timeout(struct ws_live *l, unsigned ms)
{
	if (l)
		l->timeout_ms = ms ? ms : WS_LIVE_DEFAULT_TIMEOUT_MS;
}

unsigned ws_live_timeout(const struct ws_live *l)
{
	return l ? l->timeout_ms : 0;
}

bool ws_live_has_nojit(const struct ws_live *l)
{
	return l && l->nojit_ok;
}

const char *ws_live_last_note(const struct ws_live *l)
{
	return l ? l->last : "";
}

int ws_live_load(struct ws_live *l, int dev, const uint8_t *p, size_t n, bool nojit)
{
	if (!l || !p || n == 0 || n > WS_LIVE_MAX_IMAGE || dev < 0 || (size_t)dev >= l->ndev ||
	    (nojit && !l->nojit_ok))
		return WS_LIVE_NOT_RUN;
	struct worker *w = &l->w[nojit ? 1 : 0];
	l->last[0] = 0;
	/* Restarted lazily: a crash or timeout on the last container of a run costs no cuInit. */
	if (!w->proc && start_worker(l, w, 0, l->last, sizeof l->last) != 0)
		return WS_LIVE_NOT_RUN;

	struct ws_live_req q = { .op = WS_LIVE_OP_LOAD, .dev = dev, .len = n };
	int32_t res;
	long long deadline = live_now_ms() + l->timeout_ms;
	int r = live_proc_io(w->proc, &q, sizeof q, true, deadline);
	if (r == 0)
		r = live_proc_io(w->proc, (void *)p, n, true, deadline);
	if (r == 0)
		r = live_proc_io(w->proc, &res, sizeof res, false, deadline);
	if (r == 0)
		return res;
	char why[128];
	stop_worker(l, w, r == -2, why, sizeof why);
	if (r == -2) {
		snprintf(l->last, sizeof l->last, "cuModuleLoadData did not return within %u ms; worker killed",
		         l->timeout_ms);
		return WS_LIVE_TIMEOUT;
	}
	snprintf(l->last, sizeof l->last, "%s during cuModuleLoadData", why);
	return WS_LIVE_CRASH;
}

const char *ws_live_user_env(const char *name)
{
	/* wheelscan itself never changes these: the workers set their own copies after fork. */
	return name ? getenv(name) : NULL;
}

void ws_live_print_env(FILE *f, const struct ws_live *l, const char *note)
{
	static const char *const vars[] = {
		"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT",
		"CUDA_DISABLE_PTX_JIT", "CUDA_LAUNCH_BLOCKING",
	};
	const char *lib = getenv("WHEELSCAN_LIBCUDA");
	/* the driver's strings, a /proc file's and the environment's: shown escaped (ws_quote.h) */
	fprintf(f, "driver library: %s\n", ws_q_text(l ? l->libpath : lib && *lib ? lib : live_default_driver_shown()));
	live_print_kernel_driver(f);
	if (!l) {
		fprintf(f, "CUDA driver: none (%s)\n", ws_q_text(note && *note ? note : "not opened"));
	} else {
		fprintf(f, "CUDA driver: CUDA %d.%d (cuDriverGetVersion %d)\n",
		        l->driver / 1000, l->driver % 1000 / 10, l->driver);
		size_t ran = 0, ok = 0;
		for (size_t i = 0; i < l->ndev; i++) {
			const struct ws_device *d = &l->dev[i];
			fprintf(f, "device %d: %s, compute capability %d.%d (sm_%d%d), %.1f GiB",
			        d->index, ws_q_text(d->name), d->cc_major, d->cc_minor, d->cc_major, d->cc_minor,
			        (double)d->memory / (1024.0 * 1024 * 1024));
			if (d->probe_ran)
				fprintf(f, ", probe %s", ws_q_text(d->probe_note));
			fputc('\n', f);
			ran += d->probe_ran;
			ok += d->probe_ran && d->probe == 0;
		}
		if (!(l->flags & WS_LIVE_PROBE))
			fprintf(f, "probe kernel: not run\n");
		else
			fprintf(f, "probe kernel: ran on %zu of %zu device%s, %zu ok\n", ran, l->ndev,
			        l->ndev == 1 ? "" : "s", ok);
	}
	fprintf(f, "environment (as given to wheelscan):\n");
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = ws_live_user_env(vars[i]);
		fprintf(f, "  %s=%s\n", vars[i], ws_q_text(v ? v : "(unset)"));
	}
	fprintf(f, "live-check workers use CUDA_MODULE_LOADING=EAGER and clear CUDA_FORCE_PTX_JIT/"
	           "CUDA_DISABLE_PTX_JIT (the no-JIT pass sets CUDA_DISABLE_PTX_JIT=1)\n");
}
