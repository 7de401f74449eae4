#!/bin/sh
# mutations.sh - every seeded bug in src/test/mutation/mutations.txt still applies: its exact text
# occurs once in its file (scripts/mutate --check). A refactor that moves the code a
# mutation names makes it stale, and a stale mutation tests nothing: it fails here, in
# make check, rather than being found at the next slow `make mutate`.
set -u
cd "$(dirname "$0")/../.." || exit 1
. src/test/skip.inc
# Under scripts/mutate the tree holds one mutation applied, so its text is "stale" here:
# failing would count every mutant as caught, however the real tests fared.
[ -n "${WS_MUTATING:-}" ] && skip_all "a mutation run (the applied mutation's own text is gone)" no
out=$(python3 scripts/mutate --check 2>&1)
rc=$?
stale=$(printf '%s\n' "$out" | grep -c '^stale ')
total=$(printf '%s\n' "$out" | sed -n 's/^\([0-9][0-9]*\) mutations.*/\1/p')
printf '%s\n' "$out" | grep '^stale ' | sed 's/^/FAIL: /'
if [ -z "$total" ]; then
	printf '%s\n' "$out" | tail -n 5
	echo "0 passed, 1 failed"
	exit 1
fi
[ "$stale" -eq 0 ] && [ $rc -ne 0 ] && stale=1     # an error that named no mutation
echo "$((total - stale)) passed, $stale failed"
[ "$stale" -eq 0 ]
