#!/bin/sh
# hostile.sh - every file of testdata/hostile/ is scanned beside a good file: the exit
# status and the stderr line (naming the file) must match testdata/hostile/EXPECTED, no
# sanitizer may report, nothing may be killed or time out, and the good file
# (testdata/fixtures/multi.so) must still be reported in full.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_BUILD:=build}"
: "${WS_BIN:=$PWD/$WS_BUILD/wheelscan}"
good=testdata/fixtures/multi.so
dir=testdata/hostile
pass=0 fail=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $f: $*"; }
# ASan reserves terabytes of address space: cap memory only on plain builds.
# A sanitizer build runs several times slower: its CPU budget is four times larger.
case "$WS_BUILD" in *san*) vlimit="" cpu=120;; *) vlimit="ulimit -v 4194304;" cpu=30;; esac
tab=$(printf '\t')
n=0
while IFS="$tab" read -r f st opts msg; do
	case "$f" in ''|\#*) continue;; esac
	n=$((n + 1))
	[ "$opts" = - ] && opts=""
	if [ ! -f "$dir/$f" ]; then bad "missing (run scripts/gen-hostile)"; continue; fi
	# shellcheck disable=SC2086
	# a budget of CPU, not of wall time: a loaded machine (two test runs at once, a sanitizer
	# build) must not fail a file that is within it; a hang still ends at the wall limit
	sh -c "$vlimit ulimit -t $cpu; exec timeout 600 \"\$@\"" sh "$WS_BIN" --no-progress $opts "$dir/$f" "$good" >"$out" 2>"$err"
	rc=$?
	if [ $rc -eq 124 ]; then bad "hung: 600 s of wall time"; continue; fi
	if [ $rc -eq 152 ] || [ $rc -eq 137 ]; then bad "over its budget: $cpu s of CPU"; continue; fi
	if [ $rc -gt 128 ]; then bad "killed by signal $((rc - 128))"; sed -n 1,5p "$err"; continue; fi
	if grep -q -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$err"; then
		bad "sanitizer report"; sed -n 1,20p "$err"; continue
	fi
	if [ "$rc" != "$st" ]; then bad "exit $rc, expected $st"; sed -n 1,3p "$err"; continue; fi
	if [ -n "$msg" ]; then
		if ! grep -F "'$dir/$f" "$err" | grep -q -F -- "$msg"; then
			bad "stderr lacks \"$msg\" on a line naming the file"; sed -n 1,3p "$err"; continue
		fi
	elif grep -q -F "'$dir/$f" "$err"; then
		bad "unexpected error line"; sed -n 1,3p "$err"; continue
	fi
	if grep -q -F "'$good'" "$err" || ! grep -q 'sm_120' "$out" || ! grep -q 'compute_120' "$out"; then
		bad "the good file beside it was not reported in full"; continue
	fi
	ok
done <"$dir/EXPECTED"
[ "$n" -gt 0 ] || bad "no fixtures listed in $dir/EXPECTED"
# A 160 MiB cubin with no section table streams through: its memory is not its size.
# (Plain builds only: a sanitizer's shadow memory is not the scanner's.)
f=cubin-no-table-160m.fatbin
case "$WS_BUILD" in
*san*) ;;
*)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$out" "$WS_BIN" --no-progress --jobs 2 "$dir/$f" >/dev/null 2>"$err"
		kb=$(tail -n 1 "$out")
		if [ "$kb" -lt 65536 ]; then ok; else bad "peak RSS $kb KiB, over 64 MiB"; fi
	else
		echo "skipped: the memory check of $f (no /usr/bin/time)"
	fi
	;;
esac
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
