#!/bin/sh
# mutate_map.sh - src/test/mutation/mutate-map.txt (which tests run each source file; scripts/mutate
# runs only those first) cannot fall out of date: it must list every source file of src/
# and src/core/ once and no file that is gone, name only tests that exist, and name every
# test of make check somewhere (a new test, or a new file, means: rerun scripts/mutate-map).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
# A mutation changes a line, never which files or tests exist: this check cannot catch one
[ -n "${WS_MUTATING:-}" ] && skip_all "a mutation run (the lists of files and tests are not mutated)" no
map=src/test/mutation/mutate-map.txt
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
[ -f "$map" ] || { echo "FAIL: $map is missing (scripts/mutate-map writes it)"; echo "0 passed, 1 failed"; exit 1; }
entries=$(grep -v '^#' "$map" | grep -v '^(no source):' | sed -n 's/^\([^:]*\):.*/\1/p')
for f in src/*.c src/core/*.c; do
	n=$(printf '%s\n' "$entries" | grep -cxF "$f")
	[ "$n" -eq 1 ] && ok || bad "$f is listed $n times in $map (rerun scripts/mutate-map)"
done
for f in $entries; do
	[ -f "$f" ] && ok || bad "$map lists $f, which is gone"
done
named=$(grep -v '^#' "$map" | sed 's/^[^:]*://' | tr ' ' '\n' | grep -v '^-\?$' | sort -u)
for t in $named; do
	case $t in
	test_decode_small_window) [ -f src/test/test_decode.c ];;
	test_*) [ -f "src/test/$t.c" ];;
	*) [ -f "src/test/$t.sh" ];;
	esac && ok || bad "$map names the test $t, which does not exist"
done
for t in $(ls src/test/test_*.c | sed 's|.*/||; s|\.c$||') test_decode_small_window $(ls src/test/*.sh | sed 's|.*/||; s|\.sh$||'); do
	printf '%s\n' "$named" | grep -qxF "$t" && ok || bad "the test $t is not in $map (rerun scripts/mutate-map)"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
