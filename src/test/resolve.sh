#!/bin/sh
# resolve.sh - every kind of command the remedy prints goes through pip's own resolver (pip
# 26.3, scripts/requirements-resolve.txt) against local package indexes made at test time by
# scripts/gen-pip-index from the committed metadata of the real distributions
# (share/pip-index-meta.json); the resolved set must be exactly the set the advice names, and a
# command pip refuses fails, naming it (src/test/resolve_check.py; doc/commands.md "Checked by
# pip"). Scenarios: --suggest over GPUs (sm_75, sm_86, sm_90, sm_100, sm_120, Jetson Orin 8.7)
# x drivers, the other packages of the table, the remedy of a scanned wheel for Linux x86-64,
# Linux aarch64 and Windows, a bitsandbytes wheel for Windows (whose torch comes from a
# variant index, --extra-index-url) and --python=PATH (a venv's python). Each advice's online line,
# and its offline pair (pip download, then pip install --no-index --find-links).
# The indexes of download.pytorch.org are a model made from the table (it cannot be reached
# here): this checks the shape of such a command, not the real index's contents.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
venv=${XDG_CACHE_HOME:-$HOME/.cache}/wheelscan-deps/venv-resolve
py=$venv/bin/python3
[ -x "$py" ] && "$py" -m pip --version 2>/dev/null | grep -q '^pip 26\.3 ' ||
	skip_all "the pinned pip (make deps-test: scripts/py-venv venv-resolve scripts/requirements-resolve.txt)" yes
[ -f share/pip-index-meta.json ] || skip_all "share/pip-index-meta.json (scripts/gen-pip-index-meta)" yes
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
# the indexes for Linux x86-64, aarch64 and Windows targets (their OS and machine markers
# decided for that target, as pip decides them on it)
for e in linux_x86_64 linux_aarch64 win_amd64; do
	"$py" scripts/gen-pip-index --env $e "$t/ix-$e" >"$t/gen.log" 2>&1 ||
		{ cat "$t/gen.log"; echo "FAIL: gen-pip-index $e"; echo "0 passed, 1 failed"; exit 1; }
done

pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
host=$("$py" -c 'import platform; print("linux_" + platform.machine())')
n=0
# scenario NAME PLATFORM PYTHON WHEELSCAN-ARGS...: wheelscan's JSON, the first two builds of
# each answer and its "otherwise", into $t/s.N.json
scenario() {
	name=$1 plat=$2 pv=$3
	shift 3
	n=$((n + 1))
	"$WS_BIN" --no-progress --json "$@" >"$t/doc.json" 2>"$t/err"
	rc=$?
	if [ $rc -gt 1 ]; then echo "FAIL [$name]: wheelscan $* exited $rc: $(head -c 300 "$t/err")"; fail=$((fail + 1)); return; fi
	"$py" - "$name" "$plat" "$pv" "$t/doc.json" >"$t/s.$n.json" <<'PY'
import json, sys
name, plat, pv, doc = sys.argv[1:5]
d = json.load(open(doc))
for s in d.get("suggest", []):
    s["builds"] = s["builds"][:2]
json.dump({"name": name, "target": {"platform": plat, "python": pv}, "doc": d}, sys.stdout)
PY
}

# 1. --suggest: GPUs x drivers (none, R535 = CUDA 12.2, R570 = 12.8, R580 = 13.0)
for g in T4 'RTX 3090' H100 B200 'RTX 5090' 'Jetson AGX Orin'; do
	for d in '' R535 R570 R580; do
		if [ -n "$d" ]; then set -- --driver "$d"; else set --; fi
		scenario "suggest torch set, $g, driver ${d:-any}" "$host" "$pyver" --suggest torch,torchvision,torchaudio --gpu "$g" "$@"
	done
done
for g in T4 'RTX 4090' 'RTX 5090'; do
	scenario "suggest others, $g" "$host" "$pyver" --suggest xformers,bitsandbytes,onnxruntime-gpu,flash-attn --gpu "$g"
done

# 2. the remedy of a scanned wheel: stand-ins named as the real wheels, whose GPU code is the
# fixture old-only.so (sm_75/sm_86 only), for Linux x86-64, Linux aarch64 and Windows
"$py" - "$t" <<'PY'
import base64, hashlib, sys, zipfile
def rec(n, d):
    return "%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d))
so = open("testdata/fixtures/old-only.so", "rb").read()
for name, ver, tag, req in [("torch", "2.5.1", "cp311-cp311-manylinux_2_28_x86_64", ""),
                            ("torch", "2.9.1", "cp311-cp311-manylinux_2_28_aarch64", ""),
                            ("torch", "2.8.0", "cp311-cp311-win_amd64", ""),
                            ("bitsandbytes", "0.45.0", "py3-none-win_amd64", "Requires-Dist: torch<3,>=2.3\n"),
                            ("torchvision", "0.23.0", "cp311-cp311-manylinux_2_28_x86_64", "Requires-Dist: torch==2.8.0\n")]:
    di = "%s-%s.dist-info" % (name, ver)
    m = [("%s/lib/lib%s_cuda.so" % (name, name), so),
         (di + "/METADATA", ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s" % (name, ver, req)).encode()),
         (di + "/WHEEL", ("Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: %s\n" % tag).encode())]
    m.append((di + "/RECORD", ("".join(rec(n, d) for n, d in m) + di + "/RECORD,,\n").encode()))
    with zipfile.ZipFile("%s/%s-%s-%s.whl" % (sys.argv[1], name, ver, tag), "w") as z:
        for n, d in m:
            z.writestr(n, d)
PY
for g in 'RTX 5090' H100 T4; do
	for d in '' R535 R570; do
		if [ -n "$d" ]; then set -- --driver "$d"; else set --; fi
		scenario "wheel linux_x86_64, $g, driver ${d:-any}" linux_x86_64 3.11 --gpu "$g" "$@" "$t"/torch-2.5.1-*x86_64.whl
		scenario "wheel linux_aarch64, $g, driver ${d:-any}" linux_aarch64 3.11 --gpu "$g" "$@" "$t"/torch-2.9.1-*aarch64.whl
		scenario "wheel win_amd64, $g, driver ${d:-any}" win_amd64 3.11 --gpu "$g" "$@" "$t"/torch-2.8.0-*win_amd64.whl
	done
done
scenario "wheel linux_aarch64, Jetson AGX Orin" linux_aarch64 3.11 --gpu 'Jetson AGX Orin' "$t"/torch-2.9.1-*aarch64.whl
# bitsandbytes for Windows: PyPI's torch there is CPU-only, so the torch named beside it
# comes from a variant index (--extra-index-url), PyPI still serving bitsandbytes
for d in '' R570; do
	if [ -n "$d" ]; then set -- --driver "$d"; else set --; fi
	scenario "bitsandbytes win_amd64, RTX 5090, driver ${d:-any}" win_amd64 3.11 --gpu 'RTX 5090' "$@" "$t"/bitsandbytes-*win_amd64.whl
done

# 3. --python=PATH: a venv's python with the stand-in torch 2.5.1 and a torchvision made for
# torch 2.8.0 installed: the remedy's command is PATH -m pip install ..., and the set's fix
"$py" -m venv --without-pip "$t/venv" >/dev/null 2>&1 &&
	"$py" -m pip --disable-pip-version-check --quiet install --no-deps --no-index --target "$t/venv/lib/python$pyver/site-packages" "$t"/torch-2.5.1-*x86_64.whl "$t"/torchvision-*.whl >/dev/null 2>&1 ||
	{ echo "FAIL: could not make the --python venv"; fail=$((fail + 1)); }
scenario "--python=venv, RTX 5090" "$host" "$pyver" --gpu 'RTX 5090' --python="$t/venv/bin/python"

"$py" src/test/resolve_check.py "$py" "$t/ix" "$t" "$t"/s.*.json >"$t/check.out" 2>&1
rc=$?
grep -v '^[0-9]* passed, [0-9]* failed' "$t/check.out"
line=$(grep '^[0-9]* passed, [0-9]* failed' "$t/check.out")
p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
[ -n "$line" ] || { p=0 f=1; echo "FAIL: resolve_check.py exited $rc"; }
echo "$p passed, $((f + fail)) failed"
[ $((f + fail)) -eq 0 ]
