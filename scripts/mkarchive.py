#!/usr/bin/env python3
"""mkarchive.py - deterministic writers for the archive fixtures: tar (plain, gzip, bzip2,
xz, zstd), Debian packages (ar around control.tar.gz and data.tar.*), conda packages
(.conda: a stored zip around info-/pkg-*.tar.zst; legacy .tar.bz2), and zstd frames
written by hand (raw and RLE blocks: valid zstd, byte-for-byte the same on every machine,
and able to make a bomb of any size from a few bytes).

Used by scripts/gen-testdata (the good fixtures) and scripts/gen-hostile (the broken
ones). As a program: mkarchive.py OUTDIR writes the good fixtures into OUTDIR.
"""
import bz2
import gzip
import hashlib
import io
import json
import lzma
import os
import struct
import sys
import tarfile
import zipfile

MTIME = 1700000000          # every date in every fixture


# ---- zstd frames by hand --------------------------------------------------------------

ZSTD_BLOCK = 128 << 10


def zstd_frame(data=b'', rle=None):
    """A zstd frame: data as raw blocks, then rle=(byte, count) as RLE blocks."""
    out = bytearray(b'\x28\xb5\x2f\xfd')
    out += bytes([0x00, (7 << 3)])          # no content size, no checksum; window 128 KiB
    blocks = []
    for i in range(0, len(data), ZSTD_BLOCK):
        blocks.append((0, data[i:i + ZSTD_BLOCK]))
    if rle:
        byte, count = rle
        while count:
            k = min(count, ZSTD_BLOCK)
            blocks.append((1, (k, byte)))
            count -= k
    if not blocks:
        blocks.append((0, b''))
    for n, (kind, payload) in enumerate(blocks):
        last = 1 if n == len(blocks) - 1 else 0
        if kind == 0:
            size, body = len(payload), payload
        else:
            size, body = payload[0], bytes([payload[1]])
        hdr = last | (kind << 1) | (size << 3)
        out += struct.pack('<I', hdr)[:3] + body
    return bytes(out)


def compress(data, how):
    if how in ('', None):
        return data
    if how == 'gz':
        b = io.BytesIO()
        with gzip.GzipFile(fileobj=b, mode='wb', mtime=0, filename='') as g:
            g.write(data)
        return b.getvalue()
    if how == 'bz2':
        return bz2.compress(data, 9)
    if how == 'xz':
        return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
    if how == 'zst':
        return zstd_frame(data)
    raise ValueError(how)


# ---- tar ---------------------------------------------------------------------------------

def tar_bytes(members, fmt=tarfile.GNU_FORMAT):
    """members: (name, bytes) for files, (name, None) for directories, (name, '->target')
    for symbolic links; in order."""
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode='w', format=fmt) as t:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = MTIME
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = 'root'
            if data is None:
                ti.type, ti.mode = tarfile.DIRTYPE, 0o755
                t.addfile(ti)
            elif isinstance(data, str) and data.startswith('->'):
                ti.type, ti.linkname, ti.mode = tarfile.SYMTYPE, data[2:], 0o777
                t.addfile(ti)
            else:
                ti.size, ti.mode = len(data), 0o644
                t.addfile(ti, io.BytesIO(data))
    return b.getvalue()


# ---- ar and Debian packages ---------------------------------------------------------------

def ar_bytes(members):
    out = bytearray(b'!<arch>\n')
    for name, data in members:
        out += ('%-16s%-12d%-6d%-6d%-8s%-10d`\n' % (name, MTIME, 0, 0, '100644', len(data))).encode()
        out += data
        if len(data) & 1:
            out += b'\n'
    return bytes(out)


def deb_bytes(files, data_comp='xz', md5_override=None, with_data=True, control_extra=()):
    """files: (path below /, bytes). md5sums lists every file (md5_override: path -> hex)."""
    md5 = ''
    for path, data in files:
        h = (md5_override or {}).get(path, hashlib.md5(data).hexdigest())
        md5 += '%s  %s\n' % (h, path)
    control = b'Package: wscan-cuda\nVersion: 1.0\nArchitecture: amd64\nMaintainer: wheelscan <t@example.org>\n' \
              b'Description: wheelscan test package\n'
    ctl = tar_bytes([('./', None), ('./control', control), ('./md5sums', md5.encode())] + list(control_extra))
    dirs = set()
    for path, _ in files:
        parts = path.split('/')[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add('./' + '/'.join(parts[:i]) + '/')
    data = tar_bytes([('./', None)] + [(d, None) for d in sorted(dirs)] + [('./' + p, d) for p, d in files])
    members = [('debian-binary', b'2.0\n'), ('control.tar.gz', compress(ctl, 'gz'))]
    if with_data:
        members.append(('data.tar.' + data_comp, compress(data, data_comp)))
    return ar_bytes(members)


# ---- conda packages ------------------------------------------------------------------------

def conda_info(name, version, build, files, sha_override=None):
    index = {'name': name, 'version': version, 'build': build, 'build_number': 0, 'subdir': 'linux-64',
             'depends': []}
    paths = {'paths': [{'_path': p, 'path_type': 'hardlink',
                        'sha256': (sha_override or {}).get(p, hashlib.sha256(d).hexdigest()),
                        'size_in_bytes': len(d)} for p, d in files], 'paths_version': 1}
    return [('info/index.json', json.dumps(index, sort_keys=True).encode()),
            ('info/paths.json', json.dumps(paths, sort_keys=True).encode())]


def zip_stored(members):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_STORED) as z:
        for name, data in members:
            zi = zipfile.ZipInfo(name, date_time=(2023, 11, 14, 22, 13, 20))
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)
    return b.getvalue()


def conda_bytes(name, version, build, files, sha_override=None, pkg_first=True):
    stem = '%s-%s-%s' % (name, version, build)
    info = ('info-%s.tar.zst' % stem, compress(tar_bytes(conda_info(name, version, build, files, sha_override)), 'zst'))
    pkg = ('pkg-%s.tar.zst' % stem, compress(tar_bytes(files), 'zst'))
    body = [pkg, info] if pkg_first else [info, pkg]
    return zip_stored([('metadata.json', b'{"conda_pkg_format_version": 2}')] + body)


def conda_legacy_bytes(name, version, build, files):
    return compress(tar_bytes(conda_info(name, version, build, files) + files), 'bz2')


# ---- the good fixtures -----------------------------------------------------------------------

def good(fix):
    """name -> bytes of every good archive fixture, from the committed fixtures in fix."""
    def rd(n):
        with open(os.path.join(fix, n), 'rb') as f:
            return f.read()
    so, lib, whl = rd('multi.so'), rd('libk.a'), rd('example.whl')
    readme = b'wheelscan archive fixture\n'
    tar_members = [('./', None), ('./usr/', None), ('./usr/lib/', None), ('./usr/lib/libmulti.so', so),
                   ('./usr/lib/libmulti.so.1', '->libmulti.so'), ('./usr/lib/libk.a', lib),
                   ('./dist/', None), ('./dist/example.whl', whl), ('./README', readme)]
    t = tar_bytes(tar_members)
    out = {'pkg.tar': t}
    for c in ('gz', 'bz2', 'xz', 'zst'):
        out['pkg.tar.' + c] = compress(t, c)
    out['pkg-pax.tgz'] = compress(tar_bytes(tar_members, tarfile.PAX_FORMAT), 'gz')
    # a tarball inside a tarball: one level of nesting, named "inner.tar.gz!usr/lib/libmulti.so";
    # a compressed library beside it is named as its member ("libmulti.so.gz")
    out['nested.tar'] = tar_bytes([('inner.tar.gz', compress(tar_bytes([('usr/lib/libmulti.so', so)]), 'gz')),
                                   ('libmulti.so.gz', compress(so, 'gz'))])
    deb_files = [('usr/lib/x86_64-linux-gnu/libmulti.so', so),
                 ('usr/share/doc/wscan-cuda/changelog.Debian.gz', compress(b'wscan-cuda (1.0) unstable\n', 'gz'))]
    out['wscan-cuda_1.0_amd64.deb'] = deb_bytes(deb_files)
    out['wscan-cuda_1.0_amd64-zst.deb'] = deb_bytes(deb_files, data_comp='zst')
    conda_files = [('lib/libmulti.so', so), ('lib/libk.a', lib)]
    out['wscan-cuda-1.0-cuda_0.conda'] = conda_bytes('wscan-cuda', '1.0', 'cuda_0', conda_files)
    out['wscan-cuda-1.0-cuda_0.tar.bz2'] = conda_legacy_bytes('wscan-cuda', '1.0', 'cuda_0', conda_files)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: mkarchive.py OUTDIR')
    fix = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'testdata', 'fixtures')
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in sorted(good(fix).items()):
        with open(os.path.join(sys.argv[1], name), 'wb') as f:
            f.write(data)
        print('%-36s %8d bytes' % (name, len(data)))


if __name__ == '__main__':
    main()
