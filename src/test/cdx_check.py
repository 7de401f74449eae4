#!/usr/bin/env python3
"""cdx_check.py [--schema-only] SCHEMA_DIR BOM [JSON] - the CycloneDX BOM wheelscan wrote (--format cyclonedx)
is valid against the official CycloneDX 1.6 JSON schema (scripts/fetch-cyclonedx-schema),
and says what the JSON report of the same run says: one component per artifact, its
SHA-256 and path, purl pkg:pypi/name@version for a wheel, cuda:sass and cuda:ptx the
architectures of its entries, cuda:verdict:<target> its verdicts. Prints failures and
"N passed, N failed"."""
import json
import re
import sys
import urllib.parse

from jsonschema import Draft7Validator
from referencing import Registry, Resource

schema_only = sys.argv[1] == "--schema-only"
if schema_only:
    del sys.argv[1]
schema_dir, bom_path = sys.argv[1:3]
json_path = None if schema_only else sys.argv[3]
base = "http://cyclonedx.org/schema/"
res = {}
for f in ("bom-1.6.SNAPSHOT.schema.json", "spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json"):
    doc = json.load(open(schema_dir + "/" + f, encoding="utf-8"))
    res[f] = doc
registry = Registry().with_resources(
    [(base + f, Resource.from_contents(d)) for f, d in res.items()] +
    [(d["$id"], Resource.from_contents(d)) for d in res.values() if "$id" in d])
schema = res["bom-1.6.SNAPSHOT.schema.json"]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


bom = json.load(open(bom_path, encoding="utf-8", errors="surrogateescape"))
errs = list(Draft7Validator(schema, registry=registry, format_checker=Draft7Validator.FORMAT_CHECKER).iter_errors(bom))
for e in errs[:5]:
    print("  at /%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:300]))
check(not errs, "%s: %d schema errors" % (bom_path, len(errs)))
check(bom["specVersion"] == "1.6" and bom["bomFormat"] == "CycloneDX", "specVersion 1.6")
if schema_only:
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
doc = json.load(open(json_path, encoding="utf-8", errors="surrogateescape"))
arts = doc["artifacts"]
comps = bom["components"]
check(len(comps) == len(arts), "%d components for %d artifacts" % (len(comps), len(arts)))
coverage = not doc["targets"]


def props(c, name):
    return [p["value"] for p in c.get("properties", []) if p["name"] == name]


def archs(a, kind):
    s = set()
    for o in a.get("objects", []):
        for f in o["fatbins"]:
            for e in f["entries"]:
                if e["kind"] == kind:
                    s.add(e["arch"])
    return s


for a, c in zip(arts, comps):
    p = a["path"]
    check(c["evidence"]["occurrences"][0]["location"] == p, "%r: location" % p)
    if a["sha256"]:
        check(c["hashes"] == [{"alg": "SHA-256", "content": a["sha256"]}], "%r: hash" % p)
    else:
        check("hashes" not in c, "%r: a hash for bytes not read" % p)
    w = a.get("wheel") or a.get("distribution")
    if w and w["name"] and w["version"]:
        name = re.sub(r"[-_.]+", "-", w["name"]).lower()
        want = "pkg:pypi/%s@%s" % (urllib.parse.quote(name, safe=""), urllib.parse.quote(w["version"], safe=""))
        check(c.get("purl") == want and c["name"] == w["name"] and c["version"] == w["version"],
              "%r: purl %r, not %r" % (p, c.get("purl"), want))
    sass = props(c, "cuda:sass")
    ptx = props(c, "cuda:ptx")
    check(len(sass) == 1 and set(filter(None, sass[0].split(","))) == archs(a, "sass"),
          "%r: cuda:sass %r, JSON %r" % (p, sass, sorted(archs(a, "sass"))))
    check(len(ptx) == 1 and set(filter(None, ptx[0].split(","))) == archs(a, "ptx"),
          "%r: cuda:ptx %r, JSON %r" % (p, ptx, sorted(archs(a, "ptx"))))
    v = a.get("coverage" if coverage else "verdicts")
    got = {pr["name"][len("cuda:verdict:"):]: pr["value"] for pr in c["properties"] if pr["name"].startswith("cuda:verdict:")}
    if v is None:
        check(got == {} and (a["errors"] or not a.get("objects")), "%r: verdicts %r for an artifact not judged" % (p, got))
    else:
        check(got == v, "%r: cuda:verdict %r, JSON %r" % (p, got, v))
    adv = props(c, "cuda:advice")
    want_adv = ["%s: %s" % (t, j["advice"]) for t, j in (a.get("judgement") or {}).items() if j["advice"]]
    check(sorted(adv) == sorted(want_adv), "%r: cuda:advice %r, JSON %r" % (p, adv, want_adv))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
