#!/usr/bin/env python3
"""Checks that src/kdet's folders include each other only downwards.

Counts the `#include "kdet/X/..."` lines of every file under src/kdet/F/ (F != X) as an edge
F -> X, prints the edge table, every arrow that runs up against the declared order below (or
across between folders of one level), and every circle among the folders.
Exit 0 when there is none, 1 when there is an arrow up or a circle, 2 on a folder missing
from the order. CI runs it in the plain phase of scripts/test.sh; docs/ARCHITECTURE.md
("Dependency direction") states the same order and why.
"""
import os
import re
import sys
from collections import defaultdict

# Lowest first. A folder may include only folders of a lower level; folders of one level
# know nothing of each other. Each CMake library (src/CMakeLists.txt) links the same order.
ORDER = [
    ["util"],
    ["diff", "backend", "perturb", "stats", "gpu"],
    ["engine"],
    ["store"],
    ["cache", "corpus", "capture", "reduce"],
    ["scan"],
    ["report"],
    ["cli"],
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"kdet/([a-z_]+)/')


def level_of():
    return {m: i for i, level in enumerate(ORDER) for m in level}


def edges(src):
    """{(from, to): count} over src/kdet/<folder>/** (files directly in src/kdet belong to none)."""
    out = defaultdict(int)
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        for dirpath, _, files in os.walk(path):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".c", ".h")):
                    continue
                with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        m = INCLUDE.match(line)
                        if m and m.group(1) != folder:
                            out[(folder, m.group(1))] += 1
    return out


def cycles(graph):
    """Every strongly connected component of more than one folder (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
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
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(root, "src", "kdet")
    e = edges(src)
    levels = level_of()
    folders = sorted({f for f in os.listdir(src) if os.path.isdir(os.path.join(src, f))})
    unknown = [f for f in folders if f not in levels]
    if unknown:
        print(f"layers: folders missing from ORDER in scripts/layers.py: {', '.join(unknown)}")
        return 2
    print("layers: order (lowest first): " + " < ".join("{" + ", ".join(l) + "}" if len(l) > 1
                                                         else l[0] for l in ORDER))
    print("layers: edges (#include lines):")
    for (a, b), n in sorted(e.items(), key=lambda kv: (levels[kv[0][0]], kv[0])):
        print(f"  {a:8} -> {b:8} {n:4}")
    up = [(a, b, n) for (a, b), n in sorted(e.items()) if levels[b] >= levels[a]]
    graph = defaultdict(set)
    for a, b in e:
        graph[a].add(b)
    circles = cycles(graph)
    for a, b, n in up:
        how = "across one level" if levels[a] == levels[b] else "up"
        print(f"layers: arrow {how}: {a} -> {b} ({n} #include line{'s' if n != 1 else ''})")
    for c in circles:
        print(f"layers: circle: {' <-> '.join(c)}")
    print(f"layers: {len(up)} arrow(s) up, {len(circles)} circle(s)")
    return 1 if up or circles else 0


if __name__ == "__main__":
    sys.exit(main())
