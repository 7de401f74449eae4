#!/bin/sh
# windows/cmd_roundtrip.sh - the cmd.exe round trip of the command renderer
# (src/core/command.c, doc/commands.md), the twin of src/test/commands.sh (bash, dash), run
# by make test-windows. Each word of the hostile corpus (src/test/hostile_words.py, plus
# words aimed at cmd.exe and the C runtime: & > ^ ( ) against quotes and backslashes) and
# all of them in one command, with argv[0] `pip`, a program path full of cmd.exe's special
# characters and one outside ASCII, is rendered for cmd.exe by the core
# (test_command render cmd: the code wheelscan.exe links) and run in Wine's cmd.exe two
# ways: as `cmd /d /s /c "LINE"` started with CreateProcessW (cmd_lines.c), which parses the
# line as the prompt does (%VAR% expanded, no batch rules), and as a line of a .bat file
# (CRLF). Not typed at the prompt: Wine 8's cmd.exe reading commands from a pipe runs the
# first line and drops or garbles the next ones (doc/commands.md). The stand-in program
# (src/test/argv_stub.c, MinGW) writes the argv that msvcrt.dll split and the argv that
# ucrtbase.dll (Python's runtime) splits from the same command line: both must equal the
# words, and no file may appear (a > or & that cmd.exe obeyed). A word the renderer must
# refuse for cmd.exe (% ! a control character, not UTF-8) is checked for the refusal.
# Wine reads a .bat file in the OEM code page (437 here) whatever chcp says, so lines
# outside ASCII run only the first way.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD/${WS_BUILD:-build}/test_command
[ -x "$R" ] || { echo "FAIL: $R is missing (make tests-built)"; echo "0 passed, 1 failed"; exit 1; }
. src/test/windows/wine.inc
command -v python3 >/dev/null || { bad "python3 is missing"; done_counts; exit; }
$CC_WIN -municode -O1 -o "$tmp/pip.exe" src/test/argv_stub.c 2>"$tmp/cc" &&
	$CC_WIN -O1 -o "$tmp/cmd_lines.exe" src/test/windows/cmd_lines.c 2>>"$tmp/cc" ||
	{ bad "cannot build the stand-ins: $(tail -n 2 "$tmp/cc")"; done_counts; exit; }
python3 - "$R" "$tmp" "$WINE" "$(winpath "$tmp")" <<'PY'
import os, shutil, subprocess, sys
render, tmp, wine, wtmp = sys.argv[1:5]
sys.path.insert(0, "src/test")
from hostile_words import CORPUS
# aimed at the two layers: cmd.exe's quote state against the runtime's \" and ""
extra = [b"x&type nul>PWNED", b"\"&type nul>PWNED&\"", b"\\\"&type nul>PWNED", b"a\\\\\"&type nul>PWNED&\"",
         b"^\"", b"(", b")", b"\"a b\"", b"a\"b c\"d", b"\"\"", b"\"\" x", b"a\\\\ b\\\\", b"x^", b"x\"y\"z",
         b"\\\"", b"a\\\\\\\"b", b"|type nul>PWNED", b"<nul", b"1>PWNED", b"\tlead", b"@echo", b"a,b;c=d"]
corpus = CORPUS + extra
passed = failed = 0
counts = {}

def fail(msg):
    global failed
    failed += 1
    print("FAIL: " + msg)

def must_refuse(w):
    if b"%" in w or b"!" in w or any(c < 0x20 and c != 9 or c == 0x7f for c in w):
        return True
    try:
        w.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False

def wp(*parts):
    return (wtmp + "\\" + "\\".join(parts)).encode()

bindir = os.path.join(tmp, "bin")
os.makedirs(bindir)
shutil.copy(os.path.join(tmp, "pip.exe"), os.path.join(bindir, "pip.exe"))
progs = [b"pip"]
for d in ("d & (x) ^ ; , = ' [a] ~ {b} @#", "\u00fc\u65e5 & (x)"):
    os.makedirs(os.path.join(tmp, d))
    shutil.copy(os.path.join(tmp, "pip.exe"), os.path.join(tmp, d, "python.exe"))
    progs.append(wp(d, "python.exe"))
progs += [wp("100%", "python.exe"), wp("a!b", "python.exe")]   # refused: % and ! in the path

cases = []      # (line, words)
for prog in progs:
    accepted = [w for w in corpus if not must_refuse(w)]
    for words in [[w] for w in corpus] + [accepted]:
        argv = [prog] + words
        r = subprocess.run([render, "render", "cmd"], input=b"".join(w + b"\0" for w in argv),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if any(must_refuse(w) for w in argv):
            if r.returncode == 3 and r.stdout == b"" and r.stderr.startswith(b"refused: "):
                passed += 1
                counts["refused"] = counts.get("refused", 0) + 1
            else:
                fail("%r must be refused for cmd.exe: rc %d, %r" % (argv, r.returncode, r.stdout))
        elif r.returncode != 0:
            fail("the cmd.exe renderer refused %r: %s" % (argv, r.stderr.decode(errors="replace").strip()))
        else:
            cases.append((r.stdout, words))

env = dict(os.environ, WINEPATH=wtmp + "\\bin")

def check(mode, run):
    """runs the cases of one mode in a fresh working directory; run(work, todo) returns
    the exit statuses (or None), the argv files are mode.N and mode.N.u"""
    global passed
    todo = [(i, line, words) for i, (line, words) in enumerate(cases) if mode == "c" or line.isascii()]
    work = os.path.join(tmp, "work-" + mode)
    os.makedirs(work)
    rcs = run(work, todo)
    for k, (i, line, words) in enumerate(todo):
        want = b"".join(w + b"\0" for w in words)
        got = [open(os.path.join(tmp, "%s.%d%s" % (mode, i, s)), "rb").read()
               if os.path.exists(os.path.join(tmp, "%s.%d%s" % (mode, i, s))) else None for s in ("", ".u")]
        if got[0] == want and got[1] == want and (rcs is None or rcs[k] == 0):
            passed += 1
            counts[mode] = counts.get(mode, 0) + 1
        else:
            fail("%s: %r gave argv %r (msvcrt), %r (ucrtbase)%s" % (mode, line,
                 got[0] and got[0].split(b"\0")[:-1], got[1] and got[1].split(b"\0")[:-1],
                 ", exit %s" % rcs[k] if rcs else ""))
    left = os.listdir(work)
    if left:
        fail("%s: cmd.exe made %s in the working directory" % (mode, left))
    else:
        passed += 1
    return len(todo)

retried = 0

def run_c(work, todo):
    """Wine under load now and then fails to start cmd.exe for a line (CreateProcessW fails:
    status -1, no argv written): such a line is run again, at most twice, and counted."""
    global retried
    rcs = [None] * len(todo)
    pending = list(range(len(todo)))
    for attempt in range(3):
        with open(os.path.join(tmp, "lines"), "wb") as f:
            f.write(b"\n".join(todo[k][1] for k in pending))
        # cmd_lines numbers its lines from 0; the argv files are named after the case
        r = subprocess.run([wine, os.path.join(tmp, "cmd_lines.exe"), wtmp + "\\lines", wtmp + "\\c-run"],
                           cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        got = [int(x) for x in r.stdout.split()]
        again = []
        for j, k in enumerate(pending):
            i = todo[k][0]
            wrote = False
            for s in ("", ".u"):
                src = os.path.join(tmp, "c-run.%d%s" % (j, s))
                if os.path.exists(src):
                    os.rename(src, os.path.join(tmp, "c.%d%s" % (i, s)))
                    wrote = True
            rcs[k] = got[j] if len(got) == len(pending) else None
            if rcs[k] == -1 and not wrote and attempt < 2:
                again.append(k)
        if not again:
            break
        retried += len(again)
        pending = again
    return rcs

def script(mode, todo):
    out = []
    for i, line, _ in todo:
        out.append(b'set "WS_ARGV_OUT=' + wp("%s.%d" % (mode, i)) + b'"')
        out.append(b'set "WS_ARGV_UCRT=' + wp("%s.%d.u" % (mode, i)) + b'"')
        out.append(line)
    return b"".join(l + b"\r\n" for l in out)

def run_bat(work, todo):
    with open(os.path.join(tmp, "t.bat"), "wb") as f:
        f.write(b"@echo off\r\n" + script("bat", todo))
    subprocess.run([wine, "cmd", "/d", "/c", wtmp + "\\t.bat"], cwd=work, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)
    return None

n = {m: check(m, f) for m, f in (("c", run_c), ("bat", run_bat))}
print("corpus: %d words (%d of them aimed at cmd.exe), each alone and the accepted ones in one command; "
      "programs: pip, 2 hostile paths, 2 refused; lines run: cmd /s /c %d, .bat %d "
      "(ASCII only); refusals checked: %d; lines run again because cmd.exe did not start: %d"
      % (len(corpus), len(extra), n["c"], n["bat"], counts.get("refused", 0), retried))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
