#!/bin/sh
# layers.sh - the core (src/core: model, rules, decoders) opens no file,
# prints nothing and starts or locks no thread: none of its objects may call the C
# library's I/O or pthread functions. Memory mappings are allowed (the sparse cubin
# image, pages given back); pthread_once is allowed (libelf's one-time init). And the
# core stands alone: every wheelscan symbol (ws_*) it uses is defined in the core itself,
# so the fuzz targets of the decoders link nothing else. Nothing in the tree refers to files
# outside it. And the program's shape stays climbable (issue 26); each measure is printed:
# - no circle between files: file A refers to file B when A's object uses a symbol (a
#   function or data, as nm lists it) that B's object defines, which is what including B's
#   header is for; a circle is two or more files each reachable from the other;
# - no function over 120 lines: from the line of its opening brace to the line of its
#   closing brace, every line counted, blank and comment lines too;
# - no writer (src/report*.c, src/output.c) includes the rules header ws_compat.h, directly
#   or through other headers: they take the model's names from ws_vocab.h.
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

# ---- the program's shape (issue 26) -----------------------------------------------------
# The program's own sources: tests and fuzz targets are not measured.
sources=$(ls src/*.c src/core/*.c 2>/dev/null)

# Circles: the file graph from nm, then its transitive closure (Warshall; some 80 files).
obj_of() { b=$(basename "$1" .c); printf '%s/%s.o' "$WS_BUILD" "$b"; }
graph=$(for c in $sources; do
	o=$(obj_of "$c")
	[ -f "$o" ] || { echo "missing $c $o"; continue; }
	nm "$o" | awk -v f="$c" 'NF == 3 && $2 ~ /^[TDBR]$/ { print "def", f, $3 } NF == 2 && $1 == "U" { print "use", f, $2 }'
done)
missing=$(printf '%s\n' "$graph" | awk '$1 == "missing" { print $2 }' | tr '\n' ' ')
circles=$(printf '%s\n' "$graph" | awk '
	$1 == "def" { def[$3] = $2; file[$2] = 1 }
	$1 == "use" { use[$2, $3] = 1; file[$2] = 1 }
	END {
		n = 0; for (f in file) name[++n] = f
		for (k in use) { split(k, p, SUBSEP); d = def[p[2]]; if (d != "" && d != p[1]) edge[p[1], d] = 1 }
		for (m = 1; m <= n; m++) for (i = 1; i <= n; i++) if ((name[i], name[m]) in edge)
			for (j = 1; j <= n; j++) if ((name[m], name[j]) in edge) edge[name[i], name[j]] = 1
		for (i = 1; i <= n; i++) {
			if (done[name[i]] || !((name[i], name[i]) in edge)) continue
			line = name[i]; done[name[i]] = 1
			for (j = 1; j <= n; j++) if (j != i && !done[name[j]] && ((name[i], name[j]) in edge) && ((name[j], name[i]) in edge)) {
				line = line " " name[j]; done[name[j]] = 1 }
			print line
		}
	}' | sort)
ncircles=$(printf '%s' "$circles" | grep -c .)
nfiles=$(printf '%s\n' "$graph" | awk '$1 == "def" || $1 == "use" { print $2 }' | sort -u | grep -c .)
echo "measure: $ncircles circles between the $nfiles files of src/ and src/core/"
if [ -z "$missing" ] && [ "$ncircles" -eq 0 ] && [ "$nfiles" -gt 0 ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL files that refer to each other (each line one circle)${missing:+; objects missing for $missing}:"
	printf '%s\n' "$circles" | sed 's/^/  /'
fi

# Functions over 120 lines. A small C lexer: comments, strings and character constants
# are blanked, so a brace inside them is not counted; a brace at depth 0 whose code
# before it (on its line or the lines above) ends in ")" opens a function body.
long_fns=$(awk '
	FNR == 1 { depth = 0; incomment = 0; inpp = 0; last = "" }
	{
		line = $0; code = ""; i = 1; L = length(line)
		while (i <= L) {
			c = substr(line, i, 1); c2 = substr(line, i, 2)
			if (incomment) { if (c2 == "*/") { incomment = 0; i += 2 } else i++; continue }
			if (c2 == "/*") { incomment = 1; i += 2; continue }
			if (c2 == "//") break
			if (c == "\"" || c == "\047") {
				q = c; i++
				while (i <= L && substr(line, i, 1) != q) i += (substr(line, i, 1) == "\\") ? 2 : 1
				i++; code = code q q; continue
			}
			code = code c; i++
		}
		# a directive, with its continued lines (a macro body is not a function)
		if (inpp || code ~ /^[ \t]*#/) { inpp = $0 ~ /\\$/; next }
		for (k = 1; k <= length(code); k++) {
			c = substr(code, k, 1)
			if (c == "{") {
				if (depth == 0 && last == ")") { start = FNR; infn = 1 }
				depth++
			} else if (c == "}") {
				depth--
				if (depth == 0 && infn) {
					infn = 0; n = FNR - start + 1; nfn++
					if (n > 120) printf "%s:%d %d lines\n", FILENAME, start, n
				}
			}
			if (c !~ /[ \t]/) last = c
		}
	}
	END { print "count " nfn }' $sources)
nfns=$(printf '%s\n' "$long_fns" | sed -n 's/^count //p')
long_fns=$(printf '%s\n' "$long_fns" | grep -v '^count ')
nlongfn=$(printf '%s' "$long_fns" | grep -c .)
echo "measure: $nlongfn of ${nfns:-0} functions over 120 lines"
if [ "$nlongfn" -eq 0 ] && [ "${nfns:-0}" -gt 0 ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL functions over 120 lines (split them into named steps):"
	printf '%s\n' "$long_fns" | sed 's/^/  /'
fi

# Writers and the rules header: the closure of each writer's quoted includes.
includes_of() {
	seen="" todo=$1
	while [ -n "$todo" ]; do
		set -- $todo; f=$1; shift; todo=$*
		for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
			case " $seen " in *" $h "*) continue;; esac
			seen="$seen $h"
			for d in include src src/core; do
				[ -f "$d/$h" ] && { todo="$todo $d/$h"; break; }
			done
		done
	done
	printf '%s\n' $seen
}
writers=$(ls src/report*.c src/output.c)
rules_writers=$(for w in $writers; do includes_of "$w" | grep -qx 'ws_compat.h' && echo "$w"; done)
nrw=$(printf '%s' "$rules_writers" | grep -c .)
echo "measure: $nrw of $(printf '%s\n' $writers | grep -c .) writers include the rules header ws_compat.h"
if [ "$nrw" -eq 0 ] && [ -f include/ws_compat.h ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL writers that include the rules (directly or through a header):"
	printf '%s\n' "$rules_writers" | sed 's/^/  /'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
