#!/bin/sh
# lib64_verdicts.sh - NVIDIA's published support for CUDA 13.0 as a truth table: every
# library of the toolkit's lib64 that holds kernels runs (native, compatible or jit) on
# compute capability 7.5, 8.0, 8.6, 8.9, 9.0, 10.0, 10.3, 12.0 and 12.1, and will NOT run
# (no-image) on 6.1 or 5.2. Checked twice, with and without --no-kernels: reading only the
# headers must give the same verdicts and the same exit status. A library without kernels
# must say so ("none") rather than pass or fail. Skips (with a line saying so) where the
# toolkit is absent.
set -u
cd "$(dirname "$0")/../.."
. src/test/cuda_lib64.inc
lib=$cuda_lib64
if [ ! -d "$lib" ] || ! command -v python3 >/dev/null; then
	. src/test/skip.inc; skip_all "no $lib (the CUDA toolkit's libraries; make fetch-corpus unpacks them) or no python3" yes
fi
runs=sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_103,sm_120,sm_121
fails=sm_61,sm_52
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 libs=0
for f in $(find "$lib/" -maxdepth 1 -type f -name '*.so.*' | sort); do
	for mode in full no-kernels; do
		flag=; [ $mode = no-kernels ] && flag=--no-kernels
		"$WS_BIN" --json --no-progress -j 1 $flag --gpu "$runs,$fails" "$f" >"$tmp/$mode.json" 2>/dev/null
		echo $? >"$tmp/$mode.rc"
	done
	out=$(python3 - "$f" "$tmp/full.json" "$tmp/no-kernels.json" "$(cat "$tmp/full.rc")" \
		"$(cat "$tmp/no-kernels.rc")" "$runs" "$fails" <<'PY'
import json, sys
path, full, nk, rc_full, rc_nk, runs, fails = sys.argv[1:]
name = path.rsplit("/", 1)[-1]
a = json.load(open(full))["artifacts"][0]
b = json.load(open(nk))["artifacts"][0]
v, w = a["verdicts"], b["verdicts"]
ok = bad = 0
def check(cond, what):
    global ok, bad
    if cond: ok += 1
    else:
        bad += 1
        print("FAIL %s: %s" % (name, what))
if all(x == "none" for x in v.values()):
    # no kernels at all (nvrtc, libcudart...): nothing to run on any GPU
    check(all(x == "none" for x in w.values()), "no kernels, but --no-kernels says %s" % w)
    check(rc_full == rc_nk == "0", "exit %s/%s for a library without kernels" % (rc_full, rc_nk))
    print("%d %d none" % (ok, bad)); sys.exit(0)
for t in runs.split(","):
    check(v[t] in ("native", "compatible", "jit"), "%s: %s, NVIDIA supports it" % (t, v[t]))
for t in fails.split(","):
    check(v[t] == "no-image", "%s: %s, CUDA 13.0 does not support it" % (t, v[t]))
check(v == w, "--no-kernels changes verdicts: %s vs %s" % (v, w))
check(rc_full == rc_nk == "1", "exit %s (full) / %s (--no-kernels), expected 1 (sm_61 fails)" % (rc_full, rc_nk))
print("%d %d %s" % (ok, bad, " ".join("%s=%s" % (t, v[t]) for t in runs.split(",") + fails.split(","))))
PY
)
	line=$(printf '%s\n' "$out" | tail -n 1)
	printf '%s\n' "$out" | grep '^FAIL' || true
	set -- $line
	pass=$((pass + $1)); fail=$((fail + $2)); shift 2
	echo "$(basename "$f"): $*"
	libs=$((libs + 1))
done
echo "checked $libs libraries in $lib"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
