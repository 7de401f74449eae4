"""objview.py - what the package tests (archives.sh, images.sh, corpus_deb.sh) compare in a
JSON report: each object as what decides its verdicts (containers, roles, entries,
kernels), so that an object read from inside a package can be compared with the same object
scanned alone; and the checks' count, printed as run-all reads it."""
import json
import sys

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def artifacts(path):
    """The report's artifacts by file name."""
    return {a["path"].rsplit("/", 1)[-1]: a for a in json.load(open(path))["artifacts"]}


def view(o):
    return (o["type"], [(f["section"], f["relocatable"], f["role"], f["verdicts"],
             [(e["kind"], e["arch"], e["compression"], e["kernels"]) for e in f["entries"]])
            for f in o["fatbins"]], o["verdicts"])


def objs(a):
    return {o["member"]: view(o) for o in a["objects"]}


def finish():
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
