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
# the pip cache body has no wheel name: its package, version and tags come from the
# dist-info (METADATA, and WHEEL's Tag lines), in JSON and in the summaries' columns
body=$(printf '%s' "$out" | python3 -c 'import json,sys; a=[a for a in json.load(sys.stdin)["artifacts"] if a["path"].endswith("body")][0]["wheel"]; print(a["name"], a["version"], a["local"], a["python_tag"], a["abi_tag"], a["platform_tag"])')
check "a cache body's name, version and tags from its dist-info ($body)" '[ "$body" = "wscan-example 0.1.0+cu128 cu128 cp311 cp311 manylinux_2_28_x86_64" ]'
"$WS_BIN" --no-progress --gpu sm_90 -r "$t/mirror" >"$t/sum" 2>/dev/null
check "the text summary has package and version columns" \
	'grep -q "^  type  *package  *version  *objects" "$t/sum" && grep -q "^  wheel  *wscan-example 0.1.0+cu128  .*0f3a9b2c1body$" "$t/sum" && grep -q "^  elf  *-  *-  .*multi.so$" "$t/sum"'
"$WS_BIN" --no-progress --gpu sm_90 --format markdown -r "$t/mirror" >"$t/sum.md" 2>/dev/null
check "the Markdown summary has package and version columns" \
	'grep -q "^| artifact | package | version |" "$t/sum.md" && grep -q "0f3a9b2c1body | wscan-example | 0.1.0+cu128 |" "$t/sum.md"'
# Root reads a mode-000 file anyway, and CI runs as root: there the check runs as nobody
# (the tree made readable to it) instead of being skipped.
unpriv() {
	if [ "$(id -u)" != 0 ]; then "$@"
	elif command -v setpriv >/dev/null; then setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else su nobody -s /bin/sh -c '"$0" "$@"' -- "$@"; fi
}
chmod -R a+rX "$t"
cp $F/multi.so "$t/mirror/secret.so"; chmod 000 "$t/mirror/secret.so"
unpriv "${WS_BIN_REAL:-$WS_BIN}" --no-progress -r "$t/mirror" >/dev/null 2>"$t/err"; rc=$?
check "unreadable file: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "unreadable file named" 'grep -q "secret.so.*Permission denied" "$t/err"'
rm -f "$t/mirror/secret.so"
# an -r root that does not exist is an input error too (exit 3), not an empty, clean scan
"$WS_BIN" --no-progress -r "$t/does-not-exist" >/dev/null 2>"$t/err"; rc=$?
check "missing -r root: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "missing -r root named" 'grep -q "does-not-exist" "$t/err"'
# exit 3 wins over 1 whatever the order: a failing check first, then a corrupt input
"$WS_BIN" --no-progress --jobs 1 --gpu sm_120 $F/old-only.so $F/tampered.whl >/dev/null 2>"$t/err"; rc=$?
check "failing check then corrupt input: exit 3 ($rc)" '[ $rc -eq 3 ]'
"$WS_BIN" --no-progress --jobs 1 --gpu sm_120 $F/old-only.so >/dev/null 2>"$t/err"; rc=$?
check "a failing check alone: exit 1 ($rc)" '[ $rc -eq 1 ]'
"$WS_BIN" --no-progress "$t/does-not-exist.whl" >/dev/null 2>"$t/err"; rc=$?
check "missing file: exit 3 ($rc)" '[ $rc -eq 3 ]'
# Honesty: what a name promises and the bytes do not keep is an error naming the file, exit 3,
# and the other inputs are still reported.
mkdir -p "$t/h/dir"
printf '<html><body>404 Not Found</body></html>\n' >"$t/h/x-1.0-py3-none-any.whl"
: >"$t/h/empty-1.0-py3-none-any.whl"
python3 -c "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.writestr('a.py','x=1'); z.close()" "$t/h/nodist-1.0-py3-none-any.whl"
head -c 5000 /dev/zero | tr '\0' 'q' >"$t/h/libx.so"
cp "$t/h/libx.so" "$t/h/y.dll"
printf '/* GNU ld script\n   Use the shared library. */\nGROUP ( /lib/libc.so.6 )\n' >"$t/h/libc.so"
"$WS_BIN" --no-progress --gpu sm_120 --require sm_120 "$t/h/x-1.0-py3-none-any.whl" "$t/h/empty-1.0-py3-none-any.whl" \
	"$t/h/nodist-1.0-py3-none-any.whl" "$t/h/libx.so" "$t/h/y.dll" "$t/h/dir" "$t/h/libc.so" $F/multi.so >"$t/o" 2>"$t/err"; rc=$?
check "claims not kept: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "a 404 page named .whl" 'grep -q "x-1.0-py3-none-any.whl.: not a wheel: not a zip archive" "$t/err"'
check "an empty .whl" 'grep -q "empty-1.0-py3-none-any.whl.: not a wheel: empty file" "$t/err"'
check "a zip without dist-info named .whl" 'grep -q "nodist-1.0-py3-none-any.whl.: not a wheel: no .dist-info/WHEEL or RECORD" "$t/err"'
check "random bytes named .so" 'grep -q "libx.so.: not an ELF file" "$t/err"'
check "random bytes named .dll" 'grep -q "y.dll.: not a PE image" "$t/err"'
check "a directory without -r" 'grep -q "dir.: is a directory (use -r)" "$t/err"'
check "a linker script named .so is fine" '! grep -q "libc.so" "$t/err"'
check "the good input is still judged" 'grep -q "multi.so  (elf-so" "$t/o" && grep -q "=> sm_120: runs: native SASS" "$t/o"'
check "nothing claims no device code for a bad input" '! grep -B1 "no CUDA device code found" "$t/o" | grep -q "x-1.0-py3"'
# A -r root that is a link is followed; dangling and looping links are named; files in no
# format are counted, not listed.
mkdir -p "$t/real"; cp $F/multi.so "$t/real/"; cp $F/README.md "$t/real/notes.txt"
ln -s "$t/real" "$t/rlink"; ln -s /nonexistent "$t/real/dangling"; ln -s l1 "$t/real/l2"; ln -s l2 "$t/real/l1"
"$WS_BIN" --no-progress -r "$t/rlink" >"$t/o" 2>"$t/err"; rc=$?
check "-r on a link: exit 0 ($rc)" '[ $rc -eq 0 ]'
check "-r on a link scans its files, spelled as given" 'grep -q "rlink/multi.so  (elf-so" "$t/o"'
check "a dangling link is named" 'grep -q "skipped .*rlink/dangling: dangling symbolic link" "$t/err"'
check "a looping link is named" 'grep -q "skipped .*rlink/l1: symbolic link loop" "$t/err"'
check "skipped links counted" 'grep -q "3 symbolic links skipped" "$t/o"'
check "a file in no format is counted, not listed" 'grep -q "1 file in no package or object format" "$t/o" && ! grep -q "notes.txt" "$t/o"'
"$WS_BIN" --no-progress --json -r "$t/rlink" >"$t/o" 2>/dev/null
check "skipped links in JSON" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert sorted(s[\"reason\"] for s in d[\"skipped\"]) == [\"dangling symbolic link\", \"symbolic link loop\", \"symbolic link loop\"]" "$t/o"'
# Standard input
cat $F/example.whl | "$WS_BIN" --no-progress --gpu sm_120 - >"$t/o" 2>"$t/err"; rc=$?
check "cat x.whl | wheelscan -: exit 0 ($rc)" '[ $rc -eq 0 ]'
check "a wheel from standard input, RECORD verified" 'grep -q "^-  (wheel" "$t/o" && grep -q "RECORD  ok" "$t/o" && grep -q "=> sm_120: runs" "$t/o"'
cat $F/old-only.so | "$WS_BIN" --no-progress --gpu sm_120 - >"$t/o" 2>"$t/err"; rc=$?
check "an ELF file from standard input ($rc)" '[ $rc -eq 1 ] && grep -q "^-  (elf-so" "$t/o"'
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
# --shard hashes the path below the -r root: the same tree spelled "d", "./d/" and "/abs/d"
# (and mounted elsewhere) splits alike, and the shares partition it
mkdir -p "$t/sh/d/sub" "$t/sh/elsewhere"
for f in $F/*.fatbin $F/*.so; do cp "$f" "$t/sh/d/"; cp "$f" "$t/sh/d/sub/x-$(basename "$f")"; done
cp -r "$t/sh/d" "$t/sh/elsewhere/mirror"
total=$(ls -R "$t/sh/d" | grep -c '\.fatbin$\|\.so$')
for k in 1 2 3; do
	for root in d ./d/ "$t/sh/d" elsewhere/mirror; do
		(cd "$t/sh" && "$WS_BIN" --no-progress --jsonl --shard $k/3 -r "$root") 2>/dev/null |
			python3 -c 'import json, sys
root = sys.argv[1].rstrip("/")
for l in sys.stdin:
    p = json.loads(l)["artifact"]["path"]
    assert p.startswith(root), (p, root)
    print(p[len(root):].lstrip("/"))' "$root" | sort >"$t/sh/$k.$(printf '%s' "$root" | tr -c 'a-z' _)"
	done
	check "--shard $k/3: d, ./d/, /abs/d and a copy elsewhere pick the same files" \
		'cmp -s "$t/sh/$k.d" "$t/sh/$k.__d_" && cmp -s "$t/sh/$k.d" "$t/sh/$k.$(printf "%s" "$t/sh/d" | tr -c "a-z" _)" && cmp -s "$t/sh/$k.d" "$t/sh/$k.elsewhere_mirror"'
	check "--shard $k/3 is not empty" '[ -s "$t/sh/$k.d" ]'
done
check "--shard 1/3..3/3 partition the tree ($total files)" \
	'[ "$(cat "$t/sh/1.d" "$t/sh/2.d" "$t/sh/3.d" | sort -u | wc -l)" = "$total" ] && [ "$(cat "$t/sh/1.d" "$t/sh/2.d" "$t/sh/3.d" | wc -l)" = "$total" ]'
# plain arguments: the base name decides, wherever the file lies
(cd "$t/sh/d" && "$WS_BIN" --no-progress --jsonl --shard 2/3 *.so *.fatbin 2>/dev/null | python3 -c 'import json,sys,os; [print(os.path.basename(json.loads(l)["artifact"]["path"])) for l in sys.stdin]' | sort) >"$t/sh/rel"
"$WS_BIN" --no-progress --jsonl --shard 2/3 "$t/sh/d/"*.so "$t/sh/d/"*.fatbin 2>/dev/null | python3 -c 'import json,sys,os; [print(os.path.basename(json.loads(l)["artifact"]["path"])) for l in sys.stdin]' | sort >"$t/sh/abs"
check "--shard on operands: relative and absolute spellings pick the same files" 'cmp -s "$t/sh/rel" "$t/sh/abs" && [ -s "$t/sh/rel" ]'
"$WS_BIN" --shard 4/3 x >/dev/null 2>&1; rc=$?
check "--shard 4/3 is a usage error" '[ $rc -eq 2 ]'
# the output does not depend on --jobs
j1=$("$WS_BIN" --no-progress --json -j 1 $F/*.so $F/*.whl 2>/dev/null | md5sum)
j4=$("$WS_BIN" --no-progress --json -j 4 $F/*.so $F/*.whl 2>/dev/null | md5sum)
check "--jobs 1 and 4 give the same JSON" '[ "$j1" = "$j4" ]'
w1=$("$WS_BIN" --no-progress --json -j 1 $F/example.whl | md5sum)
w3=$("$WS_BIN" --no-progress --json -j 3 $F/example.whl | md5sum)
check "one wheel: --jobs 1 and 3 give the same JSON" '[ "$w1" = "$w3" ]'
# a FIFO named as a file is an error at once: opening it never waits for a writer
mkfifo "$t/fifo.so" 2>/dev/null
timeout 20 "$WS_BIN" --no-progress "$t/fifo.so" >/dev/null 2>"$t/fifo.err"; rc=$?
check "a FIFO is refused without waiting for a writer ($rc)" '[ $rc = 3 ] && grep -q "not a regular file" "$t/fifo.err"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
