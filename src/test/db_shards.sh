#!/bin/sh
# db_shards.sh - the store's two weak spots, each from both sides:
# 1. What counts as unchanged: a file rewritten at the same size within the same second
#    (mtimes 500 ns apart, so a store that keeps seconds, milliseconds or microseconds
#    fails) is read again, and one whose mtime is exactly the same is not (the store is
#    trusted on size and mtime, db.sh).
# 2. How --shard and --db agree on a run's share: shards writing one store, and shards
#    writing a store each and merged, give the --report of one full run, before and after
#    files are deleted; a shard marks removed the deleted files of its own share, and no
#    file of another shard's share.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
: "${WS_BIN:=$PWD/build/wheelscan}"
REAL=${WS_BIN_REAL:-$WS_BIN}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
F=$PWD/testdata/fixtures
sql() { python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for r in c.execute(sys.argv[2]): print("|".join(str(x) for x in r))' "$@"; }
reads() { sed -n 's/^wheelscan: store .*: \([0-9]*\) files read, .*/\1/p' "$1"; }
W() { "$REAL" --no-progress --gpu sm_90 "$@"; }

# ---- 1. a same-size rewrite within the same second --------------------------------------
mkdir "$t/p"
cp "$F/multi.so" "$t/p/x.so"
touch -d '@1700000000.100000000' "$t/p/x.so"
if [ "$(stat -c %y "$t/p/x.so" | sed 's/.*\.\([0-9]*\).*/\1/')" != 100000000 ]; then
	skip_all "this file system does not keep nanosecond modification times" no
fi
W --db "$t/p.db" -r "$t/p" >/dev/null 2>"$t/e1"
# the same size, other bytes: the last byte changed (ELF section data nobody reads)
python3 -c 'import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[-1] ^= 0xff; open(p, "wb").write(b)' "$t/p/x.so"
touch -d '@1700000000.100000500' "$t/p/x.so"
W --db "$t/p.db" -r "$t/p" >/dev/null 2>"$t/e2"
check "a same-size rewrite 500 ns later in the same second is read again ($(reads "$t/e2"))" '[ "$(reads "$t/e2")" = 1 ]'
s1=$(sql "$t/p.db" "select sha256 from artifact where path = 'x.so' and removed_run is null")
s2=$(sha256sum "$t/p/x.so" | cut -d' ' -f1)
check "... and the store holds the new file's digest" '[ "$s1" = "$s2" ]'
W --db "$t/p.db" -r "$t/p" >/dev/null 2>"$t/e3"
check "the same size and the same nanosecond: not read again ($(reads "$t/e3"))" '[ "$(reads "$t/e3")" = 0 ]'
touch -d '@1700000001.100000500' "$t/p/x.so"
W --db "$t/p.db" -r "$t/p" >/dev/null 2>"$t/e4"
check "one second later, nanoseconds alike: read again ($(reads "$t/e4"))" '[ "$(reads "$t/e4")" = 1 ]'

# ---- 2. shards and the store -------------------------------------------------------------
mkdir "$t/m"
for i in $(seq 1 12); do
	for f in multi.so old-only.so sm_90.cubin; do cp "$F/$f" "$t/m/$i-$f"; done
done
report() { W --db "$1" --report --json 2>/dev/null; }
W --db "$t/full.db" -r "$t/m" >/dev/null 2>&1
report "$t/full.db" >"$t/full.json"
W --shard 1/2 --db "$t/one.db" -r "$t/m" >/dev/null 2>&1
W --shard 2/2 --db "$t/one.db" -r "$t/m" >/dev/null 2>&1
report "$t/one.db" >"$t/one.json"
check "two shards into one store: the report of one full run" 'cmp -s "$t/one.json" "$t/full.json"'
n=$(sql "$t/one.db" "select count(*), sum(removed_run is null) from artifact")
check "... every file once, none removed ($n)" '[ "$n" = "36|36" ]'
W --shard 1/2 --db "$t/a.db" -r "$t/m" >/dev/null 2>&1
W --shard 2/2 --db "$t/b.db" -r "$t/m" >/dev/null 2>&1
W --db "$t/ab.db" --merge "$t/a.db" "$t/b.db" >/dev/null 2>&1
report "$t/ab.db" >"$t/ab.json"
check "two shard stores merged: the report of one full run" 'cmp -s "$t/ab.json" "$t/full.json"'
# one deleted file in each shard's share
d1=$(sql "$t/a.db" "select path from artifact order by path limit 1")
d2=$(sql "$t/b.db" "select path from artifact order by path limit 1")
rm "$t/m/$d1" "$t/m/$d2"
W --shard 1/2 --db "$t/one.db" -r "$t/m" >/dev/null 2>&1
gone=$(sql "$t/one.db" "select path from artifact where removed_run is not null order by path" | paste -sd' ' -)
check "shard 1 marks removed its own deleted file, not shard 2's ($gone)" '[ "$gone" = "$d1" ]'
W --shard 2/2 --db "$t/one.db" -r "$t/m" >/dev/null 2>&1
gone=$(sql "$t/one.db" "select path from artifact where removed_run is not null order by path" | paste -sd' ' -)
want=$(printf '%s\n%s\n' "$d1" "$d2" | sort | paste -sd' ' -)
check "shard 2 then marks its own ($gone)" '[ "$gone" = "$want" ]'
W --db "$t/full.db" -r "$t/m" >/dev/null 2>&1
report "$t/full.db" >"$t/full2.json"
report "$t/one.db" >"$t/one2.json"
check "after the deletions: one store of shards = one full run" 'cmp -s "$t/one2.json" "$t/full2.json"'
check "... and the report changed (the deleted files are gone from it)" '! cmp -s "$t/full.json" "$t/full2.json"'
W --shard 1/2 --db "$t/a.db" -r "$t/m" >/dev/null 2>&1
W --shard 2/2 --db "$t/b.db" -r "$t/m" >/dev/null 2>&1
W --db "$t/ab.db" --merge "$t/a.db" "$t/b.db" >/dev/null 2>&1
report "$t/ab.db" >"$t/ab2.json"
check "after the deletions: shard stores merged = one full run" 'cmp -s "$t/ab2.json" "$t/full2.json"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
