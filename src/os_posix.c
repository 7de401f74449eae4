/* os_posix.c - the operating system interface of ws_os.h on Linux: paths, fork and exec. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ws_os.h"
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
