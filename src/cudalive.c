/* cudalive.c - the live check's parent side: spawner and worker processes, time limits, --env text.
 *
 * Process layout (the parent never loads libcuda):
 *
 *   wheelscan ──socketpair── spawner (forked by ws_live_open, single-threaded, never touches CUDA)
 *       │                       │ fork on request, passes the worker's socket back (SCM_RIGHTS)
 *       └──socketpair─────── worker(s): dlopen libcuda, cuInit, devices, probe, cuModuleLoadData
 *
 * Workers come from the spawner rather than from wheelscan itself because wheelscan may have
 * threads running by the time a crashed worker must be restarted, and fork from a threaded process
 * is not safe for a child that goes on to malloc and dlopen.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "live_wire.h"
#include "ws_live.h"
#include "ws_quote.h"

#define SP_SPAWN 1u
#define SP_WAIT 2u

struct sp_req {
	uint32_t op;
	uint32_t flags;            /* SP_SPAWN: WS_LIVE_* flags; SP_WAIT: ms before the kill */
	int32_t pid;
	uint32_t nojit;
};

struct worker {
	pid_t pid;
	int fd;                    /* -1 when not running */
	bool nojit;
};

struct ws_live {
	unsigned flags;
	pid_t spawner;
	int sfd;
	struct worker w[2];        /* [0] normal, [1] JIT disabled */
	bool nojit_ok;
	int driver;
	struct ws_device dev[WS_LIVE_MAX_DEVICES];
	size_t ndev;
	unsigned timeout_ms, start_ms;
	char libpath[1024];
	char last[256];
};

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads or writes exactly n bytes before the deadline (ms, CLOCK_MONOTONIC).
 * Returns 0, or -1 on EOF/error (the peer died), or -2 on timeout. */
static int io_full(int fd, void *buf, size_t n, bool wr, long long deadline)
{
	char *p = buf;
	while (n > 0) {
		long long left = deadline - now_ms();
		if (left <= 0)
			return -2;
		struct pollfd pf = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
		int pr = poll(&pf, 1, left > 1000000 ? 1000000 : (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -1;
		if (pr == 0)
			continue;
		ssize_t k = wr ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, p, n, MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void close_from(int keep)
{
	/* The spawner keeps only stdio and its socket: the workers must not hold wheelscan's files.
	 * close_range (Linux 5.9) does it in two calls; the loop is for older kernels, where it
	 * costs a call per possible descriptor (tens of thousands) before the scan starts. */
#ifdef SYS_close_range
	if (keep >= 3 && (keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		if (fd != keep)
			close(fd);
}

/* --- spawner process --- */

static void send_fd(int s, int32_t pid, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &pid, .iov_len = sizeof pid };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	memset(cbuf, 0, sizeof cbuf);
	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof cbuf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	while (sendmsg(s, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* The spawner's workers: the only processes it waits for or kills. wheelscan asks it to
 * do both, so that wheelscan itself, which may run in the sandbox, needs no kill(). */
#define MAX_KIDS 8

static int nkids(const pid_t *kids)
{
	int n = 0;
	for (int i = 0; i < MAX_KIDS; i++)
		n += kids[i] != 0;
	return n;
}

/* Waits up to ms for the worker pid to end, then kills it and waits; its wait status, or -1
 * when pid is not one of its workers. */
static int32_t reap_child(pid_t *kids, pid_t pid, unsigned ms)
{
	int i = 0;
	while (i < MAX_KIDS && (pid <= 0 || kids[i] != pid))
		i++;
	if (i == MAX_KIDS)
		return -1;
	int st = 0;
	long long until = now_ms() + ms;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (now_ms() >= until) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		struct timespec ts = {0, 5 * 1000000};
		nanosleep(&ts, NULL);
	}
	kids[i] = 0;
	return st;
}

static void spawner_main(int s, const char *libpath)
{
	struct sp_req q;
	pid_t kids[MAX_KIDS] = {0};
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	close_from(s);
	for (;;) {
		ssize_t k = recv(s, &q, sizeof q, MSG_WAITALL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k != (ssize_t)sizeof q)
			_exit(0);
		if (q.op == SP_WAIT) {
			int32_t v = reap_child(kids, q.pid, q.flags);
			while (send(s, &v, sizeof v, MSG_NOSIGNAL) < 0 && errno == EINTR)
				;
			continue;
		}
		int sv[2];
		pid_t pid = -1;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
			pid = nkids(kids) < MAX_KIDS ? fork() : -1;
			if (pid == 0) {
				close(s);
				close(sv[0]);
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				_exit(ws_live_worker_main(sv[1], libpath, q.flags, q.nojit != 0));
			}
			close(sv[1]);
			for (int i = 0; pid > 0 && i < MAX_KIDS; i++)
				if (kids[i] == 0) {
					kids[i] = pid;
					break;
				}
		} else {
			sv[0] = -1;
		}
		send_fd(s, pid, pid > 0 ? sv[0] : -1);
		if (sv[0] >= 0)
			close(sv[0]);
	}
}

/* --- parent side --- */

static int start_spawner(struct ws_live *l)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	fflush(NULL);   /* nothing buffered may be written twice */
	pid_t pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		spawner_main(sv[1], l->libpath);
		_exit(0);
	}
	close(sv[1]);
	l->spawner = pid;
	l->sfd = sv[0];
	return 0;
}

/* Asks the spawner to reap pid, killing it if it has not ended within ms; returns its wait
 * status, or -1. */
static int reap(struct ws_live *l, pid_t pid, unsigned ms)
{
	struct sp_req q = { .op = SP_WAIT, .flags = ms, .pid = pid };
	int32_t st;
	if (pid <= 0 || l->sfd < 0)
		return -1;
	if (io_full(l->sfd, &q, sizeof q, true, now_ms() + 5000) != 0)
		return -1;
	int r = io_full(l->sfd, &st, sizeof st, false, now_ms() + ms + 5000);
	return r == 0 ? st : -1;
}

static void describe_exit(char *buf, size_t len, const char *what, int st)
{
	if (st >= 0 && WIFSIGNALED(st))
		snprintf(buf, len, "%s killed by signal %d (%s)", what, WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (st >= 0 && WIFEXITED(st))
		snprintf(buf, len, "%s exited with status %d", what, WEXITSTATUS(st));
	else
		snprintf(buf, len, "%s ended", what);
}

static void stop_worker(struct ws_live *l, struct worker *w, bool force, char *why, size_t whylen)
{
	if (w->fd < 0)
		return;
	close(w->fd);   /* a healthy worker sees EOF and exits */
	w->fd = -1;
	int st = reap(l, w->pid, force ? 0 : 10000);
	if (why)
		describe_exit(why, whylen, "the CUDA worker", st);
	w->pid = -1;
}

/* Forks a worker through the spawner and reads its hello (and device list). 0 on success;
 * otherwise -1 with the reason in note. */
static int start_worker(struct ws_live *l, struct worker *w, unsigned flags, char *note, size_t len)
{
	struct sp_req q = { .op = SP_SPAWN, .flags = flags, .nojit = w->nojit };
	struct ws_live_hello h;
	int32_t pid = -1;
	int fd = -1;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &pid, .iov_len = sizeof pid };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };

	if (l->sfd < 0 || io_full(l->sfd, &q, sizeof q, true, now_ms() + 5000) != 0)
		goto nospawn;
	struct pollfd pf = { .fd = l->sfd, .events = POLLIN };
	if (poll(&pf, 1, 10000) != 1)
		goto nospawn;
	ssize_t k;
	while ((k = recvmsg(l->sfd, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (k != (ssize_t)sizeof pid)
		goto nospawn;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof fd);
	if (pid <= 0 || fd < 0) {
		if (fd >= 0)
			close(fd);
		goto nospawn;
	}
	w->pid = pid;
	w->fd = fd;

	int r = io_full(fd, &h, sizeof h, false, now_ms() + l->start_ms);
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
		r = io_full(fd, dev, sizeof dev[0] * h.ndevices, false, now_ms() + l->start_ms);
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
nospawn:
	snprintf(note, len, "no CUDA driver: cannot start a worker process for '%s'", l->libpath);
	return -1;
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
	snprintf(l->libpath, sizeof l->libpath, "%s", lib && *lib ? lib : "libcuda.so.1");
	l->flags = flags;
	l->sfd = -1;
	l->w[0].fd = l->w[1].fd = -1;
	l->w[0].pid = l->w[1].pid = -1;
	l->w[1].nojit = true;
	unsigned ms = env_ms();
	l->timeout_ms = ms ? ms : WS_LIVE_DEFAULT_TIMEOUT_MS;
	l->start_ms = ms ? ms : WS_LIVE_DEFAULT_START_TIMEOUT_MS;

	if (start_spawner(l) != 0) {
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
		if (l->w[i].fd >= 0)
			io_full(l->w[i].fd, &q, sizeof q, true, now_ms() + 1000);
		stop_worker(l, &l->w[i], false, NULL, 0);
	}
	if (l->sfd >= 0)
		close(l->sfd);
	if (l->spawner > 0)
		while (waitpid(l->spawner, NULL, 0) < 0 && errno == EINTR)
			;
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
	if (w->fd < 0 && start_worker(l, w, 0, l->last, sizeof l->last) != 0)
		return WS_LIVE_NOT_RUN;

	struct ws_live_req q = { .op = WS_LIVE_OP_LOAD, .dev = dev, .len = n };
	int32_t res;
	long long deadline = now_ms() + l->timeout_ms;
	int r = io_full(w->fd, &q, sizeof q, true, deadline);
	if (r == 0)
		r = io_full(w->fd, (void *)p, n, true, deadline);
	if (r == 0)
		r = io_full(w->fd, &res, sizeof res, false, deadline);
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

/* "580.95.05" from /proc/driver/nvidia/version, when the kernel module is loaded. */
static bool kernel_driver(char *buf, size_t len)
{
	FILE *f = fopen("/proc/driver/nvidia/version", "r");
	char line[512];
	bool ok = false;
	if (!f)
		return false;
	if (fgets(line, sizeof line, f)) {
		/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu Sep ..." */
		char *m = strstr(line, "Kernel Module");
		if (m) {
			m += strlen("Kernel Module");
			m += strspn(m, " \t");
			size_t k = strspn(m, "0123456789.");
			if (k > 0 && k < len) {
				memcpy(buf, m, k);
				buf[k] = 0;
				ok = true;
			}
		}
	}
	fclose(f);
	return ok;
}

void ws_live_print_env(FILE *f, const struct ws_live *l, const char *note)
{
	static const char *const vars[] = {
		"CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUDA_FORCE_PTX_JIT",
		"CUDA_DISABLE_PTX_JIT", "CUDA_LAUNCH_BLOCKING",
	};
	char kd[64];
	const char *lib = getenv("WHEELSCAN_LIBCUDA");
	/* the driver's strings, a /proc file's and the environment's: shown escaped (ws_quote.h) */
	fprintf(f, "driver library: %s\n", ws_q_text(l ? l->libpath : lib && *lib ? lib : "libcuda.so.1"));
	if (kernel_driver(kd, sizeof kd))
		fprintf(f, "kernel driver: %s\n", ws_q_text(kd));
	else
		fprintf(f, "kernel driver: not loaded (no /proc/driver/nvidia/version)\n");
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
