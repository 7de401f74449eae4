#!/usr/bin/env python3
"""names_check.py OUTDIR MANIFEST - the checks of src/test/names.sh over the runs it kept
(OUTDIR/NAME.out, .err, .rc) and the names scripts/mknames.py wrote (MANIFEST). Prints one
line per failure and "N passed, N failed"."""
import json
import os
import re
import sys

out, manifest = sys.argv[1], sys.argv[2]
with open(manifest) as f:
    man = json.load(f)
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print('FAIL: ' + what)


def read(name, kind):
    with open(os.path.join(out, name + '.' + kind), 'rb') as f:
        return f.read()


def unhex(h):
    return bytes.fromhex(h)


def se(s):
    """A JSON string back to the bytes it stands for (\\udcXX: a byte, surrogateescape)."""
    return s.encode('utf-8', 'surrogateescape')


# Code points that must never reach a terminal or a CI page raw.
HIDDEN = re.compile('[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff'
                    '\ufff9-\ufffb\U000e0000-\U000e007f]')

RUNS = ['text', 'verbose', 'markdown', 'json', 'jsonl', 'sarif', 'github', 'annotate', 'wheel-json', 'baseline', 'baseline-json', 'usage', 'suggest', 'envset',
        'dbscan', 'dbreport', 'dbreport-md', 'dbreport-json', 'live', 'env']
text = {}
for run in RUNS:
    for kind in ('out', 'err'):
        b = read(run, kind)
        try:
            s = b.decode('utf-8')
        except UnicodeDecodeError as e:
            check(False, '%s.%s is not UTF-8 (%s)' % (run, kind, e))
            s = b.decode('utf-8', 'surrogateescape')     # the other checks still run
        m = HIDDEN.search(s)
        check(not m, '%s.%s: raw %r at %d: %r' % (run, kind, m.group(0) if m else '', m.start() if m else 0,
                                                   s[max(0, m.start() - 40):m.start() + 20] if m else ''))
        text[run, kind] = s

js = json.loads(read('json', 'out'))
arts = js['artifacts']
by_path = {se(a['path']): a for a in arts}

# ---- text: one verdict line per artifact, the names shown escaped and readable ------------
for run in ('text', 'verbose'):
    s = text.get((run, 'out'), '')
    verdicts = [ln for ln in s.split('\n') if re.match(r'\s*=> ', ln)]
    check(len(verdicts) == len(arts), '%s: %d verdict lines for %d artifacts (a name forged one?)'
          % (run, len(verdicts), len(arts)))
    # each artifact's block: its header line then its verdict; the wheel's is a failure
    m = re.search(r'^names-1\.0-py3-none-manylinux_2_28_x86_64\.whl  \(wheel.*?\n(.*?)\n\n', s, re.S | re.M)
    block = m.group(1) if m else ''
    check(m and re.search(r'^  => sm_120: will NOT run', block, re.M), '%s: the wheel\'s verdict' % run)
    check(re.search(r'^  RECORD  ok: every member matches', block, re.M), '%s: RECORD ok for the wheel' % run)
    check('names/lib\\n  => sm_120: runs: native SASS\\n.so' in s, '%s: the newline shown as \\n' % run)
    check('\\x1b[2J\\x1b[32mclear.so' in s, '%s: ESC shown as \\x1b' % run)
    check('caf\u00e9.so' in s, '%s: UTF-8 printed as is' % run)
    check('tree/bad\\xff\\xfe.so' in s, '%s: a byte that is not UTF-8 shown as \\xff' % run)
    check('\\u202eos.so' in s and '\\u009b31mc1.so' in s, '%s: U+202E and C1 shown as \\u' % run)
    check('na\\x1b[2Jmes`|\\u202e 1.0\\x1b[32m|`' in s, '%s: METADATA Name and Version escaped' % run)
    check('missing: rec/gone\\u202e\\x1b[2J\\n  => sm_120: runs: native SASS\\n.so' in s and
          'unlisted: rec/extra`|\\x1b[31m.so' in s, '%s: RECORD rows escaped' % run)
    m = re.search(r'^condaenv/conda-meta/names-1\.0-0\.json  \(installed.*?\n(.*?)\n\n', s, re.S | re.M)
    check(m and re.search(r'^  RECORD  ok', m.group(1), re.M), '%s: the conda record is ok' % run)
for run in ('text', 'verbose', 'markdown', 'json'):
    check('differs' not in text.get((run, 'err'), '') and 'integrity' not in text.get((run, 'err'), ''),
          '%s: an integrity error: %s' % (run, text.get((run, 'err'), '')))
check('kernels' in text.get(('verbose', 'out'), ''), 'verbose: kernel lines')

# ---- Markdown: every table row has the header's cells, every code span closes -------------


def cells(line):
    """Unescaped '|' in a table line ('\\' escapes the next character)."""
    n, i = 0, 0
    while i < len(line):
        if line[i] == '\\':
            i += 2
            continue
        n += line[i] == '|'
        i += 1
    return n


md = text.get(('markdown', 'out'), '')
lines = md.split('\n')
rows = [ln for ln in lines if ln.startswith('|')]
check(len(rows) == 2 + len(arts), 'markdown: %d table lines for %d artifacts' % (len(rows), len(arts)))
check(rows and all(cells(r) == cells(rows[0]) for r in rows),
      'markdown: a row with other cells: %r' % [r for r in rows if rows and cells(r) != cells(rows[0])])
items = [ln for ln in lines if ln.startswith('- ')]
check(len(items) > 0, 'markdown: the list of what is missing where')
for ln in items:
    m = re.match(r'- (`+)', ln)
    fence = m.group(1) if m else '`'
    rest = ln[len(fence) + 2:]
    end = re.search('(?<!`)' + fence + '(?!`)', rest)
    check(m and end and rest[end.end():].startswith(': '), 'markdown: a code span that does not close: %r' % ln)
for ln in lines:
    check(ln == '' or ln[0] in '|-#' or ln.startswith('No GPU was named') or re.match(r'\*\*gate: (passed|FAILED)', ln), 'markdown: a stray line %r' % ln)
check('names/lib\\n  => sm\\_120' not in md and 'names/lib\\n  => sm_120: runs' in md,
      'markdown: the newline shown as \\n in a code span')
check('tick`|col|.so' in md, 'markdown: the backtick name kept whole in a fenced code span')

# ---- SARIF: messages are plain text (no control, no link), URIs percent-encoded -------------
sarif = json.loads(read('sarif', 'out'))
results = sarif['runs'][0]['results']
check(len(results) > 0, 'sarif: results for the failing names')
paths = set(se(a['path']) for a in arts)
for res in results:
    msg = res['message']['text']
    check(not HIDDEN.search(msg), 'sarif: a raw control or invisible character in %r' % msg)
    check(not re.search(r'(?<!\\)[\[\]]', msg), 'sarif: an unescaped bracket (an embedded link) in %r' % msg)
    for loc in res['locations']:
        uri = loc['physicalLocation']['artifactLocation']['uri']
        check(re.fullmatch(r'[A-Za-z0-9._~/%-]*', uri), 'sarif: a URI with raw characters: %r' % uri)
        raw = re.sub(rb'%([0-9A-F]{2})', lambda m: bytes([int(m.group(1), 16)]), uri.encode())
        check(raw in paths, 'sarif: the URI %r is no artifact path' % uri)


# ---- workflow commands: one line each, properties that cannot end early --------------------
CMD = re.compile(r'::(error|warning|notice) (file=[^,:\r\n]*,)?title=[^,:\r\n]*::[^\r\n]*')


def commands(s, what):
    n = 0
    for ln in s.split('\n'):
        if not ln.startswith('::'):
            continue
        n += 1
        check(CMD.fullmatch(ln), '%s: a workflow command that does not parse: %r' % (what, ln))
    return n


gh = text.get(('github', 'out'), '')
check(all(ln.startswith('::') for ln in gh.split('\n') if ln), 'github: a line that is not a workflow command')
check(commands(gh, 'github') > 1, 'github: commands for the failing names')
check('title=wheelscan gate::gate: ' in gh, 'github: the gate line')
ann = text.get(('annotate', 'err'), '')
check(commands(ann, 'annotations') == commands(gh, 'github'), 'annotations: the same commands as --format github')
check(text.get(('annotate', 'out')) == text.get(('text', 'out')), 'annotations: stdout keeps the text')

# ---- JSON: the exact bytes of every name ---------------------------------------------------
rel = set(p for p in by_path if p.startswith(b'tree/'))
want = set(b'tree/' + unhex(h) for h in man['tree'])
check(rel == want, 'json: tree paths %r, expected %r' % (sorted(rel), sorted(want)))
w = by_path.get(b'names-1.0-py3-none-manylinux_2_28_x86_64.whl')
check(w is not None, 'json: the wheel')
if w:
    members = set(se(o['member']) for o in w['objects'] if o.get('member'))
    check(members == set(unhex(h) for h in man['wheel']['members']), 'json: members %r' % sorted(members))
    check(se(w['wheel']['name']) == unhex(man['wheel']['meta_name']), 'json: METADATA Name %r' % w['wheel']['name'])
    check(se(w['wheel']['version']) == unhex(man['wheel']['meta_version']),
          'json: METADATA Version %r' % w['wheel']['version'])
    r = w['record']
    check(r['ok'] and not r['missing'] and not r['unlisted'] and not r['mismatched'], 'json: wheel record %r' % r)
    check(w['verdicts'] and all(v == 'no-image' for v in w['verdicts'].values()) if isinstance(w['verdicts'], dict)
          else True, 'json: the wheel\'s verdict')
r = by_path.get(b'rec-1.0-py3-none-any.whl', {}).get('record', {})
check([se(x) for x in r.get('missing', [])] == [unhex(h) for h in man['rec']['missing']], 'json: missing %r' % r)
check([se(x) for x in r.get('unlisted', [])] == [unhex(h) for h in man['rec']['unlisted']], 'json: unlisted %r' % r)
c = [a for p, a in by_path.items() if p.endswith(b'conda-meta/names-1.0-0.json')]
check(len(c) == 1 and c[0]['record']['ok'] and not c[0]['errors'], 'json: the conda record %r'
      % (c[0]['record'] if c else None))
b = by_path.get(b'bytes.zip')
check(b is not None and len(b['objects']) == 2, 'json: bytes.zip')
# non-ASCII is UTF-8 in the document, not one \u00XX per byte (cafÃ©)
raw = read('json', 'out')
check('caf\u00e9.so'.encode() in raw and b'\\u00c3' not in raw, 'json: UTF-8 written as is')
check(b'bad\\udcff\\udcfe.so' in raw, 'json: stray bytes as \\udcXX')
for line in read('jsonl', 'out').splitlines():
    a = json.loads(line)
    if a.get('path') == 'names-1.0-py3-none-manylinux_2_28_x86_64.whl':
        check(set(se(o['member']) for o in a['objects']) == set(unhex(h) for h in man['wheel']['members']),
              'jsonl: members')
bj = json.loads(read('baseline-json', 'out'))
keys = set(se(o['key']) for o in bj['objects'])
check(set(unhex(h) for h in man['wheel']['members']) <= keys,
      'baseline json: keys %r' % sorted(keys))
check('names/lib\\n  => sm_120: runs' in text.get(('baseline', 'out'), ''), 'baseline: keys escaped')
check('\\x1b[2Jx' in text.get(('usage', 'err'), ''), 'usage error: the argument escaped')
check(read('usage', 'rc').strip() == b'2', 'usage error: exit 2')
check('torchvision 0.20.1\\x1b[2J`| is built for torch 2.5.1' in text.get(('envset', 'out'), ''),
      'the environment as a whole: the package named escaped')
check("'tor\\x1b[2Jch'" in text.get(('suggest', 'err'), ''), '--suggest: the package escaped')

# ---- the results store: --report from it, every kind --------------------------------------
rep = json.loads(read('dbreport-json', 'out'))
names = set(os.path.basename(se(a['path'])) for a in rep['artifacts'])
check(names == set(unhex(h) for h in man['tree']), 'store report json: %r' % sorted(names))
s = text.get(('dbreport', 'out'), '')
check(len([ln for ln in s.split('\n') if re.match(r'\s*=> ', ln)]) == len(man['tree']),
      'store report: one verdict line per file')
check('bad\\xff\\xfe.so' in s and 'lib\\n  => sm_120: runs' in s, 'store report: names escaped')
rows = [ln for ln in text.get(('dbreport-md', 'out'), '').split('\n') if ln.startswith('|')]
check(len(rows) == 2 + len(man['tree']) and all(cells(r) == cells(rows[0]) for r in rows),
      'store report markdown: rows %r' % rows)
for run in ('dbscan', 'dbreport', 'dbreport-md', 'dbreport-json'):
    check(read(run, 'rc').strip() == b'1', '%s: exit %s, not 1 (files that will not run)' % (run, read(run, 'rc')))

# ---- the live check: the mismatch list and the driver's device name ---------------------
s = text.get(('live', 'out'), '')
check(read('live', 'rc').strip() == b'1', 'live: exit %s, not 1 (a mismatch)' % read('live', 'rc'))
check('LIVE MISMATCHES: 1' in s, 'live: the mismatch')
check(len([ln for ln in s.split('\n') if re.match(r'\s*=> ', ln)]) == 1, 'live: one verdict line')
check('live\\n  => sm_90: runs: native SASS\\x1b[2J.fatbin' in s, 'live: the file named escaped')
check('NVIDIA\\x1b[31m H200' in s, 'live: the device name escaped')
s = text.get(('env', 'out'), '')
check('device 0: NVIDIA\\x1b[31m H200' in s and 'CUDA_VISIBLE_DEVICES=0\\x1b[2J' in s, '--env: escaped: %r' % s)

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
