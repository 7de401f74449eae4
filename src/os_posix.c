/* os_posix.c - the operating system interface of ws_os.h on Linux: paths, fork and exec. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws_digest.h"
#include "ws_filemap.h"
#include "ws_os.h"
#include "ws_sandbox.h"
#include "ws_util.h"

bool ws_path_absolute(const char *path)
{
	return path[0] == '/';
}

/* A pipe, fork and execvp. */
int ws_spawn_capture(const char *const *argv, char *out, size_t outlen, char *why, size_t whylen)
{
	int fds[2];
	size_t got = 0;
	out[0] = 0;
	if (pipe(fds) != 0) {
		ws_fmt(why, whylen, "cannot run '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		ws_fmt(why, whylen, "cannot run '%s': %s", argv[0], strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t r = read(fds[0], out + got, outlen - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == outlen - 1)
			break;
	}
	close(fds[0]);
	out[got] = 0;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st)) {
		ws_fmt(why, whylen, "signal %d", WTERMSIG(st));
		return -2;
	}
	ws_fmt(why, whylen, "exit status %d", WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

/* A child in its own process group, so that the time limit ends pip's own children too (a
 * build backend, git). */
int ws_spawn_wait(const char *const *argv, unsigned timeout_s, bool stdout_to_stderr, char *why, size_t whylen)
{
	pid_t pid = fork();
	if (pid < 0) {
		ws_fmt(why, whylen, "cannot run '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0)
			_exit(127);
		if (null != STDIN_FILENO)
			close(null);
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "wheelscan: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);                 /* both sides: whichever runs first */
	struct timespec start, now, nap = {0, 20 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	int st = 0;
	bool timed_out = false;
	for (;;) {
		pid_t r = waitpid(pid, &st, timeout_s ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			ws_fmt(why, whylen, "cannot wait for '%s': %s", argv[0], strerror(errno));
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout_s && !timed_out && now.tv_sec - start.tv_sec >= (time_t)timeout_s) {
			timed_out = true;
			kill(-pid, SIGTERM);
			sleep(2);
			kill(-pid, SIGKILL);
		}
		if (timeout_s)
			nanosleep(&nap, NULL);
	}
	if (timed_out) {
		kill(-pid, SIGKILL);           /* what the group still holds */
		ws_fmt(why, whylen, "'%s' ran past the time limit of %u s and was ended", argv[0], timeout_s);
		return -3;
	}
	if (!WIFEXITED(st)) {
		ws_fmt(why, whylen, "'%s' ended on signal %d", argv[0], WTERMSIG(st));
		return -2;
	}
	ws_fmt(why, whylen, "exit status %d", WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

bool ws_self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0 || (size_t)n >= len - 1)
		return false;
	buf[n] = 0;
	char *slash = strrchr(buf, '/');
	if (!slash)
		return false;
	*slash = 0;
	return buf[0] != 0;
}

bool ws_temp_dir(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (snprintf(buf, len, "%s/wheelscan-guard.XXXXXX", tmp) >= (int)len)
		return false;
	return mkdtemp(buf) != NULL;
}

int ws_run_confined(int (*fn)(void *), void *ctx, bool sandbox, const char *const *readable, size_t n, char **out,
		    size_t max, char *why, size_t whylen)
{
	int fds[2] = {-1, -1};
	if (out && pipe(fds) != 0) {
		ws_fmt(why, whylen, "no pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		ws_fmt(why, whylen, "cannot fork: %s", strerror(errno));
		if (out)
			close(fds[0]), close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		if (out && (dup2(fds[1], STDOUT_FILENO) < 0 || close(fds[0]) || close(fds[1])))
			_exit(125);
		/* what would load lazily from elsewhere, loaded first (as run.c does) */
		tzset();
		ws_digest_free(ws_digest_new("sha256"));
		if (ws_filemap_guard() < 0)
			fprintf(stderr, "wheelscan: warning: cannot catch SIGBUS (%s)\n", strerror(errno));
		struct ws_sandbox_status st;
		if (sandbox && ws_sandbox_enter(readable, n, false, &st) < 0)
			fprintf(stderr, "wheelscan: warning: no seccomp sandbox (%s); going on without it\n", st.seccomp_note);
		int rc = fn(ctx);
		fflush(stdout);
		fflush(stderr);
		_exit(rc & 255);
	}
	size_t got = 0;
	bool over = false;
	if (out) {
		close(fds[1]);
		char *buf = malloc(max + 1);
		for (;;) {
			char sink[4096];
			bool keep = buf && got < max;
			ssize_t r = keep ? read(fds[0], buf + got, max - got) : read(fds[0], sink, sizeof sink);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if (keep)
				got += (size_t)r;
			else
				over = true;
		}
		close(fds[0]);
		if (buf)
			buf[got] = 0;
		*out = buf;
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st)) {
		ws_fmt(why, whylen, "the confined child ended on signal %d", WTERMSIG(st));
		return -1;
	}
	if (out && (over || !*out)) {
		ws_fmt(why, whylen, "%s", over ? "the confined child wrote more than its limit" : "out of memory");
		return -1;
	}
	return WEXITSTATUS(st);
}
