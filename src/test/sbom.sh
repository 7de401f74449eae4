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
"$WS_BIN" --format cyclonedx --baseline $FX/multi.so $FX/multi.so >/dev/null 2>&1
[ $? = 2 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL --format cyclonedx --baseline is not a usage error"; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
