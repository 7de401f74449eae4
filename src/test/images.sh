#!/bin/sh
# images.sh - container images (testdata/images/, written by scripts/mkarchive.py --images):
# docker save archives (legacy <id>/layer.tar, docker 25+ OCI blobs with manifest.json
# written last) and an OCI image layout as a tarball and as a directory, with gzip and
# zstd layers. Each object in a layer reads exactly as the same object alone; objects are
# named "<layer member>!<path in the layer>" (a wheel in a layer is read, one level
# below it); images list their names, manifest, config and layers with digests that
# match the bytes; -r on a tree holding a layout scans it as one image, not loose files;
# a layout read from standard input as a tarball is the same image.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1
FX=testdata/fixtures I=testdata/images
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
G=sm_75,sm_80,sm_90,sm_100,sm_120
"$WS_BIN" --json --no-progress --gpu $G $FX/multi.so $FX/libk.a $FX/example.whl \
	$I/docker-legacy.tar $I/docker-oci.tar $I/oci-layout.tar $I/oci-layout >"$tmp/j" 2>"$tmp/e"
echo $? >"$tmp/rc"
mkdir -p "$tmp/tree/sub" && cp -r $I/oci-layout "$tmp/tree/sub/img" && cp $FX/multi.so "$tmp/tree/"
"$WS_BIN" --json --no-progress --gpu $G -r "$tmp/tree" >"$tmp/tree.json" 2>>"$tmp/e"
"$WS_BIN" --json --no-progress --gpu $G - <$I/oci-layout.tar >"$tmp/stdin.json" 2>>"$tmp/e"
"$WS_BIN" --no-progress --gpu $G $I/docker-oci.tar >"$tmp/text" 2>>"$tmp/e"
# a layout whose layer is a symbolic link (to the same bytes): never followed, so missing
cp -r $I/oci-layout "$tmp/linked"
big=$(ls -S "$tmp/linked/blobs/sha256" | head -n 1)
mv "$tmp/linked/blobs/sha256/$big" "$tmp/outside" && ln -s "$tmp/outside" "$tmp/linked/blobs/sha256/$big"
"$WS_BIN" --no-progress --gpu $G "$tmp/linked" >/dev/null 2>"$tmp/linked.err"
echo $? >"$tmp/linked.rc"
# an upgrade in a later layer (scripts/mkarchive.py upgraded_layers): the image is judged on
# its final filesystem; what the top layer replaced or deleted is listed as superseded
U="$I/upgraded-docker-legacy.tar $I/upgraded-docker-oci.tar $I/upgraded-oci-layout"
"$WS_BIN" --json --no-progress --gpu sm_90 $U >"$tmp/up.json" 2>>"$tmp/e"; echo $? >"$tmp/up.rc"
"$WS_BIN" -v --no-progress --gpu sm_90 $I/upgraded-oci-layout >"$tmp/up.text" 2>>"$tmp/e"
python3 - "$tmp" "$(cat "$tmp/rc")" <<'PY'
import hashlib, json, os, sys
sys.path.insert(0, "src/test")
from objview import artifacts, check, finish, objs, view
tmp, rc = sys.argv[1], int(sys.argv[2])
arts = artifacts(tmp + "/j")
err = open(tmp + "/e").read()
check(rc == 1 and err == "", "exit %d, expected 1 (libk.a lacks sm_120), no stderr: %s" % (rc, err[:300]))
so = view(arts["multi.so"]["objects"][0])
ar = {o["member"].split("(")[1]: view(o) for o in arts["libk.a"]["objects"]}
whl = objs(arts["example.whl"])
def expect(base, top):
    e = {base + "!usr/lib/libmulti.so": so}
    e.update({top + "!usr/lib/libk.a(" + k: v for k, v in ar.items()})
    e.update({top + "!opt/wheels/example.whl!" + k: v for k, v in whl.items()})
    return e
def blob_digest(root, member):
    return "sha256:" + hashlib.sha256(open(os.path.join(root, member), "rb").read()).hexdigest()
for name, names, manifest in (("docker-legacy.tar", ["wscan:legacy"], False),
                              ("docker-oci.tar", ["docker.io/library/wscan:25", "wscan:25"], True),
                              ("oci-layout.tar", ["wscan:oci"], True), ("oci-layout", ["wscan:oci"], True)):
    a = arts[name]
    check(a["type"] == "image" and a["errors"] == [], "%s: type %s, errors %s" % (name, a["type"], a["errors"]))
    ims = a.get("images") or []
    check(len(ims) == 1, "%s: one image, not %d" % (name, len(ims)))
    if not ims:
        continue
    im = ims[0]
    check(im["names"] == names, "%s: names %s" % (name, im["names"]))
    check((im["manifest"] is not None) == manifest and im["config"] and im["config"].startswith("sha256:"),
          "%s: manifest %s config %s" % (name, im["manifest"], im["config"]))
    layers = im["layers"]
    check(len(layers) == 2, "%s: two layers: %s" % (name, layers))
    if len(layers) != 2:
        continue
    check(objs(a) == expect(layers[0]["member"], layers[1]["member"]),
          "%s: objects %s read as the objects alone, in the layer that holds them" % (name, sorted(objs(a))))
    for l in layers:
        if manifest:
            check(l["member"] == "blobs/sha256/" + l["digest"][7:], "%s: layer member %s is its digest" % (name, l["member"]))
        else:
            check(l["member"].endswith("/layer.tar"), "%s: legacy layer member %s" % (name, l["member"]))
    if name == "oci-layout":
        for l in layers:
            check(blob_digest("testdata/images/oci-layout", l["member"]) == l["digest"],
                  "%s: layer digest %s is the blob's sha256" % (name, l["digest"]))
            check(os.path.getsize(os.path.join("testdata/images/oci-layout", l["member"])) == l["size"], "%s: layer size" % name)
# the same layers in every OCI image: gzip base, zstd top; docker's are plain tars
check(arts["oci-layout.tar"]["images"] == arts["oci-layout"]["images"], "the layout as a tarball and as a directory agree")
check(arts["docker-legacy.tar"]["images"][0]["layers"][0]["digest"] == arts["docker-oci.tar"]["images"][0]["layers"][0]["digest"],
      "a plain tar layer has the same digest in both docker layouts")
check(arts["oci-layout"]["sha256"] is None and arts["oci-layout"]["size"] > 0, "a directory: no file digest, the bytes read")
t = json.load(open(tmp + "/tree.json"))["artifacts"]
paths = sorted(a["path"][len(tmp) + 6:] for a in t)
check(paths == ["multi.so", "sub/img"], "-r: the layout is one input, not loose files: %s" % paths)
img = [a for a in t if a["path"].endswith("sub/img")]
check(img and img[0]["type"] == "image" and objs(img[0]) == objs(arts["oci-layout"]), "-r: the layout reads as the image")
s = json.load(open(tmp + "/stdin.json"))["artifacts"][0]
check(s["type"] == "image" and s["images"] == arts["oci-layout.tar"]["images"] and objs(s) == objs(arts["oci-layout.tar"]),
      "standard input: the layout tarball is the same image")
text = open(tmp + "/text").read()
l0, l1 = [l["digest"][7:19] for l in arts["docker-oci.tar"]["images"][0]["layers"]]
check("  image   docker.io/library/wscan:25, wscan:25  manifest %s  layers 2: %s %s\n" % (
      arts["docker-oci.tar"]["images"][0]["manifest"][7:19], l0, l1) in text, "text: the image line: %s" % text[:400])
up = artifacts(tmp + "/up.json")
check(open(tmp + "/up.rc").read().strip() == "0", "the upgraded images: exit %s, not 0 (judged on the lower layer?)" % open(tmp + "/up.rc").read().strip())
for name in ("upgraded-docker-legacy.tar", "upgraded-docker-oci.tar", "upgraded-oci-layout"):
    a = up[name]
    base, top = [l["member"] for l in a["images"][0]["layers"]]
    check(a["errors"] == [] and a["verdicts"]["sm_90"] == "native", "%s: %s %s" % (name, a["verdicts"], a["errors"]))
    check(sorted(o["member"] for o in a["objects"]) == sorted([base + "!usr/lib/libmulti.so", top + "!usr/lib/libold.so"]),
          "%s: objects of the final filesystem: %s" % (name, [o["member"] for o in a["objects"]]))
    check(sorted(a.get("superseded", [])) == sorted(base + "!" + p for p in
          ("usr/lib/libold.so", "usr/lib/libgone.so", "opt/d/libx.so", "opt/e/liby.so", "opt/f.so")),
          "%s: superseded %s" % (name, a.get("superseded")))
# the images without an upgrade lose nothing
for name in ("docker-legacy.tar", "docker-oci.tar", "oci-layout.tar", "oci-layout"):
    check(arts[name].get("superseded") == [], "%s: superseded %s" % (name, arts[name].get("superseded")))
ut = open(tmp + "/up.text").read()
check("  superseded 5 objects that a later layer replaces or deletes: not judged\n" in ut and
      ut.count("          superseded: blobs/sha256/") == 5 and "!opt/d/libx.so\n" in ut, "text: superseded: %s" % ut[:600])
le = open(tmp + "/linked.err").read()
check(open(tmp + "/linked.rc").read().strip() == "3" and "is not in the archive" in le,
      "a layer that is a symbolic link is not followed: %s" % le[:300])
finish()
PY
