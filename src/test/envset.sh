#!/bin/sh
# envset.sh - an environment judged as a whole (src/core/envset.c): environments made here,
# with the fixtures' objects standing in for the real libraries, and a build table of our own:
#  - torchvision built for torch 2.5.1 beside torch 2.8.0: the mismatch, and the torchvision
#    made for 2.8.0 named (torch kept: it runs);
#  - a CPU-only torch (+cpu, no device code) beside torchvision with GPU code: "Torch not
#    compiled with CUDA enabled" before it happens, and the CUDA torch with its companions;
#  - bitsandbytes under a CUDA 12.6 torch on sm_120: it loads libbitsandbytes_cuda126.so,
#    which will NOT run, though its cuda128 library would; the fix moves torch;
#  - a clean set says nothing; JSON carries the same;
#  - Triton's bundled ptxas (src/core/jitc.c), stood in for by a small ELF that carries the
#    version text ptxas prints: an old one (CUDA 12.4) on sm_120 will NOT run, a Triton 3.3
#    layout (ptxas 12.4 + ptxas-blackwell 12.8) runs through JIT there, a CUDA 13 one has
#    dropped sm_70, the text is found across the scanner's 1 MiB chunks, in a wheel too.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
pass=0 fail=0
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
fx=testdata/fixtures

# env DIR NAME VERSION "REQUIRES..." FILE=SOURCE...: one installed distribution with its RECORD
dist() {
	python3 - "$@" <<'PY'
import base64, hashlib, os, shutil, sys
root, name, version, requires = sys.argv[1:5]
files = [f.split("=", 1) for f in sys.argv[5:]]
mod = name.replace("-", "_")
di = os.path.join(root, "%s-%s.dist-info" % (mod, version.split("+")[0]))
os.makedirs(di, exist_ok=True)
meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
for r in filter(None, requires.split(";;")):
    meta += "Requires-Dist: %s\n" % r
open(os.path.join(di, "METADATA"), "w").write(meta)
open(os.path.join(di, "WHEEL"), "w").write("Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n")
rows = []
for rel, src in files + [[mod + "/__init__.py", ""]]:
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if src:
        shutil.copyfile(src, path)
    else:
        open(path, "w").write("")
for rel in [f[0] for f in files] + [mod + "/__init__.py", os.path.relpath(os.path.join(di, "METADATA"), root),
                                     os.path.relpath(os.path.join(di, "WHEEL"), root)]:
    data = open(os.path.join(root, rel), "rb").read()
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    rows.append("%s,sha256=%s,%d" % (rel, h, len(data)))
rows.append(os.path.relpath(os.path.join(di, "RECORD"), root) + ",,")
open(os.path.join(di, "RECORD"), "w").write("\n".join(rows) + "\n")
PY
}
{ printf '# made: 2026-11-30\n'
  printf 'package\tversion\tvariant\tplatform\tcuda\tsass\tptx\trequires\tindex\tprovenance\tsource\twheel_platform\n'
  tr '|' '\t' <<'EOF'
torch|2.5.1|cu124|linux_x86_64|12.4|50,60,70,75,80,86,90|||pypi|scanned|sha256:00 t|manylinux1_x86_64
torch|2.8.0|cu128|linux_x86_64|12.8|70,75,80,86,90,100,120|||pypi|scanned|sha256:01 t|manylinux_2_28_x86_64
torchvision|0.20.1|cu124|linux_x86_64|12.4|50,60,70,75,80,86,90|50|torch==2.5.1|pypi|scanned|sha256:02 t|manylinux1_x86_64
torchvision|0.23.0|cu128|linux_x86_64|12.8|50,60,70,75,80,86,90,100,120|50|torch==2.8.0|pypi|scanned|sha256:03 t|manylinux_2_28_x86_64
torchaudio|2.8.0|cu128|linux_x86_64|12.8|50,60,70,75,80,86,90,100,120|50|torch==2.8.0|pypi|scanned|sha256:04 t|manylinux_2_28_x86_64
bitsandbytes|0.48.2|cu126|linux_x86_64|12.6|60,70,75,80,86,89,90|90||pypi|scanned|sha256:05 t|manylinux_2_24_x86_64
bitsandbytes|0.48.2|cu128|linux_x86_64|12.8|70,75,80,86,89,90,100,120|120||pypi|scanned|sha256:05 t|manylinux_2_24_x86_64
EOF
} >"$t/b.tsv"
run() { "$WS_BIN" --builds "$t/b.tsv" --no-progress "$@" >"$t/out" 2>"$t/err"; echo $? >"$t/rc"; }
has() { grep -qF -- "$1" "$t/out" && ok || { bad "$2: no '$1' in:"; sed 's/^/    /' "$t/out" | tail -n 25; }; }
hasnt() { grep -qF -- "$1" "$t/out" && { bad "$2: '$1' in:"; sed 's/^/    /' "$t/out" | tail -n 25; } || ok; }

# 1. torchvision for torch 2.5.1 beside torch 2.8.0 (which runs: multi.so has sm_80/90/120)
e=$t/e1; mkdir "$e"
dist "$e" torch 2.8.0 'nvidia-cuda-runtime-cu12==12.8.90' torch/lib/libtorch_cuda.so=$fx/multi.so
dist "$e" torchvision 0.20.1 'torch (==2.5.1)' torchvision/_C.so=$fx/multi.so
run --gpu sm_90 -r "$e"
has 'torchvision 0.20.1 is built for torch 2.5.1, but torch 2.8.0 is here: its extension will not load ("operator torchvision::nms does not exist"' "the mismatched companion"
has 'pip install torchvision==0.23.0 torch==2.8.0' "the torchvision made for the torch here"
hasnt 'pip install torch==' "a torch that runs is kept (its own release named after the companion)"
run --gpu sm_90 --json -r "$e"
python3 - "$t/out" <<'PY' && ok || bad "JSON: environment.issues and fix of the mismatch"
import json, sys
env = json.load(open(sys.argv[1]))["environment"]
kinds = [(i["kind"], i["package"], i["target"]) for i in env["issues"]]
ok = kinds == [("companion-for-other-torch", "torchvision", None)] and \
     env["fix"]["sm_90"]["command"].startswith("pip install torchvision==0.23.0 torch==2.8.0")
print("" if ok else env, end="")
sys.exit(0 if ok else 1)
PY

# 2. a CPU-only torch beside torchvision with GPU code
e=$t/e2; mkdir "$e"
dist "$e" torch 2.8.0+cpu '' torch/lib/libtorch_cpu.so=$fx/../env/site/wscan_example/__init__.py
dist "$e" torchvision 0.23.0 'torch (==2.8.0)' torchvision/_C.so=$fx/multi.so
run --gpu sm_120 -r "$e"
has 'torch 2.8.0+cpu is a CPU-only build: every CUDA call fails with "Torch not compiled with CUDA enabled" before any of the 1 package with GPU code can run' "the CPU-only torch"
has 'pip install torch==2.8.0 torchvision==0.23.0 torchaudio==2.8.0' "the CUDA torch with its companions"
hasnt 'is built for torch' "torchvision 0.23.0 matches torch 2.8.0"

# 3. bitsandbytes under a CUDA 12.6 torch on sm_120: old-only.so (sm_75/86) as its cuda126 library
e=$t/e3; mkdir "$e"
dist "$e" torch 2.7.1 'nvidia-cuda-runtime-cu12==12.6.77' torch/lib/libtorch_cuda.so=$fx/multi.so
dist "$e" bitsandbytes 0.48.2 '' bitsandbytes/libbitsandbytes_cuda126.so=$fx/old-only.so bitsandbytes/libbitsandbytes_cuda128.so=$fx/multi.so
run --gpu sm_120 -r "$e"
has 'on sm_120: bitsandbytes 0.48.2 loads bitsandbytes/libbitsandbytes_cuda126.so, the library of torch'"'"'s CUDA 12.6, which will NOT run on sm_120; its bitsandbytes/libbitsandbytes_cuda128.so would, beside a torch of that CUDA' "the library torch's CUDA loads"
has 'pip install torch==2.8.0 torchvision==0.23.0 torchaudio==2.8.0' "the fix moves torch to a CUDA whose library runs"
hasnt 'pip install bitsandbytes' "bitsandbytes itself need not change"
# the same on sm_90, where its cuda126 library runs (sm_86 does not serve 9.0: it does not)
run --gpu sm_86 -r "$e"
hasnt 'loads bitsandbytes/libbitsandbytes_cuda126.so' "on sm_86 the cuda126 library runs: no issue"
hasnt 'the packages together' "a clean set says nothing"

# 4. no torch at all: bitsandbytes alone is not judged by torch's CUDA
e=$t/e4; mkdir "$e"
dist "$e" bitsandbytes 0.48.2 '' bitsandbytes/libbitsandbytes_cuda126.so=$fx/old-only.so bitsandbytes/libbitsandbytes_cuda128.so=$fx/multi.so
dist "$e" wscan-x 1.0 '' wscan_x/lib.so=$fx/multi.so
run --gpu sm_120 -r "$e"
hasnt 'loads bitsandbytes' "without torch no library choice is claimed"

# 5. two wheels of one package given together: the one that runs is already downloaded
python3 - "$t/w" "$fx/multi.so" <<'PY'
import base64, hashlib, os, sys, zipfile
out, so = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
def b64(d): return base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
files = {"wscan_example/lib/libnew.so": open(so, "rb").read(),
         "wscan_example-0.2.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: wscan-example\nVersion: 0.2.0\n",
         "wscan_example-0.2.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux_2_28_x86_64\n"}
rec = "".join("%s,sha256=%s,%d\n" % (n, b64(d), len(d)) for n, d in files.items()) + "wscan_example-0.2.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(os.path.join(out, "wscan_example-0.2.0-cp311-cp311-manylinux_2_28_x86_64.whl"), "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr("wscan_example-0.2.0.dist-info/RECORD", rec)
PY
new=$t/w/wscan_example-0.2.0-cp311-cp311-manylinux_2_28_x86_64.whl
run --gpu sm_120 testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl "$new"
has "pip install $new" "the wheel of the same package that runs is named, as one shell word"
has 'wscan-example 0.2.0, in this scan too, runs there: install that one instead of 0.1.0' "and said to be here already"
# the same two wheels scanned into a store in two runs: its report names the one it holds
"$WS_BIN" --no-progress --db "$t/s.db" --gpu sm_120 "$new" >/dev/null 2>&1
"$WS_BIN" --no-progress --db "$t/s.db" --gpu sm_120 testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl >/dev/null 2>&1
run --db "$t/s.db" --report --gpu sm_120
has "pip install $new" "a store's report names the wheel it holds that runs"
has 'wscan-example 0.2.0, in this store too, runs there: install that one instead of 0.1.0' "and says it is in the store"

# 6. Triton's bundled ptxas. ptxas FILE RELEASE [OFFSET]: an ELF executable with ptxas'
# printf format and, at OFFSET, the text "Cuda compilation tools, release X.Y, VX.Y.99".
ptxas() {
	python3 - "$@" <<'PY'
import struct, sys
out, release = sys.argv[1], sys.argv[2]
at = int(sys.argv[3]) if len(sys.argv) > 3 else 0
hdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0)
body = hdr + b"\0Cuda compilation tools, release %d.%d, V%s\0"
text = ("Cuda compilation tools, release %s, V%s.99\0" % (release, release)).encode() if release != "none" else b""
open(out, "wb").write(body + bytes(max(0, at - len(body))) + text + bytes(64))
PY
}
ptxas "$t/px124" 12.4; ptxas "$t/px128" 12.8; ptxas "$t/px130" 13.0; ptxas "$t/pxnone" none
e=$t/e6; mkdir "$e"
dist "$e" torch 2.7.1 'nvidia-cuda-runtime-cu12==12.8.90' torch/lib/libtorch_cuda.so=$fx/multi.so
dist "$e" triton 3.2.0 '' triton/backends/nvidia/bin/ptxas=$t/px124
run --gpu sm_120 -r "$e"
has 'jit     triton/backends/nvidia/bin/ptxas: ptxas from CUDA 12.4, which Triton runs to compile its kernels' "the old Triton's compiler is named with its release"
has '=> sm_120: will NOT run: its bundled compiler cannot make code for this GPU' "an old Triton on sm_120 will not run"
has "which predates sm_120 (first in CUDA 12.8): torch.compile and Triton kernels fail ('sm_120' is not a recognized processor)" "and why"
has 'triton 3.2.0: install a Triton whose bundled ptxas is from CUDA >= 12.8' "the environment names Triton among what breaks"
[ "$(cat "$t/rc")" = 1 ] && ok || bad "an old Triton on sm_120 fails the --gpu check (rc $(cat "$t/rc"))"
run --gpu sm_120 --json -r "$e"
python3 - "$t/out" <<'PY' && ok || bad "JSON: the compiler object, its verdict and reason"
import json, sys
d = json.load(open(sys.argv[1]))
a = [a for a in d["artifacts"] if "triton" in a["path"]][0]
o = a["objects"][0]
ok = o["jit_compiler"] == {"kind": "triton-ptxas", "cuda": "12.4"} and o["verdicts"]["sm_120"] == "no-image" and \
     a["verdicts"]["sm_120"] == "no-image" and "jit-compiler-predates-gpu" in a["judgement"]["sm_120"]["reasons"]
print("" if ok else json.dumps(a)[:2000], end="")
sys.exit(0 if ok else 1)
PY
run --gpu sm_90 -r "$e"
has '=> sm_90: runs through JIT: Triton compiles its kernels at run time, with its bundled ptxas from CUDA 12.4' "the same Triton on sm_90 compiles"
[ "$(cat "$t/rc")" = 0 ] && ok || bad "and passes (rc $(cat "$t/rc"))"

# Triton 3.3's layout: ptxas-blackwell serves sm_100 and newer, ptxas the rest
e=$t/ecase; mkdir "$e"
dist "$e" triton 3.3.0 '' triton/backends/nvidia/bin/ptxas=$t/px124 triton/backends/nvidia/bin/ptxas-blackwell=$t/px128
run --gpu sm_120,sm_90 -r "$e"
has '=> sm_120: runs through JIT: Triton compiles its kernels at run time, with its bundled ptxas from CUDA 12.8' "ptxas-blackwell serves sm_120"
has '=> sm_90: runs through JIT: Triton compiles its kernels at run time, with its bundled ptxas from CUDA 12.4' "ptxas serves sm_90"
has 'ptxas-blackwell: ptxas from CUDA 12.8, which Triton runs to compile its kernels for sm_100 and newer' "both are listed"
[ "$(cat "$t/rc")" = 0 ] && ok || bad "Triton 3.3 passes on sm_120 (rc $(cat "$t/rc"))"

# a CUDA 13 ptxas has dropped sm_70; one whose release is not in its bytes is not judged
e=$t/e8; mkdir "$e"
dist "$e" triton 3.5.0 '' triton/backends/nvidia/bin/ptxas=$t/px130
run --gpu sm_70,sm_120 -r "$e"
has 'which dropped sm_70 (last in CUDA 12.9): torch.compile and Triton kernels fail' "a CUDA 13 ptxas on sm_70"
has 'fix: install a Triton whose bundled ptxas is from CUDA 12.9 or older' "and the Triton to use there"
has '=> sm_120: runs through JIT' "that ptxas serves sm_120"
e=$t/e9; mkdir "$e"
dist "$e" triton 3.5.0 '' triton/backends/nvidia/bin/ptxas=$t/pxnone
run --gpu sm_120 -r "$e"
has 'ptxas from CUDA (release not found)' "a ptxas whose bytes state no release says so"
hasnt 'runs through JIT' "and is not judged"
hasnt 'will NOT run' "either way"

# the text where the scanner's 1 MiB chunks meet, in a wheel (a streamed zip member) and a
# file; a path that only ends like Triton's is not its compiler
for off in 1048560 1048576 1048600; do
	ptxas "$t/pxb" 12.4 $off
	rm -rf "$t/wz"; mkdir -p "$t/wz/triton/backends/nvidia/bin"; cp "$t/pxb" "$t/wz/triton/backends/nvidia/bin/ptxas"
	(cd "$t/wz" && python3 -c 'import zipfile; z = zipfile.ZipFile("t.zip", "w", zipfile.ZIP_DEFLATED); z.write("triton/backends/nvidia/bin/ptxas"); z.close()')
	run --gpu sm_120 "$t/wz/t.zip"
	has "ptxas from CUDA 12.4" "the release text at offset $off, in a zip"
	run --gpu sm_120 "$t/wz/triton/backends/nvidia/bin/ptxas"
	has "ptxas from CUDA 12.4" "the release text at offset $off, in a file"
done
# the search is bounded (WS_JITC_SEARCH_MAX, 128 MiB; issue 40: a 4 GiB member under that
# name cost 19 times another name): the text just inside is read, just past it is not (sparse
# files: the zeros cost no disk)
for at in 134217600 134217744; do
	mkdir -p "$t/big/triton/backends/nvidia/bin"
	python3 - "$t/big/triton/backends/nvidia/bin/ptxas" $at <<'PY'
import struct, sys
hdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0)
with open(sys.argv[1], "wb") as f:
    f.write(hdr)
    f.seek(int(sys.argv[2]))
    f.write(b"Cuda compilation tools, release 12.4, V12.4.99\0" + bytes(64))
PY
	run --gpu sm_120 "$t/big/triton/backends/nvidia/bin/ptxas"
	if [ $at -lt 134217728 ]; then has "ptxas from CUDA 12.4" "the release text at byte $at, inside the bound"
	else has "ptxas from CUDA (release not found)" "the release text at byte $at, past the bound, is not read"; fi
done
rm -rf "$t/big"
mkdir -p "$t/wz/mytriton/backends/nvidia/bin"; cp "$t/px124" "$t/wz/mytriton/backends/nvidia/bin/ptxas"
run --gpu sm_120 "$t/wz/mytriton/backends/nvidia/bin/ptxas"
hasnt 'jit ' "a path that only ends like Triton's is not its compiler"

# 7. names compare as pip compares them, without case: a METADATA that says "Torch" is the
# torch the companion needs (case 1 again, capitalised)
e=$t/capname; mkdir "$e"
dist "$e" Torch 2.8.0 'nvidia-cuda-runtime-cu12==12.8.90' Torch/lib/libtorch_cuda.so=$fx/multi.so
dist "$e" torchvision 0.20.1 'torch (==2.5.1)' torchvision/_C.so=$fx/multi.so
run --gpu sm_90 -r "$e"
has 'torchvision 0.20.1 is built for torch 2.5.1, but torch 2.8.0 is here' "a torch whose METADATA capitalises its name"

# 8. a scanned mirror (issue 40): the wheel that runs is named "-rreq...": pip would read
# '-rreq' as "-r req" (a requirements file beside it naming another index); the fix names
# it as a path, ./-rreq..., never an option. Three wheels of one package that fail give one
# command, not one per wheel.
m=$t/mirror; mkdir -p "$m/a" "$m/b" "$m/c"
old=testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl
for d in a b c; do cp "$old" "$m/$d/"; done
cp "$new" "$m/-rreq-0.2.0-cp311-cp311-manylinux_2_28_x86_64.whl"
w=wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl
(cd "$m" && "$WS_BIN" --builds "$t/b.tsv" --no-progress --gpu sm_120 -- -rreq-0.2.0-cp311-cp311-manylinux_2_28_x86_64.whl \
	a/$w b/$w c/$w >"$t/out" 2>"$t/err")
has "pip install ./-rreq-0.2.0-cp311-cp311-manylinux_2_28_x86_64.whl" "a wheel named like an option is a path (./)"
hasnt "pip install -rreq" "never an option"
hasnt "pip install '-rreq" "never a quoted option"
n=$(grep -c 'pip install ./-rreq' "$t/out")
[ "$n" -eq 1 ] && ok || bad "three wheels of one package: the fix's command is printed $n times, not once"
grep -A3 'to fix it on' "$t/out" | grep -q ' && pip install ./-rreq' && bad "the fix repeats its command: $(grep -A1 'to fix it on' "$t/out" | tail -n 1)" || ok
has "instead of 0.1.0 and 2 others" "the note counts the other wheels once"
# JSON: one command in the fix, its words as argv
"$WS_BIN" --builds "$t/b.tsv" --no-progress --gpu sm_120 --json -r "$m" >"$t/j" 2>/dev/null
python3 - "$t/j" <<'PY' && ok || bad "JSON fix: not one command with argv ['pip', 'install', <path>]"
import json, sys
fix = json.load(open(sys.argv[1]))["environment"]["fix"]["sm_120"]
argv = fix["argv"]
assert len(argv) == 1, argv
assert argv[0][:2] == ["pip", "install"] and argv[0][2].endswith("/-rreq-0.2.0-cp311-cp311-manylinux_2_28_x86_64.whl"), argv
assert fix["shell"] == "sh" and fix["command"] == "pip install " + argv[0][2], fix
PY

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
