#!/bin/sh
# lib64_independent.sh - on every library of the CUDA toolkit's lib64 (when present),
# wheelscan must find the same containers in the same sections, with the same entries
# (kind, arch, compression, kernel count) as the independent Python reader
# scripts/fatbin-dump.py. Unlike cuobjdump, both read every section (.ldata, .rodata,
# .cask_resource, __nv_relfatbin). The reader's output is cached per file between runs.
set -u
cd "$(dirname "$0")/../.."
. src/test/cuda_lib64.inc
lib=$cuda_lib64
if [ ! -d "$lib" ] || ! command -v python3 >/dev/null; then
	. src/test/skip.inc; skip_all "no $lib (the CUDA toolkit's libraries; make fetch-corpus unpacks them) or no python3" yes
fi
cache=${TMPDIR:-/tmp}/wheelscan-independent-cache
mkdir -p "$cache"
# this run's output is its own: several checkouts may run the suite at once
ws_json=$(mktemp); trap 'rm -f "$ws_json"' EXIT
pass=0 fail=0
for f in $(find "$lib/" -maxdepth 1 -type f -name '*.so*' | sort); do
	key=$cache/$(basename "$f")-$(stat -c '%s-%Y' "$f").json
	[ -s "$key" ] || python3 scripts/fatbin-dump.py --ws-json "$f" >"$key.$$" 2>/dev/null && mv "$key.$$" "$key" 2>/dev/null
	"$WS_BIN" --json --no-progress "$f" >"$ws_json" 2>/dev/null
	if python3 - "$key" "$ws_json" <<'PY'
import json, sys
def containers(path):
    d = json.load(open(path))
    out = []
    for o in d["artifacts"][0]["objects"]:
        for f in o["fatbins"]:
            ents = tuple((e["kind"], e["arch"], e["compression"],
                          None if e["kernels"] is None else len(e["kernels"])) for e in f["entries"])
            out.append((f["section"], f["offset"], f["size"], f["relocatable"], ents))
    return out
a, b = containers(sys.argv[1]), containers(sys.argv[2])
if a != b:
    print("  independent: %d containers, wheelscan: %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        if x != y:
            print("  first difference:\n    independent %s\n    wheelscan   %s" % (x, y))
            break
    sys.exit(1)
print("  %d containers, %d entries" % (len(a), sum(len(c[4]) for c in a)))
PY
	then pass=$((pass + 1)); echo "ok   $(basename "$f")"
	else fail=$((fail + 1)); echo "FAIL $(basename "$f")"; fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
