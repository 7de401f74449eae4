#!/bin/sh
# doc_facts.sh - the byte-level claims of doc/fatbin-format.md hold on the committed
# fixtures (src/test/doc_facts.py, a reading written from the document alone).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing (doc facts)" yes
python3 src/test/doc_facts.py
