#!/bin/sh
# golden.sh - golden CLI tests: each testdata/golden/NAME.args holds the arguments
# (shell words, run from the repository root); NAME.out, NAME.err and NAME.rc hold the
# expected stdout, stderr and exit status. GOLDEN_UPDATE=1 rewrites the expectations.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
# hermetic: a machine with a GPU must not turn the bare runs into judgements of its GPU
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1
# A case may set variables in NAME.env (one VAR=value a line); @FAKE_LIBCUDA@ there stands for
# the stand-in driver src/test/fake_libcuda.c, built here once.
fake=""
for args in testdata/golden/*.args; do
	name=${args%.args}
	eval "set -- $(cat "$args")"
	if [ -f "$name.env" ]; then
		if [ -z "$fake" ] && grep -q @FAKE_LIBCUDA@ "$name.env"; then
			fake=$tmp/libcuda.so.1
			${CC:-cc} -shared -fPIC -O1 -o "$fake" src/test/fake_libcuda.c || { echo "cannot build the stand-in driver"; exit 1; }
		fi
		( while IFS= read -r line; do
			[ -n "$line" ] && export "$(printf '%s' "$line" | sed "s|@FAKE_LIBCUDA@|$fake|")"
		  done <"$name.env"
		  "$WS_BIN" --jobs 2 --no-progress "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc" )
	else
		"$WS_BIN" --jobs 2 --no-progress "$@" >"$tmp/out" 2>"$tmp/err"
		echo $? >"$tmp/rc"
	fi
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$tmp/out" "$name.out"; cp "$tmp/err" "$name.err"; cp "$tmp/rc" "$name.rc"
	fi
	ok=1
	for k in out err rc; do
		if ! cmp -s "$tmp/$k" "$name.$k"; then
			ok=0
			echo "FAIL $name.$k"
			diff -u "$name.$k" "$tmp/$k" | head -30
		fi
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
