#!/bin/sh
# db.sh - the results store (--db): a rescan reads no unchanged file (counted, and proved
# by a same-size same-mtime swap it does not see), adding/touching/deleting files, older
# tool versions, --verify-db, new --gpu targets from the store, --report (and --since),
# corrupt and newer stores (exit 3, untouched), a lock held by another process, two
# concurrent runs, SIGKILL at random moments, and shard stores merged = one full run.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
: "${WS_BIN:=$PWD/build/wheelscan}"
# the kill loop must signal the binary itself, not the JSON-capturing wrapper
REAL=${WS_BIN_REAL:-$WS_BIN}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
F=$PWD/testdata/fixtures
sql() { python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for r in c.execute(sys.argv[2]): print("|".join(str(x) for x in r))' "$@"; }
# "N files read" from the store's summary line
reads() { sed -n 's/^wheelscan: store .*: \([0-9]*\) files read, .*/\1/p' "$1"; }
field() { sed -n "s/^wheelscan: store .* \([0-9]*\) $2.*/\1/p" "$1"; }

mkdir "$t/m"
cp $F/multi.so $F/old-only.so $F/example.whl $F/tampered.whl $F/sm_90.cubin "$t/m/"
W() { "$WS_BIN" --no-progress "$@"; }

# ---- first scan and rescan ----------------------------------------------------------
W --db "$t/s.db" --gpu sm_90 --json -r "$t/m" >"$t/j1" 2>"$t/e1"; rc1=$?
W --db "$t/s.db" --gpu sm_90 --json -r "$t/m" >"$t/j2" 2>"$t/e2"; rc2=$?
check "first scan and rescan exit as a scan does (3: tampered.whl) ($rc1 $rc2)" '[ $rc1 = 3 ] && [ $rc2 = 3 ]'
check "first scan reads every file ($(reads "$t/e1"))" '[ "$(reads "$t/e1")" = 5 ]'
check "rescan reads no unchanged file ($(reads "$t/e2"))" '[ "$(reads "$t/e2")" = 0 ]'
check "rescan: 5 from the store" '[ "$(field "$t/e2" "from the store")" = 5 ]'
check "rescan JSON identical to the scan's" 'cmp -s "$t/j1" "$t/j2"'
check "rescan repeats the stored error on stderr" 'grep -q "tampered.whl.: RECORD hash mismatch" "$t/e2"'
W --db "$t/s.db" --gpu sm_90 -r "$t/m" >"$t/x1" 2>/dev/null
W --gpu sm_90 -r "$t/m" >"$t/x2" 2>/dev/null
check "text from the store identical to a fresh scan" 'cmp -s "$t/x1" "$t/x2"'
n=$(sql "$t/s.db" "select count(*) from run")
check "every run is a history row ($n)" '[ "$n" = 3 ]'
row=$(sql "$t/s.db" "select scanned, reused, added, failed, status from run where id = 1")
check "history row of the first run ($row)" '[ "$row" = "5|0|5|1|3" ]'
row=$(sql "$t/s.db" "select dist_name, dist_version, type, length(sha256), mtime_ns > 1000000000000000000 from artifact where path = 'example.whl'")
check "artifact row: relative path, distribution, sha256, mtime in ns ($row)" '[ "$row" = "wscan-example|0.1.0+cu128|wheel|64|1" ]'
n=$(sql "$t/s.db" "select count(*) from verdict where target = 'sm_90' and object_seq = -1")
check "one artifact verdict row per target ($n)" '[ "$n" = 5 ]'

# ---- a new --gpu answered from the store: the same answer as reading the files ---------
W --db "$t/s.db" --gpu sm_120,sm_80 --json -r "$t/m" >"$t/g1" 2>"$t/ge"
W --gpu sm_120,sm_80 --json -r "$t/m" >"$t/g2" 2>/dev/null
check "new targets: no file read ($(reads "$t/ge"))" '[ "$(reads "$t/ge")" = 0 ]'
# the store keeps no library's dynamic section: its answer lacks the fresh scan's "loads"
# (the load resolution), and is the same in every other byte
noloads() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); had="loads" in d; d.pop("loads",None); print(had); print(json.dumps(d))' "$1"; }
check "new targets judged from the store = fresh scan, but for the loads the store lacks" \
	'[ "$(noloads "$t/g1" | head -1)" = False ] && [ "$(noloads "$t/g2" | head -1)" = True ] && [ "$(noloads "$t/g1" | tail -1)" = "$(noloads "$t/g2" | tail -1)" ]'
n=$(sql "$t/s.db" "select count(*) from verdict where target = 'sm_120' and object_seq = -1")
check "the new target's verdicts are stored ($n)" '[ "$n" = 5 ]'

# ---- every package type comes back from the store as it was scanned: tarballs, a .deb, -
# ---- a .conda, docker and OCI images (their images and layers), a Windows DLL; an OCI --
# ---- layout directory has no size and mtime of its own and is read every time ----------
A=$PWD/testdata/archives I=$PWD/testdata/images
mkdir "$t/p"
cp "$A/nested.tar" "$A/pkg.tar.zst" "$A/wscan-cuda-1.0-cuda_0.conda" "$A/wscan-cuda_1.0_amd64.deb" \
   "$I/docker-oci.tar" "$I/docker-legacy.tar" "$F/win-multi.dll" "$t/p/"
cp -r "$I/oci-layout" "$t/p/"
W --db "$t/p.db" --gpu sm_90 --json -r "$t/p" >"$t/p1" 2>"$t/pe1"
W --db "$t/p.db" --gpu sm_90 --json -r "$t/p" >"$t/p2" 2>"$t/pe2"
W --gpu sm_90 --json -r "$t/p" >"$t/p0" 2>/dev/null
check "package types: rescan reads only the layout directory ($(reads "$t/pe2"))" '[ "$(reads "$t/pe1")" = 8 ] && [ "$(reads "$t/pe2")" = 1 ]'
check "package types: JSON from the store = a fresh scan (images and layers included)" \
	'cmp -s "$t/p2" "$t/p0" && [ "$(grep -c "\"layers\"" "$t/p2")" -ge 3 ]'
n=$(sql "$t/p.db" "select count(*) from image_layer l join artifact a on a.id = l.artifact_id where a.path = 'docker-oci.tar'")
check "image layers are rows ($n)" '[ "$n" -ge 1 ]'

# ---- a hostile store: a view in place of a table (its reads would never end) is refused --
W --db "$t/v.db" "$F/multi.so" >/dev/null 2>&1
python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1]); c.execute("ALTER TABLE artifact RENAME TO artifact_real")
c.execute("CREATE VIEW artifact AS WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM n) SELECT a.* FROM artifact_real a, n")
c.commit()' "$t/v.db"
timeout 60 "$WS_BIN" --db "$t/v.db" --report >/dev/null 2>"$t/ve"; rc=$?
check "a store holding a view is refused at once ($rc)" '[ $rc = 3 ] && grep -q "views or triggers" "$t/ve"'

# ---- files named on the command line are keyed by their absolute path: another file of ---
# ---- the same name, size and mtime in another directory is read, not taken for the first -
mkdir "$t/na" "$t/nb"
cp "$F/sm_90.cubin" "$t/na/x.cubin"
head -c "$(wc -c <"$F/sm_90.cubin")" /dev/zero >"$t/nb/x.cubin"
touch -r "$t/na/x.cubin" "$t/nb/x.cubin"
W --db "$t/n.db" --gpu sm_90 "$t/na/x.cubin" >/dev/null 2>&1
W --db "$t/n.db" --gpu sm_90 --json "$t/nb/x.cubin" >"$t/n2" 2>"$t/ne2"
check "a same-named file elsewhere is read ($(reads "$t/ne2")), not reported from the store" \
	'[ "$(reads "$t/ne2")" = 1 ] && [ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"artifacts\"][0][\"objects\"]))" "$t/n2")" = 0 ]'

# ---- the store is trusted on size+mtime: a same-size, same-mtime swap is not seen, ----
# ---- --verify-db sees it ------------------------------------------------------------
cp -p "$t/m/multi.so" "$t/ref"
head -c "$(wc -c <"$t/ref")" /dev/zero >"$t/m/multi.so"
touch -r "$t/ref" "$t/m/multi.so"
W --db "$t/s.db" --gpu sm_90 --json -r "$t/m" >"$t/j3" 2>"$t/e3"
check "same size+mtime: reported from the store, unread" 'cmp -s "$t/j1" "$t/j3" && [ "$(reads "$t/e3")" = 0 ]'
W --db "$t/s.db" --verify-db --gpu sm_90 --json -r "$t/m" >"$t/j4" 2>"$t/e4"
ty=$(python3 -c 'import json,sys; print([a["type"] for a in json.load(open(sys.argv[1]))["artifacts"] if a["path"].endswith("multi.so")][0])' "$t/j4")
check "--verify-db: the changed file is scanned again (type $ty)" '[ "$ty" = other ]'
check "--verify-db: every file hashed, one scanned ($(reads "$t/e4"), $(field "$t/e4" scanned))" \
	'[ "$(reads "$t/e4")" = 6 ] && [ "$(field "$t/e4" scanned)" = 1 ] && [ "$(field "$t/e4" changed)" = 1 ]'
cp "$t/ref" "$t/m/multi.so"      # a new mtime: read again

# ---- add, touch, delete -------------------------------------------------------------
cp $F/sm_86-only.fatbin "$t/m/"
touch -d '2001-01-01' "$t/m/old-only.so"
rm "$t/m/sm_90.cubin"
W --db "$t/s.db" --gpu sm_90 --json -r "$t/m" >"$t/j5" 2>"$t/e5"
check "add/touch/delete: read the new, the touched, the restored file ($(reads "$t/e5"))" '[ "$(reads "$t/e5")" = 3 ]'
check "add/touch/delete: 1 added, 1 changed (multi.so back), 1 removed" \
	'[ "$(field "$t/e5" added)" = 1 ] && [ "$(field "$t/e5" changed)" = 1 ] && [ "$(field "$t/e5" removed)" = 1 ]'
row=$(sql "$t/s.db" "select removed_run is not null from artifact where path = 'sm_90.cubin'")
check "a deleted file is marked removed, not deleted ($row)" '[ "$row" = 1 ]'
W --db "$t/s.db" --gpu sm_90 --json -r "$t/m" >"$t/j6" 2>"$t/e6"
check "after that, nothing is read ($(reads "$t/e6"))" '[ "$(reads "$t/e6")" = 0 ]'
# one file only, as an operand: nothing else is marked removed
W --db "$t/s.db" --gpu sm_90 "$t/m/multi.so" >/dev/null 2>"$t/e7"
row=$(sql "$t/s.db" "select count(*) from artifact where removed_run is not null")
check "an operand run marks nothing removed ($row)" '[ "$row" = 1 ]'

# a directory the walk cannot read: its files are not marked removed (as nobody: root reads it)
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
	mkdir "$t/u" "$t/u/sub" "$t/udb"; cp $F/multi.so "$t/u/a.so"; cp $F/old-only.so "$t/u/sub/b.so"
	chmod a+rx "$t"; chmod -R a+rwX "$t/u" "$t/udb"
	unpriv() { if [ "$(id -u)" != 0 ]; then "$@"; else setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; fi; }
	unpriv "${WS_BIN_REAL:-$WS_BIN}" --no-progress --db "$t/udb/u.db" -r "$t/u" >/dev/null 2>&1
	chmod 000 "$t/u/sub"
	unpriv "${WS_BIN_REAL:-$WS_BIN}" --no-progress --db "$t/udb/u.db" -r "$t/u" >/dev/null 2>"$t/ue"; rc=$?
	chmod 755 "$t/u/sub"
	row=$(sql "$t/udb/u.db" "select count(*) from artifact where removed_run is not null")
	check "an unreadable directory: exit 3 ($rc), its files not marked removed ($row)" '[ $rc = 3 ] && [ "$row" = 0 ]'
fi

# ---- older tool or schema version: scanned again ------------------------------------
sql "$t/s.db" "update artifact set tool_version = '0.0.1' where path = 'example.whl'" >/dev/null
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("update artifact set tool_version=\"0.0.1\" where path=\"example.whl\""); c.execute("update artifact set schema_version=1 where path=\"multi.so\""); c.commit()' "$t/s.db"
W --db "$t/s.db" --gpu sm_90 -r "$t/m" >/dev/null 2>"$t/e8"
check "older tool / schema version rows are scanned again ($(reads "$t/e8"))" '[ "$(reads "$t/e8")" = 2 ]'
W --db "$t/s.db" --no-kernels --gpu sm_90 -r "$t/m" >/dev/null 2>"$t/e9"
check "other scan options (--no-kernels): every file read again ($(reads "$t/e9"))" '[ "$(reads "$t/e9")" = 5 ]'

# ---- --report: from the store alone -------------------------------------------------
W --db "$t/s.db" --gpu sm_90 --json -r "$t/m" >"$t/j10" 2>/dev/null
W --db "$t/s.db" --report --gpu sm_90 --json --detail entry >"$t/r1" 2>"$t/re"; rc=$?
check "--report exits as the scan did ($rc)" '[ $rc = 3 ]'
sed "s|$t/m/||g" "$t/j10" >"$t/j10rel"
check "--report --detail entry JSON = the scan's (paths below the root)" 'cmp -s "$t/r1" "$t/j10rel"'
# a store's report is for mirrors: the verdicts per artifact unless asked for more
W --db "$t/s.db" --report --gpu sm_90 --json >"$t/r1a" 2>/dev/null
W --db "$t/s.db" --gpu sm_90 --json --detail artifact -r "$t/m" 2>/dev/null | sed "s|$t/m/||g" >"$t/j10a"
check "--report JSON defaults to --detail artifact, as the scan's at that level" \
	'grep -q "\"detail\":\"artifact\"" "$t/r1a" && ! grep -q "\"objects\":\[" "$t/r1a" && cmp -s "$t/r1a" "$t/j10a"'
W --db "$t/s.db" --report --gpu sm_120 --format markdown >"$t/r2" 2>/dev/null
check "--report --format markdown names a target never scanned" 'grep -q "sm_120" "$t/r2"'
W --db "$t/s.db" --report --since 2000-01-01 --json >"$t/r3" 2>"$t/re3"
check "--report --since: lists the removed file on stderr" 'grep -q "removed since 2000-01-01: sm_90.cubin" "$t/re3"'
W --db "$t/s.db" --report --since 2999-01-01 --json >"$t/r4" 2>/dev/null
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["artifacts"]))' "$t/r4")
check "--report --since the future: no artifact ($n)" '[ "$n" = 0 ]'
W --db "$t/s.db" --report --since 2999-01-01 >"$t/r5" 2>"$t/re5"; rc=$?
check "--report --since with nothing new says so ($rc)" \
	'[ $rc = 0 ] && grep -q "s.db: nothing added or changed since 2999-01-01$" "$t/re5"'
W --db "$t/s.db" --report --since 2000-01-01 >/dev/null 2>"$t/re6"
check "--report --since with news: no such line" '! grep -q "nothing added or changed" "$t/re6"'
W --db "$t/s.db" --report --since yesterday >/dev/null 2>&1; rc=$?
check "--since with a bad date: usage error ($rc)" '[ $rc = 2 ]'
W --db "$t/nonexistent.db" --report >/dev/null 2>"$t/re5"; rc=$?
check "--report on a missing store: exit 3, no store created ($rc)" '[ $rc = 3 ] && [ ! -e "$t/nonexistent.db" ]'

# ---- corrupt and foreign stores: exit 3, never rebuilt ------------------------------
head -c 9000 /dev/urandom >"$t/bad.db"; cp "$t/bad.db" "$t/bad.ref"
W --db "$t/bad.db" -r "$t/m" >/dev/null 2>"$t/be"; rc=$?
check "a store that is not a database: exit 3 ($rc)" '[ $rc = 3 ] && grep -q "bad.db.*not a database" "$t/be"'
check "... and the file is left as it was" 'cmp -s "$t/bad.db" "$t/bad.ref"'
W --db "$t/s.db" --report >/dev/null 2>&1
cp "$t/s.db" "$t/cut.db"; cp "$t/s.db-wal" "$t/cut.db-wal" 2>/dev/null
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma wal_checkpoint(truncate)")' "$t/cut.db"
sz=$(wc -c <"$t/cut.db"); head -c $((sz / 2)) "$t/cut.db" >"$t/cut2.db"; rm -f "$t/cut.db"*
W --db "$t/cut2.db" --report >/dev/null 2>"$t/ce"; rc=$?
check "a truncated store: exit 3 ($rc)" '[ $rc = 3 ] && grep -q "cut2.db" "$t/ce"'
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table x(y)"); c.commit()' "$t/foreign.db"
W --db "$t/foreign.db" -r "$t/m" >/dev/null 2>"$t/fe"; rc=$?
check "another program's database: exit 3, named ($rc)" '[ $rc = 3 ] && grep -q "not a wheelscan store" "$t/fe"'
cp "$t/s.db" "$t/new.db"; rm -f "$t/new.db-wal"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma user_version=99"); c.commit()' "$t/new.db"
W --db "$t/new.db" -r "$t/m" >/dev/null 2>"$t/ne"; rc=$?
check "a store from a newer wheelscan: exit 3 ($rc)" '[ $rc = 3 ] && grep -q "newer" "$t/ne"'

# ---- a writer holding the store: wait, or fail clearly ------------------------------
python3 -c 'import sqlite3,sys,time
c=sqlite3.connect(sys.argv[1], isolation_level=None); c.execute("begin immediate"); open(sys.argv[2],"w").close(); time.sleep(3)' \
	"$t/s.db" "$t/locked" & hp=$!
while [ ! -e "$t/locked" ]; do sleep 0.05; done
WHEELSCAN_DB_BUSY_MS=200 W --db "$t/s.db" --gpu sm_90 -r "$t/m" >/dev/null 2>"$t/le"; rc=$?
check "store locked past the timeout: exit 3 with a clear message ($rc)" '[ $rc = 3 ] && grep -q "another wheelscan run holds it" "$t/le"'
W --db "$t/s.db" --gpu sm_90 -r "$t/m" >/dev/null 2>"$t/le2"; rc=$?
check "store locked for a while: the run waits and completes ($rc)" '[ $rc = 3 ] && grep -q "from the store" "$t/le2"'
wait $hp

# ---- a bigger mirror: concurrency, SIGKILL, shards ---------------------------------
mkdir "$t/big"
for i in $(seq 1 60); do
	for f in multi.so example.whl old-only.so sm_90.cubin wscan_alts-0.1.0-py3-none-manylinux_2_28_x86_64.whl; do
		cp $F/$f "$t/big/$i-$f"
	done
done
"$REAL" --no-progress --gpu sm_90,sm_120 --db "$t/ref.db" -r "$t/big" >/dev/null 2>&1
"$REAL" --no-progress --db "$t/ref.db" --report --gpu sm_90,sm_120 --json >"$t/ref.json" 2>/dev/null

# two runs at once on one store: both complete, nothing doubled, the store is sound
"$REAL" --no-progress --jobs 1 --gpu sm_90,sm_120 --db "$t/c.db" -r "$t/big" >/dev/null 2>"$t/c1" & p1=$!
"$REAL" --no-progress --jobs 1 --gpu sm_90,sm_120 --db "$t/c.db" -r "$t/big" >/dev/null 2>"$t/c2" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
check "two concurrent runs both complete (exit 1: sm_120 fails) ($r1 $r2)" '[ $r1 = 1 ] && [ $r2 = 1 ]'
row=$(sql "$t/c.db" "pragma integrity_check")
check "... the store passes integrity_check ($row)" '[ "$row" = ok ]'
row=$(sql "$t/c.db" "select count(*), count(distinct path), sum(removed_run is not null) from artifact")
check "... one row per file, none removed ($row)" '[ "$row" = "300|300|0" ]'
# three at once over files all touched, four times: each replaces rows the others are
# reading or marking seen; none may count another's file as gone
rcs=""
for k in 1 2 3 4; do
	touch "$t/big/"*
	pids=""
	for p in 1 2 3; do "$REAL" --no-progress --jobs 2 --gpu sm_90,sm_120 --db "$t/c.db" -r "$t/big" >/dev/null 2>"$t/c$p" & pids="$pids $!"; done
	for p in $pids; do wait "$p"; rcs="$rcs$?"; done
done
row=$(sql "$t/c.db" "select count(*), sum(removed_run is not null) from artifact")
check "three runs at once, four times: all complete ($rcs), nothing marked removed ($row)" \
	'[ "$rcs" = 111111111111 ] && [ "$row" = "300|0" ] && [ "$(sql "$t/c.db" "pragma integrity_check")" = ok ]'
"$REAL" --no-progress --db "$t/c.db" --report --gpu sm_90,sm_120 --json >"$t/c.json" 2>/dev/null
check "... and reports as one run does" 'cmp -s "$t/c.json" "$t/ref.json"'

# SIGKILL at random moments over a loop; each time the store is sound and the next run resumes
# (kills spread over the first 60% of the time a full scan takes, so that most land mid-run
# whatever a run's speed that moment; every file is touched before each try, so
# that every try writes all along; the store starts afresh every fourth try)
t0=$(date +%s%N)
"$REAL" --no-progress --jobs 1 --gpu sm_90,sm_120 --db "$t/time.db" -r "$t/big" >/dev/null 2>&1
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
bad=0 killed=0
for try in 1 2 3 4 5 6 7 8 9 10 11 12; do
	[ $((try % 4)) = 1 ] && rm -f "$t/k.db" "$t/k.db-wal" "$t/k.db-shm"
	touch "$t/big/"*
	delay=$(python3 -c "import random,sys; print(random.randint(0, int(sys.argv[1]) * 6 // 10) / 1000)" "$ms")
	"$REAL" --no-progress --jobs 1 --gpu sm_90,sm_120 --db "$t/k.db" -r "$t/big" >/dev/null 2>&1 & kp=$!
	sleep "$delay"
	kill -KILL $kp 2>/dev/null && killed=$((killed + 1))
	wait $kp 2>/dev/null
	[ -e "$t/k.db" ] || continue       # killed before the store was created
	row=$(sql "$t/k.db" "pragma integrity_check" 2>/dev/null)
	fk=$(sql "$t/k.db" "pragma foreign_key_check" 2>/dev/null | wc -l)
	[ "$row" = ok ] && [ "$fk" = 0 ] || { bad=$((bad + 1)); echo "try $try (killed after ${delay}s): integrity $row, foreign keys $fk"; }
done
check "SIGKILL at random moments: the store stays sound (12 tries, $killed killed mid-run)" '[ $bad = 0 ] && [ $killed -ge 6 ]'
"$REAL" --no-progress --jobs 1 --gpu sm_90,sm_120 --db "$t/k.db" -r "$t/big" >/dev/null 2>"$t/ke"; rc=$?
"$REAL" --no-progress --db "$t/k.db" --report --gpu sm_90,sm_120 --json >"$t/k.json" 2>/dev/null
check "after the kills a run completes ($rc) and reports as one clean run" '[ $rc = 1 ] && cmp -s "$t/k.json" "$t/ref.json"'
n=$(sql "$t/k.db" "select count(*) from run where ended is null")
check "killed runs are history rows without an end ($n)" '[ "$n" -ge 1 ]'

# shards: two per-shard stores merged = one full run; merging again changes nothing
W --shard 1/2 --gpu sm_90,sm_120 --db "$t/a.db" -r "$t/big" >/dev/null 2>&1
W --shard 2/2 --gpu sm_90,sm_120 --db "$t/b.db" -r "$t/big" >/dev/null 2>&1
na=$(sql "$t/a.db" "select count(*) from artifact"); nb=$(sql "$t/b.db" "select count(*) from artifact")
check "the shards split the mirror ($na + $nb)" '[ $((na + nb)) = 300 ] && [ "$na" -gt 0 ] && [ "$nb" -gt 0 ]'
W --db "$t/all.db" --merge "$t/a.db" "$t/b.db" >/dev/null 2>"$t/me"; rc=$?
"$REAL" --no-progress --db "$t/all.db" --report --gpu sm_90,sm_120 --json >"$t/all.json" 2>/dev/null
check "merge of two shard stores ($rc) = one full run" '[ $rc = 0 ] && cmp -s "$t/all.json" "$t/ref.json"'
W --db "$t/all.db" --merge "$t/a.db" "$t/b.db" >/dev/null 2>&1
row=$(sql "$t/all.db" "select count(*), count(distinct path) from artifact")
runs=$(sql "$t/all.db" "select count(*) from run")
check "merging again: no duplicates ($row, $runs runs)" '[ "$row" = "300|300" ] && [ "$runs" = 2 ]'
# the latest scan wins: one file changes, its shard rescans, the merge takes the new row
key=$(sql "$t/b.db" "select path from artifact where path like '%multi.so' limit 1")
cp $F/old-only.so "$t/big/$key"
W --shard 2/2 --gpu sm_90,sm_120 --db "$t/b.db" -r "$t/big" >/dev/null 2>&1
W --db "$t/all.db" --merge "$t/a.db" "$t/b.db" >/dev/null 2>&1
s1=$(sql "$t/all.db" "select sha256 from artifact where path = '$key'")
s2=$(sha256sum "$t/big/$key" | cut -d' ' -f1)
check "merge: the latest result wins" '[ "$s1" = "$s2" ]'
# a store of 60,000 runs merges in one pass (it was quadratic: each run looked up by a scan
# of every run before it, each copied in its own transaction: minutes)
cp "$t/a.db" "$t/runs.db"
python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
cols="started, ended, tool_version, schema_version, targets, driver_cuda, shard, scan_opts"
r=c.execute("select "+cols+" from run").fetchone()
c.executemany("insert into run("+cols+") values(?,?,?,?,?,?,?,?)",
    [("2020-01-01T00:00:%09d" % i,)+r[1:] for i in range(60000)])
c.commit()' "$t/runs.db"
timeout 30 "$REAL" --no-progress --db "$t/runs-all.db" --merge "$t/runs.db" >/dev/null 2>&1; rc=$?
timeout 30 "$REAL" --no-progress --db "$t/runs-all.db" --merge "$t/runs.db" >/dev/null 2>&1; rc2=$?
runs=$(sql "$t/runs-all.db" "select count(*), count(distinct started) from run")
check "merge of 60,000 runs well under 30 s, twice ($rc $rc2), each run once ($runs)" \
	'[ $rc = 0 ] && [ $rc2 = 0 ] && [ "$runs" = "60001|60001" ]'
W --db "$t/all.db" --merge "$t/nope.db" >/dev/null 2>"$t/me2"; rc=$?
check "merge of a missing store: exit 3, named ($rc)" '[ $rc = 3 ] && grep -q "nope.db" "$t/me2"'

# ---- the man page's example queries run and answer -----------------------------------
mkdir "$t/q"
cp $F/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl $F/old-only.so "$t/q/"
W --db "$t/q.db" --gpu sm_120 -r "$t/q" >/dev/null 2>&1
rm "$t/q/"wscan_example-0.1.0+cu124*
cp $F/wscan_example-0.1.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl $F/multi.so "$t/q/"
W --db "$t/q.db" --gpu sm_120 -r "$t/q" >/dev/null 2>&1
python3 - "$PWD/man/wheelscan.1" "$t/q.db" >"$t/qout" 2>&1 <<'PY'
import re, sqlite3, sys
man = open(sys.argv[1]).read()
sec = man[man.index(".Sh RESULTS STORE"):man.index(".Sh EXIT STATUS")]
blocks = re.findall(r"\.Bd -literal[^\n]*\n(.*?)\n\.Ed", sec, re.S)
c = sqlite3.connect(sys.argv[2])
for i, q in enumerate(blocks):
    for r in c.execute(re.sub(r"\b12\b", "1", q)):
        print(i, "|".join(str(x) for x in r))
PY
check "man page query 1: will not run on sm_120 ($(grep -c '^0 ' "$t/qout"))" \
	'grep -qx "0 old-only.so|no-image" "$t/qout" && [ "$(grep -c "^0 " "$t/qout")" = 1 ]'
check "man page query 2: first version with sm_120 SASS" 'grep -q "^1 wscan-example|0.1.0+cu124|" "$t/qout"'
check "man page query 3: changes since run 1" 'grep -qx "2 added|multi.so" "$t/qout" &&
	grep -qx "2 removed|wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl" "$t/qout" &&
	[ "$(grep -c "^2 " "$t/qout")" = 3 ]'

# ---- a damaged store never crashes a run: exit 3 or a report ---------------------------
W --db "$t/s.db" --report >/dev/null 2>&1          # checkpointed: the .db file holds it all
crash=0
for i in $(seq 1 25); do
	cp "$t/s.db" "$t/h.db"; rm -f "$t/h.db-wal" "$t/h.db-shm"
	python3 -c 'import os,random,sys
f=open(sys.argv[1],"r+b"); n=os.path.getsize(sys.argv[1]); r=random.Random(int(sys.argv[2]))
for _ in range(12):
    f.seek(r.randrange(100, n)); f.write(bytes([r.randrange(256)]))' "$t/h.db" "$i"
	W --db "$t/h.db" --report --gpu sm_90 --json >/dev/null 2>"$t/he"; rc=$?
	case $rc in 0|1|3) grep -qE "Sanitizer|runtime error" "$t/he" && crash=$((crash + 1));; *) crash=$((crash + 1)); echo "damaged store $i: exit $rc"; tail -n 3 "$t/he";; esac
done
check "25 damaged stores: each a report or exit 3, no crash ($crash)" '[ $crash = 0 ]'

# an entry's kernel index one past its object's pool (the first index a bounds check must
# refuse): the store is damaged, said so with exit 3, and never read out of bounds
# (a store of one healthy file, so that nothing else in it can make the report fail)
W --db "$t/kidx.db" "$F/multi.so" >/dev/null 2>&1
python3 - "$t/kidx.db" >"$t/kq" 2>&1 <<'PY'
import sqlite3, struct, sys
c = sqlite3.connect(sys.argv[1])
row = c.execute("SELECT e.container_id, e.seq, e.nkernels, o.nkernels FROM entry e JOIN container k ON"
                " k.id = e.container_id JOIN object o ON o.id = k.object_id WHERE e.nkernels > 0 LIMIT 1").fetchone()
cid, seq, nk, pool = row
c.execute("UPDATE entry SET kernels = ? WHERE container_id = ? AND seq = ?",
          (struct.pack("<%dI" % nk, *([pool] + [0] * (nk - 1))), cid, seq))
c.commit()
print("pool", pool)
PY
W --db "$t/kidx.db" --report --gpu sm_90 --json >/dev/null 2>"$t/ke"; rc=$?
check "a kernel index one past the pool: a damaged store, exit 3 ($rc: $(head -c 200 "$t/ke"))" \
	'grep -q "^pool [1-9]" "$t/kq" && [ $rc = 3 ] && grep -q "the store is damaged: the rows of .*multi.so. contradict each other" "$t/ke" &&
	 ! grep -qE "Sanitizer|runtime error" "$t/ke"'
# the same store before the change reports cleanly (the check above is of the index alone)
W --db "$t/kidx0.db" "$F/multi.so" >/dev/null 2>&1
W --db "$t/kidx0.db" --report --gpu sm_90 --json >/dev/null 2>"$t/ke"; rc=$?
check "the one-file store unchanged reports with exit 0 ($rc: $(head -c 200 "$t/ke"))" '[ $rc = 0 ]'

# ---- options -----------------------------------------------------------------------
W --report >/dev/null 2>&1; rc=$?
check "--report without --db: usage error ($rc)" '[ $rc = 2 ]'
W --db "$t/s.db" --report "$t/m/multi.so" >/dev/null 2>&1; rc=$?
check "--report with inputs: usage error ($rc)" '[ $rc = 2 ]'

# ---- many small files: the store's writes go in batches ------------------------------
# A transaction per artifact made a store scan of 50,000 small files 6 to 10 times the
# scan without one. Counted in lock calls (two or more per transaction): 3,000 files took
# 24,000 before, about 100 in batches.
mkdir "$t/small"
python3 -c 'import sys
for i in range(3000): open("%s/f%04d.txt" % (sys.argv[1], i), "w").write("x%d\n" % i)' "$t/small"
if command -v strace >/dev/null 2>&1; then
	for pass_ in scan rescan; do
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -c -e trace=fcntl -o "$t/st" "$REAL" --no-progress --db "$t/small.db" -r "$t/small" >/dev/null 2>"$t/se"; rc=$?
		locks=$(awk '$NF == "fcntl" { print $(NF-1) }' "$t/st")
		check "$pass_ of 3,000 small files with a store ($rc): $locks lock calls, under 1,500" \
			'[ $rc = 0 ] && [ -n "$locks" ] && [ "$locks" -lt 1500 ]'
	done
	check "the rescan took every file from the store" 'grep -q "3000 from the store" "$t/se"'
	# --merge copies them in batches too (a transaction per artifact before)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -c -e trace=fcntl -o "$t/st" "$REAL" --no-progress --db "$t/small-merged.db" --merge "$t/small.db" \
		>/dev/null 2>"$t/se"; rc=$?
	locks=$(awk '$NF == "fcntl" { print $(NF-1) }' "$t/st")
	check "merge of 3,000 artifacts ($rc): $locks lock calls, under 1,500" \
		'[ $rc = 0 ] && [ -n "$locks" ] && [ "$locks" -lt 1500 ] && grep -q "3000 artifacts taken" "$t/se"'
else
	echo "skipped: the store's batching (no strace)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
