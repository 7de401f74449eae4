#!/bin/sh
# reports.sh - reports say only what is true: a renamed vendored library is the same library
# (--baseline), a bare --python names its interpreter, RECORD "ok" only over members hashed,
# PTX found behind licence headers, the environment summary, integrity of installed files,
# CPU-only builds, symlinks out of a tree, two roots in one store, an image's final filesystem.
# Every input is built here in a temporary directory from the fixtures.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
FX=$PWD/testdata/fixtures
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
W() { "$WS_BIN" --no-progress "$@"; }

# --baseline: auditwheel's "libfoo-HASH8.so.N" and torch's "libfoo.HASH8.so.N" renames of one
# library are matched by the name without the hash; a different library is not
mkdir -p "$tmp/b/old/pkg.libs" "$tmp/b/new/pkg.libs" "$tmp/b/other/pkg.libs"
cp "$FX/multi.so" "$tmp/b/old/pkg.libs/libnvjpeg.02b6d700.so.12"
cp "$FX/multi.so" "$tmp/b/new/pkg.libs/libnvjpeg-8dd2b5e6.so.12"
cp "$FX/multi.so" "$tmp/b/other/pkg.libs/libnvjpog-8dd2b5e6.so.12"
out=$(W --baseline "$tmp/b/old" --no-regress "$tmp/b/new" 2>&1); rc=$?
[ $rc -eq 0 ] && ok || bad "--baseline over a renamed vendored library: exit $rc: $out"
printf '%s\n' "$out" | grep -q '^no regression: 0 architectures dropped, 0 objects' && ok || bad "renamed library: $out"
W --json --baseline "$tmp/b/old" "$tmp/b/new" | grep -q '"key":"pkg.libs/libnvjpeg-8dd2b5e6.so.12","baseline_key":"pkg.libs/libnvjpeg.02b6d700.so.12","state":"same"' \
	&& ok || bad "--baseline JSON lacks baseline_key"
out=$(W --baseline "$tmp/b/old" --no-regress "$tmp/b/other" 2>&1); rc=$?
[ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q 'object with device code dropped' && ok || bad "another library matched a renamed one: exit $rc: $out"
# the real case: torchvision 0.20.1 -> 0.23.0 (scripts/fetch-corpus), where the vendored
# libnvjpeg was renamed; it is one object that changed, not one dropped and one added
tv20=corpus/torchvision-0.20.1-cp311-cp311-manylinux1_x86_64.whl tv23=corpus/torchvision-0.23.0-cp311-cp311-manylinux_2_28_x86_64.whl
if [ -f "$tv20" ] && [ -f "$tv23" ]; then
	out=$(W --baseline "$tv20" "$tv23" 2>&1)
	printf '%s\n' "$out" | grep -q '^  changed  torchvision.libs/libnvjpeg.8dd2b5e6.so.12 (was torchvision.libs/libnvjpeg.02b6d700.so.12)$' \
		&& ok || bad "torchvision baseline: $out"
	printf '%s\n' "$out" | grep -q 'dropped *torchvision.libs' && bad "torchvision baseline drops a vendored library: $out" || ok
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
