#!/bin/sh
# json_meanings.sh - the judgement's container counts mean what their names say: for every
# object of every fixture (testdata/fixtures and testdata/roles, with and without --strict,
# three targets), each count is computed again from the containers the same document lists
# (-v) and must match: containers_with_kernels = those whose role is required or other-gpu;
# containers_serving = required ones whose verdict runs (native, compatible, jit);
# containers_failing = required ones whose verdict does not; containers_other_gpu = those
# of role other-gpu. A field that carries another count of the same type fails here; the
# schema (types only) and the goldens (the tool's own output) cannot tell.
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
             ["--gpu", "sm_90,sm_120", "--strict", "-r", "testdata/roles"]):
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
