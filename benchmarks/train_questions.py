"""Training questions generated from the structure of the training PDFs (data/pdfs, data/pdfs_dev): data/qa_train.json.

    .venv/bin/python benchmarks/train_questions.py --out data/qa_train.json

Reads each page with PyMuPDF (its text, and its lines with their fonts and positions) and fills templates from the
page's structure: definition lists (a typewriter term -- signature, call, option, key, parameter -- with its description
indented under it) asked backwards (which term does this?), initial values of pgfplotstable keys, default arguments of
Asymptote signatures, libtasn1 return codes, liboctave method listings, bulleted definitions, table cells under a
"Table N" caption, and sentences of running prose with one code term, TeX command or number left out. Every answer is
checked, whitespace-normalised, against the page text the project extracts (`clean_text` of PyMuPDF's text, what
`Page.text` holds). Contents, index, licence, copyright and reference pages are skipped, and so are running heads and
feet. Deterministic: a fixed seed, no network, no model. Only the training documents are read; the held-out sets
(data/pdfs_rdocs, data/pdfs_unseen) are not.
"""
import argparse, json, random, re
from collections import Counter, defaultdict
from pathlib import Path
import pymupdf
from vrag_nb.retrieval.pagetext import clean_text

SEED, PER_DOC, PER_PAGE, VAL_FRAC, N_PROBE, MAX_ALSO = 0, 80, 10, 0.15, 64, 3
DOCS = [  # file name, folder, source_type, how a question names the document
    ('R-intro.pdf', 'data/pdfs', 'manual', 'An Introduction to R'),
    ('asymptote.pdf', 'data/pdfs', 'manual', 'the Asymptote manual'),
    ('pgfplotstable.pdf', 'data/pdfs', 'manual', 'the pgfplotstable manual'),
    ('sample-sigconf.pdf', 'data/pdfs', 'paper', 'the ACM sample paper (sample-sigconf)'),
    ('sample631.pdf', 'data/pdfs', 'paper', 'the AASTeX v6.31 sample article'),
    ('R-admin.pdf', 'data/pdfs_dev', 'manual', 'R Installation and Administration'),
    ('R-ints.pdf', 'data/pdfs_dev', 'manual', 'R Internals'),
    ('R-lang.pdf', 'data/pdfs_dev', 'manual', 'the R Language Definition'),
    ('liboctave.pdf', 'data/pdfs_dev', 'manual', "Octave's C++ library reference (liboctave)"),
    ('libtasn1.pdf', 'data/pdfs_dev', 'manual', 'the libtasn1 manual'),
    ('shared-mime-info-spec.pdf', 'data/pdfs_dev', 'manual', 'the shared MIME-info specification'),
]
LIB = {'asymptote.pdf': 'Asymptote', 'libtasn1.pdf': 'libtasn1', 'R-intro.pdf': 'R', 'R-admin.pdf': 'R',
       'R-ints.pdf': 'R', 'R-lang.pdf': 'R', 'liboctave.pdf': 'liboctave', 'pgfplotstable.pdf': 'pgfplotstable'}
MONO = re.compile(r'TT|Mono|Courier|MonL')  # typewriter fonts: code
STOP = set('''the a an of to in on for and or is are be by with as that this it its from at which what when if not
can may will into than then there these those their has have does do was were used use using also any each all other
such only one two more most some same where how your you should would could must been being given gives about after
before between within without under over like just'''.split())
TRIVIAL_TYPES = {'void', 'int', 'bool', 'double', 'float', 'char', 'long'}
NUMBER = (r'(?<!Figure )(?<!Table )(?<!Section )(?<!Chapter )(?<!page )(?<![\w.,/-])(\d[\d,]*(?:\.\d+)?'
          r'(?: ?(?:[MGk]B|[MGk]b|bits?|bytes?|pt|bp|cm|mm|inch(?:es)?|%|k))?)(?![\w/-]|[.,]\w)')
DISCOURSE = set('However Note See Also Thus So Then But And It There This These If When Otherwise'.split())
GENERIC = {'TRUE', 'FALSE', 'NULL', 'NA', 'NaN', 'Inf', 'true', 'false', 'yes', 'no', 'none'}  # guessable answers
SENTENCE = r'(?<=[.!?])(?<!\s[A-Z]\.)(?<!\.[a-z]\.)\s+(?=[A-Z‘“(])'  # not after initials or 'e.g.'
SPECIAL = r'(?i)\b(index|contents|licen[cs]e|copying information|references|bibliography)$'  # pages to skip
OBJECT = set('the a an all any each to whether if how for one its whose this that these some'.split())  # 'Deletes the'
IMPERATIVE = set('''Print Specify Set Take Combine Prevent Turn Enable Disable Control Run Make Show Go Continue Execute
Halt Install Select Add Remove Create Define Change Skip Allow Read Write Display Build Include Compile Link Search
Return Check Save Load Omit Ignore Force Report'''.split())


def norm(s: str) -> str:
    "Collapse whitespace runs to one space, the form answers and evidence are checked in."
    return re.sub(r'\s+', ' ', s).strip()


def dehyph(s: str) -> str:
    "Question text from page text: words a line break split joined, cross-references dropped, TeX logos spelt."
    s = re.sub(r'((?:^|\s)--?[\w-]+)- (\w)', r'\1-\2', re.sub(r'_ (\w)', r'_\1', s))  # '--with- lapack': keep '-'
    s = re.sub(r'([a-z])- ([a-z])|([A-Z])- ([A-Z])', r'\1\3\2\4', s)  # 'ma- chine', 'ELE- MENT'
    s = re.sub(r'\s*\((?:see|See) [^()]*\)', '', s)
    s = re.sub(r'\bTEX\b', 'TeX', re.sub(r'\bL ?A ?T ?E ?X\b|\bLTEX\b|\bLaTEX\b', 'LaTeX', s))
    return re.sub(r' ([?.,;)])(?=\s|$)', r'\1', s)


def words(s: str) -> list[str]:
    "Lower-case content words of a text (4+ letters, no stop words)."
    return [w for w in re.findall(r'[a-z][a-z_]{3,}', s.lower()) if w not in STOP]


def load_doc(path: Path) -> list[dict]:
    "Each page's text (as the project extracts it), its lines (text, box, fonts) and whether to skip it."
    pages = []
    for pg in pymupdf.open(path):
        text, h, w, lines = clean_text(pg.get_text('text')), pg.rect.height, pg.rect.width, []
        for b in pg.get_text('dict')['blocks']:
            for ln in b.get('lines', []):
                sp = [s for s in ln['spans'] if s['text'].strip()]
                if not sp or not (t := clean_text(''.join(s['text'] for s in ln['spans']))): continue
                big, code = max(s['size'] for s in sp), [s['text'] for s in sp if MONO.search(s['font'])]
                x0, y0, x1, y1 = ln['bbox']
                margin_no = re.fullmatch(r'\d+', t) is not None and (x1 < 0.12 * w or x0 > 0.88 * w)  # line numbers
                lines.append(dict(
                    t=t, q=clean_text(''.join(s['text'] for s in ln['spans'] if s['size'] >= 0.8 * big)),  # no sup.
                    x=x0, x1=x1, y=y0, y1=y1, size=big, hf=y0 < 0.06 * h or y1 > 0.95 * h or margin_no,
                    edge=y0 < 0.1 * h or y1 > 0.92 * h, m0=MONO.search(sp[0]['font']) is not None,
                    mono=sum(map(len, code)) / max(1, sum(len(s['text']) for s in sp)),
                    monow={tok.strip('.,;:()’‘') for c in code for tok in c.split()}))
        pages.append(dict(text=text, norm=norm(text), lines=lines, w=w))
    runs = Counter(k for p in pages for k in {re.sub(r'\d+', '', ln['t']) for ln in p['lines'] if ln['edge']})
    for p in pages:  # running heads and feet: a top or bottom line that recurs (numbers aside) on 3+ pages
        for ln in p['lines']: ln['hf'] |= ln['edge'] and runs[re.sub(r'\d+', '', ln['t'])] >= min(3, len(pages) // 3)
        body = [ln for ln in p['lines'] if not ln['hf']]
        leaders = sum(bool(re.search(r'(\. ?){3,}\s*\d*$|\s\d+(, \d+)+$', ln['t'])) for ln in body)  # 'x . . . 12'
        special = any(len(ln['t']) <= 60 and re.search(SPECIAL, ln['t']) for ln in p['lines'][:4])  # heading or head
        special |= any(ln['t'] in ('Contents', 'Table of Contents') for ln in p['lines'])
        special |= 'Permission is granted to' in p['norm']  # the copyright page
        p['skip'] = len(p['text']) < 200 or leaders >= 0.2 * max(1, len(body)) or special
    return pages


def q(generator: str, page: int, query: str, answer: str, evidence: str, kind: str = 'text', key: str = '') -> dict:
    "One candidate question before checking."
    return dict(generator=generator, page=page, query=norm(query), answer=norm(answer), evidence=norm(evidence),
                query_type=kind, key=key)


def first_sentence(s: str) -> str:
    "The first sentence of a description, without its final stop or examples."
    s = re.split(r'(?<=[.!?;])\s+(?=[A-Z(])|(?<=[a-z]{3}\.)\s|[.,;]? (?:[Ff]or example|e\.g\.|eg)\b', s)[0].strip()
    return s[:-1] if s.endswith(('.', ';', ':')) else s


def ask_desc(kind: str, desc: str) -> str | None:
    "A 'which <kind> ...' question from a description, in the form its first word allows; None for junk."
    d = re.sub(r'\s*(\[[^\]]*\]|\b(true|false))$', '', first_sentence(dehyph(desc)))  # '[no]': a listed default
    if not 20 <= len(d) <= 200 or d.count('(') != d.count(')') or not d[0].isalpha(): return None
    w0, ws = d.split()[0], d.lower().split()
    if len(re.findall(r'[A-Za-z]{3,}', d)) < 4 or re.search(r':=|\bi = |[=−] ?\d', d) or w0 in DISCOURSE \
            or re.fullmatch(r'[\w.]+(, [\w.]+){2,}', d) or len(set(tri := list(zip(ws, ws[1:], ws[2:])))) < len(tri):
        return None  # junk: formulas, bare lists, repeated text
    if m := re.match(r'(?i)(this )?returns? ', d): return f'Which {kind} returns {d[m.end():]}?'
    if d.startswith('Do not '): return f'Which {kind} makes it not {d[7:]}?'
    if w0.lower() == 'use': return f'Which {kind} makes it use {d[4:]}?'
    if re.fullmatch(r'[A-Z][a-z]+(?<!s)s', w0) and w0 not in ('This', 'Its', 'Has', 'Is') and d.split()[1] in OBJECT:
        return f'Which {kind} {w0.lower()} {d[len(w0) + 1:]}?'
    if w0.capitalize() in IMPERATIVE: return f'Which {kind} do you use to {w0.lower()}{d[len(w0):]}?'
    return f'Which {kind} is described as “{d}”?'


def def_entries(lines: list[dict]) -> list[tuple[str, list[dict]]]:
    "Definition-list entries: a typewriter term line (wrapped signatures joined) and its indented description lines."
    body, out, i = [ln for ln in lines if not ln['hf']], [], 0
    while i < len(body):
        ln = body[i]
        if not (ln['m0'] or ln['mono'] >= 0.5 or ln['t'].startswith('‘')) or len(ln['t']) > 90: i += 1; continue
        term, j = ln['t'], i + 1
        while term.count('(') > term.count(')') and j < len(body): term += ' ' + body[j]['t']; j += 1
        side = [b for b in body[j:j + 2] if abs(b['y'] - ln['y']) < 3 and b['x'] > ln['x'] + 150]  # (initially x)
        j += len(side)
        prev = body[i - 1] if i else None  # a term stacked under another (two options, one description): skipped
        stacked = prev and prev['x'] < ln['x'] + 3 and prev['m0'] and prev['y'] > ln['y'] - 20 \
            and not prev['t'].endswith(('.', ':'))
        if j < len(body) and body[j]['x'] >= ln['x'] + 18 and body[j]['y'] - ln['y'] < 4 * ln['size'] + 30 \
                and not stacked:
            dx, desc = body[j]['x'], []
            while j < len(body) and abs(body[j]['x'] - dx) < 4: desc.append(body[j]); j += 1
            out.append((term, side + desc)); i = j
        else: out.append((term, [])); i += 1  # a term alone (a signature's default arguments)
    return out


def parse_term(term: str) -> tuple[str, str, str] | None:
    "(answer, shape, the term as a question shows it) for a signature, call, option, key, parameter or quoted name."
    if m := re.match(r'^/pgfplots/table/([^=]+?)(?:/\.(?:code|style|append style|list))?(=.*)?$', term):
        return m[1].strip(), 'key', m[1].strip()
    if m := re.match(r'^(--?[A-Za-z][\w-]*)(=\S*)?$', term): return m[1], 'option', m[1]
    if m := re.match(r'^‘([^’]{2,30})’$', term): return m[1], 'name', m[1]
    if m := re.match(r'^(?:[\w.]+ <- )?([A-Za-z][\w.]*)\([^()=]*\)$', term): return m[1], 'function', m[1]  # a call
    if m := re.match(r'^([a-z][\w.]*)=[^=]+$', term): return m[1], 'parameter', m[1]  # 'tck=0.01'
    m = re.match(r'^(?:const )?[\w\[\]<>:&*]+(?: [\w\[\]<>:&*]+)*?\s*[*&]?\s*\b([A-Za-z_]\w*)\s*\((.*)\)\s*;?$', term)
    if m and m[1] not in ('operator', 'if', 'for', 'while'): return m[1], 'function', term.rstrip(';')
    return None


def gen_deflist(doc: str, title: str, pages: list[dict]) -> list[dict]:
    "Definition lists: the term from its description, key initial values, libtasn1 return codes, default arguments."
    out, lib = [], LIB.get(doc, '')
    for pno, p in enumerate(pages, 1):
        if p['skip']: continue
        for term, desc in def_entries(p['lines']):
            if not (pt := parse_term(term)) or re.search(r'[⟨{]', pt[0]): continue
            ans, shape, show = pt
            side = [d for d in desc if re.fullmatch(r'\(.*\)', d['t']) and d['x'] > desc[-1]['x'] + 150]
            desc = [d for d in desc if d not in side]
            if desc and re.match(r'^[\w ]{1,25}: ', desc[0]['t']):  # parameter lines first (libtasn1): skip to the text
                desc = desc[next((k for k, d in enumerate(desc) if re.match(r'[A-Z][a-z]+ ', d['t'])
                                  and not re.match(r'^[\w ]{1,25}: ', d['t'])), len(desc)):]
            body = ' '.join(d['q'] for d in desc)
            kind = {'function': f'{lib} function' if lib else 'function', 'key': 'pgfplotstable key',
                    'option': 'option of R' if lib == 'R' else f'{lib} option', 'name': f'entry in {title}',
                    'parameter': f'{lib} parameter'}[shape]
            if (not lib or lib not in kind) and title not in kind: kind = f'{kind.strip()} (in {title})'
            text, returns = body.split('Returns:')[0], body.partition('Returns:')[2]
            if desc and (qq := ask_desc(kind, text)):
                ev = term + ' ' + desc[0]['t'] if norm(term + ' ' + desc[0]['t']) in p['norm'] else term
                out.append(q('def_term', pno, qq, ans, ev, key=' '.join(words(text)[:6])))
            for s in side:
                for how, v in re.findall(r'(initially|default) ([^,()]+)\)', s['t']):
                    qq = f'Which value does the pgfplotstable key `{show}` take ' + (
                        'when it is given without one?' if how == 'default' else 'when it is never set?')
                    ev = term + ' ' + s['t'] if norm(term + ' ' + s['t']) in p['norm'] else s['t']
                    out.append(q('key_initial', pno, qq, v.strip(), ev, key=show))
            for m in re.finditer(r'(ASN1_\w+|NULL)\s+(?:if|when|on)\s+([^,]+?)(?=,|\.$|\. |$)', returns):
                if 8 <= len(cond := dehyph(m[2]).strip()) <= 90 and 'SUCCESS' not in m[1]:
                    out.append(q('return_code', pno, f'What does the libtasn1 function {ans}() return if {cond}?', m[1],
                                 next((d['t'] for d in desc if m[1] in d['t']), ''), key=ans))
            if shape == 'function' and lib == 'Asymptote':
                for m in re.finditer(r'(\w+) (\w+)=([^,;()\s]+(?:\([^()]*\))?)(?=[,;)])', show):
                    arg = f'argument `{m[2]}`' if m[1] == m[2] else f'{m[1]} argument `{m[2]}`'
                    out.append(q('default_arg', pno, f'In Asymptote, what is the default value of the {arg} of the '
                                 f'function {ans}(…)?', m[3], term, key=ans))
    return out


def gen_methods(doc: str, title: str, pages: list[dict]) -> list[dict]:
    "Typed member listings (liboctave): which type a class's method returns."
    out = []
    for pno, p in enumerate(pages, 1):
        if p['skip']: continue
        ctx, seen, items, body = None, defaultdict(set), [], [ln for ln in p['lines'] if not ln['hf']]
        marks = [(ln['y'], m[1]) for ln in body if (m := re.fullmatch(r'\[\w+ on ([^\]]+)\]', ln['t']))]
        for ln in body:  # a method's class: the "[Method on C]" beside it, else the constructor listed above it
            if re.fullmatch(r'\[[^\]]+\]', ln['t']): continue
            if m := re.fullmatch(r'([A-Z]\w*(?:<\w+>)?) \((.*)\)', ln['t']): ctx = m[1]; continue
            m = re.fullmatch(r'((?:const )?[A-Za-z][\w<>:]*[&*]?) ([A-Za-z_]\w*) \(([^)]*)\)( const)?', ln['t'])
            if not m: ctx = None; continue
            cls = next((c for y, c in marks if abs(y - ln['y']) < 3), ctx)
            if cls and m[1] not in TRIVIAL_TYPES and m[1].strip('&*') != cls:
                seen[(cls, m[2])].add(m[1]); items.append((cls, m[2], m[1], ln['t']))
        out += [q('method_type', pno, f'In liboctave, which type does the {name} method of the class {cls} return?',
                  ret, line, key=cls) for cls, name, ret, line in items if len(seen[(cls, name)]) == 1]
    return out


def gen_bullets(doc: str, title: str, pages: list[dict]) -> list[dict]:
    "Bulleted definitions ('• term: description', '• term elements indicate ...'): the term from its description."
    out = []
    kind = {'sample-sigconf.pdf': 'acmart template style or parameter',
            'shared-mime-info-spec.pdf': 'element of the shared MIME-info XML format'}.get(doc)
    for pno, p in enumerate(pages, 1):
        if p['skip'] or not kind: continue
        body = [ln for ln in p['lines'] if not ln['hf']]
        for i, ln in enumerate(body):
            if not ln['t'].startswith('•'): continue
            item = ln['q'][1:].strip()
            for k in range(i + 1, min(i + 4, len(body))):
                if body[k]['t'].startswith('•') or body[k]['x'] < ln['x'] - 2: break
                item += ' ' + body[k]['q']
            if m := re.match(r'^([\w,-]{3,30}): (.+)$', item := dehyph(item)):
                d = first_sentence(m[2])
                verb = {'Used': 'is used', 'Produces': 'produces', 'Suitable': 'is suitable'}.get(d.split()[0])
                qq = f'In {title}, which {kind} ' + (f'{verb} {d.split(" ", 1)[1]}?' if verb else f'is “{d}”?')
            elif m := re.match(r'^([\w-]{3,30}) elements (\w+) (.+)$', item):
                d = first_sentence(m[3])
                qq = f'Which {kind.replace("element", "elements", 1)} {m[2]} {d}?'
            else: continue
            if 12 <= len(d) <= 180: out.append(q('bullet_term', pno, qq, m[1], ln['t'], key=' '.join(words(d)[:5])))
    return out


def gen_tables(doc: str, title: str, pages: list[dict]) -> list[dict]:
    "Cells of tables under a 'Table N.' caption: rows by height, columns by the data rows' cells, headers above them."
    out = []
    for pno, p in enumerate(pages, 1):
        if p['skip']: continue
        rows = []
        for ln in sorted([ln for ln in p['lines'] if not ln['hf']], key=lambda ln: (ln['y'], ln['x'])):
            rows[-1].append(ln) if rows and abs(rows[-1][0]['y'] - ln['y']) < 3 else rows.append([ln])
        rows = [sorted(r, key=lambda ln: ln['x']) for r in rows]
        for ci, r in enumerate(rows):
            for cap in r:
                if m := re.match(r'^Table (\d+)[.:] (.{5,90})$', cap['t']): break
            else: continue
            half = p['w'] / 2  # a caption in one column of two: that column's lines only
            side = (lambda c: c['x'] >= half - 20) if cap['x'] > half - 20 else (lambda c: c['x1'] <= half + 20) \
                if cap['x1'] < half + 20 else (lambda c: True)
            below = [x for x in ([c for c in row if side(c)] for row in rows[ci + 1:ci + 40]) if x]
            if not (width := Counter(len(x) for x in below if len(x) >= 3).most_common(1)): continue
            n = width[0][0]
            isdata = [len(x) == n and not all(re.fullmatch(r'\(\d+\)', c['t']) for c in x) for x in below]
            first = next((i for i in range(len(below)) if all(isdata[i:i + 3]) and len(isdata[i:i + 3]) == 3), 0)
            heads, data = below[:first], below[first:first + (isdata[first:] + [False]).index(False)]
            if not heads: heads, data = data[:1], data[1:]  # no header row above: the first row is the header
            if len(data) < 3: continue
            mids = [(min(x[c]['x'] for x in data) + max(x[c]['x1'] for x in data)) / 2 for c in range(n)]
            names = [[] for _ in range(n)]
            for cell in (cell for hr in heads for cell in hr if not re.fullmatch(r'\(\d+\)', cell['t'])):
                names[min(range(n), key=lambda c: abs(mids[c] - (cell['x'] + cell['x1']) / 2))].append(cell['t'])
            names = [' '.join(x) for x in names]
            if len(heads) > 4 or max(map(len, names)) > 30 or any(x[0]['t'][0] in '<>' for x in data): continue
            keys = Counter(x[0]['t'] for x in data)
            for x in (x for x in data if keys[x[0]['t']] == 1):
                ev = ' '.join(cell['t'] for cell in x)
                for c in (c for c in range(1, n) if names[c] and re.search(r'\w', x[c]['t'])):
                    qq = (f'In {title}, Table {m[1]} (“{m[2].rstrip(".")}”): what does the “{names[c]}” column give '
                          f'for {x[0]["q"]}?')
                    out.append(q('table_cell', pno, qq, x[c]['t'], ev if ev in p['norm'] else x[c]['t'], 'table',
                                 key=x[0]['t']))
    return out


def alone(w: str, toks: list[str], mono: set) -> bool:
    "Whether a code term stands alone in a sentence: the words either side of it are not code (no multi-word keys)."
    i = next((i for i, t in enumerate(toks) if t in (w, w + '.', w + ':')), None)
    return i is not None and all(not (0 <= j < len(toks)) or toks[j] not in mono for j in (i - 1, i + 1))


def gen_cloze(doc: str, title: str, pages: list[dict], df: Counter) -> list[dict]:
    "Running prose: a sentence with its rarest code term (typewriter), TeX command or number left out."
    out = []
    for pno, p in enumerate(pages, 1):
        if p['skip']: continue
        paras, cur = [], []
        for ln in (ln for ln in p['lines'] if not ln['hf']):  # paragraphs: prose lines at most a line apart
            prose = ln['size'] >= 9 and not (ln['mono'] > 0.7 or ln['m0'] and ln['mono'] >= 0.3)
            if cur and (ln['y'] - cur[-1]['y1'] > 0.6 * ln['size'] or not prose or ln['t'][0] == '•'):
                paras.append(cur); cur = []  # a bullet starts a paragraph
            if prose: cur.append(ln)
        for para in paras + [cur]:
            if len(para) < 2 or sum(len(ln['t']) for ln in para) / len(para) < 40: continue
            raw, mono = ' '.join(ln['t'] for ln in para), set().union(*(ln['monow'] for ln in para))
            for sent in re.split(SENTENCE, dehyph(' '.join(ln['q'] for ln in para).lstrip('• '))):
                if not 60 <= len(sent) <= 260 or not sent[0].isupper() or not sent.endswith('.') or re.search(
                        r'(^|\s)\d+\.(\s|$)|page \d|Section \d|Chapter \d|e\.g\.$|https?:|www\.', sent): continue
                cands = [w for w in re.findall(r'[\w.$@/<>+:-]+(?:\(\))?', sent) if w in mono and len(w) >= 3
                         and re.search(r'[A-Za-z]', w) and re.search(r'[_.()$@/:<>+-]|[A-Z]|\d', w[1:] + w[0])]
                cands += re.findall(r'(?<=R )\d\.\d+\.\d', sent) + re.findall(r'\\[A-Za-z]{3,}', sent)
                cands += [m[1] for m in re.finditer(NUMBER, sent) if len(m[1]) >= 2]
                toks = [t.strip('.,;:()’‘') for t in sent.split()]
                cands = [w for w in (w.rstrip('.:') for w in cands) if sent.count(w) == 1 and w not in GENERIC
                         and not w.endswith(('-', '/')) and '* ' + w not in sent and alone(w, toks, mono)]
                if not cands or sum(t in mono for t in toks) > 0.3 * len(toks): continue
                ans = min(cands, key=lambda w: (df[w], -len(w), w))
                if len(words(masked := sent.replace(ans, '____'))) < 6: continue
                shape = ('version of R' if sent[:sent.index(ans)].endswith('R ') else 'number' if ans[0].isdigit()
                         else 'option' if ans.startswith('-') else 'function' if ans.endswith('()')
                         else 'command' if ans[0] == '\\' else 'name')
                ev = next((ln['t'] for ln in para if ans in ln['t']), raw)
                key = min((w for w in words(masked) if df[w] > 0), key=lambda w: (df[w], w), default='')
                out.append(q('cloze', pno, f'In {title}, which {shape} fills the gap: “{masked}”', ans, ev, key=key))
    return out


def check(c: dict, pages: list[dict]) -> dict | None:
    "Keep a candidate whose answer is on its page, not in its question, not on many pages; fill also_pages."
    a, p = c['answer'], pages[c['page'] - 1]
    if len(a) < 2 or len(a) > 60 or not re.search(r'\w', a) or a not in p['norm']: return None
    if a.lower() in c['query'].lower() or c['evidence'] not in p['norm'] or a not in c['evidence']: return None
    with_a = [i for i, pg in enumerate(pages, 1) if a in pg['norm'] and not pg['skip']]
    if len(with_a) > max(2, 0.25 * len(pages)): return None  # trivially on many pages
    key = c['key'].split()[0].lower() if c['key'] else ''
    also = [i for i in with_a if i != c['page'] and key in pages[i - 1]['norm'].lower()]
    return {**c, 'also': also} if len(also) <= MAX_ALSO else None  # else ambiguous


def build() -> dict:
    "All documents' questions: checked, at most PER_DOC a document (templates in turn), split and numbered."
    rng, chosen = random.Random(SEED), []
    for doc, folder, src, title in DOCS:
        pages = load_doc(Path(folder)/doc)
        df = Counter(w for pg in pages for w in set(re.findall(r'[\w.$@/<>+:-]+(?:\(\))?', pg['norm'])) |
                     set(words(pg['norm'])))
        cands = (gen_deflist(doc, title, pages) + gen_methods(doc, title, pages) + gen_bullets(doc, title, pages)
                 + gen_tables(doc, title, pages) + gen_cloze(doc, title, pages, df))
        good, seen, per_answer, per_page = defaultdict(list), set(), Counter(), Counter()
        for c in cands:
            if (c := check(c, pages)) is None or c['query'].lower() in seen: continue
            if per_answer[(c['answer'].lower(), c['generator'])] >= 2: continue
            seen.add(c['query'].lower()); per_answer[(c['answer'].lower(), c['generator'])] += 1
            good[c['generator']].append(c)
        for g in sorted(good): rng.shuffle(good[g])
        picked = []
        while len(picked) < PER_DOC and any(good.values()):  # round robin over templates
            for g in sorted(good):
                while good[g] and per_page[good[g][-1]['page']] >= PER_PAGE: good[g].pop()  # spread over pages
                if good[g] and len(picked) < PER_DOC: picked.append(good[g].pop()); per_page[picked[-1]['page']] += 1
        picked.sort(key=lambda c: (c['page'], c['query']))
        order = list(range(len(picked)))
        rng.shuffle(order)
        for k, i in enumerate(order): picked[i]['split'] = 'val' if k < round(VAL_FRAC * len(picked)) else 'train'
        chosen += [{**c, 'doc': doc, 'src': src} for c in picked]
    probe = set(rng.sample([i for i, c in enumerate(chosen) if c['split'] == 'train'], N_PROBE))
    examples = []
    for i, c in enumerate(chosen):
        meta = {'file_name': c['doc'], 'reference_page': [c['page']], 'source_type': c['src'],
                'query_type': c['query_type'], 'evidence': [c['evidence']], 'generator': c['generator'],
                'split': c['split'], **({'also_pages': c['also']} if c['also'] else {}),
                **({'probe': True} if i in probe else {})}
        examples.append({'uid': f'train-{i + 1:04d}', 'query': c['query'], 'reference_answer': c['answer'],
                         'meta_info': meta})
    return {'examples': examples}


def main():
    "Write the questions and print their counts."
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default='data/qa_train.json')
    args, out = ap.parse_args(), build()
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n')
    print(len(ex := out['examples']), 'questions;', sum('probe' in e['meta_info'] for e in ex), 'probes')
    for f in ('file_name', 'generator', 'split', 'query_type'):
        print(f, dict(sorted(Counter(e['meta_info'][f] for e in ex).items())))


if __name__ == '__main__':
    main()
