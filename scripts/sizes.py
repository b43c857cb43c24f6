#!/usr/bin/env python3
"""Checks the size limits of src/: no file over 600 lines, no function over 200 lines.

A function is a brace block opened at namespace or class level after a parameter list (a
method defined in its class counts; lambdas count with the function they are written in).
Comments, strings and character literals are blanked before the braces are matched.

The files and functions over a limit when the limit was set are listed in CEILINGS with the
size they had: each may shrink, none may grow, and none may be added. So the limits hold for
new code at once and the old offenders can only get better. Remove an entry once it is under
its limit (the script says so).

  scripts/sizes.py            check (exit 1 on a breach), print the measures
  scripts/sizes.py --top N    also list the N longest functions and largest files

Exit 0 within the limits, 1 otherwise. CI runs it in the plain phase of scripts/test.sh.
"""
import argparse
import os
import re
import sys

FILE_LIMIT = 600
FUNCTION_LIMIT = 200

# (path, function or None for the file) -> lines when the limit came in. May only shrink.
CEILINGS = {
}

HEAD_TYPE = re.compile(r"\b(namespace|class|struct|union|enum)\b")
EXTERN_C = re.compile(r'extern\s*"C"\s*$')
NAME = re.compile(r"([A-Za-z_~][A-Za-z_0-9:~]*(?:operator\s*\S+)?)\s*\($")


def blank(text):
    """The text with comments, strings and character literals replaced by spaces (newlines
    kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(head):
    """The name of the function whose head (the text before its `{`) this is, or None when
    the block is no function body."""
    head = " ".join(head.split())
    if not head or "=" in head.split("(")[0] and "operator" not in head:
        return None  # an initializer: `int a[] = {`
    if HEAD_TYPE.search(head.split("(")[0]) or EXTERN_C.search(head):
        return None
    # Drop a constructor's initializer list, trailing qualifiers and a trailing return type.
    depth, cut = 0, None
    for k, ch in enumerate(head):
        if ch == "(":
            if depth == 0 and cut is None:
                cut = k
            depth += 1
        elif ch == ")":
            depth -= 1
    if cut is None:
        return None
    m = NAME.search(head[: cut + 1])
    if not m or m.group(1) in ("if", "for", "while", "switch", "catch", "return"):
        return None
    return m.group(1).split("::")[-1]


def functions(path):
    """[(name, first line, lines)] of the functions defined in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    # Preprocessor lines are not code for this purpose.
    text = re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)
    found = []
    stack = []  # per open brace: "scope" (namespace, class, extern "C") or "body" or "other"
    head_start = 0
    line = 1
    opened = []  # for "body": (name, line)
    for k, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif ch in ";":
            if all(s == "scope" for s in stack):
                head_start = k + 1
        elif ch == "{":
            in_scope = all(s == "scope" for s in stack)
            if in_scope:
                head = text[head_start:k]
                name = function_name(head)
                if name:
                    stack.append("body")
                    opened.append((name, line))
                elif HEAD_TYPE.search(head) or EXTERN_C.search(head.strip()) or not head.strip():
                    stack.append("scope")
                else:
                    stack.append("other")
                head_start = k + 1
            else:
                stack.append("other")
        elif ch == "}":
            if not stack:
                continue
            kind = stack.pop()
            if kind == "body":
                name, first = opened.pop()
                found.append((name, first, line - first + 1))
            if all(s == "scope" for s in stack):
                head_start = k + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    files, funcs = [], []
    for d, _, names in os.walk(os.path.join(root, "src")):
        for n in sorted(names):
            if not n.endswith((".cpp", ".hpp", ".c", ".h")):
                continue
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            with open(p, encoding="utf-8", errors="replace") as f:
                files.append((sum(1 for _ in f), rel))
            for name, first, lines in functions(p):
                funcs.append((lines, rel, name, first))
    files.sort(reverse=True)
    funcs.sort(reverse=True)
    breaches, stale = [], []
    seen = set()

    def judge(key, size, limit, what):
        ceiling = CEILINGS.get(key)
        if ceiling is not None:
            seen.add(key)
            if size > ceiling:
                breaches.append(f"{what}: {size} lines, over its ceiling of {ceiling} (limit {limit})")
            elif size <= limit:
                stale.append(f"{what}: {size} lines, now within the limit: remove it from CEILINGS")
        elif size > limit:
            breaches.append(f"{what}: {size} lines, over the limit of {limit}")

    for size, rel in files:
        judge((rel, None), size, FILE_LIMIT, rel)
    longest = {}
    for lines, rel, name, first in funcs:
        key = (rel, name)
        longest[key] = max(longest.get(key, 0), lines)
    for (rel, name), lines in longest.items():
        judge((rel, name), lines, FUNCTION_LIMIT, f"{rel}: {name}()")
    for key in CEILINGS:
        if key not in seen:
            stale.append(f"{key[0]}{': ' + key[1] + '()' if key[1] else ''}: gone: remove it from CEILINGS")

    lf = funcs[0] if funcs else (0, "-", "-", 0)
    print(f"sizes: longest function {lf[2]}() in {lf[1]}:{lf[3]}, {lf[0]} lines; "
          f"largest file {files[0][1]}, {files[0][0]} lines; "
          f"{len(files)} files, {len(funcs)} functions")
    for size, rel in files[: args.top]:
        print(f"  file {size:6d}  {rel}")
    for lines, rel, name, first in funcs[: args.top]:
        print(f"  func {lines:6d}  {rel}:{first} {name}()")
    for s in stale:
        print(f"sizes: note: {s}")
    for b in breaches:
        print(f"sizes: error: {b}", file=sys.stderr)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
