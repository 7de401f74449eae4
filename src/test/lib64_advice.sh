#!/bin/sh
# lib64_advice.sh - the build's CUDA version comes from the cubins' notes before the PTX ISA:
# the CUDA 13.0 toolkit's cuFFT carries PTX of ISA 7.x (CUDA 11) next to cubins whose notes
# say 13.0. The test reads, from the entries of the same JSON document, the newest toolkit
# the notes name and the newest ISA, requires the ISA to be older (else this library is not
# the case the test is for: skipped), and then the judgement's build_cuda to be the notes'
# version; with CUDA 13.0's cuFFT, the advice for sm_50 and sm_120 is checked word for word
# (CUDA 13.0 dropped sm_50, whose last toolkit is 12.9; it supports sm_120).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
: "${WS_BIN:=$PWD/build/wheelscan}"
. src/test/cuda_lib64.inc
lib=$cuda_lib64
so=$(ls "$lib"/libcufft.so.[0-9]* 2>/dev/null | head -n 1)
[ -n "$so" ] || skip_all "no libcufft.so under $lib (the CUDA toolkit's libraries; make fetch-corpus unpacks them)" yes
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
"$WS_BIN" --no-progress --no-kernels -vv --strict --gpu sm_50,sm_120 --json "$so" >"$tmp" 2>/dev/null
python3 - "$tmp" "$so" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
o = doc["artifacts"][0]["objects"][0]
ver = lambda s: tuple(int(x) for x in s.split("."))
notes = [e["toolkit"] for f in o["fatbins"] for e in f["entries"] if e["kind"] == "sass" and e.get("toolkit")]
isas = [e["ptx_isa"] for f in o["fatbins"] for e in f["entries"] if e["kind"] == "ptx" and not e.get("opaque")]
if not notes or not isas or ver(max(isas, key=ver)) >= (8, 0) and ver(max(notes, key=ver)) < (13, 0):
    print("skipped: %s: cubin notes %s, PTX ISA %s: not a library whose ISA is older than its toolkit"
          % (sys.argv[2], sorted(set(notes)), sorted(set(isas))))
    print("0 passed, 0 failed, 1 skipped")
    sys.exit(0)
tk, isa = max(notes, key=ver), max(isas, key=ver)
npass = nfail = 0
def check(c, what):
    global npass, nfail
    npass += bool(c); nfail += not c
    if not c:
        print("FAIL: " + what)
j = o["judgement"]
for t in ("sm_50", "sm_120"):
    check(j[t]["build_cuda"] == tk, "%s: build_cuda %s, not %s from the cubins' notes (the newest PTX ISA is %s)"
          % (t, j[t]["build_cuda"], tk, isa))
if tk == "13.0":
    want = {"sm_50": "built with CUDA 13.0, which dropped sm_50 (last in CUDA 12.9): use a build made with CUDA 6.0 to 12.9",
            "sm_120": "built with CUDA 13.0, which supports sm_120, but left it out and has no PTX: ask for a build with sm_120 or PTX"}
    for t, w in want.items():
        check(j[t]["advice"] == w, "%s advice: %r, not %r" % (t, j[t]["advice"], w))
    check(o["verdicts"] == {"sm_50": "no-image", "sm_120": "no-image"}, "verdicts %s" % o["verdicts"])
else:
    print("skipped: the advice text: checked word for word for CUDA 13.0's cuFFT only (this is %s)" % tk)
print("%d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
