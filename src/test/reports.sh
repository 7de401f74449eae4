#!/bin/sh
# reports.sh - reports say only what is true: a renamed vendored library is the same library
# (--baseline), a bare --python names its interpreter, RECORD "ok" only over members hashed,
# PTX found behind licence headers, the environment summary, integrity of installed files,
# CPU-only builds, symlinks out of a tree, two roots in one store, an image's final filesystem.
# Every input is built here in a temporary directory from the fixtures.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
FX=$PWD/testdata/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
W() { "$WS_BIN" --no-progress "$@"; }

# --baseline: auditwheel's "libfoo-HASH8.so.N" and torch's "libfoo.HASH8.so.N" renames of one
# library are matched by the name without the hash; a different library is not
mkdir -p "$tmp/b/old/pkg.libs" "$tmp/b/new/pkg.libs" "$tmp/b/other/pkg.libs"
cp "$FX/multi.so" "$tmp/b/old/pkg.libs/libnvjpeg.02b6d700.so.12"
cp "$FX/multi.so" "$tmp/b/new/pkg.libs/libnvjpeg-8dd2b5e6.so.12"
cp "$FX/multi.so" "$tmp/b/other/pkg.libs/libnvjpog-8dd2b5e6.so.12"
out=$(W --baseline "$tmp/b/old" --no-regress "$tmp/b/new" 2>&1); rc=$?
[ $rc -eq 0 ] && ok || bad "--baseline over a renamed vendored library: exit $rc: $out"
printf '%s\n' "$out" | grep -q '^no regression: 0 architectures dropped, 0 objects' && ok || bad "renamed library: $out"
W --json --baseline "$tmp/b/old" "$tmp/b/new" | grep -q '"key":"pkg.libs/libnvjpeg-8dd2b5e6.so.12","baseline_key":"pkg.libs/libnvjpeg.02b6d700.so.12","state":"same"' \
	&& ok || bad "--baseline JSON lacks baseline_key"
out=$(W --baseline "$tmp/b/old" --no-regress "$tmp/b/other" 2>&1); rc=$?
[ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q 'object with device code dropped' && ok || bad "another library matched a renamed one: exit $rc: $out"
# RECORD "ok" only when every row with a hash was hashed: a total limit that stops the walk
# leaves rows unread, which is "incomplete: N of M", JSON ok false with not_read
out=$(W -j1 --max-total-size=40K "$FX/example.whl" 2>/dev/null); rc=$?
[ $rc -eq 3 ] && ok || bad "--max-total-size=40K example.whl: exit $rc"
printf '%s\n' "$out" | grep -q 'RECORD  ok' && bad "RECORD ok over unread members: $out" || ok
printf '%s\n' "$out" | grep -q '^  RECORD  incomplete: [1-9][0-9]* of 5 members not read$' && ok || bad "RECORD incomplete line: $out"
W -j1 --json --max-total-size=40K "$FX/example.whl" 2>/dev/null >"$tmp/rec.json"
python3 - "$tmp/rec.json" <<'PY' && ok || bad "RECORD JSON over unread members: $(head -c 400 "$tmp/rec.json")"
import json, sys
r = json.load(open(sys.argv[1]))["artifacts"][0]["record"]
sys.exit(0 if r["ok"] is False and r["not_read"] >= 1 and r["hashed_rows"] == 5 else 1)
PY
# a wheel's RECORD row without a hash (PEP 427: only RECORD may lack one) checks nothing
python3 - "$FX/multi.so" "$tmp/nohash-1.0-py3-none-any.whl" <<'PY'
import base64, hashlib, sys, zipfile
d = open(sys.argv[1], "rb").read()
z = zipfile.ZipFile(sys.argv[2], "w")
meta = b"Metadata-Version: 2.1\nName: nohash\nVersion: 1.0\n"
wheel = b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n"
def row(n, b):
    return "%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode(), len(b))
z.writestr("nohash/lib.so", d)
z.writestr("nohash-1.0.dist-info/METADATA", meta)
z.writestr("nohash-1.0.dist-info/WHEEL", wheel)
z.writestr("nohash-1.0.dist-info/RECORD", "nohash/lib.so,,\n" + row("nohash-1.0.dist-info/METADATA", meta) +
           row("nohash-1.0.dist-info/WHEEL", wheel) + "nohash-1.0.dist-info/RECORD,,\n")
z.close()
PY
out=$(W "$tmp/nohash-1.0-py3-none-any.whl" 2>&1)
printf '%s\n' "$out" | grep -q '^  RECORD  incomplete: 1 listed without a hash$' && printf '%s\n' "$out" | grep -q '^          no hash: nohash/lib.so$' \
	&& ok || bad "a RECORD row without a hash: $out"
W --json "$tmp/nohash-1.0-py3-none-any.whl" | python3 -c 'import json,sys; r=json.load(sys.stdin)["artifacts"][0]["record"]; sys.exit(0 if not r["ok"] and r["unhashed"] == ["nohash/lib.so"] else 1)' \
	&& ok || bad "a RECORD row without a hash in JSON"
# read whole, the same wheel is ok, with nothing unread
W --json "$FX/example.whl" | python3 -c 'import json,sys; r=json.load(sys.stdin)["artifacts"][0]["record"]; sys.exit(0 if r["ok"] and r["not_read"] == 0 else 1)' \
	&& ok || bad "example.whl RECORD not ok read whole"

# an installed distribution (built here) and its RECORD
mkenv() {   # mkenv DIR: DIR/site with pkg 1.0 (pkg/x.so, pkg/y.so: multi.so) and its RECORD
	mkdir -p "$1/site/pkg-1.0.dist-info" "$1/site/pkg"
	cp "$FX/multi.so" "$1/site/pkg/x.so"; cp "$FX/multi.so" "$1/site/pkg/y.so"
	printf 'Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n' >"$1/site/pkg-1.0.dist-info/METADATA"
	python3 - "$1/site" <<'PY'
import base64, hashlib, sys
site = sys.argv[1]
rows = []
for f in ("pkg/x.so", "pkg/y.so"):
    d = open(site + "/" + f, "rb").read()
    h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    rows.append("%s,sha256=%s,%d" % (f, h, len(d)))
rows.append("pkg-1.0.dist-info/METADATA,,")
rows.append("pkg-1.0.dist-info/RECORD,,")
open(site + "/pkg-1.0.dist-info/RECORD", "w").write("\n".join(rows) + "\n")
PY
}
# a RECORD row whose file cannot be opened (mode 000, as a user other than root) is not "ok"
mkenv "$tmp/e1"; chmod -R a+rX "$tmp"; chmod 000 "$tmp/e1/site/pkg/y.so"
asuser=""
if [ "$(id -u)" = 0 ]; then command -v setpriv >/dev/null && asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"; fi
if [ "$(id -u)" != 0 ] || [ -n "$asuser" ]; then
	out=$($asuser "${WS_BIN_REAL:-$WS_BIN}" --no-progress -r "$tmp/e1/site" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -q 'RECORD  incomplete: 1 of 2 installed files not read' && ok || bad "unopenable RECORD row: exit $rc: $out"
	printf '%s\n' "$out" | grep -q 'RECORD  ok' && bad "RECORD ok over an unopenable file: $out" || ok
	# nothing of the package read: the environment's claim is over the packages read only
	chmod 000 "$tmp/e1/site/pkg/x.so"
	out=$($asuser "${WS_BIN_REAL:-$WS_BIN}" --no-progress --gpu sm_90 -r "$tmp/e1/site" 2>&1)
	printf '%s\n' "$out" | grep -q '^environment: of the packages read, no installed package has CUDA device code (1 not judged: see the errors)$' \
		&& ok || bad "environment summary over an unread package: $out"
	chmod 644 "$tmp/e1/site/pkg/x.so"
fi
chmod 644 "$tmp/e1/site/pkg/y.so"

# an installed file changed since it was installed (a patched CA bundle) was read: it is
# judged, listed once as mismatched, and neither an error nor "not judged"
mkenv "$tmp/e3"; mkdir -p "$tmp/e3/site/certifi-1.0.dist-info" "$tmp/e3/site/certifi"
printf 'original\n' >"$tmp/e3/site/certifi/cacert.pem"
printf 'Metadata-Version: 2.1\nName: certifi\nVersion: 1.0\n' >"$tmp/e3/site/certifi-1.0.dist-info/METADATA"
python3 - "$tmp/e3/site" <<'PY'
import base64, hashlib, sys
site = sys.argv[1]
d = open(site + "/certifi/cacert.pem", "rb").read()
h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
open(site + "/certifi-1.0.dist-info/RECORD", "w").write("certifi/cacert.pem,sha256=%s,%d\ncertifi-1.0.dist-info/RECORD,,\n" % (h, len(d)))
PY
printf 'a local CA\n' >>"$tmp/e3/site/certifi/cacert.pem"
printf 'X' | dd of="$tmp/e3/site/pkg/y.so" bs=1 seek=200 conv=notrunc 2>/dev/null
out=$(W --gpu sm_90 -r "$tmp/e3/site" 2>"$tmp/e3.err"); rc=$?
[ $rc -eq 0 ] && ok || bad "patched installed files: exit $rc: $out $(cat "$tmp/e3.err")"
[ -s "$tmp/e3.err" ] && bad "patched installed files: stderr $(cat "$tmp/e3.err")" || ok
printf '%s\n' "$out" | grep -q 'not judged' && bad "patched cacert.pem: not judged: $out" || ok
[ "$(printf '%s\n' "$out" | grep -c 'mismatched: certifi/cacert.pem')" = 1 ] && ok || bad "cacert.pem not listed once: $out"
[ "$(printf '%s\n' "$out" | grep -c 'mismatched: pkg/y.so')" = 1 ] && ok || bad "y.so not listed once: $out"
W --json --gpu sm_90 -r "$tmp/e3/site" | python3 -c '
import json, sys
arts = {a["path"].split("/")[-1]: a for a in json.load(sys.stdin)["artifacts"]}
c, p = arts["certifi-1.0.dist-info"], arts["pkg-1.0.dist-info"]
ok = (c["record"]["mismatched"] == ["certifi/cacert.pem"] and not c["errors"] and not c["record"]["ok"]
      and p["record"]["mismatched"] == ["pkg/y.so"] and p["verdicts"]["sm_90"] == "native")
sys.exit(0 if ok else 1)' && ok || bad "patched installed files in JSON"
# a wheel member whose hash and size both differ from RECORD: one error line, exit 3
python3 - "$FX/multi.so" "$tmp/bad-1.0-py3-none-any.whl" <<'PY'
import sys, zipfile
d = open(sys.argv[1], "rb").read()
z = zipfile.ZipFile(sys.argv[2], "w")
z.writestr("bad/lib.so", d)
z.writestr("bad-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n")
z.writestr("bad-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: bad\nVersion: 1.0\n")
z.writestr("bad-1.0.dist-info/RECORD", "bad/lib.so,sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,%d\nbad-1.0.dist-info/WHEEL,,\nbad-1.0.dist-info/METADATA,,\nbad-1.0.dist-info/RECORD,,\n" % (len(d) + 1))
z.close()
PY
W --gpu sm_90 "$tmp/bad-1.0-py3-none-any.whl" >"$tmp/bad.out" 2>"$tmp/bad.err"; rc=$?
[ $rc -eq 3 ] && ok || bad "mismatched wheel member: exit $rc"
[ "$(grep -c 'bad/lib.so' "$tmp/bad.err")" = 1 ] && grep -q "RECORD hash and size mismatch for 'bad/lib.so'" "$tmp/bad.err" \
	&& ok || bad "mismatched wheel member: not one line: $(cat "$tmp/bad.err")"

# the environment summary: a loose extension at the top of site-packages that will not run
# is named, not covered by "every installed package ... runs natively"; and an environment
# with no device code at all does not claim that every package with device code runs
mkenv "$tmp/e4"; cp "$FX/old-only.so" "$tmp/e4/site/_top.cpython-311-x86_64-linux-gnu.so"
out=$(W --gpu sm_90 -r "$tmp/e4/site" 2>&1)
printf '%s\n' "$out" | grep -q 'every installed package' && bad "env summary over a loose extension that fails: $out" || ok
printf '%s\n' "$out" | sed -n '/^environment/,/^$/p' | grep -q '_top.cpython-311-x86_64-linux-gnu.so' && ok || bad "env summary does not name the loose extension: $out"
mkdir -p "$tmp/e5/site/p-1.0.dist-info" "$tmp/e5/site/p"; printf 'x = 1\n' >"$tmp/e5/site/p/__init__.py"
printf 'Metadata-Version: 2.1\nName: p\nVersion: 1.0\n' >"$tmp/e5/site/p-1.0.dist-info/METADATA"
printf 'p/__init__.py,,\np-1.0.dist-info/RECORD,,\n' >"$tmp/e5/site/p-1.0.dist-info/RECORD"
out=$(W --gpu sm_90 -r "$tmp/e5/site" 2>&1)
printf '%s\n' "$out" | grep -q '^environment: no installed package has CUDA device code$' && ok || bad "env summary without device code: $out"

# CPU-only builds of packages that have CUDA builds: PyPI's Windows torchvision (no device
# code), a +cpu local label; a package of neither kind stays "no CUDA device code found"
python3 - "$tmp" <<'PY'
import sys, zipfile
for fn, name, ver in (("torchvision-0.20.1-cp311-cp311-win_amd64.whl", "torchvision", "0.20.1"),
                      ("foo-1.0+cpu-py3-none-any.whl", "foo", "1.0+cpu"), ("bar-1.0-py3-none-any.whl", "bar", "1.0")):
    z = zipfile.ZipFile(sys.argv[1] + "/" + fn, "w")
    di = "%s-%s.dist-info/" % (name, ver)
    z.writestr(name + "/__init__.py", "x = 1\n")
    z.writestr(di + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n")
    z.writestr(di + "METADATA", "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver))
    z.writestr(di + "RECORD", name + "/__init__.py,,\n" + di + "WHEEL,,\n" + di + "METADATA,,\n" + di + "RECORD,,\n")
    z.close()
PY
out=$(W "$tmp/torchvision-0.20.1-cp311-cp311-win_amd64.whl" 2>&1)
printf '%s\n' "$out" | grep -q '^  CPU-only build of torchvision, a package with CUDA builds: no CUDA device code' && ok || bad "Windows torchvision: $out"
out=$(W "$tmp/foo-1.0+cpu-py3-none-any.whl" 2>&1)
printf '%s\n' "$out" | grep -q "CPU-only build of foo.*local label says cpu" && ok || bad "+cpu wheel: $out"
out=$(W "$tmp/bar-1.0-py3-none-any.whl" 2>&1)
printf '%s\n' "$out" | grep -q 'CPU-only' && bad "a plain wheel called CPU-only: $out" || ok
W --json "$tmp/torchvision-0.20.1-cp311-cp311-win_amd64.whl" "$tmp/bar-1.0-py3-none-any.whl" | python3 -c '
import json, sys
a = json.load(sys.stdin)["artifacts"]
sys.exit(0 if "cpu_only_build" in a[0] and "cpu_only_build" not in a[1] else 1)' && ok || bad "cpu_only_build in JSON"
# an installed CPU-only torch is shown (not counted away with the packages without code)
mkdir -p "$tmp/e6/site/torch-2.5.1+cpu.dist-info" "$tmp/e6/site/torch"; printf 'x = 1\n' >"$tmp/e6/site/torch/__init__.py"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cpu\n' >"$tmp/e6/site/torch-2.5.1+cpu.dist-info/METADATA"
printf 'torch/__init__.py,,\ntorch-2.5.1+cpu.dist-info/RECORD,,\n' >"$tmp/e6/site/torch-2.5.1+cpu.dist-info/RECORD"
out=$(W --gpu sm_90 -r "$tmp/e6/site" 2>&1)
printf '%s\n' "$out" | grep -q '^  CPU-only builds of packages with CUDA builds (no CUDA device code): torch 2.5.1+cpu$' && ok || bad "installed CPU-only torch: $out"

# two -r roots in one store: A/lib.so and B/lib.so are two rows, and a rescan changes nothing
mkdir -p "$tmp/db/A" "$tmp/db/B"; cp "$FX/multi.so" "$tmp/db/A/lib.so"; cp "$FX/old-only.so" "$tmp/db/B/lib.so"
(cd "$tmp/db" && for i in 1 2 3; do "$WS_BIN" --no-progress --gpu sm_90 -r A -r B --db s.db 2>&1 >/dev/null | grep 'store s.db'; done) >"$tmp/db/log"
[ "$(sed -n 1p "$tmp/db/log")" = "wheelscan: store s.db: 2 files read, 2 scanned, 0 from the store, 2 added, 0 changed, 0 removed" ] \
	&& ok || bad "two roots, first run: $(cat "$tmp/db/log")"
[ "$(sed -n 3p "$tmp/db/log")" = "wheelscan: store s.db: 0 files read, 0 scanned, 2 from the store, 0 added, 0 changed, 0 removed" ] \
	&& ok || bad "two roots, third run: $(cat "$tmp/db/log")"
# and each is reported with its own verdict from the store
out=$(cd "$tmp/db" && "$WS_BIN" --no-progress --gpu sm_90 -r A -r B --db s.db 2>/dev/null)
printf '%s\n' "$out" | grep -q 'native .*A/lib.so' && printf '%s\n' "$out" | grep -q 'no-image .*B/lib.so' && ok || bad "two roots from the store: $out"
# one root keeps its keys below the root (shards and other mount points agree)
(cd "$tmp/db" && "$WS_BIN" --no-progress -q --gpu sm_90 -r A --db one.db >/dev/null 2>&1)
python3 -c 'import sqlite3,sys; sys.exit(0 if sqlite3.connect(sys.argv[1]).execute("select path from artifact").fetchall() == [("lib.so",)] else 1)' \
	"$tmp/db/one.db" && ok || bad "one root: key is not the path below it"

# an image's superseded objects survive the store: the second run reads them from it
up=$PWD/testdata/images/upgraded-docker-oci.tar
for i in 1 2; do W --json --gpu sm_90 --db "$tmp/img.db" "$up" 2>"$tmp/img.err.$i" >"$tmp/img.$i.json"; done
grep -q '0 scanned, 1 from the store' "$tmp/img.err.2" && cmp -s "$tmp/img.1.json" "$tmp/img.2.json" \
	&& grep -q '"superseded":\["blobs/sha256/' "$tmp/img.2.json" && ok || bad "superseded from the store: $(cat "$tmp/img.err.2")"

# an image whose lower layer names its files "/usr/lib/x" and whose upper layer deletes
# "usr/lib/x": one path, so the old library is not judged (built with scripts/mkarchive.py)
python3 - "$FX" "$tmp/abs-image.tar" <<'PY'
import sys
sys.path.insert(0, "scripts")
import mkarchive as m
old = open(sys.argv[1] + "/old-only.so", "rb").read()
so = open(sys.argv[1] + "/multi.so", "rb").read()
base = m.tar_bytes([("/usr/lib/libold.so", old), ("/usr/lib/libmulti.so", so)])
top = m.tar_bytes([("usr/lib/.wh.libold.so", b"")])
open(sys.argv[2], "wb").write(m.tar_bytes(m.docker_legacy_members([base, top], ["wscan:abs"])))
PY
out=$(W --gpu sm_90 "$tmp/abs-image.tar" 2>&1); rc=$?
# (an absolute member name is an error of its own, exit 3; the verdict is the final filesystem's)
[ $rc -eq 3 ] && printf '%s\n' "$out" | grep -q 'superseded 1 object ' && printf '%s\n' "$out" | grep -q 'sm_90: runs: native SASS' \
	&& ok || bad "absolute layer paths: exit $rc: $out"

# a link in a tree to a file out of it is read under the sandbox (Landlock reads beneath the
# inputs only: the target is allowed before the sandbox is entered)
landlock=$("$WS_BIN" --env 2>/dev/null | sed -n 's/^ *landlock: //p')
mkdir -p "$tmp/tree" "$tmp/away"; cp "$FX/multi.so" "$tmp/away/lib.so"; ln -s "$tmp/away/lib.so" "$tmp/tree/link.so"
out=$(W --gpu sm_90 -r "$tmp/tree" 2>&1); rc=$?
[ $rc -eq 0 ] && ok || bad "link out of the tree: exit $rc (Landlock: $landlock): $out"
printf '%s\n' "$out" | grep -q 'Permission denied' && bad "link out of the tree: $out" || ok
# and inside an installed environment: RECORD's file is a link to a shared store
mkenv "$tmp/e2"; mv "$tmp/e2/site/pkg/y.so" "$tmp/away/y.so"; ln -s "$tmp/away/y.so" "$tmp/e2/site/pkg/y.so"
out=$(W --gpu sm_90 -r "$tmp/e2/site" 2>&1); rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q 'RECORD  ok' && ok || bad "installed link out of the tree: exit $rc: $out"

# PTX behind a UTF-8 comment, a byte order mark, or a licence header longer than the 4 KiB
# the sniff sees, is PTX (alone and in a zip); text that only looks so at first is not
mkdir -p "$tmp/ptx"; P=$FX/k_sm90.ptx
{ printf '// Copyright \302\251 2025 Someone\n'; cat "$P"; } >"$tmp/ptx/copyright.ptx"
{ printf '\357\273\277'; cat "$P"; } >"$tmp/ptx/bom.ptx"
python3 - "$P" "$tmp/ptx" <<'PY'
import sys, zipfile
lic = "".join("// Licensed under the Apache License, Version 2.0; line %03d of a long header\n" % i for i in range(90))
ptx = open(sys.argv[1]).read()
d = sys.argv[2]
open(d + "/long.ptx", "w").write(lic + ptx)
open(d + "/block.ptx", "w").write("/*\n" + lic.replace("// ", "   ") + "*/\n" + ptx)
# not PTX: a header with the same licence, then code (directive-like words later on)
open(d + "/header.h", "w").write(lic + "#include <stdio.h>\nint f(void);\n.version 9.0\n.target sm_90\n")
open(d + "/notes.txt", "w").write("Caf\u00e9 \u00a9 notes\nthe .version and .target words\n")
open(d + "/latin1.ptx", "wb").write(b"// Copyright \xa9 2025\n" + ptx.encode())
z = zipfile.ZipFile(d + "/k.zip", "w")
for f in ("long.ptx", "header.h", "copyright.ptx"):
    z.write(d + "/" + f, "k/" + f)
z.close()
PY
for f in copyright bom long block latin1; do
	W --json --gpu sm_90 --require sm_90 "$tmp/ptx/$f.ptx" >"$tmp/ptx.json" 2>&1; rc=$?
	python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["artifacts"][0]; sys.exit(0 if a["type"] == "ptx" and a["objects"][0]["kernels"] == 3 else 1)' \
		"$tmp/ptx.json" 2>/dev/null && ok || bad "$f.ptx is not read as PTX (exit $rc): $(head -c 300 "$tmp/ptx.json")"
done
for f in header.h notes.txt; do
	out=$(W --json "$tmp/ptx/$f" 2>&1)
	printf '%s' "$out" | grep -q '"type":"other"' && printf '%s' "$out" | grep -q '"objects":\[\]' && ok || bad "$f taken for PTX: $(printf '%s' "$out" | head -c 300)"
done
W --json --gpu sm_90 "$tmp/ptx/k.zip" | python3 -c '
import json, sys
a = json.load(sys.stdin)["artifacts"][0]
got = sorted((o["member"], o["type"]) for o in a["objects"])
sys.exit(0 if got == [("k/copyright.ptx", "ptx"), ("k/long.ptx", "ptx")] else 1)' && ok || bad "PTX members of a zip"

# an installed package linked in from a shared store (site-packages/pkg -> the store): the
# files its RECORD lists beneath the link are read under the sandbox too
mkenv "$tmp/e7"; mkdir -p "$tmp/away/store"; mv "$tmp/e7/site/pkg" "$tmp/away/store/pkg"; ln -s "$tmp/away/store/pkg" "$tmp/e7/site/pkg"
out=$(W --gpu sm_90 -r "$tmp/e7/site" 2>&1); rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q 'RECORD  ok' && ok || bad "package linked from a store: exit $rc: $out"

# the real case: torchvision 0.20.1 -> 0.23.0 (scripts/fetch-corpus), where the vendored
# libnvjpeg was renamed; it is one object that changed, not one dropped and one added
tv20=corpus/torchvision-0.20.1-cp311-cp311-manylinux1_x86_64.whl tv23=corpus/torchvision-0.23.0-cp311-cp311-manylinux_2_28_x86_64.whl
if [ -f "$tv20" ] && [ -f "$tv23" ]; then
	out=$(W --baseline "$tv20" "$tv23" 2>&1)
	printf '%s\n' "$out" | grep -q '^  changed  torchvision.libs/libnvjpeg.8dd2b5e6.so.12 (was torchvision.libs/libnvjpeg.02b6d700.so.12)$' \
		&& ok || bad "torchvision baseline: $out"
	printf '%s\n' "$out" | grep -q 'dropped *torchvision.libs' && bad "torchvision baseline drops a vendored library: $out" || ok
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
