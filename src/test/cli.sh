#!/bin/sh
# cli.sh - the option table, --help and the man page agree; usage errors exit 2.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
help=$("$WS_BIN" --help) || bad "--help exits non-zero"
for opt in $(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	name=${opt#--}
	# mdoc writes "Fl \-name"
	if grep -q -- "Fl \\\\-$name\\b" man/wheelscan.1; then ok; else bad "option $opt missing from man/wheelscan.1"; fi
done
# every option the man page documents exists
for name in $(grep -o 'Fl \\-[a-z][a-z-]*' man/wheelscan.1 | sed 's/Fl \\-//' | sort -u); do
	if printf '%s\n' "$help" | grep -q -- "--$name\\b"; then ok; else bad "man page documents --$name, which --help lacks"; fi
done
"$WS_BIN" --version | grep -q '^wheelscan [0-9]' && ok || bad "--version"
"$WS_BIN" >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no input: exit 2"
"$WS_BIN" --bogus x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown option: exit 2"
"$WS_BIN" --jobs 0 x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--jobs 0: exit 2"
err=$("$WS_BIN" --gpu rtx5900 x 2>&1); rc=$?
[ $rc -eq 2 ] && ok || bad "unknown GPU: exit $rc"
printf '%s' "$err" | grep -q "did you mean 'GeForce RTX 5090'" && ok || bad "unknown GPU suggestion: $err"
"$WS_BIN" --list-gpus | grep -q 'RTX 5090' && ok || bad "--list-gpus lacks RTX 5090"

# Every output kind checks its writes: to a full disk, one line naming the error, status 4.
FX=testdata/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
full() {   # full WHAT ARGS...: the run into /dev/full exits 4 with one line on stderr
	what=$1; shift
	"$WS_BIN" "$@" > /dev/full 2> "$tmp/err"; rc=$?
	[ $rc -eq 4 ] && ok || bad "$what into /dev/full: exit $rc, not 4"
	if [ "$(cat "$tmp/err")" = "wheelscan: write error: No space left on device" ]; then ok
	else bad "$what into /dev/full: stderr '$(cat "$tmp/err")'"; fi
}
full text "$FX/multi.so"
full json --json "$FX/multi.so"
full jsonl --jsonl "$FX/multi.so"
full markdown --format markdown "$FX/multi.so"
full quiet -q --gpu sm_90 "$FX/multi.so"
full list-gpus --list-gpus
full env --env
full env-json --env --json
full help --help
full version --version
full baseline --baseline "$FX/old-only.so" "$FX/multi.so"
full baseline-json --json --baseline "$FX/old-only.so" "$FX/multi.so"
# no more work after the first failure: a tree of many files stops at the first artifact
"$WS_BIN" -r "$FX" --jobs 1 > /dev/full 2> "$tmp/err"; rc=$?
[ $rc -eq 4 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok || bad "-r into /dev/full: exit $rc, stderr $(cat "$tmp/err")"
# a closed standard output is a write error too
"$WS_BIN" "$FX/multi.so" >&- 2> "$tmp/err"; rc=$?
[ $rc -eq 4 ] && grep -q '^wheelscan: write error: Bad file descriptor$' "$tmp/err" && ok || bad ">&-: exit $rc, $(cat "$tmp/err")"
# SIGPIPE keeps its default: into a pipe whose reader is gone, wheelscan dies of the signal
# quietly (the pipe's read end is closed before it starts, so this does not race)
res=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, len(p.stderr))' "$WS_BIN" "$FX/multi.so")
[ "$res" = "-13 0" ] && ok || bad "closed pipe: '$res', not killed by SIGPIPE (-13) with nothing on stderr"

# Usage errors name the problem (exit 2); an input list that cannot be read is bad input (3).
msg() {   # msg WANT_RC WANT_STDERR_LINE ARGS...
	want_rc=$1 want=$2; shift 2
	"$WS_BIN" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq "$want_rc" ] && ok || bad "'$*': exit $rc, not $want_rc"
	[ "$(head -n 1 "$tmp/err")" = "$want" ] && ok || bad "'$*': stderr '$(head -n 1 "$tmp/err")', not '$want'"
}
msg 2 "wheelscan: --gpu requires an argument" "$FX/multi.so" --gpu
msg 2 "wheelscan: --baseline requires an argument" "$FX/multi.so" --baseline
msg 2 "wheelscan: -j (--jobs) requires an argument" "$FX/multi.so" -j
msg 2 "wheelscan: --format requires an argument" "$FX/multi.so" --format
msg 2 "wheelscan: unrecognized option '--bogus'" --bogus "$FX/multi.so"
msg 2 "wheelscan: invalid --max-entry-size 'foo': a number of bytes, optionally followed by K, M, G or T (e.g. 512M)" \
	--max-entry-size foo "$FX/multi.so"
msg 2 "wheelscan: invalid --max-total-size '1Q': a number of bytes, optionally followed by K, M, G or T (e.g. 512M)" \
	--max-total-size 1Q "$FX/multi.so"
msg 2 "wheelscan: --json and --jsonl conflict: choose one output format" --json --jsonl "$FX/multi.so"
msg 2 "wheelscan: --detail is for JSON output: add --json or --jsonl" --detail object "$FX/multi.so"
msg 2 "wheelscan: unknown --detail 'kernel' (artifact, object, container, entry)" --json --detail kernel "$FX/multi.so"
msg 2 "wheelscan: --format markdown and --json conflict: choose one output format" --format markdown --json "$FX/multi.so"
msg 3 "wheelscan: cannot read '/nonexistent/list': No such file or directory" --files-from /nonexistent/list
"$WS_BIN" --json --format json "$FX/multi.so" >/dev/null 2>&1 && ok || bad "--json --format json (the same format twice) is fine"
# every option that takes an argument says so when it is missing
for o in $(printf '%s\n' "$help" | sed -n 's/^ *\(-., \)\{0,1\}--\([a-z-]*\) [A-Z].*/\2/p'); do
	"$WS_BIN" "$FX/multi.so" "--$o" >/dev/null 2>"$tmp/err"
	grep -q -- "--$o) requires an argument\|--$o requires an argument" "$tmp/err" && ok || bad "--$o without its argument: $(head -n 1 "$tmp/err")"
done
# --progress into a log: plain lines, no carriage returns or escape codes
"$WS_BIN" --progress "$FX/multi.so" "$FX/old-only.so" >/dev/null 2>"$tmp/err"
grep -q '^\[#*\.*\] 100%  2/2 files' "$tmp/err" && ok || bad "--progress into a file: no plain final line: $(cat "$tmp/err")"
if LC_ALL=C grep -q "$(printf '[\r\033]')" "$tmp/err"; then bad "--progress into a file writes \\r or escapes"; else ok; fi
# the progress line counts in the report's unit: 3 MiB is "3.0/3.0 MiB" there (it said 3.1 MB)
truncate -s 3M "$tmp/three.bin"
"$WS_BIN" --progress "$tmp/three.bin" >"$tmp/out" 2>"$tmp/err"
grep -q '100%  1/1 files  3.0/3.0 MiB$' "$tmp/err" && grep -q "three.bin  (other, 3.0 MiB" "$tmp/out" && ok ||
	bad "--progress and the report disagree on units: $(cat "$tmp/err") / $(head -n 1 "$tmp/out")"
# a file that is not there: the error alone, no report block (nor the no-GPU hint) on stdout
"$WS_BIN" --no-progress "$tmp/not-there.so" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && [ ! -s "$tmp/out" ] && grep -q "not-there.so': cannot open: No such file or directory" "$tmp/err" && ok ||
	bad "a missing file ($rc): stdout $(head -c 200 "$tmp/out")"
# no line of any report ends in a space
for args in "" "--gpu RTX5090,H100" "-v --gpu sm_120" "-vvv" "--kernels --gpu sm_75" "-q --gpu sm_120" \
	"--require sm_120 --require-ptx" "--format markdown --gpu sm_120"; do
	# shellcheck disable=SC2086
	"$WS_BIN" $args "$FX"/*.so "$FX"/*.whl "$FX"/*.fatbin /nonexistent.whl >"$tmp/out" 2>/dev/null
	if grep -n ' $' "$tmp/out" >"$tmp/trail"; then bad "trailing spaces with '$args': $(head -n 2 "$tmp/trail")"; else ok; fi
done
# an input that cannot be read is not judged, never "nothing to run"; the summary keeps its columns
head -c 5000 /dev/urandom >"$tmp/corrupt.so"
"$WS_BIN" --gpu sm_90,sm_120 "$tmp/corrupt.so" /nonexistent/lib.fatbin "$FX/multi.so" >"$tmp/out" 2>/dev/null; rc=$?
[ $rc -eq 3 ] && ok || bad "corrupt input: exit $rc"
# (the file that is not there has no block of its own, only its error and its summary row)
[ "$(grep -c 'not judged: the input could not be read' "$tmp/out")" = 2 ] &&
	grep -q 'not-read    not-read     /nonexistent/lib.fatbin' "$tmp/out" && ok ||
	bad "corrupt input: not-judged lines: $(cat "$tmp/out")"
grep -q 'nothing to run' "$tmp/out" && bad "a corrupt input claims nothing to run" || ok
# every row of the summary table has its path at the same column as the header's "path"
awk '/^summary:/ {on = 1; next} on && /^  type/ {col = index($0, "path"); next}
     on && !NF {on = 0}
     on && col && NF {if (substr($0, col - 1, 1) != " " || substr($0, col, 1) == " ") bad = 1}
     END {exit !(col && !bad)}' "$tmp/out" && ok || bad "summary columns shift: $(sed -n '/^summary/,$p' "$tmp/out")"
grep -q '^  unknown  *-  *-  *0  *0  *1 not-read  *not-read  *testdata\|/nonexistent/lib.fatbin' "$tmp/out" && ok || bad "summary row of an unread input"
"$WS_BIN" --format markdown --gpu sm_90 "$tmp/corrupt.so" "$FX/multi.so" >"$tmp/md" 2>/dev/null
grep -q "^| $tmp/corrupt.so | - | - | 0 | 0 | not-read | :warning: unreadable or corrupt |\$" "$tmp/md" && ok || bad "Markdown row of an unread input: $(grep corrupt "$tmp/md")"
# Markdown and text name the artifact on every finding line: two versions of one package
# with the same member are told apart
cp "$FX/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl" "$tmp/a-1.0-py3-none-any.whl"
cp "$FX/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl" "$tmp/a-1.1-py3-none-any.whl"
"$WS_BIN" --no-verify --format markdown --gpu sm_120 --require sm_120 "$tmp/a-1.0-py3-none-any.whl" "$tmp/a-1.1-py3-none-any.whl" >"$tmp/md" 2>/dev/null
for v in 1.0 1.1; do
	grep -q "^- \`$tmp/a-$v-py3-none-any.whl!wscan_example/lib/libold.so\`: WS101 missing-sass: no SASS sm" "$tmp/md" && ok || bad "Markdown finding of a-$v lacks the artifact: $(grep '^- ' "$tmp/md")"
done
grep '^- ' "$tmp/md" | grep -v '\.whl!' >"$tmp/x" && bad "a Markdown finding without its artifact: $(cat "$tmp/x")" || ok
"$WS_BIN" --no-verify --gpu sm_120 --require sm_120 "$tmp/a-1.0-py3-none-any.whl" >"$tmp/txt" 2>/dev/null
grep -q "^  WS101 missing-sass: $tmp/a-1.0-py3-none-any.whl!wscan_example/lib/libold.so: no SASS sm_120" "$tmp/txt" && ok || bad "text finding lacks the artifact: $(grep WS101 "$tmp/txt")"
# one count of objects with device code in every format: the text summary, the Markdown
# table and the JSON judgement agree (a group of alternatives counts once)
alts=$FX/wscan_alts-0.1.0-py3-none-manylinux_2_28_x86_64.whl
for w in "$alts" "$FX/example.whl"; do
	t=$("$WS_BIN" --gpu sm_120 "$w" "$FX/multi.so" 2>/dev/null | awk -v p="$w" '$NF == p && /^  wheel/ {print $4}')
	m=$("$WS_BIN" --format markdown --gpu sm_120 "$w" "$FX/multi.so" 2>/dev/null | grep "^| $(printf '%s' "$w" | sed 's/_/\\\\_/g') |" | cut -d'|' -f5 | tr -d ' ')
	j=$("$WS_BIN" --json --gpu sm_120 "$w" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["artifacts"][0]["judgement"]["sm_120"]["objects"])')
	[ -n "$t" ] && [ "$t" = "$m" ] && [ "$t" = "$j" ] && ok || bad "objects of $w: text $t, Markdown $m, JSON $j"
done
# --list-gpus cites nothing outside the repository; the README speaks to users
"$WS_BIN" --list-gpus | tail -n 3 >"$tmp/foot"
grep -q 'https://developer.nvidia.com/cuda-gpus' "$tmp/foot" && ok || bad "--list-gpus footer lacks its source"
grep -q '\.md\b\|§' "$tmp/foot" && bad "--list-gpus footer cites a document: $(cat "$tmp/foot")" || ok
grep -n -i -E 'issue|#[0-9]+\b|\.\./|/work/' README.md >"$tmp/x" && bad "README cites issues or outside paths: $(cat "$tmp/x")" || ok
for p in $(grep -o '`\(scripts\|src\|man\|testdata\|kernels\|include\)/[A-Za-z0-9_./-]*`' README.md | tr -d '`' | grep -v '[A-Z][A-Z][A-Z]' | sort -u); do
	[ -e "$p" ] && ok || bad "README names $p, which is not in the repository"
done

# --gpu with names as nvidia-smi prints them, alone and beside auto: the list is copied
# correctly whatever the length (a long last name once read past the end of the copy)
for g in 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' 'auto,NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' \
	 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition,auto' 'H100,NVIDIA GeForce RTX 4090 Laptop GPU'; do
	out=$(WHEELSCAN_LIBCUDA=/nonexistent "$WS_BIN" --no-progress --json --gpu "$g" testdata/fixtures/sm_90.cubin 2>&1)
	printf '%s' "$out" | grep -q '"targets":\[{"name":"sm_\(120\|90\)"' && ok || bad "--gpu '$g': $(printf '%s' "$out" | head -c 300)"
done
# "--python /path/python" (a space, not '='): the interpreter named is not taken as a file to
# scan beside the default python3's packages; the usage error says what was meant
for py in /usr/bin/python3 python3.12 /opt/venv/bin/python pypy3; do
	err=$("$WS_BIN" --python "$py" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && ok || bad "--python $py: exit $rc, not 2"
	printf '%s' "$err" | grep -qF "did you mean --python=$py?" && ok || bad "--python $py: '$err'"
done
# a virtual environment after a bare --python: its interpreter is meant
mkdir -p "$tmp/venv/bin"; printf '#!/bin/sh\n' >"$tmp/venv/bin/python"; chmod +x "$tmp/venv/bin/python"
err=$("$WS_BIN" --python "$tmp/venv" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && printf '%s' "$err" | grep -qF "did you mean --python=$tmp/venv/bin/python?" && ok || bad "--python VENV: exit $rc: '$err'"
# a file to scan after a bare --python is still a file to scan
"$WS_BIN" --python --help >/dev/null 2>&1; [ $? -ne 2 ] && ok || bad "--python --help: usage error"
err=$("$WS_BIN" --no-progress --python testdata/fixtures/multi.so 2>&1 >/dev/null)
printf '%s' "$err" | grep -q 'did you mean' && bad "--python FILE: '$err'" || ok
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
