#!/bin/sh
# oracle_cuobjdump.sh - compare wheelscan's SASS/PTX lists with NVIDIA's cuobjdump, an independent
# reader, over the fixtures and the CUDA toolkit's own libraries.
#
# For every file, the multiset of architecture names that `cuobjdump -all --list-elf --list-ptx`
# prints must equal the one in `$WS_BIN --json FILE` (man/wheelscan.schema.json). What cuobjdump can and
# cannot see decides what is compared (all found by experiment with cuobjdump 13.5.37):
#   - it reads only the .nv_fatbin and __nv_relfatbin sections (the latter only with -all), so
#     wheelscan's containers in other sections (.ldata, .rodata, .cask_resource) are left out;
#     raw fatbins, bare cubins and archive members are compared whole;
#   - it lists no LTO-IR, so ltoir entries are left out;
#   - it names PTX sm_XY where wheelscan says compute_XY, and drops the 'f' of SASS family
#     builds (sm_100f is listed as sm_100.cubin, while PTX keeps compute_120f): SASS names are
#     compared without a final 'f';
#   - it cannot read PTX files or zips ("does not contain device code"), so those are not fed to it.
# cuobjdump comes from PyPI (nvidia-cuda-cuobjdump) and is installed under the user's cache when
# it is not already on the machine; when it cannot be installed the test says so and passes.
#
# Environment: WS_BIN (wheelscan binary), CUOBJDUMP (use this cuobjdump), WS_CUDA_LIB64 (default
# as src/test/cuda_lib64.inc says; "none" to skip the toolkit libraries), WS_ORACLE_CUOBJDUMP_ONLY=1 (only
# print what cuobjdump lists, for checking the oracle itself).
set -u
cd "$(dirname "$0")/../.." || exit 1

CUOBJDUMP_VERSION=13.5.37
CACHE=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/wheelscan
. src/test/cuda_lib64.inc
LIB64=$cuda_lib64
: "${WS_BIN:=$PWD/build/wheelscan}"

find_cuobjdump() {
	if [ -n "${CUOBJDUMP:-}" ] && [ -x "$CUOBJDUMP" ]; then echo "$CUOBJDUMP"; return 0; fi
	for c in "$CACHE/cuobjdump-$CUOBJDUMP_VERSION"/nvidia/*/bin/cuobjdump \
		"$(command -v cuobjdump 2>/dev/null)" /usr/local/cuda/bin/cuobjdump; do
		[ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
	done
	# a pip-installed one in any site-packages of this python
	python3 - <<'EOF' 2>/dev/null
import glob, os, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
for d in dirs:
    for c in sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", "cuobjdump"))):
        if os.access(c, os.X_OK):
            print(c)
            sys.exit(0)
sys.exit(1)
EOF
}

CO=$(find_cuobjdump) || CO=""
if [ -z "$CO" ]; then
	echo "installing nvidia-cuda-cuobjdump==$CUOBJDUMP_VERSION into $CACHE" >&2
	mkdir -p "$CACHE" 2>/dev/null
	for spec in "nvidia-cuda-cuobjdump==$CUOBJDUMP_VERSION" nvidia-cuda-cuobjdump; do
		python3 -m pip install --quiet --disable-pip-version-check --no-deps --timeout 20 --retries 1 \
			--target "$CACHE/cuobjdump-$CUOBJDUMP_VERSION" "$spec" >&2 2>/dev/null && break
	done
	CO=$(find_cuobjdump) || CO=""
fi
if [ -z "$CO" ] || ! "$CO" --version >/dev/null 2>&1; then
	. src/test/skip.inc; skip_all "cuobjdump not installable (the oracle)" yes
fi
echo "cuobjdump: $CO ($("$CO" --version | sed -n 's/.*release \([^,]*\), V\(.*\)/\2/p'))"

if [ "${WS_ORACLE_CUOBJDUMP_ONLY:-}" != 1 ] && [ ! -x "$WS_BIN" ]; then
	echo "FAIL: wheelscan binary '$WS_BIN' not found (set WS_BIN)"
	echo "0 passed, 1 failed"
	exit 1
fi

# The files: every fixture cuobjdump can read, then every regular .so file of the toolkit.
LIST=$(mktemp) || exit 1
trap 'rm -f "$LIST"' EXIT
for f in testdata/fixtures/*; do
	case "$f" in
	*.fatbin|*.cubin|*.o|*.a|*.so|*.so.*|*/k_exe) echo "$f" ;;
	esac
done >"$LIST"
if [ "$LIB64" != none ] && [ -d "$LIB64" ]; then
	find "$LIB64"/ -maxdepth 1 -type f -name '*.so*' | sort >>"$LIST"
fi

CO="$CO" WS_BIN="$WS_BIN" CACHE="$CACHE" python3 - "$LIST" <<'EOF'
import collections, hashlib, json, os, re, subprocess, sys

co, ws = os.environ["CO"], os.environ["WS_BIN"]
cache = os.path.join(os.environ["CACHE"], "cuobjdump-lists")
only_co = os.environ.get("WS_ORACLE_CUOBJDUMP_ONLY") == "1"
files = [l.strip() for l in open(sys.argv[1]) if l.strip()]
LINE = re.compile(r"^(ELF|PTX) file\s+\d+: .*\.(sm_\d+[af]?)\.(cubin|ptx)$")
OURS = (".nv_fatbin", "__nv_relfatbin")


def norm_sass(a):
    return a[:-1] if a.endswith("f") else a


def from_cuobjdump(text):
    c = collections.Counter()
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if m:
            kind, arch = m.group(1), m.group(2)
            c["sass " + norm_sass(arch) if kind == "ELF" else "ptx compute_" + arch[3:]] += 1
    return c


def from_wheelscan(doc):
    c = collections.Counter()
    for art in doc.get("artifacts", []):
        whole = art.get("type") in ("fatbin", "cubin")
        for obj in art.get("objects", []) or []:
            for fb in obj.get("fatbins", []) or []:
                if not (whole or not fb.get("section") or fb.get("section") in OURS):
                    continue
                for e in fb.get("entries", []) or []:
                    if e.get("kind") == "sass":
                        c["sass " + norm_sass(e.get("arch", "?"))] += 1
                    elif e.get("kind") == "ptx":
                        c["ptx " + e.get("arch", "?")] += 1
    return c


def show(c):
    return " ".join("%s=%d" % (k.split()[1], v) for k, v in sorted(c.items())) or "(none)"


passed = failed = 0
for f in files:
    # both tools at once: the pair of processes keeps 2 CPUs busy
    # cuobjdump's answer for a big library is cached (make test runs this script twice)
    st = os.stat(f)
    key = hashlib.sha256(("%s|%s|%d|%d" % (co, os.path.realpath(f), st.st_size,
                                           st.st_mtime_ns)).encode()).hexdigest()
    cached = os.path.join(cache, key)
    pc = None
    if st.st_size > (1 << 20) and os.path.exists(cached):
        out_c, rc_c = open(cached, errors="replace").read(), 0
    else:
        pc = subprocess.Popen([co, "-all", "--list-elf", "--list-ptx", f],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace")
    pw = None
    if not only_co:
        pw = subprocess.Popen([ws, "--json", f], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, errors="replace")
    if pc:
        out_c, _ = pc.communicate()
        rc_c = pc.returncode
    want = from_cuobjdump(out_c)
    nodev = "does not contain device code" in out_c
    if pc and st.st_size > (1 << 20) and (rc_c == 0 or nodev):
        try:
            os.makedirs(cache, exist_ok=True)
            with open(cached + ".tmp", "w") as fh:
                fh.write(out_c)
            os.replace(cached + ".tmp", cached)
        except OSError:
            pass
    if rc_c != 0 and not nodev:
        # cuobjdump itself gave up: the oracle has no answer for this file
        msg = [l for l in out_c.splitlines() if "fatal" in l][:1]
        print("skip %s: cuobjdump failed (%s)" % (f, msg[0].strip() if msg else rc_c))
        if pw:
            pw.communicate()
        continue
    if only_co:
        print("cuobjdump %s: %s" % (f, show(want)))
        continue
    out_w, err_w = pw.communicate()
    try:
        got = from_wheelscan(json.loads(out_w))
    except ValueError:
        print("FAIL %s: wheelscan exit %d, no JSON: %s" % (f, pw.returncode,
                                                             err_w.strip()[:200]))
        failed += 1
        continue
    if pw.returncode not in (0, 1):
        print("FAIL %s: wheelscan exit %d: %s" % (f, pw.returncode, err_w.strip()[:200]))
        failed += 1
    elif got == want:
        print("ok %s (%d sass/ptx entries)" % (f, sum(want.values())))
        passed += 1
    else:
        diff = []
        for k in sorted(set(got) | set(want)):
            if got[k] != want[k]:
                diff.append("%s cuobjdump %d wheelscan %d" % (k, want[k], got[k]))
        print("FAIL %s: %s" % (f, "; ".join(diff)))
        failed += 1
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
EOF
