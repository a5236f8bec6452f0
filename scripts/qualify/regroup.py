#!/usr/bin/env python3
"""regroup.py FILE...: moves gsql imports that landed among the standard
library imports (first group of a parenthesised import block) into the
group holding the other github.com/gsqlengine/gsql imports, or into a new
last group; gofmt then sorts each group. The goimports-style half of
fiximports.sh, for machines without goimports."""
import re, sys

MOD = '"github.com/gsqlengine/gsql/'

def regroup(path):
    src = open(path).read()
    m = re.search(r'^import \(\n(.*?)^\)\n', src, re.S | re.M)
    if not m:
        return
    lines = m.group(1).split('\n')[:-1]
    groups, cur = [], []
    for l in lines:
        if l.strip() == '':
            groups.append(cur); cur = []
        else:
            cur.append(l)
    groups.append(cur)
    def is_std(l):
        p = l.strip().split()[-1].strip('"')
        return '.' not in p.split('/')[0]
    moved = []
    for g in groups:
        if any(is_std(l) for l in g):
            for l in [l for l in g if MOD in l]:
                g.remove(l); moved.append(l)
    if not moved:
        return
    target = next((g for g in groups if any(MOD in l for l in g)), None)
    if target is None:
        groups.append(moved)
    else:
        target.extend(moved)
    groups = [g for g in groups if g]
    body = '\n\n'.join('\n'.join(g) for g in groups) + '\n'
    src = src[:m.start(1)] + body + src[m.end(1):]
    open(path, 'w').write(src)

for p in sys.argv[1:]:
    regroup(p)
