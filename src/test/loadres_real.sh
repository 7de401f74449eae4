#!/bin/sh
# loadres_real.sh - the real loader as the oracle of the load resolution, on environments
# assembled here from the corpus's real PyPI wheels (scripts/fetch-corpus, sha256-pinned):
# each wheel extracted once (a wheel's layout is the installed one, its dist-info and RECORD
# included), each environment a set of them hard-linked into one site folder, then for every
# object wheelscan names (GPU code, or a CUDA library linked) its prediction against what
# dlopen does here, with no GPU (src/test/load_oracle.py). torch joins when fetched
# (scripts/fetch-corpus --big); onnxruntime-gpu comes from scripts/fetch-load-wheels. Prints the
# agreement; every disagreement fails, except one the machine's own system explains.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
scripts/fetch-corpus >/dev/null 2>&1 || skip_all "scripts/fetch-corpus could not fetch the corpus" yes
pass=0 fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
c=corpus
torch=$c/torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl
tv020=$c/torchvision-0.20.1-cp311-cp311-manylinux1_x86_64.whl
tv023=$c/torchvision-0.23.0-cp311-cp311-manylinux_2_28_x86_64.whl
bnb=$c/bitsandbytes-0.48.2-py3-none-manylinux_2_24_x86_64.whl
rt12=$c/nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
curand=$c/nvidia_curand_cu12-10.3.9.90-py3-none-manylinux_2_27_x86_64.whl
# beyond the corpus: scripts/fetch-load-wheels (pinned by sha256)
scripts/fetch-load-wheels >/dev/null 2>&1 || echo "note: scripts/fetch-load-wheels could not fetch onnxruntime-gpu: its environments are left out"
ort=corpus-load/onnxruntime_gpu-1.20.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
x() {   # x WHEEL: its extraction, made once
	d=$t/x/$(basename "$1" .whl)
	[ -d "$d" ] || { mkdir -p "$d" && python3 -m zipfile -e "$1" "$d"; }
	echo "$d"
}
agree=0 total=0 envs=0 explained=0
env_of() {  # env_of NAME WHEEL...: one environment, judged and checked by dlopen
	name=$1; shift
	for w in "$@"; do [ -f "$w" ] || return 0; done
	e=$t/env/$name
	mkdir -p "$e"
	for w in "$@"; do cp -al "$(x "$w")/." "$e/"; done
	"$WS_BIN" --no-progress --json -r "$e" >"$t/$name.json" 2>"$t/$name.err"
	python3 src/test/load_oracle.py "$e" "$t/$name.json" >"$t/$name.oracle" 2>&1
	rc=$?
	a=$(sed -n 's/^agree \([0-9]*\) of [0-9]*$/\1/p' "$t/$name.oracle")
	n=$(sed -n 's/^agree [0-9]* of \([0-9]*\)$/\1/p' "$t/$name.oracle")
	xp=$(sed -n 's/^explained \([0-9]*\)$/\1/p' "$t/$name.oracle")
	agree=$((agree + ${a:-0})); total=$((total + ${n:-0})); envs=$((envs + 1)); explained=$((explained + ${xp:-0}))
	grep '^explained:' "$t/$name.oracle" | sed "s|^|  $name: |"
	if [ $rc -eq 0 ] && [ "${n:-0}" -gt 0 ]; then ok; else bad "$name:"; sed 's/^/    /' "$t/$name.oracle" | grep -v '^    agree:'; fi
	rm -rf "$e"
}
env_of bnb "$bnb"
env_of bnb_rt12 "$bnb" "$rt12"
env_of curand "$curand"
env_of curand_rt12 "$curand" "$rt12"
env_of bnb_curand_rt12 "$bnb" "$curand" "$rt12"
env_of tv020 "$tv020"
env_of tv023 "$tv023"
env_of tv020_rt12 "$tv020" "$rt12"
env_of tv023_bnb "$tv023" "$bnb"
env_of torch "$torch"
env_of torch_tv020 "$torch" "$tv020"
env_of torch_tv023 "$torch" "$tv023"
env_of torch_rt12 "$torch" "$rt12"
env_of torch_bnb_rt12 "$torch" "$bnb" "$rt12"
env_of torch_tv020_curand_rt12 "$torch" "$tv020" "$curand" "$rt12"
env_of ort "$ort"
env_of ort_rt12 "$ort" "$rt12"
env_of ort_curand_rt12 "$ort" "$curand" "$rt12"
env_of ort_torch "$ort" "$torch"
env_of ort_bnb_rt12 "$ort" "$bnb" "$rt12"
# onnxruntime-gpu 1.20.2 beside the CUDA 12 runtime alone: the CPU fallback, and a fix that
# brings every library its CUDA provider lacks, not the first of several rounds
if [ -f "$t/ort_rt12.json" ]; then
	python3 - "$t/ort_rt12.json" <<'PY' && ok || bad "onnxruntime-gpu beside the CUDA 12 runtime: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["loads"]; print(d["fix"], [i["id"] for i in d["issues"]])' "$t/ort_rt12.json")"
import json, sys
d = json.load(open(sys.argv[1]))["loads"]
want = "pip install nvidia-cublas-cu12 nvidia-curand-cu12 nvidia-cufft-cu12 'nvidia-cudnn-cu12==9.*' nvidia-cuda-nvrtc-cu12"
cpu = any(i["id"] == "WS401" and "onnxruntime falls back to the CPU" in i["what"] for i in d["issues"])
sys.exit(0 if d["fix"] == want and cpu else 1)
PY
fi
[ $envs -gt 0 ] || skip_all "no corpus wheel to assemble" yes
echo "oracle: $agree of $total objects agree with dlopen, over $envs real environments ($explained more predicted to fail for a library only this machine's system provides)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
