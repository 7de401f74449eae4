#!/bin/sh
# corpus.sh - real wheels from PyPI (scripts/fetch-corpus, sha256-pinned): what each one
# really contains, and the verdicts for an RTX 5090 (sm_120) and an H100 (sm_90).
# Skips (0 passed) when the wheels cannot be fetched (no network).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
scripts/fetch-corpus >/dev/null 2>&1 || skip_all "scripts/fetch-corpus could not fetch the corpus" yes
# the big torch wheel, when fetched, is checked on its own below
"$WS_BIN" --json --no-progress --gpu 'RTX 5090,H100' $(ls corpus/*.whl | grep -v -e '/torch-' -e cusparselt) >corpus.json.tmp 2>/dev/null
rc=$?
# the independent reader's view of the Windows wheel, container by container
python3 scripts/fatbin-dump.py --ws-json corpus/nvidia_curand_cu12-10.3.9.90-py3-none-win_amd64.whl >corpus.win.tmp 2>/dev/null
python3 - corpus.json.tmp "$rc" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
arts = {a["path"].split("/")[-1]: a for a in doc["artifacts"]}
passed = failed = 0
def check(cond, what):
    global passed, failed
    if cond: passed += 1
    else:
        failed += 1
        print("FAIL", what)
def archs(a, member_sub, kind):
    s = set()
    for o in a["objects"]:
        if member_sub in (o["member"] or ""):
            for f in o["fatbins"]:
                for e in f["entries"]:
                    if e["kind"] == kind: s.add(e["arch"])
    return s
def obj(a, sub):
    return [o for o in a["objects"] if sub in (o["member"] or "")]

check(rc == 0, "exit status %d, expected 0 (every wheel runs on both GPUs)" % rc)
tv20 = arts["torchvision-0.20.1-cp311-cp311-manylinux1_x86_64.whl"]
check(tv20["record"]["ok"], "torchvision 0.20.1 RECORD verifies")
check(tv20["wheel"]["version"] == "0.20.1", "torchvision 0.20.1 version")
c = archs(tv20, "torchvision/_C.so", "sass")
check(c == {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"}, "0.20.1 _C.so SASS %s" % sorted(c))
check(archs(tv20, "torchvision/_C.so", "ptx") == {"compute_50"}, "0.20.1 _C.so PTX")
check(not any("sm_120" in archs(tv20, "", "sass") for _ in [0]), "0.20.1 has no sm_120 SASS")
# No sm_120 SASS anywhere, but compute_50/compute_90 PTX (ISA 8.4): the driver can JIT it.
# (Issue 4 expected no-image here; the bytes say PTX is present, so the answer is jit.)
check(tv20["verdicts"] == {"sm_120": "jit", "sm_90": "native"}, "0.20.1 verdicts %s" % tv20["verdicts"])
tv23 = arts["torchvision-0.23.0-cp311-cp311-manylinux_2_28_x86_64.whl"]
check("sm_120" in archs(tv23, "torchvision/_C.so", "sass"), "0.23.0 _C.so has sm_120")
check(tv23["verdicts"] == {"sm_120": "native", "sm_90": "native"}, "0.23.0 verdicts %s" % tv23["verdicts"])
rt = arts["nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"]
check(rt["objects"] == [] and rt["verdicts"] == {"sm_120": "none", "sm_90": "none"}, "cuda runtime: no device code")
cr = arts["nvidia_curand_cu12-10.3.9.90-py3-none-manylinux_2_27_x86_64.whl"]
s = archs(cr, "libcurand.so.10", "sass")
check({"sm_50", "sm_101", "sm_120"} <= s, "curand SASS %s" % sorted(s))
check(sum(len(o["fatbins"]) for o in obj(cr, "libcurand")) == 11, "curand: 11 containers")
bnb = arts["bitsandbytes-0.48.2-py3-none-manylinux_2_24_x86_64.whl"]
check(len(bnb["objects"]) == 11, "bitsandbytes: 11 objects with device code")
for v in ("118", "124", "126"):
    o = obj(bnb, "libbitsandbytes_cuda%s.so" % v)[0]
    check(o["verdicts"]["sm_120"] == "no-image", "bnb cuda%s on sm_120: %s" % (v, o["verdicts"]))
for v in ("128", "130"):
    o = obj(bnb, "libbitsandbytes_cuda%s.so" % v)[0]
    check(o["verdicts"]["sm_120"] == "native", "bnb cuda%s on sm_120: %s" % (v, o["verdicts"]))
# One library per CUDA version, loaded by the CUDA runtime version: the wheel runs on sm_120
# through cuda128/129/130, and names the variants that do not.
check(bnb["verdicts"] == {"sm_120": "native", "sm_90": "native"}, "bitsandbytes verdicts %s" % bnb["verdicts"])
alts = bnb.get("alternatives", [])
check(len(alts) == 1 and alts[0]["pattern"] == "bitsandbytes/libbitsandbytes_cuda*.so", "bnb: one group %s" % [g["pattern"] for g in alts])
if alts:
    runs = sorted(x["cuda"] for x in alts[0]["variants"] if x["verdicts"]["sm_120"] == "native")
    fails = sorted(x["cuda"] for x in alts[0]["variants"] if x["verdicts"]["sm_120"] == "no-image")
    check(runs == ["12.8", "12.9", "13.0"], "bnb variants running on sm_120: %s" % runs)
    check(fails == ["11.8", "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6"], "bnb variants failing: %s" % fails)
    check(alts[0]["verdicts"] == {"sm_120": "native", "sm_90": "native"}, "bnb group verdicts")
check("alternatives" in bnb["judgement"]["sm_120"]["reasons"], "bnb: reason alternatives")
o = obj(bnb, "libbitsandbytes_cuda124.so")[0]
check(o["judgement"]["sm_120"]["advice"].startswith("built with CUDA 12.4, which predates sm_120"),
      "bnb cuda124 advice: %s" % o["judgement"]["sm_120"]["advice"])
check([f["role"] for f in o["fatbins"]].count("link-input") == 2, "bnb cuda124: 2 link-input containers")
o = obj(bnb, "libbitsandbytes_cuda124.so")[0]
rel = [f for f in o["fatbins"] if f["section"] == "__nv_relfatbin"]
check(len(rel) == 2 and all(f["relocatable"] for f in rel), "bnb cuda124: 2 relocatable containers")
# The Windows twin of nvidia-curand-cu12: the same containers (arch lists, kernel counts) in a
# PE image's .nv_fatb, and the same verdicts.
crw = arts["nvidia_curand_cu12-10.3.9.90-py3-none-win_amd64.whl"]
dll = obj(crw, "curand64_10.dll")
check(len(dll) == 1 and dll[0]["type"] == "pe-dll", "curand win: one pe-dll object")
def lists(o):
    return sorted(tuple(sorted((e["kind"], e["arch"], len(e["kernels"] or [])) for e in f["entries"])) for f in o["fatbins"])
if dll:
    check({f["section"] for f in dll[0]["fatbins"]} == {".nv_fatb"}, "curand win: containers in .nv_fatb")
    check(lists(dll[0]) == lists(obj(cr, "libcurand.so.10")[0]), "curand win: same containers as Linux")
check(crw["verdicts"] == cr["verdicts"], "curand win verdicts %s, Linux %s" % (crw["verdicts"], cr["verdicts"]))
def containers(objs):
    return [(o["member"], f["section"], f["offset"], f["size"], f["relocatable"],
             [(e["kind"], e["arch"], e["compression"], None if e["kernels"] is None else len(e["kernels"]))
              for e in f["entries"]]) for o in objs for f in o["fatbins"]]
ind = json.load(open("corpus.win.tmp"))["artifacts"][0]
check(containers(crw["objects"]) == containers(ind["objects"]) and containers(ind["objects"]),
      "curand win: every container and entry as scripts/fatbin-dump.py reads them")
open("corpus.counts.tmp", "w").write("%d %d\n" % (passed, failed))
print("wheel checks: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
r=$?
# the wheel checks' counts, to which the environment and torch checks below add theirs
read pass fail <corpus.counts.tmp 2>/dev/null || { pass=0 fail=1; }
skip=0
rm -f corpus.counts.tmp
rm -f corpus.json.tmp corpus.win.tmp
# A real environment: the pinned torchvision 0.20.1 and bitsandbytes wheels installed with pip
# (no dependencies) into a directory, then scanned as an environment for an RTX 5090.
envdir=$(mktemp -d)
if python3 -m pip install --quiet --no-deps --no-compile --no-index --disable-pip-version-check --target "$envdir" \
	corpus/torchvision-0.20.1-cp311-cp311-manylinux1_x86_64.whl corpus/bitsandbytes-0.48.2-py3-none-manylinux_2_24_x86_64.whl \
	>/dev/null 2>&1; then
	out=$("$WS_BIN" --no-progress --gpu 'RTX 5090' -r "$envdir" 2>&1); rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^  only through PTX JIT (slow first start) on GeForce RTX 5090 (sm_120):' &&
	   printf '%s\n' "$out" | grep -q '^    torchvision 0.20.1 (built for torch 2.5.1)$' &&
	   printf '%s\n' "$out" | grep -q 'bitsandbytes-0.48.2.dist-info  (installed' &&
	   printf '%s\n' "$out" | grep -q 'RECORD  ok: every installed file matches its hash and size'; then
		echo "ok   environment of torchvision 0.20.1 + bitsandbytes 0.48.2: torchvision only through JIT on sm_120"
		pass=$((pass + 1))
	else
		echo "FAIL environment (exit $rc):"; printf '%s\n' "$out" | tail -15; r=1; fail=$((fail + 1))
	fi
else
	echo "skipped: pip could not install the corpus wheels into an environment"; skip=$((skip + 1))
fi
rm -rf "$envdir"
# The full torch wheel comes only with `scripts/fetch-corpus --big` (906 MB): when it is
# there, the story this tool exists for must hold: torch 2.5.1 (CUDA 12.4) on an RTX 5090.
big=corpus/torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl
[ -f "$big" ] || { echo "skipped: torch 2.5.1 on RTX 5090, H100, A100 (run scripts/fetch-corpus --big)"; skip=$((skip + 1)); }
if [ -f "$big" ]; then
	out=$("$WS_BIN" -q --no-progress --gpu 'RTX 5090,H100,A100,T4,sm_50' "$big" 2>&1); rc=$?
	# H100: 1 of 2,916 containers (in the bundled cuSPARSELt) only JITs, libtorch_cuda.so is
	# native: the line says the main code's verdict. T4 and sm_50: cuSPARSELt (8.0+, one sm_52
	# helper) is set aside beside libtorch_cuda.so, which PyTorch 2.5.1 builds for sm_50..sm_90.
	if [ $rc -eq 1 ] && printf '%s' "$out" | grep -q 'RTX 5090 (sm_120): will NOT run (no-image in 3 of 3' &&
	   printf '%s' "$out" | grep -q 'why: torch/lib/libtorch_cuda.so: 303 of 304 containers with kernels' &&
	   printf '%s' "$out" | grep -q 'fix: built with CUDA 12.4, which predates sm_120 (CUDA 12.8+): use a build made with CUDA >= 12.8' &&
	   printf '%s' "$out" | grep -q 'H100 (sm_90): runs: native SASS (1 container in torch/lib/libcusparseLt-294d6944.so.0 only through PTX JIT)' &&
	   printf '%s' "$out" | grep -q 'A100 (sm_80): runs' && printf '%s' "$out" | grep -q 'T4 (sm_75): runs' &&
	   printf '%s' "$out" | grep -q '=> sm_50: runs' &&
	   printf '%s' "$out" | grep -q 'set aside: torch/lib/libcusparseLt-294d6944.so.0: built for sm_80 and newer (only a helper container (1 of 2505, 1 kernel) has code for sm_75'; then
		echo "ok   torch 2.5.1: no-image on RTX 5090 (built with CUDA 12.4), runs on H100 (native headline), A100, T4, sm_50"
		pass=$((pass + 1))
	else
		echo "FAIL torch 2.5.1 on RTX 5090 (exit $rc):"; printf '%s\n' "$out" | tail -5; r=1; fail=$((fail + 1))
	fi
fi
# A verdict does not change with --no-kernels (issue 40): every corpus file, default against
# --no-kernels, on GPUs from 5.2 to 12.0; and cuSPARSELt 0.7.1 (one sm_52 helper of 372
# containers with kernels, the rest for sm_80 and newer) will NOT run on 5.2 to 7.5 in both.
G=sm_52,sm_61,sm_70,sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120
for f in corpus/*.whl corpus/*.deb; do
	[ -f "$f" ] || continue
	"$WS_BIN" --json --no-progress --gpu $G "$f" >corpus.inv.tmp 2>/dev/null; r1=$?
	"$WS_BIN" --json --no-progress --no-kernels --gpu $G "$f" >corpus.invnk.tmp 2>/dev/null; r2=$?
	if python3 - corpus.inv.tmp corpus.invnk.tmp "$f" <<'PY' && [ $r1 = $r2 ]; then
import json, sys
a, b = (json.load(open(p))["artifacts"] for p in sys.argv[1:3])
# the verdicts (gates, exit status); the headline's wording of a JIT minority still weighs
# decoded kernels, so it may say "runs: native" where the full scan says "runs through JIT"
v = lambda arts: [(x["path"], x["verdicts"]) for x in arts]
ok = v(a) == v(b) and len(a) > 0
if ok and "cusparselt_cu12-0.7.1" in sys.argv[3]:
    want = {"sm_52": "no-image", "sm_61": "no-image", "sm_70": "no-image", "sm_75": "no-image", "sm_80": "native"}
    ok = all(x["verdicts"][k] == w for x in (a[0], b[0]) for k, w in want.items())
if not ok:
    print("default:     ", v(a)); print("--no-kernels:", v(b))
sys.exit(0 if ok else 1)
PY
		echo "ok   $(basename "$f"): the same verdicts with --no-kernels"
		pass=$((pass + 1))
	else
		echo "FAIL $(basename "$f"): verdicts change with --no-kernels (exit $r1 and $r2)"; r=1; fail=$((fail + 1))
	fi
done
rm -f corpus.inv.tmp corpus.invnk.tmp
# A mirror's line: --jsonl at its default detail (artifact) carries torch's verdicts, reasons
# and advice in kilobytes; every level is measured and must validate
if [ -f "$big" ]; then
	sizes="" ok=1
	for d in default artifact object container entry; do
		opt="--detail $d"; [ $d = default ] && opt=""
		# shellcheck disable=SC2086
		"$WS_BIN" --jsonl --no-progress $opt --gpu 'RTX 5090,H100,A100,T4,sm_50' "$big" >corpus.jsonl.tmp 2>/dev/null
		n=$(wc -c <corpus.jsonl.tmp); sizes="$sizes $d=$n"
		python3 src/test/json_schema.py man/wheelscan.schema.json corpus.jsonl.tmp >/dev/null 2>&1 || ok=0
		[ $d = default ] && { [ "$n" -lt 65536 ] && grep -q '"advice":"' corpus.jsonl.tmp && grep -q '"reasons":\["' corpus.jsonl.tmp || ok=0; }
	done
	if [ $ok = 1 ]; then
		echo "ok   torch 2.5.1 --jsonl under 64 KB at the default detail, every level valid (bytes:$sizes)"
		pass=$((pass + 1))
	else
		echo "FAIL torch 2.5.1 --jsonl sizes or schema (bytes:$sizes)"; r=1; fail=$((fail + 1))
	fi
	rm -f corpus.jsonl.tmp
fi
# ... and the cure: the build to install is a torch, torchvision and torchaudio set that the
# bundled table says runs natively on sm_120, with its command (doc/builds.md)
if [ -f "$big" ]; then
	"$WS_BIN" --json --no-progress --gpu 'RTX 5090' "$big" >corpus.json.tmp 2>/dev/null
	if python3 - corpus.json.tmp share/builds.tsv <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["artifacts"][0]["judgement"]["sm_120"]["remedy"]
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l[0] != "#"]
head, rows = rows[0], rows[1:]
col = {k: i for i, k in enumerate(head)}
def runs(name, version):
    for row in rows:
        if row[0] == name and row[1] == version and row[col["variant"]] == r["variant"] and row[3] == "linux_x86_64":
            sass = [int(a) for a in row[col["sass"]].split(",") if a.isdigit()]
            return 120 in sass
    return False
names = [p["name"] for p in r["packages"]]
ok = (r["kind"] == "install" and names == ["torch", "torchvision", "torchaudio"] and r["verdict"] == "native" and
      all(runs(p["name"], p["version"]) for p in r["packages"]) and
      r["command"].startswith("pip install torch==%s" % r["packages"][0]["version"]) and
      "torchvision==" in r["command"] and "torchaudio==" in r["command"] and "-d wheels" in r["download_command"])
if not ok:
    print(json.dumps(r, indent=1))
sys.exit(0 if ok else 1)
PY
	then
		echo "ok   torch 2.5.1 on RTX 5090: the remedy is a torch/torchvision/torchaudio set with sm_120 SASS, and its command"
		pass=$((pass + 1))
	else
		echo "FAIL torch 2.5.1 on RTX 5090: the remedy (above) is not a set the table says runs"; r=1; fail=$((fail + 1))
	fi
fi
# The build's CUDA (src/core/buildcuda.c, doc/builds.md): torch 2.15.0 (2.15.0+cu132) pins
# cuda-toolkit==13.2.2, and its cubins' notes agree once read as the release most of them
# name: libtorch_cuda.so carries 2981 cubins from ptxas 13.2 and 58 from 13.4; it is 13.2.
t215=corpus/torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl
if [ -f "$t215" ]; then
	out=$("$WS_BIN" -v --no-progress --gpu 'RTX 5090' "$t215" 2>&1)
	jrt=$("$WS_BIN" --json --detail artifact --no-progress --gpu 'RTX 5090' "$t215" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["artifacts"][0]["wheel"]["requires_cuda_runtime"])')
	if printf '%s\n' "$out" | grep -q '^    built   CUDA 13.2 (named by 2981 of 3039 cubins.* the newest note, 13.4, by fewer)' &&
	   [ "$(printf '%s\n' "$out" | grep -c '^    built   CUDA 13.2 ')" = 3 ] && [ "$jrt" = 13.2 ] &&
	   printf '%s\n' "$out" | grep -q 'GeForce RTX 5090 (sm_120): runs: native SASS'; then
		echo "ok   torch 2.15.0: built with CUDA 13.2 (2981 of 3039 cubins; 58 from ptxas 13.4), its pinned cuda-toolkit 13.2"; pass=$((pass + 1))
	else
		echo "FAIL torch 2.15.0: not read as a CUDA 13.2 build (runtime '$jrt'):"; printf '%s\n' "$out" | grep -E 'built|=>'; r=1; fail=$((fail + 1))
	fi
else
	echo "skipped: torch 2.15.0's build CUDA (run scripts/fetch-corpus --big)"; skip=$((skip + 1))
fi
# CI fetches the corpus and the big wheel (.ci/run): a skip there means a broken CI image
if [ "${CI:-}" = true ] && [ $skip -ne 0 ]; then echo "FAIL: CI must run every corpus check"; fail=$((fail + skip)); skip=0; r=1; fi
echo "$pass passed, $fail failed, $skip skipped"
exit $r
