#!/bin/sh
# wheel.sh - the pip-installable wheel: scripts/build-wheel packs the binary and its
# non-system libraries; pip installs it into a throw-away venv, and the `wheelscan` it puts
# on PATH runs the example from the bundled libraries, with the documented exit statuses and
# SIGPIPE behaviour. WS_WHEEL=FILE tests that wheel (make test: the one in dist/) instead.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# the wheel packs the plain binary: the sanitizer pass has nothing of its own to check here
case "${WS_BUILD:-build}" in *san*) echo "skipped: the wheel on the sanitizer build (it packs the plain binary)"; echo "0 passed, 0 failed, 1 skipped"; exit 0;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# a missing tool is one line naming it (and a failure: a check that cannot run must not pass)
for t in python3 patchelf readelf ldd; do
	command -v "$t" >/dev/null || { echo "FAIL: wheel.sh needs $t, which is missing (make deps-test)"; echo "0 passed, 1 failed"; exit 1; }
done
python3 -c 'import venv, ensurepip' 2>/dev/null || { echo "FAIL: wheel.sh needs python3 -m venv with pip, which $(command -v python3) lacks (Debian: python3-venv; make deps-test)"; echo "0 passed, 1 failed"; exit 1; }
whl=${WS_WHEEL:-}
if [ -z "$whl" ]; then
	whl=$(scripts/build-wheel "${WS_BIN_REAL:-$WS_BIN}" 0.0.0 "$tmp/dist" 2>"$tmp/log") || { bad "scripts/build-wheel failed: $(tail -n 1 "$tmp/log")"; whl=""; }
fi
case "$(basename "$whl")" in
wheelscan-*-py3-none-manylinux_2_[0-9]*_x86_64.whl) ok;;
*) bad "wheel name '$whl' is not wheelscan-VERSION-py3-none-manylinux_2_NN_x86_64.whl";;
esac
if ! python3 -m venv "$tmp/venv" >"$tmp/log" 2>&1; then
	bad "python3 -m venv failed (Debian: python3-venv): $(tail -n 2 "$tmp/log")"
elif ! "$tmp/venv/bin/pip" install --no-index --quiet "$whl" >"$tmp/log" 2>&1; then
	bad "pip install $whl: $(tail -n 3 "$tmp/log")"
else
	ok
	W=$tmp/venv/bin/wheelscan
	[ -x "$W" ] && ok || bad "no wheelscan on the venv's PATH"
	out=$(PATH=$tmp/venv/bin:/usr/bin:/bin wheelscan --gpu 'RTX 5090,H100' \
		testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl 2>&1); rc=$?
	[ $rc -eq 1 ] && ok || bad "the example through the installed wheelscan: exit $rc, not 1: $out"
	printf '%s\n' "$out" | grep -q "=> GeForce RTX 5090 (sm_120): will NOT run" && ok || bad "the example's verdict: $out"
	printf '%s\n' "$out" | grep -q "=> H100 (sm_90): will NOT run" && ok || bad "the example's H100 verdict: $out"
	# the installed binary loads the bundled libraries, not the system's
	exe=$(find "$tmp/venv" -path '*/wheelscan_bin/bin/wheelscan')
	for lib in libzip libelf libcrypto liblz4 libzstd; do
		ldd "$exe" | grep "$lib" | grep -q "$tmp/venv" && ok || bad "$lib does not come from the wheel: $(ldd "$exe" | grep "$lib")"
	done
	"$W" testdata/fixtures/multi.so >/dev/full 2>"$tmp/err"; rc=$?
	[ $rc -eq 4 ] && grep -q "write error: No space left on device" "$tmp/err" && ok || bad "installed: /dev/full exit $rc"
	res=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, len(p.stderr))' "$W" testdata/fixtures/multi.so)
	[ "$res" = "-13 0" ] && ok || bad "installed wheelscan into a closed pipe: '$res', not killed by SIGPIPE quietly"
	"$W" --version | grep -q '^wheelscan ' && ok || bad "--version"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
