#!/bin/sh
# cli.sh - the option table, --help and the man page agree; usage errors exit 2.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
help=$("$WS_BIN" --help) || bad "--help exits non-zero"
for opt in $(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	name=${opt#--}
	# mdoc writes "Fl \-name"
	if grep -q -- "Fl \\\\-$name\\b" man/wheelscan.1; then ok; else bad "option $opt missing from man/wheelscan.1"; fi
done
# every option the man page documents exists
for name in $(grep -o 'Fl \\-[a-z][a-z-]*' man/wheelscan.1 | sed 's/Fl \\-//' | sort -u); do
	if printf '%s\n' "$help" | grep -q -- "--$name\\b"; then ok; else bad "man page documents --$name, which --help lacks"; fi
done
"$WS_BIN" --version | grep -q '^wheelscan [0-9]' && ok || bad "--version"
"$WS_BIN" >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no input: exit 2"
"$WS_BIN" --bogus x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown option: exit 2"
"$WS_BIN" --jobs 0 x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--jobs 0: exit 2"
err=$("$WS_BIN" --gpu rtx5900 x 2>&1); rc=$?
[ $rc -eq 2 ] && ok || bad "unknown GPU: exit $rc"
printf '%s' "$err" | grep -q "did you mean 'GeForce RTX 5090'" && ok || bad "unknown GPU suggestion: $err"
"$WS_BIN" --list-gpus | grep -q 'RTX 5090' && ok || bad "--list-gpus lacks RTX 5090"

# Every output kind checks its writes: to a full disk, one line naming the error, status 4.
FX=testdata/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
full() {   # full WHAT ARGS...: the run into /dev/full exits 4 with one line on stderr
	what=$1; shift
	"$WS_BIN" "$@" > /dev/full 2> "$tmp/err"; rc=$?
	[ $rc -eq 4 ] && ok || bad "$what into /dev/full: exit $rc, not 4"
	if [ "$(cat "$tmp/err")" = "wheelscan: write error: No space left on device" ]; then ok
	else bad "$what into /dev/full: stderr '$(cat "$tmp/err")'"; fi
}
full text "$FX/multi.so"
full json --json "$FX/multi.so"
full jsonl --jsonl "$FX/multi.so"
full markdown --format markdown "$FX/multi.so"
full quiet -q --gpu sm_90 "$FX/multi.so"
full list-gpus --list-gpus
full env --env
full env-json --env --json
full help --help
full version --version
full baseline --baseline "$FX/old-only.so" "$FX/multi.so"
full baseline-json --json --baseline "$FX/old-only.so" "$FX/multi.so"
# no more work after the first failure: a tree of many files stops at the first artifact
"$WS_BIN" -r "$FX" --jobs 1 > /dev/full 2> "$tmp/err"; rc=$?
[ $rc -eq 4 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok || bad "-r into /dev/full: exit $rc, stderr $(cat "$tmp/err")"
# a closed standard output is a write error too
"$WS_BIN" "$FX/multi.so" >&- 2> "$tmp/err"; rc=$?
[ $rc -eq 4 ] && grep -q '^wheelscan: write error: Bad file descriptor$' "$tmp/err" && ok || bad ">&-: exit $rc, $(cat "$tmp/err")"
# SIGPIPE keeps its default: into a pipe whose reader is gone, wheelscan dies of the signal
# quietly (the pipe's read end is closed before it starts, so this does not race)
res=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, len(p.stderr))' "$WS_BIN" "$FX/multi.so")
[ "$res" = "-13 0" ] && ok || bad "closed pipe: '$res', not killed by SIGPIPE (-13) with nothing on stderr"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
