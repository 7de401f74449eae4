#!/bin/sh
# write_faults.sh - write errors that happen once, for every output kind: build/write_fault.so
# (LD_PRELOAD) makes the Nth write to standard output short, interrupted (EINTR), refused
# once (EAGAIN) or failed once with ENOSPC, for the first, a middle and the last write of
# each kind's report. stdio's buffer is made 64 bytes (WS_FAULT_BUF), so that every report
# drains it in several writes: the failed write is one inside the report, and the writes
# after it and the final flush succeed. A short or interrupted write must change nothing
# (the rest is written); a write that failed must end in status 4 with one "write error"
# line, though every later write and the last flush succeed (a program that forgets the
# failure once a later flush works leaves a hole in a report that exits 0 or 1); EAGAIN may
# be either (written after a retry, or status 4), never a report cut short under a status
# that says it is whole. /dev/full (cli.sh) fails every write.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
: "${WS_BUILD:=build}"
bin=${WS_BIN_REAL:-$WS_BIN}
shim=$PWD/$WS_BUILD/write_fault.so
[ -f "$shim" ] || skip_all "$shim is not built (make tests-built)" no
pre=$(ldd "$bin" | awk '/lib(asan|ubsan|tsan)\.so/ {print $3}' | paste -sd: -)
pre=${pre:+$pre:}$shim
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
FX=testdata/fixtures
# a store for the --report kind
"$bin" --no-progress --db "$tmp/s.db" "$FX/multi.so" "$FX/old-only.so" >/dev/null 2>&1
# stdio's buffer, small: every report is written in several writes (write_fault.c)
WS_FAULT_BUF=64; export WS_FAULT_BUF
# a BOM for --sbom-in: one component matched by its SHA-256
python3 - "$FX/multi.so" "$tmp/in.cdx" <<'PY'
import hashlib, json, sys
sha = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
json.dump({"bomFormat": "CycloneDX", "specVersion": "1.6", "version": 1, "components": [
    {"type": "file", "name": "multi.so", "hashes": [{"alg": "SHA-256", "content": sha}]}]}, open(sys.argv[2], "w"))
PY

# kind NAME ARGS...: every fault at the first, a middle and the last write of that report
kind() {
	name=$1; shift
	# the count needs a file written at exit, which the sandbox refuses (--env reports the
	# sandbox, so the reference itself is made under it)
	LD_PRELOAD=$pre WS_FAULT_COUNT=$tmp/count "$bin" --no-progress --no-sandbox "$@" >/dev/null 2>&1
	LD_PRELOAD=$pre "$bin" --no-progress "$@" >"$tmp/ref" 2>"$tmp/referr"
	refrc=$?
	calls=$(cat "$tmp/count" 2>/dev/null || echo 0)
	# a streamed report drains the 64-byte buffer in many writes, so the middle one has writes
	# and the final flush after it; a report written in one block (fwrite of more than the
	# buffer: stdio writes it at once) has one, and the flush after it has nothing to write
	if [ "$calls" -lt 1 ]; then bad "$name: no write to standard output counted (exit $refrc)"; return; fi
	echo "$name: $calls writes" >>"$tmp/calls"
	for at in $(printf '%s\n' 1 $(( (calls + 1) / 2 )) "$calls" | sort -un); do
		for f in short eintr eagain enospc; do
			LD_PRELOAD=$pre WS_FAULT=$f WS_FAULT_AT=$at "$bin" --no-progress "$@" >"$tmp/out" 2>"$tmp/err"
			rc=$?
			werr=$(grep -c '^wheelscan: write error: ' "$tmp/err")
			whole=no; cmp -s "$tmp/ref" "$tmp/out" && [ $rc -eq $refrc ] && [ "$werr" -eq 0 ] && whole=yes
			case $f in
			short|eintr) [ $whole = yes ] && ok || bad "$name: $f write $at of $calls: exit $rc (want $refrc), output $(wc -c <"$tmp/out") of $(wc -c <"$tmp/ref") bytes, $(head -c 200 "$tmp/err")";;
			enospc) if [ $rc -eq 4 ] && [ "$werr" -eq 1 ] && grep -q '^wheelscan: write error: No space left on device$' "$tmp/err"; then ok
				else bad "$name: ENOSPC once at write $at of $calls: exit $rc, not 4 with one write error ($(head -c 200 "$tmp/err"))"; fi;;
			eagain) if [ $whole = yes ] || { [ $rc -eq 4 ] && [ "$werr" -eq 1 ] && grep -q '^wheelscan: write error: Resource temporarily unavailable$' "$tmp/err"; }; then ok
				else bad "$name: EAGAIN once at write $at of $calls: exit $rc, output $(wc -c <"$tmp/out") of $(wc -c <"$tmp/ref") bytes ($(head -c 200 "$tmp/err"))"; fi;;
			esac
		done
	done
}
kind text "$FX/multi.so"
kind text-many -vvv -r "$FX" --jobs 2
kind json --json "$FX/multi.so"
kind json-many --json -vv -r "$FX" --jobs 2
kind jsonl --jsonl -r "$FX" --jobs 2
kind markdown --format markdown -r "$FX" --jobs 1
kind quiet -q --gpu sm_90 "$FX/multi.so"
kind list-gpus --list-gpus
kind env --env
kind env-json --env --json
kind help --help
kind version --version
kind baseline --baseline "$FX/old-only.so" "$FX/multi.so"
kind baseline-json --json --baseline "$FX/old-only.so" "$FX/multi.so"
kind report --db "$tmp/s.db" --report
kind report-json --db "$tmp/s.db" --report --json
kind suggest --suggest torch --gpu sm_120
kind suggest-json --suggest torch,xformers --gpu sm_120 --json
kind sarif --format sarif --require sm_120 -r "$FX" --jobs 1
kind github --format github --require sm_120 -r "$FX" --jobs 1
kind html --format html -r "$FX" --jobs 1
kind cyclonedx --format cyclonedx --gpu sm_90 -r "$FX" --jobs 1
kind sbom-in --sbom-in "$tmp/in.cdx" --gpu sm_90 "$FX/multi.so" "$FX/old-only.so"
kind report-md --db "$tmp/s.db" --report --format markdown
kind report-html --db "$tmp/s.db" --report --format html
kind annotations --require sm_120 "$FX/old-only.so"
kind no-regress --no-regress --baseline "$FX/old-only.so" "$FX/multi.so"
kind completion-bash --completion bash
kind completion-fish --completion fish
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
