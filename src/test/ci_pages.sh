#!/bin/sh
# ci_pages.sh - what a name, a table or a parent folder holds cannot steer a gate or a CI
# page: a found pyproject.toml steers the gates only when trusted (owned by the user or
# root, in a directory only they may write to; the search stops at the repository's root)
# and names itself on stderr and in JSON; under GITHUB_ACTIONS=true no line of any output
# begins with a name or holds the runner's legacy '##[' command; SARIF messages double
# literal braces; Markdown breaks the URLs GitHub would autolink; --suggest with an empty
# list is a usage error; a store inside the tree it records does not record itself.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/build/wheelscan}"
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "skipped: $*"; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
chmod 755 "$t"
FX=$PWD/testdata/fixtures
LIB=$FX/old-only.so      # no SASS for sm_120: WS101 under --require sm_120

# ---- the configuration's trust ---------------------------------------------------------
# cfgrun DIR WANT-RC WHAT: `--require sm_120 lib.so` run in DIR/sub (the library copied there)
cfgrun() {
	mkdir -p "$1/sub"; cp "$LIB" "$1/sub/lib.so"
	(cd "$1/sub" && "$WS_BIN" --no-progress --require sm_120 lib.so >"$t/o" 2>"$t/e"); rc=$?
	[ "$rc" = "$2" ] && ok || bad "$3: exit $rc, expected $2: $(cat "$t/e")"
}
hostile='[tool.wheelscan]
ignore = ["WS101", "WS102"]'
# a world-writable parent (as /tmp is): ignored with a warning, the gate fails
mkdir "$t/ww"; printf '%s\n' "$hostile" >"$t/ww/pyproject.toml"; chmod 1777 "$t/ww"
cfgrun "$t/ww" 1 "a pyproject.toml in a world-writable (sticky) directory"
grep -q "warning: ignoring '$t/ww/pyproject.toml': in a directory anyone may write to" "$t/e" && ok ||
	bad "no warning for the world-writable directory's file: $(cat "$t/e")"
grep -q 'gates from' "$t/e" && bad "an ignored file named as applied" || ok
mkdir "$t/ww2"; printf '%s\n' "$hostile" >"$t/ww2/pyproject.toml"; chmod 777 "$t/ww2"
cfgrun "$t/ww2" 1 "a pyproject.toml in a world-writable directory"
# the same file in a directory of the user's own: applied, and named on stderr and in JSON
mkdir "$t/own"; printf '%s\n' "$hostile" >"$t/own/pyproject.toml"
cfgrun "$t/own" 0 "a pyproject.toml of the user's own"
grep -qx "wheelscan: gates from \[tool.wheelscan\] of '$t/own/pyproject.toml': ignore" "$t/e" && ok ||
	bad "the applied configuration is not named on stderr: $(cat "$t/e")"
(cd "$t/own/sub" && "$WS_BIN" --no-progress --json --require sm_120 lib.so >"$t/j" 2>/dev/null)
python3 - "$t/j" "$t/own/pyproject.toml" <<'PY' && ok || bad "JSON's config does not name the file and its keys"
import json, sys
c = json.load(open(sys.argv[1])).get("config")
sys.exit(0 if c == {"path": sys.argv[2], "applied": ["ignore"]} else "config: %r" % (c,))
PY
(cd "$t/own/sub" && "$WS_BIN" --no-progress --jsonl --require sm_120 lib.so 2>/dev/null) | python3 -c '
import json, sys
sys.exit(0 if all(json.loads(l)["config"]["applied"] == ["ignore"] for l in sys.stdin) else 1)' && ok ||
	bad "--jsonl lines do not name the configuration"
# owned by another user (nobody), or in a directory nobody owns: ignored
if [ "$(id -u)" = 0 ]; then
	mkdir "$t/other"; printf '%s\n' "$hostile" >"$t/other/pyproject.toml"; chown 65534 "$t/other/pyproject.toml"
	cfgrun "$t/other" 1 "a pyproject.toml another user owns"
	grep -q "ignoring '$t/other/pyproject.toml': owned by another user (uid 65534)" "$t/e" && ok || bad "no warning: $(cat "$t/e")"
	mkdir "$t/otherdir"; printf '%s\n' "$hostile" >"$t/otherdir/pyproject.toml"; chown 65534 "$t/otherdir"
	cfgrun "$t/otherdir" 1 "a pyproject.toml in a directory another user owns"
	grep -q "in a directory another user owns (uid 65534)" "$t/e" && ok || bad "no warning: $(cat "$t/e")"
	# and as nobody, root's own file is trusted (root is excepted, as git does)
	if command -v setpriv >/dev/null; then
		mkdir "$t/rootown"; printf '%s\n' "$hostile" >"$t/rootown/pyproject.toml"
		mkdir -p "$t/rootown/sub"; cp "$LIB" "$t/rootown/sub/lib.so"; chmod -R a+rX "$t/rootown"
		# the binary itself (WS_BIN may be json-tap, which runs it where nobody may not look:
		# a clone under /root)
		cp "${WS_BIN_REAL:-$WS_BIN}" "$t/ws"; chmod 755 "$t/ws"; chmod a+x "$t"
		(cd "$t/rootown/sub" && setpriv --reuid=65534 --regid=65534 --clear-groups -- "$t/ws" --no-progress --require sm_120 lib.so >/dev/null 2>"$t/e"); rc=$?
		[ $rc = 0 ] && grep -q 'gates from' "$t/e" && ok || bad "root's configuration run as nobody: exit $rc, $(cat "$t/e")"
	else skipped "setpriv is missing: root's file run as nobody"; fi
else
	skipped "not root: files owned by another user cannot be made"
	skipped "not root: files owned by another user cannot be made"
	skipped "not root: root's file run as nobody"
fi
# --config FILE is read as given, wherever it lies
"$WS_BIN" --no-progress --config "$t/ww/pyproject.toml" --require sm_120 "$LIB" >/dev/null 2>"$t/e"; rc=$?
[ $rc = 0 ] && grep -q "gates from \[tool.wheelscan\] of '$t/ww/pyproject.toml'" "$t/e" && ok || bad "--config in a world-writable directory: exit $rc, $(cat "$t/e")"
# the search stops at the repository's root: a file above a .git is not read
mkdir -p "$t/above/repo/.git"; printf '%s\n' "$hostile" >"$t/above/pyproject.toml"
cfgrun "$t/above/repo" 1 "a pyproject.toml above the repository's root"
grep -q "gates from" "$t/e" && bad "read above .git: $(cat "$t/e")" || ok
: >"$t/above/repo/.git.tmp"; rmdir "$t/above/repo/.git"; mv "$t/above/repo/.git.tmp" "$t/above/repo/.git"
cfgrun "$t/above/repo" 1 "a pyproject.toml above a worktree's .git file"
printf '%s\n' "$hostile" >"$t/above/repo/pyproject.toml"
cfgrun "$t/above/repo" 0 "the repository root's own pyproject.toml"

# ---- --suggest with no package ---------------------------------------------------------
for s in '' ',' 'torch,,xformers' ' ' 'torch,'; do
	"$WS_BIN" --suggest "$s" --gpu sm_90 >"$t/o" 2>"$t/e"; rc=$?
	[ $rc = 2 ] && [ ! -s "$t/o" ] && grep -q "name a package in each comma-separated item" "$t/e" && ok ||
		bad "--suggest '$s': exit $rc, $(cat "$t/e")"
done

# ---- GITHUB_ACTIONS=true: no name makes a workflow command -----------------------------
# runner_check FILE WHAT: every line of FILE read as GitHub's runner reads it (lines end at
# CR, LF or CR LF; "::" after .NET's TrimStart of white space; "##[" anywhere): the only
# commands are wheelscan's own ::error/::warning/::notice lines (--format github, the
# annotations under GITHUB_ACTIONS)
runner_check() {
	python3 - "$1" <<'PY' && ok || bad "$2: a name makes a workflow command"
import re, sys
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
own = re.compile(r"::(error|warning|notice) (file=[^,:]*,)?title=[^:]*::")
bad = 0
for line in re.split(r"\r\n|\r|\n", data):
    s = line.lstrip()          # str.lstrip strips Unicode white space, as .NET's TrimStart
    if (s.startswith("::") and not own.match(s)) or "##[" in line:
        print("  command:", repr(line[:160])); bad += 1
sys.exit(1 if bad else 0)
PY
}
mkdir "$t/names"
for n in '::notice title=x::gate: passed.so' '::stop-commands::x.so' ' ::add-mask::y.so' 'a ##[error]b.so' \
	"$(printf '\302\240::notice::nbsp.so')" ':' 'lib.so'; do
	cp "$LIB" "$t/names/$n"
done
mkdir -p "$t/names/::group::d"; cp "$LIB" "$t/names/::group::d/::endgroup::.so"
gh() { GITHUB_ACTIONS=true "$WS_BIN" --no-progress --no-config "$@"; }
for f in text json jsonl markdown sarif github html cyclonedx; do
	(cd "$t/names" && gh --format $f --require sm_120 -r . >"$t/gh.$f" 2>"$t/gh.$f.err")
	runner_check "$t/gh.$f" "--format $f, stdout"
	runner_check "$t/gh.$f.err" "--format $f, stderr"
done
(cd "$t/names" && gh -v --require sm_120 -r . >"$t/gh.v" 2>&1)
runner_check "$t/gh.v" "-v"
grep -q 'x3a' "$t/gh.text" && ok || bad "the text report does not show the names escaped"
# the JSON carries the same names, escaped only in form
python3 - "$t/gh.json" "$t/names" <<'PY' && ok || bad "JSON under GITHUB_ACTIONS does not decode to the names"
import json, os, sys
doc = json.load(open(sys.argv[1], encoding="utf-8", errors="surrogateescape"))
paths = {a["path"] for a in doc["artifacts"]}
want = {"./" + n for n in os.listdir(sys.argv[2]) if n != "::group::d"} | {"./::group::d/::endgroup::.so"}
sys.exit(0 if paths == want else "paths %r, want %r" % (sorted(paths), sorted(want)))
PY
# a store's --report, errors on stderr (an unreadable name), --env's summary, --suggest's echo
(cd "$t/names" && gh --db "$t/gh.db" --gpu sm_120 -r . >/dev/null 2>&1)
gh --db "$t/gh.db" --report >"$t/gh.rep" 2>&1
runner_check "$t/gh.rep" "--report"
gh --db "$t/gh.db" --report --format markdown >"$t/gh.repmd" 2>&1
runner_check "$t/gh.repmd" "--report --format markdown"
printf 'not an elf' >"$t/names/::error::bad.whl"
(cd "$t/names" && gh --require sm_120 '::error::bad.whl' >"$t/gh.bad" 2>&1)
runner_check "$t/gh.bad" "an error naming a file"
rm "$t/names/::error::bad.whl"
(cd "$t/names" && gh --require sm_120 '::error::missing.whl' >"$t/gh.miss" 2>&1)
runner_check "$t/gh.miss" "a missing file"
LD_LIBRARY_PATH='::notice::ld' CUDA_VISIBLE_DEVICES='::notice::cvd' gh --env >"$t/gh.env" 2>&1
runner_check "$t/gh.env" "--env"
gh --suggest '::notice::pkg' --gpu sm_90 >"$t/gh.sug" 2>&1
runner_check "$t/gh.sug" "--suggest"
gh --suggest ',' --gpu sm_90 >"$t/gh.sug2" 2>&1
runner_check "$t/gh.sug2" "--suggest's usage error"
gh --require '::notice::x' lib.so >"$t/gh.use" 2>&1
runner_check "$t/gh.use" "a usage error naming an argument"

# ---- SARIF's braces, Markdown's autolinks ----------------------------------------------
# a wheel (made here: its RECORD must match) whose METADATA Name holds a URL, a www. host and
# an address, and whose member is named like a SARIF placeholder
mkdir "$t/evil"
python3 - "$LIB" "$t/evil/evil-1.0-py3-none-any.whl" <<'PY'
import base64, hashlib, sys, zipfile
lib = open(sys.argv[1], "rb").read()
meta = b"Metadata-Version: 2.1\nName: https://evil.example/x WWW.evil.example a@evil.example\nVersion: 1.0\n"
wheel = b"Wheel-Version: 1.0\nGenerator: ci_pages\nRoot-Is-Purelib: false\nTag: py3-none-any\n"
files = {"evil/lib/{0}{1}.so": lib, "evil-1.0.dist-info/METADATA": meta, "evil-1.0.dist-info/WHEEL": wheel}
h = lambda b: "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join("%s,%s,%d\n" % (k, h(v), len(v)) for k, v in files.items()) + "evil-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[2], "w") as z:
    for k, v in files.items():
        z.writestr(k, v)
    z.writestr("evil-1.0.dist-info/RECORD", record)
PY
(cd "$t/evil" && "$WS_BIN" --no-progress --no-config --require sm_120 --format sarif evil-1.0-py3-none-any.whl >"$t/ev.sarif" 2>/dev/null)
python3 - "$t/ev.sarif" <<'PY' && ok || bad "SARIF message text keeps a single brace"
import json, re, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
texts = [r["message"]["text"] for r in res]
# every brace doubled: removing the pairs leaves none, and the name reads back
ok = texts and all(not re.search(r"[{}]", t.replace("{{", "").replace("}}", "")) for t in texts)
ok = ok and any("evil/lib/{{0}}{{1}}.so" in t for t in texts)
sys.exit(0 if ok else "messages: %r" % texts)
PY
(cd "$t/evil" && "$WS_BIN" --no-progress --no-config --require sm_120 --format markdown evil-1.0-py3-none-any.whl >"$t/ev.md" 2>/dev/null)
# GFM's extended autolinks (doc/ci-outputs.md): outside code spans, no "scheme://", "www."
# or "x@y." without a backslash breaking it
python3 - "$t/ev.md" <<'PY' && ok || bad "Markdown leaves a URL GitHub would autolink"
import re, sys
md = open(sys.argv[1]).read()
assert "evil.example" in md, "the name is not in the page"
text = re.sub(r"(`+).*?\1", "", md)           # code spans are never linked
hits = re.findall(r"(?i)[a-z]+://|www\.|[\w.+-]@[\w-]+\.", text)
sys.exit("linkable: %r" % hits if hits else 0)
PY

# ---- a store inside the tree it records -------------------------------------------------
mkdir -p "$t/tree/sub"; cp "$LIB" "$t/tree/sub/lib.so"
st() { (cd "$t/tree" && "$WS_BIN" --no-progress --no-config --gpu sm_90 "$@" 2>&1 >/dev/null | grep '^wheelscan: store'); }
st --db s.db -r . >/dev/null
got=$(st --db s.db -r .)
[ "$got" = "wheelscan: store s.db: 0 files read, 0 scanned, 1 from the store, 0 added, 0 changed, 0 removed" ] && ok ||
	bad "a store inside its tree, second run: $got"
# the same store under another spelling, and a link to it in the tree: its files all the same
ln -s s.db "$t/tree/link.db"
got=$(st --db sub/../s.db -r .)
[ "$got" = "wheelscan: store sub/../s.db: 0 files read, 0 scanned, 1 from the store, 0 added, 0 changed, 0 removed" ] && ok ||
	bad "the store under another spelling: $got"
(cd "$t/tree" && "$WS_BIN" --no-progress --no-config --gpu sm_90 --db s.db s.db sub/lib.so >/dev/null 2>"$t/e"); rc=$?
grep -q "'s.db' is the store itself (--db): not scanned" "$t/e" && ok || bad "the store named as an operand: exit $rc, $(cat "$t/e")"
sqlite3 "$t/tree/s.db" "select path from artifact" 2>/dev/null | grep -q 's\.db' && bad "the store recorded its own files" || ok

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
