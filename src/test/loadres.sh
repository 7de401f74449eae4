#!/bin/sh
# loadres.sh - will each library load (src/core/loadres.c), on environments that
# scripts/mkloadenv builds here with gcc (sonames, version scripts, $ORIGIN run paths, the
# CUDA runtime wheels' layouts), each failure kind beside its twin that loads:
#  - onnxruntime-gpu for CUDA 12 beside torch on CUDA 13: libcublasLt.so.12 missing (WS401),
#    said as the CPU fallback with the pip command, and the CUDA major split (WS405);
#  - an extension built against another torch's c10 (WS404), a needed symbol version the
#    provider lacks (WS403), two different libcudnn.so.9 (WS402), a wheel given alone
#    (WS406), a Windows .pyd whose DLL no one provides (WS401, the module's folder searched);
#  - a symbol bound in the load scope of the library that loads its user (libtorch_nvshmem.so
#    and libc10_cuda.so under libtorch_cuda.so), and its twin whose provider lacks it (WS404);
#  - the oracle: for every object of every environment, wheelscan's prediction (loads alone,
#    after its preloads, or fails) against what dlopen does here (src/test/load_oracle.py);
#  - every format carries the IDs; a damaged library is read without a crash.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
command -v "${CC:-cc}" >/dev/null && command -v "${CXX:-g++}" >/dev/null || skip_all "cc or g++ missing" yes
pass=0 fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
scripts/mkloadenv "$t/e" >"$t/mk.log" 2>&1 || { cat "$t/mk.log"; echo "0 passed, 1 failed"; exit 1; }
run() { "$WS_BIN" --no-progress "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
has() { grep -qF -- "$1" "$t/out" && ok || { bad "$2: no '$1' in:"; sed 's/^/    /' "$t/out" | tail -n 20; }; }
hasnt() { grep -qF -- "$1" "$t/out" && { bad "$2: '$1' in:"; sed 's/^/    /' "$t/out" | tail -n 20; } || ok; }
# ids ENV: the check IDs of the JSON report's load issues, sorted, on one line
ids() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get("loads") or {}; print(" ".join(sorted(i["id"] for i in d.get("issues", []))))' "$1"; }
oracle_agree=0 oracle_total=0
oracle() {   # oracle SITE JSON: every object's prediction against dlopen
	python3 src/test/load_oracle.py "$1" "$2" >"$t/oracle" 2>&1
	rc=$?
	a=$(sed -n 's/^agree \([0-9]*\) of \([0-9]*\)$/\1/p' "$t/oracle"); n=$(sed -n 's/^agree [0-9]* of \([0-9]*\)$/\1/p' "$t/oracle")
	oracle_agree=$((oracle_agree + ${a:-0})); oracle_total=$((oracle_total + ${n:-0}))
	if [ $rc -eq 0 ] && [ "${n:-0}" -gt 0 ]; then ok; else bad "oracle on $1:"; sed 's/^/    /' "$t/oracle"; fi
}

# each environment: the IDs it must show (empty: its twin, which loads), then the oracle
for spec in "ort12_torch13:WS401 WS405" "ort12_ok:" "ext_otherc10:WS404" "ext_samec10:" "needver:WS403" \
	    "needver_ok:" "order:WS402" "order_same:" "scope:" "scope_lacking:WS404 WS404" "vendored:" "win_missing:WS401" "win_ok:"; do
	env=${spec%%:*} want=${spec#*:}
	run --json -r "$t/e/$env"
	cp "$t/out" "$t/$env.json"
	got=$(ids "$t/$env.json")
	[ "$got" = "$want" ] && ok || bad "$env: load issues '$got', expected '$want'"
	case $env in win_*) ;; *) oracle "$t/e/$env" "$t/$env.json";; esac
done

# the summary block, as the user reads it
run -r "$t/e/ort12_torch13"
has "WS401 load-missing-library: onnxruntime/capi/libonnxruntime_providers_cuda.so needs libcublasLt.so.12; this environment provides only libcublasLt.so.13 (nvidia-cublas 13.0.0.19): onnxruntime falls back to the CPU" "the CPU fallback named"
has "pip install nvidia-cublas-cu12" "the command that installs the CUDA 12 library"
has "WS405 load-cuda-split: this environment needs two CUDA majors: CUDA 12 libraries for onnxruntime-gpu and CUDA 13 libraries for torch" "the major split"
run -r "$t/e/ext_otherc10"
has "import myext._C fails with ImportError: undefined symbol: _ZN3c104goneEv" "another torch's c10 named as the import error"
run -r "$t/e/needver"
has "version \`CUBLASLT_12.9' not found (required by userpkg/lib/libuser.so)" "the missing version node as ld.so says it"
run -r "$t/e/win_missing"
has "import winext._C fails with ImportError: DLL load failed: The specified module could not be found (cublasLt64_12.dll)" "Windows wording"
run -r "$t/e/ort12_ok"
hasnt "will it load" "the twin says nothing"

# every format
run --format markdown -r "$t/e/ort12_torch13"
has "- \`onnxruntime/capi/libonnxruntime_providers_cuda.so\`: WS401 load-missing-library: " "markdown"
run --format github -r "$t/e/ort12_torch13"
has "::error file=$t/e/ort12_torch13/onnxruntime_gpu-1.20.1.dist-info,title=WS401 load-missing-library::" "workflow commands"
run --format html -r "$t/e/ort12_torch13"
has 'data-check="WS401"' "html"
run --format sarif -r "$t/e/ort12_torch13"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0]; ids={x["ruleId"] for x in r["results"]}; rules={x["id"] for x in r["tool"]["driver"]["rules"]}; sys.exit(0 if {"WS401","WS405"} <= ids and "WS406" in rules else 1)' "$t/out" \
	&& ok || bad "sarif: WS401 and WS405 results"

# wheels given alone, and together with the wheel that provides the library
run --json "$t/e/wheels/alone/"*.whl
[ "$(ids "$t/out")" = "WS406" ] && ok || bad "a wheel alone: '$(ids "$t/out")', expected WS406"
run --json "$t/e/wheels/together/"*.whl
cp "$t/out" "$t/together.json"
[ "$(ids "$t/together.json")" = "" ] && ok || bad "wheels together: '$(ids "$t/together.json")'"
mkdir "$t/tog" && for w in "$t/e/wheels/together/"*.whl; do python3 -m zipfile -e "$w" "$t/tog"; done
oracle "$t/tog" "$t/together.json"

# hostile: damaged copies of a library are read without a crash, and still named
cp -r "$t/e/needver" "$t/h"
lib=$t/h/userpkg/lib/libuser.so
crash=0
for seed in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	python3 - "$t/e/needver/userpkg/lib/libuser.so" "$lib" "$seed" <<'PY'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
r = random.Random(int(sys.argv[3]))
for _ in range(40):
    data[r.randrange(64, len(data))] = r.randrange(256)
open(sys.argv[2], "wb").write(bytes(data))
PY
	"$WS_BIN" --no-progress --json -r "$t/h" >/dev/null 2>"$t/h.err"
	# a crash, or a sanitizer's report when the binary is built with SANITIZE=
	[ $? -ge 124 ] || grep -q 'Sanitizer\|runtime error' "$t/h.err" && crash=$((crash + 1))
done
[ $crash -eq 0 ] && ok || bad "$crash damaged libraries crashed the scan"

echo "oracle: $oracle_agree of $oracle_total objects agree with dlopen"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
