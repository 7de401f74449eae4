#!/bin/sh
# windows/windows.sh - not part of make check (it needs the cross build and Wine; make
# test-windows runs it): wheelscan.exe (make windows) under Wine: the golden CLI cases of golden.sh with
# the expectations of the Linux build, byte for byte, then what only Windows has: drive-letter
# and backslash paths, a file name outside ASCII (the wide-character API and UTF-8 output), an
# app folder with an embedded Python (python_embeded\Lib\site-packages), --env and --version -v
# saying there is no sandbox, and a wheel's exe unpacked as pip installs it (WS_WIN_WHEEL).
# The live check runs against a stand-in nvcuda.dll built here from src/test/fake_libcuda.c:
# its workers are child processes, loads succeed or fail by arch, crash or hang.
# WS_EXE: the exe (default build/win/wheelscan.exe). Without wine this is a skip, and under
# CI=true a failure: a check that cannot run must not pass.
set -u
cd "$(dirname "$0")/../../.."
# Wine spells Unix file names in the locale's charset: under C/POSIX (a bare machine's, a CI
# job's) a name outside ASCII cannot be opened at all, so the UTF-8 one is asked for
export LC_ALL=C.UTF-8
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*"; }
skipped() { skip=$((skip + 1)); echo "skipped: $*"; }
exe=${WS_EXE:-build/win/wheelscan.exe}
absexe=$(cd "$(dirname "$exe")" 2>/dev/null && pwd)/$(basename "$exe")
WINE=$(command -v wine64 || command -v wine || true)
if [ -z "$WINE" ] || [ ! -f "$exe" ]; then
	why=$([ -z "$WINE" ] && echo "wine is not installed (apt-get install wine64)" || echo "$exe is missing (make windows)")
	if [ "${CI:-}" = true ]; then echo "FAIL: $why"; echo "0 passed, 1 failed"; exit 1; fi
	echo "skipped: $why"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# one prefix for every run, kept: making it takes Wine seconds
export WINEPREFIX=${WS_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/wheelscan/wine-prefix} WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	mkdir -p "$WINEPREFIX"
	t0=$(date +%s)
	"$WINE" wineboot -i >/dev/null 2>&1
	echo "windows.sh: made the Wine prefix $WINEPREFIX in $(( $(date +%s) - t0 ))s"
fi
# one wineserver for the whole run (kept 30 s after its last client): one starting while
# another winds down now and then drops a client ("wine client error: recvmsg")
WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
"$WINESERVER" -p30 2>/dev/null
export NO_COLOR=1
w() { "$WINE" "$exe" "$@"; }
# the Windows spelling of a path here: Wine's Z: is the Unix root
winpath() { printf 'Z:%s' "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" | tr / '\\'; }

# The stand-in driver, nvcuda.dll, from src/test/fake_libcuda.c (what golden.sh and
# live_cli.sh build as libcuda.so.1), with MinGW and the POSIX names of src/win/posix.h.
CC_WIN=${WS_WIN_CC:-x86_64-w64-mingw32-gcc-posix}
fake=""
if $CC_WIN -shared -static -O1 -o "$tmp/nvcuda.dll" -include src/win/posix.h -Isrc/win/include \
	src/test/fake_libcuda.c "$(dirname "$exe")/posix_win.o" -lbcrypt 2>"$tmp/cc"; then
	fake=$(winpath "$tmp/nvcuda.dll")
	ok
else
	bad "cannot build the stand-in nvcuda.dll: $(tail -n 2 "$tmp/cc")"
fi
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1

# ---- the golden cases, as golden.sh runs them --------------------------------------------
for args in testdata/golden/*.args; do
	name=${args%.args}
	if [ "$(basename "$name")" = gpu-auto-no-driver ]; then
		skipped "gpu-auto-no-driver: byte for byte (its text is dlerror's, Linux's words); checked below"
		continue
	fi
	eval "set -- $(cat "$args")"
	( if [ -f "$name.env" ]; then
		while IFS= read -r line; do
			[ -n "$line" ] && export "$(printf '%s' "$line" | sed "s|@FAKE_LIBCUDA@|$(printf '%s' "$fake" | sed 's/\\/\\\\/g')|")"
		done <"$name.env"
	  fi
	  w --jobs 2 --no-progress "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc" )
	same=1
	for k in out err rc; do
		if ! cmp -s "$tmp/$k" "$name.$k"; then
			same=0
			bad "$(basename "$name").$k differs from the Linux build's"
			diff -u "$name.$k" "$tmp/$k" | head -20
		fi
	done
	[ $same = 1 ] && ok
done
# gpu-auto-no-driver, with Windows' words: no driver, said plainly, and no GPU judged
w --no-progress --gpu auto testdata/fixtures/example.whl >"$tmp/out" 2>"$tmp/err"
rc=$?
grep -q 'no CUDA driver' "$tmp/err" && [ $rc -eq "$(cat testdata/golden/gpu-auto-no-driver.rc)" ] && ok ||
	bad "--gpu auto without a driver: rc $rc, $(head -c 300 "$tmp/err")"

# ---- the live check against the stand-in nvcuda.dll: worker processes, loads by arch -------
if [ -n "$fake" ]; then
	export WHEELSCAN_LIBCUDA="$fake"
	FX=testdata/fixtures
	FAKE_CUDA_DEVICES='12.0:NVIDIA GeForce RTX 5090:32607' w --env >"$tmp/out" 2>&1
	grep -qF 'device 0: NVIDIA GeForce RTX 5090, compute capability 12.0 (sm_120), 31.8 GiB, probe ok' "$tmp/out" &&
		grep -qF 'CUDA driver: CUDA 13.0' "$tmp/out" && ok || bad "--env with the stand-in driver: $(head -n 4 "$tmp/out")"
	# a load that fails by arch (only SASS sm_86 for an sm_90 device) and one that succeeds
	w --no-progress --live --gpu auto --json "$FX/sm_86-only.fatbin" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] && grep -qF '"live":{"sm_90":"CUDA_ERROR_NO_BINARY_FOR_GPU"}' "$tmp/out" &&
		grep -qF '"live_mismatches":[]' "$tmp/out" && ok || bad "--live no-image: rc $rc $(head -c 300 "$tmp/err")"
	FAKE_CUDA_DEVICES='12.0:NVIDIA GeForce RTX 5090' w --no-progress --live --gpu auto --json "$FX/multi.so" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && grep -qF '"live":{"sm_120":"ok"}' "$tmp/out" && ok || bad "--live ok on sm_120: rc $rc $(head -c 300 "$tmp/err")"
	w --no-progress --live-nojit --gpu auto --json "$FX/sm_80-compute_80.fatbin" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && grep -qF '"live":{"sm_90":"ok"},"live_nojit":{"sm_90":"CUDA_ERROR_JIT_COMPILATION_DISABLED"}' "$tmp/out" && ok ||
		bad "--live-nojit: rc $rc $(head -c 300 "$tmp/out") $(head -c 200 "$tmp/err")"
	# a worker that crashes is reported as such, and the next load gets a new one
	FAKE_CUDA_CRASH_ON_LOAD=k_plain w --no-progress --live --json "$FX/sm_86-only.fatbin" "$FX/ptx-only-80.fatbin" >"$tmp/out" 2>"$tmp/err"
	grep -qF '"live":{"sm_90":"crash"}' "$tmp/out" && grep -qF '"live":{"sm_90":"ok"}' "$tmp/out" && ok ||
		bad "--live with a crashing load: $(head -c 300 "$tmp/out")"
	# one that hangs is killed at the time limit
	FAKE_CUDA_HANG_ON_LOAD=_Z WHEELSCAN_LIVE_TIMEOUT_MS=1500 w --no-progress --live "$FX/multi.so" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] && grep -qF "not measured (timeout)" "$tmp/out" && ok || bad "--live with a hanging load: rc $rc $(head -n 4 "$tmp/out")"
	export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1
fi

# ---- paths as Windows spells them ----------------------------------------------------------
./wheelscan --no-progress --gpu 'RTX 5090' testdata/fixtures/example.whl 2>/dev/null | tail -n +2 >"$tmp/linux"
dl=$(winpath testdata/fixtures/example.whl)
w --no-progress --gpu 'RTX 5090' "$dl" >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qF "$dl  (wheel" && tail -n +2 "$tmp/out" | cmp -s - "$tmp/linux" && ok ||
	bad "a drive-letter path ($dl): $(head -n 2 "$tmp/out") $(head -c 200 "$tmp/err")"
w --no-progress --gpu 'RTX 5090' 'testdata\fixtures\example.whl' >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qF 'testdata\fixtures\example.whl  (wheel' && tail -n +2 "$tmp/out" | cmp -s - "$tmp/linux" && ok ||
	bad "a backslash path: $(head -n 2 "$tmp/out") $(head -c 200 "$tmp/err")"
# a directory given with backslashes: walked (every path below it spelled with '/', as
# src/win/fts_win.c says), found and judged; without -r, the Linux build's answer
w --no-progress --gpu 'RTX 5090' 'testdata\fixtures' >"$tmp/out" 2>&1
grep -qF "'testdata\fixtures': is a directory (use -r)" "$tmp/out" && ok || bad "a directory without -r: $(head -n 2 "$tmp/out")"
w --no-progress --gpu 'RTX 5090' -r 'testdata\fixtures' >"$tmp/out" 2>&1
grep -qF 'testdata/fixtures/example.whl  (wheel' "$tmp/out" && ok || bad "a backslash directory walk: $(head -n 3 "$tmp/out")"

# ---- a name outside ASCII: opened through the wide API, printed and written in UTF-8 -----
name='wscan_exämple-名前'
mkdir -p "$tmp/ü"
cp testdata/fixtures/example.whl "$tmp/ü/$name.whl"
w --no-progress --gpu 'RTX 5090' "$(winpath "$tmp/ü/$name.whl")" >"$tmp/out" 2>"$tmp/err"
grep -qF "ü\\$name.whl  (wheel" "$tmp/out" && tail -n +2 "$tmp/out" | cmp -s - "$tmp/linux" && ok ||
	bad "a non-ASCII name: $(head -n 2 "$tmp/out") $(head -c 200 "$tmp/err")"
w --no-progress --gpu 'RTX 5090' --format json "$(winpath "$tmp/ü/$name.whl")" >"$tmp/json" 2>"$tmp/err"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); p = d["artifacts"][0]["path"]
assert p.endswith("\\ü\\" + sys.argv[2] + ".whl"), p' "$tmp/json" "$name" 2>"$tmp/perr" && ok ||
	bad "the JSON path of a non-ASCII name: $(tail -n 1 "$tmp/perr")"
# a directory walked with one in it: the name comes from FindFirstFileW, in UTF-8
w --no-progress --gpu 'RTX 5090' -r "$(winpath "$tmp/ü")" >"$tmp/out" 2>&1
grep -qF "$name.whl  (wheel" "$tmp/out" && ok || bad "a non-ASCII name met in a walk: $(head -n 2 "$tmp/out")"

# ---- a path past MAX_PATH (260): opened in its \\?\ form (src/win/posix_win.c), printed as given ----
long=$tmp/long
for i in 1 2 3 4 5 6 7; do long=$long/directory-$i-with-a-name-long-enough-to-matter; done
mkdir -p "$long" && cp testdata/fixtures/example.whl "$long/example.whl"
lp=$(winpath "$long/example.whl")
[ ${#lp} -gt 300 ] && ok || bad "the long path is only ${#lp} characters"
w --no-progress --gpu 'RTX 5090' "$lp" >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qF "$lp  (wheel" && tail -n +2 "$tmp/out" | cmp -s - "$tmp/linux" && ok ||
	bad "a ${#lp}-character path: $(head -n 2 "$tmp/out") $(head -c 300 "$tmp/err")"
# walked: each directory below the root is longer than MAX_PATH from the fourth level on
w --no-progress --gpu 'RTX 5090' -r "$(winpath "$tmp/long")" >"$tmp/out" 2>&1
grep -qF 'directory-7-with-a-name-long-enough-to-matter/example.whl  (wheel' "$tmp/out" && ok ||
	bad "a walk down to a ${#lp}-character path: $(head -n 3 "$tmp/out")"
# a relative path that the current directory makes long (Wine cannot start in a directory
# past MAX_PATH itself: the fourth level is under it, the file three levels below is over)
d4=$tmp/long/directory-1-with-a-name-long-enough-to-matter/directory-2-with-a-name-long-enough-to-matter
d4=$d4/directory-3-with-a-name-long-enough-to-matter/directory-4-with-a-name-long-enough-to-matter
rel='directory-5-with-a-name-long-enough-to-matter\directory-6-with-a-name-long-enough-to-matter\directory-7-with-a-name-long-enough-to-matter\example.whl'
(cd "$d4" && "$WINE" "$absexe" --no-progress --gpu 'RTX 5090' "$rel") >"$tmp/out" 2>"$tmp/err"
head -n 1 "$tmp/out" | grep -qF "$rel  (wheel" && tail -n +2 "$tmp/out" | cmp -s - "$tmp/linux" && ok ||
	bad "a relative path under a long directory: $(head -n 2 "$tmp/out") $(head -c 300 "$tmp/err")"

# the form itself (Wine opens a long path in any spelling, so the runs above pass either way):
# past MAX_PATH absolute, '\' only, '..' resolved, UNC as \\?\UNC\; a short path as given
if $CC_WIN -static -O1 -o "$tmp/longpath.exe" -include src/win/posix.h -Isrc/win/include \
	src/test/windows/longpath.c "$(dirname "$exe")/posix_win.o" -lbcrypt 2>"$tmp/cc"; then
	seg=directory-with-a-name-long-enough-to-matter
	deep="$seg\\$seg\\$seg\\$seg\\$seg\\$seg"
	fwd=$(printf '%s' "$deep" | tr '\\' /)
	(cd "$d4" && "$WINE" "$tmp/longpath.exe" 'Z:\short\x.whl' "C:\\$deep\\x.whl" "C:/$fwd/skip/../x.whl" \
		"\\\\server\\share\\$deep\\x.whl" "\\\\?\\C:\\$deep\\x.whl" 'rel\x.whl' "$rel") >"$tmp/forms" 2>"$tmp/err"
	cwd=$(winpath "$d4")
	printf '%s\n' 'Z:\short\x.whl' "\\\\?\\C:\\$deep\\x.whl" "\\\\?\\C:\\$deep\\x.whl" \
		"\\\\?\\UNC\\server\\share\\$deep\\x.whl" "\\\\?\\C:\\$deep\\x.whl" 'rel\x.whl' "\\\\?\\$cwd\\$rel" >"$tmp/forms.want"
	tr -d '\r' <"$tmp/forms" | cmp -s - "$tmp/forms.want" && ok ||
		bad "the \\\\?\\ forms: $(tr -d '\r' <"$tmp/forms" | diff "$tmp/forms.want" - | head -c 600)"
else
	bad "cannot build longpath.exe: $(tail -n 2 "$tmp/cc")"
fi

# ---- an app folder with its own Python, as ComfyUI's portable build ships it ----------------
# -r finds the environment and names its interpreter (src/interp.c); an empty python.exe is
# enough for that. A webui's venv names Scripts\python.exe.
app=$tmp/ComfyUI_windows_portable
mkdir -p "$app/python_embeded/Lib" "$app/ComfyUI"
cp -r testdata/env/site "$app/python_embeded/Lib/site-packages"
: >"$app/python_embeded/python.exe"
./wheelscan --no-progress --gpu 'RTX 5090' -r testdata/env/site 2>&1 | grep -E '^  (=>|package|RECORD|files)' >"$tmp/linux-env"
w --no-progress --gpu 'RTX 5090' -r "$(winpath "$app")" >"$tmp/out" 2>"$tmp/err"
grep -E '^  (=>|package|RECORD|files)' "$tmp/out" | cmp -s - "$tmp/linux-env" &&
	grep -qF 'python_embeded/Lib/site-packages/wscan_alts-0.1.0.dist-info  (installed' "$tmp/out" && ok ||
	bad "-r on an app folder with python_embeded: $(head -n 12 "$tmp/out")"
grep -qF "are those of the interpreter $(winpath "$app" | tr '\\' /)/python_embeded/python.exe" "$tmp/err" && ok ||
	bad "-r on an app folder must name python_embeded's python.exe: $(head -c 300 "$tmp/err")"
webui=$tmp/stable-diffusion-webui
mkdir -p "$webui/venv/Lib" "$webui/venv/Scripts"
cp -r testdata/env/site "$webui/venv/Lib/site-packages"
: >"$webui/venv/Scripts/python.exe"
w --no-progress --gpu 'RTX 5090' -r "$(winpath "$webui")" >"$tmp/out" 2>"$tmp/err"
grep -qF "are those of the interpreter $(winpath "$webui" | tr '\\' /)/venv/Scripts/python.exe" "$tmp/err" &&
	grep -E '^  (=>|package|RECORD|files)' "$tmp/out" | cmp -s - "$tmp/linux-env" && ok ||
	bad "-r on a webui folder must name its venv's python.exe: $(head -c 300 "$tmp/err")"
# --python=...\python_embeded\python.exe: run through CreateProcessW, its site-packages read
# from what it prints (a stand-in interpreter here: Wine has no Windows Python)
cat >"$tmp/fakepy.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
int main(void) { const char *s = getenv("FAKE_PY_SITE"); printf("%s\n%s\n", s, s); return 0; }
EOF2
if $CC_WIN -O1 -o "$tmp/fakepy.exe" "$tmp/fakepy.c" 2>"$tmp/cc"; then
	cp "$tmp/fakepy.exe" "$app/python_embeded/python.exe"
	FAKE_PY_SITE="$(winpath "$app/python_embeded/Lib/site-packages")" \
		w --no-progress --gpu 'RTX 5090' --python="$(winpath "$app/python_embeded/python.exe")" >"$tmp/out" 2>"$tmp/err"
	grep -E '^  (=>|package|RECORD|files)' "$tmp/out" | cmp -s - "$tmp/linux-env" && ok ||
		bad "--python=...\\python_embeded\\python.exe: $(head -n 6 "$tmp/out") $(head -c 300 "$tmp/err")"
else
	bad "cannot build the stand-in python.exe: $(tail -n 2 "$tmp/cc")"
fi

# ---- what the build says about itself ------------------------------------------------------
w --env >"$tmp/out" 2>&1
grep -q 'seccomp: none on Windows' "$tmp/out" && grep -q 'CUDA driver: none' "$tmp/out" && ok ||
	bad "--env must say there is no sandbox and no driver: $(cat "$tmp/out" | head -c 400)"
w --version -v >"$tmp/out" 2>&1
grep -q '^platform: Windows' "$tmp/out" && grep -q 'seccomp: none on Windows' "$tmp/out" && ok ||
	bad "--version -v: $(head -c 300 "$tmp/out")"

# ---- a wheel's exe, installed by pip (make wheel-windows: scripts/build-wheel-windows) ------
if [ -n "${WS_WIN_WHEEL:-}" ]; then
	case "$(basename "$WS_WIN_WHEEL")" in
	wheelscan-*-py3-none-win_amd64.whl) ok;;
	*) bad "wheel name '$WS_WIN_WHEEL' is not wheelscan-VERSION-py3-none-win_amd64.whl";;
	esac
	# pip itself installs it, for Windows, into a folder: the scripts data directory goes to
	# bin/ there (Scripts\ in a Windows environment), and nothing else runs
	python3 -m pip install -q --no-deps --no-index --platform win_amd64 --only-binary=:all: --target "$tmp/venv" \
		"$WS_WIN_WHEEL" >"$tmp/perr" 2>&1 && [ -f "$tmp/venv/bin/wheelscan.exe" ] && ok ||
		bad "pip install --platform win_amd64 of the wheel: $(grep -v WARNING "$tmp/perr" | tail -n 2)"
	"$WINE" "$tmp/venv/bin/wheelscan.exe" --no-progress --gpu 'RTX 5090' testdata/fixtures/example.whl >"$tmp/out" 2>&1
	tail -n +2 "$tmp/out" | cmp -s - "$tmp/linux" && ok || bad "the wheel's exe: $(head -n 3 "$tmp/out")"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
