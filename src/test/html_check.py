#!/usr/bin/env python3
"""html_check.py DOM JSON [FILTER [TEXT]] - the DOM headless Chromium built from wheelscan's
--format html page agrees with the JSON report of the same inputs: one heatmap row per
artifact with its package and version, every cell's verdict the artifact's headline for
that column's target (coverage_headline when no GPU was named; not-read for an input not
read), the page has one script (its own) and fetches nothing; with FILTER (the page was
loaded as #filter=FILTER) exactly the rows of other packages are hidden. Prints failures
and "N passed, N failed"."""
import json
import sys
from html.parser import HTMLParser

dom_path, json_path = sys.argv[1:3]
flt = sys.argv[3] if len(sys.argv) > 3 else None
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.in_heat = [], None, None, False
        self.tags, self.fetching, self.text = {}, [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k in ("src", "href", "action", "srcset", "poster", "data"):
            if k in a and tag != "object":
                self.fetching.append((tag, k, a[k]))
        if tag == "table" and a.get("id") == "heatmap":
            self.in_heat = True
        elif tag == "tr" and self.in_heat and "data-path" in a:
            self.row = {"attrs": a, "cells": [], "text": []}
        elif tag == "td" and self.row is not None:
            self.cell = {"attrs": a, "text": ""}

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row["cells"].append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "table" and self.in_heat:
            self.in_heat = False

    def handle_data(self, d):
        self.text.append(d)
        if self.cell is not None:
            self.cell["text"] += d


p = Page()
p.feed(open(dom_path, encoding="utf-8", errors="surrogateescape").read())
doc = json.load(open(json_path, encoding="utf-8", errors="surrogateescape"))
coverage = not doc["targets"]
arts = doc["artifacts"]


def plain(s):
    """whether s reads the same escaped for text (printable ASCII): then the page shows it as is"""
    return all(" " <= ch <= "~" for ch in s)


check(len(p.rows) == len(arts) and len(arts) > 0 and sorted(int(r["attrs"]["data-index"]) for r in p.rows) == list(range(len(arts))),
      "%d heatmap rows for %d artifacts, each once" % (len(p.rows), len(arts)))
if len(sys.argv) > 4:   # TEXT: must be in the page's text, as text
    check(sys.argv[4] in "".join(p.text), "the page's text lacks %r" % sys.argv[4])
check(p.tags.get("script") == 1, "scripts in the DOM: %s (only the page's own)" % p.tags.get("script"))
check(not p.fetching, "the page fetches: %s" % p.fetching[:3])
for tag in ("img", "iframe", "object", "embed", "link", "meta-refresh", "form"):
    check(tag not in p.tags, "a <%s> element in the DOM" % tag)
cells = 0
for row in p.rows:
    i = int(row["attrs"]["data-index"])
    check(0 <= i < len(arts), "a row for artifact %d of %d" % (i, len(arts)))
    if not 0 <= i < len(arts):
        continue
    a = arts[i]
    path = a["path"]
    w = a.get("wheel") or a.get("distribution") or {}
    # names with controls or non-ASCII are shown in the text form (escaped): compared where plain
    for k, col in (("name", 0), ("version", 1)):
        v = w.get(k) or "-"
        if plain(v):
            check(row["cells"][col]["text"] == v, "%r: %s cell %r, JSON %r" % (path, k, row["cells"][col]["text"], v))
    if plain(path):
        check(row["cells"][-1]["text"] == path and row["attrs"]["data-path"] == path,
              "%r: the path cell reads %r" % (path, row["cells"][-1]["text"]))
    want = a.get("coverage_headline" if coverage else "headline")
    for c in row["cells"][2:-1]:
        cc, got = c["attrs"]["data-cc"], c["attrs"]["data-verdict"]
        w_v = "not-read" if want is None and a["errors"] else (want or {}).get(cc, "none")
        check(got == w_v and c["attrs"]["title"] == w_v, "%r %s: cell %r, JSON %r" % (path, cc, got, w_v))
        cells += 1
    if flt is not None:
        hidden = "hidden" in row["attrs"].get("class", "").split()
        pkg = row["attrs"]["data-pkg"].lower()
        check(hidden == (flt.lower() not in pkg), "%r: hidden=%s under the filter %r" % (path, hidden, flt))
check(cells == sum(len(r["cells"]) - 3 for r in p.rows) and cells > 0, "cells checked: %d" % cells)
print("%d passed, %d failed (%d cells)" % (passed, failed, cells))
sys.exit(1 if failed else 0)
