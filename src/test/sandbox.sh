#!/bin/sh
# sandbox.sh - static scans run under the seccomp filter: no writes, no sockets, no
# new processes; reading (the inputs) still works, and --no-sandbox turns it off.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
out=$(WHEELSCAN_SANDBOX_TEST=1 "$WS_BIN" --no-progress testdata/fixtures/multi.so 2>&1)
line=$(printf '%s\n' "$out" | grep '^sandbox test:')
echo "$line"
check "seccomp filter active" 'echo "$line" | grep -q "seccomp=2 "'
check "no file opened for writing" 'echo "$line" | grep -q "write-open=EACCES"'
check "no temporary file created" 'echo "$line" | grep -q "mkstemp=EACCES"'
check "no socket" 'echo "$line" | grep -q "socket=EPERM"'
case "${WS_BUILD:-build}" in
*san*) ;;  # LeakSanitizer needs fork and ptrace at exit: the ASan build leaves them open
*) check "no fork" 'echo "$line" | grep -q "fork=EPERM"' ;;
esac
check "reading still works" 'echo "$line" | grep -q "read-open=ALLOWED"'
check "the report is complete under the sandbox" 'echo "$out" | grep -q "sm_120"'
out=$(WHEELSCAN_SANDBOX_TEST=1 "$WS_BIN" --no-sandbox --no-progress testdata/fixtures/multi.so 2>&1)
check "--no-sandbox leaves the process alone" 'echo "$out" | grep -q "seccomp=0 write-open=ALLOWED"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
