#!/bin/sh
# corpus_deb.sh - a real Debian CUDA package (libnvjpeg11 from bookworm non-free, pinned by
# sha256 in scripts/fetch-corpus): read as a .deb, its library gives the same containers,
# entries, kernels and verdicts as the same library extracted and scanned alone, and its
# md5sums verify. Skips when the package cannot be fetched (no network).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
: "${WS_CORPUS:=corpus}"
command -v python3 >/dev/null || skip_all "python3 missing" yes
deb=libnvjpeg11_11.9.0.86~11.8.0-5~deb12u1_amd64.deb
scripts/fetch-corpus "$WS_CORPUS" >/dev/null 2>&1
[ -f "$WS_CORPUS/$deb" ] || skip_all "scripts/fetch-corpus could not fetch $deb" yes
command -v dpkg-deb >/dev/null || skip_all "dpkg-deb missing (the reference extraction)" no
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
so=usr/lib/x86_64-linux-gnu/libnvjpeg.so.11.9.0.86
dpkg-deb --fsys-tarfile "$WS_CORPUS/$deb" | tar -x -C "$tmp" "./$so"
"$WS_BIN" --json --no-progress --gpu 'RTX 5090,H100' "$WS_CORPUS/$deb" "$tmp/$so" >"$tmp/j" 2>"$tmp/e"
echo $? >"$tmp/rc"
python3 - "$tmp" "$so" <<'PY'
import json, sys
sys.path.insert(0, "src/test")
from objview import check, finish, view
tmp, so = sys.argv[1], sys.argv[2]
d = json.load(open(tmp + "/j"))
rc = int(open(tmp + "/rc").read())
deb, alone = d["artifacts"]
check(rc == 0 and open(tmp + "/e").read() == "", "exit %d, stderr %r" % (rc, open(tmp + "/e").read()[:200]))
check(deb["type"] == "deb" and deb["errors"] == [], "type %s, errors %s" % (deb["type"], deb["errors"]))
check([o["member"] for o in deb["objects"]] == [so], "objects %s" % [o["member"] for o in deb["objects"]])
check(len(deb["objects"]) == 1 and view(deb["objects"][0]) == view(alone["objects"][0]), "the library reads as it does alone")
check(sum(len(f["entries"]) for f in alone["objects"][0]["fatbins"]) > 100, "the library holds its 116 entries")
check(deb["verdicts"] == alone["verdicts"] == {"sm_120": "jit", "sm_90": "native"}, "verdicts %s" % deb["verdicts"])
finish()
PY
