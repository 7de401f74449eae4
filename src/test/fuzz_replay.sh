#!/bin/sh
# fuzz_replay.sh - run the fuzz targets without libFuzzer: build each src/fuzz/fuzz_NAME.c
# with src/fuzz/replay.c and feed it the fixtures, the hostile files, the committed corpus
# and every crash reproducer. An input passes when the target returns (no crash, abort or
# sanitizer report). The decoders' targets link the core alone ($WS_BUILD/libws-core.a:
# no I/O, no threads); only the targets of sources (beyond_core) link all of libws.a, so a
# core that starts needing the rest fails to build here.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_BUILD:=build}"
CC=${CC:-gcc}
lib=$WS_BUILD/libws.a core=$WS_BUILD/libws-core.a
beyond_core="zip archive image store"
pass=0 fail=0
for l in "$lib" "$core"; do
	if [ ! -f "$l" ]; then echo "fuzz_replay: $l not built"; echo "0 passed, 1 failed"; exit 1; fi
done
PKGS="libzip libelf zlib liblz4 libzstd libcrypto libseccomp libarchive sqlite3"
pkg-config --exists libisal && PKGS="$PKGS libisal"
SAN=""
case "$WS_BUILD" in *san*) SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer";; esac
bin=$WS_BUILD/fuzz-replay
mkdir -p "$bin"
log=$(mktemp); trap 'rm -f "$log"' EXIT
for src in src/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c); t=${t#fuzz_}
	case " $beyond_core " in *" $t "*) libs=$lib;; *) libs=$core;; esac
	# shellcheck disable=SC2086
	if ! $CC -std=c11 -g -O1 -D_GNU_SOURCE -Iinclude -Isrc -Isrc/fuzz $SAN -o "$bin/replay_$t" src/fuzz/replay.c "$src" \
		"$libs" $(pkg-config --libs $PKGS) -ldl -pthread >"$log" 2>&1; then
		echo "FAIL build replay_$t"; sed -n 1,10p "$log"; fail=$((fail + 1)); continue
	fi
	case $t in
	zip) inputs="testdata/fixtures/*.whl testdata/hostile/*.zip testdata/hostile/*.whl";;
	cubin) inputs="testdata/fixtures/*.cubin testdata/hostile/*.cubin";;
	ptx) inputs="testdata/fixtures/*.ptx testdata/hostile/*.ptx";;
	pe) inputs="testdata/fixtures/*.dll testdata/fixtures/*.pyd testdata/hostile/*.dll";;
	archive) inputs="testdata/archives/* testdata/hostile/*.tar* testdata/hostile/*.deb testdata/hostile/*.conda testdata/images/*.tar";;
	image) inputs="testdata/images/oci-layout/index.json testdata/images/oci-layout/blobs/sha256/*";;
	store) inputs="";;               # src/fuzz/corpus/store: stores made from the fixtures
	toml) inputs="";;                # src/fuzz/corpus/toml
	conda) inputs="testdata/env-conda/prefix/conda-meta/*.json testdata/env/site/*.dist-info/RECORD testdata/hostile/*.json";;
	*) inputs="testdata/fixtures/* testdata/hostile/*";;
	esac
	# shellcheck disable=SC2086
	for f in $inputs src/fuzz/corpus/$t/* src/fuzz/crashes/$t/*; do
		[ -f "$f" ] || continue
		case "$f" in */README*|*/EXPECTED) continue;; esac
		timeout 60 "$bin/replay_$t" "$f" >"$log" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && ! grep -q -E 'runtime error:|ERROR: AddressSanitizer' "$log"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)); echo "FAIL replay_$t $f (exit $rc)"; sed -n 1,15p "$log"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
