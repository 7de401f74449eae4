"""fake_pip.py - the Linux half of the stand-in python.exe (src/test/windows/fake_python.c):
    python3 fake_pip.py WORDS OUT ERR DONE
WORDS (a Windows path) holds python.exe's own path and then the argv wheelscan.exe gave it,
each NUL-terminated; what a Python would print goes to OUT and ERR, and the exit status to
DONE, last (Wine cannot wait for a Unix process: python.exe waits for DONE). It answers the three
things the pip guard asks (src/guard.c):
- `-I -c CODE` (where the packages are): python.exe's folder + Lib\\site-packages, twice
  (purelib and platlib), as an embedded Python says; (which wheels it accepts):
  cpXY-cpXY-win_amd64 and the like, as pip lists them on 64-bit Windows;
- `-m pip --version`, `-m pip install --dry-run ...` and `-m pip download ...`: the real pip
  of this python3, for a Python on Windows (--platform win_amd64 --only-binary=:all:
  --python-version of this python3 --implementation cp), each Windows path of the words
  spelled as Wine maps it (Z:\\tmp\\x is /tmp/x), the app's site-packages on PYTHONPATH so
  that pip sees what is installed there;
- `-m pip install --no-index --no-deps FILES` (the install of the files judged): pip cannot
  install a win_amd64 wheel into a Linux Python, so this does what pip's installer does for
  these wheels: removes the files of the installed distribution of the same name (its RECORD)
  and unpacks each wheel into site-packages, INSTALLER "pip" added to its RECORD.
Anything else is refused (exit 2): the stand-in claims no more than it does."""
import base64, hashlib, os, re, subprocess, sys, zipfile

WINEPREFIX = os.environ.get("WINEPREFIX") or os.path.expanduser("~/.wine")


def unix(p):
    m = re.match(r"^([A-Za-z]):[\\/]?(.*)$", p, re.S)
    if not m:
        return p
    root = os.path.realpath(os.path.join(WINEPREFIX, "dosdevices", m.group(1).lower() + ":"))
    return os.path.join(root, m.group(2).replace("\\", "/"))


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def installed(site):
    """{normalised name: dist-info folder} of site."""
    out = {}
    for d in os.listdir(site) if os.path.isdir(site) else []:
        if d.endswith(".dist-info"):
            out[norm(d[:-len(".dist-info")].rsplit("-", 1)[0])] = d
    return out


def install(site, files, err):
    for f in files:
        with zipfile.ZipFile(f) as z:
            names = z.namelist()
            di = [n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")][0]
            have = installed(site).get(norm(di[:-len(".dist-info")].rsplit("-", 1)[0]))
            if have:        # pip uninstalls the old distribution first, by its RECORD
                for line in open(os.path.join(site, have, "RECORD"), encoding="utf-8"):
                    rel = line.rsplit(",", 2)[0]
                    p = os.path.join(site, rel)
                    if rel and os.path.isfile(p):
                        os.remove(p)
                for root, dirs, fs in os.walk(site, topdown=False):
                    if root != site and not os.listdir(root):
                        os.rmdir(root)
            for n in names:
                if n.endswith("/"):
                    continue
                if n.split("/")[0].endswith(".data"):
                    err.write("fake pip: %s: .data is not handled by this stand-in\n" % n)
                    return 2
                dest = os.path.join(site, n)
                if os.path.relpath(dest, site).startswith(".."):
                    return 2
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as o:
                    o.write(z.read(n))
            inst = b"pip\n"
            open(os.path.join(site, di, "INSTALLER"), "wb").write(inst)
            h = base64.urlsafe_b64encode(hashlib.sha256(inst).digest()).rstrip(b"=").decode()
            with open(os.path.join(site, di, "RECORD"), "a", encoding="utf-8") as r:
                r.write("%s/INSTALLER,sha256=%s,%d\n" % (di, h, len(inst)))
    return 0


def main():
    raw = open(unix(sys.argv[1]), "rb").read().split(b"\0")[:-1]
    words = [w.decode("utf-8") for w in raw]
    exe, args = words[0], words[1:]
    out, err = open(unix(sys.argv[2]), "w", encoding="utf-8"), open(unix(sys.argv[3]), "a", encoding="utf-8")
    appdir = exe.rsplit("\\", 1)[0]
    site_win = appdir + "\\Lib\\site-packages"
    site = unix(site_win)
    if args[:2] == ["-I", "-c"] and "sysconfig" in args[2]:
        out.write("%s\n%s\n" % (site_win, site_win))
        return 0
    if args[:2] == ["-I", "-c"] and "compatibility_tags" in args[2]:
        # which wheels it accepts, as pip's get_supported() lists them on 64-bit Windows
        v = "%d%d" % sys.version_info[:2]
        out.write("%d.%d\ncp%s-cp%s-win_amd64\ncp%s-abi3-win_amd64\ncp%s-none-win_amd64\npy3-none-any\n" %
                  (sys.version_info[:2] + (v, v, v, v)))
        return 0
    if args[:2] != ["-m", "pip"] or len(args) < 3:
        err.write("fake python.exe: not one of the pip guard's questions: %r\n" % args)
        return 2
    cmd, rest = args[2], args[3:]
    env = dict(os.environ, PYTHONPATH=site)
    # started by Wine from a Windows path, this python3 does not know its own (sys.executable
    # is empty): the test names it
    pip = [os.environ.get("FAKE_PY_REAL") or sys.executable, "-m", "pip"]
    plat = ["--platform", "win_amd64", "--only-binary=:all:", "--implementation", "cp",
            "--python-version", "%d.%d" % sys.version_info[:2]]
    if cmd == "--version":
        return subprocess.run(pip + ["--version"], stdout=out, stderr=err, env=env).returncode
    if cmd == "install" and "--dry-run" not in rest:
        if rest[:2] != ["--no-index", "--no-deps"]:
            err.write("fake python.exe: the stand-in installs only --no-index --no-deps FILES: %r\n" % rest)
            return 2
        return install(site, [unix(a) for a in rest[2:] if not a.startswith("-")], err)
    if cmd not in ("install", "download"):
        err.write("fake python.exe: pip %s is not stood in for\n" % cmd)
        return 2
    tr = [unix(a) if re.match(r"^[A-Za-z]:[\\/]", a) else a for a in rest]
    if cmd == "install":
        # pip 23.2 takes --platform for an install only with --target (a dry run writes nothing
        # there); pip then resolves as if nothing were installed, so the report may name an
        # installed distribution again (a reinstall, which the guard judges as such)
        plat += ["--target", os.path.join(os.path.dirname(unix(sys.argv[1])), "fakepip-target")]
    return subprocess.run(pip + [cmd] + plat + tr, stdout=out, stderr=err, env=env).returncode


try:
    rc = main()
except Exception:           # said, and a status python.exe passes on
    import traceback
    open(unix(sys.argv[3]), "a", encoding="utf-8").write("fake pip: " + traceback.format_exc())
    rc = 9
done = unix(sys.argv[4])
open(done + ".tmp", "w").write("%d\n" % rc)
os.rename(done + ".tmp", done)
