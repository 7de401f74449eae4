#!/bin/sh
# verify_table.sh - scripts/build-table --verify against a local stand-in for PyPI: a PEP 691
# simple index and stub wheels served with HTTP Range, so that each check (release on PyPI,
# wheel platform tag, Requires-Dist, torch's version.py, citations of declared rows, newer
# releases) is shown to drop or correct the row it should, and to leave a true row alone.
set -u
cd "$(dirname "$0")/../.."
. src/test/skip.inc
command -v python3 >/dev/null || skip_all "python3 missing (verify-table)" yes
python3 - <<'PY'
import http.server, json, os, re, shutil, subprocess, sys, tempfile, threading, zipfile

tmp = tempfile.mkdtemp()
files = {}                                    # url path -> bytes


def wheel(name, ver, plat, meta_reqs, extra=None):
    fn = "%s-%s-cp312-cp312-%s.whl" % (name.replace("-", "_"), ver, plat)
    p = os.path.join(tmp, fn)
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        for n, t in (extra or {}).items():
            z.writestr(n, t)
        z.writestr("%s-%s.dist-info/METADATA" % (name.replace("-", "_"), ver),
                   "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver) +
                   "".join("Requires-Dist: %s\n" % r for r in meta_reqs))
    files["/files/" + fn] = open(p, "rb").read()
    return fn


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path.startswith("/simple/"):
            pkg = self.path.split("/")[2]
            fl = [{"filename": k.split("/")[-1], "url": base + k, "hashes": {}, "yanked": False}
                  for k in sorted(files) if k.split("/")[-1].replace("_", "-").startswith(pkg + "-")]
            body = json.dumps({"meta": {"api-version": "1.1"}, "name": pkg, "files": fl}).encode()
            self.send_response(200 if fl else 404)
            self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
            self.end_headers()
            self.wfile.write(body)
            return
        data = files.get(self.path)
        m = re.match(r"bytes=(\d*)-(\d*)$", self.headers.get("Range", ""))
        if data is None or not m:
            self.send_response(404 if data is None else 200)
            self.end_headers()
            return
        n = len(data)
        lo, hi = (n - int(m.group(2)), n - 1) if not m.group(1) else (int(m.group(1)), int(m.group(2) or n - 1))
        lo, hi = max(0, lo), min(hi, n - 1)
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (lo, hi, n))
        self.end_headers()
        self.wfile.write(data[lo:hi + 1])


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
base = "http://127.0.0.1:%d" % srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()

vpy = "__version__ = '2.15.0+cu132'\ndebug = False\ncuda: Optional[str] = '13.2'\n"
wheel("torch", "2.15.0", "manylinux_2_28_x86_64",
      ['cuda-toolkit[cudart,nvrtc]==13.2.2; platform_system == "Linux"'], {"torch/version.py": vpy})
wheel("torch", "2.16.0", "manylinux_2_28_x86_64", [], {"torch/version.py": "__version__ = '2.16.0+cu132'\n"})
wheel("torchvision", "0.29.2", "manylinux_2_28_x86_64", ["torch>=2.14.0", "numpy"])
H_ = ["package", "version", "variant", "platform", "cuda", "sass", "ptx", "requires", "index",
      "provenance", "source", "wheel_platform"]
rows = [
    ["torch", "2.15.0", "cu132", "linux_x86_64", "13.2", "80,90", "", "", "pypi", "scanned", "s", "manylinux_2_28_x86_64"],
    ["torchvision", "0.29.2", "cu132", "linux_x86_64", "13.2", "80", "", "torch==2.15.0", "pypi", "scanned", "s", "manylinux_2_17_x86_64"],
    ["torchvision", "0.30.0", "cu132", "linux_x86_64", "13.2", "80", "", "", "pypi", "scanned", "s", "manylinux_2_28_x86_64"],
    ["torch", "2.15.0", "cu134", "linux_aarch64", "13.4", "80", "", "", "pypi", "scanned", "s", "manylinux_2_28_aarch64"],
    ["torch", "2.14.0", "cu129", "linux_x86_64", "12.9", "80", "", "", "https://i/cu129", "declared", "org/repo#1 said so", ""],
    ["torch", "2.14.0", "cu130", "linux_x86_64", "13.0", "80", "", "", "https://i/cu130", "declared", "org/repo#1 said so", ""],
    ["torch", "2.14.0", "cu126", "linux_x86_64", "12.6", "80", "", "", "https://i/cu126", "declared", "org/other:f@v1", ""],
    ["torchvision", "0.29.2", "cu126", "linux_x86_64", "12.6", "80", "", "torch==2.15.0", "https://i/cu126", "declared", "org/other:f@v1", ""],
    ["torch", "2.14.0", "cu121", "win_amd64", "12.1", "80", "", "", "https://i/cu121", "declared", "org/x:w.yml@v1.post1", ""],
    ["torch", "2.14.0", "cu121", "linux_x86_64", "12.1", "80", "", "", "https://i/cu121", "declared", "org/x:w.yml@v1.post1", ""],
]
table = os.path.join(tmp, "t.tsv")
with open(table, "w") as f:
    f.write("# made: 2026-01-01\n" + "\t".join(H_) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
cites = os.path.join(tmp, "c.tsv")
with open(cites, "w") as f:
    f.write("source\tnames\tquote\norg/repo#1\tcu130,2.13.0/cu129\t\"13.0 only\"\n"
            "org/x:w.yml@v1\tcu121\tv1 names cu121\norg/x:w.yml@v1.post1\tcu121@linux_x86_64\tv1.post1 on Linux only\n")
out = os.path.join(tmp, "out.tsv")
env = dict(os.environ, WS_PYPI_SIMPLE=base + "/simple/")
r = subprocess.run(["scripts/build-table", "--verify", "--table", table, "--bytes", "/nonexistent",
                    "--citations", cites, "--apply", out], capture_output=True, text=True, env=env)
text = r.stdout
got = {tuple(l.rstrip("\n").split("\t")[:4]): l.rstrip("\n").split("\t") for l in open(out)
       if not l.startswith(("#", "package"))} \
    if os.path.exists(out) else {}
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok  ", what)
    else:
        failed += 1
        print("FAIL", what)


check(r.returncode == 1, "exit 1 when rows are dropped or corrected (got %d: %s)" % (r.returncode, r.stderr[-300:]))
check("verify: count: pypi rows agree: 1" in text, "the true torch row agrees (release, tag, version.py, pin)")
check(re.search(r"corrected: wheel_platform: torchvision 0.29.2 .*manylinux_2_28_x86_64", text) is not None,
      "a wheel_platform PyPI does not have is corrected to the one it has")
check(re.search(r"corrected: requires \(METADATA\): torchvision 0.29.2 .*'torch>=2.14.0'", text) is not None,
      "requires follows the wheel's own Requires-Dist (torch>=2.14.0, not a pin)")
check(got.get(("torchvision", "0.29.2", "cu132", "linux_x86_64"), [""] * 12)[7] == "torch>=2.14.0"
      and got[("torchvision", "0.29.2", "cu132", "linux_x86_64")][11] == "manylinux_2_28_x86_64",
      "--apply writes the corrected requires and wheel_platform")
check("dropped: release not on PyPI: torchvision 0.30.0" in text and
      ("torchvision", "0.30.0", "cu132", "linux_x86_64") not in got, "a release PyPI does not have is dropped")
check("dropped: no wheel for the platform on PyPI: torch 2.15.0 cu134 linux_aarch64" in text,
      "a platform PyPI has no wheel for is dropped")
check("dropped: citation does not name the variant: torch 2.14.0 cu129" in text and
      ("torch", "2.14.0", "cu129", "linux_x86_64") not in got,
      "a declared row whose recorded citation does not name its variant is dropped (2.13.0/cu129 is not 2.14.0)")
check(("torch", "2.14.0", "cu130", "linux_x86_64") in got and
      "verify: count: declared: citation names the variant: 2" in text, "a declared row its citation names stays")
check("dropped: citation does not name the variant: torch 2.14.0 cu121 win_amd64" in text and
      ("torch", "2.14.0", "cu121", "linux_x86_64") in got,
      "a citation naming a variant for one platform (cu121@linux_x86_64) keeps that platform's row only, "
      "and @v1's names do not count for @v1.post1")
check("verify: count: declared: citation not recorded: 2" in text and
      ("torch", "2.14.0", "cu126", "linux_x86_64") in got, "a citation not recorded is counted, the row kept")
check("missing: release on PyPI not in the table: torch 2.16.0 - linux_x86_64" in text, "a release on PyPI the table lacks is reported")
check("corrected: declared requires (PyPI METADATA): torchvision 0.29.2 cu126 linux_x86_64: row 'torch==2.15.0'" in text
      and got.get(("torchvision", "0.29.2", "cu126", "linux_x86_64"), [""] * 12)[7] == "torch>=2.14.0",
      "a declared companion's requires is PyPI's METADATA of its release")
check(re.search(r"verify: 10 rows, 4 dropped, 2 corrected, against PyPI on \d{4}-\d\d-\d\d", text) is not None,
      "the summary counts rows, drops and corrections, with the date")
# a wrong local tag: the wheel's version.py wins
with open(table, "w") as f:
    f.write("\t".join(H_) + "\n" + "\t".join(["torch", "2.15.0", "cu134", "linux_x86_64", "13.4", "80", "", "",
                                            "pypi", "scanned", "s", "manylinux_2_28_x86_64"]) + "\n")
r = subprocess.run(["scripts/build-table", "--verify", "--table", table, "--bytes", "/nonexistent",
                    "--citations", cites, "--apply", out], capture_output=True, text=True, env=env)
check("corrected: variant (torch/version.py): torch 2.15.0 cu134 linux_x86_64: row cu134, version.py cu132" in r.stdout
      and "disagreement: cuda: torch 2.15.0 cu134 linux_x86_64: row 13.4, torch/version.py cuda 13.2" in r.stdout,
      "torch's version.py names the variant and its CUDA; a row that says 13.4 is caught")
srv.shutdown()
shutil.rmtree(tmp)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
