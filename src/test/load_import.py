#!/usr/bin/env python3
"""load_import.py PYTHON SITE JSON - `import` as the oracle of wheelscan's load prediction, for
the modules where a load failure shows at import (src/test/loadres_real.sh).

PYTHON is an interpreter of the wheels' Python whose own site has the modules' pure
dependencies; SITE (the environment) goes first on its path. Checks, when SITE has them:
  torch        `import torch` succeeds  <=> torch/lib/libtorch_python.so (what torch/_C opens)
               is not predicted "fails" (else: no object of torch/ is); torch's __init__ does
               its own preloading: "after-preload" is a success
  onnxruntime  an InferenceSession asking for the CUDA execution provider loads
               libonnxruntime_providers_cuda.so (onnxruntime logs "Failed to load library"
               when not: the CPU fallback) <=> that object is predicted "alone" (onnxruntime
               preloads nothing by itself); with no GPU here the provider then fails to start,
               which is not a load failure
LD_LIBRARY_PATH is WS_ORACLE_LIBDIR (the stand-in libcuda.so.1) only. Prints one line per
check ("agree", "explained", "DISAGREE") and "imports agree N of M"; exits 1 on a disagreement.
"explained": predicted not to load alone, yet it did, and every library it needs by soname is
in this machine's ld.so.cache (its system CUDA), which wheelscan does not assume.
"""
import json
import os
import subprocess
import sys

from load_oracle import system_libraries   # the sonames ld.so.cache names, as the oracle reads them

TORCH = "import torch; print('torch', torch.__version__)"

# A one-node ONNX model (Identity on float[1]), encoded by hand: onnx is not needed to run it.
ORT = r"""
import sys
def v(n):
    out = b""
    while True:
        b = n & 0x7f; n >>= 7
        if n: out += bytes([b | 0x80])
        else: return out + bytes([b])
def f(num, payload):
    if isinstance(payload, int): return v(num << 3) + v(payload)
    if isinstance(payload, str): payload = payload.encode()
    return v(num << 3 | 2) + v(len(payload)) + payload
def vi(name):
    shape = f(2, f(1, f(1, 1)))
    return f(1, name) + f(2, f(1, f(1, 1) + shape))
graph = f(1, f(1, "x") + f(2, "y") + f(4, "Identity")) + f(2, "g") + f(11, vi("x")) + f(12, vi("y"))
model = f(1, 7) + f(8, f(2, 13)) + f(7, graph)
import onnxruntime as ort
try:
    s = ort.InferenceSession(model, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
    print("providers", s.get_providers())
except Exception as e:
    print("session failed:", e)
"""


def run(python, site, code):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH")}
    if os.environ.get("WS_ORACLE_LIBDIR"):
        env["LD_LIBRARY_PATH"] = os.environ["WS_ORACLE_LIBDIR"]
    env["PYTHONPATH"] = site
    r = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, timeout=300, cwd="/")
    return r.returncode, r.stdout + r.stderr


def needed(path):
    try:
        out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    except OSError:
        return []
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def main():
    python, site, report = sys.argv[1:4]
    objs = (json.load(open(report)).get("loads") or {}).get("objects") or []
    agree = total = explained = 0
    system = None
    if os.path.exists(os.path.join(site, "torch", "__init__.py")):
        total += 1
        # what `import torch` opens: torch/_C, which needs libtorch_python.so and so the rest;
        # a library that fails only when opened alone (libtorch_nvshmem.so) is not opened so
        roots = [o for o in objs if o["object"] == "torch/lib/libtorch_python.so" or
                 o["object"].startswith("torch/_C.")]
        want = not any(o["object"].startswith("torch/") and o["loads"] == "fails" for o in roots or objs)
        rc, out = run(python, site, TORCH)
        if (rc == 0) == want:
            agree += 1
            print("agree: import torch %s" % ("succeeds" if want else "fails"))
        else:
            print("DISAGREE: import torch predicted to %s; it %s: %s" %
                  ("succeed" if want else "fail", "succeeded" if rc == 0 else "failed", out.strip()[-600:]))
    prov = "onnxruntime/capi/libonnxruntime_providers_cuda.so"
    obj = [o for o in objs if o["object"] == prov]
    if obj and os.path.exists(os.path.join(site, "onnxruntime", "__init__.py")):
        total += 1
        want = obj[0]["loads"] == "alone"
        rc, out = run(python, site, ORT)
        failed_load = "Failed to load library" in out or "providers_cuda" in out and "cannot open" in out
        loaded = rc == 0 and "providers" in out and not failed_load
        if rc != 0 or ("providers" not in out and "session failed" not in out):
            print("DISAGREE: onnxruntime could not be run: %s" % out.strip()[-600:])
        elif loaded == want:
            agree += 1
            print("agree: onnxruntime's CUDA provider %s" % ("loads" if want else "does not load (the CPU fallback)"))
        else:
            system = system if system is not None else system_libraries()
            libs = [n for n in needed(os.path.join(site, prov)) if n != "libcuda.so.1" and not n.startswith("ld-")]
            if loaded and all(n in system for n in libs):
                explained += 1
                print("explained: onnxruntime's CUDA provider loads from this machine's system CUDA")
            else:
                print("DISAGREE: onnxruntime's CUDA provider predicted %s; onnxruntime: %s" %
                      (obj[0]["loads"], out.strip()[-600:]))
    print("imports explained %d" % explained)
    print("imports agree %d of %d" % (agree, total - explained))
    sys.exit(0 if agree == total - explained else 1)


if __name__ == "__main__":
    main()
