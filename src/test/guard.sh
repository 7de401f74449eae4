#!/bin/sh
# guard.sh - the pip guard (src/guard.c), replayed offline: a local index of small wheels with
# real names, versions, tags and Requires-Dist (scripts/gen-guard-index: torch cu128/cu126/
# cu124/cpu, torchvision, xformers pinned to a torch, bitsandbytes with its CUDA-chosen
# libraries, Triton with a bundled ptxas stand-in, an sdist and a local project whose tiny
# extension carries the fixtures' GPU code), a venv made here, and environments restored
# into its site-packages before each case. Every bad transition must be blocked for the right
# reason with site-packages unchanged byte for byte (a hash of the whole tree, names, modes
# and contents); every good one installed, each installed file equal to the wheel judged,
# whose sha256 is the one the JSON names. Then --pip-report on saved reports, --dry-run,
# --force, --no-build, a sha256 that does not match (exit 3), pip's own failures passed
# through, a pip older than 23, the time limit, and hostile reports.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
python3 -c 'import venv, ensurepip' 2>/dev/null || skip_all "python3 without venv/ensurepip" no
pass=0 fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# pip's own configuration on this machine must not reach the cases; nothing is fetched
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL
export WHEELSCAN_CACHE_DIR="$t/cache"
idx=$t/idx
python3 scripts/gen-guard-index "$idx" || { bad "gen-guard-index"; echo "$pass passed, $fail failed"; exit 1; }
# The venv borrows python3's own pip when it is 23 or newer (its site-packages then holds only
# what the cases install: quick to restore and to hash); else it gets pip of its own.
pipv() { "$1" -m pip --version 2>/dev/null | sed -n 's/^pip \([0-9]*\).*/\1/p'; }
if [ "$(pipv python3)" -ge 23 ] 2>/dev/null; then
	python3 -m venv --without-pip --system-site-packages "$t/venv" >/dev/null 2>&1 || skip_all "python3 -m venv failed" no
else
	python3 -m venv "$t/venv" >/dev/null 2>&1 || skip_all "python3 -m venv failed" no
fi
PY=$t/venv/bin/python
[ "$(pipv "$PY")" -ge 23 ] 2>/dev/null || skip_all "no pip 23 or newer for the venv" no
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp -a "$SITE" "$t/base-empty"

{ printf '# made: 2026-12-03\n'
  printf 'package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\n'
  tr '|' '\t' <<'TSV'
torch|2.5.1|cu124|linux_x86_64|12.4|50,60,70,75,80,86,90|||pypi|scanned|sha256:00 t|manylinux1_x86_64
torch|2.8.0|cu128|linux_x86_64|12.8|70,75,80,86,90,100,120|||pypi|scanned|sha256:01 t|manylinux_2_28_x86_64
torchvision|0.23.0|cu128|linux_x86_64|12.8|50,60,70,75,80,86,90,100,120|50|torch==2.8.0|pypi|scanned|sha256:03 t|manylinux_2_28_x86_64
xformers|0.0.32.post2|cu128|linux_x86_64|12.8|80,86,89,90,100,120|120|torch==2.8.0|pypi|scanned|sha256:06 t|manylinux_2_28_x86_64
bitsandbytes|0.48.2|cu128|linux_x86_64|12.8|70,75,80,86,89,90,100,120|120||pypi|scanned|sha256:05 t|manylinux_2_24_x86_64
TSV
} >"$t/b.tsv"

restore() { rm -rf "$SITE"; cp -a "$t/base-$1" "$SITE"; }
# base NAME PIP-ARGS...: an environment, installed by plain pip, kept for the cases
base() {
	n=$1; shift
	restore empty
	"$PY" -m pip install -q --no-index -f "$idx" "$@" >/dev/null 2>&1 || bad "base $n: pip install $*"
	cp -a "$SITE" "$t/base-$n"
}
base cu128 torch==2.8.0+cu128 torchvision==0.23.0+cu128
base cu126 torch==2.7.1+cu126
base full torch==2.8.0+cu128 torchvision==0.23.0+cu128 xformers==0.0.32.post2 triton==3.3.1 bitsandbytes==0.48.2

treehash() {
	python3 - "$1" <<'PY'
import hashlib, os, stat, sys
h = hashlib.sha256()
root = sys.argv[1]
for d, dirs, files in os.walk(root):
    dirs.sort()
    for n in sorted(dirs + files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        h.update(("%s\0%o\0" % (os.path.relpath(p, root), st.st_mode)).encode())
        if stat.S_ISLNK(st.st_mode):
            h.update(os.readlink(p).encode())
        elif stat.S_ISREG(st.st_mode):
            h.update(open(p, "rb").read())
print(h.hexdigest())
PY
}

guard() { # guard GPU ARGS...: the guard on the venv, JSON on out.json, its stderr (pip's too) on err
	gpu=$1; shift
	"$WS_BIN" --json --builds "$t/b.tsv" --gpu "$gpu" --python="$PY" "$@" >"$t/out.json" 2>"$t/err"
	echo $? >"$t/rc"
}

nbad=0 ngood=0
# bad ENV GPU KIND TEXT PIP-ARGS...: blocked, for KIND (a breaks[].kind) with TEXT in its text
badcase() {
	env=$1 gpu=$2 kind=$3 text=$4; shift 4
	restore "$env"
	before=$(treehash "$SITE")
	guard "$gpu" pip install --no-index -f "$idx" "$@"
	after=$(treehash "$SITE")
	nbad=$((nbad + 1))
	what="bad $nbad ($env, $gpu: pip install $*)"
	[ "$(cat "$t/rc")" = 1 ] && ok || { bad "$what: exit $(cat "$t/rc"), not 1"; sed 's/^/    /' "$t/err" | tail -n 8; }
	[ "$before" = "$after" ] && ok || bad "$what: site-packages changed"
	python3 - "$t/out.json" "$kind" "$text" <<'PY' && ok || bad "$what: no '$kind' naming '$text'"
import json, sys
d = json.load(open(sys.argv[1]))["guard"]
hit = [b for b in d["breaks"] if b["kind"] == sys.argv[2] and sys.argv[3] in b["text"]]
if not hit or d["decision"] != "breaks" or d["installed"]:
    print("   ", json.dumps(d["breaks"], indent=1)[:1500])
    sys.exit(1)
PY
}
# good ENV GPU PIP-ARGS...: installed, each installed file the judged wheel's
goodcase() {
	env=$1 gpu=$2; shift 2
	restore "$env"
	guard "$gpu" pip install --no-index -f "$idx" "$@"
	ngood=$((ngood + 1))
	what="good $ngood ($env, $gpu: pip install $*)"
	[ "$(cat "$t/rc")" = 0 ] && ok || { bad "$what: exit $(cat "$t/rc"), not 0"; sed 's/^/    /' "$t/err" | tail -n 8;
		python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["guard"]["breaks"])[:1200])' "$t/out.json" 2>/dev/null; }
	python3 - "$t/out.json" "$SITE" <<'PY' && ok || bad "$what: what was installed is not what was judged"
import base64, hashlib, json, os, sys, zipfile
d = json.load(open(sys.argv[1]))["guard"]
site = sys.argv[2]
assert d["decision"] == "runs" and d["installed"] and not d["breaks"], d
assert d["changes"], "nothing to install"
# what pip uninstalls is exactly what it replaces: one removal per change with a from_version
norm = lambda s: s.lower().replace("_", "-").replace(".", "-")
rem = sorted((norm(r["name"]), r["version"]) for r in d["removes"])
rep = sorted((norm(c["name"]), c["from_version"]) for c in d["changes"] if c["from_version"] is not None)
assert rem == rep, ("removes", rem, "replaced", rep)
for c in d["changes"]:
    data = open(c["file"], "rb").read()
    assert hashlib.sha256(data).hexdigest() == c["sha256"], c["file"]
    with zipfile.ZipFile(c["file"]) as z:
        for n in z.namelist():
            if ".dist-info/" in n:
                continue
            got = open(os.path.join(site, n), "rb").read()
            assert got == z.read(n), "installed %s differs from the wheel judged" % n
    # the installed distribution is the version judged
    di = [e for e in os.listdir(site) if e.endswith(".dist-info") and e.split("-")[0] == c["name"].replace("-", "_")]
    assert di == ["%s-%s.dist-info" % (c["name"].replace("-", "_"), c["version"])], (di, c["version"])
PY
}

# ---- bad transitions: what users hit -------------------------------------------------------
# a custom node's requirements pulling a CPU torch over the CUDA one
badcase cu128 sm_120 stops-running 'torch 2.8.0+cpu would replace torch 2.8.0+cu128' --force-reinstall torch==2.8.0+cpu
badcase cu128 sm_120 set-breaks 'Torch not compiled with CUDA enabled' --force-reinstall torch==2.8.0+cpu
printf 'torch==2.8.0+cpu\ntorchvision==0.23.0+cpu\n' >"$t/req-cpu.txt"
badcase full sm_120 set-breaks 'CPU-only build' -r "$t/req-cpu.txt"
badcase cu128 sm_90 stops-running 'whose GPU code runs on sm_90' torch==2.8.0+cpu torchvision==0.23.0+cpu
# a cu124 or cu126 torch on sm_120
badcase empty sm_120 will-not-run 'torch 2.5.1+cu124 will NOT run on sm_120' torch==2.5.1+cu124
badcase empty sm_120 will-not-run 'torch 2.7.1+cu126 will NOT run on sm_120' torch==2.7.1+cu126
badcase cu128 sm_120 will-not-run 'torch 2.5.1+cu124 will NOT run' torch==2.5.1+cu124 torchvision==0.20.1+cu124
# xformers pinned to another torch
badcase cu128 sm_120 set-breaks 'xformers 0.0.28.post3 is built for torch 2.5.1, but torch 2.8.0' --no-deps xformers==0.0.28.post3
badcase cu128 sm_120 will-not-run 'torch 2.5.1+cu124 will NOT run' xformers==0.0.28.post3
badcase empty sm_120 will-not-run 'xformers 0.0.28.post3 will NOT run' xformers==0.0.28.post3
badcase cu126 sm_86 set-breaks 'xformers 0.0.32.post2 is built for torch 2.8.0, but torch 2.7.1' --no-deps xformers==0.0.32.post2
badcase cu128 sm_86 set-breaks 'torchvision 0.20.1 is built for torch 2.5.1' --no-deps torchvision==0.20.1+cu124
# bitsandbytes beside a cu126 torch on sm_120
badcase cu126 sm_120 set-breaks 'loads bitsandbytes/libbitsandbytes_cuda126.so' bitsandbytes==0.48.2
badcase full sm_120 set-breaks 'libbitsandbytes_cuda126.so' --no-deps torch==2.7.1+cu126
# an old Triton on sm_120
badcase cu128 sm_120 will-not-run 'triton 3.1.0 will NOT run on sm_120' triton==3.1.0
badcase full sm_120 will-not-run 'triton 3.1.0 will NOT run on sm_120' triton==3.1.0
# an sdist, or a local project, whose extension lacks sm_120
badcase empty sm_120 will-not-run 'fused-op 0.1.0 will NOT run on sm_120' "$idx/fused_op-0.1.0.tar.gz"
badcase cu128 sm_120 will-not-run 'fused-op 0.1.0 will NOT run on sm_120' fused-op==0.1.0
badcase cu128 sm_120 will-not-run 'fused-op 0.1.0 will NOT run on sm_120' "$idx/projects/fused_op-0.1.0"
# a downgrade that drops sm_120
badcase full sm_120 will-not-run 'bitsandbytes 0.44.1 will NOT run on sm_120' bitsandbytes==0.44.1
badcase empty sm_120 will-not-run 'bitsandbytes 0.44.1 will NOT run' bitsandbytes==0.44.1
# a requirements file with several
printf 'xformers==0.0.28.post3\ntriton==3.1.0\neinops\n' >"$t/req-many.txt"
badcase full sm_120 will-not-run 'triton 3.1.0 will NOT run' -r "$t/req-many.txt"
badcase full sm_120 will-not-run 'xformers 0.0.28.post3 will NOT run' -r "$t/req-many.txt"
badcase full sm_120 set-breaks 'torchvision 0.23.0 is built for torch 2.8.0, but torch 2.5.1' -r "$t/req-many.txt"

# ---- good transitions, paired ------------------------------------------------------------
goodcase cu128 sm_120 --force-reinstall torch==2.8.0+cu128
goodcase empty sm_120 torch==2.8.0+cu128
goodcase empty sm_86 torch==2.5.1+cu124
goodcase empty sm_86 torch==2.7.1+cu126
goodcase cu128 sm_86 torch==2.5.1+cu124 torchvision==0.20.1+cu124
goodcase cu128 sm_120 xformers==0.0.32.post2
goodcase cu128 sm_120 --no-deps xformers==0.0.32.post2
goodcase cu126 sm_86 bitsandbytes==0.48.2
goodcase cu128 sm_120 bitsandbytes==0.48.2
goodcase empty sm_120 bitsandbytes==0.48.2
goodcase cu128 sm_120 triton==3.3.1
goodcase empty sm_86 triton==3.1.0
goodcase empty sm_120 "$idx/fused_op-0.2.0.tar.gz"
goodcase cu128 sm_120 fused-op==0.2.0
goodcase cu128 sm_120 "$idx/projects/fused_op-0.2.0"
goodcase full sm_120 --force-reinstall bitsandbytes==0.48.2
goodcase full sm_120 --force-reinstall --no-deps xformers==0.0.32.post2
printf 'xformers==0.0.32.post2\ntriton==3.3.1\nbitsandbytes==0.48.2\neinops\n' >"$t/req-good.txt"
goodcase cu128 sm_120 -r "$t/req-good.txt"
goodcase cu128 sm_120 einops
goodcase empty sm_120 einops
goodcase cu128 sm_120 --force-reinstall --no-deps torchvision==0.23.0+cu128
goodcase full sm_86 triton==3.1.0

[ "$nbad" -ge 20 ] && [ "$ngood" -ge 20 ] && ok || bad "only $nbad bad and $ngood good transitions"

# ---- text, --dry-run, --force, --no-build --------------------------------------------------
restore cu128
before=$(treehash "$SITE")
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" pip install --no-index -f "$idx" --force-reinstall torch==2.8.0+cpu >"$t/out" 2>"$t/err"
rc=$?
[ $rc = 1 ] && grep -q '^wheelscan: this would break what runs:' "$t/out" && grep -q 'nothing was installed' "$t/out" && ok ||
	{ bad "text: blocked (exit $rc)"; cat "$t/out"; }
grep -q "^wheelscan: guarding $PY (--python); its packages: $SITE\$" "$t/out" && ok || bad "text: the interpreter and its site-packages named"
grep -q '^the cure: .*torch==2.8.0' "$t/out" && ok || bad "text: the cure names the CUDA torch"
grep -q '^  downgrade torch 2.8.0+cu128 -> 2.8.0+cpu$' "$t/out" && ok || bad "text: the planned change"
[ "$before" = "$(treehash "$SITE")" ] && ok || bad "text: site-packages changed"
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" --dry-run pip install --no-index -f "$idx" einops >"$t/out" 2>"$t/err"
[ $? = 0 ] && grep -q 'dry-run: nothing installed' "$t/out" && [ "$before" = "$(treehash "$SITE")" ] && ok ||
	bad "--dry-run of a good set: exit 0 and nothing installed"
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" --dry-run pip install --no-index -f "$idx" triton==3.1.0 >"$t/out" 2>"$t/err"
[ $? = 1 ] && [ "$before" = "$(treehash "$SITE")" ] && ok || bad "--dry-run of a bad set: exit 1, nothing installed"
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" --force pip install --no-index -f "$idx" triton==3.1.0 >"$t/out" 2>"$t/err"
[ $? = 0 ] && grep -q 'force: installing it anyway' "$t/out" && [ -d "$SITE/triton-3.1.0.dist-info" ] && ok ||
	{ bad "--force installs after saying what breaks"; cat "$t/out" "$t/err"; }
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" pip install --no-index -f "$idx" triton==3.1.0 >"$t/out" 2>"$t/err"
[ $? = 0 ] && grep -q '^wheelscan: pip would install nothing: every requirement is satisfied already$' "$t/out" && ok ||
	{ bad "a requirement satisfied already: nothing to judge or install"; cat "$t/out"; }
restore cu128
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" pip install --no-index -f "$idx" triton==3.3.1 >"$t/out" 2>"$t/err"
[ $? = 0 ] && grep -q '^  triton 3.3.1: jit on sm_120$' "$t/out" && grep -q '^wheelscan: installed the 1 file judged$' "$t/out" &&
	[ -d "$SITE/triton-3.3.1.dist-info" ] && ok || { bad "text: a good set installed"; cat "$t/out" "$t/err"; }
restore cu128
guard sm_120 --no-build pip install --no-index -f "$idx" fused-op==0.2.0
[ "$(cat "$t/rc")" = 1 ] && grep -q '"kind":"not-built"' "$t/out.json" && [ "$before" = "$(treehash "$SITE")" ] && ok ||
	bad "--no-build refuses to build an sdist"

# ---- --pip-report on saved reports ----------------------------------------------------------
restore cu128
"$PY" -m pip install -q --no-index -f "$idx" --dry-run --report "$t/r-bad.json" xformers==0.0.28.post3 >/dev/null 2>&1
"$PY" -m pip install -q --no-index -f "$idx" --dry-run --report "$t/r-good.json" xformers==0.0.32.post2 >/dev/null 2>&1
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" --pip-report "$t/r-bad.json" >"$t/out" 2>"$t/err"
[ $? = 1 ] && grep -q 'torch 2.5.1+cu124 will NOT run on sm_120' "$t/out" && ok || { bad "--pip-report: a bad report"; cat "$t/out" "$t/err"; }
"$WS_BIN" --builds "$t/b.tsv" --gpu sm_120 --python="$PY" --pip-report "$t/r-good.json" >"$t/out" 2>"$t/err"
[ $? = 0 ] && ok || { bad "--pip-report: a good report"; cat "$t/out" "$t/err"; }
[ "$before" = "$(treehash "$SITE")" ] && ok || bad "--pip-report installs nothing"
"$WS_BIN" --json --gpu sm_120 --pip-report "$t/r-bad.json" >"$t/out.json" 2>"$t/err"
[ $? = 1 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["guard"]; assert d["python"] is None and d["site_dirs"] == [] and d["decision"] == "breaks"' "$t/out.json" && ok ||
	bad "--pip-report without --python judges the new set alone"

# a sha256 that is not the file's: exit 3, nothing judged or installed
sed 's/"sha256": "\([0-9a-f]\)/"sha256": "0\1/; s/"hash": "sha256=\([0-9a-f]\)/"hash": "sha256=0\1/' "$t/r-good.json" |
	python3 -c 'import json,sys; d=json.load(sys.stdin)
for i in d["install"]:
    a = i["download_info"]["archive_info"]     # pip 23.0 writes hash only; 23.1 on, hashes too
    h = "%064x" % (int(a["hashes"]["sha256"] if "hashes" in a else a["hash"].split("=", 1)[1], 16) ^ 1)
    if "hashes" in a:
        a["hashes"]["sha256"] = h
    a["hash"] = "sha256=" + h
json.dump(d, sys.stdout)' >"$t/r-tampered.json"
"$WS_BIN" --gpu sm_120 --python="$PY" --pip-report "$t/r-tampered.json" >"$t/out" 2>"$t/err"
[ $? = 3 ] && grep -q "but pip's report says" "$t/err" && ok || { bad "a sha256 mismatch is exit 3"; cat "$t/err"; }

# ---- pip's own errors pass through ----------------------------------------------------------
guard sm_120 pip install --no-index -f "$idx" no-such-package==1.0
[ "$(cat "$t/rc")" = 1 ] && grep -q 'No matching distribution found for no-such-package' "$t/err" && ok ||
	bad "a resolution that fails: pip's message and status"
guard sm_120 pip install --no-such-option einops
[ "$(cat "$t/rc")" = 2 ] && grep -q 'no such option: --no-such-option' "$t/err" && ok || bad "pip's usage error: its status 2"
[ "$before" = "$(treehash "$SITE")" ] && ok || bad "pip's failures install nothing"

# ---- a pip older than 23, the time limit, stdin closed (a stand-in interpreter) ------------
cat >"$t/oldpy" <<EOF
#!/bin/sh
case "\$*" in
*sysconfig*) echo "$SITE"; echo "$SITE";;
*"pip --version"*) echo "pip 22.0.4 from /x (python 3.11)";;
*"--dry-run"*) echo "no such option: --report" >&2; exit 2;;
esac
EOF
cat >"$t/slowpy" <<EOF
#!/bin/sh
case "\$*" in
*sysconfig*) echo "$SITE"; echo "$SITE";;
*"--dry-run"*) if read -r x; then sleep 60; fi; sleep 60;;
esac
EOF
chmod +x "$t/oldpy" "$t/slowpy"
"$WS_BIN" --gpu sm_120 --python="$t/oldpy" pip install einops >"$t/out" 2>"$t/err"
[ $? = 2 ] && grep -q 'pip 22.0.4 is older than 23.0' "$t/err" && ok || { bad "pip < 23 is refused"; cat "$t/err"; }
start=$(date +%s)
WHEELSCAN_PIP_TIMEOUT=1 "$WS_BIN" --gpu sm_120 --python="$t/slowpy" pip install einops >"$t/out" 2>"$t/err" </dev/zero
rc=$? took=$(( $(date +%s) - start ))
[ $rc = 2 ] && [ $took -lt 20 ] && grep -q 'ran past the time limit of 1 s' "$t/err" && ok ||
	{ bad "the time limit ends pip (exit $rc after $took s)"; cat "$t/err"; }

# ---- hostile reports --------------------------------------------------------------------------
hostile() { # hostile NAME JSON: refused with exit 3 and a one-line reason
	printf '%s' "$2" >"$t/h.json"
	"$WS_BIN" --gpu sm_120 --pip-report "$t/h.json" >"$t/out" 2>"$t/err"
	rc=$?
	[ $rc = 3 ] && grep -q "pip report: " "$t/err" && [ "$(wc -l <"$t/err")" -le 2 ] && ok || { bad "hostile $1: exit $rc"; cat "$t/err"; }
}
item() { printf '{"version":"1","install":[{"metadata":{"name":"%s","version":"%s"},"download_info":{"url":"%s","archive_info":{"hashes":{"sha256":"%s"}}}}]}' "$@"; }
H=0000000000000000000000000000000000000000000000000000000000000000
hostile "name with a slash" "$(item '../x' 1.0 file:///x/a.whl $H)"
hostile "version with a space" "$(item x '1.0 ; rm' file:///x/a.whl $H)"
hostile "URL ending in .." "$(item x 1.0 'file:///x/..' $H)"
hostile "URL file with %2F" "$(item x 1.0 'file:///x/a%2F..%2Fb.whl' $H)"
hostile "short sha256" "$(item x 1.0 file:///x/a.whl 00)"
hostile "format 2" '{"version":"2","install":[]}'
hostile "duplicate key" '{"version":"1","version":"1","install":[]}'
hostile "not JSON" 'install: []'
hostile "deep nesting" "{\"version\":\"1\",\"x\":$(python3 -c 'print("["*200 + "]"*200)')}"
hostile "two sources" '{"version":"1","install":[{"metadata":{"name":"x","version":"1"},"download_info":{"url":"file:///x/a.whl","archive_info":{},"dir_info":{}}}]}'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
