#!/usr/bin/env python3
"""embed.py OUTDIR NAME.txt... — the commands' help texts as C strings.

Writes OUTDIR/help_texts.c with `const char cf_cli_help_NAME[]` (NAME's
'-' as '_') for each text, and OUTDIR/help_texts.h declaring them.  A text
may name another one of the list as @OTHER@ (e.g. @model-help@): it stands
for that text without its final newline.  Fails, naming the file, on a
@NAME@ that is not in the list or on bytes that are not UTF-8."""
import os
import re
import sys


def c_string(text):
    out = []
    for line in text.splitlines(keepends=True):
        s = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n').replace('\t', '\\t')
        out.append('    "%s"' % s)
    return '\n'.join(out) if out else '    ""'


def main():
    outdir, paths = sys.argv[1], sys.argv[2:]
    texts = {}
    for p in paths:
        name = os.path.splitext(os.path.basename(p))[0]
        try:
            with open(p, encoding='utf-8') as f:
                texts[name] = f.read()
        except (OSError, UnicodeDecodeError) as e:
            sys.exit('embed.py: %s: %s (expected a UTF-8 text file)' % (p, e))

    def expand(name, text):
        def part(m):
            if m.group(1) not in texts:
                sys.exit('embed.py: %s: @%s@ names no help text of the list' % (name, m.group(1)))
            t = texts[m.group(1)]
            return t[:-1] if t.endswith('\n') else t
        return re.sub(r'@([a-z][a-z0-9-]*)@', part, text)

    c = ['/* help_texts.c — made by src/cli/help/embed.py from src/cli/help/NAME.txt: do not edit. */',
         '#include "help_texts.h"', '']
    h = ['/* help_texts.h — made by src/cli/help/embed.py: the help texts of src/cli/help/NAME.txt. */',
         '#ifndef CF_HELP_TEXTS_H', '#define CF_HELP_TEXTS_H']
    for name, text in texts.items():
        var = 'cf_cli_help_' + name.replace('-', '_')
        c += ['const char %s[] =' % var, c_string(expand(name, text)) + ';', '']
        h.append('extern const char %s[];' % var)
    h.append('#endif')
    with open(os.path.join(outdir, 'help_texts.c'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(c))
    with open(os.path.join(outdir, 'help_texts.h'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(h) + '\n')


main()
