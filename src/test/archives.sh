#!/bin/sh
# archives.sh - tarballs (plain, gzip, bzip2, xz, zstd; GNU and pax), Debian and conda
# packages and a tarball inside a tarball (testdata/archives/, written by
# scripts/mkarchive.py): each object inside is decoded exactly as the same object scanned
# alone (containers, entries, kernels, roles, verdicts), named by its path inside
# ("usr/lib/libk.a(k_g5.o)", "dist/example.whl!wscan_example/lib/libmulti.so", a compressed
# "libmulti.so.gz" as its member); conda
# packages report their name and version; standard input streams a tarball and a .deb.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1
FX=testdata/fixtures A=testdata/archives
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
G=sm_75,sm_80,sm_90,sm_100,sm_120
# a hard link that carries data (a pax size): an extractor writes those bytes to the
# target, so they are read like a file's
python3 - "$tmp/hl.tar" $FX/sm_90.cubin <<'PY'
import io, sys, tarfile
data = open(sys.argv[2], "rb").read()
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    a = tarfile.TarInfo("a.txt"); a.size = 3; t.addfile(a, io.BytesIO(b"abc"))
    h = tarfile.TarInfo("k.cubin"); h.type = tarfile.LNKTYPE; h.linkname = "a.txt"; h.size = len(data)
    h.pax_headers = {"size": str(len(data))}
    t.addfile(h, io.BytesIO(data))
PY
"$WS_BIN" --json --no-progress --gpu $G $FX/multi.so $FX/libk.a $FX/example.whl $FX/sm_90.cubin "$tmp/hl.tar" \
	$A/pkg.tar $A/pkg.tar.gz $A/pkg.tar.bz2 $A/pkg.tar.xz $A/pkg.tar.zst $A/pkg-pax.tgz $A/nested.tar \
	$A/wscan-cuda_1.0_amd64.deb $A/wscan-cuda_1.0_amd64-zst.deb \
	$A/wscan-cuda-1.0-cuda_0.conda $A/wscan-cuda-1.0-cuda_0.tar.bz2 >"$tmp/j" 2>"$tmp/e"
echo $? >"$tmp/rc"
"$WS_BIN" --json --no-progress --gpu $G - <$A/pkg.tar.zst >"$tmp/stdin-tar" 2>>"$tmp/e"
"$WS_BIN" --json --no-progress --gpu $G - <$A/wscan-cuda_1.0_amd64.deb >"$tmp/stdin-deb" 2>>"$tmp/e"
# a .deb that dpkg refuses: no debian-binary, data.tar before control.tar, a control.tar again
# after data.tar (made from the good one's own members with ar); each is an error naming why
if command -v ar >/dev/null; then
	mkdir "$tmp/deb" && (cd "$tmp/deb" && ar x "$OLDPWD/$A/wscan-cuda_1.0_amd64.deb" &&
		ar rcD nobin.deb control.tar.gz data.tar.xz && ar rcD late.deb debian-binary data.tar.xz control.tar.gz &&
		ar qcD twice.deb debian-binary control.tar.gz data.tar.xz control.tar.gz)
	for d in nobin late twice; do
		"$WS_BIN" --json --no-progress --gpu $G "$tmp/deb/$d.deb" >"$tmp/bad-$d" 2>"$tmp/bad-$d.err"
		echo $? >"$tmp/bad-$d.rc"
	done
fi
python3 - "$tmp" "$(cat "$tmp/rc")" <<'PY'
import json, os, sys
sys.path.insert(0, "src/test")
from objview import artifacts, check, finish, objs, view
tmp, rc = sys.argv[1], int(sys.argv[2])
arts = artifacts(tmp + "/j")
check(rc == 1 and open(tmp + "/e").read() == "", "exit %d, expected 1 (libk.a lacks sm_120), no stderr: %s" % (rc, open(tmp + "/e").read()[:300]))
so = view(arts["multi.so"]["objects"][0])
ar = {o["member"].split("(")[1]: view(o) for o in arts["libk.a"]["objects"]}
whl = objs(arts["example.whl"])
check(len(ar) == 2 and len(whl) == 2, "the objects alone: %d in libk.a, %d in example.whl" % (len(ar), len(whl)))
def tar_expect(prefix=""):
    e = {prefix + "usr/lib/libmulti.so": so}
    e.update({prefix + "usr/lib/libk.a(" + k: v for k, v in ar.items()})
    e.update({prefix + "dist/example.whl!" + k: v for k, v in whl.items()})
    return e
for name in ("pkg.tar", "pkg.tar.gz", "pkg.tar.bz2", "pkg.tar.xz", "pkg.tar.zst", "pkg-pax.tgz"):
    a = arts[name]
    check(a["type"] == "tar", "%s: type %s" % (name, a["type"]))
    check(objs(a) == tar_expect(), "%s: objects %s read as the objects alone" % (name, sorted(objs(a))))
    check(a["errors"] == [], "%s: errors %s" % (name, a["errors"]))
    check(len(a["sha256"]) == 64, "%s: the file's sha256" % name)
import hashlib
for name in ("pkg.tar", "pkg.tar.zst"):
    want = hashlib.sha256(open("testdata/archives/" + name, "rb").read()).hexdigest()
    check(arts[name]["sha256"] == want, "%s: sha256 is the file's" % name)
check(objs(arts["nested.tar"]) == {"inner.tar.gz!usr/lib/libmulti.so": so, "libmulti.so.gz": so},
      "nested.tar: %s" % sorted(objs(arts["nested.tar"])))
for name in ("wscan-cuda_1.0_amd64.deb", "wscan-cuda_1.0_amd64-zst.deb"):
    a = arts[name]
    check(a["type"] == "deb" and a["errors"] == [], "%s: type %s, errors %s" % (name, a["type"], a["errors"]))
    check(objs(a) == {"usr/lib/x86_64-linux-gnu/libmulti.so": so}, "%s: objects %s" % (name, sorted(objs(a))))
for name in ("wscan-cuda-1.0-cuda_0.conda", "wscan-cuda-1.0-cuda_0.tar.bz2"):
    a = arts[name]
    check(a["type"] == "conda" and a["errors"] == [], "%s: type %s, errors %s" % (name, a["type"], a["errors"]))
    check((a["wheel"] or {}).get("name") == "wscan-cuda" and a["wheel"]["version"] == "1.0",
          "%s: name and version from info/index.json: %s" % (name, a["wheel"]))
    e = {"lib/libmulti.so": so}
    e.update({"lib/libk.a(" + k: v for k, v in ar.items()})
    check(objs(a) == e, "%s: objects %s" % (name, sorted(objs(a))))
check(objs(arts["hl.tar"]) == {"k.cubin": view(arts["sm_90.cubin"]["objects"][0])},
      "a hard link with data is read: %s" % sorted(objs(arts["hl.tar"])))
for f, name, typ in (("stdin-tar", "pkg.tar.zst", "tar"), ("stdin-deb", "wscan-cuda_1.0_amd64.deb", "deb")):
    s = json.load(open(tmp + "/" + f))["artifacts"][0]
    check(s["path"] == "-" and s["type"] == typ, "%s: path %s type %s" % (f, s["path"], s["type"]))
    check(objs(s) == objs(arts[name]), "%s: read as the file is" % f)
    check(s["sha256"] == arts[name]["sha256"] and s["size"] == arts[name]["size"], "%s: sha256 and size" % f)
if os.path.exists(tmp + "/bad-nobin.rc"):
    for d, why in (("nobin", "not a Debian package: no debian-binary member"),
                   ("late", "not a valid Debian package: 'data.tar.xz' comes before control.tar"),
                   ("twice", "not a valid Debian package: 'control.tar.gz' comes after data.tar")):
        rc_d = int(open(tmp + "/bad-%s.rc" % d).read())
        err = open(tmp + "/bad-%s.err" % d).read()
        a = json.load(open(tmp + "/bad-" + d))["artifacts"][0]
        check(rc_d == 3 and why in err, "%s.deb: exit %d, stderr %s" % (d, rc_d, err[:300]))
        check(a["type"] == "deb" and any(why in e.get("message", "") for e in a["errors"]),
              "%s.deb: type %s, errors %s" % (d, a["type"], a["errors"]))
else:
    print("skipped: the malformed .deb files (no ar)")
finish()
PY
