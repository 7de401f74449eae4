#!/bin/sh
# cli.sh - the option table, --help and the man page agree; usage errors exit 2.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
help=$("$WS_BIN" --help) || bad "--help exits non-zero"
for opt in $(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	name=${opt#--}
	# mdoc writes "Fl \-name"
	if grep -q -- "Fl \\\\-$name\\b" man/wheelscan.1; then ok; else bad "option $opt missing from man/wheelscan.1"; fi
done
# every option the man page documents exists
for name in $(grep -o 'Fl \\-[a-z][a-z-]*' man/wheelscan.1 | sed 's/Fl \\-//' | sort -u); do
	if printf '%s\n' "$help" | grep -q -- "--$name\\b"; then ok; else bad "man page documents --$name, which --help lacks"; fi
done
"$WS_BIN" --version | grep -q '^wheelscan [0-9]' && ok || bad "--version"
"$WS_BIN" >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no input: exit 2"
"$WS_BIN" --bogus x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown option: exit 2"
"$WS_BIN" --jobs 0 x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--jobs 0: exit 2"
err=$("$WS_BIN" --gpu rtx5900 x 2>&1); rc=$?
[ $rc -eq 2 ] && ok || bad "unknown GPU: exit $rc"
printf '%s' "$err" | grep -q "did you mean 'GeForce RTX 5090'" && ok || bad "unknown GPU suggestion: $err"
"$WS_BIN" --list-gpus | grep -q 'RTX 5090' && ok || bad "--list-gpus lacks RTX 5090"
# --gpu with names as nvidia-smi prints them, alone and beside auto: the list is copied
# correctly whatever the length (a long last name once read past the end of the copy)
for g in 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' 'auto,NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' \
	 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition,auto' 'H100,NVIDIA GeForce RTX 4090 Laptop GPU'; do
	out=$(WHEELSCAN_LIBCUDA=/nonexistent "$WS_BIN" --no-progress --json --gpu "$g" testdata/fixtures/sm_90.cubin 2>&1)
	printf '%s' "$out" | grep -q '"targets":\[{"name":"sm_\(120\|90\)"' && ok || bad "--gpu '$g': $(printf '%s' "$out" | head -c 300)"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
