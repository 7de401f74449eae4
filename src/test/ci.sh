#!/bin/sh
# ci.sh - the CI-facing outputs: SARIF validated against the official SARIF 2.1.0 schema
# (testdata/schemas, on the fixtures and on the corpus), the workflow commands of
# --format github line by line and their escaping, annotations beside the text under
# GITHUB_ACTIONS=true, the gate's closing line and Markdown matrix, check IDs with --ignore,
# --select and the [tool.wheelscan] configuration, the completions, --version -v, and long
# options spelled in full.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
FX=$PWD/testdata/fixtures
SCHEMA=$PWD/testdata/schemas/sarif-schema-2.1.0.json
W() { "$WS_BIN" --no-progress --no-config "$@"; }

# ---- SARIF: valid against the official schema -----------------------------------------
[ "$(sha256sum "$SCHEMA" | cut -d' ' -f1)" = c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e ] &&
	ok || bad "the vendored SARIF schema is not the one testdata/schemas/README.md names"
sarif_valid() {   # sarif_valid FILE WHAT: schema-valid, and every result names a rule of its run
	python3 - "$SCHEMA" "$1" <<'PY' && ok || bad "$2: SARIF not valid"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit("python3-jsonschema is missing (make deps-test)")
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
errs = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errs[:5]:
    print("  at /%s: %s" % ("/".join(map(str, e.path)), e.message[:300]))
run = doc["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
bad = [r for r in run["results"] if rules[r["ruleIndex"]] != r["ruleId"]]
for r in bad[:3]:
    print("  ruleIndex %d is not %s" % (r["ruleIndex"], r["ruleId"]))
sys.exit(1 if errs or bad or len(set(rules)) != len(rules) else 0)
PY
}
W --format sarif --require sm_80,sm_120 --require-ptx --gpu sm_90 "$FX"/*.whl "$FX/old-only.so" >"$tmp/fx.sarif" 2>/dev/null
sarif_valid "$tmp/fx.sarif" fixtures
python3 - "$tmp/fx.sarif" <<'PY' && ok || bad "SARIF of the fixtures: results, locations, the gate"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
res = run["results"]
ids = set(r["ruleId"] for r in res)
assert {"WS101", "WS102", "WS103", "WS201"} <= ids, ids
tam = [r for r in res if r["ruleId"] == "WS201"]
assert tam[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("fixtures/tampered.whl"), tam
mem = [r for r in res if r["ruleId"] == "WS102" and "logicalLocations" in r["locations"][0]]
assert any(l["locations"][0]["logicalLocations"][0]["name"] == "wscan_example/lib/libold.so" for l in mem), mem
assert run["invocations"][0]["properties"]["gate"].startswith("gate: FAILED"), run["invocations"]
PY
# the man page's CHECKS list the rules SARIF writes, by ID and name
python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]["rules"]:
    print(r["id"], r["name"])' "$tmp/fx.sarif" >"$tmp/rules"
[ "$(wc -l <"$tmp/rules")" -ge 11 ] && ok || bad "SARIF rules: $(cat "$tmp/rules")"
while read -r id name; do
	grep -q "^\.It Sy $id $name\$" man/wheelscan.1 && ok || bad "man/wheelscan.1 CHECKS lacks $id $name"
done <"$tmp/rules"
# a run with nothing to report is valid too (an empty results array)
W --format sarif --require sm_80 "$FX/example.whl" >"$tmp/empty.sarif" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && ok || bad "SARIF of a passing gate: exit $rc"
sarif_valid "$tmp/empty.sarif" "a passing gate"
grep -q '"results":\[' "$tmp/empty.sarif" && grep -q '"gate":"gate: passed (1 wheel)"' "$tmp/empty.sarif" && ok ||
	bad "SARIF of a passing gate: $(cat "$tmp/empty.sarif" | tail -c 300)"
# the corpus of real wheels, packages and images
if ls corpus/*.whl >/dev/null 2>&1; then
	W --format sarif --no-kernels --require sm_80,sm_90,sm_120 --require-ptx corpus/*.whl corpus/*.deb \
		>"$tmp/corpus.sarif" 2>/dev/null
	sarif_valid "$tmp/corpus.sarif" corpus
	python3 - "$tmp/corpus.sarif" <<'PY' && ok || bad "SARIF of the corpus: bitsandbytes' alternatives as one result"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
bnb = [r for r in res if "bitsandbytes" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
       and r["ruleId"] == "WS102"]
assert len(bnb) == 1 and "libbitsandbytes_cuda*.so" in bnb[0]["message"]["text"], bnb
PY
else
	echo "skipped: the corpus is not fetched (make fetch-corpus): SARIF of the real wheels"
	skip=$((skip + 1))
fi

# ---- --format github: line by line ------------------------------------------------------
W --format github --require sm_120 --require-ptx "$FX/old-only.so" "$FX/example.whl" "$FX/tampered.whl" \
	>"$tmp/gh" 2>/dev/null; rc=$?
[ $rc -eq 3 ] && ok || bad "github: exit $rc, not 3 (the tampered wheel)"
cat >"$tmp/gh.want" <<EOF2
::error file=$FX/old-only.so,title=WS101 missing-sass::$FX/old-only.so: no SASS sm_120 in 1 of the 1 containers with kernels it needs there (build with -gencode arch=compute_120,code=sm_120, or TORCH_CUDA_ARCH_LIST="12.0" for a torch extension)
::error file=$FX/old-only.so,title=WS102 missing-ptx::$FX/old-only.so: no PTX in 1 of 1 containers with kernels (build the newest arch as code=[sm_XY,compute_XY], or end TORCH_CUDA_ARCH_LIST with +PTX)
::error file=$FX/tampered.whl,title=WS101 missing-sass::$FX/tampered.whl!wscan_example/lib/libold.so: no SASS sm_120 in 1 of the 1 containers with kernels it needs there (build with -gencode arch=compute_120,code=sm_120, or TORCH_CUDA_ARCH_LIST="12.0" for a torch extension)
::error file=$FX/tampered.whl,title=WS102 missing-ptx::$FX/tampered.whl!wscan_example/lib/libold.so: no PTX in 1 of 1 containers with kernels (build the newest arch as code=[sm_XY,compute_XY], or end TORCH_CUDA_ARCH_LIST with +PTX)
::error file=$FX/tampered.whl,title=WS201 record-mismatch::$FX/tampered.whl: RECORD hash mismatch for 'wscan_example/lib/libold.so'
::error title=wheelscan gate::gate: FAILED — 2 of 3 artifacts, 4 findings, 1 error
EOF2
n=0
while IFS= read -r want; do
	n=$((n + 1))
	got=$(sed -n "${n}p" "$tmp/gh")
	[ "$got" = "$want" ] && ok || bad "github line $n: '$got', not '$want'"
done <"$tmp/gh.want"
[ "$(wc -l <"$tmp/gh")" -eq "$n" ] && ok || bad "github: $(wc -l <"$tmp/gh") lines, not $n"
# names that would end a property or forge a command stay inside their own
odd="$tmp/a,b:c%d"
mkdir -p "$odd" && cp "$FX/old-only.so" "$odd/lib.so"
printf 'x\n::error::forged' | sed 's/x//' >/dev/null
cp "$FX/old-only.so" "$tmp/$(printf 'n\n::error title=forged::x.so')"
W --format github --require sm_120 "$odd/lib.so" "$tmp/n"* >"$tmp/gh2" 2>/dev/null
enc=$(printf '%s' "$odd" | sed 's/%/%25/g; s/,/%2C/g; s/:/%3A/g')
grep -q "^::error file=$enc/lib.so,title=WS101 missing-sass::$tmp/a,b:c%25d/lib.so: no SASS" "$tmp/gh2" && ok ||
	bad "github: ',' ':' '%' in a path: $(head -n 1 "$tmp/gh2")"
grep -q '^::error title=forged' "$tmp/gh2" && bad "github: a file name forged a command" || ok
grep -q 'n\\n::error title=forged::x.so' "$tmp/gh2" && ok || bad "github: the newline in a name shown as \\n: $(cat "$tmp/gh2")"
[ "$(grep -c '^::' "$tmp/gh2")" -eq "$(wc -l <"$tmp/gh2")" ] && ok || bad "github: a line that is not a command"

# ---- GITHUB_ACTIONS=true: the text on stdout, the commands on stderr --------------------
GITHUB_ACTIONS=true "$WS_BIN" --no-progress --no-config --require sm_120 "$FX/old-only.so" >"$tmp/ga.out" 2>"$tmp/ga.err"
W --require sm_120 "$FX/old-only.so" >"$tmp/plain.out" 2>/dev/null
cmp -s "$tmp/ga.out" "$tmp/plain.out" && ok || bad "GITHUB_ACTIONS: stdout is not the text"
grep -q '^::error file=.*old-only.so,title=WS101 missing-sass::' "$tmp/ga.err" && ok || bad "GITHUB_ACTIONS: no annotation on stderr: $(cat "$tmp/ga.err")"
GITHUB_ACTIONS=true "$WS_BIN" --no-progress --no-config --json --require sm_120 "$FX/old-only.so" 2>"$tmp/ga2.err" >/dev/null
grep -q '^::' "$tmp/ga2.err" && bad "GITHUB_ACTIONS: annotations although --json was chosen" || ok

# ---- the gate's closing line, the hint, the Markdown matrix ----------------------------
tail -n 1 "$tmp/plain.out" | grep -qx 'gate: FAILED — 1 of 1 artifact, 1 finding' && ok || bad "text gate line: $(tail -n 1 "$tmp/plain.out")"
grep -q 'No GPU was named' "$tmp/plain.out" && bad "the no-GPU hint under --require" || ok
W --require sm_80 "$FX/example.whl" "$FX/wscan_alts-0.1.0-py3-none-manylinux_2_28_x86_64.whl" >"$tmp/pass.out" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && tail -n 1 "$tmp/pass.out" | grep -qx 'gate: FAILED — 1 of 2 wheels, 1 finding' && ok || bad "gate over two wheels: exit $rc, $(tail -n 1 "$tmp/pass.out")"
W "$FX/example.whl" >"$tmp/nogate.out" 2>/dev/null
grep -q '^gate:' "$tmp/nogate.out" && bad "a gate line without a gate" || ok
W --format markdown --require sm_80,sm_120 --require-ptx "$FX/example.whl" "$FX/old-only.so" >"$tmp/md" 2>/dev/null
grep -qx '| artifact | package | version | SASS sm_80 | SASS sm_120 | PTX | result |' "$tmp/md" && ok || bad "matrix header: $(head -n 3 "$tmp/md")"
grep -q "^| .*example.whl | wscan-example | 0.1.0+cu128 | ✅ 3/3 | ✅ 3/3 | ✅ 3/3 | :white_check_mark: ok |\$" "$tmp/md" && ok || bad "matrix row: $(grep example "$tmp/md")"
grep -q "^| .*old-only.so | - | - | ❌ 0/1 | ❌ 0/1 | ❌ 0/1 | :x: checks failed |\$" "$tmp/md" && ok || bad "matrix row: $(grep old-only "$tmp/md")"
tail -n 1 "$tmp/md" | grep -qx '\*\*gate: FAILED — 1 of 2 artifacts, 3 findings\*\*' && ok || bad "markdown gate line: $(tail -n 1 "$tmp/md")"
W --jsonl --require sm_120 "$FX/old-only.so" 2>"$tmp/jl.err" >/dev/null
grep -qx 'wheelscan: gate: FAILED — 1 of 1 artifact, 1 finding' "$tmp/jl.err" && ok || bad "jsonl gate line: $(cat "$tmp/jl.err")"

# ---- --ignore, --select and the configuration ------------------------------------------
W --require sm_120 --require-ptx --ignore WS102 "$FX/old-only.so" >"$tmp/ig" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && ! grep -q WS102 "$tmp/ig" && grep -q 'WS101 missing-sass' "$tmp/ig" &&
	tail -n 1 "$tmp/ig" | grep -qx 'gate: FAILED — 1 of 1 artifact, 1 finding, 1 ignored' && ok || bad "--ignore WS102: exit $rc, $(tail -n 3 "$tmp/ig")"
W --require sm_120 --require-ptx --ignore 'missing-sass:*old-only*' --ignore 'WS102:*/old-*.so' "$FX/old-only.so" >"$tmp/ig2" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && tail -n 1 "$tmp/ig2" | grep -qx 'gate: passed (1 artifact, 2 findings ignored)' && ok || bad "--ignore with globs: exit $rc, $(tail -n 1 "$tmp/ig2")"
W --require sm_120 --require-ptx --ignore 'WS102:*nothing*' "$FX/old-only.so" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok || bad "--ignore with a glob that matches nothing: exit $rc"
W --require sm_120 --require-ptx --select WS102 "$FX/old-only.so" >"$tmp/sel" 2>/dev/null
grep -q WS101 "$tmp/sel" || ! grep -q WS102 "$tmp/sel" && bad "--select WS102: $(grep WS1 "$tmp/sel")" || ok
for b in WS301 WS201:x WS999 'WS101:'; do
	W --require sm_120 --ignore "$b" "$FX/old-only.so" >/dev/null 2>"$tmp/e"; rc=$?
	[ $rc -eq 2 ] && ok || bad "--ignore $b: exit $rc ($(cat "$tmp/e"))"
done
mkdir -p "$tmp/proj/sub/deeper"
cp "$FX/old-only.so" "$tmp/proj/sub/deeper/lib.so"
cat >"$tmp/proj/pyproject.toml" <<'EOF2'
[project]
name = "demo"
description = """
[tool.wheelscan]
require = "sm_50"
"""

[tool.wheelscan]
require = ["sm_86", "sm_120"]   # the GPUs we ship for
require-ptx = true
ignore = ["WS102:*lib.so"]
EOF2
(cd "$tmp/proj/sub/deeper" && "$WS_BIN" --no-progress lib.so >"$tmp/cfg" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q 'WS101 missing-sass: lib.so: no SASS sm_120' "$tmp/cfg" && ! grep -q 'sm_50\|WS102' "$tmp/cfg" &&
	tail -n 1 "$tmp/cfg" | grep -qx 'gate: FAILED — 1 of 1 artifact, 1 finding, 1 ignored' && ok ||
	bad "pyproject.toml found upward: exit $rc, $(cat "$tmp/cfg")"
(cd "$tmp/proj/sub/deeper" && "$WS_BIN" --no-progress --require sm_86 lib.so >"$tmp/cfg2" 2>&1); rc=$?
[ $rc -eq 0 ] && tail -n 1 "$tmp/cfg2" | grep -qx 'gate: passed (1 artifact, 1 finding ignored)' && ok || bad "--require over the configuration's: exit $rc, $(tail -n 2 "$tmp/cfg2")"
(cd "$tmp/proj/sub/deeper" && "$WS_BIN" --no-progress --no-config lib.so >"$tmp/cfg3" 2>&1); rc=$?
[ $rc -eq 0 ] && ! grep -q '^gate' "$tmp/cfg3" && ok || bad "--no-config: exit $rc"
"$WS_BIN" --no-progress --config "$tmp/proj/pyproject.toml" "$FX/old-only.so" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok || bad "--config FILE: exit $rc"
printf '[tool.wheelscan]\nrequire = ["sm_80"]\nfrobnicate = true\n' >"$tmp/bad.toml"
"$WS_BIN" --config "$tmp/bad.toml" "$FX/old-only.so" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.toml': line 3: unknown key 'frobnicate'" "$tmp/e" && ok || bad "a bad configuration: exit $rc, $(cat "$tmp/e")"
printf '[tool.wheelscan]\nrequire = "sm_80\n' >"$tmp/bad2.toml"
"$WS_BIN" --config "$tmp/bad2.toml" "$FX/old-only.so" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "line 2: newline in a one-line string" "$tmp/e" && ok || bad "an unterminated string: exit $rc, $(cat "$tmp/e")"
printf '[tool.other]\n' >"$tmp/none.toml"
"$WS_BIN" --config "$tmp/none.toml" "$FX/old-only.so" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'has no \[tool.wheelscan\] table' "$tmp/e" && ok || bad "--config without the table: exit $rc"

# ---- long options are spelled in full ---------------------------------------------------
"$WS_BIN" --requ sm_80 "$FX/old-only.so" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "option '--requ' is not spelled in full (options are never abbreviated: --require, --require-ptx)" "$tmp/e" &&
	ok || bad "an abbreviated option: exit $rc, $(cat "$tmp/e")"
"$WS_BIN" --no-config --gpu --json "$FX/old-only.so" >/dev/null 2>"$tmp/e"; rc=$?
grep -q "spelled in full" "$tmp/e" && bad "an option's argument taken for an option" || ok
"$WS_BIN" --no-config --format=json "$FX/old-only.so" >/dev/null 2>&1 && ok || bad "--format=json"

# ---- completions, --version -v ----------------------------------------------------------
for sh in bash zsh fish; do
	"$WS_BIN" --completion $sh >"$tmp/c.$sh"; rc=$?
	[ $rc -eq 0 ] && ok || bad "--completion $sh: exit $rc"
	for o in $("$WS_BIN" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "${o#--}" "$tmp/c.$sh" || { bad "--completion $sh lacks $o"; break; }
	done
	if command -v $sh >/dev/null; then
		$sh -n "$tmp/c.$sh" 2>"$tmp/e" && ok || bad "$sh -n: $(cat "$tmp/e")"
	else
		echo "skipped: $sh is not installed: its completion is not parsed"
		skip=$((skip + 1))
	fi
done
got=$(bash -c '. "$1"; COMP_WORDS=(wheelscan --requ); COMP_CWORD=1; _wheelscan; echo "${COMPREPLY[*]}"' _ "$tmp/c.bash")
[ "$got" = "--require --require-ptx" ] && ok || bad "bash completes --requ to '$got'"
got=$(bash -c '. "$1"; COMP_WORDS=(wheelscan --format s); COMP_CWORD=2; _wheelscan; echo "${COMPREPLY[*]}"' _ "$tmp/c.bash")
[ "$got" = "sarif" ] && ok || bad "bash completes --format s to '$got'"
"$WS_BIN" --completion tcsh >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--completion tcsh is not a usage error"
"$WS_BIN" --version -v >"$tmp/v"
for want in '^wheelscan [0-9]' '^commit: ' '^  libzip ' '^  zlib ' '^  zstd ' '^  OpenSSL ' '^ISA-L: o[nf]' '^  seccomp: ' '^  landlock: '; do
	grep -q "$want" "$tmp/v" && ok || bad "--version -v lacks $want: $(cat "$tmp/v")"
done
[ "$("$WS_BIN" --version)" = "$(head -n 1 "$tmp/v")" ] && [ "$("$WS_BIN" --version | wc -l)" -eq 1 ] && ok || bad "--version alone is one line"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
