/* errname.c - errno names for the sandbox's reports. glibc's strerrorname_np would do, but
 * it is new in glibc 2.32 and the wheel's binary must run on 2.28 (manylinux_2_28). */
#include <errno.h>
#include <stddef.h>

#include "ws_errname.h"

#define E(x) { x, #x }
static const struct { int e; const char *name; } names[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC), E(EBADF),
	E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST), E(EXDEV),
	E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(EFBIG),
	E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG),
	E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENODATA), E(ENOTSOCK), E(EPROTONOSUPPORT),
	E(EAFNOSUPPORT), E(EOPNOTSUPP), E(EADDRINUSE), E(ECONNREFUSED), E(ENOKEY), E(EKEYREVOKED),
	E(EOVERFLOW), E(ETIMEDOUT), E(ECANCELED), E(EBADMSG), E(ENOTCONN), E(EILSEQ),
};
#undef E

const char *ws_errno_name(int e)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].e == e)
			return names[i].name;
	return "E?";
}
