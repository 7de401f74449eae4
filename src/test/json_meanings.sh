#!/bin/sh
# json_meanings.sh - the judgement's container counts mean what their names say: for every
# object of every fixture (testdata/fixtures, testdata/roles and testdata/meanings, with and
# without --strict, three targets), each count is computed again from the containers the
# same document lists (-v) and must match: containers_with_kernels = those whose role is
# required or other-gpu; containers_serving = required ones whose verdict runs (native,
# compatible, jit); containers_failing = required ones whose verdict does not;
# containers_other_gpu = those of role other-gpu. The artifact's judgement is checked the
# same way on testdata/meanings (scripts/gen-meanings), whose counts on sm_90 all differ
# from one another: objects and objects_failing from the objects' verdicts, the container
# counts from every object's containers. A field that carries another count fails here;
# the schema (types only) and the goldens (the tool's own output) cannot tell, nor can a
# fixture where the two counts a mix-up confuses are equal.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/build/wheelscan}"
python3 - "$WS_BIN" <<'PY'
import json, subprocess, sys
RUNS = {"native", "compatible", "jit"}
npass = nfail = 0
seen = {"required-runs": 0, "required-fails": 0, "other-gpu": 0}
for args in (["--gpu", "sm_90,sm_120,sm_50", "-r", "testdata/fixtures"],
             ["--gpu", "sm_90,sm_120,sm_50", "-r", "testdata/roles"],
             ["--gpu", "sm_90,sm_120", "--strict", "-r", "testdata/roles"],
             ["--gpu", "sm_90,sm_120,sm_50", "-r", "testdata/meanings"]):
    p = subprocess.run([sys.argv[1], "--no-progress", "--json", "-v"] + args, capture_output=True, text=True)
    doc = json.loads(p.stdout)
    for a in doc["artifacts"]:
        for o in a.get("objects", []):
            fbs = o.get("fatbins")
            if fbs is None:
                continue
            for t, j in (o.get("judgement") or {}).items():
                if not isinstance(j, dict) or "containers_with_kernels" not in j:
                    continue
                role = lambda f: f["roles"].get(t)
                runs = lambda f: f["verdicts"].get(t) in RUNS
                want = {"containers_with_kernels": sum(role(f) in ("required", "other-gpu") for f in fbs),
                        "containers_serving": sum(role(f) == "required" and runs(f) for f in fbs),
                        "containers_failing": sum(role(f) == "required" and not runs(f) for f in fbs),
                        "containers_other_gpu": sum(role(f) == "other-gpu" for f in fbs)}
                seen["required-runs"] += want["containers_serving"]
                seen["required-fails"] += want["containers_failing"]
                seen["other-gpu"] += want["containers_other_gpu"]
                for k, v in want.items():
                    if j[k] == v:
                        npass += 1
                    else:
                        nfail += 1
                        print("FAIL: %s %s %s: %s: %s is %s, the listed containers say %s"
                              % (" ".join(args), a["path"], o.get("member") or "", t, k, j[k], v))
# the artifact's judgement on testdata/meanings, computed again from its objects' verdicts and
# containers; its counts must all differ, or a field holding another count could pass
COUNTS = ("objects", "objects_failing", "containers_with_kernels", "containers_serving",
          "containers_other_gpu", "containers_failing")
import glob
wheels = sorted(glob.glob("testdata/meanings/*.whl"))
p = subprocess.run([sys.argv[1], "--no-progress", "--no-config", "--json", "-v", "--gpu", "sm_90"] + wheels,
                   capture_output=True, text=True)
arts = json.loads(p.stdout)["artifacts"]
if len(arts) != 1:
    nfail += 1
    print("FAIL: testdata/meanings holds %d wheels, not 1 (scripts/gen-meanings)" % len(arts))
for a in arts:
    j = a["judgement"]["sm_90"]
    objs = [o for o in a["objects"] if o["verdicts"].get("sm_90", "none") != "none"]
    fbs = [f for o in objs for f in o["fatbins"]]
    role = lambda f: f["roles"].get("sm_90")
    runs = lambda f: f["verdicts"].get("sm_90") in RUNS
    want = {"objects": len(objs),
            "objects_failing": sum(o["verdicts"]["sm_90"] not in RUNS for o in objs),
            "containers_with_kernels": sum(role(f) in ("required", "other-gpu") for f in fbs),
            "containers_serving": sum(role(f) == "required" and runs(f) for f in fbs),
            "containers_failing": sum(role(f) == "required" and not runs(f) for f in fbs),
            "containers_other_gpu": sum(role(f) == "other-gpu" for f in fbs)}
    vals = [want[k] for k in COUNTS]
    if len(set(vals)) == len(vals) and 0 not in vals:
        npass += 1
    else:
        nfail += 1
        print("FAIL: testdata/meanings: the counts on sm_90 are not all different and non-zero: %r" % want)
    for k in COUNTS:
        if j[k] == want[k]:
            npass += 1
        else:
            nfail += 1
            print("FAIL: testdata/meanings: sm_90: %s is %s, the listed objects and containers say %s"
                  % (k, j[k], want[k]))
    # the two the fixture cannot set apart are 0, and then differ from every count above
    for k in ("kernel_gaps", "minority_containers"):
        if j[k] == 0:
            npass += 1
        else:
            nfail += 1
            print("FAIL: testdata/meanings: sm_90: %s is %s, not 0" % (k, j[k]))
# the fixtures must exercise every count, or the checks above could not fail
for k, n in seen.items():
    if n:
        npass += 1
    else:
        nfail += 1
        print("FAIL: no container of the fixtures is %s: that count is never tested" % k)
print("%d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
