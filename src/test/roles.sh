#!/bin/sh
# roles.sh - what each object is for, on the fixtures of scripts/gen-roles (testdata/roles/):
# the JSON fields and exit statuses behind src/core/judge.c's rule 4 (a helper does not
# carry an object), step a (an object built only for other GPUs is set aside) and step b
# (the headline is the main code's verdict; gates keep the worst). The wording is in the
# roles-* goldens.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
pass=0 fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
R=testdata/roles
W=cp311-cp311-manylinux_2_28_x86_64.whl
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
run() { # run OUT ARGS...: JSON into $t/OUT, exit status in $t/OUT.rc
	o=$1; shift
	"$WS_BIN" --json --no-progress "$@" >"$t/$o" 2>"$t/$o.err"; echo $? >"$t/$o.rc"
}
rc() { cat "$t/$1.rc"; }
# q FILE EXPR: a Python expression over a = the first artifact, o = its objects by member
q() { python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["artifacts"][0]
o = {x["member"]: x for x in a["objects"]}
print(eval(sys.argv[2]))' "$t/$1" "$2"; }

# step b: JIT through 1 container of 31 (a vendored library); the main code is native
run jit --gpu sm_80,sm_90 $R/wscan_jit-0.1.0-$W
check "jit: exit 0 ($(rc jit))" '[ "$(rc jit)" = 0 ]'
check "jit: verdicts keep the worst" '[ "$(q jit "a[\"verdicts\"][\"sm_90\"]")" = jit ]'
check "jit: headline is the main code's" '[ "$(q jit "a[\"headline\"][\"sm_90\"]")" = native ]'
check "jit: headline equals verdicts elsewhere" '[ "$(q jit "a[\"headline\"][\"sm_80\"] == a[\"verdicts\"][\"sm_80\"] == \"native\"")" = True ]'
check "jit: minority counted" '[ "$(q jit "a[\"judgement\"][\"sm_90\"][\"minority_containers\"]")" = 1 ]'
check "jit: minority named" '[ "$(q jit "a[\"judgement\"][\"sm_90\"][\"minority\"]")" = "1 container in wscan_jit/lib/libvend.so only through PTX JIT" ]'
check "jit: reason minority" '[ "$(q jit "\"minority\" in a[\"judgement\"][\"sm_90\"][\"reasons\"] and \"ptx-jit\" in a[\"judgement\"][\"sm_90\"][\"reasons\"]")" = True ]'
# the gates stay conservative: the container that only JITs lacks SASS for sm_90
"$WS_BIN" -q --no-progress --require sm_90 $R/wscan_jit-0.1.0-$W >"$t/req" 2>&1; r=$?
check "jit: --require sm_90 still fails ($r)" '[ $r -eq 1 ] && grep -q "WS101 missing-sass: .*libvend.so" "$t/req"'
# the coverage map: both words, the gate's and the map's
run map $R/wscan_jit-0.1.0-$W
check "map: coverage keeps jit, coverage_headline says native" '[ "$(q map "(a[\"coverage\"][\"sm_90\"], a[\"coverage_headline\"][\"sm_90\"], a[\"coverage_headline_newer\"])")" = "('"'"'jit'"'"', '"'"'native'"'"', '"'"'no-image'"'"')" ]'

# step a, an arch-specific object: FlashAttention-3's shape
run fa3 --gpu sm_75,sm_80,sm_90 $R/wscan_fa3-0.1.0-$W
check "fa3: exit 0 ($(rc fa3))" '[ "$(rc fa3)" = 0 ]'
check "fa3: runs on sm_75, sm_80, sm_90" '[ "$(q fa3 "[a[\"verdicts\"][k] for k in (\"sm_75\", \"sm_80\", \"sm_90\")]")" = "['"'"'native'"'"', '"'"'native'"'"', '"'"'native'"'"']" ]'
check "fa3: the Hopper object is other-gpu on sm_80" '[ "$(q fa3 "o[\"wscan_fa3/flash_attn_3.so\"][\"verdicts\"][\"sm_80\"]")" = other-gpu ]'
check "fa3: ... and native on sm_90" '[ "$(q fa3 "o[\"wscan_fa3/flash_attn_3.so\"][\"verdicts\"][\"sm_90\"]")" = native ]'
check "fa3: reason object-other-gpu" '[ "$(q fa3 "\"object-other-gpu\" in o[\"wscan_fa3/flash_attn_3.so\"][\"judgement\"][\"sm_80\"][\"reasons\"] and \"object-other-gpu\" in a[\"judgement\"][\"sm_80\"][\"reasons\"]")" = True ]'
check "fa3: its containers other-gpu" '[ "$(q fa3 "sorted({f[\"roles\"][\"sm_80\"] for f in o[\"wscan_fa3/flash_attn_3.so\"][\"fatbins\"]})")" = "['"'"'no-kernels'"'"', '"'"'other-gpu'"'"']" ]'
check "fa3: no object failing" '[ "$(q fa3 "a[\"judgement\"][\"sm_80\"][\"objects_failing\"]")" = 0 ]'
"$WS_BIN" -q --no-progress --strict --gpu sm_80 $R/wscan_fa3-0.1.0-$W >/dev/null 2>&1; r=$?
check "fa3: --strict sets nothing aside ($r)" '[ $r -eq 1 ]'
run hop --gpu sm_80 $R/hopper-only.so
check "hopper-only.so alone still fails ($(rc hop))" '[ "$(rc hop)" = 1 ] && [ "$(q hop "a[\"verdicts\"][\"sm_80\"]")" = no-image ]'

# rule 4: a helper does not carry an object
run helper --gpu sm_75,sm_80 $R/helper.so
check "helper: no-image on sm_75, exit 1 ($(rc helper))" '[ "$(rc helper)" = 1 ] && [ "$(q helper "a[\"verdicts\"][\"sm_75\"]")" = no-image ]'
check "helper: reason helper-only" '[ "$(q helper "\"helper-only\" in a[\"judgement\"][\"sm_75\"][\"reasons\"]")" = True ]'
check "helper: the why says what it rests on" '[ "$(q helper "a[\"objects\"][0][\"judgement\"][\"sm_75\"][\"why\"]")" = "only a helper container (1 of 101, 1 kernel) has code for sm_75; the other 100 start at sm_80" ]'
run helper90 --gpu sm_90 $R/helper.so
check "helper: the other side too, 100 units for sm_80 only and the helper's PTX on sm_90" '[ "$(q helper90 "(a[\"verdicts\"][\"sm_90\"], a[\"objects\"][0][\"judgement\"][\"sm_90\"][\"why\"])")" = "('"'"'no-image'"'"', '"'"'only a helper container (1 of 101, 1 kernel) has code for sm_90; the other 100 stop at sm_80'"'"')" ]'
# --no-kernels still decodes containers of up to 64 KiB: these are, and the verdict is the same
run helpernk --no-kernels --gpu sm_75 $R/helper.so
check "helper --no-kernels: the same verdict" '[ "$(q helpernk "a[\"verdicts\"][\"sm_75\"]")" = no-image ]'
# A verdict does not change with --no-kernels (issue 40): every fixture here, on GPUs from
# 5.2 to 12.0. wscan_bighelper is helper.so's shape with containers of 83 KB, which
# --no-kernels does not decode: rule 4 weighs sizes, which both modes read.
G=sm_52,sm_61,sm_70,sm_75,sm_80,sm_86,sm_90,sm_100,sm_120
run bighelper --gpu sm_75 $R/wscan_bighelper-0.1.0-$W
run bighelpernk --no-kernels --gpu sm_75 $R/wscan_bighelper-0.1.0-$W
check "bighelper: will NOT run on sm_75 by default ($(rc bighelper))" '[ "$(rc bighelper)" = 1 ] && [ "$(q bighelper "a[\"verdicts\"][\"sm_75\"]")" = no-image ]'
check "bighelper --no-kernels: the same, helper-only ($(rc bighelpernk))" '[ "$(rc bighelpernk)" = 1 ] && [ "$(q bighelpernk "(a[\"verdicts\"][\"sm_75\"], \"helper-only\" in a[\"judgement\"][\"sm_75\"][\"reasons\"])")" = "('"'"'no-image'"'"', True)" ]'
check "bighelper --no-kernels: its containers were not decoded" '[ "$(q bighelpernk "sum(1 for f in o[\"wscan_bighelper/lib/libbighelper.so\"][\"fatbins\"] if f[\"entries\"][0][\"kernels\"] is None)")" = 100 ]'
for f in $R/*.so $R/*.whl; do
	n=$(basename "$f")
	run inv --gpu $G "$f"
	run invnk --no-kernels --gpu $G "$f"
	check "$n: the same verdicts and exit status with --no-kernels" '[ "$(rc inv)" = "$(rc invnk)" ] && [ "$(q inv "a[\"verdicts\"]")" = "$(q invnk "a[\"verdicts\"]")" ]'
done
# step a, code for newer GPUs beside the package's main code, and its guard
run sparse --gpu sm_75 $R/wscan_sparse-0.1.0-$W
check "sparse: runs on sm_75 ($(rc sparse))" '[ "$(rc sparse)" = 0 ] && [ "$(q sparse "a[\"verdicts\"][\"sm_75\"]")" = native ]'
check "sparse: libsparse.so set aside, helper-only named" '[ "$(q sparse "(o[\"wscan_sparse/lib/libsparse.so\"][\"verdicts\"][\"sm_75\"], sorted(o[\"wscan_sparse/lib/libsparse.so\"][\"judgement\"][\"sm_75\"][\"reasons\"]))")" = "('"'"'other-gpu'"'"', ['"'"'helper-only'"'"', '"'"'object-other-gpu'"'"', '"'"'other-gpu-containers'"'"'])" ]'
run newonly --gpu sm_75 $R/wscan_newonly-0.1.0-$W
check "newonly: the package's own code for sm_80+ still fails beside a small library ($(rc newonly))" '[ "$(rc newonly)" = 1 ] && [ "$(q newonly "o[\"wscan_newonly/_C.so\"][\"verdicts\"][\"sm_75\"]")" = no-image ]'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
