#!/bin/sh
# fixture_table.sh - wheelscan's reading of every fixture must equal the independent
# reading recorded in testdata/fixtures/README.md (made by scripts/fatbin-dump.py from
# the bytes): the same containers, in order, with the same sections, entries,
# compression and kernel counts.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing (fixture table)" yes
python3 - "$WS_BIN" <<'PY'
import json, re, subprocess, sys
ws = sys.argv[1]
rows = []
inside = False
for line in open("testdata/fixtures/README.md"):
    if "gen-testdata table begin" in line: inside = True; continue
    if "gen-testdata table end" in line: break
    if inside and line.startswith("| `"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((cells[0].strip("`"), cells[-1].strip("`")))
passed = failed = 0
for name, want in rows:
    out = subprocess.run([ws, "--json", "--no-verify", "testdata/fixtures/" + name],
                         capture_output=True, text=True)
    doc = json.loads(out.stdout)
    parts = []
    for obj in doc["artifacts"][0]["objects"]:
        member = obj["member"]
        if member and "(" in member and member.endswith(")"):   # ar member "libk.a(x.o)"
            member = member[member.index("(") + 1:-1]
        for fb in obj["fatbins"]:
            sec = fb["section"] or obj["type"]
            ents = []
            for e in fb["entries"]:
                s = e["arch"]
                if e["compression"] != "none": s += "~" + e["compression"]
                s += "(%s)" % ("?" if e["kernels"] is None else len(e["kernels"]))
                ents.append(s)
            parts.append("%s%s{%s}" % (member + "!" if member else "", sec, " ".join(ents)))
    got = " ".join(parts)
    if got == want:
        passed += 1
        print("ok  ", name)
    else:
        failed += 1
        print("FAIL", name, "\n  want:", want, "\n  got: ", got)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
