#!/bin/sh
# valgrind.sh - wheelscan under valgrind on a real CUDA library (or a fixture when none
# is installed) and on a wheel with one and two jobs: no invalid access, no leak.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_BUILD:=build}"
: "${WS_BIN:=$PWD/$WS_BUILD/wheelscan}"
WS_BIN=${WS_BIN_REAL:-$WS_BIN}          # the binary itself, not run-all's json-tap
pass=0 fail=0
# not a skip: valgrind cannot run a sanitizer build, and the plain build's pass covers it
case "$WS_BUILD" in *san*) echo "valgrind.sh: not run on the sanitizer build (the plain build ran it)"; echo "0 passed, 0 failed"; exit 0;; esac
. src/test/skip.inc
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind not installed" yes
log=$(mktemp); trap 'rm -f "$log"' EXIT
vg() {   # vg NAME STATUS ARGS...: run wheelscan under valgrind; it must exit with STATUS
	name=$1 want=$2; shift 2
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect "$WS_BIN" --no-progress "$@" >/dev/null 2>"$log"
	rc=$?
	if [ $rc -eq "$want" ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fail=$((fail + 1)); echo "FAIL $name (exit $rc)"; sed -n 1,40p "$log"
	fi
}
lib=/usr/local/cuda/lib64/libcurand.so.10
if [ -f "$lib" ]; then
	vg "libcurand --jobs 1" 0 --jobs 1 "$lib"
else
	echo "valgrind.sh: $lib absent, using testdata/fixtures/multi.so"
	vg "multi.so --jobs 1" 0 --jobs 1 testdata/fixtures/multi.so
fi
vg "example.whl --jobs 1" 0 --jobs 1 testdata/fixtures/example.whl
vg "example.whl --jobs 2" 0 --jobs 2 testdata/fixtures/example.whl
vg "fixtures --jobs 2" 0 --jobs 2 testdata/fixtures/multi.so testdata/fixtures/libk.a testdata/fixtures/g5-speed.fatbin \
	testdata/fixtures/sm_100a.cubin testdata/fixtures/k_sm90.ptx testdata/fixtures/rdc.so
# The error paths: every hostile file but the 64 MiB bombs, in one run (exit 3).
h=$(ls testdata/hostile/* | grep -v -e EXPECTED -e bomb)
# shellcheck disable=SC2086
vg "hostile files --jobs 2" 3 --jobs 2 $h
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
