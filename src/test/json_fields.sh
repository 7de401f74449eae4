#!/bin/sh
# json_fields.sh - JSON fields whose source is ambiguous in the fixtures: a PTX entry whose
# header version (offsets 24/26 of the entry header) disagrees with the text's .version line.
# The .version line is what the driver's JIT reads (doc/compat-rules.md §4), so ptx_isa, the
# needed driver and the verdict must follow it, not the header copy.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# ptx-only-80.fatbin: one zstd PTX entry at offset 16, ".version 9.0"; its header says 9.0
# too. Rewrite the header copy to 7.0.
python3 - testdata/fixtures/ptx-only-80.fatbin "$t/hdr70.fatbin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<IHH", b, 0)[0] == 0xBA55ED50 and struct.unpack_from("<H", b, 16)[0] == 1
assert struct.unpack_from("<HH", b, 16 + 24) == (0, 9), struct.unpack_from("<HH", b, 16 + 24)
struct.pack_into("<HH", b, 16 + 24, 0, 7)
open(sys.argv[2], "wb").write(b)
PY
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["artifacts"][0]["objects"][0]["fatbins"][0]["entries"][0]; print(e.get(sys.argv[2]))' "$t/j" "$1"; }
"$WS_BIN" --json --no-progress --gpu sm_90 "$t/hdr70.fatbin" >"$t/j" 2>"$t/err"; rc=$?
check "header 7.0, text 9.0: exit 0 ($rc)" '[ $rc -eq 0 ]'
isa=$(field ptx_isa)
check "ptx_isa is the .version line ($isa)" '[ "$isa" = 9.0 ]'
check "the why names the text's ISA" 'grep -q "needs a driver for CUDA >= 13.0 (PTX ISA 9.0)" "$t/j"'
# a 12.8 driver cannot JIT ISA 9.0 (needs 13.0); with the header's 7.0 it could
"$WS_BIN" --json --no-progress --gpu sm_90 --driver 12.8 "$t/hdr70.fatbin" >"$t/j" 2>"$t/err"; rc=$?
v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["artifacts"][0]["verdicts"]["sm_90"])' "$t/j")
check "driver 12.8: ptx-too-new from the .version line ($v, exit $rc)" '[ "$v" = ptx-too-new ] && [ $rc -eq 1 ]'
# PTX with the family flag (entry flags 0x200000, doc/fatbin-format.md (c)), end to end through the
# decoder: ptx-only-80 made compute_80f JIT-compiles within 8.x only (doc/compat-rules.md §3)
python3 - testdata/fixtures/ptx-only-80.fatbin "$t/f80.fatbin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
flags = struct.unpack_from("<Q", b, 16 + 40)[0]
assert not flags & 0x300000
struct.pack_into("<Q", b, 16 + 40, flags | 0x200000)
open(sys.argv[2], "wb").write(b)
PY
"$WS_BIN" --json --no-progress --gpu sm_80,sm_86,sm_90,sm_120 "$t/f80.fatbin" >"$t/j" 2>/dev/null; rc=$?
v=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]; e=a["objects"][0]["fatbins"][0]["entries"][0]; print(e["arch"], " ".join(a["verdicts"][t] for t in ("sm_80", "sm_86", "sm_90", "sm_120")))' "$t/j")
check "compute_80f: jit on 8.0 and 8.6, not on 9.0 or 12.0 ($v, exit $rc)" '[ "$v" = "compute_80f jit jit no-image no-image" ] && [ $rc -eq 1 ]'
# driver_assumed says whether --driver was given
"$WS_BIN" --json --no-progress --gpu sm_90 "$t/hdr70.fatbin" >"$t/j" 2>/dev/null
top() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$t/j" "$1"; }
check "no --driver: driver_assumed" '[ "$(top driver_assumed)" = True ] && [ "$(top driver)" = None ]'
"$WS_BIN" --json --no-progress --gpu sm_90 --driver 570.124.06 "$t/hdr70.fatbin" >"$t/j" 2>/dev/null
check "--driver 570.124.06: driver 12.8, not assumed" '[ "$(top driver_assumed)" = False ] && [ "$(top driver)" = 12.8 ]'
# record.ok: false for the tampered wheel (exit 3), true for the good one
rec() { "$WS_BIN" --json --no-progress "$1" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["artifacts"][0]["record"]; print(r["ok"], len(r["mismatched"]))'; }
r=$(rec testdata/fixtures/tampered.whl)
check "tampered wheel: record.ok false, 1 mismatched ($r)" '[ "$r" = "False 1" ]'
r=$(rec testdata/fixtures/example.whl)
check "good wheel: record.ok true ($r)" '[ "$r" = "True 0" ]'
# an uncompressed entry's uncompressed_size is its content's size, not 0 or the header copy
"$WS_BIN" --json --no-progress testdata/fixtures/g5-none.fatbin >"$t/j" 2>/dev/null
u=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["artifacts"][0]["objects"][0]["fatbins"][0]["entries"]; print(" ".join("%s:%s:%s" % (x["compression"], x["size"], x["uncompressed_size"]) for x in e))' "$t/j")
check "uncompressed entries: uncompressed_size = size ($u)" 'printf "%s\n" $u | awk -F: '"'"'$1 != "none" || $2 != $3 || $3 == 0 { bad = 1 } END { exit bad }'"'"''
# a damaged container whose only decoded entry is LTO-IR may hold kernels for the GPU past
# the damage: it is judged (no-image, exit 3), never set aside as a link input
python3 -c '
import struct, sys
lto = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 0, 0, 0, 0, 9, 90).ljust(64, b"\0")
bad = struct.pack("<HHIQIIHHI", 2, 0x0202, 64, 0, 0, 0, 0, 9, 90).ljust(64, b"\0")
open(sys.argv[1], "wb").write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 128) + lto + bad)' "$t/bad1.fatbin"
"$WS_BIN" --json --no-progress --gpu sm_90 "$t/bad1.fatbin" >"$t/j" 2>/dev/null; rc=$?
r=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]; f=a["objects"][0]["fatbins"][0]; print(a["verdicts"]["sm_90"], f["roles"]["sm_90"], len(f["entries"]))' "$t/j")
check "damaged after an LTO-IR entry: no-image, required ($r, exit $rc)" '[ "$r" = "no-image required 1" ] && [ $rc -eq 3 ]'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
