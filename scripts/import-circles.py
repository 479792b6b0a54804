#!/usr/bin/env python3
"""Import circles among the files of one crate: `scripts/import-circles.py lab-spec/src`.

An edge goes from a file to each file whose items it names by a `crate::` path (in its `use`
lines and in its code, outside `#[cfg(test)]` and comments); a name re-exported with `pub use`
is followed to the file that defines it, so `use crate::scenario::SchedulerConfig` is an edge to
scenario/scheduler.rs. Prints each circle (a strongly connected set of files) and exits 1 when
there is one; with `--larger-than N`, only when one has more than N files (`scripts/test.sh` holds
every crate to 3)."""
import os
import re
import sys

args = sys.argv[1:]
limit = 0
if len(args) == 3 and args[1] == '--larger-than' and args[2].isdigit():
    limit = int(args[2])
elif len(args) != 1:
    sys.exit('usage: scripts/import-circles.py CRATE/src [--larger-than N]')
root = args[0]
files = {}
for d, _, names in os.walk(root):
    for f in names:
        if f.endswith('.rs'):
            files[os.path.relpath(os.path.join(d, f), root)] = open(os.path.join(d, f)).read()


# The crate's root: lib.rs, or main.rs for a binary crate.
ROOT = 'lib.rs' if 'lib.rs' in files or 'main.rs' not in files else 'main.rs'


def code(f):
    t = files[f]
    i = t.find('#[cfg(test)]')
    return re.sub(r'(?m)//.*$', '', t if i < 0 else t[:i])


def modfile(segs):
    """The file of the longest module prefix of `segs`, and the rest of the path."""
    for n in range(len(segs), 0, -1):
        base = '/'.join(segs[:n])
        for cand in (base + '.rs', base + '/mod.rs'):
            if cand in files:
                return cand, segs[n:]
    return ROOT, segs


def moddir(f):
    if f == ROOT:
        return []
    return (f[:-7] if f.endswith('/mod.rs') else f[:-3]).split('/')


def defines(f, name):
    return re.search(r'\b(struct|enum|fn|const|static|type|trait|mod)\s+' + re.escape(name) + r'\b', code(f))


def use_paths(f, text):
    """(pub, path from the crate root) of every item the `use` lines of `text` name."""
    out = []
    for m in re.finditer(r'(?m)^\s*(pub(?:\([a-z]+\))?\s+)?use\s+([^;]*);', text):
        pub, body = m.group(1), re.sub(r'\s+', '', m.group(2))

        def expand(prefix, b):
            br = b.find('{')
            if br < 0:
                yield prefix + [x for x in b.split('::') if x]
                return
            head = [x for x in b[:br].split('::') if x]
            depth, cur, parts = 0, '', []
            for ch in b[br + 1:b.rfind('}')]:
                depth += ch == '{'
                depth -= ch == '}'
                if ch == ',' and depth == 0:
                    parts.append(cur)
                    cur = ''
                else:
                    cur += ch
            parts.append(cur)
            for p in parts:
                if p:
                    yield from expand(prefix + head, p)

        for segs in expand([], body):
            if segs and segs[-1] == 'self':
                segs = segs[:-1]
            if not segs:
                continue
            if segs[0] == 'crate':
                segs = segs[1:]
            elif segs[0] in ('super', 'self'):
                base = moddir(f)
                while segs and segs[0] in ('super', 'self'):
                    base = base[:-1] if segs[0] == 'super' else base
                    segs = segs[1:]
                segs = base + segs
            elif moddir(f) and modfile(moddir(f) + segs[:1])[0] != ROOT and not modfile(moddir(f) + segs[:1])[1]:
                segs = moddir(f) + segs  # a child module of this one
            else:
                continue  # another crate
            out.append((bool(pub), segs))
    return out


def target(segs, depth=0):
    """The file that defines the item at `segs`, following `pub use` re-exports."""
    f, rest = modfile(segs)
    if not rest or depth > 6 or len(rest) > 1 or defines(f, rest[0]):
        return f
    for pub, s in use_paths(f, code(f)):
        if pub and s and s[-1] == rest[0]:
            return target(s, depth + 1)
    return f


edges = {f: set() for f in files}
for f in files:
    text = code(f)
    crate_uses = '\n'.join(re.findall(r'(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+crate::[^;]*;', text))
    paths = [s for _, s in use_paths(f, crate_uses)]
    body = re.sub(r'(?m)^\s*(?:pub(?:\([a-z]+\))?\s+)?use\s+[^;]*;', '', text)
    paths += [m.group(1).split('::')[1:] for m in re.finditer(r'\bcrate((?:::[A-Za-z_0-9]+)+)', body)]
    for segs in paths:
        t = target(segs)
        if t != f:
            edges[f].add(t)

# Tarjan's strongly connected components
index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))


for v in sorted(files):
    if v not in index:
        visit(v)
for comp in circles:
    print(len(comp), 'files in a circle:', ' '.join(comp))
    for a in comp:
        print('   ', a, '->', ' '.join(sorted(edges[a] & set(comp))))
if not circles:
    print(root + ': no import circle')
sys.exit(1 if any(len(c) > limit for c in circles) else 0)
