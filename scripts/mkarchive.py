#!/usr/bin/env python3
"""mkarchive.py - deterministic writers for the archive fixtures: tar (plain, gzip, bzip2,
xz, zstd), Debian packages (ar around control.tar.gz and data.tar.*), conda packages
(.conda: a stored zip around info-/pkg-*.tar.zst; legacy .tar.bz2), container images
(docker save, legacy and docker 25+'s OCI layout in a tar; OCI image layouts as a
tarball and as a directory), and zstd frames
written by hand (raw and RLE blocks: valid zstd, byte-for-byte the same on every machine,
and able to make a bomb of any size from a few bytes).

Used by scripts/gen-testdata (the good fixtures) and scripts/gen-hostile (the broken
ones). As a program: mkarchive.py OUTDIR writes the good fixtures into OUTDIR;
mkarchive.py --images OUTDIR the container images.
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


# ---- container images --------------------------------------------------------------------

OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
OCI_INDEX = 'application/vnd.oci.image.index.v1+json'
OCI_CONFIG = 'application/vnd.oci.image.config.v1+json'
LAYER_TYPE = {'': 'application/vnd.oci.image.layer.v1.tar', 'gz': 'application/vnd.oci.image.layer.v1.tar+gzip',
              'zst': 'application/vnd.oci.image.layer.v1.tar+zstd'}


def sha(data):
    return hashlib.sha256(data).hexdigest()


def jdump(obj):
    return json.dumps(obj, sort_keys=True, separators=(',', ':')).encode()


def desc(media, data, **extra):
    d = {'mediaType': media, 'digest': 'sha256:' + sha(data), 'size': len(data)}
    d.update(extra)
    return d


def image_config(layer_tars):
    return jdump({'architecture': 'amd64', 'os': 'linux', 'config': {'Env': ['PATH=/usr/bin']},
                  'rootfs': {'type': 'layers', 'diff_ids': ['sha256:' + sha(t) for t in layer_tars]}})


def oci_members(layers, ref, index_depth=1, edit_manifest=None, edit_blobs=None, docker=None, order='blobs-first'):
    """An OCI image layout as (path, bytes) members. layers: (tar bytes, compression).
    index_depth: index.json -> (index_depth - 1) image indexes in blobs -> the manifest.
    edit_manifest(dict) may change the manifest; edit_blobs(dict path -> bytes) the blobs.
    docker: RepoTags for docker 25+'s manifest.json beside index.json."""
    blobs = {}
    stored = [(compress(t, c), c) for t, c in layers]
    config = image_config([t for t, _ in layers])
    man = {'schemaVersion': 2, 'mediaType': OCI_MANIFEST, 'config': desc(OCI_CONFIG, config),
           'layers': [desc(LAYER_TYPE[c], b) for b, c in stored]}
    if edit_manifest:
        edit_manifest(man)
    mbytes = jdump(man)
    for b, _ in stored:
        blobs['blobs/sha256/' + sha(b)] = b
    blobs['blobs/sha256/' + sha(config)] = config
    blobs['blobs/sha256/' + sha(mbytes)] = mbytes
    notes = {'org.opencontainers.image.ref.name': ref}
    if docker:                                  # docker 25+ names the image for containerd too
        notes['io.containerd.image.name'] = 'docker.io/library/' + docker[0]
    top = desc(OCI_MANIFEST, mbytes, annotations=notes)
    for _ in range(index_depth - 1):
        ib = jdump({'schemaVersion': 2, 'mediaType': OCI_INDEX, 'manifests': [top]})
        blobs['blobs/sha256/' + sha(ib)] = ib
        top = desc(OCI_INDEX, ib, annotations={'org.opencontainers.image.ref.name': ref})
    if edit_blobs:
        edit_blobs(blobs)
    index = jdump({'schemaVersion': 2, 'mediaType': OCI_INDEX, 'manifests': [top]})
    head = [('oci-layout', jdump({'imageLayoutVersion': '1.0.0'})), ('index.json', index)]
    body = [('blobs/', None), ('blobs/sha256/', None)] + sorted(blobs.items())
    out = body + head if order == 'blobs-first' else head + body
    if docker is not None:
        out.append(('manifest.json', jdump([{'Config': 'blobs/sha256/' + sha(config), 'RepoTags': docker,
                                             'Layers': ['blobs/sha256/' + sha(b) for b, _ in stored]}])))
    return out


def docker_legacy_members(layer_tars, tags, edit=None):
    """docker save before 25: <id>/layer.tar per layer, <config hex>.json, manifest.json last."""
    config = image_config(layer_tars)
    out, paths, parent = [], [], ''
    for t in layer_tars:
        lid = sha((parent + sha(t)).encode())
        parent = lid
        out += [(lid + '/', None), (lid + '/VERSION', b'1.0'), (lid + '/json', jdump({'id': lid})),
                (lid + '/layer.tar', t)]
        paths.append(lid + '/layer.tar')
    out.append((sha(config) + '.json', config))
    entry = {'Config': sha(config) + '.json', 'RepoTags': tags, 'Layers': paths}
    if edit:
        edit(entry)
    out.append(('repositories', jdump({tags[0].split(':')[0]: {tags[0].split(':')[1]: parent}})))
    out.append(('manifest.json', jdump([entry])))
    return out


def image_layers(fix):
    def rd(n):
        with open(os.path.join(fix, n), 'rb') as f:
            return f.read()
    so, lib, whl = rd('multi.so'), rd('libk.a'), rd('example.whl')
    base = tar_bytes([('usr/', None), ('usr/lib/', None), ('usr/lib/libmulti.so', so)])
    top = tar_bytes([('opt/', None), ('opt/wheels/', None), ('opt/wheels/example.whl', whl),
                     ('usr/', None), ('usr/lib/', None), ('usr/lib/libk.a', lib)])
    return base, top


def upgraded_layers(fix):
    """FROM base ... RUN an upgrade: the lower layer's libraries (old-only.so: no sm_90) are
    replaced by a file of the same path (multi.so), deleted by a whiteout (.wh.NAME), hidden
    by an opaque directory (.wh..wh..opq), by a symbolic link where their directory was, or
    by a directory where the file was; libmulti.so of the lower layer stays."""
    def rd(n):
        with open(os.path.join(fix, n), 'rb') as f:
            return f.read()
    so, old = rd('multi.so'), rd('old-only.so')
    base = tar_bytes([('usr/', None), ('usr/lib/', None), ('usr/lib/libmulti.so', so), ('usr/lib/libold.so', old),
                      ('usr/lib/libgone.so', old), ('opt/', None), ('opt/d/', None), ('opt/d/libx.so', old),
                      ('opt/e/', None), ('opt/e/liby.so', old), ('opt/f.so', old)])
    top = tar_bytes([('usr/', None), ('usr/lib/', None), ('usr/lib/libold.so', so), ('usr/lib/.wh.libgone.so', b''),
                     ('opt/', None), ('opt/d/', None), ('opt/d/.wh..wh..opq', b''), ('opt/e', '->/usr/lib'),
                     ('opt/f.so/', None)])
    return base, top


def images(fix):
    """name -> bytes of the image fixtures; a name ending in '/' holds (path, bytes) members
    of a directory."""
    base, top = image_layers(fix)
    oci = oci_members([(base, 'gz'), (top, 'zst')], 'wscan:oci', index_depth=2)
    ub, ut = upgraded_layers(fix)
    up_oci = oci_members([(ub, 'gz'), (ut, '')], 'wscan:upgraded')
    return {
        'upgraded-docker-legacy.tar': tar_bytes(docker_legacy_members([ub, ut], ['wscan:upgraded'])),
        'upgraded-docker-oci.tar': tar_bytes(oci_members([(ub, ''), (ut, '')], 'up', docker=['wscan:upgraded'])),
        'upgraded-oci-layout/': [(p, d) for p, d in up_oci if d is not None],
        'docker-legacy.tar': tar_bytes(docker_legacy_members([base, top], ['wscan:legacy'])),
        'docker-oci.tar': tar_bytes(oci_members([(base, ''), (top, '')], '25', docker=['wscan:25'])),
        'oci-layout.tar': tar_bytes(oci, tarfile.PAX_FORMAT),
        'oci-layout/': [(p, d) for p, d in oci if d is not None],
    }


def write_images(outdir, fix):
    import shutil
    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(images(fix).items()):
        path = os.path.join(outdir, name)
        if name.endswith('/'):
            shutil.rmtree(path, ignore_errors=True)
            for rel, d in data:
                os.makedirs(os.path.dirname(os.path.join(path, rel)), exist_ok=True)
                with open(os.path.join(path, rel), 'wb') as f:
                    f.write(d)
            print('%-36s %8d files' % (name, len(data)))
        else:
            with open(path, 'wb') as f:
                f.write(data)
            print('%-36s %8d bytes' % (name, len(data)))


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
    fix = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'testdata', 'fixtures')
    if len(sys.argv) == 3 and sys.argv[1] == '--images':
        write_images(sys.argv[2], fix)
        return
    if len(sys.argv) != 2:
        sys.exit('usage: mkarchive.py [--images] OUTDIR')
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in sorted(good(fix).items()):
        with open(os.path.join(sys.argv[1], name), 'wb') as f:
            f.write(data)
        print('%-36s %8d bytes' % (name, len(data)))


if __name__ == '__main__':
    main()
