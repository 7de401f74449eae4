/* live_proc_posix.c - live_proc.h on Linux: a spawner process forks the workers.
 *
 *   wheelscan ──socketpair── spawner (forked by live_spawner_open, single-threaded, never
 *       │                    touches CUDA): forks a worker on request and passes its socket
 *       │                    back (SCM_RIGHTS); waits for or kills it when asked
 *       └──socketpair─────── worker(s): src/cudaworker.c (dlopen libcuda, cuInit, loads)
 *
 * Workers come from the spawner rather than from wheelscan itself because wheelscan may have
 * threads running by the time a crashed worker must be restarted, and fork from a threaded
 * process is not safe for a child that goes on to malloc and dlopen. And wheelscan, which may
 * run in the sandbox, needs no kill() of its own. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live_proc.h"
#include "live_wire.h"
#include "ws_quote.h"

#define SP_SPAWN 1u
#define SP_WAIT 2u

struct sp_req {
	uint32_t op;
	uint32_t flags;            /* SP_SPAWN: WS_LIVE_* flags; SP_WAIT: ms before the kill */
	int32_t pid;
	uint32_t nojit;
};

struct live_spawner {
	pid_t pid;
	int fd;                    /* the socket to the spawner */
	char libpath[1024];
};

struct live_proc {
	pid_t pid;
	int fd;
};

void live_default_driver(char *buf, size_t len)
{
	snprintf(buf, len, "libcuda.so.1");
}

const char *live_default_driver_shown(void)
{
	return "libcuda.so.1";
}

long long live_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* live_proc_io's loop on a socket: the deadline kept with poll. */
static int io_full(int fd, void *buf, size_t n, bool wr, long long deadline)
{
	char *p = buf;
	while (n > 0) {
		long long left = deadline - live_now_ms();
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

int live_proc_io(struct live_proc *p, void *buf, size_t n, bool wr, long long deadline)
{
	return p && p->fd >= 0 ? io_full(p->fd, buf, n, wr, deadline) : -1;
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

/* --- the spawner process --- */

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
	long long until = live_now_ms() + ms;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (live_now_ms() >= until) {
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

/* --- wheelscan's side --- */

struct live_spawner *live_spawner_open(const char *libpath)
{
	struct live_spawner *s = calloc(1, sizeof *s);
	int sv[2];
	if (!s)
		return NULL;
	snprintf(s->libpath, sizeof s->libpath, "%s", libpath);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		free(s);
		return NULL;
	}
	fflush(NULL);   /* nothing buffered may be written twice */
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		free(s);
		errno = e;
		return NULL;
	}
	if (pid == 0) {
		close(sv[0]);
		spawner_main(sv[1], s->libpath);
		_exit(0);
	}
	close(sv[1]);
	s->pid = pid;
	s->fd = sv[0];
	return s;
}

void live_spawner_close(struct live_spawner *s)
{
	if (!s)
		return;
	close(s->fd);   /* the spawner sees EOF and exits */
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(s);
}

/* Asks the spawner to reap pid, killing it if it has not ended within ms; returns its wait
 * status, or -1. */
static int reap(struct live_spawner *s, pid_t pid, unsigned ms)
{
	struct sp_req q = { .op = SP_WAIT, .flags = ms, .pid = pid };
	int32_t st;
	if (pid <= 0)
		return -1;
	if (io_full(s->fd, &q, sizeof q, true, live_now_ms() + 5000) != 0)
		return -1;
	int r = io_full(s->fd, &st, sizeof st, false, live_now_ms() + ms + 5000);
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

void live_proc_end(struct live_spawner *s, struct live_proc *p, bool force, char *why, size_t whylen)
{
	if (!p)
		return;
	close(p->fd);   /* a healthy worker sees EOF and exits */
	int st = reap(s, p->pid, force ? 0 : 10000);
	if (why)
		describe_exit(why, whylen, "the CUDA worker", st);
	free(p);
}

struct live_proc *live_proc_start(struct live_spawner *s, unsigned flags, bool nojit, unsigned start_ms,
				  char *note, size_t len)
{
	struct sp_req q = { .op = SP_SPAWN, .flags = flags, .nojit = nojit };
	int32_t pid = -1;
	int fd = -1;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &pid, .iov_len = sizeof pid };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
	struct live_proc *p = calloc(1, sizeof *p);
	(void)start_ms;   /* the hello's deadline is the caller's; the spawner answers at once */

	if (!p || io_full(s->fd, &q, sizeof q, true, live_now_ms() + 5000) != 0)
		goto nospawn;
	struct pollfd pf = { .fd = s->fd, .events = POLLIN };
	if (poll(&pf, 1, 10000) != 1)
		goto nospawn;
	ssize_t k;
	while ((k = recvmsg(s->fd, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
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
	p->pid = pid;
	p->fd = fd;
	return p;
nospawn:
	free(p);
	snprintf(note, len, "no CUDA driver: cannot start a worker process for '%s'", s->libpath);
	return NULL;
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

void live_print_kernel_driver(FILE *f)
{
	char kd[64];
	if (kernel_driver(kd, sizeof kd))
		fprintf(f, "kernel driver: %s\n", ws_q_text(kd));
	else
		fprintf(f, "kernel driver: not loaded (no /proc/driver/nvidia/version)\n");
}
