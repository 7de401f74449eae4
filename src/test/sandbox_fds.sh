#!/bin/sh
# sandbox_fds.sh - the sandbox's rules held to a reviewed list, and an escape through every
# descriptor the process holds when decoding starts.
# 1. The allowlists of src/sandbox.c (the rows of allowlist[], live_extra[], store_extra[]
#    and the masks they use) must equal the reviewed copy below: a rule widened, added or
#    moved fails here until someone reviews it and updates this copy (with the reason in
#    the commit).
# 2. build/escape_probe.so with WS_ESCAPE=every-fd tries every writing call (write, writev,
#    pwrite64, pwritev, ftruncate, fallocate, sendto, dup, dup3, F_DUPFD, fchmod, a shared
#    writable mmap) on every open descriptor from inside the first decoder call: a file
#    inherited read-write (3<>file), the write end of a pipe, a file opened for append,
#    the inputs, standard output and error. Under the sandbox only write and writev on
#    standard output and error reach the kernel; with --db the store's own descriptors get
#    pwrite64, ftruncate and the shared map too, and the inherited ones still nothing.
#    Under --no-sandbox every call reaches them (the probe really tries).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
: "${WS_BUILD:=build}"
bin=${WS_BIN_REAL:-$WS_BIN}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/reviewed" <<'REVIEWED'
#define NAMESPACES (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
#define WRITE_OPEN (O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY) | O_PATH)
[allowlist]
{A(brk)},
{SCMP_SYS(mmap), PRIVATE_MAP, 2, PROT_EXEC, 0},
{SCMP_SYS(mprotect), NONE_OF, 2, PROT_EXEC, 0},
{A(munmap)},
{A(mremap)},
{A(madvise)},
{SCMP_SYS(openat), NONE_OF, 2, WRITE_OPEN, 0},
{SCMP_SYS(openat2), DENY, 0, 0, ENOSYS},
{A(read)},
{A(pread64)},
{A(lseek)},
{A(close)},
{A(fstat)},
{A(newfstatat)},
{A(statx)},
{A(stat)},
{A(lstat)},
{A(getdents64)},
{SCMP_SYS(fcntl), EQ, 1, 0, F_GETFL},
{SCMP_SYS(fcntl), EQ, 1, 0, F_GETFD},
{SCMP_SYS(fcntl), EQ, 1, 0, F_SETFD},
{SCMP_SYS(ioctl), EQ, 1, 0, TCGETS},
{SCMP_SYS(write), EQ, 0, 0, STDOUT_FILENO},
{SCMP_SYS(write), EQ, 0, 0, STDERR_FILENO},
{SCMP_SYS(writev), EQ, 0, 0, STDOUT_FILENO},
{SCMP_SYS(writev), EQ, 0, 0, STDERR_FILENO},
{SCMP_SYS(clone), MASKED, 0, CLONE_THREAD | NAMESPACES, CLONE_THREAD},
{SCMP_SYS(clone3), DENY, 0, 0, ENOSYS},
{A(futex)},
{A(set_robust_list)},
{A(rseq)},
{A(sched_yield)},
{A(sched_getaffinity)},
{A(rt_sigprocmask)},
{A(rt_sigaction)},
{A(rt_sigreturn)},
{A(sigaltstack)},
{A(exit)},
{A(exit_group)},
{A(getpid)},
{A(gettid)},
{SCMP_SYS(tgkill), SELF, 0, 0, 0},
{A(clock_gettime)},
{A(gettimeofday)},
{A(clock_nanosleep)},
{A(nanosleep)},
{A(restart_syscall)},
{A(getrandom)},
{A(sysinfo)},
{SCMP_SYS(prctl), EQ, 0, 0, PR_GET_SECCOMP},
{SCMP_SYS(prctl), EQ, 0, 0, PR_GET_NO_NEW_PRIVS},
{SCMP_SYS(prctl), EQ, 0, 0, PR_CAPBSET_READ},
{SCMP_SYS(prctl), EQ, 0, 0, PR_GET_DUMPABLE},
{A(capget)},
#ifdef WS_SANITIZER_BUILD
{SCMP_SYS(clone), EQ, 0, 0, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED},
{A(ptrace)},
{A(wait4)},
{A(getppid)},
{SCMP_SYS(open), NONE_OF, 1, WRITE_OPEN, 0},
{A(getdents)},
{SCMP_SYS(prctl), EQ, 0, 0, PR_SET_PTRACER},
{SCMP_SYS(prctl), EQ, 0, 0, PR_SET_DUMPABLE},
{SCMP_SYS(prctl), EQ, 0, 0, PR_SET_PDEATHSIG},
#endif
[live_extra]
{A(poll)},
{A(ppoll)},
{A(sendto)},
{A(recvfrom)},
{A(recvmsg)},
{A(wait4)},
[store_extra]
{A(pwrite64)},
{A(fdatasync)},
{A(fsync)},
{A(ftruncate)},
{SCMP_SYS(fcntl), EQ, 1, 0, F_SETLK},
{SCMP_SYS(fcntl), EQ, 1, 0, F_GETLK},
{SCMP_SYS(mmap), NONE_OF, 2, PROT_EXEC, 0},
REVIEWED
# The rules as the code has them: comments and blank lines dropped, a #define's
# continuation lines joined, spaces squeezed.
python3 - src/sandbox.c >"$tmp/actual" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
src = re.sub(r"/\*.*?\*/", "", src, flags=re.S).replace("\\\n", " ")
sq = lambda s: re.sub(r"\s+", " ", s).strip()
for name in ("NAMESPACES", "WRITE_OPEN"):
    m = re.search(r"^#define %s\b(.*)$" % name, src, re.M)
    print("#define %s %s" % (name, sq(m.group(1)) if m else "(missing)"))
for table in ("allowlist", "live_extra", "store_extra"):
    m = re.search(r"static const struct allow %s\[\] = \{\n(.*?)\n\};" % table, src, re.S)
    print("[%s]" % table)
    for line in (m.group(1).splitlines() if m else ["(missing)"]):
        if line.strip():
            print(sq(line))
PY
if diff -u "$tmp/reviewed" "$tmp/actual" >"$tmp/diff"; then ok
else bad "the sandbox's allowlist differs from the reviewed copy in this test:"; sed -n '3,$p' "$tmp/diff"; fi

probe=$PWD/$WS_BUILD/escape_probe.so
if [ ! -f "$probe" ]; then
	echo "skipped: the descriptor escapes: $probe is not built (make tests-built)"
	echo "$pass passed, $fail failed, 1 skipped"; [ $fail -eq 0 ]; exit
fi
pre=$(ldd "$bin" | awk '/lib(asan|ubsan|tsan)\.so/ {print $3}' | paste -sd: -)
pre=${pre:+$pre:}$probe
cp testdata/fixtures/multi.so "$tmp/input"
# fds ESCAPE-OPTIONS...: the probe's line; fd 3 read-write file, fd 4 a pipe's write end,
# fd 5 a file opened for append
fds() {
	echo original >"$tmp/held"; : >"$tmp/appended"
	{ WS_ESCAPE=every-fd LD_PRELOAD=$pre "$bin" --no-progress --jobs 2 "$@" "$tmp/input" \
		3<>"$tmp/held" 5>>"$tmp/appended" >"$tmp/out" 2>"$tmp/err"; } 4>&1 | cat >/dev/null
	sed -n 's/^escape every-fd: //p' "$tmp/err" | tail -n 1
}
inherited_reached() {   # the calls that reached fds 3, 4 or 5 in the probe's line $1
	printf '%s\n' "${1#*reached}" | tr ' ' '\n' | grep -E ':(3|4|5)$' | paste -sd' ' -
}
r=$(fds)
echo "sandboxed:    $r"
case "$r" in "held "*3,4,5*) ok;; *) bad "the probe did not see the inherited descriptors 3, 4, 5: '$r'";; esac
[ "${r#* reached }" = "write:1 writev:1 write:2 writev:2" ] && ok || bad "under the sandbox more than the report's writes reach the kernel: '$r'"
grep -q 'sm_120' "$tmp/out" && ok || bad "the report is not whole after the descriptor escapes"
r=$(fds --db "$tmp/s.db")
echo "with --db:    $r"
x=$(inherited_reached "$r")
[ -z "$x" ] && ok || bad "--db: an inherited descriptor is reached: $x"
other=$(printf '%s\n' "${r#*reached}" | tr ' ' '\n' | grep -vE '^(write|writev):(1|2)$|^(pwrite64|ftruncate|mmap-shared):([6-9]|[1-9][0-9]+)$' | grep . | paste -sd' ' -)
[ -z "$other" ] && ok || bad "--db: calls beyond the store's (on descriptors opened after 0-5) reach the kernel: $other"
printf '%s\n' "$r" | grep -q 'pwrite64:' && ok || bad "--db: the store's descriptors were not found writable (the probe ran before the store opened?): '$r'"
rm -f "$tmp/s.db"*
r=$(fds --no-sandbox)
x=$(inherited_reached "$r")
for c in write:3 pwrite64:3 ftruncate:3 mmap-shared:3 write:4 write:5 dup:3 fchmod:3; do
	case " $x " in *" $c "*) ok;; *) bad "--no-sandbox: $c did not reach the kernel (the probe does not try it): '$x'";; esac
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
