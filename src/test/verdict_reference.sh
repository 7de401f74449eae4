#!/bin/sh
# verdict_reference.sh - every verdict the golden cases (testdata/golden/*.args) produce,
# checked against a second source that does not call src/core/compat.c: the reference rules
# below, written in Python from NVIDIA's statements as doc/compat-rules.md gives them
# (SASS §1, PTX §2, a/f §3, PTX ISA -> driver §4, first toolkit per GPU §6). Each case is
# run again with --json; for every container the reference computes the verdict from the
# decoded entries (kind, arch, a/f marker, PTX ISA) and the target CC, and the tool's must
# match; each object's verdict must be the worst of its required containers. The goldens
# store the same runs as text, so GOLDEN_UPDATE can refresh their formatting but cannot
# make a verdict change pass: that needs this reference to agree.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing (verdict reference)" yes
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1 NO_COLOR=1
python3 - "$WS_BIN" <<'PY'
import glob, json, os, re, shlex, subprocess, sys
ws = sys.argv[1]

# §4: PTX ISA -> first CUDA whose driver reads it (the doc's table), as CUDA*1000+minor*10.
ISA = {(6,0):9000,(6,1):9010,(6,2):9020,(6,3):10000,(6,4):10010,(6,5):10020,(7,0):11000,(7,1):11010,
       (7,2):11020,(7,3):11030,(7,4):11040,(7,5):11050,(7,6):11060,(7,7):11070,(7,8):11080,(8,0):12000,
       (8,1):12010,(8,2):12020,(8,3):12030,(8,4):12040,(8,5):12050,(8,6):12070,(8,7):12080,(8,8):12090,
       (9,0):13000,(9,1):13010}
# §4: driver branch -> CUDA version
BRANCH = [(525,12000),(535,12020),(550,12040),(560,12060),(570,12080),(575,12090),(580,13000)]
# §6: first toolkit that builds SASS for a CC (a driver older than it cannot know the GPU)
FIRST = {75:10000, 80:11000, 86:11010, 87:11040, 89:11080, 90:11080, 100:12080, 101:12080, 120:12080,
         103:12090, 121:12090, 110:13000}

def driver_cuda(s):
    parts = s.split(".")
    major = int(parts[0])
    if major >= 100:                       # a driver version: its branch
        c = 0
        for b, v in BRANCH:
            if b <= major: c = v
        return c
    return major * 1000 + int(parts[1]) * 10

def entry(e):
    """(kind, arch number, suffix, isa) from the decoded entry."""
    m = re.match(r"(sm|compute|lto)_(\d+)([af]?)$", e["arch"])
    if not m:
        return None
    suffix = m.group(3)
    t = e.get("ptx_target") or ""
    if not suffix and e["kind"] == "ptx" and re.search(r"\d[af]$", t):
        suffix = t[-1]                     # §3: the marker may be only on the .target line
    isa = None
    if e.get("ptx_isa"):
        a, b = e["ptx_isa"].split(".")
        isa = (int(a), int(b))
    return e["kind"], int(m.group(2)), suffix, isa

INTEGRATED = {53, 62, 72, 87, 101}        # §1a: Jetson (PyTorch's DEVICE_REQUIREMENT)

def runs_sass(arch, suffix, cc, toolkit):
    if suffix == "a":                      # §3: exactly that CC
        return arch == cc
    if arch in (101, 110) and cc in (101, 110):
        return True                        # §1a: sm_101 was renamed sm_110 (Thor)
    if arch in INTEGRATED or cc in INTEGRATED:
        # §1a: no SASS across the desktop/Tegra line, but from CUDA 13.2 sm_70/80/86 reach
        # the Jetson of their major
        return arch == cc or (toolkit >= (13, 2) and cc in INTEGRATED and arch in (70, 80, 86)
                               and arch // 10 == cc // 10 and arch % 10 <= cc % 10)
    return arch // 10 == cc // 10 and arch % 10 <= cc % 10   # §1 (and §3 f: the family)

def toolkit_of(e):
    t = e.get("toolkit")
    if not t:
        return (0, 0)
    a, b = t.split(".")[:2]
    return (int(a), int(b))

def runtime_floor(o):
    """§4a: the driver (CUDA*1000+minor*10) the object's runtime needs: x.0 of the newest
    ptxas note of its cubins, else of its file name's cudaNNN token; 0 when neither says."""
    notes = [toolkit_of(e) for f in o["fatbins"] for e in f["entries"] if e["kind"] == "sass"]
    notes = [n for n in notes if n != (0, 0)]
    if notes:
        major = max(notes)[0]
    else:
        m = re.search(r"(?<![A-Za-z])cu(?:da)?(\d{2,3})(?![A-Za-z0-9])", os.path.basename(o["member"] or ""))
        if not m:
            return 0
        d = m.group(1)
        major = int(d[:-1]) if len(d) == 3 else int(d)
    return major * 1000 if major >= 11 else 0

def runs_ptx(arch, suffix, cc):
    if suffix == "a":
        return arch == cc
    if suffix == "f":
        return arch // 10 == cc // 10 and arch % 10 <= cc % 10
    return cc >= arch                      # §2

def container(f, cc, drv):
    best = "no-image"
    order = ["native", "compatible", "jit", "ptx-too-new", "no-image"]
    for e in f["entries"]:
        x = entry(e)
        if x is None or e["opaque"]:
            continue
        kind, arch, suffix, isa = x
        v = "no-image"
        if kind == "sass" and runs_sass(arch, suffix, cc, toolkit_of(e)):
            v = "native" if arch == cc else "compatible"
        elif kind == "ptx" and runs_ptx(arch, suffix, cc):
            need = ISA.get(isa, 99999) if isa and isa != (0, 0) else 0
            v = "ptx-too-new" if drv and need > drv else "jit"
        if order.index(v) < order.index(best):
            best = v
    return best

RANK = {"none": 0, "native": 1, "compatible": 2, "jit": 3, "ptx-too-new": 4, "no-image": 5}
passed = failed = 0
def check(ok, what):
    global passed, failed
    if ok: passed += 1
    else:
        failed += 1
        print("FAIL " + what)

DROP1 = {"--json", "--jsonl", "-q", "-v", "-vv", "-vvv", "--kernels", "--no-regress", "--require-ptx"}
DROP2 = {"--format", "--baseline", "--require"}
for args_file in sorted(glob.glob("testdata/golden/*.args")):
    name = os.path.basename(args_file)[:-5]
    argv = shlex.split(open(args_file).read())
    if "--gpu" in argv and argv[argv.index("--gpu") + 1] in ("auto", "rtx5900"):
        continue                           # no targets to judge (no driver here; a usage error)
    cmd, i, drv, strict = [], 0, 0, "--strict" in argv
    while i < len(argv):
        a = argv[i]
        if a in DROP1: i += 1; continue
        if a in DROP2: i += 2; continue
        if a == "--driver": drv = driver_cuda(argv[i + 1])
        cmd.append(a); i += 1
    envfile = "testdata/golden/%s.env" % name
    if os.path.exists(envfile):
        continue                           # a stand-in driver decides the targets: not a rules case
    r = subprocess.run([ws, "--json", "--no-progress", "--jobs", "2"] + cmd, capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        check(False, "%s: no JSON (exit %d): %s" % (name, r.returncode, r.stderr[:200]))
        continue
    targets = [(t["name"], int(float(t["cc"]) * 10 + 0.5)) for t in d["targets"]]
    n = 0
    for a in d["artifacts"]:
        for o in a["objects"]:
            where = "%s: %s %s" % (name, a["path"], o["member"] or "")
            for tname, cc in targets:
                worst = whole = "none"
                # an object set aside as a whole (built only for other GPUs, others serve): its
                # serving helper is set aside with it, and the object would fail on its own
                aside = o.get("verdicts") and o["verdicts"][tname] == "other-gpu"
                for k, f in enumerate(o["fatbins"]):
                    role, got = f["roles"][tname], f["verdicts"][tname]
                    if role in ("link-input", "no-kernels"):
                        check(got == "none", "%s container %d on %s: %s is not judged, tool says %s" % (where, k, tname, role, got))
                        continue
                    want = container(f, cc, drv)
                    if RANK[want] > RANK[whole]:
                        whole = want
                    if role == "other-gpu":
                        # set aside as built for other GPUs: only a container that cannot serve may be
                        check(got == "other-gpu" and (want == "no-image" or aside) and not strict,
                              "%s container %d on %s: other-gpu, reference %s" % (where, k, tname, want))
                    else:
                        check(got == want, "%s container %d on %s: tool %s, reference %s" % (where, k, tname, got, want))
                        if RANK[want] > RANK[worst]:
                            worst = want
                    n += 1
                # §6: a driver older than the GPU's first toolkit cannot run anything on it
                if drv and worst != "none" and FIRST.get(cc, 0) > drv:
                    worst = "no-image"
                # §4a: a driver of an older major than the runtime the code links runs none of it
                if drv and worst != "none" and runtime_floor(o) > drv:
                    worst = "no-image"
                got = o["verdicts"][tname] if o.get("verdicts") else "none"
                if aside:
                    check(whole == "no-image" and not strict and all(f["roles"][tname] != "required" for f in o["fatbins"]),
                          "%s on %s: set aside, but its containers' worst is %s" % (where, tname, whole))
                elif o.get("alternative") is None:
                    check(got == worst, "%s on %s: object %s, worst container %s" % (where, tname, got, worst))
    check(n > 0 or not targets or not any(o["fatbins"] for a in d["artifacts"] for o in a["objects"]),
          "%s: no container judged" % name)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
