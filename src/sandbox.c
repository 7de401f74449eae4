/* sandbox.c - a seccomp filter (libseccomp) for static scans, in the spirit of
 * pax-utils' scanelf: a bug in a decoder must not be able to write files, run
 * programs, fork or reach the network. Denials return an errno rather than kill
 * the process, so a refused call is reported like any other error. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ws_sandbox.h"

/* LeakSanitizer checks for leaks at exit from a helper it clones and ptraces: an
 * ASan build keeps those two (and only those) open. */
#if defined(__SANITIZE_ADDRESS__)
#define WS_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WS_SANITIZER_BUILD 1
#endif
#endif

/* System calls refused outright (EPERM). */
static const int denied[] = {
	SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(vfork),
#ifndef WS_SANITIZER_BUILD
	SCMP_SYS(fork), SCMP_SYS(ptrace),
#endif
	SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen),
	SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(process_vm_writev),
	SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename),
	SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(mkdir), SCMP_SYS(mkdirat), SCMP_SYS(rmdir),
	SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(symlink), SCMP_SYS(symlinkat), SCMP_SYS(chmod),
	SCMP_SYS(fchmod), SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(fchown), SCMP_SYS(fchownat),
	SCMP_SYS(lchown), SCMP_SYS(truncate), SCMP_SYS(creat), SCMP_SYS(setuid), SCMP_SYS(setgid),
	SCMP_SYS(kill), SCMP_SYS(tgkill),
};

int ws_sandbox_enter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < sizeof denied / sizeof *denied && rc == 0; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
	/* Opening for writing, creating or truncating: refused; reading stays allowed. */
	static const unsigned long wflags[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC};
	for (size_t i = 0; i < sizeof wflags / sizeof *wflags && rc == 0; i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1,
				      SCMP_A2(SCMP_CMP_MASKED_EQ, wflags[i], wflags[i]));
		if (rc == 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 1,
					      SCMP_A1(SCMP_CMP_MASKED_EQ, wflags[i], wflags[i]));
	}
	/* openat2 and clone3 pass their flags in memory, out of a filter's reach: refuse
	 * them with ENOSYS so that glibc falls back to openat and clone. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* clone: threads (CLONE_THREAD) only, no new processes */
#ifndef WS_SANITIZER_BUILD
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
#endif
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc == 0 ? 0 : -1;
}

static const char *outcome(int ok, int err)
{
	return ok ? "ALLOWED" : err == EACCES ? "EACCES" : err == EPERM ? "EPERM" : strerror(err);
}

void ws_sandbox_selftest(void)
{
	char path[] = "/tmp/wheelscan-sandbox-XXXXXX";
	int fd = open("/tmp/wheelscan-sandbox-test", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int e1 = errno;
	if (fd >= 0) {
		close(fd);
		unlink("/tmp/wheelscan-sandbox-test");
	}
	int mk = mkstemp(path);
	int e2 = errno;
	if (mk >= 0) {
		close(mk);
		unlink(path);
	}
	int sock = socket(AF_INET, SOCK_STREAM, 0);
	int e3 = errno;
	if (sock >= 0)
		close(sock);
	pid_t pid = fork();
	int e4 = errno;
	if (pid == 0)
		_exit(0);
	int rd = open("/proc/self/status", O_RDONLY);
	int e5 = errno;
	char mode[16] = "?";
	if (rd >= 0) {
		char buf[4096];
		ssize_t n = read(rd, buf, sizeof buf - 1);
		close(rd);
		buf[n > 0 ? n : 0] = '\0';
		const char *s = strstr(buf, "\nSeccomp:");
		if (s)
			sscanf(s + 9, "%15s", mode);
	}
	fprintf(stderr, "sandbox test: seccomp=%s write-open=%s mkstemp=%s socket=%s fork=%s read-open=%s\n",
		mode, outcome(fd >= 0, e1), outcome(mk >= 0, e2), outcome(sock >= 0, e3),
		outcome(pid >= 0, e4), outcome(rd >= 0, e5));
}
