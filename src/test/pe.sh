#!/bin/sh
# pe.sh - Windows PE images: a DLL (and a .pyd) holding the sections of an nvcc-built .so where a
# Windows build keeps them (scripts/mkpe.py) is read as its Linux twin is: the same containers,
# entries, kernels, roles and verdicts; __nv_rel is relocatable; a Windows wheel is scanned.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1
FX=testdata/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
G=sm_75,sm_80,sm_90,sm_100,sm_120
"$WS_BIN" --json --no-progress --gpu $G $FX/win-multi.dll $FX/multi.so $FX/win-rdc.pyd $FX/rdc.so \
	$FX/wscan_win-0.1.0-cp311-cp311-win_amd64.whl >"$tmp/j" 2>"$tmp/e"
echo $? >"$tmp/rc"
python3 - "$tmp/j" "$(cat "$tmp/rc")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
arts = {a["path"].rsplit("/", 1)[-1]: a for a in d["artifacts"]}
passed = failed = 0
def check(cond, what):
    global passed, failed
    if cond: passed += 1
    else:
        failed += 1
        print("FAIL", what)
def view(a):
    return [[(f["relocatable"], f["role"], f["verdicts"],
              [(e["kind"], e["arch"], e["compression"], e["kernels"]) for e in f["entries"]])
             for f in o["fatbins"]] for o in a["objects"]]
check(rc == 1, "exit %d, expected 1 (rdc misses sm_120)" % rc)
for win, lin, typ in (("win-multi.dll", "multi.so", "pe-dll"), ("win-rdc.pyd", "rdc.so", "pe-dll")):
    w, l = arts[win], arts[lin]
    check(w["objects"][0]["type"] == typ, "%s: type %s" % (win, w["objects"][0]["type"]))
    check(view(w) == view(l), "%s reads as %s does" % (win, lin))
    check(w["verdicts"] == l["verdicts"], "%s verdicts %s, %s %s" % (win, w["verdicts"], lin, l["verdicts"]))
rdc = arts["win-rdc.pyd"]["objects"][0]["fatbins"]
check([f["section"] for f in rdc] == [".nv_fatb", "__nv_rel", "__nv_rel"], "win-rdc sections %s" % [f["section"] for f in rdc])
check([f["role"] for f in rdc] == ["required", "link-input", "link-input"], "win-rdc roles")
ww = arts["wscan_win-0.1.0-cp311-cp311-win_amd64.whl"]
check(ww["type"] == "wheel" and ww["record"]["ok"], "Windows wheel: RECORD verified")
check([o["member"] for o in ww["objects"]] == ["wscan_win/_C.pyd"], "Windows wheel: the .pyd is scanned")
check(view(ww)[0] == view(arts["multi.so"])[0], "Windows wheel's .pyd reads as multi.so")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
