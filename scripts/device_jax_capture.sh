#!/bin/bash
# The JAX investigation of docs/CAPTURE.md ("JAX under capture"), run from the repository root on
# a GPU host with JAX: does XLA's PTX vary by itself, or does running under kdet capture change
# it? KDET names a folder holding kdet with its libraries beside it (libkdet_capture.so,
# kdet-exec-shim); LIBS a folder of the shared libraries kdet needs (a host that cannot install
# packages); OUT the reports folder; N runs per arm (default 6).
#   KDET=dev LIBS=dev/lib OUT=/tmp/out N=6 scripts/device_jax_capture.sh
# Arms, each N runs with XLA's dumps (HLO text, LLVM IR, PTX) into a folder of its own:
#   bare        python3 alone
#   cachevar    python3 with a fresh JAX_COMPILATION_CACHE_DIR, as a cold capture build sets it
#   capture     under kdet capture (the preload, the exec shim around ptxas), no cache variable
#   builds      kdet capture --builds N (every cache variable fresh, as by default)
# Then, per dumped file name, how many distinct contents each arm made.
set -u
KDET=$(cd "${KDET:?KDET names a folder holding kdet}" && pwd)/kdet
OUT=${OUT:?OUT names the reports folder}
N=${N:-6}
[[ -n ${LIBS:-} ]] && export LD_LIBRARY_PATH=$(cd "$LIBS" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
P=$(pwd)/tests/capture/device/jax_jit.py
mkdir -p "$OUT"
W=$(mktemp -d)
cd "$W" || exit 1
flags() { echo "--xla_dump_to=$1 --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=^$"; }
for i in $(seq "$N"); do
  XLA_FLAGS="$(flags "$W/bare/$i")" python3 "$P" >/dev/null 2>&1
  JAX_COMPILATION_CACHE_DIR=$(mktemp -d) XLA_FLAGS="$(flags "$W/cachevar/$i")" python3 "$P" >/dev/null 2>&1
  XLA_FLAGS="$(flags "$W/capture/$i")" "$KDET" capture --out "$W/cap$i" -- python3 "$P" >/dev/null 2>"$W/cap$i.err"
done
# --builds: each build gets its own dump folder through a wrapper that numbers itself.
cat >"$W/run.sh" <<EOS
#!/bin/bash
n=\$(( \$(ls -d $W/builds-dump/* 2>/dev/null | wc -l) + 1 ))
XLA_FLAGS="$(flags "$W/builds-dump/\$n")" exec python3 "$P"
EOS
chmod +x "$W/run.sh"
mkdir -p "$W/builds-dump"
"$KDET" capture --builds "$N" --out "$W/builds" --json "$OUT/builds.json" -- "$W/run.sh" >"$OUT/builds.txt" 2>&1
echo "builds exit $?" >>"$OUT/builds.txt"
cp "$W"/cap1.err "$OUT/capture1.err" 2>/dev/null
python3 - "$W" "$OUT/distinct.txt" <<'PY'
import hashlib, os, sys, collections
w, out = sys.argv[1], sys.argv[2]
arms = {"bare": f"{w}/bare", "cachevar": f"{w}/cachevar", "capture": f"{w}/capture",
        "builds": f"{w}/builds-dump"}
table = collections.defaultdict(dict)
for arm, d in arms.items():
    if not os.path.isdir(d):
        continue
    for run in sorted(os.listdir(d)):
        for f in os.listdir(os.path.join(d, run)):
            if not f.endswith((".ptx", ".ll", ".txt")):
                continue
            h = hashlib.sha256(open(os.path.join(d, run, f), "rb").read()).hexdigest()[:10]
            table[f].setdefault(arm, []).append(h)
with open(out, "w") as o:
    for f in sorted(table):
        row = table[f]
        cells = {a: len(set(v)) for a, v in row.items()}
        allh = set(h for v in row.values() for h in v)
        mark = "DIFFERS" if len(allh) > 1 else "same"
        o.write(f"{mark:8} {f}: " + ", ".join(f"{a} {cells[a]} of {len(row[a])}" for a in row) +
                f"; across arms {len(allh)}\n")
print(open(out).read())
PY
grep -c DIFFERS "$OUT/distinct.txt"
# Keep two differing PTX files, if any, for the record.
python3 - "$W" "$OUT" <<'PY'
import hashlib, os, sys, shutil
w, out = sys.argv[1], sys.argv[2]
seen = {}
for arm in ("bare", "cachevar", "capture", "builds-dump"):
    d = os.path.join(w, arm)
    if not os.path.isdir(d): continue
    for run in sorted(os.listdir(d)):
        for f in os.listdir(os.path.join(d, run)):
            if not f.endswith(".ptx"): continue
            p = os.path.join(d, run, f)
            h = hashlib.sha256(open(p, "rb").read()).hexdigest()[:10]
            seen.setdefault(f, {}).setdefault(h, p)
n = 0
for f, hs in seen.items():
    if len(hs) > 1 and n < 1:
        for i, (h, p) in enumerate(list(hs.items())[:2]):
            shutil.copy(p, os.path.join(out, f"differs-{i}.ptx"))
            print("kept", p)
        n += 1
PY
tail -30 "$OUT/builds.txt"
