#!/usr/bin/env python3
"""load_oracle.py SITE JSON - the real loader as the oracle of wheelscan's load prediction.

For each object of the JSON report's "loads.objects" (an ELF shared object under SITE) it
runs a fresh process that dlopen()s it (RTLD_NOW, as CPython imports extensions), once
alone and once after its predicted preloads, and compares with the prediction:
  alone          dlopen alone succeeds
  after-preload  dlopen alone fails, and succeeds once the preloads are loaded
  fails          dlopen fails even after the preloads
LD_LIBRARY_PATH and LD_PRELOAD are cleared; WS_ORACLE_LIBDIR (a stand-in libcuda.so.1's
folder) is put on LD_LIBRARY_PATH when given, as the live tests do. Prints one line per
object ("agree", "explained" or "DISAGREE ...") and "agree N of M"; exits 1 on any disagreement.
Before a libonnxruntime_providers_*.so, its folder's libonnxruntime_providers_shared.so is
opened RTLD_GLOBAL, as onnxruntime does. "explained": predicted to fail for a library no
distribution provides, which this machine's own system (ld.so.cache, an absolute run path)
has, or predicted to load only after preloads that all are in that ld.so.cache too: wheelscan
does not assume system CUDA.
"""
import json
import os
import subprocess
import sys

PROBE = r"""
import ctypes, os, sys
site, obj = sys.argv[1], sys.argv[2]
# onnxruntime opens libonnxruntime_providers_shared.so with RTLD_GLOBAL before a provider
# library, whose Provider_GetHost it binds (onnxruntime's provider_bridge_ort.cc)
shared = os.path.join(site, os.path.dirname(obj), "libonnxruntime_providers_shared.so")
if os.path.basename(obj).startswith("libonnxruntime_providers_") and os.path.exists(shared):
    ctypes.CDLL(shared, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
for p in sys.argv[3:]:
    try:
        ctypes.CDLL(os.path.join(site, p), mode=os.RTLD_NOW)
    except OSError as e:
        print("preload failed: %s" % e); sys.exit(3)
print("opening", flush=True)    # what a crash from here on follows: the object's own load
try:
    ctypes.CDLL(os.path.join(site, obj), mode=os.RTLD_NOW)
except OSError as e:
    print(e); sys.exit(1)
sys.exit(0)
"""


def dlopen(site, obj, preload):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    if os.environ.get("WS_ORACLE_LIBDIR"):
        env["LD_LIBRARY_PATH"] = os.environ["WS_ORACLE_LIBDIR"]
    r = subprocess.run([sys.executable, "-c", PROBE, site, obj] + preload, env=env, capture_output=True, text=True,
                       timeout=60)
    r.stdout = r.stdout.replace("opening\n", "", 1) if r.returncode >= 0 else r.stdout
    if r.returncode < 0 and "opening" in r.stdout:
        # killed by a signal once the object was being opened: RTLD_NOW binds every symbol
        # before any initializer runs, so the load succeeded and an initializer died (calling
        # a stub of the stand-in driver)
        return 0, "loaded; an initializer then died of signal %d" % -r.returncode
    return r.returncode, (r.stdout + r.stderr).strip()


def system_libraries():
    """The sonames this machine's ld.so.cache names: a library found there is the system's,
    which wheelscan does not assume (only libc, libstdc++, libcuda.so.1 and the like)."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    except OSError:
        return set()
    return {line.split()[0] for line in out.splitlines()[1:] if line.strip()}


def absolute_runpath(path):
    """The absolute folders of an object's run path (outside any environment)."""
    try:
        out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    except OSError:
        return []
    dirs = []
    for line in out.splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            val = line.split("[", 1)[-1].rstrip("]")
            dirs += [d for d in val.split(":") if d.startswith("/")]
    return dirs


def installed(member):
    """A wheel's "x.data/platlib/a/b.so" is "a/b.so" once installed."""
    head, sep, rest = member.partition(".data/")
    if sep and "/" not in head:
        for scheme in ("purelib/", "platlib/"):
            if rest.startswith(scheme):
                return rest[len(scheme):]
    return member


def main():
    site, report = sys.argv[1], sys.argv[2]
    doc = json.load(open(report))
    objs = (doc.get("loads") or {}).get("objects") or []
    agree = total = explained = 0
    system = system_libraries()
    for o in objs:
        obj = installed(o["object"])
        if obj.lower().endswith((".dll", ".pyd")):
            continue                              # Windows images: not for this loader
        pre = [installed(p) for p in o["preload"]]
        total += 1
        rc_alone, msg_alone = dlopen(site, obj, [])
        rc_after, msg_after = (rc_alone, msg_alone) if not pre else dlopen(site, obj, pre)
        want = o["loads"]
        if want == "alone":
            ok = rc_alone == 0
        elif want == "after-preload":
            ok = rc_alone != 0 and rc_after == 0
        else:
            ok = rc_after != 0
        # predicted to fail for a library no distribution provides, yet dlopen found it: the
        # machine's own (ld.so.cache, or an absolute run path such as /usr/local/cuda-13.0)
        missing = (o.get("why") or "").split(": cannot open shared object file")[0]
        if not ok and want == "fails" and rc_after == 0 and missing and "/" not in missing and (
                missing in system or any(os.path.exists(os.path.join(d, missing))
                                         for d in absolute_runpath(os.path.join(site, obj)))):
            explained += 1
            print("explained: %s predicted fails (no distribution provides %s); this machine's system "
                  "does, outside the environment" % (obj, missing))
            continue
        # predicted to load only after its preloads (libraries the environment has, which no run
        # path reaches), yet it loaded alone: this machine's ld.so.cache has every one of them
        if not ok and want == "after-preload" and rc_alone == 0 and pre and all(
                os.path.basename(p) in system for p in pre):
            explained += 1
            print("explained: %s predicted after-preload (%s); this machine's system has them all, "
                  "outside the environment" % (obj, ", ".join(os.path.basename(p) for p in pre)))
            continue
        if ok:
            agree += 1
            print("agree: %s %s" % (want, obj))
        else:
            print("DISAGREE: %s predicted %s; dlopen alone: %s; after %s: %s" %
                  (obj, want, msg_alone or "ok", pre, msg_after or "ok"))
    print("explained %d" % explained)
    print("agree %d of %d" % (agree, total - explained))
    sys.exit(0 if agree == total - explained else 1)


if __name__ == "__main__":
    main()
