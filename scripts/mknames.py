#!/usr/bin/env python3
"""mknames.py OUTDIR - inputs whose names and metadata are hostile, for src/test/names.sh.

Written at test time from the committed fixtures (old-only.so: SASS sm_75/sm_86 only, so
it will NOT run on sm_120; multi.so: runs there), nothing committed:

  names-1.0-py3-none-manylinux_2_28_x86_64.whl   members named with a newline that would
      forge a verdict line, ESC[2J / ESC[32m, a backtick and '|', U+202E, a UTF-8 C1
      control, "cafe" with an acute e; METADATA Name and Version with ESC, a backtick, '|',
      U+202E; RECORD lists every member with its true hash (RECORD must say ok).
  rec-1.0-py3-none-any.whl    RECORD lists a missing file and misses a member, both with
      hostile names (the missing/unlisted lines must be escaped).
  bytes.zip                   a member whose name is not UTF-8 (0xff 0xfe) and one with ESC.
  tree/                       files named like the wheel's members, plus one whose name is
      not UTF-8: the JSON must give back each name's exact bytes.
  condaenv/                   an installed conda environment whose conda-meta record (written
      by Python's json: ensure_ascii) escapes "lib/cafe.so" with \\u00e9 and a file name that
      is not UTF-8 with \\udcff (surrogateescape).
  site/                       torch 2.8.0 beside a torchvision built for torch 2.5.1 whose
      METADATA Version holds ESC, a backtick and '|' (the environment-as-a-whole lines).

MANIFEST.json (in OUTDIR) lists what names.sh compares against: every name as hex bytes.
"""
import base64
import csv
import hashlib
import io
import json
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkarchive as mk  # noqa: E402

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'testdata', 'fixtures')

FORGE = '\n  => sm_120: runs: native SASS\n'
# member names below the package directory: (name, which fixture)
HOSTILE = [
    ('lib' + FORGE + '.so', 'old-only.so'),
    ('\x1b[2J\x1b[32mclear.so', 'old-only.so'),
    ('tick`|col|.so', 'old-only.so'),
    ('\u202eos.so', 'multi.so'),
    ('\u009b31mc1.so', 'multi.so'),
    ('caf\u00e9.so', 'multi.so'),
]


def rd(name):
    with open(os.path.join(FIX, name), 'rb') as f:
        return f.read()


def record(members):
    s = io.StringIO()
    w = csv.writer(s, lineterminator='\n')
    for name, data in members:
        d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
        w.writerow([name, 'sha256=' + d, len(data)])
    return s


def wheel(members, di, meta, extra_rows=(), unlisted=()):
    members = list(members)
    members.append((di + 'METADATA', meta))
    members.append((di + 'WHEEL', b'Wheel-Version: 1.0\nGenerator: mknames\nRoot-Is-Purelib: false\n'
                                  b'Tag: py3-none-manylinux_2_28_x86_64\n'))
    s = record(members)
    w = csv.writer(s, lineterminator='\n')
    for row in extra_rows:
        w.writerow(row)
    w.writerow([di + 'RECORD', '', ''])
    members.append((di + 'RECORD', s.getvalue().encode()))
    members += list(unlisted)
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            zi = zipfile.ZipInfo(name, date_time=(2023, 11, 14, 22, 13, 20))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return b.getvalue()


def raw_zip(members):
    """A zip whose names are raw bytes (no UTF-8 flag): written with same-length ASCII
    stand-ins, then the stand-ins replaced in the local and central headers."""
    stand = [(chr(ord('A') + i) * len(raw), raw, data) for i, (raw, data) in enumerate(members)]
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_STORED) as z:
        for name, _, data in stand:
            z.writestr(zipfile.ZipInfo(name, date_time=(2023, 11, 14, 22, 13, 20)), data)
    out = b.getvalue()
    for name, raw, _ in stand:
        assert out.count(name.encode()) == 2, name
        out = out.replace(name.encode(), raw)
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: mknames.py OUTDIR')
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    man = {}

    members = [('names/' + n, rd(f)) for n, f in HOSTILE]
    meta = ('Metadata-Version: 2.1\nName: na\x1b[2Jmes`|\u202e\nVersion: 1.0\x1b[32m|`\n').encode()
    w = 'names-1.0-py3-none-manylinux_2_28_x86_64.whl'
    with open(os.path.join(out, w), 'wb') as f:
        f.write(wheel(members, 'names-1.0.dist-info/', meta))
    man['wheel'] = {'file': w, 'members': [n.encode().hex() for n, _ in members],
                    'meta_name': 'na\x1b[2Jmes`|\u202e'.encode().hex(), 'meta_version': '1.0\x1b[32m|`'.encode().hex()}

    # libzip refuses a name flagged UTF-8 that holds a control byte ("inconsistent"): the
    # names with controls stay ASCII
    gone = 'rec/gone\u202e\x1b[2J' + FORGE + '.so'
    extra = 'rec/extra`|\x1b[31m.so'
    w2 = 'rec-1.0-py3-none-any.whl'
    with open(os.path.join(out, w2), 'wb') as f:
        f.write(wheel([('rec/ok.so', rd('multi.so'))], 'rec-1.0.dist-info/',
                      b'Metadata-Version: 2.1\nName: rec\nVersion: 1.0\n',
                      extra_rows=[(gone, 'sha256=' + 'A' * 43, 5)], unlisted=[(extra, rd('multi.so'))]))
    man['rec'] = {'file': w2, 'missing': [gone.encode().hex()], 'unlisted': [extra.encode().hex()]}

    with open(os.path.join(out, 'bytes.zip'), 'wb') as f:
        f.write(raw_zip([(b'bad\xff\xfe.so', rd('old-only.so')), (b'esc\x1b[2J.so', rd('old-only.so'))]))

    tree = os.path.join(out, 'tree')
    os.makedirs(tree, exist_ok=True)
    files = [(n.encode(), f) for n, f in HOSTILE] + [(b'bad\xff\xfe.so', 'old-only.so')]
    for name, fx in files:
        with open(os.path.join(os.fsencode(tree), name), 'wb') as f:
            f.write(rd(fx))
    man['tree'] = [n.hex() for n, _ in files]

    # an installed conda environment: its record escapes what is not ASCII, as conda's json does
    so = rd('multi.so')
    env = os.path.join(out, 'condaenv')
    os.makedirs(os.path.join(env, 'conda-meta'), exist_ok=True)
    os.makedirs(os.path.join(env, 'lib'), exist_ok=True)
    cfiles = ['lib/caf\u00e9.so', 'lib/raw\udcff.so']
    for n in cfiles:
        with open(os.path.join(os.fsencode(env), os.fsencode(n)), 'wb') as f:
            f.write(so)
    rec = {'name': 'names', 'version': '1.0', 'build': '0', 'build_number': 0, 'files': cfiles,
           'paths_data': {'paths': [{'_path': n, 'path_type': 'hardlink', 'sha256': hashlib.sha256(so).hexdigest(),
                                     'size_in_bytes': len(so)} for n in cfiles], 'paths_version': 1}}
    with open(os.path.join(env, 'conda-meta', 'names-1.0-0.json'), 'w') as f:
        json.dump(rec, f, indent=1)          # ensure_ascii: "lib/caf\\u00e9.so", "lib/raw\\udcff.so"
    man['condaenv'] = [os.fsencode(n).hex() for n in cfiles]

    # an environment judged as a whole: torchvision built for another torch, its version hostile
    site = os.path.join(out, 'site')
    for name, version, req, rel, fx in (('torch', '2.8.0', 'nvidia-cuda-runtime-cu12==12.8.90', 'torch/lib/libtorch_cuda.so', 'multi.so'),
                                        ('torchvision', '0.20.1\x1b[2J`|', 'torch (==2.5.1)', 'torchvision/_C.so', 'multi.so')):
        di = os.path.join(site, '%s-%s.dist-info' % (name, '0.20.1' if name == 'torchvision' else version))
        os.makedirs(di, exist_ok=True)
        os.makedirs(os.path.dirname(os.path.join(site, rel)), exist_ok=True)
        files = [(rel, rd(fx)),
                 (os.path.relpath(os.path.join(di, 'METADATA'), site),
                  ('Metadata-Version: 2.1\nName: %s\nVersion: %s\nRequires-Dist: %s\n' % (name, version, req)).encode()),
                 (os.path.relpath(os.path.join(di, 'WHEEL'), site),
                  b'Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n')]
        for r, data in files:
            with open(os.path.join(site, r), 'wb') as f:
                f.write(data)
        s = record(files)
        s.write(os.path.relpath(os.path.join(di, 'RECORD'), site) + ',,\n')
        with open(os.path.join(di, 'RECORD'), 'w') as f:
            f.write(s.getvalue())

    with open(os.path.join(out, 'MANIFEST.json'), 'w') as f:
        json.dump(man, f, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
