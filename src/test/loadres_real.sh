#!/bin/sh
# loadres_real.sh - the real loader as the oracle of the load resolution, on environments
# assembled here from real PyPI wheels: the corpus's (scripts/fetch-corpus) and those of
# scripts/fetch-load-wheels (torch on CUDA 13 beside onnxruntime-gpu of both CUDA majors, the
# nvidia-* runtime wheels of CUDA 12 and 13, JAX's CUDA plugins), every one sha256-pinned.
# Each wheel is extracted once (a wheel's layout is the installed one, its dist-info and
# RECORD included), each environment a set of them hard-linked into one site folder; then for
# every object wheelscan names (GPU code, or a CUDA library linked) its prediction against
# what dlopen does here, with no GPU (src/test/load_oracle.py), with a stand-in libcuda.so.1
# (src/test/fake_libcuda.c, plus every other cu* entry point the objects here import, as a
# driver new enough has them) on LD_LIBRARY_PATH. Where it matters the module's import is the
# oracle too: `import torch`, `import onnxruntime` in a Python of the wheels' (3.11) whose
# path is the environment (their pure dependencies in a venv made once). Prints the
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
t15=$c/torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl
tv020=$c/torchvision-0.20.1-cp311-cp311-manylinux1_x86_64.whl
tv023=$c/torchvision-0.23.0-cp311-cp311-manylinux_2_28_x86_64.whl
bnb=$c/bitsandbytes-0.48.2-py3-none-manylinux_2_24_x86_64.whl
rt12=$c/nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
curand=$c/nvidia_curand_cu12-10.3.9.90-py3-none-manylinux_2_27_x86_64.whl
# beyond the corpus: scripts/fetch-load-wheels (pinned by sha256). make test fetches only
# onnxruntime-gpu 1.20.2 and runs the environments of the corpus and it; WS_LOAD_ALL=1 (make
# test-loads: about 4.9 GB more, 20 minutes of two cores) fetches every pin and runs all 41.
# An environment one of whose wheels is not there is left out, and counted below.
scripts/fetch-load-wheels ${WS_LOAD_ALL:+--all} >/dev/null 2>&1 ||
	echo "note: scripts/fetch-load-wheels could not fetch every wheel asked for: the environments of those missing are left out"
l=corpus-load
lw() {  # lw PREFIX: the pinned wheel of corpus-load whose name starts with PREFIX
	set -- "$l/$1"*.whl
	echo "$1"
}
ort=$(lw onnxruntime_gpu-1.20.2-)
ort13=$(lw onnxruntime_gpu-1.31.1-)
cublas12=$(lw nvidia_cublas_cu12-) cudnn12=$(lw nvidia_cudnn_cu12-) cufft12=$(lw nvidia_cufft_cu12-)
nvrtc12=$(lw nvidia_cuda_nvrtc_cu12-) jit12=$(lw nvidia_nvjitlink_cu12-) cusparse12=$(lw nvidia_cusparse_cu12-)
cusolver12=$(lw nvidia_cusolver_cu12-)
rt13=$(lw nvidia_cuda_runtime-13) cublas13=$(lw nvidia_cublas-13) nvrtc13=$(lw nvidia_cuda_nvrtc-13)
jit13=$(lw nvidia_nvjitlink-13) cupti13=$(lw nvidia_cuda_cupti-13) cufft13=$(lw nvidia_cufft-12)
curand13=$(lw nvidia_curand-10) cusparse13=$(lw nvidia_cusparse-12) cusolver13=$(lw nvidia_cusolver-12)
cufile13=$(lw nvidia_cufile-1) nvtx13=$(lw nvidia_nvtx-13) cudnn13=$(lw nvidia_cudnn_cu13-)
sparselt13=$(lw nvidia_cusparselt_cu13-) nccl13=$(lw nvidia_nccl_cu13-) nvshmem13=$(lw nvidia_nvshmem_cu13-)
jax12="$(lw jax_cuda12_plugin-) $(lw jax_cuda12_pjrt-)"
jax13="$(lw jax_cuda13_plugin-) $(lw jax_cuda13_pjrt-)"
# the runtime sets as the packages' Requires-Dist bring them
ort12_deps="$cublas12 $curand $cufft12 $cudnn12 $nvrtc12 $rt12"            # onnxruntime-gpu[cuda,cudnn] 1.20.2
ort13_deps="$rt13 $cublas13 $curand13 $cufft13 $nvrtc13 $cudnn13"           # onnxruntime-gpu[cuda,cudnn] 1.31.1
cu12_all="$ort12_deps $jit12 $cusparse12 $cusolver12"
t15_deps="$rt13 $cublas13 $nvrtc13 $jit13 $cupti13 $cufft13 $curand13 $cusparse13 $cusolver13 $cufile13 $nvtx13 $cudnn13 $sparselt13 $nccl13 $nvshmem13"
xdir=${WS_LOAD_XDIR:-$t/x}   # WS_LOAD_XDIR: keep the extractions between runs
x() {   # x WHEEL: its extraction, made once
	d=$xdir/$(basename "$1" .whl)
	[ -d "$d" ] || { rm -rf "$d.part" && mkdir -p "$d.part" && python3 -m zipfile -e "$1" "$d.part" && mv "$d.part" "$d"; }
	echo "$d"
}
# the stand-in driver: the live tests' fake, and every other cu* entry point that an object
# here needing libcuda.so.1 imports (a stub each: loading is all the oracle does)
mkdir -p "$t/cuda"
for w in $ort $ort13 $t15 $torch $bnb; do [ -f "$w" ] && x "$w" >/dev/null; done
find "$xdir" -name '*.so*' -type f 2>/dev/null | while read -r f; do
	readelf -d "$f" 2>/dev/null | grep -q 'Shared library: \[libcuda.so.1\]' || continue
	nm -D --undefined-only "$f" 2>/dev/null | awk '$NF ~ /^cu[A-Z]/ {sub(/@.*/, "", $NF); print $NF}'
done | sort -u >"$t/cuda/wanted"
grep -o '\bcu[A-Z][A-Za-z0-9_]*(' src/test/fake_libcuda.c | tr -d '(' | sort -u >"$t/cuda/have"
comm -23 "$t/cuda/wanted" "$t/cuda/have" | sed 's/.*/int &(void) { return 999; }/' >"$t/cuda/stubs.c"
${CC:-cc} -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$t/cuda/libcuda.so.1" src/test/fake_libcuda.c "$t/cuda/stubs.c" \
	|| { echo "cannot build the stand-in driver"; echo "0 passed, 1 failed"; exit 1; }
export WS_ORACLE_LIBDIR=$t/cuda
# the Python that imports: the wheels' own (3.11), with torch's and onnxruntime's pure
# dependencies in a venv made once (corpus-load/venv; pip from PyPI); without it, no import check
venv=$PWD/$l/venv
if [ ! -x "$venv/bin/python" ] && python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
	python3 -m venv "$venv" >/dev/null 2>&1 && "$venv/bin/python" -m pip install -q numpy==2.2.6 \
		typing-extensions==4.15.0 filelock==3.20.0 fsspec==2025.10.0 sympy==1.14.0 networkx==3.5 jinja2==3.1.6 \
		packaging==25.0 protobuf==6.33.1 flatbuffers==25.9.23 coloredlogs==15.0.1 >/dev/null 2>&1 \
		|| { rm -rf "$venv"; echo "note: no venv for the import checks (pip could not install their dependencies)"; }
fi
agree=0 total=0 envs=0 explained=0 iagree=0 itotal=0 iexplained=0 left=0
env_of() {  # env_of NAME WHEEL...: one environment, judged and checked by dlopen
	name=$1; shift
	case " ${WS_LOAD_ENVS:-$name} " in *" $name "*) ;; *) return 0 ;; esac   # WS_LOAD_ENVS: only these
	for w in "$@"; do [ -f "$w" ] || { left=$((left + 1)); return 0; }; done
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
	if [ -x "$venv/bin/python" ] && { [ -d "$e/torch" ] || [ -d "$e/onnxruntime" ]; }; then
		python3 src/test/load_import.py "$venv/bin/python" "$e" "$t/$name.json" >"$t/$name.import" 2>&1
		rc=$?
		a=$(sed -n 's/^imports agree \([0-9]*\) of [0-9]*$/\1/p' "$t/$name.import")
		n=$(sed -n 's/^imports agree [0-9]* of \([0-9]*\)$/\1/p' "$t/$name.import")
		xp=$(sed -n 's/^imports explained \([0-9]*\)$/\1/p' "$t/$name.import")
		iagree=$((iagree + ${a:-0})); itotal=$((itotal + ${n:-0})); iexplained=$((iexplained + ${xp:-0}))
		grep '^explained:' "$t/$name.import" | sed "s|^|  $name: |"
		if [ $rc -eq 0 ]; then ok; else bad "$name (import):"; sed 's/^/    /' "$t/$name.import"; fi
	fi
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
# torch on CUDA 13 (2.15.0, +cu132 on PyPI), onnxruntime-gpu of both CUDA majors, the runtime
# wheels of both (CUDA 13's under nvidia/cu13/lib), JAX's CUDA plugins, and mixed sets
env_of t15 "$t15"
env_of t15_cu13 "$t15" $t15_deps
env_of t15_cu13_tv023 "$t15" $t15_deps "$tv023"
env_of t15_cu13_bnb "$t15" $t15_deps "$bnb"
env_of t15_cu13_ort12 "$t15" $t15_deps "$ort"
env_of t15_cu13_ort13 "$t15" $t15_deps "$ort13"
env_of t15_cu13_ort12_cu12 "$t15" $t15_deps "$ort" $ort12_deps
env_of ort13 "$ort13"
env_of ort13_cu13 "$ort13" $ort13_deps
env_of ort13_cu12 "$ort13" $ort12_deps
env_of ort12_cu12 "$ort" $ort12_deps
env_of ort12_cu13 "$ort" $ort13_deps
env_of cu12 $cu12_all
env_of cu13 $t15_deps
env_of torch_cu12_ort12 "$torch" $cu12_all "$ort"
env_of bnb_cu13 "$bnb" "$rt13" "$cublas13"
env_of jax12 $jax12
env_of jax12_cu12 $jax12 $cu12_all
env_of jax13 $jax13
env_of jax13_cu13 $jax13 $t15_deps
env_of jax12_t15_cu13 $jax12 "$t15" $t15_deps
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
# torch on CUDA 13 (with its runtime wheels) beside onnxruntime-gpu 1.20.2 (CUDA 12): the
# environment's one block names the CPU fallback, the CUDA major split, and the one command
# that brings the CUDA 12 libraries onnxruntime's provider lacks (the CUDA 13 set stays)
if [ -f "$t/t15_cu13_ort12.json" ]; then
	python3 - "$t/t15_cu13_ort12.json" <<'PY' && ok || bad "torch on CUDA 13 beside onnxruntime-gpu for CUDA 12: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["loads"]; print(d["fix"], [(i["id"], i["what"][:160]) for i in d["issues"]])' "$t/t15_cu13_ort12.json")"
import json, sys
d = json.load(open(sys.argv[1]))["loads"]
want = "pip install nvidia-cublas-cu12 nvidia-cufft-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-nvrtc-cu12"
cpu = [i for i in d["issues"] if i["id"] == "WS401" and "libonnxruntime_providers_cuda.so needs libcublasLt.so.12" in i["what"]
       and "provides only libcublasLt.so.13" in i["what"] and "onnxruntime falls back to the CPU" in i["what"]]
split = [i for i in d["issues"] if i["id"] == "WS405" and "CUDA 12 libraries for onnxruntime-gpu" in i["what"]]
torch_ok = [o["loads"] for o in d["objects"] if o["object"] == "torch/lib/libtorch_python.so"] == ["alone"]
sys.exit(0 if d["fix"] == want and cpu and split and torch_ok else 1)
PY
fi
[ $envs -gt 0 ] || skip_all "no corpus wheel to assemble" yes
echo "oracle: $agree of $total objects agree with dlopen, over $envs real environments ($explained more predicted to fail for a library only this machine's system provides)"
echo "imports: $iagree of $itotal import checks agree ($iexplained more explained by this machine's system CUDA)"
[ $left -eq 0 ] || echo "note: $left environments left out (a wheel of theirs is not in corpus-load: WS_LOAD_ALL=1, make test-loads, runs them)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
