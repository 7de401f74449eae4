/* escape.c - the escape attempts of a compromised decoder, one function each: what the
 * sandbox (src/sandbox.c) must refuse. Run by the WHEELSCAN_SANDBOX_TEST self-test and, one
 * per run from inside a decoder call, by the test suite's LD_PRELOAD probe. Outside the
 * sandbox each must succeed or at least reach the kernel's own checks (an attempt that
 * would harm the machine aims at a path that does not exist, or at a harmless no-op), so
 * that a refusal under the sandbox is the sandbox's doing. Raw syscalls: libc may lack the
 * wrappers, and a wrapper could answer without asking the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "ws_errname.h"
#include "ws_escape.h"

#define R(x) ((x) < 0 ? -errno : 0)

static void path_in(char *buf, size_t len, const struct ws_escape_ctx *c, const char *name)
{
	snprintf(buf, len, "%s/%s", c->dir, name);
}

/* io_uring: set up a ring, then IORING_OP_OPENAT to create and write a file, which a filter
 * on openat's flags never sees. */
static int t_io_uring(const struct ws_escape_ctx *c, char *detail, size_t len)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	char path[4096];
	path_in(path, sizeof path, c, "uring-created");
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sqsz = cqsz = sqsz > cqsz ? sqsz : cqsz;
	uint8_t *sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	uint8_t *cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq :
		      mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		snprintf(detail, len, "setup ok, ring mmap: %s", ws_errno_name(errno));
		close(fd);
		return 0;
	}
	memset(&sqes[0], 0, sizeof sqes[0]);
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = AT_FDCWD;
	sqes[0].addr = (uint64_t)(uintptr_t)path;
	sqes[0].open_flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	sqes[0].len = 0600;
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail), mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	unsigned *array = (unsigned *)(sq + p.sq_off.array);
	unsigned t = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
	array[t & mask] = 0;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
	long n = syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (n < 0) {
		snprintf(detail, len, "setup ok, io_uring_enter: %s", ws_errno_name(errno));
	} else {
		unsigned head = *(unsigned *)(cq + p.cq_off.head), cmask = *(unsigned *)(cq + p.cq_off.ring_mask);
		struct io_uring_cqe *cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (head & cmask);
		if (cqe->res >= 0) {
			snprintf(detail, len, "IORING_OP_OPENAT created %s", path);
			close(cqe->res);
		} else {
			snprintf(detail, len, "setup ok, IORING_OP_OPENAT: %s", ws_errno_name(-cqe->res));
		}
	}
	close(fd);
	return 0;
}

static int t_unshare_user(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_unshare, CLONE_NEWUSER));
}

static int t_utimensat(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
	return R(syscall(__NR_utimensat, AT_FDCWD, c->file, ts, 0));
}

static int t_setxattr(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_setxattr, c->file, "user.wheelscan-escape", "x", 1, 0));
}

static int t_mknod_fifo(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char p[4096];
	path_in(p, sizeof p, c, "fifo");
	return R(syscall(__NR_mknodat, AT_FDCWD, p, S_IFIFO | 0600, 0));
}

/* name_to_handle_at, then open_by_handle_at: as root (CAP_DAC_READ_SEARCH) it opens any
 * file of the mount by its handle, around every path check. */
static int t_open_by_handle(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct {
		struct file_handle h;
		unsigned char b[128];
	} fh;
	int mnt;
	fh.h.handle_bytes = sizeof fh.b;
	if (syscall(__NR_name_to_handle_at, AT_FDCWD, c->file, &fh.h, &mnt, 0) < 0)
		return -errno;
	int mfd = (int)syscall(__NR_openat, AT_FDCWD, c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	int fd = (int)syscall(__NR_open_by_handle_at, mfd, &fh.h, O_RDONLY | O_CLOEXEC);
	int e = errno;
	close(mfd);
	if (fd < 0)
		return -e;
	close(fd);
	return 0;
}

static int t_bpf(const struct ws_escape_ctx *c, char *d, size_t l)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	int fd = (int)syscall(__NR_bpf, BPF_MAP_CREATE, &a, sizeof a);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int t_perf_event_open(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int t_open_write(const struct ws_escape_ctx *c, char *d, size_t l)
{
	int fd = (int)syscall(__NR_openat, AT_FDCWD, c->file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int t_open_create(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char p[4096];
	path_in(p, sizeof p, c, "created");
	int fd = (int)syscall(__NR_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* O_RDONLY is allowed by the filter: only Landlock keeps reads beneath the inputs. */
static int t_read_outside(const struct ws_escape_ctx *c, char *d, size_t l)
{
	int fd = (int)syscall(__NR_openat, AT_FDCWD, "/etc/passwd", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* openat2 carries its flags in memory, where a seccomp filter cannot look. */
static int t_openat2(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = {O_WRONLY | O_CLOEXEC, 0, 0};
	int fd = (int)syscall(__NR_openat2, AT_FDCWD, c->file, &how, sizeof how);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int t_socket(const struct ws_escape_ctx *c, char *d, size_t l)
{
	int fd = (int)syscall(__NR_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int t_socket_unix(const struct ws_escape_ctx *c, char *d, size_t l)
{
	int fd = (int)syscall(__NR_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A program that does not exist: ENOENT proves the call reached the kernel. */
static int t_execve(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char *argv[] = {(char *)"x", NULL};
	return R(syscall(__NR_execve, "/nonexistent/wheelscan-escape", argv, argv + 1));
}

/* An empty memfd: ENOEXEC proves execveat reached the kernel. */
static int t_memfd_exec(const struct ws_escape_ctx *c, char *d, size_t l)
{
	int fd = (int)syscall(__NR_memfd_create, "wheelscan-escape", 0);
	if (fd < 0)
		return -errno;
	char *argv[] = {(char *)"x", NULL};
	long r = syscall(__NR_execveat, fd, "", argv, argv + 1, AT_EMPTY_PATH);
	int e = errno;
	close(fd);
	snprintf(d, l, "memfd_create ok");
	return r < 0 ? -e : 0;
}

/* A new process (clone without CLONE_THREAD): the child leaves at once. */
static int t_fork(const struct ws_escape_ctx *c, char *d, size_t l)
{
	long pid = syscall(__NR_clone, SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0)
		return -errno;
	if (pid == 0)
		syscall(__NR_exit_group, 0);
	syscall(__NR_wait4, (pid_t)pid, NULL, 0, NULL);
	return 0;
}

/* clone3 with a zero-sized argument: EINVAL proves it reached the kernel. */
static int t_clone3(const struct ws_escape_ctx *c, char *d, size_t l)
{
	uint64_t args[11] = {0};
	return R(syscall(__NR_clone3, args, 0));
}

static int t_vfork(const struct ws_escape_ctx *c, char *d, size_t l)
{
	pid_t pid = vfork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return 0;
}

/* PTRACE_SEIZE does not stop the victim; the tracer's exit detaches it. */
static int t_ptrace(const struct ws_escape_ctx *c, char *d, size_t l)
{
	if (c->pid <= 0)
		return -ESRCH;
	return R(syscall(__NR_ptrace, PTRACE_SEIZE, c->pid, 0, 0));
}

static int t_process_vm_writev(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char b = 0;
	struct iovec lo = {&b, 1}, re = {(void *)1, 1};   /* an unmapped address: EFAULT at worst */
	if (c->pid <= 0)
		return -ESRCH;
	return R(syscall(__NR_process_vm_writev, c->pid, &lo, 1, &re, 1, 0));
}

/* Signal 0: only the permission check, nothing delivered. */
static int t_kill(const struct ws_escape_ctx *c, char *d, size_t l)
{
	if (c->pid <= 0)
		return -ESRCH;
	return R(syscall(__NR_kill, c->pid, 0));
}

static int t_tgkill(const struct ws_escape_ctx *c, char *d, size_t l)
{
	if (c->pid <= 0)
		return -ESRCH;
	return R(syscall(__NR_tgkill, c->pid, c->pid, 0));
}

static int t_rename(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char to[4096];
	path_in(to, sizeof to, c, "renamed");
	long r = syscall(__NR_renameat2, AT_FDCWD, c->file, AT_FDCWD, to, 0);
	if (r == 0)
		syscall(__NR_renameat2, AT_FDCWD, to, AT_FDCWD, c->file, 0);
	return R(r);
}

/* Writing through a descriptor the process inherited (a shell's 3<>file, a CI runner's
 * log): each rewrites the byte already there, or keeps the size, so a success changes
 * nothing. No open is needed, so only the filter stands in the way. */
static int t_inherited_mmap(const struct ws_escape_ctx *c, char *d, size_t l)
{
	void *m = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, c->wfd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*(volatile char *)m = *(volatile char *)m;
	munmap(m, 1);
	return 0;
}

static int t_inherited_pwrite(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char b = 'o';
	if (pread(c->wfd, &b, 1, 0) < 0 && c->wfd >= 0)
		return -errno;
	return R(syscall(__NR_pwrite64, c->wfd, &b, 1, 0));
}

static int t_inherited_ftruncate(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct stat st = {0};
	if (fstat(c->wfd, &st) != 0 && c->wfd >= 0)
		return -errno;
	return R(syscall(__NR_ftruncate, c->wfd, st.st_size));
}

static int t_unlink(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char p[4096];
	path_in(p, sizeof p, c, "victim");
	return R(syscall(__NR_unlinkat, AT_FDCWD, p, 0));
}

static int t_link(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char to[4096];
	path_in(to, sizeof to, c, "hardlink");
	return R(syscall(__NR_linkat, AT_FDCWD, c->file, AT_FDCWD, to, 0));
}

static int t_symlink(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char to[4096];
	path_in(to, sizeof to, c, "symlink");
	return R(syscall(__NR_symlinkat, "/etc/passwd", AT_FDCWD, to));
}

static int t_mkdir(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char p[4096];
	path_in(p, sizeof p, c, "newdir");
	return R(syscall(__NR_mkdirat, AT_FDCWD, p, 0700));
}

/* to the mode it has: a no-op that still needs the call */
static int t_chmod(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct stat st;
	if (stat(c->file, &st) != 0)
		return -errno;
	return R(syscall(__NR_fchmodat, AT_FDCWD, c->file, st.st_mode & 07777, 0));
}

static int t_truncate(const struct ws_escape_ctx *c, char *d, size_t l)
{
	struct stat st;
	if (stat(c->file, &st) != 0)
		return -errno;
	return R(syscall(__NR_truncate, c->file, st.st_size));   /* same size: content unchanged */
}

/* setuid to the current uid: a no-op that still needs the call. */
static int t_setuid(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_setuid, getuid()));
}

/* A file system type that does not exist: ENODEV (root) or EPERM (not root) from the kernel. */
static int t_mount(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_mount, "none", c->dir, "wheelscan-nofs", 0, NULL));
}

static int t_chroot(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_chroot, "/nonexistent/wheelscan-escape"));
}

/* The process keyring dies with the process. */
static int t_add_key(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_add_key, "user", "wheelscan-escape", "x", 1, KEY_SPEC_PROCESS_KEYRING));
}

static int t_keyctl(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
}

static int t_userfaultfd(const struct ws_escape_ctx *c, char *d, size_t l)
{
	int fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A query (0xffffffff changes nothing); READ_IMPLIES_EXEC would make reads executable. */
static int t_personality(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_personality, 0xffffffffUL));
}

/* getpid through the x32 ABI: the filter's architecture check must kill the process. */
static int t_x32(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(0x40000000L | __NR_getpid));
}

static int t_prctl(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_prctl, PR_SET_NAME, "wheelscan", 0, 0, 0));
}

/* W^X: turning a writable page executable, the usual second stage of an exploit. */
static int t_mprotect_exec(const struct ws_escape_ctx *c, char *d, size_t l)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	long r = syscall(__NR_mprotect, p, 4096, PROT_READ | PROT_EXEC);
	int e = errno;
	munmap(p, 4096);
	return r < 0 ? -e : 0;
}

static int t_mmap_exec(const struct ws_escape_ctx *c, char *d, size_t l)
{
	long p = syscall(__NR_mmap, NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == -1)
		return -errno;
	munmap((void *)p, 4096);
	return 0;
}

/* TIOCSTI pushes input into a terminal; on a non-terminal the kernel answers ENOTTY. */
static int t_ioctl_tiocsti(const struct ws_escape_ctx *c, char *d, size_t l)
{
	char ch = ' ';
	return R(syscall(__NR_ioctl, 0, TIOCSTI, &ch));
}

static int t_setns(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_setns, -1, 0));      /* EBADF from the kernel */
}

static int t_pidfd_open(const struct ws_escape_ctx *c, char *d, size_t l)
{
	if (c->pid <= 0)
		return -ESRCH;
	int fd = (int)syscall(__NR_pidfd_open, c->pid, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int t_chdir(const struct ws_escape_ctx *c, char *d, size_t l)
{
	return R(syscall(__NR_chdir, "/nonexistent/wheelscan-escape"));
}

const struct ws_escape ws_escapes[] = {
	{"io_uring", t_io_uring, "io_uring_setup, then IORING_OP_OPENAT to create a file"},
	{"unshare-user", t_unshare_user, "unshare(CLONE_NEWUSER): a user namespace with all capabilities"},
	{"utimensat", t_utimensat, "set the input's times"},
	{"setxattr", t_setxattr, "set an extended attribute on the input"},
	{"mknod-fifo", t_mknod_fifo, "mknodat a FIFO"},
	{"open_by_handle_at", t_open_by_handle, "name_to_handle_at + open_by_handle_at around path checks"},
	{"bpf", t_bpf, "bpf(BPF_MAP_CREATE)"},
	{"perf_event_open", t_perf_event_open, "perf_event_open on itself"},
	{"open-write", t_open_write, "openat the input O_WRONLY"},
	{"inherited-mmap", t_inherited_mmap, "map an inherited writable descriptor shared and write it"},
	{"inherited-pwrite", t_inherited_pwrite, "pwrite64 through an inherited writable descriptor"},
	{"inherited-ftruncate", t_inherited_ftruncate, "ftruncate an inherited writable descriptor"},
	{"open-create", t_open_create, "openat O_WRONLY|O_CREAT a new file"},
	{"openat2", t_openat2, "openat2 (flags in memory, out of the filter's sight)"},
	{"read-outside", t_read_outside, "openat /etc/passwd O_RDONLY (outside the inputs)"},
	{"socket-inet", t_socket, "socket(AF_INET)"},
	{"socket-unix", t_socket_unix, "socket(AF_UNIX)"},
	{"execve", t_execve, "execve a program"},
	{"memfd-execveat", t_memfd_exec, "memfd_create + execveat"},
	{"fork", t_fork, "clone without CLONE_THREAD: a new process"},
	{"vfork", t_vfork, "vfork"},
	{"clone3", t_clone3, "clone3 (flags in memory)"},
	{"ptrace", t_ptrace, "ptrace(PTRACE_SEIZE) another process"},
	{"process_vm_writev", t_process_vm_writev, "write another process's memory"},
	{"kill", t_kill, "kill another process"},
	{"tgkill", t_tgkill, "tgkill another process"},
	{"pidfd_open", t_pidfd_open, "pidfd_open another process"},
	{"rename", t_rename, "rename the input"},
	{"unlink", t_unlink, "unlink a file"},
	{"link", t_link, "hard-link the input"},
	{"symlink", t_symlink, "create a symbolic link"},
	{"mkdir", t_mkdir, "create a directory"},
	{"chmod", t_chmod, "chmod the input"},
	{"truncate", t_truncate, "truncate the input"},
	{"setuid", t_setuid, "setuid"},
	{"mount", t_mount, "mount a file system"},
	{"chroot", t_chroot, "chroot"},
	{"chdir", t_chdir, "chdir"},
	{"setns", t_setns, "setns: join another namespace"},
	{"add_key", t_add_key, "add_key to the process keyring"},
	{"keyctl", t_keyctl, "keyctl: read the session keyring"},
	{"userfaultfd", t_userfaultfd, "userfaultfd (a tool for kernel race exploits)"},
	{"personality", t_personality, "personality (READ_IMPLIES_EXEC would weaken W^X)"},
	{"prctl-set", t_prctl, "prctl setters (PR_SET_NAME)"},
	{"mprotect-exec", t_mprotect_exec, "make a writable page executable"},
	{"mmap-exec", t_mmap_exec, "map a writable and executable page"},
	{"ioctl-tiocsti", t_ioctl_tiocsti, "ioctl(TIOCSTI): type into the terminal"},
	{"x32", t_x32, "a system call through the x32 ABI"},
};
const size_t ws_nescapes = sizeof ws_escapes / sizeof *ws_escapes;

const struct ws_escape *ws_escape_find(const char *name)
{
	for (size_t i = 0; name && i < ws_nescapes; i++)
		if (!strcmp(ws_escapes[i].name, name))
			return &ws_escapes[i];
	return NULL;
}

int ws_escape_run(const struct ws_escape *e, const struct ws_escape_ctx *c, char *out, size_t len)
{
	char detail[256] = "";
	int r = e->try(c, detail, sizeof detail);
	if (r == 0)
		snprintf(out, len, detail[0] ? "ok (%s)" : "ok", detail);
	else
		snprintf(out, len, "%s", ws_errno_name(-r));
	return r;
}
