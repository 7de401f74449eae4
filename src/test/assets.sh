#!/bin/sh
# assets.sh - builds published as release assets (flash-attn; doc/builds.md "Release assets"):
#  1. the bundled table: no flash-attn row names an index (a release page is none); with the
#     torch the table advises for an RTX 5090 (2.15.0, CUDA 13) no asset fits: the remedy says
#     "no prebuilt wheel for this combination", and prints no command;
#  2. a flash-attn wheel made for torch 2.8 (its local tag) that does not run on an H100: the
#     remedy is "pip install <URL>", whose file name is the one the release workflow makes
#     (publish.yml's own sed recipe, run here), and pip (the one on PATH) accepts the three
#     commands: the online one and the offline pair run against a stub wheel of that name
#     (the URL's file, read from a local folder: GitHub is not reachable from tests);
#  3. a malformed asset row is refused naming its line.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
pass=0 fail=0 skip=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
has() { grep -qF -- "$1" "$t/out" && ok || { bad "$2: no '$1' in:"; sed 's/^/    /' "$t/out" | head -n 20; }; }
hasnt() { grep -qF -- "$1" "$t/out" && { bad "$2: '$1' in:"; sed 's/^/    /' "$t/out" | head -n 20; } || ok; }
DL=https://github.com/Dao-AILab/flash-attention/releases/download

# ---- 1. the bundled table -------------------------------------------------------------
n=$(grep -c '^flash-attn	' share/builds.tsv)
[ "$n" -gt 0 ] && ok || bad "the bundled table has no flash-attn row"
awk -F'\t' '$1 == "flash-attn" && $9 !~ /^asset:https:\/\/github\.com\/Dao-AILab\/flash-attention\/releases\/download\/v[0-9.a-z]+\/$/' \
	share/builds.tsv >"$t/out"
[ ! -s "$t/out" ] && ok || bad "flash-attn rows that are not release-asset rows: $(cut -f1-3,9 "$t/out" | head -n 3)"
"$WS_BIN" --suggest flash-attn --gpu 'RTX 5090' >"$t/out" 2>&1; rc=$?
has 'no prebuilt flash-attn wheel for this combination (torch 2.15.0, CUDA 13.2' "RTX 5090: the advised torch has no asset"
has 'pip install flash-attn --no-build-isolation' "the source build flash-attn's README documents"
hasnt 'index-url' "no index for a release asset"
hasnt 'releases/tag' "no release page"
hasnt '+cu129' "no local tag an asset does not have"
[ $rc = 1 ] && ok || bad "--suggest with no prebuilt wheel: exit $rc, want 1"

# ---- 2. a wheel made for torch 2.8 that does not run on H100 ----------------------------
python3 - "$t" testdata/fixtures/old-only.so <<'PY'
import sys, zipfile
t, so = sys.argv[1], open(sys.argv[2], "rb").read()
ver = "2.8.3+cu12torch2.8cxx11abiTRUE"
z = zipfile.ZipFile("%s/flash_attn-%s-cp311-cp311-linux_x86_64.whl" % (t, ver), "w")
di = "flash_attn-%s.dist-info/" % ver
z.writestr("flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so", so)
z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n")
z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: flash_attn\nVersion: %s\n" % ver)
z.writestr(di + "RECORD", "")
z.close()
PY
whl="$t/flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp311-cp311-linux_x86_64.whl"
"$WS_BIN" --no-progress --no-verify --gpu H100 --json "$whl" >"$t/j.json" 2>"$t/err"
python3 - "$t/j.json" "$t" <<'PY' || bad "H100: the remedy's commands: $(head -c 400 "$t/j.json")"
import json, sys
r = json.load(open(sys.argv[1]))["artifacts"][0]["judgement"]["sm_90"]["remedy"]
argv = r["argv"]
for k in ("command", "download_command", "offline_command"):
    open("%s/%s.argv" % (sys.argv[2], k), "w").write("\n".join(argv[k]) + "\n")
sys.exit(0 if r["kind"] == "install" and argv["command"][:2] == ["pip", "install"] and len(argv["command"]) == 3 else 1)
PY
url=$(sed -n 3p "$t/command.argv")
# the workflow's name: bdist_wheel's file, then  sed "s/-/+$tmpname-/2"  (publish.yml@v2.8.3.post1)
want=$(echo flash_attn-2.8.3.post1-cp311-cp311-linux_x86_64.whl | sed "s/-/+cu12torch2.8cxx11abiTRUE-/2")
[ "$url" = "$DL/v2.8.3.post1/$want" ] && ok || bad "the asset URL: $url, want $DL/v2.8.3.post1/$want"
# pip accepts them: the stub of the URL's file in a folder of its own
if python3 -m pip --version >/dev/null 2>&1; then
	name=${url##*/}
	mkdir -p "$t/site" "$t/w"
	python3 - "$t/site/$name" <<'PY'
import sys, zipfile, os
fn = sys.argv[1]
ver = os.path.basename(fn).split("-")[1]
z = zipfile.ZipFile(fn, "w")
di = "flash_attn-%s.dist-info/" % ver
z.writestr("flash_attn/__init__.py", "")
z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n")
z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: flash_attn\nVersion: %s\nRequires-Dist: torch\nRequires-Dist: einops\n" % ver)
z.writestr(di + "RECORD", "")
z.close()
# flash-attn's two requirements: torch (installed already: the one it was chosen for) and einops
for dep, v, d in (("torch", "2.8.0", "/../torch"), ("einops", "0.8.1", "")):
    d = os.path.dirname(fn) + d
    os.makedirs(d, exist_ok=True)
    z = zipfile.ZipFile("%s/%s-%s-py3-none-any.whl" % (d, dep, v), "w")
    di = "%s-%s.dist-info/" % (dep, v)
    z.writestr(dep + "/__init__.py", "")
    z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (dep, v))
    z.writestr(di + "RECORD", "")
    z.close()
PY
	# the user's environment: torch 2.8.0 installed (a venv of its own, pip from this Python)
	{ python3 -m venv "$t/venv" && "$t/venv/bin/python" -m pip install --quiet --no-index --no-deps \
		"$t/torch/torch-2.8.0-py3-none-any.whl"; } >"$t/pip.log" 2>&1 || bad "a venv with a stub torch: $(tail -n 3 "$t/pip.log")"
	# every printed word, the URL replaced by the local file of the same name
	resolved() {   # ARGV-FILE -> "name==version" of what pip would install
		sed "s|^$DL/.*|$t/site/$name|" "$1" | sed 1d >"$t/args"
		set --
		while IFS= read -r w; do set -- "$@" "$w"; done <"$t/args"
		(cd "$t/w" && "$t/venv/bin/python" -m pip "$@" --dry-run --quiet --report "$t/rep.json" --no-index \
			${links:+--find-links "$links"} >"$t/pip.log" 2>&1) &&
			python3 -c 'import json,sys; print(" ".join(sorted(i["metadata"]["name"] + "==" + i["metadata"]["version"] for i in json.load(open(sys.argv[1]))["install"])))' "$t/rep.json"
	}
	links=$t/site got=$(resolved "$t/command.argv")
	[ "$got" = "einops==0.8.1 flash_attn==2.8.3.post1+cu12torch2.8cxx11abiTRUE" ] && ok || bad "pip install <URL> resolves to '$got': $(tail -n 3 "$t/pip.log")"
	# the download, as printed (it names the target's Python, ABI and platform)
	sed "s|^$DL/.*|$t/site/$name|" "$t/download_command.argv" | sed 1d >"$t/args"
	set --
	while IFS= read -r w; do set -- "$@" "$w"; done <"$t/args"
	(cd "$t/w" && "$t/venv/bin/python" -m pip "$@" --no-index --quiet >"$t/pip.log" 2>&1) && [ -f "$t/w/wheels/$name" ] && ok ||
		bad "pip download, as printed, fetches no $name: $(tail -n 3 "$t/pip.log")"
	links= got=$(resolved "$t/offline_command.argv")   # the downloaded folder alone
	[ "$got" = "flash_attn==2.8.3.post1+cu12torch2.8cxx11abiTRUE" ] && ok || bad "the offline install resolves to '$got': $(tail -n 3 "$t/pip.log")"
else
	skip=$((skip + 1)); echo "skipped: pip (python3 -m pip) for the resolver check of the asset commands"
fi
# the text: the command, no index
"$WS_BIN" --no-progress --no-verify --gpu H100 "$whl" >"$t/out" 2>&1
has "pip install $DL/v2.8.3.post1/$want" "the text's command"
has 'for torch 2.8 (C++11 ABI TRUE)' "the summary names the torch and ABI"
hasnt 'index-url' "no index in the text"

# ---- 3. a malformed asset row ----------------------------------------------------------
{ printf 'package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\n'
  printf 'flash-attn\t2.8.3\tcu12torch2.8\tlinux_x86_64\t12.9\t80,90\t\ttorch==2.8.*\tasset:%s/v2.8.3/\tdeclared\tx\tlinux_x86_64\n' "$DL"
} >"$t/b.tsv"
"$WS_BIN" --builds "$t/b.tsv" --suggest flash-attn --gpu H100 >"$t/out" 2>&1; rc=$?
has 'line 2: a release-asset row needs' "an asset row without a Python range is refused"
[ $rc = 2 ] && ok || bad "a malformed --builds table: exit $rc, want 2"

# ---- 4. Windows: PyPI's CPU-only torch, the CUDA build from PyTorch's index ------------
python3 - "$t" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1] + "/torch-2.8.0-cp312-cp312-win_amd64.whl", "w")
di = "torch-2.8.0.dist-info/"
z.writestr("torch/__init__.py", "x = 1\n")
z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-win_amd64\n")
z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.8.0\n")
z.writestr(di + "RECORD", "")
z.close()
PY
win="$t/torch-2.8.0-cp312-cp312-win_amd64.whl"
# RTX 5090 (sm_120) on an R570 driver (CUDA 12.8): the cu128 build, the newest that driver runs
"$WS_BIN" --no-progress --no-verify --gpu 'RTX 5090' --driver R570 "$win" >"$t/out" 2>&1
has 'CPU-only build of torch' "the CPU-only build is said"
has 'the cu128 build (CUDA 12.8' "RTX 5090 on R570: the cu128 build"
has 'for cmd.exe (--json: also PowerShell):' "the Windows shells"
has '--index-url https://download.pytorch.org/whl/cu128' "PyTorch's index for cu128"
has '--platform win_amd64' "the offline download names Windows"
# any driver: a build of CUDA 12.8 or newer (sm_120's first), on PyTorch's index, in JSON both shells
"$WS_BIN" --no-progress --no-verify --gpu 'RTX 5090' --json "$win" >"$t/j.json" 2>"$t/err"
python3 - "$t/j.json" <<'PY' && ok || bad "RTX 5090 + win_amd64: $(head -c 600 "$t/j.json")"
import json, sys
r = json.load(open(sys.argv[1]))["artifacts"][0]["judgement"]["sm_120"]["remedy"]
shells = [x["shell"] for x in r["renderings"]]
cu = int(r["variant"][2:])
ok = (r["kind"] == "install" and r["platform"] == "win_amd64" and cu >= 128 and shells == ["cmd", "powershell"]
      and r["index"] == "https://download.pytorch.org/whl/" + r["variant"]
      and r["argv"]["command"][:2] == ["pip", "install"] and "torch==%s+%s" % (r["packages"][0]["version"], r["variant"]) in r["argv"]["command"])
sys.exit(0 if ok else 1)
PY
# pip accepts the Windows download as printed: PyTorch's index replaced by a local PEP 503
# index of stub wheels with the names and tags that index serves (name-X+cu128-cp312-cp312-
# win_amd64.whl; a companion's Requires-Dist pins its torch), pip on this machine fetches
# exactly the named set for win_amd64 / Python 3.12
"$WS_BIN" --no-progress --no-verify --gpu 'RTX 5090' --driver R570 --json "$win" >"$t/j.json" 2>"$t/err"
if python3 -m pip --version >/dev/null 2>&1 && python3 - "$t/j.json" "$t" <<'PY'
import json, os, sys, zipfile
r = json.load(open(sys.argv[1]))["artifacts"][0]["judgement"]["sm_120"]["remedy"]
t = sys.argv[2]
argv = r["argv"]["download_command"]
specs = [w for w in argv if "==" in w]
torch = [s.split("==")[1] for s in specs if s.startswith("torch==")][0]
for s in specs:
    name, ver = s.split("==")
    d = "%s/simple/%s" % (t, name)
    os.makedirs(d, exist_ok=True)
    fn = "%s-%s-cp312-cp312-win_amd64.whl" % (name, ver)
    z = zipfile.ZipFile("%s/%s" % (d, fn), "w")
    di = "%s-%s.dist-info/" % (name, ver)
    z.writestr(name + "/__init__.py", "")
    z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-win_amd64\n")
    req = "" if name == "torch" else "Requires-Dist: torch==%s\n" % torch
    z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s" % (name, ver, req))
    z.writestr(di + "RECORD", "")
    z.close()
    open(d + "/index.html", "w").write('<html><body><a href="%s">%s</a></body></html>\n' % (fn.replace("+", "%2B"), fn))
i = argv.index("--index-url")
argv[i + 1] = "file://%s/simple/" % t
open(t + "/win.argv", "w").write("\n".join(argv[1:]) + "\n")
open(t + "/win.want", "w").write("\n".join(sorted("%s-%s-cp312-cp312-win_amd64.whl" % tuple(s.split("==")) for s in specs)) + "\n")
PY
then
	set --
	while IFS= read -r w; do set -- "$@" "$w"; done <"$t/win.argv"
	(cd "$t" && mkdir -p wd && cd wd && python3 -m pip "$@" --quiet >"$t/pip.log" 2>&1)
	ls "$t/wd/wheels" 2>/dev/null | sort >"$t/win.got"
	cmp -s "$t/win.got" "$t/win.want" && ok || bad "the Windows download, as printed, fetched '$(tr '\n' ' ' <"$t/win.got")', want '$(tr '\n' ' ' <"$t/win.want")': $(tail -n 3 "$t/pip.log")"
else
	skip=$((skip + 1)); echo "skipped: pip (python3 -m pip) for the Windows download check"
fi
# a plain wheel that is no CPU-only build of a CUDA package gets no remedy
python3 - "$t" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1] + "/plain-1.0-cp312-cp312-win_amd64.whl", "w")
z.writestr("plain/__init__.py", "")
z.writestr("plain-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: plain\nVersion: 1.0\n")
z.writestr("plain-1.0.dist-info/RECORD", "")
z.close()
PY
"$WS_BIN" --no-progress --no-verify --gpu 'RTX 5090' "$t/plain-1.0-cp312-cp312-win_amd64.whl" >"$t/out" 2>&1
hasnt 'install:' "a plain Windows wheel: no remedy"

# ---- 5. an embedded Windows interpreter: python_embeded\python.exe ---------------------
# A portable app's python.exe (here a script that answers wheelscan's sysconfig question, as
# one run under Wine would) with PyPI's CPU-only torch installed: its packages are Windows
# builds, so the cure is the CUDA build for win_amd64, run by that interpreter's own pip and
# rendered for cmd.exe first.
emb="$t/ComfyUI_windows_portable/python_embeded"
mkdir -p "$emb" "$t/esite/torch" "$t/esite/torch-2.8.0.dist-info"
printf '#!/bin/sh\necho "%s"\n' "$t/esite" >"$emb/python.exe"; chmod +x "$emb/python.exe"
printf 'x = 1\n' >"$t/esite/torch/__init__.py"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.8.0\n' >"$t/esite/torch-2.8.0.dist-info/METADATA"
printf 'Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-win_amd64\n' >"$t/esite/torch-2.8.0.dist-info/WHEEL"
printf 'torch/__init__.py,,\ntorch-2.8.0.dist-info/RECORD,,\n' >"$t/esite/torch-2.8.0.dist-info/RECORD"
"$WS_BIN" --no-progress --python="$emb/python.exe" --gpu 'RTX 5090' --driver R570 >"$t/out" 2>&1
has 'for cmd.exe (--json: also PowerShell):' "the embedded python.exe: Windows shells"
has "\"$emb/python.exe\" -m pip install torch==" "its own pip"
has '+cu128 ' "RTX 5090 on R570: cu128"
has '--index-url https://download.pytorch.org/whl/cu128' "PyTorch's index"
has '--platform win_amd64' "the offline download is for Windows"
hasnt 'manylinux' "no Linux tag for a Windows interpreter"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
