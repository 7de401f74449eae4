#!/usr/bin/env python3
"""fatbin-dump.py - debugging aid: list every CUDA fatbin container and entry in a file.

An independent, deliberately simple reading of doc/fatbin-format.md (not used by wheelscan
itself). Input: an ELF file (.so, executable, .o), a Windows PE image (.dll, .pyd, .exe), an ar
archive (.a), a raw fatbin, a bare cubin or a PTX file. Containers are found by a validated magic search over the whole file and labelled
with the ELF section that holds them. Compressed payloads are decoded through ctypes with the
system liblz4/libzstd when present, to list kernels (cubin: STT_FUNC symbols with st_other & 0x10;
PTX: .entry lines); without those libraries kernels of compressed entries show as '?'.

A zip (wheel) is read member by member (in memory: meant for small files) and each member that
holds device code is shown as "member!container".

Usage: fatbin-dump.py [--json|--summary|--brief|--ws-json] FILE...
  default     one line per container and per entry
  --summary   one line per file: entries as kind:arch:compression, in file order
  --brief     one line per file: SECTION{ARCH[~COMPRESSION](KERNELS) ...} per container, where
              KERNELS is the kernel count or ? when unknown (obfuscated LTO-IR)
  --json      JSON with the same facts
  --ws-json   JSON in the shape of wheelscan --json (man/wheelscan.schema.json; the keys needed to
              compare with it: artifacts[].objects[].fatbins[].entries[] kind/arch/compression/
              kernels); a stand-in to test scripts that consume wheelscan's JSON
"""
import ctypes
import ctypes.util
import json
import re
import struct
import sys
import zipfile

FATBIN_MAGIC = 0xBA55ED50
KIND = {1: "ptx", 2: "sass", 8: "ltoir"}
PREFIX = {1: "compute_", 2: "sm_", 8: "lto_"}
F_DEBUG, F_LZ4, F_ZSTD, F_OBFUSC = 0x2, 0x2000, 0x8000, 0x10000
F_ARCH_A, F_ARCH_F = 0x100000, 0x200000


def _lib(name):
    path = ctypes.util.find_library(name)
    if not path:
        return None
    try:
        return ctypes.CDLL(path)
    except OSError:
        return None


LZ4 = _lib("lz4")
ZSTD = _lib("zstd")


def decompress(flags, data, usize):
    """Return the decoded payload, or None when it cannot be decoded here."""
    if flags & F_OBFUSC:
        return None
    dst = ctypes.create_string_buffer(usize)
    if flags & F_LZ4:
        if not LZ4:
            return None
        n = LZ4.LZ4_decompress_safe(data, dst, len(data), usize)
        return dst.raw[:n] if n == usize else None
    if flags & F_ZSTD:
        if not ZSTD:
            return None
        ZSTD.ZSTD_decompress.restype = ctypes.c_size_t
        n = ZSTD.ZSTD_decompress(dst, ctypes.c_size_t(usize), data, ctypes.c_size_t(len(data)))
        return dst.raw[:n] if n == usize else None
    return data


def elf_sections(buf):
    """[(name, offset, size, type)] of an ELF64 LE file; [] if buf is no such file."""
    if len(buf) < 64 or buf[:4] != b"\x7fELF" or buf[4] != 2 or buf[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", buf, 0x3A)
    if shoff == 0 or shentsize != 64 or shoff + shnum * 64 > len(buf):
        return []
    raw = [struct.unpack_from("<IIQQQQIIQQ", buf, shoff + i * 64) for i in range(shnum)]
    if shstrndx >= shnum:
        return []
    stroff = raw[shstrndx][4]
    out = []
    for s in raw:
        end = buf.find(b"\0", stroff + s[0])
        out.append((buf[stroff + s[0]:end].decode("latin-1"), s[4], s[5], s[1], s))
    return out


def cubin_info(img):
    """(e_flags-derived sm, abi version, [kernel names]) of a device ELF image."""
    if len(img) < 64 or img[:4] != b"\x7fELF":
        return None, None, []
    abiver = img[8]
    e_flags, = struct.unpack_from("<I", img, 0x30)
    sm = (e_flags >> 8) & 0xFF if abiver >= 8 else e_flags & 0xFF
    secs = elf_sections(img)
    kernels = []
    for name, off, size, typ, s in secs:
        if typ != 2:  # SHT_SYMTAB
            continue
        link = s[6]
        stroff = secs[link][1] if link < len(secs) else 0
        for i in range(size // 24):
            st_name, st_info, st_other = struct.unpack_from("<IBB", img, off + i * 24)
            if st_info & 0xF == 2 and st_other & 0x10:
                end = img.find(b"\0", stroff + st_name)
                kernels.append(img[stroff + st_name:end].decode("latin-1"))
    return sm, abiver, kernels


def ptx_info(text):
    t = text.split(b"\0", 1)[0].decode("latin-1")
    ver = re.search(r"^\s*\.version\s+(\S+)", t, re.M)
    tgt = re.search(r"^\s*\.target\s+([^\n]+)", t, re.M)
    ents = re.findall(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)", t, re.M)
    return (ver.group(1) if ver else None), (tgt.group(1).strip() if tgt else None), ents


def parse_container(buf, off):
    """Entries of the container at off, and its total length; None if the header is invalid."""
    if off + 16 > len(buf):
        return None
    magic, ver, hsz, fsz = struct.unpack_from("<IHHQ", buf, off)
    if magic != FATBIN_MAGIC or ver != 1 or hsz != 16 or off + 16 + fsz > len(buf):
        return None
    pos, end, entries = off + 16, off + 16 + fsz, []
    while pos + 64 <= end:
        (kind, ever, ehsz, psz, csz, optoff, minor, major, arch, idoff, idlen, flags, key,
         usz) = struct.unpack_from("<HHIQIIHHIIIQQQ", buf, pos)
        if ever != 0x0101 or ehsz < 64 or pos + ehsz + psz > end:
            break
        name = PREFIX.get(kind, "kind%d_" % kind) + str(arch)
        if flags & F_ARCH_A:
            name += "a"
        elif flags & F_ARCH_F:
            name += "f"
        comp = "lz4" if flags & F_LZ4 else "zstd" if flags & F_ZSTD else "none"
        e = {"kind": KIND.get(kind, "unknown"), "arch": name, "compression": comp,
             "flags": "0x%x" % flags, "header_size": ehsz, "payload_size": psz,
             "compressed_size": csz, "uncompressed_size": usz,
             "format": "%d.%d" % (major, minor), "obfuscated": bool(flags & F_OBFUSC),
             "debug": bool(flags & F_DEBUG)}
        if idoff and idlen and idoff + idlen <= ehsz:
            e["identifier"] = buf[pos + idoff:pos + idoff + idlen].split(b"\0")[0].decode("latin-1")
        if optoff and optoff + 8 <= ehsz:
            o, n = struct.unpack_from("<II", buf, pos + optoff)
            if kind != 2 and o + n <= ehsz:
                e["options"] = buf[pos + o:pos + o + n].decode("latin-1")
        payload = bytes(buf[pos + ehsz:pos + ehsz + (csz if csz else psz)])
        data = decompress(flags, payload, usz) if comp != "none" else payload
        e["kernels"] = None
        if data is not None and kind == 2:
            sm, abiver, e["kernels"] = cubin_info(data)
            e["elf_sm"], e["elf_abi"] = sm, abiver
            e["elf_type"] = struct.unpack_from("<H", data, 16)[0] if len(data) > 18 else None
        elif data is not None and kind == 1:
            e["ptx_isa"], e["ptx_target"], e["kernels"] = ptx_info(data)
        entries.append(e)
        pos += ehsz + psz
    return entries, 16 + fsz


def pe_sections(buf):
    """[(name, offset, size, 0, None)] of a PE image (Microsoft PE format: "MZ", e_lfanew at
    0x3c, "PE\\0\\0", COFF header, optional header, 40-byte section headers); [] otherwise."""
    if len(buf) < 64 or buf[:2] != b"MZ":
        return []
    lfanew, = struct.unpack_from("<I", buf, 0x3C)
    if lfanew + 24 > len(buf) or buf[lfanew:lfanew + 4] != b"PE\0\0":
        return []
    nsec, = struct.unpack_from("<H", buf, lfanew + 6)
    optsize, = struct.unpack_from("<H", buf, lfanew + 20)
    tab = lfanew + 24 + optsize
    out = []
    for i in range(nsec):
        if tab + (i + 1) * 40 > len(buf):
            return []
        name = buf[tab + i * 40:tab + i * 40 + 8].split(b"\0")[0].decode("latin-1")
        rsize, roff = struct.unpack_from("<II", buf, tab + i * 40 + 16)
        if rsize and roff:
            out.append((name, roff, rsize, 0, None))
    return out


def scan(buf, base=0, sections=None):
    """All containers in buf: [{section, offset, size, entries}]."""
    secs = (elf_sections(buf) or pe_sections(buf)) if sections is None else sections
    out, off = [], 0
    needle = struct.pack("<I", FATBIN_MAGIC)
    while True:
        off = buf.find(needle, off)
        if off < 0:
            break
        r = parse_container(buf, off)
        if r is None:
            off += 4
            continue
        entries, size = r
        label = "fatbin" if off == 0 and not secs else None  # a raw fatbin file
        for name, soff, ssize, typ, _ in secs:
            if typ != 8 and soff <= off < soff + ssize:  # 8 = SHT_NOBITS
                label = name
        out.append({"section": label, "offset": base + off, "size": size, "entries": entries})
        off += size
    return out


def scan_file(path):
    buf = open(path, "rb").read()
    if buf[:4] == b"PK\x03\x04":
        res = []
        with zipfile.ZipFile(path) as z:
            for zi in z.infolist():
                for c in scan_bytes(z.read(zi)):
                    c["member"] = zi.filename + ("!" + c["member"] if "member" in c else "")
                    res.append(c)
        return res
    return scan_bytes(buf)


def scan_bytes(buf):
    if buf[:8] == b"!<arch>\n":  # ar archive: scan each member on its own
        res, pos = [], 8
        while pos + 60 <= len(buf):
            name = buf[pos:pos + 16].decode("latin-1").strip().rstrip("/")
            size = int(buf[pos + 48:pos + 58].decode().strip())
            body = buf[pos + 60:pos + 60 + size]
            for c in scan(body, pos + 60):
                c["member"] = name
                res.append(c)
            pos += 60 + size + (size & 1)
        return res
    if buf[:4] == b"\x7fELF" and buf[18:20] == b"\xbe\x00":  # bare cubin (EM_CUDA = 190)
        sm, abiver, kernels = cubin_info(buf)
        # 'a'/'f' survive only in the ptxas options string of .note.nv.tkinfo
        m = re.search(rb"-arch (sm_%d[af]?) " % sm, buf)
        return [{"section": "cubin", "offset": 0, "size": len(buf),
                 "entries": [{"kind": "sass", "arch": m.group(1).decode() if m else "sm_%d" % sm,
                              "kernels": kernels, "compression": "none", "elf_abi": abiver}]}]
    if buf.lstrip()[:2] == b"//" or b".version" in buf[:4096] and b"\0" not in buf:
        ver, tgt, ents = ptx_info(buf)
        return [{"section": "ptx", "offset": 0, "size": len(buf),
                 "entries": [{"kind": "ptx", "arch": "compute_" + tgt.split(",")[0][3:]
                              if tgt else "?", "ptx_isa": ver, "ptx_target": tgt,
                              "kernels": ents, "compression": "none"}]}]
    return scan(buf)


def main(argv):
    mode = "long"
    files = []
    for a in argv:
        if a in ("--json", "--summary", "--brief", "--ws-json"):
            mode = a[2:]
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    alljs = {}
    for f in files:
        if mode == "ws-json":
            break
        cs = scan_file(f)
        if mode == "json":
            alljs[f] = cs
        elif mode == "brief":
            parts = []
            for c in cs:
                es = []
                for e in c["entries"]:
                    k = e.get("kernels")
                    es.append("%s%s(%s)" % (e["arch"], "" if e["compression"] == "none"
                                            else "~" + e["compression"],
                                            "?" if k is None else len(k)))
                parts.append("%s%s{%s}" % (c["member"] + "!" if "member" in c else "",
                                           c["section"], " ".join(es)))
            print("%s: %s" % (f, " ".join(parts)))
        elif mode == "summary":
            items = ["%s:%s:%s" % (e["kind"], e["arch"], e["compression"])
                     for c in cs for e in c["entries"]]
            print("%s: %d containers: %s" % (f, len(cs), " ".join(items)))
        elif mode == "long":
            print("%s: %d containers" % (f, len(cs)))
            for c in cs:
                print("  container %s @0x%x size %d%s: %d entries" % (
                    c["section"], c["offset"], c["size"],
                    " (member %s)" % c["member"] if "member" in c else "", len(c["entries"])))
                for e in c["entries"]:
                    extra = []
                    for k in ("flags", "header_size", "payload_size", "compressed_size",
                              "uncompressed_size", "format", "elf_type", "elf_abi", "ptx_isa",
                              "ptx_target", "identifier", "options"):
                        if e.get(k) is not None:
                            extra.append("%s=%r" % (k, e[k]) if k in ("identifier", "options",
                                                                        "ptx_target")
                                         else "%s=%s" % (k, e[k]))
                    if e.get("obfuscated"):
                        extra.append("obfuscated")
                    ks = e.get("kernels")
                    print("    %-5s %-13s %-4s %s" % (e["kind"], e["arch"], e["compression"],
                                                      " ".join(extra)))
                    print("          kernels: %s" % ("?" if ks is None else " ".join(ks) or "-"))
    if mode == "json":
        json.dump(alljs, sys.stdout, indent=1)
        print()
    if mode == "ws-json":
        arts = []
        for f in files:
            head = open(f, "rb").read(8)
            cs = scan_file(f)
            typ = ("wheel" if head[:4] == b"PK\x03\x04" else "archive" if head == b"!<arch>\n"
                   else "cubin" if cs and cs[0]["section"] == "cubin"
                   else "ptx" if cs and cs[0]["section"] == "ptx"
                   else "elf" if head[:4] == b"\x7fELF" else "fatbin")
            objs = {}
            for c in cs:
                m = c.get("member")
                o = objs.setdefault(m, {"member": m, "fatbins": []})
                sec = c["section"] if typ in ("elf", "archive", "wheel") else None
                o["fatbins"].append({
                    "section": sec, "offset": c["offset"], "size": c["size"],
                    "relocatable": sec == "__nv_relfatbin",
                    "entries": [{"kind": e["kind"], "arch": e["arch"],
                                 "compression": e["compression"], "kernels": e.get("kernels")}
                                for e in c["entries"]]})
            arts.append({"path": f, "type": typ, "objects": list(objs.values()), "errors": []})
        json.dump({"schema_version": 1, "artifacts": arts}, sys.stdout)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
