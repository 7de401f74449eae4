#!/usr/bin/env python3
"""mkpe.py - write a minimal Windows PE32+ DLL holding given bytes in named sections.

nvcc here cannot target Windows, so the PE fixtures are made from real nvcc output: the
bytes of a section of an ELF file built by nvcc (its .nv_fatbin, __nv_relfatbin) go into
the section a Windows build would use (.nv_fatb, __nv_rel). Layout per the Microsoft PE
format specification: DOS header ("MZ", e_lfanew at 0x3c), "PE\\0\\0", COFF header (machine
x86-64, DLL), a PE32+ optional header, 40-byte section headers, section data aligned to
0x200. The image is never loaded; it only has to be a well-formed file.

Usage: mkpe.py OUT NAME=SOURCE[:ELFSECTION] ...
  SOURCE:ELFSECTION  the bytes of that section of the ELF file SOURCE
  SOURCE             the whole file
  NAME=@N            N filler bytes (a .text stand-in)
"""
import struct
import sys

FILE_ALIGN, SECT_ALIGN = 0x200, 0x1000


def elf_section(path, want):
    buf = open(path, "rb").read()
    if buf[:4] != b"\x7fELF" or buf[4] != 2 or buf[5] != 1:
        sys.exit("mkpe: %s is not a 64-bit little-endian ELF file" % path)
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", buf, 0x3C)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", buf, shoff + i * 64) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    for h in hdrs:
        name = buf[stroff + h[0]:buf.index(b"\0", stroff + h[0])].decode()
        if name == want:
            return buf[h[4]:h[4] + h[5]]
    sys.exit("mkpe: %s has no section %s" % (path, want))


def align(n, a):
    return (n + a - 1) // a * a


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out, specs = argv[1], argv[2:]
    sections = []
    for spec in specs:
        name, src = spec.split("=", 1)
        if len(name.encode()) > 8:
            sys.exit("mkpe: section name %s is longer than 8 bytes" % name)
        if src.startswith("@"):
            data = b"\xcc" * int(src[1:])
        elif ":" in src:
            path, sec = src.split(":", 1)
            data = elf_section(path, sec)
        else:
            data = open(src, "rb").read()
        sections.append((name.encode(), data))
    lfanew = 0x80
    opt_size = 240
    headers = lfanew + 24 + opt_size + 40 * len(sections)
    raw = align(headers, FILE_ALIGN)
    rva = SECT_ALIGN
    table, body = b"", b""
    for name, data in sections:
        size = align(len(data), FILE_ALIGN)
        table += struct.pack("<8sIIIIIIHHI", name.ljust(8, b"\0"), len(data), rva, size, raw + len(body),
                             0, 0, 0, 0, 0x40000040)     # initialised data, readable
        body += data + b"\0" * (size - len(data))
        rva += align(len(data), SECT_ALIGN)
    dos = b"MZ" + b"\0" * 58 + struct.pack("<I", lfanew)
    dos += b"\0" * (lfanew - len(dos))
    coff = b"PE\0\0" + struct.pack("<HHIIIHH", 0x8664, len(sections), 0, 0, 0, opt_size, 0x2022)
    opt = struct.pack("<HBBIIIIIQIIHHHHHHIIIIHHQQQQII", 0x20B, 14, 0, 0, 0, 0, 0, 0, 0x180000000,
                      SECT_ALIGN, FILE_ALIGN, 6, 0, 0, 0, 6, 0, 0, rva, raw, 0, 3, 0x160,
                      0x100000, 0x1000, 0x100000, 0x1000, 0, 16)
    opt += b"\0" * (opt_size - len(opt))                 # 16 empty data directories
    image = dos + coff + opt + table
    image += b"\0" * (raw - len(image)) + body
    open(out, "wb").write(image)


if __name__ == "__main__":
    main(sys.argv)
