/* output.c - standard output with its write errors kept: every report goes through it,
 * and one function turns a failed write into the exit status. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ws_cli.h"

/* stdio forgets the errno of a failed write by the time the stream is checked: standard
 * output goes through this hook, which keeps the first one for the message. */
static int out_errno;

static ssize_t out_write(void *cookie, const char *p, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* kept here, and the bytes claimed written: glibc's fwrite of more than the
			 * buffer holds crashed (a memcpy through a broken buffer) when this hook
			 * answered -1. ws_out_check turns the kept error into exit 4. */
			if (!out_errno)
				out_errno = w < 0 ? errno : EIO;
			return (ssize_t)n;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

void ws_out_init(void)
{
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = out_write});
	if (!f)
		return;                    /* plain stdout: the error is still caught, named EIO */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

/* The one place a failed write becomes an exit status (see ws_cli.h). */
void ws_out_check(FILE *f)
{
	errno = 0;
	int r = fflush(f);
	int e = out_errno ? out_errno : errno;
	/* a write that failed earlier counts though this flush worked: the report has a hole */
	if (r == 0 && !ferror(f) && !out_errno)
		return;
	fprintf(stderr, "wheelscan: write error: %s\n", strerror(e ? e : EIO));
	_exit(WS_EXIT_WRITE);
}
