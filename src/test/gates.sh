#!/bin/sh
# gates.sh - a gate judges nothing only by saying so and failing: standard input that is empty,
# of no known format (a failed download's HTML page) or named twice; --files-from lists that
# are a directory, endless, NUL-holding, overlong or name '-'; runs with no input under a check;
# and standard input spooled to a file, not to memory, within the member limit.
# (The --live cases, against the stand-in driver, are in live_cli.sh.)
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
F=testdata/fixtures
# memory bounds: a sanitizer's shadow memory adds to them, never the 256-300 MB of a spool
# or a line held in memory
case "${WS_BUILD:-build}" in *san*) spool_max=250 line_max=200;; *) spool_max=150 line_max=100;; esac
# run RC WHAT STDIN ARGS...: exit status RC; stdout in $t/o, stderr in $t/e
run() {
	want=$1 what=$2 in=$3; shift 3
	case "$1" in timeout) pre="timeout $2"; shift 3;; *) pre="";; esac
	$pre "$WS_BIN" --no-progress "$@" <"$in" >"$t/o" 2>"$t/e"; rc=$?
	if [ "$rc" = "$want" ]; then ok; else bad "$what: exit $rc, expected $want: $(head -c 300 "$t/e")"; fi
}
err_has() { if grep -qF -- "$1" "$t/e"; then ok; else bad "stderr lacks '$1': $(head -c 300 "$t/e")"; fi; }
one_err_line() { n=$(wc -l <"$t/e"); [ "$n" -le 2 ] && [ "$(wc -c <"$t/e")" -lt 400 ] && ok || bad "$1: stderr is $n lines, $(wc -c <"$t/e") bytes"; }

# --- standard input: empty, of no known format, named twice
run 3 "--require sm_90 - </dev/null" /dev/null --require sm_90 -
err_has "standard input is empty: nothing was judged"
printf '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head></html>\n' >"$t/404.html"
run 3 "an HTML error page on stdin under --require" "$t/404.html" --require sm_90 -
err_has "of no format wheelscan reads (it starts like an HTML page: a failed download?)"
run 3 "--gpu sm_90 --json with an HTML page on stdin" "$t/404.html" --gpu sm_90 --json -
grep -q '"code":"format"' "$t/o" && ok || bad "the JSON error of an HTML page on stdin is not of kind format"
head -c 5000 /dev/urandom | tr -d '\177-\377' | tr '\000-\037' 'a' >"$t/text"
run 3 "random text on stdin" "$t/text" -
run 2 "- - (standard input twice)" $F/multi.so --gpu sm_90 - -
err_has "standard input ('-') can be read only once"
printf '%s\n' $F/multi.so >"$t/list"
run 2 "--files-from - beside -" "$t/list" --files-from - -
# what stdin carries is still read: a wheel, an ELF file
run 0 "a wheel on stdin" $F/example.whl --gpu sm_90 -
grep -q "=> sm_90: runs: native SASS" "$t/o" && ok || bad "the wheel on stdin: $(head -c 300 "$t/o")"
run 0 "an ELF file on stdin" $F/multi.so --gpu sm_90 -
grep -q "(elf-so, 62.4 KiB" "$t/o" && ok || bad "the ELF file on stdin: $(head -c 300 "$t/o")"

# --- standard input is spooled to a file, not memory, and within --max-member-size:
# 300 MB through the pipe (an ELF file and zeros) must not make the process 300 MB big
cat $F/multi.so >"$t/big.head"
res=$(python3 - "$WS_BIN" "$t/big.head" <<'PY'
import resource, subprocess, sys
p = subprocess.Popen([sys.argv[1], "--no-progress", "--gpu", "sm_90", "-"], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
p.stdin.write(open(sys.argv[2], "rb").read())
z = bytes(1 << 20)
for _ in range(300):
    p.stdin.write(z)
p.stdin.close()
rc = p.wait()
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
)
rc=${res% *} mib=${res#* }
[ "$rc" = 0 ] && ok || bad "300 MB on stdin: exit $rc"
[ "$mib" -lt "$spool_max" ] && ok || bad "300 MB on stdin took $mib MiB of memory (spooled in memory?)"
(cat $F/multi.so; head -c 3000000 /dev/zero) >"$t/big3m"
run 3 "stdin past --max-member-size" "$t/big3m" --max-member-size 1M --gpu sm_90 -
err_has "standard input is larger than the 1048576-byte member limit"
# the spool is a file of TMPDIR (or /tmp): an unwritable TMPDIR falls back to /tmp
TMPDIR=/nonexistent/dir run 0 "stdin with a TMPDIR that does not exist" $F/multi.so --gpu sm_90 -

# --- --files-from: a read error, an endless line, a NUL, an overlong line, '-': never the end
run 3 "--files-from DIR" /dev/null --files-from $F --require sm_90
err_has "cannot read '$F' (line 1): Is a directory"
# (timeout: a reader that grows its line without bound would take gigabytes a second)
run 3 "--files-from /dev/zero" /dev/null timeout 5 "$WS_BIN" --files-from /dev/zero
err_has "line 1 holds a NUL byte"
# endless input without a newline or a NUL: the line is bounded (64 KiB), the memory too
res=$(python3 - "$WS_BIN" <<'PY'
import resource, subprocess, sys
p = subprocess.Popen([sys.argv[1], "--no-progress", "--files-from", "-"], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    for _ in range(256):             # 256 MB; it must stop reading long before
        p.stdin.write(b"a" * (1 << 20))
except BrokenPipeError:
    pass
try:
    p.stdin.close()
except BrokenPipeError:
    pass
err = p.stderr.read()
rc = p.wait()
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, len(err))
PY
)
set -- $res
[ "$1" = 3 ] && ok || bad "an endless --files-from line: exit $1, expected 3"
[ "$2" -lt "$line_max" ] && ok || bad "an endless --files-from line took $2 MiB"
[ "$3" -lt 300 ] && ok || bad "an endless --files-from line: $3 bytes on stderr (the line echoed?)"
{ echo $F/multi.so; head -c 200000 /dev/zero | tr '\0' x; echo; } >"$t/long"
run 3 "--files-from with a 200 KB line" /dev/null --files-from "$t/long"
err_has "line 2 is longer than 65536 bytes"
one_err_line "--files-from with a 200 KB line"
printf '%s\n%s\0.bak\n' $F/multi.so $F/old-only.so >"$t/nul"
run 3 "--files-from with a NUL in a line" /dev/null --files-from "$t/nul"
err_has "line 2 holds a NUL byte"
[ ! -s "$t/o" ] && ok || bad "a rejected list still scanned: $(head -c 200 "$t/o")"
printf '%s\n-\n' $F/multi.so >"$t/dash"
run 3 "--files-from with a '-' line" /dev/null --files-from "$t/dash"
err_has "line 2 is '-'"
printf '%s\r\n\n%s' $F/multi.so $F/old-only.so >"$t/crlf"
run 1 "--files-from with CRLF, an empty line and no last newline" /dev/null -q --gpu sm_90 --files-from "$t/crlf"
[ "$(grep -c '=> sm_90' "$t/o")" = 2 ] && ok || bad "the CRLF list: $(cat "$t/o")"

# --- no input under a check: "nothing was judged", and the check fails
mkdir "$t/empty"
run 1 "-r EMPTYDIR --require sm_90" /dev/null -r "$t/empty" --require sm_90
err_has "nothing was judged: no input files, so the check fails"
: >"$t/none"
run 1 "an empty --files-from with --gpu sm_90" /dev/null --files-from "$t/none" --gpu sm_90
err_has "nothing was judged"
run 1 "an empty --files-from with --require-ptx" /dev/null --files-from "$t/none" --require-ptx
run 0 "-r EMPTYDIR without a check" /dev/null -r "$t/empty"
err_has "nothing was judged: no input files"
# an empty share of a list that is not empty is said, not failed: the other shares judge
for k in 1 2 3 4; do
	"$WS_BIN" --no-progress --require sm_90 --shard $k/4 $F/multi.so >/dev/null 2>"$t/e$k"; echo $? >"$t/rc$k"
done
empty=$(grep -l "nothing was judged: share" "$t"/e[1-4] | wc -l)
[ "$empty" = 3 ] && ok || bad "--shard K/4 of one file: $empty empty shares said, expected 3"
[ "$(cat "$t"/rc[1-4] | sort -u | tr -d '\n')" = 0 ] && ok || bad "--shard K/4 of one file: exits $(cat "$t"/rc[1-4] | tr '\n' ' ')"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
