#!/bin/sh
# sandbox_escape.sh - a compromised decoder: build/escape_probe.so (LD_PRELOAD) runs one
# escape of src/escape.c from inside the first ZSTD/LZ4 decoder call of a scan. Under the
# sandbox each must be refused (the filter's errno, Landlock's EACCES, or the process
# killed); under --no-sandbox each must get through or reach the kernel's own checks, which
# proves the probe really tries it. Prints the table: escape, sandboxed, unsandboxed.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
: "${WS_BUILD:=build}"
bin=${WS_BIN_REAL:-$WS_BIN}
probe=$PWD/$WS_BUILD/escape_probe.so
[ -f "$probe" ] || skip_all "$probe is not built (make tests-built)" no
# A sanitizer runtime must come first in the list of libraries: preload it before the probe.
pre=$(ldd "$bin" | awk '/lib(asan|ubsan|tsan)\.so/ {print $3}' | paste -sd: -)
pre=${pre:+$pre:}$probe
pass=0 fail=0 skip=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
tmp=$(mktemp -d); sleep 600 & victim=$!
trap 'kill $victim 2>/dev/null; rm -rf "$tmp"' EXIT
# The expected answer under the sandbox. EPERM is the filter's default; openat2 and clone3
# get ENOSYS (libc falls back); reading outside the inputs is allowed by the filter and
# refused by Landlock; an x32 call kills the process (SIGSYS).
expect() {
	case $1 in
	openat2|clone3) echo ENOSYS;;
	read-outside) echo EACCES;;
	x32) echo "killed(SIGSYS)";;
	*) echo EPERM;;
	esac
}
# try ESCAPE INPUT [wheelscan options]: the probe's answer, or killed(SIG)
try() {
	name=$1 input=$2; shift 2
	rm -rf "$tmp/d"; mkdir "$tmp/d"; cp "$input" "$tmp/d/input"; : >"$tmp/d/victim"; echo original >"$tmp/d/held"
	# fd 3: a writable descriptor the scan inherits, as from a shell's 3<>file
	WS_ESCAPE=$name WS_ESCAPE_DIR=$tmp/d WS_ESCAPE_FILE=$tmp/d/input WS_ESCAPE_PID=$victim WS_ESCAPE_WFD=3 \
		LD_PRELOAD=$pre "$bin" --no-progress --jobs 2 "$@" "$tmp/d/input" >"$tmp/out" 2>"$tmp/err" 3<>"$tmp/d/held"
	rc=$?
	r=$(sed -n "s/^escape $name: //p" "$tmp/err" | grep -v '^trying$' | tail -n 1)
	if [ -z "$r" ] && [ $rc -gt 128 ]; then r="killed($(kill -l $((rc - 128)) 2>/dev/null | sed 's/^/SIG/'))"; fi
	echo "${r:-no answer (exit $rc)}"
}
landlock=$("$bin" --env 2>/dev/null | sed -n 's/^ *landlock: //p')
names=$(sed -n 's/^\t{"\([a-z0-9_-]*\)", t_.*/\1/p' src/escape.c)
[ "$(echo "$names" | wc -l)" -ge 20 ] || { echo "FAIL: fewer than 20 escapes in src/escape.c"; fail=$((fail + 1)); }
printf '%-20s %-16s %s\n' escape sandboxed unsandboxed
for n in $names; do
	want=$(expect "$n")
	if [ "$n" = read-outside ] && ! echo "$landlock" | grep -q '^ABI'; then
		echo "skipped: escape read-outside: Landlock is unavailable here ($landlock)"; skip=$((skip + 1)); continue
	fi
	s=$(try "$n" testdata/fixtures/multi.so)
	u=$(try "$n" testdata/fixtures/multi.so --no-sandbox)
	printf '%-20s %-16s %s\n' "$n" "$s" "$u"
	check "$n is refused under the sandbox ($want, got $s)" '[ "$s" = "$want" ]'
	if [ "$u" = "$s" ] && [ "$(id -u)" -ne 0 ]; then
		echo "skipped: escape $n: not root, the kernel refuses it anyway ($u)"; skip=$((skip + 1)); continue
	fi
	check "$n reaches the kernel under --no-sandbox (got $u)" \
		'[ "$u" != "$s" ] && case "$u" in "no answer"*|killed*|unknown) false;; esac'
done
# The scan goes on after a refused escape: the report is whole.
try open-create testdata/fixtures/multi.so >/dev/null
check "the report is complete after a refused escape" 'grep -q "sm_120" "$tmp/out"'
# The LZ4 entry point is probed as well (a fatbin compressed with LZ4).
s=$(try open-create testdata/fixtures/g5-speed.fatbin)
u=$(try open-create testdata/fixtures/g5-speed.fatbin --no-sandbox)
check "LZ4 decoding: open-create refused ($s) and reached unsandboxed ($u)" '[ "$s" = EPERM ] && [ "$u" = ok ]'
# With a results store (--db) the filter also lets SQLite write through the store's open
# descriptors (pwrite64, fsync, ftruncate, fcntl locks); nothing else opens up.
for n in open-create open-write truncate inherited-mmap inherited-pwrite inherited-ftruncate read-outside fork \
	io_uring mmap-exec x32; do
	want=$(expect "$n")
	if [ "$n" = read-outside ] && ! echo "$landlock" | grep -q '^ABI'; then continue; fi
	rm -f "$tmp/s.db"*
	s=$(try "$n" testdata/fixtures/multi.so --db "$tmp/s.db")
	rm -f "$tmp/s.db"*
	u=$(try "$n" testdata/fixtures/multi.so --db "$tmp/s.db" --no-sandbox)
	printf '%-20s %-16s %s\n' "$n --db" "$s" "$u"
	check "--db: $n is refused ($want, got $s)" '[ "$s" = "$want" ]'
	check "--db: $n reaches the kernel under --no-sandbox (got $u)" '[ "$u" != "$s" ]'
done
rm -f "$tmp/s.db"*
try open-create testdata/fixtures/multi.so --db "$tmp/s.db" >/dev/null
n=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from artifact").fetchone()[0])' "$tmp/s.db" 2>/dev/null)
check "--db in the sandbox: the artifact is stored after a refused escape ($n)" '[ "$n" = 1 ]'
# With the live check the scanning process is sandboxed as well (its CUDA workers, forked
# before, are not): a few escapes again, with the fake driver of live_cli.sh.
${CC:-cc} -shared -fPIC -O1 -o "$tmp/libcuda.so.1" src/test/fake_libcuda.c
export WHEELSCAN_LIBCUDA="$tmp/libcuda.so.1" FAKE_CUDA_DEVICES="9.0:NVIDIA H200:143771"
for n in open-create read-outside fork kill socket-unix execve io_uring x32; do
	want=$(expect "$n")
	if [ "$n" = read-outside ] && ! echo "$landlock" | grep -q '^ABI'; then continue; fi
	s=$(try "$n" testdata/fixtures/multi.so --live)
	u=$(try "$n" testdata/fixtures/multi.so --live --no-sandbox)
	printf '%-20s %-16s %s\n' "$n --live" "$s" "$u"
	check "--live: $n is refused ($want, got $s)" '[ "$s" = "$want" ]'
	check "--live: $n reaches the kernel under --no-sandbox (got $u)" '[ "$u" != "$s" ]'
done
try open-create testdata/fixtures/multi.so --live >/dev/null
check "--live in the sandbox: the driver's answer is there" 'grep -q "NVIDIA H200 (sm_90): runs: native SASS" "$tmp/out"'
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
