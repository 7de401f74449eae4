/* sandbox.c - least privilege for static scans, entered once the inputs are listed and
 * before any thread starts: no new privileges, Landlock (src/landlock.c), no capabilities,
 * and a seccomp allowlist (libseccomp) in the spirit of OpenSSH's sandbox-seccomp-filter.c:
 * a bug in a decoder must not be able to write files, run programs, start processes,
 * reach the network or another process, or widen its own rights.
 *
 * The filter's default answer is EPERM, not death: a call nobody foresaw (a new libc
 * calling something new) is then an error on one input, reported like any other, rather
 * than a killed scan. A system call of a foreign architecture, x32 included, kills the
 * process (libseccomp checks the architecture, and on x86_64 sends every number with
 * __X32_SYSCALL_BIT to the bad-architecture action). */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "ws_errname.h"
#include "ws_escape.h"
#include "ws_sandbox.h"

/* Sanitizer builds: LeakSanitizer checks for leaks at exit from a helper it clones (not a
 * thread) and which ptraces the threads; the carve-outs below serve it and nothing else
 * (Landlock still keeps ptrace inside the sandbox). */
#if defined(__SANITIZE_ADDRESS__)
#define WS_SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WS_SANITIZER_BUILD 1
#endif
#endif

enum cond {
	ANY,          /* any arguments */
	EQ,           /* arg == value */
	NONE_OF,      /* (arg & mask) == 0 */
	PRIVATE_MAP,  /* (arg & mask) == 0, and mmap's flags (argument 3) without MAP_SHARED */
	MASKED,       /* (arg & mask) == value */
	SELF,         /* arg == this process's id */
	DENY,         /* refused with errno `value` (other than the default EPERM) */
};

struct allow {
	int nr;
	enum cond cond;
	unsigned arg;
	uint64_t mask, value;
};

#define A(name) SCMP_SYS(name), ANY, 0, 0, 0
#define NAMESPACES (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
		    CLONE_NEWPID | CLONE_NEWNET)
#define WRITE_OPEN (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY) | O_PATH)

/* The allowlist: every system call a scan makes after start-up (traced with strace -f over
 * the test suite's scans of wheels, ELF files, archives, -r trees, environments and stdin,
 * --jobs 1 and 2, then reviewed by hand). Everything else gets EPERM. */
static const struct allow allowlist[] = {
	/* memory */
	{A(brk)},                                            /* malloc's heap */
	{SCMP_SYS(mmap), PRIVATE_MAP, 2, PROT_EXEC, 0},      /* malloc, stacks, inputs: never executable, never shared
							      * (a shared map of an inherited writable fd writes it) */
	{SCMP_SYS(mprotect), NONE_OF, 2, PROT_EXEC, 0},      /* stack guards, malloc arenas; never executable (W^X) */
	{A(munmap)},                                         /* freeing the above */
	{A(mremap)},                                         /* realloc of big blocks */
	{A(madvise)},                                        /* MADV_SEQUENTIAL, pages read behind, stacks of ended threads */
	/* reading the inputs (Landlock says which) */
	{SCMP_SYS(openat), NONE_OF, 2, WRITE_OPEN, 0},       /* O_RDONLY only: no write, create, truncate, append, O_PATH */
	{SCMP_SYS(openat2), DENY, 0, 0, ENOSYS},             /* its flags are in memory: ENOSYS, libc falls back to openat */
	{A(read)},                                           /* the inputs, stdin */
	{A(pread64)},                                        /* zip members, ELF sections */
	{A(lseek)},                                          /* libzip, libelf */
	{A(close)},                                          /* the inputs */
	{A(fstat)},                                          /* an input's size */
	{A(newfstatat)},                                     /* stat(), and glibc's check of /etc/localtime (mktime) */
	{A(statx)},                                          /* stat() of newer libcs */
	{A(stat)},                                           /* stat() of a binary built for glibc < 2.33 (the wheel's): */
	{A(lstat)},                                          /* its __xstat wrappers make the old calls; same reach as newfstatat */
	{A(getdents64)},                                     /* directories of installed environments */
	{SCMP_SYS(fcntl), EQ, 1, 0, F_GETFL},                /* fdopen, libzip */
	{SCMP_SYS(fcntl), EQ, 1, 0, F_GETFD},                /* libzip */
	{SCMP_SYS(fcntl), EQ, 1, 0, F_SETFD},                /* close-on-exec */
	{SCMP_SYS(ioctl), EQ, 1, 0, TCGETS},                 /* isatty: colour, progress bar (not TIOCSTI and kin) */
	/* the report: standard output and standard error only */
	{SCMP_SYS(write), EQ, 0, 0, STDOUT_FILENO},          /* the report */
	{SCMP_SYS(write), EQ, 0, 0, STDERR_FILENO},          /* errors, progress, sanitizer reports */
	{SCMP_SYS(writev), EQ, 0, 0, STDOUT_FILENO},         /* stdio may gather */
	{SCMP_SYS(writev), EQ, 0, 0, STDERR_FILENO},         /* glibc's fatal messages */
	/* the task pool's threads, started after the filter */
	{SCMP_SYS(clone), MASKED, 0, CLONE_THREAD | NAMESPACES, CLONE_THREAD},   /* threads, no processes, no namespaces */
	{SCMP_SYS(clone3), DENY, 0, 0, ENOSYS},              /* flags in memory: ENOSYS, glibc falls back to clone */
	{A(futex)},                                          /* locks, condition variables, joins */
	{A(set_robust_list)},                                /* each new thread */
	{A(rseq)},                                           /* each new thread (glibc 2.35+) */
	{A(sched_yield)},                                    /* spinning locks */
	{A(sched_getaffinity)},                              /* CPU count (glibc, sanitizers) */
	{A(rt_sigprocmask)},                                 /* pthread_create blocks signals around clone */
	{A(rt_sigaction)},                                   /* handlers of its own signals only */
	{A(rt_sigreturn)},                                   /* returning from a handler */
	{A(sigaltstack)},                                    /* sanitizers' signal stacks */
	{A(exit)},                                           /* a thread ends */
	{A(exit_group)},                                     /* the process ends */
	{A(getpid)},                                         /* raise(), sanitizers */
	{A(gettid)},                                         /* raise(), sanitizers */
	{SCMP_SYS(tgkill), SELF, 0, 0, 0},                   /* raise()/abort(): signals to its own threads only */
	/* time, randomness, sizes */
	{A(clock_gettime)},                                  /* progress, timed waits (when the vDSO is not used) */
	{A(gettimeofday)},                                   /* the same, older callers */
	{A(clock_nanosleep)},                                /* sleeps */
	{A(nanosleep)},                                      /* sleeps */
	{A(restart_syscall)},                                /* an interrupted sleep resumes */
	{A(getrandom)},                                      /* hash keys (util.c), malloc */
	{A(sysinfo)},                                        /* glibc's qsort sizes its buffer by the memory */
	/* looking at itself (the self-test, sanitizers); changing nothing */
	{SCMP_SYS(prctl), EQ, 0, 0, PR_GET_SECCOMP},         /* the self-test */
	{SCMP_SYS(prctl), EQ, 0, 0, PR_GET_NO_NEW_PRIVS},    /* the self-test */
	{SCMP_SYS(prctl), EQ, 0, 0, PR_CAPBSET_READ},        /* the self-test */
	{SCMP_SYS(prctl), EQ, 0, 0, PR_GET_DUMPABLE},        /* LeakSanitizer */
	{A(capget)},                                         /* the self-test */
#ifdef WS_SANITIZER_BUILD
	/* LeakSanitizer at exit: the tracer it clones, ptraces the threads from, and waits for */
	{SCMP_SYS(clone), EQ, 0, 0, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED},
	{A(ptrace)},
	{A(wait4)},
	{A(getppid)},                                        /* the tracer checks that its parent lives */
	{SCMP_SYS(open), NONE_OF, 1, WRITE_OPEN, 0},         /* the runtime's own open(): /proc/PID/task, maps */
	{A(getdents)},                                       /* the runtime lists /proc/PID/task */
	{SCMP_SYS(prctl), EQ, 0, 0, PR_SET_PTRACER},
	{SCMP_SYS(prctl), EQ, 0, 0, PR_SET_DUMPABLE},
	{SCMP_SYS(prctl), EQ, 0, 0, PR_SET_PDEATHSIG},
#endif
};

/* With the live check, this process talks to the CUDA workers and their spawner over the
 * socket pairs made before the sandbox (no new socket, no connect: those stay refused). */
static const struct allow live_extra[] = {
	{A(poll)},                                           /* waiting for a worker, with a time limit */
	{A(ppoll)},                                          /* poll() of newer libcs */
	{A(sendto)},                                         /* send(): requests and fatbins to a worker */
	{A(recvfrom)},                                       /* recv(): results */
	{A(recvmsg)},                                        /* a restarted worker's socket, from the spawner */
	{A(wait4)},                                          /* reaping the spawner (a child) at the end */
};

/* With a results store (--db), SQLite writes through the descriptors of the store, its
 * -wal and its -shm, all opened before the sandbox. Each call below is allowed on those
 * descriptors only (the fd argument compared with each), so a writable descriptor the
 * process inherited stays out of reach, and Landlock refuses any new file for writing. */
static const struct allow store_extra[] = {
	{A(pwrite64)},                                       /* pages into the -wal, the store, the -shm */
	{A(fdatasync)},                                      /* commits and checkpoints */
	{A(fsync)},                                          /* the same, where SQLite asks for a full sync */
	{A(ftruncate)},                                      /* checkpoints shrink the store; the -wal emptied at the end */
	{SCMP_SYS(fcntl), EQ, 1, 0, F_SETLK},                /* POSIX locks: two runs on one store take turns */
	{SCMP_SYS(fcntl), EQ, 1, 0, F_GETLK},                /* who holds a lock */
	{SCMP_SYS(mmap), NONE_OF, 2, PROT_EXEC, 0},          /* the -shm mapped shared (its fd is argument 4) */
};
#define STORE_FDS_MAX 8
static int store_fds[STORE_FDS_MAX];
static size_t nstore_fds;

void ws_sandbox_keep_store(const int *fds, size_t n)
{
	for (size_t i = 0; i < n && nstore_fds < STORE_FDS_MAX; i++)
		if (fds[i] >= 0)
			store_fds[nstore_fds++] = fds[i];
}

static int spool_fd = -1;

void ws_sandbox_keep_spool(int fd)
{
	spool_fd = fd;
}

/* One store rule for one descriptor: the fd argument equals fd, and the rule's own test. */
static int add_store_rule(scmp_filter_ctx ctx, const struct allow *a, int fd)
{
	struct scmp_arg_cmp c[2];
	unsigned n = 0;
	c[n++] = SCMP_CMP(a->nr == SCMP_SYS(mmap) ? 4 : 0, SCMP_CMP_EQ, (uint64_t)fd);
	if (a->cond == EQ)
		c[n++] = SCMP_CMP(a->arg, SCMP_CMP_EQ, a->value);
	else if (a->cond == NONE_OF)
		c[n++] = SCMP_CMP(a->arg, SCMP_CMP_MASKED_EQ, a->mask, 0);
	return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, a->nr, n, c);
}

static int add_rule(scmp_filter_ctx ctx, const struct allow *a, pid_t self)
{
	switch (a->cond) {
	case ANY:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, a->nr, 0);
	case DENY:
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)a->value), a->nr, 0);
	case EQ:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, a->nr, 1, SCMP_CMP(a->arg, SCMP_CMP_EQ, a->value));
	case SELF:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, a->nr, 1, SCMP_CMP(a->arg, SCMP_CMP_EQ, (uint64_t)self));
	case PRIVATE_MAP:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, a->nr, 2, SCMP_CMP(a->arg, SCMP_CMP_MASKED_EQ, a->mask, 0),
					SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_SHARED, 0));
	case NONE_OF:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, a->nr, 1,
					SCMP_CMP(a->arg, SCMP_CMP_MASKED_EQ, a->mask, 0));
	case MASKED:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, a->nr, 1,
					SCMP_CMP(a->arg, SCMP_CMP_MASKED_EQ, a->mask, a->value));
	}
	return -EINVAL;
}

static int load_filter(bool live, char *why, size_t len)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx) {
		snprintf(why, len, "libseccomp cannot make a filter");
		return -1;
	}
	pid_t self = getpid();
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);   /* every thread, should one exist */
	for (size_t i = 0; i < sizeof allowlist / sizeof *allowlist && rc == 0; i++)
		rc = add_rule(ctx, &allowlist[i], self);
	for (size_t i = 0; live && i < sizeof live_extra / sizeof *live_extra && rc == 0; i++)
		rc = add_rule(ctx, &live_extra[i], self);
	for (size_t k = 0; k < nstore_fds && rc == 0; k++)
		for (size_t i = 0; i < sizeof store_extra / sizeof *store_extra && rc == 0; i++)
			rc = add_store_rule(ctx, &store_extra[i], store_fds[k]);
	if (rc == 0 && spool_fd >= 0)           /* standard input's spool: written, then mapped privately */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, (uint64_t)spool_fd));
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (rc != 0)
		snprintf(why, len, "cannot load the filter: %s", strerror(-rc));
	seccomp_release(ctx);
	return rc == 0 ? 0 : -1;
}

/* Every capability out of every set, the bounding set emptied and the ambient set
 * cleared, so that neither this process nor anything it could start holds one. */
static bool drop_caps(char *why, size_t len)
{
	bool bounding_ok = true;
	for (int cap = 0; cap < 64; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (in < 0)
			break;                          /* past the kernel's last capability */
		if (in == 1 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
			bounding_ok = false;            /* not root: no CAP_SETPCAP; nothing to gain either */
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) != 0) {
		snprintf(why, len, "capset: %s", strerror(errno));
		return false;
	}
	snprintf(why, len, bounding_ok ? "none (all dropped, bounding set empty)" :
		 "none (the bounding set stays: no CAP_SETPCAP, and no new privileges)");
	return true;
}

/* "N held" for --env and the self-test. */
static void caps_held(char *buf, size_t len)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0) {
		snprintf(buf, len, "unknown (%s)", strerror(errno));
		return;
	}
	int n = __builtin_popcount(d[0].effective | d[0].permitted) + __builtin_popcount(d[1].effective | d[1].permitted);
	if (n)
		snprintf(buf, len, "%d held", n);
	else
		snprintf(buf, len, "none");
}

int ws_sandbox_enter(const char *const *readable, size_t n, bool live, struct ws_sandbox_status *st)
{
	memset(st, 0, sizeof *st);
	st->no_new_privs = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
	bool proc = false;
#ifdef WS_SANITIZER_BUILD
	proc = true;      /* LeakSanitizer reads /proc/self/maps and /proc/PID/task at exit */
#endif
	int abi = ws_landlock_enter(readable, n, proc, st->landlock_note, sizeof st->landlock_note);
	st->landlock = abi > 0;
	st->landlock_abi = abi > 0 ? abi : 0;
	st->caps_dropped = drop_caps(st->caps_note, sizeof st->caps_note);
	st->seccomp = load_filter(live, st->seccomp_note, sizeof st->seccomp_note) == 0;
	if (st->seccomp)
		snprintf(st->seccomp_note, sizeof st->seccomp_note, "allowlist of %zu rules%s, others EPERM",
			 sizeof allowlist / sizeof *allowlist, live ? " and the live check's sockets" : "");
	return st->seccomp ? 0 : -1;
}

void ws_sandbox_probe(struct ws_sandbox_status *st)
{
	memset(st, 0, sizeof *st);
	st->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && seccomp_api_get() >= 1;
	snprintf(st->seccomp_note, sizeof st->seccomp_note, st->seccomp ?
		 "allowlist of %zu rules, others EPERM" : "unavailable: the kernel has no seccomp filters",
		 sizeof allowlist / sizeof *allowlist);
	st->landlock_abi = ws_landlock_abi(st->landlock_note, sizeof st->landlock_note);
	st->landlock = st->landlock_abi > 0;
	if (st->landlock)
		snprintf(st->landlock_note, sizeof st->landlock_note, "ABI %d: reads beneath the inputs only, no writes",
			 st->landlock_abi);
	char held[64];
	caps_held(held, sizeof held);
	snprintf(st->caps_note, sizeof st->caps_note, "%s now; all dropped before decoding", held);
	st->caps_dropped = true;
	st->no_new_privs = true;
}

void ws_sandbox_describe(const struct ws_sandbox_status *st, char *buf, size_t len, const char *sep)
{
	snprintf(buf, len, "seccomp: %s%slandlock: %s%scapabilities: %s", st->seccomp_note, sep,
		 st->landlock ? st->landlock_note : st->landlock_note[0] ? st->landlock_note : "not applied", sep,
		 st->caps_note);
}

void ws_sandbox_selftest(const char *file)
{
	const char *d = getenv("WHEELSCAN_SANDBOX_TEST_DIR"), *p = getenv("WHEELSCAN_SANDBOX_TEST_PID");
	struct ws_escape_ctx c = {.dir = d && *d ? d : "/nonexistent/wheelscan-sandbox-test",
				  .file = file ? file : "/nonexistent/wheelscan-sandbox-test/file",
				  .pid = p ? (pid_t)atoi(p) : 0, .wfd = -1};
	char caps[64];
	caps_held(caps, sizeof caps);
	int rd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;
	int rde = errno;
	if (rd >= 0)
		close(rd);
	fprintf(stderr, "sandbox test: seccomp=%d nnp=%d caps=%s read-input=%s\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0),
		prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), caps, rd >= 0 ? "ok" : ws_errno_name(rde));
	for (size_t i = 0; i < ws_nescapes; i++) {
		char out[300];
		if (!strcmp(ws_escapes[i].name, "x32")) {
			fprintf(stderr, "sandbox escape %s: not tried (kills the process; see the probe test)\n",
				ws_escapes[i].name);
			continue;
		}
		ws_escape_run(&ws_escapes[i], &c, out, sizeof out);
		fprintf(stderr, "sandbox escape %s: %s\n", ws_escapes[i].name, out);
	}
}
