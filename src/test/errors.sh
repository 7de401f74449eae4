#!/bin/sh
# errors.sh - every error carries its kind, and the kind, not the wording, is what JSON
# reports ("code") and what sets the exit status: one input per kind, each checked for
# its code, its exit status 3, and for being reported exactly once (a member stream's
# failure seen by the scanner must not be recorded again by the zip reader).
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_BUILD:=build}"
: "${WS_BIN:=$PWD/$WS_BUILD/wheelscan}"
pass=0 fail=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
h=testdata/hostile
# check WANT FILE [OPTIONS]: the scan exits 3, the JSON's error codes are exactly WANT,
# and there are as many errors in the JSON as lines on stderr
check() {
	want=$1 f=$2; shift 2
	"$WS_BIN" --no-progress --json "$@" "$f" >"$out" 2>"$err"
	rc=$?
	got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({e["code"] for a in d["artifacts"] for e in a["errors"]})),
      sum(len(a["errors"]) for a in d["artifacts"]))' "$out")
	lines=$(wc -l <"$err")
	if [ "${got% *}" = "$want" ] && [ "$rc" -eq 3 ] && [ "${got##* }" -eq "$lines" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $f $*: codes '${got% *}' (want '$want'), exit $rc, ${got##* } errors in JSON, $lines on stderr"
		sed -n 1,3p "$err"
	fi
}
check integrity "$h/zip-crc-lie.zip"
check limit "$h/elf-shnum-ext-huge.so"
check limit "$h/zip-bomb-limited.zip" --max-member-size=10M
check format "$h/ar-trunc.a"
check io /nonexistent/file.whl
# A deflate stream that breaks inside a member the scanner is reading: one error, named
# by the scanner with what it was reading, not a second copy from the zip reader.
check format "$h/zip-bad-deflate.whl"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
