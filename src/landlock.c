/* landlock.c - the file-system half of the sandbox: a Landlock ruleset that lets the
 * process read beneath its inputs and nothing else, and write nowhere. Raw system calls
 * (glibc has no wrappers); the ABI is asked at run time and every right the kernel knows
 * is handled, so a newer kernel denies more, an older one what it can. */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ws_sandbox.h"

/* Rights newer than the system's linux/landlock.h (values from the kernel's uapi). */
#define FS_ABI1 ((1ULL << 13) - 1)        /* EXECUTE .. MAKE_SYM */
#define FS_REFER (1ULL << 13)             /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)          /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15)         /* ABI 5 */
#define NET_BIND_TCP (1ULL << 0)          /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)   /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)

/* struct landlock_ruleset_attr as of ABI 6; older kernels get a prefix of it. */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

int ws_landlock_abi(char *why, size_t len)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi > 0)
		return (int)abi;
	if (errno == ENOSYS)
		snprintf(why, len, "unavailable: the kernel has no Landlock (CONFIG_SECURITY_LANDLOCK)");
	else if (errno == EOPNOTSUPP)
		snprintf(why, len, "unavailable: Landlock is not enabled at boot (lsm=)");
	else
		snprintf(why, len, "unavailable: %s", strerror(errno));
	return 0;
}

int ws_landlock_enter(const char *const *readable, size_t n, bool proc_too, char *why, size_t len)
{
	int abi = ws_landlock_abi(why, len);
	if (abi <= 0)
		return -1;
	struct ruleset_attr ra = {.handled_access_fs = FS_ABI1};
	size_t size = sizeof ra.handled_access_fs;
	if (abi >= 2)
		ra.handled_access_fs |= FS_REFER;
	if (abi >= 3)
		ra.handled_access_fs |= FS_TRUNCATE;
	if (abi >= 4) {
		ra.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;   /* no rule: no TCP at all */
		size = offsetof(struct ruleset_attr, scoped);
	}
	if (abi >= 5)
		ra.handled_access_fs |= FS_IOCTL_DEV;
	if (abi >= 6) {
		/* no signals to, and no abstract sockets of, processes outside the sandbox */
		ra.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
		size = sizeof ra;
	}
	int rs = (int)syscall(SYS_landlock_create_ruleset, &ra, size, 0);
	if (rs < 0) {
		snprintf(why, len, "cannot create a ruleset: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i <= n; i++) {
		const char *path = i < n ? readable[i] : proc_too ? "/proc" : NULL;
		if (!path || !strcmp(path, "-"))
			continue;
		int fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;                  /* the scan reports it when it tries to open it */
		struct stat st;
		struct path_beneath pb = {.allowed_access = FS_READ_FILE, .parent_fd = fd};
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			pb.allowed_access |= FS_READ_DIR;
		/* A path Landlock cannot name (a pipe, a socket: not files the scan reads anyway)
		 * gets no rule, and opening it will fail. */
		syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
		close(fd);
	}
	long r = syscall(SYS_landlock_restrict_self, rs, 0);
	int e = errno;
	close(rs);
	if (r < 0) {
		snprintf(why, len, "cannot enforce the ruleset: %s", strerror(e));
		return -1;
	}
	snprintf(why, len, "ABI %d", abi);
	return abi;
}
