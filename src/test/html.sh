#!/bin/sh
# html.sh - --format html in a real browser: headless Chromium loads the page of the corpus
# mirror (no GPU named: every compute capability), of the fixtures for named GPUs, of a
# results store's report and of hostile names, and src/test/html_check.py holds the DOM
# it built against the JSON of the same inputs, cell by cell; the package filter hides
# exactly the other packages' rows; a wheel named <script> stays text; the page fetches
# nothing. The corpus screenshot is made by scripts/html-screenshot (doc/heatmap.png).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
browser=$(command -v chromium || command -v chromium-browser) || skip_all "chromium is missing (make deps-test)" yes
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
dom() {   # dom PAGE [HASH]: the DOM Chromium builds from the page, scripts run
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
		--dump-dom "file://$(realpath "$1")${2:-}" 2>/dev/null
}
page() {   # page NAME ARGS...: the page, its DOM, and the JSON of the same inputs, checked
	name=$1; shift
	"$WS_BIN" --no-progress --format html "$@" >"$tmp/$name.html" 2>/dev/null
	"$WS_BIN" --no-progress --json "$@" >"$tmp/$name.json" 2>/dev/null
	dom "$tmp/$name.html" >"$tmp/$name.dom"
	if python3 src/test/html_check.py "$tmp/$name.dom" "$tmp/$name.json" >"$tmp/$name.log" 2>&1; then
		ok "$name: $(tail -n 1 "$tmp/$name.log")"
	else
		bad "$name:"; tail -n 8 "$tmp/$name.log"
	fi
}
FX=testdata/fixtures
set -- corpus/*.whl corpus/*.deb
if [ -f "$1" ]; then
	page corpus "$@"
	# the filter: the page opened as #filter=torch hides every row but torch's and torchvision's
	dom "$tmp/corpus.html" '#filter=torch' >"$tmp/filtered.dom"
	python3 src/test/html_check.py "$tmp/filtered.dom" "$tmp/corpus.json" torch >"$tmp/f.log" 2>&1 &&
		ok "the package filter: $(tail -n 1 "$tmp/f.log")" || { bad "the package filter:"; tail -n 5 "$tmp/f.log"; }
	# the screenshot the README shows is made by the same browser, from the same inputs
	if WS_BIN="$WS_BIN" scripts/html-screenshot "$tmp/shot.png" && [ "$(head -c 8 "$tmp/shot.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then
		ok "scripts/html-screenshot makes a PNG of the corpus heatmap ($(wc -c <"$tmp/shot.png") bytes)"
	else
		bad "scripts/html-screenshot"
	fi
else
	echo "skipped: the corpus mirror (scripts/fetch-corpus)"
fi
page fixtures --gpu 'RTX 5090,H100,sm_75' $FX/*
# the check is not a rubber stamp: one cell's verdict changed in the DOM is caught
sed '0,/data-verdict="native"/s//data-verdict="jit"/' "$tmp/fixtures.dom" >"$tmp/x.dom"
if cmp -s "$tmp/x.dom" "$tmp/fixtures.dom" || python3 src/test/html_check.py "$tmp/x.dom" "$tmp/fixtures.json" >/dev/null 2>&1; then
	bad "html_check.py accepts a DOM with a cell changed"
else ok "html_check.py catches a changed cell"; fi
page env --gpu 'RTX 5090' -r testdata/env
page hostile -r testdata/hostile
# names: a wheel whose file name and METADATA are markup, and mknames.py's hostile names
mkdir -p "$tmp/n"
python3 - "$tmp/n" <<'PY'
import sys, zipfile
src = zipfile.ZipFile("testdata/fixtures/example.whl")
with zipfile.ZipFile(sys.argv[1] + "/<script>alert(1)-1.0-py3-none-any.whl", "w") as z:
    for i in src.infolist():
        data = src.read(i)
        if i.filename.endswith("METADATA"):
            data = data.replace(b"Name: wscan-example", b"Name: <img src=x onerror=alert(2)>")
        z.writestr(i, data)
PY
python3 scripts/mknames.py "$tmp/n/more" >/dev/null 2>&1
page names --no-verify --gpu sm_120 -r "$tmp/n"
# (html_check.py: one script in the DOM, no img; and here: both names are there as text)
python3 src/test/html_check.py "$tmp/names.dom" "$tmp/names.json" "" "<script>alert(1)-1.0-py3-none-any.whl" >"$tmp/t1.log" 2>&1 &&
python3 src/test/html_check.py "$tmp/names.dom" "$tmp/names.json" "" "<img src=x onerror=alert(2)>" >"$tmp/t2.log" 2>&1 &&
	ok "a wheel named <script> and a METADATA Name <img ...> stay text" ||
	{ bad "hostile names as text:"; tail -n 3 "$tmp/t1.log" "$tmp/t2.log"; }
# a results store's report, and the same page as a scan's
"$WS_BIN" --no-progress --db "$tmp/s.db" --gpu sm_90,sm_120 -r $FX >/dev/null 2>&1
"$WS_BIN" --no-progress --db "$tmp/s.db" --report --gpu sm_90,sm_120 --format html >"$tmp/db.html" 2>/dev/null
"$WS_BIN" --no-progress --db "$tmp/s.db" --report --gpu sm_90,sm_120 --json >"$tmp/db.json" 2>/dev/null
dom "$tmp/db.html" >"$tmp/db.dom"
python3 src/test/html_check.py "$tmp/db.dom" "$tmp/db.json" >"$tmp/db.log" 2>&1 &&
	ok "--db --report --format html: $(tail -n 1 "$tmp/db.log")" || { bad "--db --report --format html:"; tail -n 5 "$tmp/db.log"; }
# the gate's closing line, as in every format
"$WS_BIN" --no-progress --format html --require sm_120 testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl >"$tmp/gate.html" 2>/dev/null
dom "$tmp/gate.html" | grep -q '<p class="gate" id="gate" data-passed="false">gate: FAILED — 1 of 1 wheel, 1 finding</p>' &&
	ok "the gate line on the page" || bad "no gate line on the page"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
