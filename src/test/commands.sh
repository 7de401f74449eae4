#!/bin/sh
# commands.sh - the round trip of the command renderer (src/core/command.c, doc/commands.md):
# a corpus of hostile words (quotes, $(), backticks, %VAR%, ^ & | ! < > ~ *, blanks, tabs,
# newlines, a leading -, bytes outside ASCII, the empty word) is made into commands, each
# rendered for POSIX sh by the core (test_command render sh), then run by the real shells,
# bash and dash, as a script would (-c) and as a paste at the prompt would (-i, where bash
# expands history with !), with a stand-in pip (src/test/argv_stub.c) that writes its argv.
# The argv must equal the words, and no shell may have made a file (a > or a $(touch ...)
# that ran). argv[0] is "pip" and a --python path full of the same characters. cmd.exe is
# checked the same way under Wine by src/test/windows/cmd_roundtrip.sh (make test-windows).
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing" yes
R=$PWD/${WS_BUILD:-build}/test_command
[ -x "$R" ] || { echo "FAIL: $R is missing (make tests-built)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! ${CC:-cc} -O1 -o "$tmp/stub" src/test/argv_stub.c 2>"$tmp/cc"; then
	echo "FAIL: cannot build the stand-in pip: $(tail -n 2 "$tmp/cc")"; echo "0 passed, 1 failed"; exit 1
fi
python3 - "$R" "$tmp" <<'PY'
import os, shutil, subprocess, sys
render, tmp = sys.argv[1], sys.argv[2]
sys.path.insert(0, "src/test")
from hostile_words import CORPUS as corpus
bindir = os.path.join(tmp, "bin")
os.makedirs(bindir)
shutil.copy(os.path.join(tmp, "stub"), os.path.join(bindir, "pip"))
# a --python path as hostile as the words
evil = os.path.join(tmp.encode(), b"d $(touch PWNED) `touch PWNED` \\ ' \" ; & | < > ! %PATH% ^ ~ * \xc3\xbc")
os.makedirs(evil)
shutil.copy(os.path.join(tmp, "stub"), os.path.join(evil, b"python"))
work = os.path.join(tmp, "work")
home = os.path.join(tmp, "home")
os.makedirs(work)
os.makedirs(home)
env = {"PATH": bindir + ":/usr/bin:/bin", "HOME": home, "LC_ALL": "C.UTF-8", "PS1": "", "PS2": "", "ENV": ""}
shells = []
for sh in ("bash", "dash"):
    path = shutil.which(sh)
    if not path:
        print("skipped: %s is not installed" % sh)
        continue
    extra = ["--norc", "--noprofile"] if sh == "bash" else []
    shells.append(("%s -c" % sh, lambda line, p=path, e=extra: ([p] + e + ["-c", line], b"")))
    shells.append(("%s -i" % sh, lambda line, p=path, e=extra: ([p] + e + ["-i"], line + b"\nexit\n")))
passed = failed = 0

def run(cmd, stdin):
    r = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work, env=env, timeout=30)
    return r.stdout

def clean():
    left = os.listdir(work) + [f for f in os.listdir(home) if f not in (".bash_history",)]
    for f in os.listdir(work):
        p = os.path.join(work, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return left

# the interactive shells are really interactive: history expansion eats a bare !! there
control = b"pip x!!"
for name, mk in shells:
    if name == "bash -i":
        cmd, stdin = mk(control)
        if run(cmd, stdin) == b"x!!\0":
            print("FAIL: bash -i did not expand history: the paste check would not bite")
            failed += 1
        else:
            passed += 1

cases = [[w] for w in corpus] + [list(corpus)]
for prog in (b"pip", os.path.join(evil, b"python")):
    for words in cases:
        argv = [prog] + words
        r = subprocess.run([render, "render", "sh"], input=b"".join(w + b"\0" for w in argv), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            print("FAIL: the sh renderer refused %r: %s" % (words, r.stderr.decode(errors="replace").strip()))
            failed += 1
            continue
        line = r.stdout
        want = b"".join(w + b"\0" for w in words)
        for name, mk in shells:
            cmd, stdin = mk(line)
            got = run(cmd, stdin if stdin else None)
            left = clean()
            if got != want or left:
                print("FAIL: %s: %r rendered %r gave argv %r%s" % (name, argv, line, got.split(b"\0")[:-1],
                      ", and made %s" % left if left else ""))
                failed += 1
            else:
                passed += 1
print("corpus: %d words (and all of them in one command), argv[0] pip and a hostile --python path; shells: %s"
      % (len(corpus), ", ".join(n for n, _ in shells)))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
