#!/usr/bin/env python3
"""resolve_check.py - run every command wheelscan printed through pip's resolver, against the
local indexes of scripts/gen-pip-index (src/test/resolve.sh).

Usage: resolve_check.py PIP_PYTHON IXBASE WORKDIR SCENARIO_JSON...
IXBASE-PLATFORM/indexes.tsv maps index URLs to the local indexes for a target of that platform
(scripts/gen-pip-index --env: OS and machine markers decided for that target).
The check itself must not pass by checking little: every kind (install, offline pair, fix) and
every target platform must have had commands, else it fails.
A scenario file is {"name": ..., "target": {"platform": "linux_x86_64"|"linux_aarch64"|
"win_amd64", "python": "3.11"}, "doc": <wheelscan's --json document>}. Every object of the
document with "argv" ({"command", "download_command", "offline_command"}: argument vectors) is a
printed advice. For each:
  - the command (pip install) runs as pip install --dry-run --ignore-installed --report, with
    --index-url mapped to the local model of that index (PyPI's when it names none); for a
    target that is not this machine, with the target's tags (computed here, not taken from
    wheelscan) and --only-binary=:all: --target;
  - the offline pair: pip download into a fresh directory, then the offline install with
    --dry-run against that directory only, with the download line's target options;
  - the resolved set must hold every package the command names at the version it names,
    and the names must be the advice's "packages".
Prints one line per failure naming the command, then counts."""
import json, os, re, shlex, subprocess, sys, tempfile

from pip._vendor.packaging.utils import canonicalize_name, parse_wheel_filename
from pip._vendor.packaging.version import Version

PIP_PY, INDEXES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SCEN = sys.argv[4:]
HOST = "linux_x86_64" if os.uname().machine == "x86_64" else "linux_" + os.uname().machine
HOST_PY = "%d.%d" % sys.version_info[:2]
index_map = {}


def load_indexes(target):
    global index_map
    base = INDEXES + "-" + target["platform"]
    index_map = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(base, "indexes.tsv")))
stats = {"run": 0, "pip": 0, "passed": 0, "failed": 0, "scenarios": 0, "kinds": {}, "platforms": {}}
seen = set()


def target_opts(t):
    """pip's options for a target other than this machine: the tags that target accepts,
    derived here (manylinux_2_28 down to 2_17 and manylinux2014 on Linux)."""
    plat, py = t["platform"], t["python"]
    if plat == HOST and py == HOST_PY:
        return []
    if plat.startswith("linux_"):
        arch = plat[6:]
        tags = ["manylinux_2_%d_%s" % (g, arch) for g in range(28, 16, -1)] + ["manylinux2014_" + arch, plat]
    else:
        tags = [plat]
    o = ["--only-binary=:all:", "--python-version", py, "--implementation", "cp",
         "--abi", "cp" + py.replace(".", ""), "--abi", "abi3", "--abi", "none"]
    for tg in tags:
        o += ["--platform", tg]
    return o


def named(argv):
    """name -> version of every NAME==VERSION word."""
    out = {}
    for w in argv:
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^=;\s]+)", w)
        if m:
            out[canonicalize_name(m.group(1))] = m.group(2)
    return out


def pip_words(argv):
    """argv after its program: the words from 'install' or 'download' on."""
    for i, w in enumerate(argv):
        if w in ("install", "download") and (i == 0 or argv[i - 1] in ("pip", "pip3") or argv[i - 1].endswith(("pip", "pip3", "pip.exe")) or (i >= 2 and argv[i - 2] == "-m")):
            return argv[i:]
    raise ValueError("no pip install/download in the command")


def remap(words):
    """--index-url/--extra-index-url URL -> the local model; PyPI's when the command names no
    --index-url (pip's default index stays beside an --extra-index-url)."""
    out, i, named_index = [], 0, False
    while i < len(words):
        w = words[i]
        for opt in ("--index-url", "--extra-index-url", "-i"):
            if w == opt or w.startswith(opt + "="):
                url = words[i + 1] if w == opt else w.split("=", 1)[1]
                url = url.rstrip("/")
                if url not in index_map:
                    raise ValueError("%s %s is no index the test models (no PEP 503 index there)" % (opt, url))
                out += [opt, "file://" + index_map[url]]
                named_index = named_index or opt != "--extra-index-url"
                i += 2 if w == opt else 1
                break
        else:
            out.append(w)
            i += 1
    if not named_index and "--no-index" not in out:
        out += ["--index-url", "file://" + index_map["https://pypi.org/simple"]]
    return out


def run_pip(words, tag):
    stats["pip"] += 1
    p = subprocess.run([PIP_PY, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir",
                        "--no-input", "--quiet"] + words, capture_output=True, text=True, timeout=300)
    return p.returncode, (p.stderr or p.stdout).strip().splitlines()[-6:]


TABLE_NAMES = {canonicalize_name(l.split("\t", 1)[0]) for l in open("share/builds.tsv", encoding="utf-8")
               if l[:1] != "#" and not l.startswith("package\t")}


def resolved(report):
    """What pip's installation report says it would install: {PEP 503 name: version}."""
    with open(report) as f:
        return {canonicalize_name(x["metadata"]["name"]): x["metadata"]["version"] for x in json.load(f)["install"]}


def unnamed(got, want, argv):
    """A package of the table that pip brings though the command does not name it (an
    xformers that accepts torch>=2.10 brings the newest torch, perhaps one the driver cannot
    run): a failure, since the remedy names the torch that runs beside such a package."""
    extra = sorted("%s %s" % (n, v) for n, v in got.items() if n in TABLE_NAMES and n not in want)
    if extra:
        stats["unnamed"] = stats.get("unnamed", 0) + 1
        return ["it also brings %s, which it does not name" % ", ".join(extra)]
    return []


def check(got, want, packages, what):
    bad = []
    for n, v in want.items():
        if n not in got:
            bad.append("%s not resolved" % n)
        elif Version(got[n]) != Version(v) or (("+" in v) and got[n] != v):
            bad.append("%s resolved to %s, the advice names %s" % (n, got[n], v))
    if packages is not None:
        names = {canonicalize_name(p["name"]): p["version"] for p in packages}
        if set(names) != set(want):
            bad.append("the command names %s, the advice %s" % (sorted(want), sorted(names)))
        for n, v in names.items():
            if n in want and Version(want[n]).public != Version(v).public:
                bad.append("%s: the command says %s, the advice %s" % (n, want[n], v))
    return bad


def fail(scen, kind, argv, why):
    stats["failed"] += 1
    print("FAIL [%s] %s: %s\n    %s" % (scen, kind, shlex.join(argv), "\n    ".join(why)))


def one(scen, target, adv):
    a = adv["argv"]
    pk = adv.get("packages")
    key = (json.dumps(a, sort_keys=True), json.dumps(target, sort_keys=True))
    if key in seen:
        return
    seen.add(key)
    tmp = tempfile.mkdtemp(dir=WORK)
    # 1. the install line
    if a.get("command"):
        stats["run"] += 1
        stats["kinds"]["install"] = stats["kinds"].get("install", 0) + 1
        try:
            w = remap(pip_words(a["command"]))
            if w[0] != "install":
                raise ValueError("the command is not pip install")
            rep = os.path.join(tmp, "install.json")
            extra = target_opts(target)
            if extra:
                extra += ["--target", os.path.join(tmp, "target")]
            rc, err = run_pip(w + ["--dry-run", "--ignore-installed", "--report", rep] + extra, "install")
            if rc:
                fail(scen, "install", a["command"], ["pip refused it:"] + err)
            else:
                got = resolved(rep)
                bad = check(got, named(a["command"]), pk, "install") + unnamed(got, named(a["command"]), a["command"])
                if bad:
                    fail(scen, "install", a["command"], bad)
                else:
                    stats["passed"] += 1
        except ValueError as e:
            fail(scen, "install", a["command"], [str(e)])
    # 2. the offline pair
    if a.get("download_command") or a.get("offline_command"):
        stats["run"] += 1
        stats["kinds"]["offline"] = stats["kinds"].get("offline", 0) + 1
        dl, off = a.get("download_command"), a.get("offline_command")
        try:
            if not dl or not off:
                raise ValueError("an offline pair lacks its %s" % ("download" if not dl else "install"))
            wd = remap(pip_words(dl))
            d = os.path.join(tmp, "wheels")
            if "-d" in wd:
                dirword = wd[wd.index("-d") + 1]
                wd[wd.index("-d") + 1] = d
            else:
                raise ValueError("the download line names no directory (-d)")
            rc, err = run_pip(wd, "download")
            if rc:
                fail(scen, "download", dl, ["pip refused it:"] + err)
                return
            got = {}
            for fn in os.listdir(d):
                if fn.endswith(".whl"):
                    n, v = parse_wheel_filename(fn)[:2]
                    got[canonicalize_name(n)] = str(v)
            bad = check(got, named(dl), pk, "download")
            if bad:
                fail(scen, "download", dl, bad)
                return
            wo = pip_words(off)
            if "--no-index" not in wo or "--find-links" not in wo:
                raise ValueError("the offline install is not --no-index --find-links")
            if wo[wo.index("--find-links") + 1] != dirword:
                raise ValueError("the offline install reads %s, the download wrote %s" % (wo[wo.index("--find-links") + 1], dirword))
            wo[wo.index("--find-links") + 1] = d
            # the download line's target options, for the install of that target
            topts, i = [], 0
            while i < len(wd):
                if wd[i] in ("--platform", "--python-version", "--implementation", "--abi"):
                    topts += wd[i:i + 2]
                    i += 2
                else:
                    i += 1
            rep = os.path.join(tmp, "offline.json")
            extra = ["--only-binary=:all:"] + topts + ["--target", os.path.join(tmp, "t2")] if topts else []
            rc, err = run_pip(wo + ["--dry-run", "--ignore-installed", "--report", rep] + extra, "offline")
            if rc:
                fail(scen, "offline install", off, ["pip refused it (after the download):"] + err)
                return
            got = resolved(rep)
            bad = check(got, named(off), pk, "offline")
            if bad:
                fail(scen, "offline install", off, bad)
            else:
                stats["passed"] += 1
        except ValueError as e:
            fail(scen, "offline", dl or off, [str(e)])


def fix_one(scen, target, adv):
    """A set's fix: an array of commands; each pip install of it resolves to what it names."""
    for argv in adv["argv"]:
        try:
            words = pip_words(argv)
        except ValueError:
            continue          # not a pip command (pip uninstall is checked by no resolver)
        if words[0] != "install":
            continue
        key = (json.dumps(argv), json.dumps(target, sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        stats["run"] += 1
        stats["kinds"]["fix"] = stats["kinds"].get("fix", 0) + 1
        tmp = tempfile.mkdtemp(dir=WORK)
        rep = os.path.join(tmp, "fix.json")
        try:
            rc, err = run_pip(remap(words) + ["--dry-run", "--ignore-installed", "--report", rep] + target_opts(target), "fix")
        except ValueError as e:
            fail(scen, "fix", argv, [str(e)])
            continue
        if rc:
            fail(scen, "fix", argv, ["pip refused it:"] + err)
            continue
        got = resolved(rep)
        bad = check(got, named(argv), None, "fix")
        if bad:
            fail(scen, "fix", argv, bad)
        else:
            stats["passed"] += 1


def advices(o):
    if isinstance(o, dict):
        if isinstance(o.get("argv"), (dict, list)):
            yield o
        for v in o.values():
            yield from advices(v)
    elif isinstance(o, list):
        for v in o:
            yield from advices(v)


for f in SCEN:
    s = json.load(open(f))
    stats["scenarios"] += 1
    load_indexes(s["target"])
    n = 0
    before = stats["run"]
    for adv in advices(s["doc"]):
        if isinstance(adv["argv"], list):
            fix_one(s["name"], s["target"], adv)
        else:
            one(s["name"], s["target"], adv)
        n += 1
    if n == 0:         # an honest "no build runs there" has no command to check
        stats["none"] = stats.get("none", 0) + 1
        print("note [%s]: wheelscan printed no command" % s["name"])
    p = s["target"]["platform"]
    stats["platforms"][p] = stats["platforms"].get(p, 0) + stats["run"] - before
for kind in ("install", "offline", "fix"):
    if not stats["kinds"].get(kind):
        stats["failed"] += 1
        print("FAIL: no %s command was checked (the scenarios no longer reach it)" % kind)
for p, k in sorted(stats["platforms"].items()):
    if not k:
        stats["failed"] += 1
        print("FAIL: no command for %s was checked" % p)
print("resolve: %d printed commands (%s; %s) over %d scenarios (%d with none), %d pip runs: %d resolved to exactly the named set, %d failed"
      % (stats["run"], ", ".join("%s %d" % kv for kv in sorted(stats["kinds"].items())),
         ", ".join("%s %d" % kv for kv in sorted(stats["platforms"].items())), stats["scenarios"], stats.get("none", 0), stats["pip"],
         stats["passed"], stats["failed"]))
if stats.get("unnamed"):
    print("resolve: %d install lines bring a package of the table they do not name (failed above)" % stats["unnamed"])
print("%d passed, %d failed" % (stats["passed"], stats["failed"]))
sys.exit(1 if stats["failed"] else 0)
