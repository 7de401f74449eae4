#!/bin/sh
# names.sh - names from files do not steer the output. scripts/mknames.py writes, at test
# time, a wheel whose member names hold a newline that forges a verdict line, ESC[2J and
# ESC[32m, a backtick and '|', U+202E, a C1 control and "cafe" with an accent (and METADATA
# Name and Version like them, RECORD listing them all), a wheel whose RECORD rows and
# members disagree under such names, a zip with names that are not UTF-8, a directory of
# such files and a conda environment whose record escapes them. Every output kind is run
# on them; src/test/names_check.py checks each: no control or invisible character reaches
# the terminal, no line is forged, Markdown rows keep their cells, the JSON gives back
# every name's exact bytes, RECORD is ok where it is; and so from the results store.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null; then
	echo "skipped: python3 (the fixtures are made and the output checked by it)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
python3 scripts/mknames.py "$tmp/in" || { echo "FAIL: scripts/mknames.py"; echo "0 passed, 1 failed"; exit 1; }
cd "$tmp/in"
W() {   # W NAME ARGS...: stdout and stderr of one run kept as NAME.out, NAME.err, NAME.rc
	name=$1; shift
	"$WS_BIN" --no-progress --jobs 2 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
WHL=names-1.0-py3-none-manylinux_2_28_x86_64.whl
set -- --gpu sm_120 "$WHL" rec-1.0-py3-none-any.whl bytes.zip -r tree -r condaenv
W text "$@"
W verbose -vv --kernels "$@"
W markdown --format markdown "$@"
W json --json "$@"
W jsonl --jsonl "$@"
W sarif --format sarif "$@"
W github --format github "$@"
GITHUB_ACTIONS=true; export GITHUB_ACTIONS
W annotate "$@"
unset GITHUB_ACTIONS
W wheel-json --json --gpu sm_120 "$WHL"
W baseline -v --baseline "$WHL" "$WHL"
W baseline-json --json --baseline "$WHL" "$WHL"
W usage --gpu sm_120 "$(printf -- '--\033[2Jx')"
W envset --gpu sm_90 -r site
W suggest --suggest "$(printf 'tor\033[2Jch')" --gpu sm_120
# the results store keeps the bytes; its report escapes them as a scan does
W dbscan --quiet --db "$tmp/s.db" --gpu sm_120 -r tree
W dbreport --db "$tmp/s.db" --report --gpu sm_120
W dbreport-md --db "$tmp/s.db" --report --gpu sm_120 --format markdown
W dbreport-json --db "$tmp/s.db" --report --gpu sm_120 --json
# the live check against the stand-in driver: a mismatch names the file (and the driver
# names the device) in the summary
root=$OLDPWD
if ${CC:-cc} -shared -fPIC -O1 -o "$tmp/libcuda.so.1" "$root/src/test/fake_libcuda.c" 2>"$tmp/cc.err"; then
	cp "$root/testdata/fixtures/arch-plain.fatbin" "$(printf 'live\n  => sm_90: runs: native SASS\033[2J.fatbin')"
	WHEELSCAN_LIBCUDA="$tmp/libcuda.so.1" FAKE_CUDA_DEVICES="$(printf '9.0:NVIDIA\033[31m H200:143771')" \
	FAKE_CUDA_LOAD_RESULT=209 W live --live live*.fatbin
	WHEELSCAN_LIBCUDA="$tmp/libcuda.so.1" FAKE_CUDA_DEVICES="$(printf '9.0:NVIDIA\033[31m H200:143771')" \
	CUDA_VISIBLE_DEVICES="$(printf '0\033[2J')" W env --env
else
	for k in live env; do : >"$tmp/$k.out"; cp "$tmp/cc.err" "$tmp/$k.err"; echo 99 >"$tmp/$k.rc"; done
fi
exec python3 "$root/src/test/names_check.py" "$tmp" "$tmp/in/MANIFEST.json"
