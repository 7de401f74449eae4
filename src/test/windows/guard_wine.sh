#!/bin/sh
# windows/guard_wine.sh - the pip guard of wheelscan.exe under Wine (issue 37, item 4), in
# make test-windows: `python_embeded\Scripts\wheelscan.exe pip install ...` in a portable
# app's folder whose path holds blanks, & ( ) and characters outside ASCII must guard the
# python.exe beside it. No Windows CPython runs here (Debian and PyPI carry none), so that
# python.exe is a stand-in (src/test/windows/fake_python.c): it takes its argv as a Windows
# program does and hands it to src/test/windows/fake_pip.py, which runs the real pip of this
# machine for Windows (--platform win_amd64) for the dry run and the download, and stands in
# for pip's installer for the final `install --no-index --no-deps FILES` (pip cannot install
# a win_amd64 wheel into a Linux Python). The index: scripts/gen-guard-index --win (torch,
# torchvision, einops for cpXY-win_amd64, GPU code in PE DLLs), in a folder with blanks and
# non-ASCII in its name. Checked: bad transitions blocked (exit 1, site-packages unchanged
# byte for byte, the cure rendered for cmd.exe, and that cure run by Wine's cmd.exe hands
# python.exe the intended words), good ones installed with the files of the wheels judged,
# --python=, --json, and the argv python.exe received for every pip step.
set -u
cd "$(dirname "$0")/../../.."
exe=${WS_EXE:-build/win/wheelscan.exe}
. src/test/windows/wine.inc
[ -f "$exe" ] || { bad "$exe is missing (make windows)"; done_counts; exit; }
command -v python3 >/dev/null || { bad "python3 is missing"; done_counts; exit; }
REAL=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
[ "$("$REAL" -m pip --version 2>/dev/null | sed -n 's/^pip \([0-9]*\).*/\1/p')" -ge 23 ] 2>/dev/null ||
	{ bad "the stand-in needs pip 23 or newer for $REAL"; done_counts; exit; }
$CC_WIN -municode -O1 -o "$tmp/python.exe" src/test/windows/fake_python.c 2>"$tmp/cc" &&
	$CC_WIN -O1 -o "$tmp/cmd_lines.exe" src/test/windows/cmd_lines.c 2>>"$tmp/cc" ||
	{ bad "cannot build the stand-ins: $(tail -n 2 "$tmp/cc")"; done_counts; exit; }
idx="$tmp/index ü & x"
python3 scripts/gen-guard-index --win "$idx" >/dev/null || { bad "gen-guard-index --win"; done_counts; exit; }
app="$tmp/ComfyUI portable ü日 & (x)"
py=$app/python_embeded
site=$py/Lib/site-packages
mkdir -p "$site" "$py/Scripts"
cp "$tmp/python.exe" "$py/python.exe"
cp "$exe" "$py/Scripts/wheelscan.exe"
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL
export FAKE_PY_UNIX="$(winpath "$REAL")" FAKE_PY_REAL="$REAL" FAKE_PY_SCRIPT="$PWD/src/test/windows/fake_pip.py"
export FAKE_PY_LOG="$(winpath "$tmp")\\pylog" WHEELSCAN_CACHE_DIR="$(winpath "$tmp")\\cache"
widx=$(winpath "$idx")
wpy="$(winpath "$py")\\python.exe"
tree() { (cd "$site" && find . -print0 | sort -z | xargs -0 sh -c 'for f; do printf "%s %s\n" "$f" "$(stat -c %a "$f")"; [ -f "$f" ] && sha256sum <"$f"; done' x); }
guard() { wine_run "$tmp/out" "$tmp/err" "$py/Scripts/wheelscan.exe" --no-progress --gpu sm_120 "$@"; echo $? >"$tmp/rc"; }
# every member of the judged wheels (the cache's, named in the JSON) as installed; RECORD gains INSTALLER
same_as_judged() {
	python3 - "$site" "$1" "$tmp/cache" <<'PY'
import json, os, sys, zipfile
site, doc, cache = sys.argv[1], json.load(open(sys.argv[2], encoding="utf-8")), sys.argv[3]
changes = doc["guard"]["changes"]
assert changes and doc["guard"]["installed"] is True, doc["guard"].get("installed")
for c in changes:
    path = os.path.join(cache, c["sha256"], os.path.basename(c["file"].replace("\\", "/")))
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            if n.endswith("/RECORD"):
                assert open(os.path.join(site, n), "rb").read().startswith(z.read(n)), n
            elif not n.endswith("/"):
                assert open(os.path.join(site, n), "rb").read() == z.read(n), n
print(len(changes))
PY
}

# ---- an empty app: torch cu128 installed by the guard, as judged --------------------------
guard --json pip install --no-index --find-links "$widx" torch==2.8.0+cu128
[ "$(cat "$tmp/rc")" = 0 ] && n=$(same_as_judged "$tmp/out" 2>"$tmp/perr") && [ "$n" = 1 ] && ok ||
	bad "torch cu128 into an empty app: rc $(cat "$tmp/rc"), $(tail -n 1 "$tmp/perr") $(head -c 400 "$tmp/err")"
grep -qF "\"python\":\"$(printf '%s' "$wpy" | sed 's/\\/\\\\/g')\"" "$tmp/out" && ok ||
	bad "the guard must name python_embeded's python.exe: $(head -c 300 "$tmp/out")"
cp -a "$site" "$tmp/base"
tree >"$tmp/tree.base"

# ---- bad transitions: blocked, nothing installed, the cure for cmd.exe ---------------------
for spec in torch==2.7.1+cu126 torch==2.8.0+cpu; do
	guard pip install --no-index --find-links "$widx" "$spec"
	rc=$(cat "$tmp/rc")
	tree | cmp -s - "$tmp/tree.base" && [ "$rc" = 1 ] && grep -q 'nothing was installed' "$tmp/out" && ok ||
		bad "$spec must be blocked with nothing installed: rc $rc, $(tail -n 4 "$tmp/out") $(head -c 300 "$tmp/err")"
	[ "$spec" = torch==2.7.1+cu126 ] && cure=$(sed -n 's/^the cure: //p' "$tmp/out" | head -n 1)
done
# the cure names the app's python.exe as cmd.exe needs it (in quotes: & ( ) and blanks)
case $cure in
"\"$wpy\" -m pip install "*) ok;;
*) bad "the cure must run \"$wpy\" -m pip: '$cure'";;
esac

# ---- the cure itself, run by Wine's cmd.exe: python.exe gets the intended words -----------
rm -f "$tmp/pylog"
printf '%s' "$cure" >"$tmp/lines"
(cd "$tmp" && "$WINE" "$tmp/cmd_lines.exe" "$(winpath "$tmp/lines")" "$(winpath "$tmp")\\cure" >/dev/null 2>&1)
python3 - "$tmp/pylog" "$cure" "$wpy" <<'PY' 2>"$tmp/perr" && ok || bad "the cure through cmd.exe: $(tail -n 2 "$tmp/perr")"
import sys
log, cure, py = sys.argv[1:4]
head = '"%s" ' % py
assert cure.startswith(head), cure
want = cure[len(head):].split(" ")          # the words after the program are plain
got = open(log, "rb").read().rstrip(b"\n").split(b"\0")[:-1]
assert [w.decode() for w in got] == want, (got, want)
PY

# ---- a good transition: installed, each file the one judged; --python= and --json ---------
cp -a "$tmp/base/." "$site/" 2>/dev/null
rm -f "$tmp/pylog"
guard --json --python="$wpy" pip install --no-index --find-links "$widx" torchvision==0.23.0+cu128
n=$(same_as_judged "$tmp/out" 2>"$tmp/perr")
[ "$(cat "$tmp/rc")" = 0 ] && [ "${n:-0}" -ge 1 ] && [ -f "$site/torchvision/_C.pyd" ] && ok ||
	bad "torchvision cu128 over torch cu128: rc $(cat "$tmp/rc"), $(tail -n 1 "$tmp/perr") $(head -c 400 "$tmp/err")"
# the argv python.exe received from CreateProcessW: every path word as wheelscan.exe meant it
python3 - "$tmp/pylog" "$widx" "$tmp" <<'PY' 2>"$tmp/perr" && ok || bad "python.exe's argv: $(tail -n 3 "$tmp/perr")"
import os, sys
calls = [c.split(b"\0") for c in open(sys.argv[1], "rb").read().split(b"\0\n") if c]
calls = [[w.decode() for w in c] for c in calls]
idx, tmp = sys.argv[2], sys.argv[3]
dry = [c for c in calls if c[:4] == ["-m", "pip", "install", "--dry-run"]]
assert dry and dry[0][-3:] == ["--find-links", idx, "torchvision==0.23.0+cu128"], dry
assert dry[0][4:6] == ["--quiet", "--report"] and dry[0][6].endswith("/report.json"), dry[0]
dl = [c for c in calls if c[2:3] == ["download"]]
assert dl and "--dest" in dl[0] and [w for w in dl[0] if w.startswith("torchvision @ file:///")], dl
inst = [c for c in calls if c[2:5] == ["install", "--no-index", "--no-deps"]]
assert inst and all(w.endswith(".whl") for w in inst[0][5:]), inst
for w in inst[0][5:]:     # the judged files, in the cache (Z:\...\cache/<sha256>/<file>)
    p = w[2:].replace("\\", "/")
    assert os.path.isfile(p) and p.startswith(tmp + "/cache/"), w
PY
# the same good set again, text: the cache serves it, nothing downloaded, nothing changed
tree >"$tmp/tree.good"
guard pip install --no-index --find-links "$widx" torchvision==0.23.0+cu128
[ "$(cat "$tmp/rc")" = 0 ] && ! grep -q 'pip downloads' "$tmp/out" && tree | cmp -s - "$tmp/tree.good" && ok ||
	bad "a reinstall from the cache: rc $(cat "$tmp/rc"), $(head -n 5 "$tmp/out")"
# a CPU torchvision over the CUDA one that runs now: blocked, nothing changed
guard pip install --no-index --find-links "$widx" torchvision==0.23.0+cpu
[ "$(cat "$tmp/rc")" = 1 ] && tree | cmp -s - "$tmp/tree.good" && ok ||
	bad "a CPU torchvision over the CUDA one must be blocked: rc $(cat "$tmp/rc"), $(tail -n 4 "$tmp/out")"
# pip's own failure passes through: its message, its status
guard pip install --no-index --find-links "$widx" no-such-project==1.0
[ "$(cat "$tmp/rc")" = 1 ] && grep -q 'No matching distribution' "$tmp/err" && tree | cmp -s - "$tmp/tree.good" && ok ||
	bad "pip's failure: rc $(cat "$tmp/rc"), $(head -c 300 "$tmp/err")"
# a scan of a Windows wheel shows its remedy for cmd.exe, and says JSON also has PowerShell's
"$WINE" "$exe" --no-progress --gpu sm_120 "$(winpath "$idx"/torch-2.7.1+cu126-*.whl)" >"$tmp/out" 2>&1
grep -qxF '     for cmd.exe (--json: also PowerShell):' "$tmp/out" && ok ||
	bad "the remedy of a Windows wheel: $(grep -F 'for cmd.exe' "$tmp/out" || head -n 3 "$tmp/out")"
done_counts
