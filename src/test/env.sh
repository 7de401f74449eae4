#!/bin/sh
# env.sh - installed environments: testdata/env/site is what `pip install --target` made of two
# fixture wheels, plus a custom node whose extension no package owns (scripts/gen-testdata).
# Each distribution is one artifact checked against its RECORD; a tampered installed file is
# exit 3 and named; a deleted one is listed as missing; loose files are reported under their
# directory; --python asks an interpreter where its packages are.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1 NO_COLOR=1
SITE=testdata/env/site
pass=0 fail=0 skip=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
has() { if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks: $2"; sed 's/^/    /' "$1" | head -n 30; fi; }
lacks() { if grep -qF -- "$2" "$1"; then bad "$1 has: $2"; else ok; fi; }
rc_is() { if [ "$1" = "$2" ]; then ok; else bad "$3: exit $1, expected $2"; fi; }

"$WS_BIN" --no-progress --gpu 'RTX 5090' -r "$SITE" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "environment on an RTX 5090"
has "$tmp/o" "$SITE/wscan_example-0.1.0.dist-info  (installed,"
has "$tmp/o" "  package wscan-example 0.1.0+cu124  requires CUDA 12 libraries"
has "$tmp/o" "  RECORD  ok: every installed file matches its hash and size"
has "$tmp/o" "$SITE/custom_nodes  (directory,"
has "$tmp/o" "  will NOT run on GeForce RTX 5090 (sm_120):"
has "$tmp/o" "    wscan-example 0.1.0+cu124: built with CUDA 13.0, which supports sm_120, but left it out"
has "$tmp/o" "    $SITE/custom_nodes (files no installed package owns): built with CUDA 13.0"
lacks "$tmp/o" "    wscan-alts 0.1.0"
lacks "$tmp/o" "wscan_example/lib/libold.so  (other"      # owned files are not artifacts of their own
if [ -s "$tmp/e" ]; then bad "stderr: $(cat "$tmp/e")"; else ok; fi

"$WS_BIN" --no-progress --json --gpu sm_120 -r "$SITE" >"$tmp/j" 2>/dev/null
python3 - "$tmp/j" <<'PY' || fail=$((fail + 1))
import json, sys
d = json.load(open(sys.argv[1]))
arts = {a["path"].rsplit("/", 1)[-1]: a for a in d["artifacts"]}
want = {"custom_nodes": ("directory", "no-image"), "wscan_alts-0.1.0.dist-info": ("installed", "native"),
        "wscan_example-0.1.0.dist-info": ("installed", "no-image")}
bad = 0
for k, (t, v) in want.items():
    a = arts.get(k)
    if not a or a["type"] != t or a["verdicts"]["sm_120"] != v:
        print("FAIL json %s: %s" % (k, a and (a["type"], a["verdicts"]))); bad += 1
ex = arts["wscan_example-0.1.0.dist-info"]
if ex["distribution"] != {"name": "wscan-example", "version": "0.1.0+cu124", "requires_cuda": 12, "requires_torch": None}:
    print("FAIL distribution", ex["distribution"]); bad += 1
if not ex["record"]["ok"] or sorted(o["member"] for o in ex["objects"]) != ["wscan_example/lib/libmulti.so", "wscan_example/lib/libold.so"]:
    print("FAIL record/objects", ex["record"], [o["member"] for o in ex["objects"]]); bad += 1
if [o["member"] for o in arts["custom_nodes"]["objects"]] != ["custom_nodes/my_ext/ext.so"]:
    print("FAIL loose objects"); bad += 1
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && ok

# a tampered installed file: listed as mismatched, judged as it was read, and not an error
# (the status is the verdicts', as with --no-verify); a deleted one: listed as missing
cp -r testdata/env "$tmp/env"
printf 'X' | dd of="$tmp/env/site/wscan_example/lib/libold.so" bs=1 seek=200 conv=notrunc 2>/dev/null
rm "$tmp/env/site/wscan_alts/__init__.py"
"$WS_BIN" --no-progress --gpu sm_90 -r "$tmp/env/site" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "tampered environment"
if grep -q 'libold.so' "$tmp/e"; then bad "tampered installed file is an error: $(cat "$tmp/e")"; else ok; fi
has "$tmp/o" "          mismatched: wscan_example/lib/libold.so"
has "$tmp/o" "          missing: wscan_alts/__init__.py"
"$WS_BIN" --no-progress --no-verify --gpu sm_90 -r "$tmp/env/site" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "--no-verify on the tampered environment"

# a RECORD row that leaves site-packages ("../outside.so", as pip's ../../bin scripts do) is not
# read, whatever it holds: only files below the site belong to the distribution scanned there
cp -r testdata/env "$tmp/envout"
cp testdata/fixtures/multi.so "$tmp/envout/outside.so"
printf '../outside.so,,\n' >>"$tmp/envout/site/wscan_example-0.1.0.dist-info/RECORD"
"$WS_BIN" --no-progress -v --gpu sm_90 -r "$tmp/envout/site" >"$tmp/o" 2>"$tmp/e"
if grep -q 'outside\.so' "$tmp/o" "$tmp/e"; then bad "a RECORD row outside the site was read: $(grep -h 'outside' "$tmp/o" "$tmp/e" | head -n 3)"; else ok; fi
has "$tmp/o" "wscan_example/lib/libold.so"

# --python: the interpreter says where its packages are (here a stand-in that prints the site)
printf '#!/bin/sh\necho "%s"\necho "%s"\n' "$PWD/$SITE" "$PWD/$SITE" >"$tmp/python"
chmod +x "$tmp/python"
"$WS_BIN" --no-progress --gpu sm_120 --python="$tmp/python" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "--python"
has "$tmp/o" "$PWD/$SITE/wscan_alts-0.1.0.dist-info  (installed,"
"$WS_BIN" --no-progress --python=/nonexistent/python3 >"$tmp/o" 2>"$tmp/e"; rc_is $? 2 "--python with no interpreter"
has "$tmp/e" "wheelscan: --python: '/nonexistent/python3' did not say where its packages are"

# memory: a 256 MiB installed file is hashed and scanned without becoming resident
if [ -x /usr/bin/time ]; then
	mkdir -p "$tmp/big/pkg" "$tmp/big/big-1.0.dist-info"
	dd if=/dev/zero of="$tmp/big/pkg/blob.bin" bs=1M count=256 2>/dev/null
	h=$(python3 -c "import base64,hashlib,sys;print(base64.urlsafe_b64encode(hashlib.sha256(open(sys.argv[1],'rb').read()).digest()).rstrip(b'=').decode())" "$tmp/big/pkg/blob.bin")
	printf 'pkg/blob.bin,sha256=%s,268435456\nbig-1.0.dist-info/RECORD,,\n' "$h" >"$tmp/big/big-1.0.dist-info/RECORD"
	/usr/bin/time -f '%M' -o "$tmp/rss" "$WS_BIN" --no-progress -j 1 -r "$tmp/big" >"$tmp/o" 2>"$tmp/e"; rc_is $? 0 "a 256 MiB installed file"
	has "$tmp/o" "1 installed package or directory without CUDA device code not shown"
	rss=$(cat "$tmp/rss")
	if [ "$rss" -lt 163840 ]; then ok; else bad "peak RSS $rss KiB over 160 MiB for a 256 MiB installed file"; fi
	rm -rf "$tmp/big"
else
	echo "skipped: the memory check (no /usr/bin/time)"; skip=$((skip + 1))
fi

# a link named by a RECORD in several spellings ("pkg//lnk", "pkg/./lnk") is one name: read
# and reported once, however many rows spell it (each would read the file again)
mkdir -p "$tmp/links/pkg" "$tmp/links/pkg-1.0.dist-info"
cp testdata/fixtures/g5-size.fatbin "$tmp/links/pkg/k.fatbin"
ln -s k.fatbin "$tmp/links/pkg/lnk"
python3 - "$tmp/links" <<'PY'
import base64, hashlib, os, sys
root = sys.argv[1]
data = open(os.path.join(root, "pkg/k.fatbin"), "rb").read()
h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
rows = ["pkg/k.fatbin"] + ["pkg/lnk", "pkg//lnk", "pkg/./lnk", "pkg/.//./lnk"]
with open(os.path.join(root, "pkg-1.0.dist-info/RECORD"), "w") as f:
    for r in rows:
        f.write("%s,sha256=%s,%d\n" % (r, h, len(data)))
    f.write("pkg-1.0.dist-info/RECORD,,\n")
open(os.path.join(root, "pkg-1.0.dist-info/METADATA"), "w").write("Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
PY
"$WS_BIN" --no-progress --json -r "$tmp/links" >"$tmp/o" 2>"$tmp/e"
python3 - "$tmp/o" <<'PY' && ok || bad "a link spelled four ways"
import json, sys
d = json.load(open(sys.argv[1]))
a = [x for x in d["artifacts"] if x["path"].endswith("pkg-1.0.dist-info")][0]
members = sorted(o.get("member") for o in a["objects"])
assert members == ["pkg/k.fatbin", "pkg/lnk"], members
assert a["record"]["ok"], a["record"]
PY

# conda's digests, held to their form: a sha256 that is not 64 hex digits is no digest (the
# file is unhashed, not mismatched), and a rewritten file's sha256_in_prefix is what the
# installed file is checked against (a wrong one is a mismatch; the right one holds)
for case in short wrong right; do
	rm -rf "$tmp/cm" && cp -r testdata/env-conda/prefix "$tmp/cm"
	python3 - "$tmp/cm" "$case" <<'PY'
import glob, hashlib, json, sys
root, case = sys.argv[1], sys.argv[2]
rec = glob.glob(root + "/conda-meta/wscan-conda-*.json")[0]
d = json.load(open(rec))
for p in d["paths_data"]["paths"]:
    if case == "short" and p["_path"] == "lib/libwscan_cuda.so":
        p["sha256"] = "abcd"
    if case != "short" and p["_path"] == "etc/wscan.conf":
        real = hashlib.sha256(open(root + "/etc/wscan.conf", "rb").read()).hexdigest()
        p["sha256_in_prefix"] = real if case == "right" else "0" * 64
        p["size_in_bytes"] = len(open(root + "/etc/wscan.conf", "rb").read())   # the hash alone decides
json.dump(d, open(rec, "w"))
PY
	"$WS_BIN" --no-progress --json --gpu sm_90 -r "$tmp/cm" >"$tmp/o" 2>"$tmp/e"
	python3 - "$tmp/o" "$case" <<'PY' && ok || bad "conda digests ($case): $(cat "$tmp/e" | head -c 300)"
import json, sys
d = json.load(open(sys.argv[1]))
a = [x for x in d["artifacts"] if "conda-meta" in x["path"]][0]
r, case = a["record"], sys.argv[2]
if case == "short":
    assert r["ok"] and r["mismatched"] == [] and r["hashed_rows"] == 4, r     # 5 with its digest
elif case == "wrong":
    assert "etc/wscan.conf" in r["mismatched"], r
else:
    assert r["ok"] and r["mismatched"] == [] and r["hashed_rows"] == 6, r     # 5 without it
PY
done

# a torch extension cache: the directory says what it is and which CUDA it was built for
mkdir -p "$tmp/cache/torch_extensions/py311_cu124/fused_adam"
cp testdata/fixtures/old-only.so "$tmp/cache/torch_extensions/py311_cu124/fused_adam/fused_adam.so"
"$WS_BIN" --no-progress --json --gpu sm_120 -r "$tmp/cache" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "torch extension cache"
has "$tmp/o" '"origin":"torch extension '"'"'fused_adam'"'"', built in place for Python 3.11 and CUDA 12.4"'

# When the objects name no CUDA (a cubin without ptxas' notes, as CUDA 11's were, and no PTX),
# the packaging's word is the build's CUDA: conda's build string (cuda12.4 -> 12.4), a torch
# extension's directory (cu121 -> 12.1)
python3 - testdata/fixtures/sm_90.cubin "$tmp/nonotes.cubin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
n = 0
for i in range(shnum):                     # SHT_NOTE -> SHT_PROGBITS: the notes are not read
    o = shoff + i * shentsize
    if struct.unpack_from("<I", b, o + 4)[0] == 7:
        struct.pack_into("<I", b, o + 4, 1)
        n += 1
assert n == 2, n
open(sys.argv[2], "wb").write(b)
PY
"$WS_BIN" --no-progress --json "$tmp/nonotes.cubin" >"$tmp/o" 2>&1
lacks "$tmp/o" '"toolkit":'
rm -rf "$tmp/cn" && cp -r testdata/env-conda/prefix "$tmp/cn" && cp "$tmp/nonotes.cubin" "$tmp/cn/lib/libwscan_cuda.so"
python3 - "$tmp/cn" <<'PY'
import glob, hashlib, json, os, sys
rec = glob.glob(sys.argv[1] + "/conda-meta/wscan-conda-*.json")[0]
d = json.load(open(rec))
data = open(sys.argv[1] + "/lib/libwscan_cuda.so", "rb").read()
for p in d["paths_data"]["paths"]:
    if p["_path"] == "lib/libwscan_cuda.so":
        p["sha256"], p["size_in_bytes"] = hashlib.sha256(data).hexdigest(), len(data)
json.dump(d, open(rec, "w"))
PY
"$WS_BIN" --no-progress --gpu sm_120 -r "$tmp/cn" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "conda package without notes"
has "$tmp/o" "    wscan-conda 0.1.0: built with CUDA 12.4, which predates sm_120 (CUDA 12.8+): use a build made with CUDA >= 12.8"
lacks "$tmp/o" "mismatched"
mkdir -p "$tmp/cache2/torch_extensions/py311_cu121/fused_adam"
cp "$tmp/nonotes.cubin" "$tmp/cache2/torch_extensions/py311_cu121/fused_adam/fused_adam.so"
"$WS_BIN" --no-progress --gpu sm_120 -r "$tmp/cache2" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "torch extension without notes"
has "$tmp/o" "built with CUDA 12.1, which predates sm_120"

# a conda environment: the package conda's record lists (its dist-info stays conda's), a file
# whose prefix conda rewrote (not a mismatch), and a package pip put in its site-packages
CP=testdata/env-conda/prefix
"$WS_BIN" --no-progress --gpu 'RTX 5090,T4' -r "$CP" >"$tmp/o" 2>"$tmp/e"; rc_is $? 1 "conda environment"
has "$tmp/o" "$CP/conda-meta/wscan-conda-0.1.0-cuda12.4_0.json  (installed,"
has "$tmp/o" "  package wscan-conda 0.1.0"
has "$tmp/o" "$CP/lib/python3.11/site-packages/wscan_alts-0.1.0.dist-info  (installed,"
has "$tmp/o" "    wscan-conda 0.1.0: built with CUDA 13.0, which supports sm_120, but left it out"
lacks "$tmp/o" "wscan_conda-0.1.0.dist-info"
lacks "$tmp/o" "etc/wscan.conf"
if [ -s "$tmp/e" ]; then bad "conda stderr: $(cat "$tmp/e")"; else ok; fi
cp -r testdata/env-conda "$tmp/conda"
printf 'X' | dd of="$tmp/conda/prefix/lib/libwscan_cuda.so" bs=1 seek=300 conv=notrunc 2>/dev/null
# a changed installed file is judged as read and listed, as in a pip environment
"$WS_BIN" --no-progress --gpu sm_75 -r "$tmp/conda/prefix" >"$tmp/o" 2>"$tmp/e"; rc_is $? 0 "tampered conda package"
has "$tmp/o" "          mismatched: lib/libwscan_cuda.so"
if [ -s "$tmp/e" ]; then bad "tampered conda package: stderr $(cat "$tmp/e")"; else ok; fi
# hostile records: refused with the reason and the file named; the scan goes on
for bad_json in '{"name": "x", "files": ["a", ' '{"name": "x" "files": []}' '[1, 2]' '{"name": "\q"}' \
		'{"files": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}'; do
	rm -rf "$tmp/h"; mkdir -p "$tmp/h/conda-meta"
	printf '%s' "$bad_json" >"$tmp/h/conda-meta/bad-1-0.json"
	"$WS_BIN" --no-progress --gpu sm_75 -r "$tmp/h" >"$tmp/o" 2>"$tmp/e"; rc_is $? 3 "hostile conda record $bad_json"
	has "$tmp/e" "bad-1-0.json': conda-meta record: "
done

echo "$pass passed, $fail failed, ${skip:-0} skipped"
[ $fail -eq 0 ]
