"""Merges the modules numba hands libNVVM for one kernel into one NVVM IR file.

numba 0.56 (Debian python3-numba) gives libNVVM two modules per kernel: the
kernel wrapper (`_ZN6cudapy...`, which calls the inner function) and the
inner function's module. kdet reduce takes one file, so this joins them as
llvm-link would, in text: one header, the wrapper's declaration of the inner
function dropped, the second module's metadata renumbered after the first's,
named metadata lists joined (one !nvvmir.version, one set of module flags).

  python3 merge_numba.py OUT.ll INNER.ll WRAPPER.ll [--nvvm-version MAJ.MIN]

--nvvm-version rewrites !nvvmir.version's first two operands: numba 0.56 writes
1.6, which libNVVM 13.0 refuses (NVVM_ERROR_IR_VERSION_MISMATCH); 2.0 parses.
Regenerate the inputs with gen_numba.py (numba needs a libNVVM to load).
"""
import re
import sys

BANG_NUM = re.compile(r'!(\d+)\b')


def parse(text):
    head, body, named, nodes = [], [], {}, []
    for line in text.split("\n"):
        if line.startswith("; ModuleID") or not line.strip():
            continue
        if line.startswith("target "):
            head.append(line)
        elif re.match(r'^![A-Za-z.]', line):
            name, _, ops = line.partition(" = ")
            named[name] = [o.strip() for o in ops.strip()[2:-1].split(",") if o.strip()]
        elif re.match(r'^!\d', line):
            nodes.append(line)
        else:
            body.append(line)
    return head, body, named, nodes


def max_node(nodes):
    return max((int(BANG_NUM.match(n).group(1)) for n in nodes), default=-1)


def shift(line, off):
    # !N outside quoted strings (a !"..." string never starts with a digit after the !).
    out, parts = [], re.split(r'("(?:[^"\\]|\\.)*")', line)
    for i, p in enumerate(parts):
        out.append(p if i % 2 else BANG_NUM.sub(lambda m: "!%d" % (int(m.group(1)) + off), p))
    return "".join(out)


def defined(body):
    return {m.group(1) for l in body for m in [re.match(r'^define [^@]*@("[^"]+"|[\w.$]+)', l)] if m}


def main():
    out, inner, wrapper = sys.argv[1:4]
    version = None
    if "--nvvm-version" in sys.argv:
        version = sys.argv[sys.argv.index("--nvvm-version") + 1].split(".")
    ha, ba, na, ma = parse(open(inner).read())
    hb, bb, nb, mb = parse(open(wrapper).read())
    off = max_node(ma) + 1
    bb = [shift(l, off) for l in bb]
    mb = [shift(l, off) for l in mb]
    nb = {k: [shift(o, off) for o in v] for k, v in nb.items()}
    both = defined(ba) | defined(bb)
    body = []
    for l in ba + bb:
        m = re.match(r'^declare [^@]*@("[^"]+"|[\w.$]+)', l)
        if m and m.group(1) in both:
            continue
        body.append(l)
    # Declarations both modules make (intrinsics): one copy.
    seen, dedup = set(), []
    for l in body:
        if l.startswith("declare "):
            if l in seen:
                continue
            seen.add(l)
        dedup.append(l)
    named = dict(na)
    for k, v in nb.items():
        if k in ("!nvvmir.version", "!llvm.module.flags") and k in named:
            continue  # one of each: the inner module's
        named[k] = named.get(k, []) + v
    nodes = ma + mb
    if version:
        ver = named["!nvvmir.version"][0][1:]
        nodes = [re.sub(r'^(!%s = !\{\s*)i32 \d+, i32 \d+' % ver,
                        lambda m: m.group(1) + "i32 %s, i32 %s" % (version[0], version[1]), n)
                 for n in nodes]
    text = "\n".join(ha) + "\n\n" + "\n".join(dedup) + "\n"
    text += "\n".join("%s = !{ %s }" % (k, ", ".join(v)) for k, v in named.items()) + "\n"
    text += "\n".join(nodes) + "\n"
    open(out, "w").write(text)


main()
