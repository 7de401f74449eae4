#!/bin/sh
# limits.sh - the limits of model.c (ws_limits_default) hold on inputs built to cross them,
# where a hostile file of testdata/hostile does not already: a container with more entries
# than the 4096 limit is an error naming the limit, not decoded entry by entry.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# N opaque (LTO-IR, kind 8) entries of a bare 64-byte header each, in one container
mk() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
n = int(sys.argv[1])
e = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 0, 0, 0, 0, 9, 90).ljust(64, b"\0")
open(sys.argv[2], "wb").write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 64 * n) + e * n)
PY
}
mk 4096 "$t/at.fatbin"
mk 4097 "$t/over.fatbin"
"$WS_BIN" --no-progress --json "$t/at.fatbin" >"$t/o" 2>"$t/e"; rc=$?
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["artifacts"][0]["objects"][0]["fatbins"][0]["entries"]))' "$t/o" 2>/dev/null)
check "4096 entries are read ($n, exit $rc)" '[ $rc -eq 0 ] && [ "$n" = 4096 ]'
# an arch field past 16 bits is clamped (9999), not cut to its low half (65536 + 90 is not 90)
python3 -c '
import struct, sys
e = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 0, 0, 0, 0, 9, 65536 + 90).ljust(64, b"\0")
open(sys.argv[1], "wb").write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 64) + e)' "$t/wide.fatbin"
"$WS_BIN" --no-progress --json "$t/wide.fatbin" >"$t/w" 2>/dev/null
a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["artifacts"][0]["objects"][0]["fatbins"][0]["entries"][0]["arch"])' "$t/w" 2>/dev/null)
check "arch 65626 is lto_9999 ($a)" '[ "$a" = lto_9999 ]'
# LTO-IR is never decoded: every such entry is opaque, obfuscated or not (these are not)
o=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["artifacts"][0]["objects"][0]["fatbins"][0]["entries"]; print(sorted(set((x["kind"], x["opaque"], x["kernels"]) for x in e)))' "$t/o" 2>/dev/null)
check "unobfuscated LTO-IR entries are opaque ($o)" '[ "$o" = "[('"'"'ltoir'"'"', True, None)]" ]'
"$WS_BIN" --no-progress "$t/over.fatbin" >"$t/o" 2>"$t/e"; rc=$?
check "4097 entries: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "4097 entries: the limit is named" 'grep -q "has more than 4096 entries" "$t/e"'
# an entry header size that is not a multiple of 8 (every real one is: doc/fatbin-format.md (c))
# puts the next entry at the wrong place: the second entry's 68 is an error naming it
python3 -c '
import struct, sys
lto = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 0, 0, 0, 0, 9, 90).ljust(64, b"\0")
odd = struct.pack("<HHIQIIHHI", 8, 0x0101, 68, 4, 0, 0, 0, 9, 90).ljust(72, b"\0")
open(sys.argv[1], "wb").write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 64 + 72) + lto + odd)' "$t/odd.fatbin"
"$WS_BIN" --no-progress "$t/odd.fatbin" >"$t/o" 2>"$t/e"; rc=$?
check "entry header size 68: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "entry header size 68: named" 'grep -q "bad entry header size 68" "$t/e"'
# an entry whose header plus payload runs 8 bytes past its container (its payload alone
# would fit) is an error, not read into the bytes after the container
python3 -c '
import struct, sys
lto = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 0, 0, 0, 0, 9, 90).ljust(64, b"\0")
big = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 16, 0, 0, 0, 9, 90).ljust(64, b"\0")
open(sys.argv[1], "wb").write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 64 + 64 + 8) + lto + big + bytes(8) + b"after the container!")' "$t/past.fatbin"
"$WS_BIN" --no-progress "$t/past.fatbin" >"$t/o" 2>"$t/e"; rc=$?
check "entry 8 bytes past its container: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "entry past its container: named" 'grep -q "entry of 64+16 bytes runs past its container (72 left)" "$t/e"'
# a SASS entry whose ELF is not for EM_CUDA (here x86-64) is not read as a cubin
python3 - testdata/fixtures/g5-none.fatbin "$t/x86.fatbin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(b"\x7fELF")
assert struct.unpack_from("<H", b, i + 18)[0] == 190       # EM_CUDA
struct.pack_into("<H", b, i + 18, 62)
open(sys.argv[2], "wb").write(b)
PY
"$WS_BIN" --no-progress "$t/x86.fatbin" >"$t/o" 2>"$t/e"; rc=$?
check "SASS entry of an x86-64 ELF: exit 3 ($rc)" '[ $rc -eq 3 ]'
check "SASS entry of an x86-64 ELF: named" 'grep -q "cubin machine is 62, not EM_CUDA" "$t/e"'
# ---- the artifact budget: what one artifact may spend over all its members ----------------
# CPU seconds and peak RSS (KiB) of a scan, from the kernel's accounting of the child
usage() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=open(sys.argv[-1] + ".out", "w"), stderr=open(sys.argv[-1] + ".err", "w"))
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, "%.2f" % (u.ru_utime + u.ru_stime), u.ru_maxrss)' "$WS_BIN" --no-progress "$@"
}
below() { awk -v v="$1" -v l="$2" 'BEGIN { exit !(v <= l) }'; }
skip=0
case "${WS_BUILD:-build}" in *san*) san=1 cpu_max=20;; *) san=0 cpu_max=4;; esac
# 512 zstd entries of 8 KB, each 255 MiB of PTX, in a 6 KB zip: 4 decode (1 GiB + 64 x
# 5,700 bytes), the rest are not decoded and say so; 32 s of CPU without the budget
read -r rc cpu kib <<EOF
$(usage --json testdata/hostile/budget-decoded-bomb.zip "$t/bomb")
EOF
check "decoded bomb: exit 3 ($rc)" '[ "$rc" -eq 3 ]'
check "decoded bomb: $cpu s CPU, at most $cpu_max" 'below "$cpu" "$cpu_max"'
check "decoded bomb: the limit is named once" '[ "$(grep -c "decoded entry bytes exceed 1074106624: a decompression bomb? the remaining entries were not decoded" "$t/bomb.err")" = 1 ]'
d=$(python3 -c 'import json,sys
e = [x for o in json.load(open(sys.argv[1]))["artifacts"][0]["objects"] for f in o["fatbins"] for x in f["entries"]]
print(sum(x["kernels"] == [] and "error" not in x for x in e), sum(x["kernels"] is None and "limit is spent" in x.get("error", "") for x in e))' "$t/bomb.out" 2>/dev/null)
check "decoded bomb: 4 entries decoded, 508 not and their kernels unknown ($d)" '[ "$d" = "4 508" ]'
# members whose containers, entries or errors add up past one artifact's: 8 x 600,000
# containers (1.7 GB without the budget), 8 x 655,360 entries (1 GB), 100 members of 12,285
# errors (and entries: 450 MB, the errors held until the merge)
python3 - "$t" <<'PY'
import struct, sys, zipfile
lto = struct.pack("<HHIQIIHHI", 8, 0x0101, 64, 0, 0, 0, 0, 9, 90).ljust(64, b"\0")
both = struct.pack("<HHIQIIHHIIIQ", 1, 0x0101, 64, 0, 0, 0, 0, 8, 90, 0, 0, 0xA011).ljust(64, b"\0")
def cont(body):
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body
for name, n, m in (("containers", 8, cont(b"") * 600000), ("entries", 8, cont(lto * 4096) * 160),
                   ("errors", 100, cont(lto + both * 4095) * 3)):
    with zipfile.ZipFile("%s/%s.zip" % (sys.argv[1], name), "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for i in range(n):
            z.writestr("m%d.fatbin" % i, m)
PY
for c in "containers 600000 more than 1048576 fatbin containers in the artifact: the remaining containers were not read" \
	 "entries 300000 more than 1048576 fatbin entries in the artifact: the remaining entries were not read" \
	 "errors 340000 entry claims both LZ4 and zstd compression"; do
	k=${c%% *} c=${c#* } rss=${c%% *} msg=${c#* }
	read -r rc cpu kib <<EOF
$(usage "$t/$k.zip" "$t/$k")
EOF
	check "$k: exit 3 ($rc)" '[ "$rc" -eq 3 ]'
	check "$k: named" 'grep -q -F "$msg" "$t/$k.err"'
	if [ $san = 1 ]; then
		skip=$((skip + 1)); echo "skipped: $k: peak RSS under a sanitizer (its shadow memory)"
	else
		check "$k: peak RSS $kib KiB, at most $rss" 'below "$kib" "$rss"'
	fi
done
n=$(grep -c "entry claims both" "$t/errors.err")
check "errors: at most 10,000 recorded ($n)" '[ "$n" -le 10000 ]'
# one file on disk is held to the member limit (--max-member-size, 8 GiB by default): a
# 20 GiB sparse ELF cost 30 s of CPU, hashed whole; a RECORD row naming a 12 GiB sparse
# file in an installed environment had it read whole
cp testdata/fixtures/multi.so "$t/huge.so" && truncate -s 20G "$t/huge.so"
timeout 20 "$WS_BIN" --no-progress "$t/huge.so" >"$t/o" 2>"$t/e"; rc=$?
check "a 20 GiB file: exit 3, refused unread ($rc)" \
	'[ $rc -eq 3 ] && grep -q "huge.so.: file is 21474836480 bytes, over the 8 GiB limit for one file" "$t/e"'
"$WS_BIN" --no-progress --max-member-size=32K testdata/fixtures/multi.so >"$t/o" 2>"$t/e"; rc=$?
check "--max-member-size holds for a plain file ($rc)" '[ $rc -eq 3 ] && grep -q "over the 32 KiB limit for one file" "$t/e"'
# an archive file over the total limit: refused unread (a sparse .tar was hashed whole)
truncate -s 2G "$t/sparse.tar"
timeout 20 "$WS_BIN" --no-progress --max-total-size=1G "$t/sparse.tar" >"$t/o" 2>"$t/e"; rc=$?
check "a 2 GiB .tar over --max-total-size=1G: exit 3, refused unread ($rc)" \
	'[ $rc -eq 3 ] && grep -q "sparse.tar.: file is 2147483648 bytes, over the 1 GiB total limit of one archive" "$t/e"'
head -c 4096 testdata/fixtures/example.whl >"$t/sparse.whl" && truncate -s 2G "$t/sparse.whl"
timeout 20 "$WS_BIN" --no-progress --max-total-size=1G "$t/sparse.whl" >"$t/o" 2>"$t/e"; rc=$?
check "a 2 GiB .whl over --max-total-size=1G: exit 3, refused unread ($rc)" \
	'[ $rc -eq 3 ] && grep -q "sparse.whl.: file is 2147483648 bytes, over the 1 GiB total limit of one archive" "$t/e"'
mkdir -p "$t/site/big-1.0.dist-info" "$t/site/big"
truncate -s 12G "$t/site/big/blob.bin"
printf 'Metadata-Version: 2.1\nName: big\nVersion: 1.0\n' >"$t/site/big-1.0.dist-info/METADATA"
printf 'big/blob.bin,sha256=AAAA,12884901888\nbig-1.0.dist-info/METADATA,,\nbig-1.0.dist-info/RECORD,,\n' \
	>"$t/site/big-1.0.dist-info/RECORD"
timeout 20 "$WS_BIN" --no-progress -r "$t/site" >"$t/o" 2>"$t/e"; rc=$?
check "an installed 12 GiB file named in RECORD: refused unread ($rc)" \
	'[ $rc -eq 3 ] && grep -q "blob.bin.*file is 12884901888 bytes, over the 8 GiB limit for one file" "$t/e"'
# memory per zip member: 100,000 one-byte members took 180 MB at --jobs 4 (an artifact
# struct kept per member until the end, and each runner's own copy of the directory);
# now about 60 MB. Plain builds only: a sanitizer's shadow memory is not the scanner's.
case "${WS_BUILD:-build}" in
*san*) ;;
*)
	if [ -x /usr/bin/time ]; then
		python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED)
for i in range(100000): z.writestr("pkg/sub/dir/file%06d.txt" % i, b"x")
z.close()' "$t/many.zip"
		/usr/bin/time -f '%M' -o "$t/rss" "$WS_BIN" --no-progress --jobs 4 "$t/many.zip" >/dev/null 2>"$t/e"; rc=$?
		kb=$(tail -n 1 "$t/rss")
		check "100,000 zip members at --jobs 4: exit $rc, peak RSS $kb KiB, under 100 MiB" \
			'[ $rc -eq 0 ] && [ "$kb" -lt 102400 ]'
		# wheelscan's own bytes per member, beside libzip's (issue 40: 168 on top of libzip's
		# 300, then 84; now about 50): 300,000 empty members, each program's growth over a
		# 1-member zip, wheelscan's less libzip's zip_open alone, at most 64 bytes a member
		if command -v cc >/dev/null && pkg-config --exists libzip 2>/dev/null; then
			printf '#include <zip.h>\nint main(int c, char **v) { int e; zip_t *z = zip_open(v[1], ZIP_RDONLY, &e); if (!z) return 1; zip_discard(z); return 0; }\n' >"$t/zo.c"
			cc -O2 -o "$t/zo" "$t/zo.c" $(pkg-config --cflags --libs libzip)
			python3 - "$t/m300k.zip" 300000 "$t/m1.zip" 1 <<'PY'
import struct, sys
for out, n in ((sys.argv[1], int(sys.argv[2])), (sys.argv[3], int(sys.argv[4]))):
    with open(out, "wb") as f:
        cd = bytearray()
        for i in range(n):
            name = b"many/m%07d" % i
            off = f.tell()
            f.write(struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name)
            cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0, 0, 0, 0, 0o644 << 16, off) + name
        start = f.tell()
        f.write(cd)
        if n < 0xffff:
            f.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, n, n, len(cd), start, 0))
        else:
            f.write(struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, n, n, len(cd), start) +
                    struct.pack("<IIQI", 0x07064b50, 0, start + len(cd), 1) +
                    struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xffff, 0xffff, 0xffffffff, 0xffffffff, 0))
PY
			rss() { /usr/bin/time -f '%M' -o "$t/rss" "$@" >/dev/null 2>"$t/e"; echo "$? $(tail -n 1 "$t/rss")"; }
			r=$(rss "$t/zo" "$t/m1.zip"); zr1=${r% *} z1=${r#* }
			r=$(rss "$t/zo" "$t/m300k.zip"); zr2=${r% *} z2=${r#* }
			r=$(rss "$WS_BIN" --no-progress -q --jobs 1 "$t/m1.zip"); wr1=${r% *} w1=${r#* }
			r=$(rss "$WS_BIN" --no-progress -q --jobs 1 "$t/m300k.zip"); wr2=${r% *} w2=${r#* }
			own=$(( ((w2 - w1) - (z2 - z1)) * 1024 / 300000 ))
			lz=$(( (z2 - z1) * 1024 / 300000 ))
			check "300,000 zip members: $own bytes a member of wheelscan's own beside libzip's $lz, at most 64 (exits $zr1 $zr2 $wr1 $wr2)" \
				'[ "$zr1$zr2$wr1" = 000 ] && [ "$wr2" -le 1 ] && [ "$own" -le 64 ]'
		else
			echo "skipped: wheelscan's memory per zip member beside libzip's (no cc or libzip's pkg-config)"
			skip=$((skip + 1))
		fi
		# memory per input of -r, whatever waits ahead of the report: 20,000 small files (one
		# file's hard links), the growth over one of them, at most 450 bytes an input (issue
		# 40: 650, a job per input kept for the whole run; now about 350: the input's path and
		# the summary's row, the jobs a ring of the run-ahead window)
		mkdir -p "$t/ra"
		cp testdata/fixtures/nokernels.so "$t/small.so"
		python3 -c 'import os, sys
for i in range(20000):
    d = os.path.join(sys.argv[1], "p%02d" % (i % 50))
    os.makedirs(d, exist_ok=True)
    os.link(sys.argv[2], os.path.join(d, "f%05d.so" % i))' "$t/ra" "$t/small.so"
		/usr/bin/time -f '%M' -o "$t/rss" "$WS_BIN" --no-progress -q --gpu sm_90 "$t/small.so" >/dev/null 2>"$t/e"; r1=$?
		k1=$(tail -n 1 "$t/rss")
		/usr/bin/time -f '%M' -o "$t/rss" "$WS_BIN" --no-progress -q --gpu sm_90 -r "$t/ra" >"$t/o" 2>"$t/e"; r2=$?
		k2=$(tail -n 1 "$t/rss")
		per=$(( (k2 - k1) * 1024 / 20000 ))
		check "-r over 20,000 small files: $per bytes an input over one file's peak, at most 450 (exits $r1 $r2)" \
			'[ "$r1$r2" = 00 ] && [ "$per" -le 450 ] && grep -q "passed (20000 artifacts)" "$t/o"'
	else
		echo "skipped: the memory per zip member (no /usr/bin/time)"
	fi
	;;
esac
# an entry over --max-entry-size is stopped by a limit, and says so in the error's code (JSON
# and the store): every one of multi.so's ten stops is "limit", none "format"
"$WS_BIN" --no-progress --json --max-entry-size 1K testdata/fixtures/multi.so >"$t/o" 2>"$t/e"; rc=$?
codes=$(python3 -c 'import json,sys; print(" ".join(sorted(set(e["code"] for e in json.load(open(sys.argv[1]))["artifacts"][0]["errors"]))), len(json.load(open(sys.argv[1]))["artifacts"][0]["errors"]))' "$t/o" 2>/dev/null)
check "--max-entry-size 1K on multi.so: ten errors of code limit, exit 3 ($codes, exit $rc)" '[ "$codes" = "limit 10" ] && [ $rc -eq 3 ]'
# a wheel's METADATA over its 16 MiB cap is a limit too (the cap is read from the zip
# directory, so the 16 MiB of text deflate to a few KiB)
python3 -c '
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("bigmeta-1.0.dist-info/METADATA", "M" * ((16 << 20) + 1))
    z.writestr("bigmeta-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
    z.writestr("bigmeta-1.0.dist-info/RECORD", "")' "$t/bigmeta-1.0-py3-none-any.whl"
"$WS_BIN" --no-progress --json "$t/bigmeta-1.0-py3-none-any.whl" >"$t/o" 2>"$t/e"; rc=$?
codes=$(python3 -c 'import json,sys; print(" ".join(e["code"] for e in json.load(open(sys.argv[1]))["artifacts"][0]["errors"]))' "$t/o" 2>/dev/null)
check "a METADATA over 16 MiB: one error of code limit, exit 3 ($codes, exit $rc)" '[ "$codes" = limit ] && [ $rc -eq 3 ] && grep -q "is larger than 16 MiB" "$t/e"'
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
