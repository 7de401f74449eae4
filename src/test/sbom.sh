#!/bin/sh
# sbom.sh - --format cyclonedx: the BOM of the fixtures, of hostile files and names, and of the
# corpus mirror (when fetched) is valid against the official CycloneDX 1.6 JSON schema
# (scripts/fetch-cyclonedx-schema: the schema files of a sha256-pinned PyPI wheel) and
# agrees with the JSON report on every component (src/test/cdx_check.py).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
S=${WS_BUILD:-build}/cyclonedx-schema
scripts/fetch-cyclonedx-schema "$S" || skip_all "the CycloneDX 1.6 schema could not be fetched (no network?)" yes
python3 -c 'import referencing' 2>/dev/null || skip_all "python3 lacks referencing (python3-jsonschema 4.18+)" yes
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
run() {   # run NAME ARGS...: the BOM and the JSON of the same inputs, checked against each other
	name=$1; shift
	"$WS_BIN" --no-progress --format cyclonedx "$@" >"$tmp/$name.cdx" 2>/dev/null
	"$WS_BIN" --no-progress --json "$@" >"$tmp/$name.json" 2>/dev/null
	if python3 src/test/cdx_check.py "$S" "$tmp/$name.cdx" "$tmp/$name.json" >"$tmp/$name.log" 2>&1; then
		pass=$((pass + 1)); echo "ok   $name: $(tail -n 1 "$tmp/$name.log")"
	else
		fail=$((fail + 1)); echo "FAIL $name:"; tail -n 12 "$tmp/$name.log"
	fi
}
FX=testdata/fixtures
run fixtures --gpu sm_90,sm_120 $FX/*
run coverage $FX/*.whl $FX/*.so $FX/*.fatbin
run hostile -r testdata/hostile
run env --gpu 'RTX 5090' -r testdata/env
python3 scripts/mknames.py "$tmp/names" >/dev/null 2>&1 && run names --gpu sm_120 -r "$tmp/names"
set -- corpus/*.whl corpus/*.deb
if [ -f "$1" ]; then
	run corpus --gpu 'RTX 5090,H100' $(ls corpus/*.whl corpus/*.deb | grep -v '/torch-')
else
	echo "skipped: the corpus mirror (scripts/fetch-corpus)"
fi
# the schema is not a rubber stamp: it rejects a bad hash algorithm, a hash that is not
# hex, and a property without a name (each alone; the BOM as written passes)
for m in 's/"alg":"SHA-256"/"alg":"SHA-257"/' 's/"content":"[0-9a-f]/"content":"z/' 's/{"name":"cuda:sass",/{/'; do
	sed "$m" "$tmp/fixtures.cdx" >"$tmp/bad.cdx"
	if cmp -s "$tmp/bad.cdx" "$tmp/fixtures.cdx" || python3 src/test/cdx_check.py --schema-only "$S" "$tmp/bad.cdx" >/dev/null 2>&1; then
		fail=$((fail + 1)); echo "FAIL the schema accepts the BOM changed by $m"
	else pass=$((pass + 1)); fi
done
python3 src/test/cdx_check.py --schema-only "$S" "$tmp/fixtures.cdx" >/dev/null 2>&1 && pass=$((pass + 1)) ||
	{ fail=$((fail + 1)); echo "FAIL --schema-only rejects the BOM as written"; }
# --sbom-in: a BOM as syft or trivy write it for a directory, annotated in place: matched
# by SHA-256 (example.whl), purl (the cu124 wheel), location (multi.so, nested in a parent
# component); an existing properties array is extended, an empty one filled; the component
# that is no artifact, and everything else the other tool wrote, stay as they were
mkdir -p "$tmp/d"
cp $FX/example.whl $FX/multi.so $FX/old-only.so $FX/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl "$tmp/d/"
python3 - "$tmp/d" "$tmp/in.cdx" <<'PY'
import hashlib, json, sys
d, out = sys.argv[1:3]
sha = lambda f: hashlib.sha256(open(d + "/" + f, "rb").read()).hexdigest()
bom = {"bomFormat": "CycloneDX", "specVersion": "1.6", "version": 1,
       "metadata": {"tools": {"components": [{"type": "application", "name": "syft", "version": "1.0"}]}},
       "components": [
    {"type": "file", "name": "example.whl", "hashes": [{"alg": "SHA-1", "content": "0" * 40}, {"alg": "SHA-256", "content": sha("example.whl").upper()}]},
    {"type": "library", "name": "wscan_example", "version": "0.1.0+cu124", "purl": "pkg:pypi/wscan_example@0.1.0%2Bcu124?arch=x86_64",
     "properties": [{"name": "syft:package:foundBy", "value": "python-package-cataloger"}]},
    {"type": "application", "name": "parent", "components": [
        {"type": "file", "name": "multi", "properties": [], "evidence": {"occurrences": [{"location": "/multi.so"}]}}]},
    {"type": "file", "name": "old", "properties": [{"name": "syft:location:0:path", "value": "/old-only.so"}]},
    {"type": "library", "name": "numpy", "version": "2.0.0", "purl": "pkg:pypi/numpy@2.0.0"},
    {"type": "file", "name": "README"}]}
open(out, "w").write(json.dumps(bom, indent=1))
PY
# the gate's closing line, as in every format: a BOM property, valid against the schema
"$WS_BIN" --no-progress --format cyclonedx --require sm_120 testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl >"$tmp/gate.cdx" 2>/dev/null
python3 - "$tmp/gate.cdx" <<'PY' && python3 src/test/cdx_check.py --schema-only "$S" "$tmp/gate.cdx" >/dev/null 2>&1 && pass=$((pass + 1)) ||
import json, sys
props = json.load(open(sys.argv[1])).get("properties", [])
sys.exit(0 if props == [{"name": "wheelscan:gate", "value": "gate: FAILED \u2014 1 of 1 wheel, 1 finding"}] else 1)
PY
	{ fail=$((fail + 1)); echo "FAIL the BOM's gate property (or its schema check): $(tail -c 200 "$tmp/gate.cdx")"; }
"$WS_BIN" --no-progress --gpu sm_90,sm_120 --sbom-in "$tmp/in.cdx" -r "$tmp/d" >"$tmp/out.cdx" 2>"$tmp/sbom.err"; rc=$?
python3 src/test/cdx_check.py --schema-only "$S" "$tmp/out.cdx" >"$tmp/o.log" 2>&1 && pass=$((pass + 1)) ||
	{ fail=$((fail + 1)); echo "FAIL --sbom-in output against the CycloneDX 1.6 schema:"; cat "$tmp/o.log"; }
if python3 - "$tmp/in.cdx" "$tmp/out.cdx" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def ours(c):
    return [p for p in c.get("properties", []) if p["name"].startswith("cuda:")]
def strip(c):
    c = dict(c)
    if "properties" in c:   # (an empty list and none compare equal: both sides alike)
        c["properties"] = [p for p in c["properties"] if not p["name"].startswith("cuda:")]
        if not c["properties"]:
            del c["properties"]
    if "components" in c:
        c["components"] = [strip(x) for x in c["components"]]
    return c
comps = b["components"]
got = [bool(ours(c)) for c in comps] + [bool(ours(comps[2]["components"][0]))]
assert got == [True, True, False, True, False, False, True], got
v = {p["name"]: p["value"] for p in ours(comps[1])}
assert v["cuda:verdict:sm_120"] == "no-image" and "cuda:verdict:sm_90" in v and v["cuda:sass"], v
assert comps[1]["properties"][0]["name"] == "syft:package:foundBy"
b2 = dict(b); b2["components"] = [strip(c) for c in comps]
a2 = dict(a); a2["components"] = [strip(c) for c in a["components"]]
assert b2 == a2, "the rest of the BOM changed"
assert comps[2]["components"][0]["properties"][0]["name"] == "cuda:sass"   # the empty list, filled
PY
then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL --sbom-in annotations"; fi
[ $rc = 1 ] && grep -q "4 components annotated; 0 of 4 artifacts matched no component" "$tmp/sbom.err" && pass=$((pass + 1)) ||
	{ fail=$((fail + 1)); echo "FAIL --sbom-in: exit $rc, stderr $(cat "$tmp/sbom.err")"; }
# a BOM that is not strict JSON, or not CycloneDX, or absent: exit 3, one line naming it, no output
printf '{"bomFormat":"CycloneDX","components":[],"components":[]}' >"$tmp/dup.cdx"
head -c 300 "$tmp/in.cdx" >"$tmp/cut.cdx"
printf '{"bomFormat":"SPDX"}' >"$tmp/spdx.cdx"
for bad in dup cut spdx missing; do
	"$WS_BIN" --no-progress --gpu sm_90 --sbom-in "$tmp/$bad.cdx" "$FX/multi.so" >"$tmp/b.out" 2>"$tmp/b.err"; rc=$?
	[ $rc = 3 ] && [ ! -s "$tmp/b.out" ] && grep -q "sbom-in '$tmp/$bad.cdx'" "$tmp/b.err" && pass=$((pass + 1)) ||
		{ fail=$((fail + 1)); echo "FAIL --sbom-in $bad: exit $rc, $(cat "$tmp/b.err")"; }
done
"$WS_BIN" --no-progress --json --sbom-in "$tmp/in.cdx" "$FX/multi.so" >/dev/null 2>&1
[ $? = 2 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL --sbom-in --json is not a usage error"; }
"$WS_BIN" --format cyclonedx --baseline $FX/multi.so $FX/multi.so >/dev/null 2>&1
[ $? = 2 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL --format cyclonedx --baseline is not a usage error"; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
