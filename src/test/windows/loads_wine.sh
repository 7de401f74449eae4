#!/bin/sh
# windows/loads_wine.sh - the load resolution of PE imports (src/core/loadres.c,
# doc/load-resolution.md) against the loader it predicts, in make test-windows: MinGW builds
# DLLs with real import tables (src/test/windows/load_dll.c) into an app's
# python_embeded\Lib\site-packages: an extension that needs a DLL beside it, one that needs a
# DLL nobody ships, one that needs a DLL that lies only in a subfolder; each extension
# carries the fixtures' GPU code so that it is judged. wheelscan.exe -r --json says per
# object "alone", "fails" or "after-preload" (with what to load first); a probe
# (src/test/windows/load_probe.c) asks Wine's loader, LoadLibraryExW with
# LOAD_WITH_ALTERED_SEARCH_PATH as CPython loads an extension: "alone" must load, "fails"
# must fail with ERROR_MOD_NOT_FOUND (126), "after-preload" must fail alone and load once its
# preloads are loaded.
set -u
cd "$(dirname "$0")/../../.."
exe=${WS_EXE:-build/win/wheelscan.exe}
. src/test/windows/wine.inc
[ -f "$exe" ] || { bad "$exe is missing (make windows)"; done_counts; exit; }
site=$tmp/app/python_embeded/Lib/site-packages
pkg=$site/ldtest
mkdir -p "$pkg/sub" "$site/ldtest-1.0.dist-info"
OBJCOPY=${CC_WIN%-gcc*}-objcopy
command -v objcopy >/dev/null && objcopy -O binary --only-section=.nv_fatbin testdata/fixtures/multi.so "$tmp/fat.bin" &&
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(",".join(str(b) for b in d))' "$tmp/fat.bin" >"$tmp/load_fatbin.h" ||
	{ bad "cannot take the fixture's .nv_fatbin"; done_counts; exit; }
build() {
	for d in present missing inner; do
		$CC_WIN -shared -O1 -DPROVIDE=$d -o "$tmp/$d.dll" src/test/windows/load_dll.c -Wl,--out-implib,"$tmp/lib$d.a" || return 1
	done
	for d in present missing inner; do
		$CC_WIN -shared -O1 -DNEED=$d -I"$tmp" -o "$pkg/ext_$d.pyd" src/test/windows/load_dll.c -L"$tmp" -l$d || return 1
	done
	$CC_WIN -O1 -o "$tmp/probe.exe" src/test/windows/load_probe.c
}
build 2>"$tmp/cc" || { bad "cannot build the DLLs: $(tail -n 3 "$tmp/cc")"; done_counts; exit; }
cp "$tmp/present.dll" "$pkg/"           # beside the extension that needs it
cp "$tmp/inner.dll" "$pkg/sub/"         # only in a subfolder: not on the search path
                                        # (missing.dll: nowhere)
python3 - "$site" <<'PY'
import base64, hashlib, os, sys
site = sys.argv[1]
di = os.path.join(site, "ldtest-1.0.dist-info")
open(os.path.join(di, "METADATA"), "w").write("Metadata-Version: 2.1\nName: ldtest\nVersion: 1.0\n")
rows = []
for root, _, files in os.walk(site):
    for f in sorted(files):
        rel = os.path.relpath(os.path.join(root, f), site).replace(os.sep, "/")
        data = open(os.path.join(root, f), "rb").read()
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append("%s,sha256=%s,%d\n" % (rel, h, len(data)))
open(os.path.join(di, "RECORD"), "w").write("".join(rows) + "ldtest-1.0.dist-info/RECORD,,\n")
PY
wine_run "$tmp/out.json" "$tmp/err" "$exe" --no-progress --json --gpu sm_120 -r "$(winpath "$tmp/app")"
probe() { "$WINE" "$tmp/probe.exe" "$@" 2>/dev/null | tr -d '\r'; }
if ! python3 - "$tmp/out.json" "$site" >"$tmp/plan" 2>"$tmp/perr" <<'PY'; then bad "wheelscan.exe's loads: $(tail -n 2 "$tmp/perr") $(head -c 300 "$tmp/err")"; else ok; fi
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
objs = {o["object"]: o for o in d["loads"]["objects"]}
for o in objs.values():      # each prediction goes to the loader, whatever it is
    print("%s %s %s" % (o["loads"], o["object"], " ".join(o["preload"])))
# the three kinds are there, each where the layout puts it: else the test would prove nothing
want = {"ldtest/ext_present.pyd": "alone", "ldtest/ext_missing.pyd": "fails", "ldtest/ext_inner.pyd": "after-preload"}
for o, how in want.items():
    assert objs[o]["loads"] == how, (o, objs[o])
assert objs["ldtest/ext_inner.pyd"]["preload"] == ["ldtest/sub/inner.dll"], objs["ldtest/ext_inner.pyd"]
PY
n=0
while read -r how obj pre; do
	n=$((n + 1))
	p=$(winpath "$site/$obj")
	alone=$(probe "$p")
	case $how in
	alone) [ "$alone" = ok ] && ok || bad "$obj: wheelscan says it loads alone, LoadLibraryExW: $alone";;
	fails) [ "$alone" = "fail 126" ] && ok || bad "$obj: wheelscan says it fails, LoadLibraryExW: $alone";;
	after-preload)
		[ "$alone" = "fail 126" ] && ok || bad "$obj: wheelscan says it needs a preload, LoadLibraryExW alone: $alone"
		args=""
		for q in $pre; do args="$args +$(winpath "$site/$q")"; done
		# shellcheck disable=SC2086
		after=$(probe $args "$p")
		[ "$after" = ok ] && ok || bad "$obj: after loading $pre first, LoadLibraryExW: $after";;
	*) bad "$obj: unknown verdict $how";;
	esac
done <"$tmp/plan"
[ $n -ge 3 ] && ok || bad "only $n objects were predicted"
done_counts
