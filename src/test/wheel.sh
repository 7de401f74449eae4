#!/bin/sh
# wheel.sh - the pip-installable wheel: scripts/build-wheel packs the binary and its
# non-system libraries; pip installs it into a throw-away venv, and the `wheelscan` it puts
# on PATH runs the example from the bundled libraries, with the documented exit statuses and
# SIGPIPE behaviour, and `man wheelscan` finds its page. The binary needs no glibc symbol
# newer than the tag says, and the wheel carries the licences of what it bundles.
# WS_WHEEL=FILE tests that wheel (make test: the one `make wheel` cross-built into dist/)
# instead, and then also that it installs on glibc 2.28 (manylinux_2_28 or older), is under
# 10 MB, carries the licence of each library linked in, and that auditwheel, where
# installed, agrees with its tag.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# the wheel packs the plain binary: the sanitizer pass has nothing of its own to check here
case "${WS_BUILD:-build}" in *san*) echo "skipped: the wheel on the sanitizer build (it packs the plain binary)"; echo "0 passed, 0 failed, 1 skipped"; exit 0;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# a missing tool is one line naming it (and a failure: a check that cannot run must not pass)
for t in python3 patchelf readelf ldd; do
	command -v "$t" >/dev/null || { echo "FAIL: wheel.sh needs $t, which is missing (make deps-test)"; echo "0 passed, 1 failed"; exit 1; }
done
python3 -c 'import venv, ensurepip' 2>/dev/null || { echo "FAIL: wheel.sh needs python3 -m venv with pip, which $(command -v python3) lacks (Debian: python3-venv; make deps-test)"; echo "0 passed, 1 failed"; exit 1; }
whl=${WS_WHEEL:-}
if [ -z "$whl" ]; then
	whl=$(scripts/build-wheel "${WS_BIN_REAL:-$WS_BIN}" 0.0.0 "$tmp/dist" 2>"$tmp/log") || { bad "scripts/build-wheel failed: $(tail -n 1 "$tmp/log")"; whl=""; }
fi
case "$(basename "$whl")" in
wheelscan-*-py3-none-manylinux_2_[0-9]*_x86_64.whl) ok;;
*) bad "wheel name '$whl' is not wheelscan-VERSION-py3-none-manylinux_2_NN_x86_64.whl";;
esac
# The binary's glibc version needs (readelf's .gnu.version_r): none newer than the tag's
tag=$(basename "$whl" | sed -n 's/.*-py3-none-manylinux_\([0-9]*\)_\([0-9]*\)_x86_64\.whl$/\1.\2/p')
mkdir -p "$tmp/unz"
if [ -n "$tag" ] && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$tmp/unz" 2>"$tmp/log"; then
	newest=$(readelf -V -W "$tmp/unz/wheelscan_bin/bin/wheelscan" | sed -n 's/.*Name: GLIBC_\([0-9.]*\).*/\1/p' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
	[ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" "$tag" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)" = "$tag" ] && ok ||
		bad "the binary needs GLIBC_$newest, newer than the tag's glibc $tag (or none was read)"
	echo "wheel: tag glibc $tag, newest GLIBC_ symbol version needed $newest"
	lic=$(find "$tmp/unz" -path '*.dist-info/licenses/*' -type f | wc -l)
	bundled=$(find "$tmp/unz/wheelscan_bin/lib" -type f 2>/dev/null | wc -l)
	# (build-wheel itself refuses a bundled library whose package has no copyright file;
	# two libraries of one package share it)
	{ [ "$bundled" -eq 0 ] || [ "$lic" -gt 0 ]; } && ok || bad "$bundled bundled libraries, no licence files"
	if [ -n "${WS_WHEEL:-}" ]; then
		# the cross-built wheel: glibc 2.28 at most, each library linked in has its licence
		[ "$(printf '%s\n2.28\n' "$tag" | sort -t. -k1,1n -k2,2n | tail -n 1)" = 2.28 ] && ok || bad "tag manylinux_${tag} is newer than manylinux_2_28"
		for d in zlib bzip2 xz-utils lz4 libzstd libisal libseccomp sqlite3 openssl elfutils libzip libarchive; do
			[ -s "$(ls "$tmp"/unz/*.dist-info/licenses/$d/debian-copyright 2>/dev/null)" ] && ok || bad "no licence for $d in the wheel"
		done
		size=$(wc -c < "$whl")
		[ "$size" -lt 10485760 ] && ok || bad "the wheel is $size bytes, not under 10 MB"
		if command -v auditwheel >/dev/null; then
			aw=$(auditwheel show "$whl" 2>&1 | tr '\n' ' ')
			printf '%s\n' "$aw" | grep -q "consistent with the following platform tag: \"manylinux_$(echo "$tag" | tr . _)_x86_64\"" && ok ||
				bad "auditwheel show does not agree with manylinux_$tag: $aw"
		else
			skip=$((skip + 1)); echo "skipped: auditwheel show (not installed: pip install auditwheel)"
		fi
	fi
else
	bad "cannot read the tag of '$whl' or unpack it: $(tail -n 1 "$tmp/log")"
fi
if ! python3 -m venv "$tmp/venv" >"$tmp/log" 2>&1; then
	bad "python3 -m venv failed (Debian: python3-venv): $(tail -n 2 "$tmp/log")"
elif ! "$tmp/venv/bin/pip" install --no-index --quiet "$whl" >"$tmp/log" 2>&1; then
	bad "pip install $whl: $(tail -n 3 "$tmp/log")"
else
	ok
	W=$tmp/venv/bin/wheelscan
	[ -x "$W" ] && ok || bad "no wheelscan on the venv's PATH"
	out=$(PATH=$tmp/venv/bin:/usr/bin:/bin wheelscan --gpu 'RTX 5090,H100' \
		testdata/fixtures/wscan_example-0.1.0+cu124-cp311-cp311-manylinux_2_28_x86_64.whl 2>&1); rc=$?
	[ $rc -eq 1 ] && ok || bad "the example through the installed wheelscan: exit $rc, not 1: $out"
	printf '%s\n' "$out" | grep -q "=> GeForce RTX 5090 (sm_120): will NOT run" && ok || bad "the example's verdict: $out"
	printf '%s\n' "$out" | grep -q "=> H100 (sm_90): will NOT run" && ok || bad "the example's H100 verdict: $out"
	# the installed binary loads glibc's libraries from the system and nothing else but
	# what the wheel bundles (the cross-built wheel: nothing; its libraries are linked in)
	exe=$(find "$tmp/venv" -path '*/wheelscan_bin/bin/wheelscan')
	foreign=$(ldd "$exe" | awk '$2 == "=>" { print $1, $3 }' |
		grep -Ev '^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libnsl|libgcc_s|libstdc\+\+|ld-linux-x86-64)\.so[^ ]* ' | grep -v " $tmp/venv/")
	[ -z "$foreign" ] && ok || bad "libraries loaded from outside the wheel: $foreign"
	# the man page in the wheel's data directory: man finds it beside the venv's bin/
	if command -v man >/dev/null; then
		page=$(env -u MANPATH PATH="$tmp/venv/bin:/usr/bin:/bin" man -w wheelscan 2>&1)
		case "$page" in "$tmp/venv/share/man/man1/wheelscan.1"*) ok;; *) bad "man -w wheelscan after the install: $page";; esac
	else
		skip=$((skip + 1)); echo "skipped: man -w wheelscan (no man here; Debian: man-db)"
	fi
	"$W" testdata/fixtures/multi.so >/dev/full 2>"$tmp/err"; rc=$?
	[ $rc -eq 4 ] && grep -q "write error: No space left on device" "$tmp/err" && ok || bad "installed: /dev/full exit $rc"
	res=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, len(p.stderr))' "$W" testdata/fixtures/multi.so)
	[ "$res" = "-13 0" ] && ok || bad "installed wheelscan into a closed pipe: '$res', not killed by SIGPIPE quietly"
	"$W" --version | grep -q '^wheelscan ' && ok || bad "--version"
	# the completions ship in the wheel, as the installed binary writes them
	share=$(dirname "$(dirname "$exe")")/share
	for f in bash-completion/completions/wheelscan:bash zsh/site-functions/_wheelscan:zsh \
		 fish/vendor_completions.d/wheelscan.fish:fish; do
		"$W" --completion "${f##*:}" | cmp -s - "$share/${f%:*}" && ok || bad "the wheel's ${f%:*} is not --completion ${f##*:}"
	done
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
