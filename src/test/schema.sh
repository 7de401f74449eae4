#!/bin/sh
# schema.sh - man/wheelscan.schema.json: it is a valid draft 2020-12 schema, every golden
# JSON output and the JSON of each document kind (scan, --jsonl, --baseline, --env, inputs
# that cannot be read) validate against it, and it rejects the shapes it must not allow.
# (run-all validates the JSON of every other CLI test as well.)
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
S=man/wheelscan.schema.json
FX=testdata/fixtures
tmp=$(mktemp -d); trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
valid() {   # valid WHAT FILE...: every document in the files validates
	what=$1; shift
	if python3 src/test/json_schema.py "$S" "$@" >"$tmp/log" 2>&1; then ok; else bad "$what"; cat "$tmp/log"; fi
}
invalid() {   # invalid WHAT FILE: the schema rejects it
	if python3 src/test/json_schema.py "$S" "$2" >/dev/null 2>&1; then bad "the schema accepts $1"; else ok; fi
}
# the golden outputs that are JSON
golden=$(for f in testdata/golden/*.out; do head -c 1 "$f" | grep -q '{' && echo "$f"; done)
[ -n "$golden" ] && ok || bad "no golden JSON found"
valid "golden JSON" $golden
W() { "$WS_BIN" --no-progress "$@" 2>/dev/null; }
W --json --gpu sm_90,sm_120 --require sm_80 --require-ptx $FX/* nonexistent.whl >"$tmp/scan.json"
W --json --strict --kernels --gpu 'RTX 5090' -r testdata/env -r testdata/env-conda >"$tmp/env-tree.json"
W --json -r testdata/hostile >"$tmp/hostile.json"
W --jsonl --driver 12.0 --gpu sm_120,sm_75 $FX/*.whl $FX/*.so >"$tmp/lines.jsonl"
W --jsonl $FX/*.fatbin >"$tmp/coverage.jsonl"
W --json --baseline $FX/old-only.so $FX/multi.so >"$tmp/baseline.json"
W --jsonl --baseline $FX/example.whl $FX/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl >"$tmp/baseline.jsonl"
W --json --baseline $FX $FX >"$tmp/baseline-dir.json"
W --suggest torch,bitsandbytes --gpu 'RTX 5090,GTX 1080' --driver 12.8 --json >"$tmp/suggest.json"
WHEELSCAN_LIBCUDA=/nonexistent W --env --json >"$tmp/env.json"
WHEELSCAN_LIBCUDA=/nonexistent W --env --jsonl >"$tmp/env.jsonl"
# each --detail level, as one document and as lines; --jsonl and --report default to artifact
for d in artifact object container entry; do
	W --json --detail $d --gpu sm_90,sm_120 $FX/* >"$tmp/detail-$d.json"
	W --jsonl --detail $d $FX/*.whl $FX/*.so >"$tmp/detail-$d.jsonl"
done
valid "document kinds" "$tmp"/*.json "$tmp"/*.jsonl
grep -q '"detail":"artifact"' "$tmp/lines.jsonl" && ! grep -q '"objects":\[' "$tmp/lines.jsonl" && ok || bad "--jsonl is not at detail artifact by default"
grep -q '"detail":"entry"' "$tmp/scan.json" && grep -q '"entries":\[' "$tmp/scan.json" && ok || bad "--json is not at detail entry by default"
# a level's document under another level's name: the schema tells them apart
for pair in artifact:entry entry:container object:artifact container:object object:container; do
	sed "s/\"detail\":\"${pair%%:*}\"/\"detail\":\"${pair#*:}\"/" "$tmp/detail-${pair%%:*}.json" >"$tmp/xd"
	cmp -s "$tmp/xd" "$tmp/detail-${pair%%:*}.json" && bad "relabelling ${pair%%:*} changed nothing"
	invalid "a ${pair%%:*} document called ${pair#*:}" "$tmp/xd"
done
# Inputs that cannot be read, as a user other than root when running as root: an artifact
# with its real size, the type its name promises, and the error; an unreadable directory
# of a tree is an artifact too.
as_user=""
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" != 0 ] || [ -n "$as_user" ]; then
	chmod 755 "$tmp"; mkdir -p "$tmp/t/locked"
	cp $FX/multi.so "$tmp/t/secret.so"; cp $FX/multi.so "$tmp/t/ok.so"; cp $FX/multi.so "$tmp/t/blob"
	chmod 000 "$tmp/t/secret.so" "$tmp/t/locked" "$tmp/t/blob"
	$as_user "${WS_BIN_REAL:-$WS_BIN}" --no-progress --json --gpu sm_90 -r "$tmp/t" >"$tmp/unread.json" 2>"$tmp/err"; rc=$?
	[ $rc -eq 3 ] && ok || bad "unreadable inputs: exit $rc, not 3"
	valid "unreadable inputs" "$tmp/unread.json"
	python3 - "$tmp/unread.json" "$tmp/t" <<'PY' && ok || bad "unreadable inputs: JSON shape"
import json, os, sys
d = json.load(open(sys.argv[1]))
a = {os.path.basename(x["path"]): x for x in d["artifacts"]}
s = a["secret.so"]
assert s["type"] == "elf" and s["size"] == os.stat(os.path.join(sys.argv[2], "ok.so")).st_size, s
assert s["sha256"] is None and "verdicts" not in s and "Permission denied" in s["errors"][0]["message"], s
assert a["blob"]["type"] == "unknown", a["blob"]
l = a["locked"]
assert l["type"] == "directory" and "cannot read directory" in l["errors"][0]["message"], l
assert a["ok.so"]["verdicts"] == {"sm_90": "native"}, a["ok.so"]
PY
	grep -q "locked': cannot read directory: Permission denied" "$tmp/err" && ok || bad "unreadable directory not on stderr"
	$as_user "${WS_BIN_REAL:-$WS_BIN}" --no-progress --jsonl -r "$tmp/t" >"$tmp/unread.jsonl" 2>/dev/null
	valid "unreadable inputs, JSON lines" "$tmp/unread.jsonl"
	[ "$(grep -c '"path":"[^"]*locked"' "$tmp/unread.jsonl")" = 1 ] && ok || bad "--jsonl lacks the unreadable directory"
else
	echo "schema.sh: root without setpriv: unreadable inputs not tested"
fi
# what the schema must reject: the shapes of the bugs it exists to catch
sed 's/"archs_added":\[[^]]*\]/"archs_added":""/' "$tmp/baseline.json" >"$tmp/x1"; invalid 'archs_added ""' "$tmp/x1"
sed 's/"type":"elf"/"type":"unreadable"/' "$tmp/scan.json" >"$tmp/x2"; invalid 'type "unreadable"' "$tmp/x2"
sed 's/"driver_assumed":true/"driver_assumed":true,"undocumented":1/' "$tmp/scan.json" >"$tmp/x3"; invalid 'an undocumented key' "$tmp/x3"
sed 's/"verdicts":{"sm_90":"native"/"verdicts":{"sm_90":"fine"/' "$tmp/scan.json" >"$tmp/x4"; invalid 'an undefined verdict' "$tmp/x4"
cmp -s "$tmp/x4" "$tmp/scan.json" && bad "the undefined-verdict mutation changed nothing" || ok
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
