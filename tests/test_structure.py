#!/usr/bin/env python3
"""test_structure.py — the layout rules of docs/layers.md, checked on the sources
and on the built libraries.

usage: test_structure.py SOURCE_ROOT LIB.a|OBJDIR ...

Checks, each failure one line naming the file(s):
1. Public headers: every header in include/ is at most 400 lines (a folder's
   whole API in one file is a folder's worth of reading; split it by concern).
2. Private headers stay in their folder: no file of src/ includes a header that
   another folder of src/ keeps (a folder's private headers are found only next
   to the files that include them; include/ holds the public ones, and the
   folders' Meson dependencies export include/ alone).
3. No include cycle among the headers of src/ and include/.
4. No call circle inside a folder: in each library LIB.a (one folder of src/)
   or folder of objects OBJDIR (src/cli's executable), object A "uses" object B when A refers to an external symbol that B defines
   (nm); that relation has no cycle, so the files of a folder build on each
   other in one direction.
Exit status 0 when every check holds, 1 otherwise (every failure printed).
"""
import collections
import glob
import os
import re
import subprocess
import sys

MAX_PUBLIC_LINES = 400
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def cycles(graph):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_public(root, fail):
    for h in sorted(glob.glob(os.path.join(root, 'include', '*.h'))):
        n = sum(1 for _ in open(h, encoding='utf-8'))
        if n > MAX_PUBLIC_LINES:
            fail(f'{os.path.relpath(h, root)}: {n} lines, a public header has at most {MAX_PUBLIC_LINES}')


def src_files(root):
    for f in sorted(glob.glob(os.path.join(root, 'src', '*', '*'))):
        if f.endswith(('.c', '.h', '.inc')):
            yield f


def check_includes(root, fail):
    owner = collections.defaultdict(set)  # header name -> folders of src/ keeping it
    for f in src_files(root):
        if f.endswith(('.h', '.inc')):
            owner[os.path.basename(f)].add(os.path.basename(os.path.dirname(f)))
    public = {os.path.basename(h) for h in glob.glob(os.path.join(root, 'include', '*.h'))}
    graph = collections.defaultdict(set)
    files = list(src_files(root)) + sorted(glob.glob(os.path.join(root, 'include', '*.h')))
    for f in files:
        rel = os.path.relpath(f, root)
        folder = os.path.basename(os.path.dirname(f))
        for name in INCLUDE.findall(open(f, encoding='utf-8').read()):
            base = os.path.basename(name)
            if base in owner and folder not in owner[base] and base not in public:
                fail(f'{rel}: includes "{name}", a private header of src/{sorted(owner[base])[0]}/')
            local = os.path.join(os.path.dirname(f), base)
            target = local if os.path.exists(local) else os.path.join(root, 'include', base)
            if os.path.exists(target) and target != f:
                graph[rel].add(os.path.relpath(target, root))
    for comp in cycles(graph):
        fail('include cycle: ' + ' -> '.join(comp))


def nm(lib, flags):
    """{member object: set of symbols} of `nm -A FLAGS` on a library or on
    the objects of a folder (an executable's private folder)."""
    files = sorted(glob.glob(os.path.join(lib, '*.o'))) if os.path.isdir(lib) else [lib]
    out = subprocess.run(['nm', '-A', '--format=posix'] + flags + files, capture_output=True, text=True,
                         check=True).stdout
    syms = collections.defaultdict(set)
    for line in out.splitlines():
        where, _, rest = line.partition(' ')
        member = where.rstrip(':').split('[')[-1].rstrip(']')  # lib.a[member.o]:
        parts = rest.split()
        if parts:
            syms[member].add(parts[0])
    return syms


def check_calls(lib, fail):
    defined = nm(lib, ['--defined-only', '--extern-only'])
    used = nm(lib, ['--undefined-only'])
    by_symbol = {s: m for m, ss in defined.items() for s in ss}
    graph = collections.defaultdict(set)
    for m, ss in used.items():
        for s in ss:
            if by_symbol.get(s, m) != m:
                graph[m].add(by_symbol[s])
    for comp in cycles(graph):
        names = [os.path.basename(c)[:-2] if c.endswith('.o') else os.path.basename(c) for c in comp]
        fail(f'{os.path.basename(lib.rstrip("/"))}: files that call each other in a circle: ' + ', '.join(names))


def main(argv):
    if len(argv) < 2:
        print('usage: test_structure.py SOURCE_ROOT LIB.a ...', file=sys.stderr)
        return 2
    root, libs = argv[1], argv[2:]
    failures = []
    check_public(root, failures.append)
    check_includes(root, failures.append)
    for lib in libs:
        check_calls(lib, failures.append)
    for f in failures:
        print(f)
    print(f'test_structure: {len(failures)} failure(s); {len(libs)} libraries checked for call circles')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
