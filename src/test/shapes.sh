#!/bin/sh
# shapes.sh - the hostile shapes of scripts/gen-hostile --shapes: files of a few MB whose
# input-controlled counts multiply (sections x containers, kernels x containers, matches
# on one line, headers naming the same bytes, symbols sharing a name, ...). Each scan
# must finish within a CPU budget per input megabyte that only a scan linear (times a
# log) in those counts meets: the quadratic section lookup took 21 s on the 7 MB file.
# Environments (directory trees) are not shapes here: env.sh and inputs.sh cover them.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_BUILD:=build}"
: "${WS_BIN:=$PWD/$WS_BUILD/wheelscan}"
pass=0 fail=0
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
# CPU seconds allowed per input MiB, plus a fixed start-up allowance; sanitizers slow
# every instruction, not the growth: they get a constant factor.
per_mib=0.4 base=0.5
case "$WS_BUILD" in *san*) per_mib=2.0 base=2.0;; esac
if ! scripts/gen-hostile --shapes "$dir" >"$dir/list"; then
	echo "FAIL gen-hostile --shapes"; echo "0 passed, 1 failed"; exit 1
fi
tab=$(printf '\t')
while IFS="$tab" read -r f size opts; do
	for o in "" "--json" "$opts"; do
		# user+system CPU of the scan, from the kernel's accounting of the child
		# shellcheck disable=SC2086
		cpu=$(python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rc, "%.2f" % (u.ru_utime + u.ru_stime))' "$WS_BIN" --no-progress $o "$dir/$f")
		rc=${cpu% *} cpu=${cpu#* }
		limit=$(echo "$size $per_mib $base" | awk '{printf "%.2f", $1 / 1048576 * $2 + $3}')
		if [ "$rc" -gt 1 ]; then
			fail=$((fail + 1)); echo "FAIL $f [$o]: exit $rc"
		elif awk -v c="$cpu" -v l="$limit" 'BEGIN { exit !(c <= l) }'; then
			pass=$((pass + 1)); echo "ok $f [$o]: $cpu s CPU (budget $limit s)"
		else
			fail=$((fail + 1)); echo "FAIL $f [$o]: $cpu s CPU, over the budget of $limit s"
		fi
	done
done <"$dir/list"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
