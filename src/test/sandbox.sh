#!/bin/sh
# sandbox.sh - static scans run in the sandbox (seccomp allowlist, Landlock, no
# capabilities): the WHEELSCAN_SANDBOX_TEST self-test tries every escape of src/escape.c
# in-process (but x32, which kills; sandbox_escape.sh covers it) and each must be refused;
# reading the input still works, the report is whole, and --no-sandbox turns it all off.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0 skip=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
tmp=$(mktemp -d); sleep 600 & victim=$!
trap 'kill $victim 2>/dev/null; rm -rf "$tmp"' EXIT
selftest() {
	rm -rf "$tmp/d"; mkdir "$tmp/d"; cp testdata/fixtures/multi.so "$tmp/d/multi.so"; : >"$tmp/d/victim"
	WHEELSCAN_SANDBOX_TEST=1 WHEELSCAN_SANDBOX_TEST_DIR=$tmp/d WHEELSCAN_SANDBOX_TEST_PID=$victim \
		"$WS_BIN" --no-progress "$@" "$tmp/d/multi.so" 2>&1
}
landlock=$("$WS_BIN" --env 2>/dev/null | sed -n 's/^ *landlock: //p')
out=$(selftest)
line=$(printf '%s\n' "$out" | grep '^sandbox test:')
echo "$line"
check "seccomp filter active" 'echo "$line" | grep -q "seccomp=2 "'
check "no new privileges" 'echo "$line" | grep -q "nnp=1 "'
check "no capability left" 'echo "$line" | grep -q "caps=none "'
check "reading the input still works" 'echo "$line" | grep -q "read-input=ok"'
check "the report is complete under the sandbox" 'echo "$out" | grep -q "sm_120"'
n=0
for r in $(printf '%s\n' "$out" | sed -n 's/^sandbox escape \([^:]*\): \([^ ]*\).*/\1=\2/p'); do
	n=$((n + 1)); name=${r%%=*} res=${r#*=}
	case $name in
	openat2|clone3) want=ENOSYS;;
	read-outside) want=EACCES
		if ! echo "$landlock" | grep -q '^ABI'; then
			echo "skipped: read-outside: Landlock is unavailable here ($landlock)"; skip=$((skip + 1)); continue
		fi;;
	x32) want=not;;
	*) want=EPERM;;
	esac
	check "self-test: $name refused ($want, got $res)" '[ "$res" = "$want" ]'
done
check "the self-test tried at least 20 escapes ($n)" '[ $n -ge 20 ]'
out=$(selftest --no-sandbox)
check "--no-sandbox leaves the process alone" 'echo "$out" | grep -q "seccomp=0 nnp=0"'
check "--no-sandbox: the escapes get through" 'echo "$out" | grep -q "^sandbox escape open-create: ok"'
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
