#!/bin/sh
# setup.sh - the README's two commands are the whole set-up: `make test` installs the test
# tools itself (make deps-test) and fetches the pinned corpus (make fetch-corpus), .ci/run runs
# the two commands and the Windows test and nothing else, the schema checks run the python3 on PATH, and a missing
# tool is one line naming it, not a traceback.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

# make test's prerequisites, and what deps-test runs
pre=$(sed -n 's/^test:\(.*\)$/\1/p' Makefile)
case " $pre " in *" deps-test "*) ok;; *) bad "make test does not install the test tools (test:$pre)";; esac
case " $pre " in *" fetch-corpus "*) ok;; *) bad "make test does not fetch the pinned corpus (test:$pre)";; esac
make -n --no-print-directory deps-test 2>&1 | grep -q '^WS_WITH_TEST_TOOLS=1 scripts/install-deps$' && ok ||
	bad "make deps-test does not run WS_WITH_TEST_TOOLS=1 scripts/install-deps: $(make -n deps-test 2>&1)"
# the PyPI tools: a pinned venv each, made by the deps target of the make target that needs it
make -n --no-print-directory deps-test 2>&1 | grep -q '^scripts/py-venv venv-test scripts/requirements-test.txt' && ok ||
	bad "make deps-test does not make the venv of scripts/requirements-test.txt (jsonschema)"
case " $(sed -n 's/^wheel:\(.*\)$/\1/p' Makefile) " in *" deps-wheel "*) ok;; *) bad "make wheel does not install its tools (deps-wheel)";; esac
make -n --no-print-directory deps-wheel 2>&1 | grep -q '^scripts/py-venv venv-wheel scripts/requirements-wheel.txt' && ok ||
	bad "make deps-wheel does not make the venv of scripts/requirements-wheel.txt (ziglang, auditwheel)"
for r in scripts/requirements-test.txt scripts/requirements-wheel.txt; do
	# every requirement pinned (==) and hashed: pip --require-hashes refuses anything less
	n=$(grep -c '^[A-Za-z]' "$r"); p=$(grep -c '^[A-Za-z][A-Za-z0-9_.-]*==[0-9][^ ]* \\$' "$r")
	[ "$n" -gt 0 ] && [ "$n" = "$p" ] && ok || bad "$r: $p of $n requirements pinned as NAME==VERSION with hashes"
done
for tool in clang valgrind patchelf python3-jsonschema python3-venv man-db ca-certificates; do
	grep -q "WS_WITH_TEST_TOOLS.*$tool" scripts/install-deps && ok || bad "install-deps' test tools lack $tool"
done
# .ci/run: the README's two commands and its Windows test, nothing else (comments, set, cd
# and MAKEFLAGS aside)
cmds=$(grep -v '^[[:space:]]*#' .ci/run | grep -v '^[[:space:]]*$' | grep -v '^set -eu$' |
	grep -v '^cd "$(dirname "$0")/.."$' | grep -v '^export MAKEFLAGS=' | tr '\n' ';')
[ "$cmds" = "make run;make test;make test-windows;" ] && ok || bad ".ci/run is not the README's commands: $cmds"
grep -q '^make run ' README.md && grep -q '^make test ' README.md && ok || bad "the README lost its two commands"
grep -q 'CI (`.ci/run`)$' README.md && grep -q '^runs these two commands, then `make test-windows`' README.md &&
	ok || bad "the README does not say what CI runs"

# the schema checks run the python3 on PATH: a python3 first on PATH that cannot import
# jsonschema (here: one without site-packages) is named, and the check fails
mkdir "$t/py"
real=$(command -v python3)
printf '#!/bin/sh\nexec %s -S "$@"\n' "$real" >"$t/py/python3"
chmod +x "$t/py/python3"
echo '{}' >"$t/doc.json"
out=$(PATH=$t/py:$PATH python3 src/test/json_schema.py man/wheelscan.schema.json "$t/doc.json" 2>&1); rc=$?
[ $rc -eq 1 ] && ok || bad "json_schema.py under a python3 without jsonschema: exit $rc"
printf '%s\n' "$out" | grep -q "cannot import jsonschema" && ok || bad "json_schema.py did not run the python3 on PATH: $out"
head -n 1 src/test/json_schema.py | grep -qx '#!/usr/bin/env python3' && ok || bad "json_schema.py: $(head -n 1 src/test/json_schema.py)"
# every caller runs it through the python3 on PATH
direct=$(grep -n 'json_schema\.py' src/test/*.sh src/test/run-all Makefile | grep -v 'python3 src/test/json_schema\.py' |
	grep -v '^src/test/setup\.sh:' | grep -v ':[[:space:]]*#')
[ -z "$direct" ] && ok || bad "json_schema.py run without python3: $direct"

# a missing patchelf: one line naming it from wheel.sh and from scripts/build-wheel, no traceback
mkdir "$t/bin"
for d in /usr/local/bin /usr/bin /bin; do
	for f in "$d"/*; do
		b=${f##*/}
		[ "$b" = patchelf ] || [ -e "$t/bin/$b" ] || ln -s "$f" "$t/bin/$b" 2>/dev/null
	done
done
ln -sf "$real" "$t/bin/python3"
out=$(PATH=$t/bin WS_BUILD=build WS_BIN=${WS_BIN:-$PWD/wheelscan} sh src/test/wheel.sh 2>&1); rc=$?
[ $rc -ne 0 ] && ok || bad "wheel.sh without patchelf passed"
printf '%s\n' "$out" | grep -q "wheel.sh needs patchelf, which is missing" && ok || bad "wheel.sh without patchelf: $out"
printf '%s\n' "$out" | grep -q Traceback && bad "wheel.sh without patchelf: a traceback: $out" || ok
out=$(PATH=$t/bin python3 scripts/build-wheel "${WS_BIN_REAL:-${WS_BIN:-$PWD/wheelscan}}" 0.0.0 "$t/dist" 2>&1); rc=$?
[ $rc -ne 0 ] && ok || bad "build-wheel without patchelf: exit 0"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s\n' "$out" | grep -q "build-wheel: patchelf missing" && ok ||
	bad "build-wheel without patchelf: $out"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
