#!/bin/sh
# cure.sh - the remedy: the build to install and the command (doc/builds.md).
#  1. the truth table: for each (GPU, driver) the torch variant --suggest names from the
#     bundled table matches PyTorch's published support (each expectation cites it);
#  2. a build table made here, against the bundled example wheel: the choice (newest that
#     runs, native before JIT, the driver floor, driver first), companions, the commands
#     (local tag on a variant's own index, --python=PATH, the offline pair), JSON fields;
#  3. hostile tables: every malformed one is refused with its line, nothing is printed;
#  4. the toolkit version of CUDA 12.8 and 13 builds, read from the cubins (the corpus's
#     torchvision 0.23.0, the toolkit's libcurand), and the advice word it decides.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
pass=0 fail=0 skip=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# ---- 1. the truth table ------------------------------------------------------------
# suggest GPU DRIVER FIELD...: the first suggested build's fields, tab-separated
suggest() {
	g=$1 d=$2
	shift 2
	if [ -n "$d" ]; then set -- --driver "$d" "$@"; fi
	"$WS_BIN" --suggest torch --gpu "$g" --json "$@" 2>"$t/err"
}
first() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)["suggest"][0]
b = d["builds"][0] if d["builds"] else d["otherwise"]
print(b["kind"], b["packages"][0]["version"] if b["packages"] else "-", b["variant"], b["driver_cuda_min"], b["verdict"])'
}
expect() {    # GPU DRIVER WANT-KIND WANT-VARIANT(S) WHY
	got=$(suggest "$1" "$2" | first) || { bad "$1/$2: --suggest failed: $(cat "$t/err")"; return; }
	set -- "$1" "$2" "$3" "$4" "$5" $got
	case " $4 " in *" $8 "*) v_ok=1;; *) v_ok=0;; esac
	if [ "$6" = "$3" ] && [ $v_ok = 1 ]; then ok; else bad "$1 with driver '${2:-any}': got $6 $7 $8, want $3 $4 ($5)"; fi
}
# the newest torch the table can install with its companions (a torchvision and a torchaudio
# whose Requires-Dist accepts it, of its variant on its index, doc/builds.md), computed here
# from the table, not by the code under test
newest=$(python3 - share/builds.tsv <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l[0] != "#"][1:]
def minor(v): return tuple(int(x) for x in v.split(".")[:2])
def full(v): return tuple(int(x) for x in v.split(".")[:3])
def goes(r, v):
    q = r[7]
    if q.startswith("torch=="): return q[7:] == v
    if q.startswith("torch>="): return full(q[7:]) <= full(v)
    return r[0] == "torchaudio" and not q and minor(r[1]) == minor(v)
lin = [r for r in rows if r[3] == "linux_x86_64" and r[2] != "cpu"]
ok = [r[1] for r in lin if r[0] == "torch" and
      all(any(c[0] == comp and c[2] == r[2] and c[8] == r[8] and goes(c, r[1]) for c in lin)
          for comp in ("torchvision", "torchaudio"))]
print(max(ok, key=full))
PY
)
# GTX 1080 Ti (6.1) on R570 (CUDA 12.8): cu128 builds start at sm_70 (2.8+, .ci/manywheel/build_cuda.sh)
# or sm_75 (2.7, pytorch/pytorch#157517), so a Pascal card needs cu126 (sm_60 SASS serves 6.1);
# uv's driver-only pick of cu128 is the known failure (astral-sh/uv#14742).
expect 'GTX 1080 Ti' R570 install cu126 "cu128 has no sm_6x"
# V100 (7.0) on R580 (CUDA 13.0): CUDA 13 dropped Volta (CUDA 13.0 release notes), cu128 of 2.11+
# drops sm_70 (pytorch/pytorch#175253): the last line for Volta is cu126.
expect V100 R580 install cu126 "cu130 has no sm_70"
# RTX 3090 (8.6), RTX 4090 (8.9), H100 (9.0), B200 (10.0): every variant of the newest releases
# carries them (RELEASE.md "PyTorch CUDA Support Matrix"): the newest release that comes with
# its companions, natively.
for g in 'RTX 3090' 'RTX 4090' H100 B200; do
	got=$(suggest "$g" "" | first)
	case $got in "install $newest "*" native"|"install $newest "*" compatible") ok;; *) bad "$g: got '$got', want install $newest native";; esac
done
# RTX 5090, any driver: the first answer is the set pip resolves for a plain 'pip install torch
# torchvision torchaudio' from PyPI (2026-12-03: 2.15.0 / 0.29.2 / 2.11.1; torchvision 0.29.2
# asks torch>=2.14.0 and torchaudio 2.11.1 torch>=2.11 in their METADATA), from the table's rows
want=$(python3 - share/builds.tsv <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l[0] != "#"][1:]
def full(v): return tuple(int(x) for x in v.split(".")[:3])
pypi = [r for r in rows if r[3] == "linux_x86_64" and r[8] == "pypi"]
t = max((r for r in pypi if r[0] == "torch"), key=lambda r: full(r[1]))
def comp(name):
    ok = [r for r in pypi if r[0] == name and r[2] == t[2] and
          (r[7] == "torch==" + t[1] or (r[7].startswith("torch>=") and full(r[7][7:]) <= full(t[1])))]
    return max(ok, key=lambda r: full(r[1]))[1]
print("torch==%s torchvision==%s torchaudio==%s" % (t[1], comp("torchvision"), comp("torchaudio")))
PY
)
got=$("$WS_BIN" --suggest torch --gpu 'RTX 5090' --json 2>/dev/null | python3 -c '
import json, sys
b = json.load(sys.stdin)["suggest"][0]["builds"][0]
print(" ".join("%s==%s" % (p["name"], p["version"]) for p in b["packages"]))')
if [ "$got" = "$want" ] && [ "$want" = "torch==2.15.0 torchvision==0.29.2 torchaudio==2.11.1" ]; then ok; else bad "RTX 5090: first answer '$got', want '$want' (torch 2.15.0 / 0.29.2 / 2.11.1)"; fi
# every package of every suggested set is a row of the table on that set's index and variant:
# a PyPI-only torchvision must not be printed as +cu132 against PyTorch's index
if "$WS_BIN" --suggest torch,torchvision,torchaudio --gpu 'RTX 5090,H100,RTX 3090' --json 2>/dev/null | python3 -c '
import json, sys
rows = {(r[0], r[1], r[2], r[3], r[8]) for r in (l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l[0] != "#")}
bad = []
for s in json.load(sys.stdin)["suggest"]:
    for b in s["builds"]:
        for p in b["packages"]:
            if (p["name"], p["version"], b["variant"], b["platform"], b["index"]) not in rows:
                bad.append("%s %s %s on %s" % (p["name"], p["version"], b["variant"], b["index"]))
print("; ".join(bad[:5]))
sys.exit(1 if bad else 0)' share/builds.tsv >"$t/bad"; then ok; else bad "suggested packages the table does not list on their index: $(cat "$t/bad")"; fi
# RTX 5090 (12.0) on R570 (CUDA 12.8): sm_120 first came with CUDA 12.8 (cu128: 2.7+); cu130
# needs R580 (CUDA 13.0 release notes' driver table); a cu129 build runs on R570 by NVIDIA's
# minor-version compatibility (any 12.x build on R525 and newer, "CUDA Compatibility"), so a
# CUDA 12 build, never a CUDA 13 one.
expect 'RTX 5090' R570 install "cu128 cu129" "R570 runs CUDA 12.x, not 13"
# RTX 5090 on a CUDA 12.6 driver (R560): that driver cannot run Blackwell at all; the driver comes
# first (R570), then a CUDA 12 build.
expect 'RTX 5090' 12.6 driver-first "cu128 cu129" "R560 predates Blackwell"
got=$(suggest 'RTX 5090' 12.6 | python3 -c 'import json,sys; d=json.load(sys.stdin)["suggest"][0]; print(d["otherwise"]["driver_cuda_min"])')
[ "$got" = 12.8 ] && ok || bad "RTX 5090 on 12.6: driver_cuda_min $got, want 12.8"
# issue 36: "the newest release, X, has none" only when true. The newest torch has SASS for
# A100, T4, H100, RTX 4090, B200 and RTX 5090 (its row's arch list): on R570 the note names the
# driver it needs instead
for g in A100 T4 H100 'RTX 4090' B200 'RTX 5090'; do
	"$WS_BIN" --suggest torch --gpu "$g" --driver R570 >"$t/out" 2>&1
	if grep -q 'has none' "$t/out"; then bad "$g on R570: a false 'has none': $(grep -o 'note: .*' "$t/out" | head -n 1)"
	elif grep -q 'needs a driver for CUDA >= 13' "$t/out"; then ok
	else bad "$g on R570: no note names the newest release's driver: $(grep -o 'note: .*' "$t/out" | head -n 1)"; fi
done
# the text form: GTX 1080 names a cu126 build and its index
"$WS_BIN" --suggest torch --gpu 'GTX 1080' >"$t/out" 2>&1; rc=$?
grep -q 'the cu126 build' "$t/out" && grep -q 'index-url https://download.pytorch.org/whl/cu126' "$t/out" && [ $rc = 0 ] && ok ||
	{ bad "--suggest torch --gpu 'GTX 1080' (exit $rc) names no cu126 build:"; head -n 5 "$t/out"; }

# ---- 2. a table of our own, against the bundled example ----------------------------
ex=testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl
tab() {   # rows on stdin -> $t/b.tsv with the header
	{ printf '# made: 2026-11-30\n'
	  printf 'package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\n'
	  tr '|' '\t'; } >"$t/b.tsv"
}
tab <<'EOF'
wscan-example|0.1.0|cu124|linux_x86_64|12.4|86||torch==2.5.1|pypi|scanned|sha256:00 test|manylinux_2_28_x86_64
wscan-example|0.2.0|cu128|linux_x86_64|12.8|80,90,100,120|120|torch==2.8.0|https://example.invalid/cu128|declared|test|
wscan-example|0.2.0|cu126|linux_x86_64|12.6|80,90||torch==2.8.0|https://example.invalid/cu126|declared|test|
wscan-example|0.3.0|cu130|linux_x86_64|13.0|100,120||torch==2.9.1|pypi|scanned|sha256:01 test|manylinux_2_28_x86_64
wscan-example|0.3.0|cu126|win_amd64|12.6|50,60,70,80,90,100,120|||pypi|scanned|sha256:02 test|win_amd64
torch|2.8.0|cu128|linux_x86_64|12.8|70,75,80,86,90,100,120||||https://example.invalid/cu128|declared|test|
torch|2.8.0|cu128|linux_x86_64|12.8|70,75,80,86,90,100,120|||pypi|scanned|sha256:03 test|manylinux_2_28_x86_64
torch|2.9.0|cu130|linux_x86_64|13.0|75,80,86,90,100,120|||pypi|scanned|sha256:04 test|manylinux_2_28_x86_64
EOF
# a malformed row in the heredoc above would fail every case below: the parse is checked first
"$WS_BIN" --builds "$t/b.tsv" --suggest wscan-example --gpu sm_90 >/dev/null 2>"$t/err"
grep -q 'line 8: 13 fields' "$t/err" && ok || bad "a row with an extra tab is refused naming line 8: $(cat "$t/err")"
sed -i '/sha256:03/!{/^torch\t2.8.0/d}' "$t/b.tsv"
run() { "$WS_BIN" --builds "$t/b.tsv" --no-progress "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
has() { grep -qF -- "$1" "$t/out" && ok || { bad "$2: no '$1' in:"; sed 's/^/    /' "$t/out" | head -n 30; }; }
hasnt() { grep -qF -- "$1" "$t/out" && { bad "$2: '$1' in:"; sed 's/^/    /' "$t/out" | head -n 30; } || ok; }

# sm_90: 0.3.0 has no sm_90 (and no PTX); 0.2.0 cu128 and cu126 both have it: native, same
# release, neither on PyPI -> the newer CUDA; the index's local tag; the torch it pins comes too
run --gpu sm_90 "$ex"
has 'install: wscan-example 0.2.0 and torch 2.8.0: the cu128 build (CUDA 12.8, SASS sm_80/90/100/120, PTX compute_120) runs natively on sm_90' "sm_90 remedy"
has 'pip install wscan-example==0.2.0+cu128 torch==2.8.0+cu128 --index-url https://example.invalid/cu128' "sm_90 command"
has '[declared by the vendor' "a declared row says so"
has 'note: wscan-example 0.2.0 is the newest release with a build that runs on sm_90 (the newest release, 0.3.0, has none)' "newest-release note"
has '--python-version 3.11' "offline: the wheel's Python"
has 'then: pip install --no-index --find-links wheels wscan-example==0.2.0+cu128 torch==2.8.0+cu128' "offline install"
[ "$(cat "$t/rc")" = 1 ] && ok || bad "the example still fails on sm_90: exit $(cat "$t/rc"), want 1"
# --python: the offline download names what that interpreter accepts, as pip decides it (a
# stand-in interpreter answers the question, as a Python 3.12 on glibc 2.31 would), its
# Python version and ABIs; one that cannot answer is said, and the table's tags are used
mkdir -p "$t/site"
cat >"$t/py312" <<SH
#!/bin/sh
case "\$3" in
*sysconfig*) echo "$t/site"; echo "$t/site" ;;
*compatibility_tags*) printf '3.12\ncp312-cp312-manylinux_2_31_x86_64\ncp312-cp312-manylinux_2_17_x86_64\ncp312-abi3-manylinux_2_31_x86_64\ncp312-none-linux_x86_64\npy3-none-any\nbad tag\n' ;;
*) exit 1 ;;
esac
SH
chmod +x "$t/py312"
run --gpu sm_90 --python="$t/py312" "$ex"
has "offline: $t/py312 -m pip download wscan-example==0.2.0+cu128 torch==2.8.0+cu128 --index-url https://example.invalid/cu128 --only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none --platform manylinux_2_31_x86_64 --platform manylinux_2_17_x86_64 --platform linux_x86_64 -d wheels" "offline under --python: the interpreter's own tags"
printf '#!/bin/sh\ncase "$3" in *sysconfig*) echo "%s";; *) exit 1;; esac\n' "$t/site" >"$t/py-mute"; chmod +x "$t/py-mute"
run --gpu sm_90 --python="$t/py-mute" "$ex"
grep -q 'could not say which wheels it accepts' "$t/err" && ok || bad "an interpreter that cannot say its tags is said: $(head -c 300 "$t/err")"
has '--python-version 3.11' "offline without the interpreter's tags: the wheel's Python"
# sm_120 with a CUDA 12.8 driver: 0.3.0 (cu130) needs R580 -> 0.2.0 cu128; with 13.0 -> 0.3.0 on PyPI
run --gpu sm_120 --driver 12.8 "$ex"
has 'install: wscan-example 0.2.0 and torch 2.8.0: the cu128 build' "sm_120 on a 12.8 driver: cu128"
run --gpu sm_120 --driver 13.0 "$ex"
has 'install: wscan-example 0.3.0: the cu130 build (CUDA 13.0, SASS sm_100/120) on PyPI runs natively on sm_120' "sm_120 on 13.0: the newest, on PyPI"
has 'note: it needs torch 2.9.1, which the table does not list' "a pinned torch missing from the table is said"
has 'pip install wscan-example==0.3.0' "PyPI: no index, no local tag"
hasnt 'index-url' "PyPI: no index"
# sm_120 on a 12.6 driver: the driver cannot run Blackwell: driver first, then cu128
run --gpu sm_120 --driver 12.6 "$ex"
has 'install: first a driver for CUDA >= 12.8 (R570 or newer), since this one supports CUDA 12.6; then wscan-example 0.2.0' "driver first"
# the driver binds SASS too (doc/compat-rules.md §4a): the fixture's cubins say CUDA 13.0, so
# an R570 (CUDA 12.8) driver cannot run them on H100; R580 can, and so can a 13.x driver older
# than 13.0's own minor (minor-version compatibility)
"$WS_BIN" --gpu H100 --driver R570 --no-progress testdata/fixtures/multi.so >"$t/out" 2>"$t/err"; echo $? >"$t/rc"
has '=> H100 (sm_90): will NOT run' "a CUDA 13 build on R570"
has 'built with CUDA 13.0 (the ptxas notes of its cubins): a CUDA 13 runtime needs a driver for CUDA >= 13.0 (R580 or newer), and this driver supports CUDA 12.8' "the reason says why"
[ "$(cat "$t/rc")" = 1 ] && ok || bad "a CUDA 13 build on R570: exit $(cat "$t/rc"), want 1"
"$WS_BIN" --gpu H100 --driver R580 --no-progress --json testdata/fixtures/multi.so >"$t/out" 2>"$t/err"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]; sys.exit(0 if a["verdicts"]["sm_90"]=="native" and "driver-older-than-runtime" not in a["judgement"].get("sm_90",{}).get("reasons",[]) else 1)' "$t/out" && ok || bad "a CUDA 13.0 build on R580: $(head -c 300 "$t/out")"
"$WS_BIN" --gpu H100 --driver 12.9 --json testdata/fixtures/multi.so >"$t/out" 2>"$t/err"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]; sys.exit(0 if a["verdicts"]["sm_90"]=="no-image" and "driver-older-than-runtime" in a["judgement"]["sm_90"]["reasons"] else 1)' "$t/out" && ok || bad "a CUDA 13.0 build on 12.9: $(head -c 300 "$t/out")"
# Jetson Orin (8.7): the fixture's sm_80 SASS is a discrete GPU's (CUDA 13.0 < 13.2): it does
# not run there; GB10-style 8.6 runs it
"$WS_BIN" --gpu 'Jetson AGX Orin,RTX 3090' --json testdata/fixtures/multi.so >"$t/out" 2>"$t/err"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]["verdicts"]; sys.exit(0 if a["sm_87"]=="no-image" and a["sm_86"]=="compatible" else 1)' "$t/out" && ok || bad "sm_80 SASS of CUDA 13.0 on Orin: $(head -c 300 "$t/out")"
# sm_75: nothing in the table has sm_75 SASS or PTX below it
run --gpu sm_75 "$ex"
has 'install: no build of wscan-example that the build table' "no build runs"
has '(4 for linux_x86_64, newest 0.3.0) runs on sm_75' "the count is of the platform's rows"
# JSON: the remedy's fields
run --gpu sm_90 --json "$ex"
python3 - "$t/out" <<'PY' && ok || bad "JSON remedy fields"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["artifacts"][0]["judgement"]["sm_90"]["remedy"]
want = {"kind": "install", "package": "wscan-example", "variant": "cu128", "index": "https://example.invalid/cu128",
        "provenance": "declared", "cuda": "12.8", "driver_cuda_min": "12.0", "verdict": "native"}
bad = {k: (r.get(k), v) for k, v in want.items() if r.get(k) != v}
pk = [(p["name"], p["version"]) for p in r["packages"]]
if pk != [("wscan-example", "0.2.0"), ("torch", "2.8.0")]:
    bad["packages"] = pk
if not r["command"].startswith("pip install wscan-example==0.2.0+cu128"):
    bad["command"] = r["command"]
print(bad if bad else "", end="")
sys.exit(1 if bad else 0)
PY
# a target where it runs gets no remedy
run --gpu sm_86 --json "$ex"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["artifacts"][0]["judgement"]["sm_86"]["remedy"] is not None)' "$t/out" && ok ||
	bad "sm_86 (runs): a remedy was given"

# ---- 3. hostile tables --------------------------------------------------------------
hostile() {   # WHAT LINE-CONTENT WANT-IN-ERROR
	{ printf 'package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\n'
	  printf '%b\n' "$2"; } >"$t/h.tsv"
	"$WS_BIN" --builds "$t/h.tsv" --suggest torch --gpu sm_90 >"$t/out" 2>"$t/err"; rc=$?
	if [ $rc = 2 ] && grep -q "$3" "$t/err" && [ ! -s "$t/out" ]; then ok; else bad "hostile table ($1): exit $rc, stderr '$(cat "$t/err")'"; fi
}
hostile "a shell word in the version" 'torch\t2.8.0;rm -rf ~\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\tscanned\tx\t' 'line 2'
hostile "a command substitution in the index" 'torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t90\t\t\t$(id)\tscanned\tx\t' 'line 2'
hostile "an escape in the package" 'to\033[2Jrch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t90\t\t\tpypi\tscanned\tx\t' 'line 2'
hostile "an arch that is no SM" 'torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t9\t\t\tpypi\tscanned\tx\t' 'line 2'
hostile "a trailing comma" 'torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80,\t\t\tpypi\tscanned\tx\t' 'line 2'
hostile "a CUDA of words" 'torch\t2.8.0\tcu128\tlinux_x86_64\ttwelve\t80\t\t\tpypi\tscanned\tx\t' 'line 2'
hostile "a provenance of its own" 'torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\ttrusted\tx\t' 'line 2'
hostile "eleven fields" 'torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t80\t\t\tpypi\tscanned\tx' 'line 2'
archs=$(python3 -c 'print(",".join(str(a) for a in range(10, 60)))')
hostile "50 architectures" "torch\t2.8.0\tcu128\tlinux_x86_64\t12.8\t$archs\t\t\tpypi\tscanned\tx\t" 'line 2'
printf 'package\tversion\n' >"$t/h.tsv"
"$WS_BIN" --builds "$t/h.tsv" --suggest torch --gpu sm_90 >/dev/null 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q 'header' "$t/err" && ok || bad "a header of two columns: exit $rc, $(cat "$t/err")"
printf 'a\0b\n' >"$t/h.tsv"
"$WS_BIN" --builds "$t/h.tsv" --suggest torch --gpu sm_90 >/dev/null 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q 'NUL' "$t/err" && ok || bad "a NUL byte: exit $rc, $(cat "$t/err")"
"$WS_BIN" --builds "$t/none.tsv" --suggest torch --gpu sm_90 >/dev/null 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q 'none.tsv' "$t/err" && ok || bad "a missing table: exit $rc, $(cat "$t/err")"
"$WS_BIN" --suggest no-such-package --gpu sm_90 >/dev/null 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q "no build of 'no-such-package'" "$t/err" && ok || bad "an unknown package: exit $rc, $(cat "$t/err")"
"$WS_BIN" --suggest torch "$ex" >/dev/null 2>"$t/err"; rc=$?
[ $rc = 2 ] && ok || bad "--suggest with an input: exit $rc"
"$WS_BIN" --suggest torch >/dev/null 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q 'needs --gpu' "$t/err" && ok || bad "--suggest without --gpu: exit $rc"

# ---- the scanned rows: scripts/build-table on the example wheel, from the wheel and from JSON
real=${WS_BIN_REAL:-$WS_BIN}
WHEELSCAN=$real scripts/build-table "$ex" >"$t/rows.tsv" 2>"$t/err"
row=$(grep '^wscan-example' "$t/rows.tsv" | cut -f1-7,10,12)
want=$(printf 'wscan-example\t0.1.0\tcu124\tlinux_x86_64\t13.0\t80,90,120\t120\tscanned\tmanylinux_2_28_x86_64')
[ "$row" = "$want" ] && ok || bad "build-table on the example: '$row', want '$want' ($(cat "$t/err"))"
"$real" --json --no-progress --gpu sm_90 "$ex" >"$t/doc.json" 2>/dev/null
WHEELSCAN=$real scripts/build-table --json "$t/doc.json" | grep '^wscan-example' | cut -f1-7 >"$t/rows2"
[ "$(cat "$t/rows2")" = "$(grep '^wscan-example' "$t/rows.tsv" | cut -f1-7)" ] && ok || bad "build-table --json differs from the wheel's row"
# from a store's report: its default --detail artifact has no entries, and is refused rather
# than read as a build without architectures; --detail entry gives the wheel's row
"$real" --no-progress --db "$t/bt.db" "$ex" >/dev/null 2>&1
"$real" --no-progress --db "$t/bt.db" --report --json >"$t/store.json" 2>/dev/null
WHEELSCAN=$real scripts/build-table --json "$t/store.json" >"$t/rows3" 2>"$t/err"; rc=$?
[ $rc = 2 ] && grep -q 'write it with --detail entry' "$t/err" && ok || bad "build-table on a --detail artifact document: exit $rc, $(cat "$t/err")"
"$real" --no-progress --db "$t/bt.db" --report --json --detail entry >"$t/store.json" 2>/dev/null
WHEELSCAN=$real scripts/build-table --json "$t/store.json" | grep '^wscan-example' | cut -f1-7 >"$t/rows3"
[ "$(cat "$t/rows3")" = "$(grep '^wscan-example' "$t/rows.tsv" | cut -f1-7)" ] && ok || bad "build-table from a store's --detail entry report differs from the wheel's row"
printf '# made: x\npackage\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\nwscan-example\t0.1.0\tcu124\tlinux_x86_64\t12.4\t80\t\t\tpypi\tdeclared\tx\t\n' >"$t/base.tsv"
WHEELSCAN=$real scripts/build-table --merge "$t/base.tsv" "$t/rows.tsv" >"$t/merged.tsv" 2>"$t/err"
grep -q 'declared sass 80 ptx -, the wheel has sass 80,90,120 ptx 120' "$t/err" && [ "$(grep -c '^wscan-example' "$t/merged.tsv")" = 1 ] &&
	grep -q '^wscan-example.*scanned' "$t/merged.tsv" && ok || bad "--merge: the bytes replace the declared row and the disagreement is said: $(cat "$t/err")"
"$real" --builds "$t/merged.tsv" --suggest torch --gpu sm_90 >/dev/null 2>&1; [ $? = 2 ] && ok || bad "a merged table parses (and has no torch)"

# ---- 4. the toolkit version of CUDA 12.8 and 13 builds --------------------------------
tv=corpus/torchvision-0.23.0-cp311-cp311-manylinux_2_28_x86_64.whl
if [ -f "$tv" ]; then
	"$WS_BIN" --no-progress --gpu 'Tesla K80' "$tv" >"$t/out" 2>&1
	has 'fix: built with CUDA 12.8, which dropped sm_37 (last in CUDA 11.8)' "torchvision 0.23.0 (CUDA 12.8) on K80"
	hasnt 'CUDA 0.1' "the cuinfo word of a v1 note is no CUDA version"
	"$WS_BIN" --no-progress --json "$tv" >"$t/out" 2>&1
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
tk = {e.get("toolkit") for a in d["artifacts"] for o in a["objects"] for f in o["fatbins"] for e in f["entries"]
      if e["kind"] == "sass" and e.get("producer")}
sys.exit(tk != {"12.8"})' "$t/out" && ok || bad "torchvision 0.23.0: every cubin with a producer note is toolkit 12.8"
else
	skip=$((skip + 1)); echo "skipped: the corpus's torchvision 0.23.0 (scripts/fetch-corpus)"
fi
. src/test/cuda_lib64.inc
lib=$cuda_lib64/libcurand.so.10
if [ -f "$lib" ]; then
	"$WS_BIN" --no-progress --gpu 'GTX 1080' "$lib" >"$t/out" 2>&1
	has 'fix: built with CUDA 13.0, which dropped sm_61 (last in CUDA 12.9)' "the toolkit's libcurand (CUDA 13.0) on a GTX 1080"
else
	skip=$((skip + 1)); echo "skipped: $lib (the CUDA toolkit; make fetch-corpus unpacks it)"
	[ "${CI:-}" = true ] && bad "CI must have the CUDA toolkit's lib64"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
