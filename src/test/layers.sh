#!/bin/sh
# layers.sh - the core (src/core: model, rules, decoders) opens no file,
# prints nothing and starts or locks no thread: none of its objects may call the C
# library's I/O or pthread functions. Memory mappings are allowed (the sparse cubin
# image, pages given back); pthread_once is allowed (libelf's one-time init). And the
# core stands alone: every wheelscan symbol (ws_*) it uses is defined in the core itself,
# so the fuzz targets of the decoders link nothing else. Nothing in the tree refers to files
# outside it.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${WS_BUILD:=build}"
pass=0 fail=0
if [ -z "${WS_CORE_OBJ:-}" ]; then
	echo "FAIL WS_CORE_OBJ is not set (run through make check)"; echo "0 passed, 1 failed"; exit 1
fi
# The project stands alone: no source, header, script, man page or Makefile refers to files
# outside the checkout. The facts the code relies on are written in doc/ (the pattern is
# spelled so that it does not match this file's own text).
outside=$(grep -rnI -E '\.\./shared|/work/share[d]|shared/[A-Za-z0-9_-]+\.md' src include scripts man Makefile 2>/dev/null)
if [ -z "$outside" ] && [ -d doc ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL these lines cite notes outside the checkout (write the fact in doc/ and cite that):"; printf '%s\n' "$outside" | head -n 20
fi
forbidden='^(open|open64|openat|__open_2|creat|read|pread|pread64|write|pwrite|fopen|fopen64|fdopen|fread|fwrite|fprintf|printf|vfprintf|puts|fputs|fputc|putchar|__fprintf_chk|__printf_chk|__vfprintf_chk|opendir|readdir|stat|stat64|fstat|fstat64|lstat|close|fclose|dlopen|fork|popen|system|exec.*|socket|pthread_create|pthread_join|pthread_mutex_.*|pthread_cond_.*|pthread_rwlock_.*|pthread_key_.*|pthread_getspecific|pthread_setspecific)$'
for o in $WS_CORE_OBJ; do
	if [ ! -f "$o" ]; then
		fail=$((fail + 1)); echo "FAIL $o: missing"; continue
	fi
	bad=$(nm -u "$o" | awk '{ print $2 }' | sed 's/@.*//' | grep -E "$forbidden" | tr '\n' ' ')
	if [ -n "$bad" ]; then
		fail=$((fail + 1)); echo "FAIL $o calls $bad"
	else
		pass=$((pass + 1))
	fi
done
# shellcheck disable=SC2086
defined=$(nm --defined-only $WS_CORE_OBJ 2>/dev/null | awk 'NF == 3 && $2 ~ /[A-Z]/ { print $3 }' | sort -u)
# shellcheck disable=SC2086
used=$(nm -u $WS_CORE_OBJ 2>/dev/null | awk '{ print $2 }' | grep '^ws_' | sort -u)
outside=$(printf '%s\n' "$used" | grep -v -x -F "$defined" | tr '\n' ' ')
if [ -n "$used" ] && [ -z "$outside" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL the core uses wheelscan symbols defined outside it: ${outside:-(none used: nm failed?)}"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
