#!/bin/sh
# tsan.sh - the task pool under ThreadSanitizer: the pool's own test, then scans that put
# every kind of task on it at once (files, zip members, a large member's read-ahead and
# its entry payloads, --baseline's two sides) with more threads than CPUs. Any race
# report fails. glibc's tzset (called by libzip for member times) is suppressed: its
# lock is inside the uninstrumented C library, where ThreadSanitizer cannot see it.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_TSAN_BUILD:=build-tsan}"
bin=$WS_TSAN_BUILD/wheelscan
pass=0 fail=0
supp=$(mktemp) err=$(mktemp)
trap 'rm -f "$supp" "$err"' EXIT
printf 'race:tzset_internal\n' >"$supp"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$supp"
run() {
	"$@" >/dev/null 2>"$err"
	rc=$?
	if [ $rc -eq 66 ] || grep -q "ThreadSanitizer" "$err"; then
		fail=$((fail + 1)); echo "FAIL $*"; grep -A14 "WARNING: ThreadSanitizer" "$err" | head -20
	elif [ $rc -gt 3 ]; then
		fail=$((fail + 1)); echo "FAIL $*: exit $rc"; head -5 "$err"
	else
		pass=$((pass + 1))
	fi
}
run "$WS_TSAN_BUILD/test_pool"
# the sandbox would stop the symbolizer that names a race's stack: off here only
run "$bin" --no-sandbox --no-progress --jobs 4 --json -r testdata/fixtures
run "$bin" --no-sandbox --no-progress --jobs 3 -vvv testdata/hostile/elves-in-ar-in-zip.zip testdata/fixtures/multi.so
run "$bin" --no-sandbox --no-progress --jobs 4 --baseline testdata/fixtures/example.whl \
	testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl
# a member past the read-ahead threshold (8 MiB) with compressed entries: every task kind
big=corpus/bitsandbytes-0.48.2-py3-none-manylinux_2_24_x86_64.whl
[ -f "$big" ] && run "$bin" --no-sandbox --no-progress --jobs 3 -v "$big"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
