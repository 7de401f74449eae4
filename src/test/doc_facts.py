#!/usr/bin/env python3
"""doc_facts.py - the byte-level claims of doc/fatbin-format.md, checked on the committed
fixtures (testdata/fixtures, built by nvcc 13.0.88: see NVCC_VERSION there).

Each check names the section of doc/fatbin-format.md it holds to, so that a claim that
stops being true of the bytes fails here instead of rotting in the document. This is a
third reading of the format, written from the document alone: it shares no code with
wheelscan (src/core/fatbin.c) or with scripts/fatbin-dump.py.

Usage: doc_facts.py [-v] [FIXTURE_DIR]    prints "N passed, N failed"; exit 1 on a failure.
"""
import ctypes
import ctypes.util
import os
import re
import struct
import sys

MAGIC = b"\x50\xed\x55\xba"                   # 0xBA55ED50, little-endian
WRAPPER_MAGIC = 0x466243B1
F_64, F_DEBUG, F_HOST_LINUX = 0x1, 0x2, 0x10
F_LZ4, F_ZSTD, F_OPAQUE, F_A, F_F, F_COMPAT = 0x2000, 0x8000, 0x10000, 0x100000, 0x200000, 0x1000000

passed = failed = 0
verbose = False



def rewritten_toolkit(where, arch):
    """nvcc 13.0 writes 130; scripts/gen-mixed-notes rewrites the sm_100f and sm_120 cubins
    of mixed-notes.fatbin to name 13.4 (134), a disagreement on purpose."""
    return 134 if "mixed-notes.fatbin" in where and arch in (100, 120) else 130

def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        if verbose:
            print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)


def lib(name):
    path = ctypes.util.find_library(name)
    return ctypes.CDLL(path) if path else None


LZ4, ZSTD = lib("lz4"), lib("zstd")
if ZSTD:
    ZSTD.ZSTD_decompress.restype = ctypes.c_size_t
    ZSTD.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
    ZSTD.ZSTD_isError.restype = ctypes.c_uint


def sections(img):
    """{name: (offset, size, type, flags)} of an ELF64 little-endian image."""
    if img[:4] != b"\x7fELF" or img[4] != 2 or img[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", img, 0x3C)
    heads = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + 64 * i) for i in range(shnum)]
    names = heads[shstrndx][4]
    out = {}
    for h in heads:
        name = img[names + h[0]:img.index(b"\0", names + h[0])].decode()
        out.setdefault(name, (h[4], h[5], h[1], h[2], h[6]))
    return out


def notes(img, sec):
    """[(type, name, desc)] of one SHT_NOTE section."""
    off, size = sec[0], sec[1]
    out, p = [], off
    while p + 12 <= off + size:
        namesz, descsz, typ = struct.unpack_from("<III", img, p)
        name = img[p + 12:p + 12 + namesz].rstrip(b"\0").decode()
        d = p + 12 + (namesz + 3) // 4 * 4
        out.append((typ, name, img[d:d + descsz]))
        p = d + (descsz + 3) // 4 * 4
    return out


def kernels(img):
    """Names of STT_FUNC symbols with STO_CUDA_ENTRY (st_other & 0x10)."""
    s = sections(img)
    if ".symtab" not in s:
        return []
    off, size, _, _, link = s[".symtab"]
    shoff, = struct.unpack_from("<Q", img, 0x28)
    strtab = struct.unpack_from("<IIQQQQIIQQ", img, shoff + 64 * link)[4]
    out = []
    for i in range(1, size // 24):
        st_name, st_info, st_other = struct.unpack_from("<IBB", img, off + 24 * i)
        if st_info & 0xF == 2 and st_other & 0x10:
            out.append(img[strtab + st_name:img.index(b"\0", strtab + st_name)].decode())
    return out


def entries(buf, at):
    """The container at `at`: (fat_size, [entry dict]); the walk ends exactly at its end."""
    magic, ver, hsz, fat = struct.unpack_from("<4sHHQ", buf, at)
    out, p, end = [], at + hsz, at + 16 + fat
    while p < end:
        (kind, ever, ehs, ps, csz, od, minor, major, arch, idoff, idlen, flags, res,
         usz) = struct.unpack_from("<HHIQIIHHIIIQQQ", buf, p)
        out.append(dict(kind=kind, ever=ever, hs=ehs, ps=ps, csz=csz, od=od, fmt=(major, minor),
                        arch=arch, idoff=idoff, idlen=idlen, flags=flags, res=res, usz=usz,
                        head=bytes(buf[p:p + ehs]), payload=bytes(buf[p + ehs:p + ehs + ps])))
        p += ehs + ps
    return dict(ver=ver, hsz=hsz, fat=fat, walked_to_end=p == end), out


def containers(buf):
    """(offset, header, entries) of every container a validated magic search finds."""
    out, p = [], 0
    while True:
        p = buf.find(MAGIC, p)
        if p < 0 or p + 80 > len(buf):
            return out
        ver, hsz, fat = struct.unpack_from("<HHQ", buf, p + 4)
        ever, = struct.unpack_from("<H", buf, p + 18)
        if ver == 1 and hsz == 16 and ever == 0x0101 and p + 16 + fat <= len(buf):
            h, es = entries(buf, p)
            out.append((p, h, es))
            p += 16 + fat
        else:
            p += 1


def content(e):
    """The entry's decoded content, or None (opaque, or no library here)."""
    if e["flags"] & F_OPAQUE:
        return None
    if e["flags"] & F_LZ4:
        if not LZ4:
            return None
        dst = ctypes.create_string_buffer(e["usz"])
        n = LZ4.LZ4_decompress_safe(e["payload"][:e["csz"]], dst, e["csz"], e["usz"])
        return dst.raw[:n] if n >= 0 else b""
    if e["flags"] & F_ZSTD:
        if not ZSTD:
            return None
        dst = ctypes.create_string_buffer(e["usz"])
        n = ZSTD.ZSTD_decompress(dst, ctypes.c_size_t(e["usz"]), e["payload"][:e["csz"]], ctypes.c_size_t(e["csz"]))
        return b"" if ZSTD.ZSTD_isError(n) else dst.raw[:n]
    return e["payload"]


def name(e):
    pre = {1: "compute_", 2: "sm_", 8: "lto_"}[e["kind"]]
    return pre + str(e["arch"]) + ("a" if e["flags"] & F_A else "f" if e["flags"] & F_F else "")


def main(argv):
    global verbose
    if argv and argv[0] == "-v":
        verbose, argv = True, argv[1:]
    d = argv[0] if argv else os.path.join(os.path.dirname(__file__), "../../testdata/fixtures")
    # the payload checks need both libraries (wheelscan links them too): none is skipped quietly
    check(LZ4 is not None and ZSTD is not None, "liblz4 and libzstd found through ctypes")
    files = sorted(f for f in os.listdir(d) if f.endswith((".fatbin", ".so", ".o", ".a")) or f == "k_exe")
    every = []                        # (file, container offset, entry)
    for f in files:
        buf = open(os.path.join(d, f), "rb").read()
        cs = containers(buf)
        check(cs, "(b) %s: at least one container found by the magic search" % f)
        for at, h, es in cs:
            where = "%s@0x%x" % (f, at)
            check(h["ver"] == 1 and h["hsz"] == 16, "(b) %s: version 1, header size 16" % where)
            check(h["walked_to_end"], "(b) %s: fat_size = sum of entry header_size + payload_size" % where)
            every += [(f, at, e) for e in es]
    check(len(every) > 50, "fixtures hold %d entries" % len(every))

    # (c) the fixed header, on every entry
    for f, at, e in every:
        w = "%s@0x%x %s" % (f, at, name(e))
        check(e["kind"] in (1, 2, 8), "(c) %s: kind is 1, 2 or 8" % w)
        check(e["ever"] == 0x0101, "(c) %s: entry version 0x0101" % w)
        check(e["hs"] >= 64 and e["hs"] % 8 == 0, "(c) %s: header_size %d >= 64, a multiple of 8" % (w, e["hs"]))
        check(e["ps"] % 8 == 0, "(c) %s: payload_size a multiple of 8" % w)
        check(e["flags"] & (F_64 | F_HOST_LINUX) == F_64 | F_HOST_LINUX, "(c) %s: flags 0x1 and 0x10 set" % w)
        check(not (e["flags"] & F_LZ4 and e["flags"] & F_ZSTD), "(c) %s: not both LZ4 and zstd" % w)
        check(bool(e["flags"] & F_COMPAT) == (e["kind"] == 2 and e["arch"] >= 100),
              "(c) %s: flag 0x1000000 exactly on SASS of sm_100 and newer" % w)
        check(bool(e["flags"] & F_OPAQUE) == (e["kind"] == 8 and bool(e["flags"] & (F_LZ4 | F_ZSTD))),
              "(c) %s: flag 0x10000 exactly on compressed LTO-IR" % w)
        if e["flags"] & (F_LZ4 | F_ZSTD):
            check(e["ps"] - 7 <= e["csz"] <= e["ps"] and e["usz"] > 0,
                  "(c) %s: payload_size-7 <= compressed_size <= payload_size" % w)
            check(not e["payload"][e["csz"]:].strip(b"\0"), "(d) %s: zero padding after the stream" % w)
        else:
            check(e["csz"] == 0 and e["usz"] == 0, "(c) %s: uncompressed: both sizes 0" % w)
        if e["kind"] == 2:
            check(e["fmt"] == (1, 8), "(c) %s: cubin format version 1.8" % w)
        if e["kind"] == 8:
            check(e["fmt"] == (1, 65), "(c) %s: LTO-IR format version 1.65" % w)
        if e["flags"] & F_ZSTD and not e["flags"] & F_OPAQUE:
            check(e["payload"][:4] == b"\x28\xb5\x2f\xfd", "(d) %s: zstd frame magic" % w)
            if ZSTD:
                check(ZSTD.ZSTD_getFrameContentSize(e["payload"][:e["csz"]], ctypes.c_size_t(e["csz"])) == e["usz"],
                      "(d) %s: zstd frame content size = uncompressed_size" % w)
        if e["flags"] & F_OPAQUE:
            check(e["payload"][:4] != b"\x28\xb5\x2f\xfd", "(d) %s: obfuscated: no zstd frame" % w)
        c = content(e)
        if c is None:
            continue
        if e["flags"] & (F_LZ4 | F_ZSTD):
            check(len(c) == e["usz"], "(d) %s: decodes to exactly uncompressed_size" % w)
        if e["kind"] == 1:
            text = c.rstrip(b"\0").decode("latin-1")
            check(c[len(text)] == 0 if len(c) > len(text) else False, "(d) %s: PTX ends in NUL" % w)
            ver = re.search(r"^\.version (\d+)\.(\d+)", text, re.M)
            tgt = re.search(r"^\.target (\S+?)(, debug)?$", text, re.M)
            check(ver and (int(ver.group(1)), int(ver.group(2))) == e["fmt"],
                  "(c)(f) %s: header major.minor = .version" % w)
            check(tgt and tgt.group(1) == "sm_" + name(e)[len("compute_"):],
                  "(f) %s: .target = the header arch with its suffix" % w)
            check(bool(tgt and tgt.group(2)) == bool(e["flags"] & F_DEBUG), "(f) %s: ', debug' iff flag 0x2" % w)
        if e["kind"] == 2:
            check(c[:4] == b"\x7fELF" and c[4] == 2 and c[5] == 1, "(e) %s: ELF64 little-endian" % w)
            machine, = struct.unpack_from("<H", c, 18)
            flags, = struct.unpack_from("<I", c, 0x30)
            check(machine == 190, "(e) %s: e_machine 190 (EM_CUDA)" % w)
            check(c[7] == 0x41 and c[8] == 8, "(e) %s: OSABI 0x41, ABI version 8" % w)
            check((flags >> 8) & 0xFF == e["arch"], "(e) %s: SM in e_flags bits 8..15" % w)
            check(flags & 0xFF == (0x02 if e["arch"] >= 100 else 0x04), "(e) %s: e_flags low byte" % w)
            s = sections(c)
            cuinfo = [n for n in notes(c, s[".note.nv.cuinfo"])] if ".note.nv.cuinfo" in s else []
            check(cuinfo and cuinfo[0][0] == 1000 and cuinfo[0][1] == "NVIDIA Corp" and
                  struct.unpack_from("<HHI", cuinfo[0][2]) == (2, e["arch"], rewritten_toolkit(w, e["arch"])),
                  "(e) %s: .note.nv.cuinfo type 1000 {2, sm, 130}" % w)
            tk = [n for n in notes(c, s[".note.nv.tkinfo"])] if ".note.nv.tkinfo" in s else []
            if tk:
                desc = tk[0][2]
                tab = desc[24:]
                opts = tab[struct.unpack_from("<I", desc, 20)[0]:].split(b"\0")[0].decode()
                tool = tab[struct.unpack_from("<I", desc, 8)[0]:].split(b"\0")[0].decode()
                check(tk[0][0] == 2000 and tool in ("ptxas", "nvlink"),
                      "(e) %s: .note.nv.tkinfo type 2000, tool ptxas or nvlink (%s)" % (w, tool))
                check(re.search(r"-arch %s\b" % name(e), opts) is not None,
                      "(e) %s: tkinfo options name -arch %s" % (w, name(e)))
            else:
                check(False, "(e) %s: .note.nv.tkinfo present" % w)
            if e["flags"] & F_COMPAT:
                o, n = struct.unpack_from("<II", e["head"], e["od"])
                blob, nvc = e["head"][o:o + n], s.get(".nv.compat")
                check(e["od"] in (0x40, 0x48) and nvc is not None and n == nvc[1] and blob[:1] == b"\0" and
                      blob[1:] == c[nvc[0]:nvc[0] + n - 1] and c[nvc[0] + n - 1] == 0,
                      "(c) %s: compat blob = 00 + .nv.compat minus its last (zero) byte" % w)
            elif e["kind"] == 2:
                check(e["od"] == 0, "(c) %s: SASS below sm_100: no descriptor" % w)

    by = {}
    for f, at, e in every:
        by.setdefault(f, []).append(e)
    # (c) identifier and options strings
    for e in by["debug-G-90.fatbin"] + by["lineinfo-90.fatbin"]:
        check(e["head"][e["idoff"]:e["idoff"] + e["idlen"]].rstrip(b"\0") == b"k.cu",
              "(c) -G / -lineinfo: identifier 'k.cu' (%s)" % name(e))
    ptx = [e for e in by["ptx-O1-100.fatbin"] if e["kind"] == 1][0]
    o, n = struct.unpack_from("<II", ptx["head"], ptx["od"])
    check(ptx["head"][o:o + n] == b"-O1  " and ptx["head"][o + n] == 0, "(c) -Xptxas -O1: options '-O1  ', NUL after")
    # (e) e_flags bits 24..31 follow -lineinfo and -G; (d) -G cubins are zstd by default
    top = lambda e: struct.unpack_from("<I", content(e), 0x30)[0] >> 24
    sass = lambda f: [e for e in by[f] if e["kind"] == 2][0]
    check(top(sass("lineinfo-90.fatbin")) == 0x09 and top(sass("debug-G-90.fatbin")) == 0x0e and
          top(sass("sass90-ptx90.fatbin")) == 0x06, "(e) e_flags bits 24..31: 0x06, 0x09 -lineinfo, 0x0e -G (sm_90)")
    check(sass("debug-G-90.fatbin")["flags"] & F_ZSTD, "(d) -G: the cubin is zstd-compressed")
    # (c) a/f flags and the e_flags that do not carry them
    for f, flag in (("arch-a.fatbin", F_A), ("arch-f.fatbin", F_F)):
        check(all(e["flags"] & (F_A | F_F) == flag for e in by[f]), "(c) %s: every entry has flag 0x%x" % (f, flag))
    check(all(not e["flags"] & (F_A | F_F) for e in by["arch-plain.fatbin"]), "(c) arch-plain.fatbin: no a/f flag")
    # (d) what nvcc's --compress-mode does (uncompressed SASS vs PTX) and the file sizes
    modes = {"g5-default": ("none", "zstd", 41816), "g5-size": ("zstd", "zstd", 8080),
             "g5-speed": ("none", "lz4", 42016), "g5-none": ("none", "none", 42840),
             "g5-compress-all": ("zstd", "zstd", 8640), "g5-compress-all-speed": ("lz4", "lz4", 12336)}
    for m, (sass, ptx_c, size) in modes.items():
        es = by[m + ".fatbin"]
        comp = lambda e: "lz4" if e["flags"] & F_LZ4 else "zstd" if e["flags"] & F_ZSTD else "none"
        check(len(es) == 6 and {comp(e) for e in es if e["kind"] == 2} == {sass} and
              {comp(e) for e in es if e["kind"] == 1} == {ptx_c} and
              os.path.getsize(os.path.join(d, m + ".fatbin")) == size,
              "(d) %s: SASS %s, PTX %s, %d bytes" % (m, sass, ptx_c, size))
    # (e) bare cubins: e_flags carry no a/f; the suffix is in the ptxas options
    c100a = open(os.path.join(d, "sm_100a.cubin"), "rb").read()
    check(struct.unpack_from("<I", c100a, 0x30)[0] == 0x06006402, "(e) sm_100a.cubin: e_flags 0x06006402 (as sm_100)")
    check(sorted(kernels(c100a)) == ["_Z3addPfPKfi", "_Z4tmplIdEvPT_", "k_plain"],
          "(e) sm_100a.cubin: STO_CUDA_ENTRY kernels are k.cu's three")
    s = sections(c100a)
    desc = notes(c100a, s[".note.nv.tkinfo"])[0][2]
    opts = desc[24 + struct.unpack_from("<I", desc, 20)[0]:].split(b"\0")[0]
    check(opts.startswith(b"-arch sm_100a "), "(e) sm_100a.cubin: the suffix is in the tkinfo options (%r)" % opts)
    c90 = open(os.path.join(d, "sm_90.cubin"), "rb").read()
    check(struct.unpack_from("<I", c90, 0x30)[0] == 0x06005a04, "(e) sm_90.cubin: e_flags 0x06005a04")
    # (e) relocatable device code: ET_REL cubins, zstd by default
    rel = [e for e in by["k_dc_90.o"] if e["kind"] == 2]
    check(rel and all(struct.unpack_from("<H", content(e), 16)[0] == 1 and e["flags"] & F_ZSTD for e in rel if content(e)),
          "(e) k_dc_90.o (-dc): SASS is an ET_REL cubin, zstd-compressed")
    # (a) host ELF: sections, back-to-back containers, the wrappers
    so = open(os.path.join(d, "multi.so"), "rb").read()
    s = sections(so)
    off, size = s[".nv_fatbin"][:2]
    p = off
    for at, h, es in containers(so):
        if off <= at < off + size:
            check(at == p, "(a) multi.so: container at 0x%x follows the previous one directly" % at)
            p = at + 16 + h["fat"]
    check(p == off + size, "(a) multi.so: the containers fill .nv_fatbin exactly")
    woff, wsize = s[".nvFatBinSegment"][:2]
    wr = [struct.unpack_from("<IIQQ", so, woff + i) for i in range(0, wsize, 24)]
    check(wsize % 24 == 0 and all(w[0] == WRAPPER_MAGIC for w in wr), "(a) multi.so: 24-byte wrappers, magic 0x466243B1")
    check([w[1] for w in wr] == [2, 1, 1], "(a) multi.so (-shared, 2 units): wrapper versions 2, 1, 1")
    rso = open(os.path.join(d, "rdc.so"), "rb").read()
    check("__nv_relfatbin" in sections(rso), "(a) rdc.so: an __nv_relfatbin section")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
