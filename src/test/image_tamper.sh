#!/bin/sh
# image_tamper.sh - every kind of blob an image holds, in every layout, tampered one at a
# time: in the OCI layout (as a directory and as a tarball) and in docker save's two
# layouts (docker 25+, and the legacy one), each index, manifest, config and layer gets one
# change that keeps its size (a JSON document's members reordered, which keeps its meaning
# too, so only the digest can tell; a layer's one byte flipped). Each must end in exit 3
# with an error naming that blob; the untampered copy of each scans clean (status 0, no
# error), so that the tamper is the only difference.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/build/wheelscan}"
python3 - "$WS_BIN" <<'PY'
import hashlib, json, os, shutil, subprocess, sys, tarfile, tempfile
ws = sys.argv[1]
tmp = tempfile.mkdtemp()
npass = nfail = 0
def check(cond, what):
    global npass, nfail
    if cond:
        npass += 1
    else:
        nfail += 1
        print("FAIL: " + what)

def scan(path):
    p = subprocess.run([ws, "--no-progress", "--gpu", "sm_90", path], capture_output=True, text=True)
    return p.returncode, p.stderr

def blobs_oci(root):
    """(member, kind) of every blob the index reaches, nested indexes included"""
    out, todo = [], [("index.json", json.load(open(os.path.join(root, "index.json"))))]
    while todo:
        _, doc = todo.pop()
        for d in doc.get("manifests", []):
            m = "blobs/sha256/" + d["digest"][7:]
            sub = json.load(open(os.path.join(root, m)))
            if "manifests" in sub:
                out.append((m, "index")); todo.append((m, sub))
            else:
                out.append((m, "manifest"))
                out.append(("blobs/sha256/" + sub["config"]["digest"][7:], "config"))
                out += [("blobs/sha256/" + l["digest"][7:], "layer") for l in sub["layers"]]
    return sorted(set(out))

def blobs_legacy(root):
    out = []
    for e in json.load(open(os.path.join(root, "manifest.json"))):
        out.append((e["Config"], "config"))
        out += [(l, "layer") for l in e["Layers"]]
    return out

def tamper(path, kind):
    b = open(path, "rb").read()
    if kind == "layer":
        i = len(b) // 2
        new = b[:i] + bytes([b[i] ^ 0x01]) + b[i + 1:]
    else:
        doc = json.loads(b)
        assert json.dumps(doc, separators=(",", ":")).encode() == b, "%s is not compact JSON" % path
        new = json.dumps(dict(reversed(list(doc.items()))), separators=(",", ":")).encode()
        assert new != b, "%s has one member only" % path
    assert len(new) == len(b)
    open(path, "wb").write(new)

def pack(root, out):
    """the directory back into a tarball, members in a stable order"""
    with tarfile.open(out, "w") as t:
        for dp, dns, fns in sorted(os.walk(root)):
            dns.sort()
            for f in sorted(fns):
                full = os.path.join(dp, f)
                t.add(full, arcname=os.path.relpath(full, root), recursive=False)

layouts = [("oci-layout", "dir", blobs_oci), ("oci-layout.tar", "tar", blobs_oci),
           ("docker-oci.tar", "tar", blobs_oci), ("docker-legacy.tar", "tar", blobs_legacy)]
kinds_seen = set()
for name, form, lister in layouts:
    src = os.path.join("testdata/images", name)
    base = os.path.join(tmp, name + ".d")
    if form == "dir":
        shutil.copytree(src, base)
    else:
        with tarfile.open(src) as t:
            t.extractall(base)
    blobs = lister(base)
    # the untampered copy, made the same way
    clean = os.path.join(tmp, name + ".clean" + (".tar" if form == "tar" else ""))
    if form == "tar":
        pack(base, clean)
    else:
        shutil.copytree(base, clean)
    rc, err = scan(clean)
    check(rc == 0 and "error" not in err.lower(), "%s untampered: exit %d, %s" % (name, rc, err[:300]))
    for member, kind in blobs:
        kinds_seen.add((name, kind))
        work = os.path.join(tmp, "w")
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base, work)
        tamper(os.path.join(work, member), kind)
        target = work
        if form == "tar":
            target = os.path.join(tmp, "w.tar")
            pack(work, target)
        rc, err = scan(target)
        named = member in err
        what = "%s: %s %s tampered" % (name, kind, member[:40])
        check(rc == 3, "%s: exit %d, not 3 (%s)" % (what, rc, err[:300]))
        check(named, "%s: no error names it: %s" % (what, err[:300]))
        if kind != "layer":    # the JSON still parses and means the same: only its digest tells
            check("sha256" in err, "%s: the error is not the digest's: %s" % (what, err[:300]))
for name, kinds in (("oci-layout", ("index", "manifest", "config", "layer")),
                    ("oci-layout.tar", ("index", "manifest", "config", "layer")),
                    ("docker-oci.tar", ("manifest", "config", "layer")),
                    ("docker-legacy.tar", ("config", "layer"))):
    for k in kinds:
        check((name, k) in kinds_seen, "%s: no %s blob found to tamper with" % (name, k))

# One message per blob (issue 40: a self-referencing index printed 31 identical lines): an
# index blob whose bytes do not hash to its name, naming itself twice, is not followed; and
# a good index naming one manifest 8 times with a wrong size says so once.
IDX = "application/vnd.oci.image.index.v1+json"
def layout(path, blobs, top):
    os.makedirs(os.path.join(path, "blobs", "sha256"))
    for hx, body in blobs.items():
        open(os.path.join(path, "blobs", "sha256", hx), "wb").write(body)
    open(os.path.join(path, "oci-layout"), "w").write('{"imageLayoutVersion":"1.0.0"}')
    open(os.path.join(path, "index.json"), "w").write(json.dumps({"schemaVersion": 2, "mediaType": IDX, "manifests": top}))
x = "ab" * 32
selfref = json.dumps({"schemaVersion": 2, "mediaType": IDX,
                      "manifests": [{"mediaType": IDX, "digest": "sha256:" + x, "size": 1}] * 2}).encode()
layout(os.path.join(tmp, "selfref"), {x: selfref}, [{"mediaType": IDX, "digest": "sha256:" + x, "size": len(selfref)}])
rc, err = scan(os.path.join(tmp, "selfref"))
lines = [l for l in err.splitlines() if x in l]
check(rc == 3 and len(lines) == 1 and "its name gives" in lines[0],
      "self-referencing index: exit %d, %d lines about its blob (want 1): %s" % (rc, len(lines), err[:600]))
man = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json"}).encode()
mh = hashlib.sha256(man).hexdigest()
fan = json.dumps({"schemaVersion": 2, "mediaType": IDX, "manifests":
                  [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + mh, "size": 7}] * 8}).encode()
fh = hashlib.sha256(fan).hexdigest()
layout(os.path.join(tmp, "fan"), {mh: man, fh: fan}, [{"mediaType": IDX, "digest": "sha256:" + fh, "size": len(fan)}] * 4)
rc, err = scan(os.path.join(tmp, "fan"))
lines = [l for l in err.splitlines() if mh in l and "bytes, not the 7" in l]
check(rc == 3 and len(lines) == 1, "a manifest named 32 times with a wrong size: exit %d, %d lines (want 1): %s"
      % (rc, len(lines), err[:600]))
shutil.rmtree(tmp)
print("%d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
