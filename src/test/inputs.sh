#!/bin/sh
# inputs.sh - how inputs are found: -r trees (symlink loops, unreadable files, zips by
# content without a .whl name), --files-from, --shard, --jobs and output order.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
t=$(mktemp -d); trap 'chmod -R u+rwx "$t"; rm -rf "$t"' EXIT
F=testdata/fixtures
mkdir -p "$t/mirror/a/b" "$t/mirror/http-v2/c/d"
cp $F/multi.so "$t/mirror/a/"
cp $F/old-only.so "$t/mirror/a/b/"
cp $F/example.whl "$t/mirror/http-v2/c/d/0f3a9b2c1body"      # pip's cache: a wheel without a name
cp $F/README.md "$t/mirror/notes.txt"
ln -s .. "$t/mirror/a/b/loop"                               # a symlink loop
ln -s ../a/multi.so "$t/mirror/http-v2/link.so"             # a link to a file is scanned
out=$(timeout 60 "$WS_BIN" --no-progress --json -r "$t/mirror" 2>"$t/err"); rc=$?
check "-r exits 0 ($rc)" '[ $rc -eq 0 ]'
n=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["artifacts"]))')
check "-r finds 5 files, not following the loop ($n)" '[ "$n" = 5 ]'
types=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(a["type"] for a in d["artifacts"]))')
check "sorted order and types by content ($types)" '[ "$types" = "elf elf wheel elf other" ]'
if [ "$(id -u)" != 0 ]; then
	cp $F/multi.so "$t/mirror/secret.so"; chmod 000 "$t/mirror/secret.so"
	"$WS_BIN" --no-progress -r "$t/mirror" >/dev/null 2>"$t/err"; rc=$?
	check "unreadable file: exit 3 ($rc)" '[ $rc -eq 3 ]'
	check "unreadable file named" 'grep -q "secret.so.*Permission denied" "$t/err"'
	rm -f "$t/mirror/secret.so"
fi
printf '%s\n%s\n' $F/multi.so $F/ptx-only-80.fatbin > "$t/list"
out=$("$WS_BIN" --no-progress -q --files-from "$t/list"); rc=$?
check "--files-from reads the list" 'printf "%s" "$out" | grep -q "ptx-only-80.fatbin"'
out=$(printf '%s\n' $F/k_exe | "$WS_BIN" --no-progress -q --files-from -)
check "--files-from - reads stdin" 'printf "%s" "$out" | grep -q "k_exe"'
# --shard: the shares are disjoint and together make the whole
all=$("$WS_BIN" --no-progress --jsonl $F/*.fatbin | wc -l)
s1=$("$WS_BIN" --no-progress --jsonl --shard 1/3 $F/*.fatbin | wc -l)
s2=$("$WS_BIN" --no-progress --jsonl --shard 2/3 $F/*.fatbin | wc -l)
s3=$("$WS_BIN" --no-progress --jsonl --shard 3/3 $F/*.fatbin | wc -l)
check "--shard 1/3+2/3+3/3 = all ($s1+$s2+$s3 vs $all)" '[ $((s1 + s2 + s3)) -eq $all ] && [ $s1 -gt 0 ] && [ $s2 -gt 0 ] && [ $s3 -gt 0 ]'
cat_all=$( ("$WS_BIN" --no-progress --jsonl --shard 1/3 $F/*.fatbin; "$WS_BIN" --no-progress --jsonl --shard 2/3 $F/*.fatbin; "$WS_BIN" --no-progress --jsonl --shard 3/3 $F/*.fatbin) | sort | md5sum)
one=$("$WS_BIN" --no-progress --jsonl $F/*.fatbin | sort | md5sum)
check "--shard shares concatenate to the whole run" '[ "$cat_all" = "$one" ]'
"$WS_BIN" --shard 4/3 x >/dev/null 2>&1; rc=$?
check "--shard 4/3 is a usage error" '[ $rc -eq 2 ]'
# the output does not depend on --jobs
j1=$("$WS_BIN" --no-progress --json -j 1 $F/*.so $F/*.whl 2>/dev/null | md5sum)
j4=$("$WS_BIN" --no-progress --json -j 4 $F/*.so $F/*.whl 2>/dev/null | md5sum)
check "--jobs 1 and 4 give the same JSON" '[ "$j1" = "$j4" ]'
w1=$("$WS_BIN" --no-progress --json -j 1 $F/example.whl | md5sum)
w3=$("$WS_BIN" --no-progress --json -j 3 $F/example.whl | md5sum)
check "one wheel: --jobs 1 and 3 give the same JSON" '[ "$w1" = "$w3" ]'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
