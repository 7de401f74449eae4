#!/bin/sh
# live_cli.sh - `--env` and `--live` through the CLI, without a driver and against the stand-in
# driver src/test/fake_libcuda.c (compiled here with $CC or cc). Needs WS_BIN; run from anywhere.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
FX=testdata/fixtures
pass=0 fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# has FILE TEXT: the file contains TEXT (fixed string)
has() { if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks: $2"; sed 's/^/    /' "$1" | head -n 20; fi; }
lacks() { if grep -qF -- "$2" "$1"; then bad "$1 has: $2"; else ok; fi; }
rc_is() { if [ "$1" = "$2" ]; then ok; else bad "$3: exit $1, expected $2"; fi; }

# --- no driver: a note, never an error; the prediction is still printed
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1
"$WS_BIN" --env > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--env without a driver"
has "$tmp/o" "CUDA driver: none (no CUDA driver: cannot load '/nonexistent/libcuda.so.1': "
has "$tmp/o" "CUDA_MODULE_LOADING="
"$WS_BIN" --env --json > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--env --json without a driver"
has "$tmp/o" '"driver":null'
has "$tmp/o" '"devices":[]'
has "$tmp/o" "\"note\":\"no CUDA driver: cannot load '/nonexistent/libcuda.so.1'"
# --live without a driver measures nothing: it says so and fails as --gpu auto does (exit 5)
"$WS_BIN" --live "$FX/sm_86-only.fatbin" > "$tmp/o" 2> "$tmp/e"; rc_is $? 5 "--live without a driver"
has "$tmp/e" "--live: no CUDA driver: cannot load '/nonexistent/libcuda.so.1'"
has "$tmp/e" "nothing can be measured, so the prediction is not checked"
has "$tmp/o" "sm_86"
"$WS_BIN" --live --gpu sm_90 "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 5 "--live --gpu sm_90 without a driver"
# a bare run without a driver: a coverage map, silently; --gpu auto never passes silently
"$WS_BIN" "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "bare run without a driver"
has "$tmp/o" "runs on      8.0-8.6 (Ampere), 8.9-9.0 (Ada Lovelace-Hopper), 12.0-12.1 (Blackwell)"
has "$tmp/o" "No GPU was named, and none was found here."
if [ -s "$tmp/e" ]; then bad "bare run without a driver wrote to stderr: $(cat "$tmp/e")"; else ok; fi
"$WS_BIN" --gpu auto "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 5 "--gpu auto without a driver"
if [ "$(grep -c 'no CUDA driver' "$tmp/e")" = 1 ]; then ok; else bad "--gpu auto: the no-driver message $(grep -c 'no CUDA driver' "$tmp/e") times on stderr"; fi
lacks "$tmp/o" "no CUDA driver"
"$WS_BIN" --gpu auto,sm_120 "$FX/old-only.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 5 "--gpu auto,sm_120 without a driver"
has "$tmp/o" "=> sm_120: will NOT run"

# --- the stand-in driver
${CC:-cc} -shared -fPIC -O1 -o "$tmp/libcuda.so.1" src/test/fake_libcuda.c || { echo "cannot build the fake driver"; echo "0 passed, 1 failed"; exit 1; }
export WHEELSCAN_LIBCUDA="$tmp/libcuda.so.1" FAKE_CUDA_DEVICES="9.0:NVIDIA H200:143771"
"$WS_BIN" --env > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--env"
has "$tmp/o" "CUDA driver: CUDA 13.0 (cuDriverGetVersion 13000)"
has "$tmp/o" "device 0: NVIDIA H200, compute capability 9.0 (sm_90), 140.4 GiB, probe ok: SASS sm_90 from the fatbin"
"$WS_BIN" --env --json > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--env --json"
has "$tmp/o" '"driver":"13.0"'
has "$tmp/o" '{"index":0,"name":"NVIDIA H200","cc":"9.0","memory":150754820096,"probe_ok":true'

# the workers hold none of wheelscan's files: a descriptor wheelscan was started with (here 7,
# as a shell's redirection or a parent's leak gives it) is closed before any worker starts, so
# a driver that a hostile container crashes or subverts cannot reach it
echo marker > "$tmp/held-by-wheelscan"
FAKE_CUDA_FD_LOG="$tmp/fds" "$WS_BIN" --live --gpu auto "$FX/multi.so" > "$tmp/o" 2> "$tmp/e" 7<"$tmp/held-by-wheelscan"
rc_is $? 0 "--live with a descriptor held"
has "$tmp/fds" "fds"
lacks "$tmp/fds" "held-by-wheelscan"

# a bare run with a GPU: judged on it without flags
FAKE_CUDA_DEVICES="12.0:NVIDIA GeForce RTX 5090:32000" "$WS_BIN" "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"
rc_is $? 0 "bare run on a stand-in RTX 5090"
has "$tmp/o" "=> NVIDIA GeForce RTX 5090 (sm_120): runs: native SASS"
lacks "$tmp/o" "runs on "
FAKE_CUDA_DEVICES="12.0:NVIDIA GeForce RTX 5090:32000" "$WS_BIN" "$FX/old-only.so" > "$tmp/o" 2> "$tmp/e"
rc_is $? 1 "bare run of old-only.so on a stand-in RTX 5090"
has "$tmp/o" "=> NVIDIA GeForce RTX 5090 (sm_120): will NOT run"
FAKE_CUDA_DEVICES="12.0:NVIDIA GeForce RTX 5090:32000" "$WS_BIN" --gpu auto,sm_90 "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"
rc_is $? 0 "--gpu auto,sm_90 on a stand-in RTX 5090"
has "$tmp/o" "=> sm_90: runs: native SASS"
has "$tmp/o" "=> NVIDIA GeForce RTX 5090 (sm_120): runs: native SASS"

# prediction jit, measured ok; JIT disabled: 223; no mismatch
"$WS_BIN" --live-nojit --gpu auto --json "$FX/sm_80-compute_80.fatbin" > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--live-nojit jit"
has "$tmp/o" '"roles":{"sm_90":"required"},"verdicts":{"sm_90":"jit"},"live":{"sm_90":"ok"},"live_nojit":{"sm_90":"CUDA_ERROR_JIT_COMPILATION_DISABLED"}'
has "$tmp/o" '"live_mismatches":[]'
# no-image predicted and measured: exit 1 for the --gpu gate, still no mismatch
"$WS_BIN" --live --gpu auto --json "$FX/sm_86-only.fatbin" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live no-image"
has "$tmp/o" '"live":{"sm_90":"CUDA_ERROR_NO_BINARY_FOR_GPU"}'
has "$tmp/o" '"live_mismatches":[]'
# a driver that disagrees with the rules: listed loudly, exit 1
FAKE_CUDA_LOAD_RESULT=209 "$WS_BIN" --live --json "$FX/arch-plain.fatbin" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live mismatch"
has "$tmp/o" '"live":{"sm_90":"CUDA_ERROR_NO_BINARY_FOR_GPU"}'
has "$tmp/o" 'predicted native on sm_90, driver says CUDA_ERROR_NO_BINARY_FOR_GPU'
FAKE_CUDA_LOAD_RESULT=209 "$WS_BIN" --live "$FX/arch-plain.fatbin" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live mismatch (text)"
cat "$tmp/e" >> "$tmp/o"
has "$tmp/o" "LIVE MISMATCHES: 1"
# a driver that crashes on one container: that container says so, the next one still loads
FAKE_CUDA_CRASH_ON_LOAD=k_plain "$WS_BIN" --live --json "$FX/sm_86-only.fatbin" "$FX/ptx-only-80.fatbin" > "$tmp/o" 2> "$tmp/e"
rc=$?; [ "$rc" -le 1 ] && ok || bad "--live crash: exit $rc"
has "$tmp/o" '"live":{"sm_90":"crash"}'
has "$tmp/o" '"live":{"sm_90":"ok"}'
# cuInit fails: the note names the library and the error
FAKE_CUDA_INIT_ERROR=999 "$WS_BIN" --env > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--env cuInit 999"
has "$tmp/o" "no CUDA device: cuInit failed in '$tmp/libcuda.so.1': CUDA_ERROR_UNKNOWN (999)"

# --live with no device of any named GPU measures nothing either: exit 5
"$WS_BIN" --live --gpu sm_120 "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 5 "--live --gpu sm_120 on an H200"
has "$tmp/e" "--live: the CUDA driver found no device of the GPUs named"
# a load that hangs is no confirmation: the verdict line says "not measured", a finding names
# the target, and the run fails (exit 1), in text and JSON
export WHEELSCAN_LIVE_TIMEOUT_MS=1500
FAKE_CUDA_HANG_ON_LOAD=_Z "$WS_BIN" --live "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live, every load timed out"
has "$tmp/o" "=> NVIDIA H200 (sm_90): runs: native SASS; not measured (timeout): the live check did not confirm it"
has "$tmp/o" "live-unconfirmed: $FX/multi.so: sm_90: not measured (timeout) for 2 loads of 2 containers"
FAKE_CUDA_HANG_ON_LOAD=_Z "$WS_BIN" --live --json "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live --json, every load timed out"
has "$tmp/o" '"check":"live-unconfirmed","where":"'"$FX"'/multi.so","what":"sm_90: not measured (timeout)'
# identical containers are loaded once: three copies of a file cost the loads of one
FAKE_CUDA_LOAD_LOG="$tmp/l1" "$WS_BIN" --live "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--live one copy"
FAKE_CUDA_LOAD_LOG="$tmp/l3" "$WS_BIN" --live "$FX/multi.so" "$FX/multi.so" "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"
rc_is $? 0 "--live three copies"
if [ -s "$tmp/l1" ] && [ "$(wc -l < "$tmp/l3")" = "$(wc -l < "$tmp/l1")" ]; then ok
else bad "three copies took $(wc -l < "$tmp/l3" 2>/dev/null) loads, one took $(wc -l < "$tmp/l1" 2>/dev/null)"; fi
[ "$(grep -c '=> NVIDIA H200 (sm_90): runs: native SASS$' "$tmp/o")" = 3 ] && ok || bad "three copies: $(grep '=>' "$tmp/o")"
# ... and a hanging one costs its timeout once: 3 copies with 2 hanging containers in about 3 s, not 9
s=$(date +%s)
FAKE_CUDA_HANG_ON_LOAD=_Z "$WS_BIN" --live "$FX/multi.so" "$FX/multi.so" "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live three hanging copies"
el=$(( $(date +%s) - s ))
[ "$el" -lt 7 ] && ok || bad "three copies of two hanging containers took $el s"
[ "$(grep -c 'not measured (timeout)' "$tmp/o")" = 6 ] && ok || bad "three hanging copies: $(grep -c 'not measured' "$tmp/o") lines say not measured"
# --live-budget bounds the whole check: the second hanging load is cut short (budget, not timeout)
s=$(date +%s)
FAKE_CUDA_HANG_ON_LOAD=_Z "$WS_BIN" --live --live-budget 2 --json "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 1 "--live-budget 2"
el=$(( $(date +%s) - s ))
has "$tmp/o" '"live":{"sm_90":"timeout"}'
has "$tmp/o" '"live":{"sm_90":"budget"}'
has "$tmp/o" 'not measured (timeout, --live-budget spent)'
[ "$el" -lt 6 ] && ok || bad "--live-budget 2 took $el s"
"$WS_BIN" --live --live-budget 0 "$FX/multi.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 2 "--live-budget 0"
unset WHEELSCAN_LIVE_TIMEOUT_MS

# link inputs (-rdc) are never loaded alone: their live result is "skipped", the loadable one's "ok"
"$WS_BIN" --live --json --no-progress "$FX/rdc.so" > "$tmp/o" 2> "$tmp/e"; rc_is $? 0 "--live rdc.so"
python3 -c 'import json,sys; print(" ".join("%s:%s" % (f["roles"]["sm_90"], f["live"]["sm_90"]) for o in json.load(open(sys.argv[1]))["artifacts"][0]["objects"] for f in o["fatbins"]))' "$tmp/o" > "$tmp/r"
has "$tmp/r" "required:ok link-input:skipped link-input:skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
