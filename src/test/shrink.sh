#!/bin/sh
# shrink.sh - a file cut short while wheelscan has it mapped: the pages past its new end
# would fault (SIGBUS) and end the scan; the guard answers them with zeros, and the file is
# reported as changed while read (exit 3, one line naming it), with no digest claimed for it.
# Checked for a plain file, sandboxed and not; and for an installed distribution's file
# (read with pread, not mapped), which must end in an error naming it, not a claim. The cut
# happens once the file shows in /proc/PID/maps or among its descriptors; a 1 GiB sparse
# file takes far longer to hash than that takes to see.
set -u
cd "$(dirname "$0")/../.."
: "${WS_BIN:=$PWD/wheelscan}"
export WHEELSCAN_LIBCUDA=/nonexistent/libcuda.so.1 NO_COLOR=1
pass=0 fail=0 skip=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# cut_while_mapped FILE ARGS...: runs wheelscan ARGS in the background, cuts FILE to one
# page once the process maps it, waits; sets rc, and out/err files.
cut_while_mapped() {
	f=$1; shift
	"$WS_BIN" --no-progress "$@" >"$tmp/o" 2>"$tmp/e" &
	pid=$!
	# json-tap runs the real binary as a child: look for the mapping in the process tree
	n=0 seen=""
	while [ $n -lt 2000 ] && [ -z "$seen" ] && kill -0 $pid 2>/dev/null; do
		for p in $pid $(pgrep -P $pid 2>/dev/null); do
			grep -qF "$(readlink -f "$f")" /proc/$p/maps 2>/dev/null && seen=1
			# a file read with pread instead shows among the descriptors
			for d in /proc/$p/fd/*; do
				[ "$(readlink "$d" 2>/dev/null)" = "$(readlink -f "$f")" ] && seen=1
			done
		done
		[ -z "$seen" ] && sleep 0.005
		n=$((n + 1))
	done
	[ -n "$seen" ] && truncate -s 4096 "$f"
	wait $pid
	rc=$?
	cut=$seen
}

check() {   # check LABEL MESSAGE (an extended regular expression)
	if [ -z "$cut" ]; then
		skip=$((skip + 1)); echo "skipped: $1: the scan ended before its file was seen mapped"; return
	fi
	if [ "$rc" = 3 ]; then ok; else bad "$1: exit $rc, expected 3 (135 is SIGBUS)"; sed 's/^/    /' "$tmp/e" | head -5; fi
	if grep -Eq "$2" "$tmp/e"; then ok; else bad "$1: no error matching '$2'"; sed 's/^/    /' "$tmp/e" | head -5; fi
}

for mode in "" --no-sandbox; do
	truncate -s 1G "$tmp/big.bin"
	cut_while_mapped "$tmp/big.bin" --jobs 1 $mode "$tmp/big.bin"
	check "plain file ${mode:-sandboxed}" "the file shrank while it was read"
	if [ -n "$cut" ]; then
		if grep -q "sha256" "$tmp/o"; then bad "a digest is claimed for a file that changed"; else ok; fi
	fi
	rm -f "$tmp/big.bin"
done

# an installed distribution: its RECORD names a large file, read as a stream (pread) and
# hashed; cut short, it ends before the size it had when opened
cp -r testdata/env/site "$tmp/site"
truncate -s 1G "$tmp/site/wscan_example/big.bin"
echo "wscan_example/big.bin,sha256=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,1073741824" \
	>>"$tmp/site/wscan_example-0.1.0.dist-info/RECORD"
cut_while_mapped "$tmp/site/wscan_example/big.bin" --jobs 1 --gpu sm_90 -r "$tmp/site"
check "installed file" "big.bin': member ends after [0-9]+ bytes, not the 1073741824"

if [ $skip -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ $fail -eq 0 ]
