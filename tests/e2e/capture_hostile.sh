#!/usr/bin/env bash
# tier: cuda
# capture_hostile.sh: kdet capture under a pipeline that plays descriptor and
# process games (tests/capture/hostile_client.c; docs/CAPTURE.md, "Hostile pipelines").
#  1. Descriptor games (close every descriptor and reopen, dup2 over 3..1024,
#     close all), a child exec'd with an empty environment, a forked orphan and
#     a setsid'd daemon that compile after the pipeline exited: the pipeline's
#     files are byte for byte those of a run without capture (0 files changed),
#     every compile but the unpreloaded child's is recorded, and the summary
#     names the child started without LD_PRELOAD. With the fake libNVVM, and the real
#     one (/usr/local/cuda) when present.
#  2. Children that never end: killed at --wait-children, named (pid, command)
#     in the summary and the JSON; none is left running.
#  3. A thread closing and dup2-ing descriptors 3..1100 while the main thread
#     compiles: every compile recorded, the results file unchanged, and a write
#     that went astray (if the race was ever lost) named in a note.
#     The race lost on purpose (a test hook) is noted, naming the file it hit.
#  4. Compiles whose record log cannot be written: reported as lost, by process; with no
#     descriptor free at all (5), counted through memory and reported too.
#  6. --finish names a record log that is a FIFO (never waiting on it) and a bundle whose
#     bytes are in no blob pack.
# Env: KDET, KDET_FAKES_DIR, KDET_BINARY_DIR, KDET_SOURCE_DIR. Exit 0 pass, 1 fail, 77 skipped.
source "$(dirname "$0")/lib/common.bash"
FAKE=$KDET_FAKES_DIR/libfakenvvm.so
CL=${KDET_BINARY_DIR:?}/tests/capture
H=$CL/capture_hostile_client
[[ -f $FAKE && -x $H ]] || skip "fakes or capture clients not built (ninja kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll

# files_changed A B: how many files differ between two folders (present in one only, or other bytes).
files_changed() {
  python3 - "$1" "$2" <<'PY'
import os, sys
def tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out
a, b = tree(sys.argv[1]), tree(sys.argv[2])
bad = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
for k in bad:
    print("changed:", k, file=sys.stderr)
print(len(bad))
PY
}

# 1. Descriptor games and children; a run without capture first. $(...) returns once
#    every process holding its stdout (the orphan and the daemon too) has ended.
steps=(compile closerange compile dup2all compile closeall compile noenv "$H" compile orphan daemon)
mkdir "$T/plain" "$T/cap"
: "$("$H" "$FAKE" "$IN" "$T/plain" "${steps[@]}")"
[[ $(grep -c '^compile .* rc 0 ' "$T/plain/results.txt") == 5 ]] || { cat "$T/plain/results.txt"; fail "the plain run's compiles"; }
[[ -s $T/plain/orphan.txt && -s $T/plain/daemon.txt && -s $T/plain/noenv.txt ]] || fail "the plain run's children did not compile"
expect_exit 0 "$KDET" capture --out "$T/c" --json "$T/c.json" -- "$H" "$FAKE" "$IN" "$T/cap" "${steps[@]}"
cp "$T/out" "$T/c.summary"
changed=$(files_changed "$T/plain" "$T/cap")
nfiles=$(find "$T/plain" -type f | wc -l)
[[ $changed == 0 ]] || fail "capture changed $changed of $nfiles files of the pipeline"
# 6 compiles of the pipeline (one made with every descriptor closed), 1 each of the
# orphan and the daemon; the child run with an empty environment is not captured.
expect_eq "compiles recorded" "$(json_eval "$T/c.json" 'len(d["compiles"])')" 8
expect_eq "compiles of other processes" "$(json_eval "$T/c.json" 'len({c["pid"] for c in d["compiles"]})')" 3
expect_eq "lost notes" "$(json_eval "$T/c.json" 'sum(n["count"] for n in d["notes"] if n["kind"].startswith("lost"))')" 0
expect_eq "uncaptured child noted" "$(json_eval "$T/c.json" '[n["text"] for n in d["notes"] if n["kind"] == "exec-uncaptured"]')" "['$H']"
grep -q "ran $H without LD_PRELOAD (exec, x1): its compiles are not captured" "$T/c.summary" || { cat "$T/c.summary"; fail "the summary does not name the unpreloaded child"; }
grep -q "made none" "$T/c.summary" && fail "the summary says the pipeline made no compile"
expect_eq "nothing killed" "$(json_eval "$T/c.json" 'len(d["children"]["left"])')" 0
grep -q "KILLED" "$T/c.summary" && fail "a child was killed though it ended in time"
# Every record log and pack is whole: no entry went anywhere else.
expect_eq "problems" "$(json_eval "$T/c.json" 'd["problems"]')" "[]"

# 1a. A single-threaded pipeline whose SIGALRM handler dup2s its results file over every
#     close-on-exec descriptor while it compiles (the preload's files are opened, checked and
#     written with signals held), and one that leaves itself 4 free descriptors (the preload
#     keeps none between entries): the pipeline's files as without capture, every compile
#     recorded, no entry astray.
for step in signals nofile; do
  n=$([[ $step == signals ]] && echo 1000 || echo 4)
  mkdir "$T/$step-plain" "$T/$step-cap"
  expect_exit 0 "$H" "$FAKE" "$IN" "$T/$step-plain" "$step"
  expect_exit 0 "$KDET" capture --out "$T/$step-c" --json "$T/$step.json" -- "$H" "$FAKE" "$IN" "$T/$step-cap" "$step"
  c=$(files_changed "$T/$step-plain" "$T/$step-cap")
  [[ $c == 0 ]] || fail "$step: capture changed $c files of the pipeline"
  changed=$((changed + c))
  expect_eq "$step: compiles recorded" "$(json_eval "$T/$step.json" 'len(d["compiles"])')" "$n"
  expect_eq "$step: notes" "$(json_eval "$T/$step.json" '[n["kind"] for n in d["notes"]]')" "[]"
  expect_eq "$step: problems" "$(json_eval "$T/$step.json" 'd["problems"]')" "[]"
done

# 1b. The same games with the real libNVVM, when the toolkit has one.
NVVM=$( (ls /usr/local/cuda/lib64/libnvvm.so* /usr/local/cuda/nvvm/lib64/libnvvm.so* 2>/dev/null || true) | head -1)
if [[ -n $NVVM ]]; then
  mkdir "$T/rplain" "$T/rcap"
  : "$("$H" "$NVVM" "$IN" "$T/rplain" option=-arch=compute_90a "${steps[@]}")"
  [[ $(grep -c '^compile .* rc 0 ' "$T/rplain/results.txt") == 5 ]] || { cat "$T/rplain/results.txt"; fail "real libNVVM: the plain run's compiles"; }
  expect_exit 0 "$KDET" capture --json "$T/r.json" -- "$H" "$NVVM" "$IN" "$T/rcap" option=-arch=compute_90a "${steps[@]}"
  rchanged=$(files_changed "$T/rplain" "$T/rcap")
  [[ $rchanged == 0 ]] || fail "real libNVVM: capture changed $rchanged files of the pipeline"
  expect_eq "real libNVVM: compiles recorded" "$(json_eval "$T/r.json" 'len(d["compiles"])')" 8
  expect_eq "real libNVVM: one bundle, one PTX" "$(json_eval "$T/r.json" '[(len(b["outputs"]), b["compiles"]) for b in d["bundles"]]')" "[(1, 8)]"
else
  echo "capture_hostile: note: no real libNVVM under /usr/local/cuda; its run is skipped"
fi

# 1c. A Python pipeline: os.closerange then open, children by subprocess (vfork + execve) with
#     an empty environment and by os.posix_spawn without LD_PRELOAD.
PY=$KDET_SOURCE_DIR/tests/capture/hostile.py
mkdir "$T/pyplain" "$T/pycap"
python3 "$PY" "$FAKE" "$IN" "$T/pyplain"
expect_exit 0 "$KDET" capture --json "$T/py.json" -- python3 "$PY" "$FAKE" "$IN" "$T/pycap"
cp "$T/out" "$T/py.summary"
pychanged=$(files_changed "$T/pyplain" "$T/pycap")
[[ $pychanged == 0 ]] || fail "python: capture changed $pychanged files of the pipeline"
expect_eq "python: compiles recorded" "$(json_eval "$T/py.json" 'len(d["compiles"])')" 4
pyexe=$(python3 -c 'import sys; print(sys.executable)')
expect_eq "python: children noted" "$(json_eval "$T/py.json" 'sorted(n["kind"] for n in d["notes"] if n["text"] == "'"$pyexe"'")')" "['exec-uncaptured', 'spawn-uncaptured']"

# 2. Children that outlive --wait-children: killed and named, with their whole command line
#    although a build's paths make it long (here over 500 bytes).
long=$(printf 'x%.0s' {1..150})
HANG=$T/build-$long/folder-$long/hang
mkdir -p "$HANG"
expect_exit 0 "$KDET" capture --wait-children 0.3 --json "$T/h.json" -- "$H" "$FAKE" "$IN" "$HANG" compile hang orphan daemon
cp "$T/out" "$T/h.summary"
expect_eq "killed children" "$(json_eval "$T/h.json" 'len(d["children"]["left"])')" 2
expect_eq "killed children carried the preload" "$(json_eval "$T/h.json" '[p["preload"] for p in d["children"]["left"]]')" "[True, True]"
json_eval "$T/h.json" 'd["children"]["left"][0]["command"]' | grep -qx "$H $FAKE $IN $HANG compile hang orphan daemon" || fail "the killed child's command"
grep -Eq "KILLED +2 processes the pipeline left still running when kdet stopped waiting \(--wait-children 0.3" "$T/h.summary" || { cat "$T/h.summary"; fail "the summary does not name the killed children"; }
grep -Eq "pid [0-9]+: .*capture_hostile_client" "$T/h.summary" || fail "the summary lists no killed pid"
pgrep -f "capture_hostile_client $FAKE $IN $HANG" >/dev/null && fail "a child outlived kdet capture"
# --wait-children 0: not waited for at all, still named.
mkdir "$T/hang0"
expect_exit 0 "$KDET" capture --wait-children 0 --json "$T/h0.json" -- "$H" "$FAKE" "$IN" "$T/hang0" compile hang orphan
expect_eq "--wait-children 0: one child killed" "$(json_eval "$T/h0.json" 'len(d["children"]["left"])')" 1
expect_exit 2 "$KDET" capture --wait-children -1 -- true
expect_output "wait-children"

# 3. A thread juggling descriptors while the main thread compiles.
mkdir "$T/tplain" "$T/tcap"
: "$("$H" "$FAKE" "$IN" "$T/tplain" compile thread)"
expect_exit 0 "$KDET" capture --json "$T/t.json" -- "$H" "$FAKE" "$IN" "$T/tcap" compile thread
expect_eq "thread: compiles recorded" "$(json_eval "$T/t.json" 'len(d["compiles"])')" 21
cmp "$T/tplain/results.txt" "$T/tcap/results.txt" || fail "thread: the results file changed"
strays=$(json_eval "$T/t.json" 'sum(n["count"] for n in d["notes"] if n["kind"] == "stray")')
if cmp -s "$T/tplain/juggle.txt" "$T/tcap/juggle.txt"; then hit=0; else hit=1; fi
echo "capture_hostile: thread race: $strays stray entries noted, juggle.txt changed: $hit"
((hit == 0 || strays > 0)) || fail "thread: a file of the pipeline changed without a note"

# 3b. The race lost on purpose (KDET_CAPTURE_TEST_STRAY: the pipeline's results file dup2'ed
#     over the checked descriptor just before the first entry): the stray entry is seen,
#     named in a note with the file it went to, and written again where it belongs.
mkdir "$T/stray"
# kdet passes the descriptors it was given on to the pipeline: none from 3 up here, so that
# results.txt is descriptor 3.
expect_exit 0 env KDET_CAPTURE_TEST_STRAY=3 "$KDET" capture --json "$T/s.json" -- "$H" "$FAKE" "$IN" "$T/stray" compile compile 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
cp "$T/out" "$T/s.summary"
expect_eq "stray: compiles recorded" "$(json_eval "$T/s.json" 'len(d["compiles"])')" 2
expect_eq "stray: noted" "$(json_eval "$T/s.json" '[n["count"] for n in d["notes"] if n["kind"] == "stray" and n["text"].find("'"$T"'/stray/results.txt") > 0]')" "[1]"
grep -q "^kdet-capture-record 1 1$" "$T/stray/results.txt" || fail "stray: the entry is not where the note says"
grep -Eq "WARNING +process [0-9]+: an entry of [0-9]+ bytes may have gone to descriptor [0-9]+ \($T/stray/results.txt\)" "$T/s.summary" || { cat "$T/s.summary"; fail "stray: not in the summary"; }

# 4. The record log cannot be written (records/ is a file): each compile reported lost.
mkdir -p "$T/lost/raw/blobs" "$T/lost/out"
: >"$T/lost/raw/records"
expect_exit 0 env LD_PRELOAD="$(dirname "$KDET")/libkdet_capture.so" KDET_CAPTURE_DIR="$T/lost/raw" "$H" "$FAKE" "$IN" "$T/lost/out" compile compile
rm "$T/lost/raw/records" && mkdir "$T/lost/raw/records"
expect_exit 3 "$KDET" capture --finish --out "$T/lost" --json "$T/l.json"
cp "$T/out" "$T/l.summary"
expect_eq "lost compiles" "$(json_eval "$T/l.json" '[(n["kind"], n["count"]) for n in d["notes"] if n["kind"] == "lost"]')" "[('lost', 2)]"
grep -Eq "LOST +2 nvvm compiles of process [0-9]+ could not be recorded: its record log cannot be created" "$T/l.summary" || { cat "$T/l.summary"; fail "the lost compiles are not in the summary"; }
# 5. No descriptor free at all: the compile is counted as lost in the page the process
#    mapped when it first recorded (no descriptor is needed for that).
mkdir "$T/ex" "$T/explain"
: "$("$H" "$FAKE" "$IN" "$T/explain" compile exhaust compile)"
expect_exit 0 "$KDET" capture --json "$T/e.json" -- "$H" "$FAKE" "$IN" "$T/ex" compile exhaust compile
cp "$T/out" "$T/e.summary"
[[ $(files_changed "$T/explain" "$T/ex") == 0 ]] || fail "exhaust: capture changed the pipeline's files"
expect_eq "exhaust: recorded" "$(json_eval "$T/e.json" 'len(d["compiles"])')" 2
expect_eq "exhaust: lost" "$(json_eval "$T/e.json" 'sum(n["count"] for n in d["notes"] if n["kind"] == "lost")')" 1
grep -Eq "LOST +1 compile of process [0-9]+ could not be recorded: no note could be written to say why \(no descriptor was free" "$T/e.summary" || { cat "$T/e.summary"; fail "exhaust: the lost compile is not in the summary"; }
# 6. --finish with a FIFO among the record logs and a blob pack gone: both named, no wait.
mkdir -p "$T/f/raw/records" "$T/f/raw/blobs" "$T/fout"
expect_exit 0 env LD_PRELOAD="$(dirname "$KDET")/libkdet_capture.so" KDET_CAPTURE_DIR="$T/f/raw" "$H" "$FAKE" "$IN" "$T/fout" compile
rm "$T"/f/raw/blobs/*.pack
mkfifo "$T/f/raw/records/planted.log"
expect_exit 0 timeout 60 "$KDET" capture --finish --out "$T/f" --json "$T/f.json"
expect_output "records/planted.log: not a regular file"
expect_output "bundle [0-9a-f]{16}: the bytes of 1 input and 1 output are in no blob pack"
expect_eq "--finish: the compile is still read" "$(json_eval "$T/f.json" 'len(d["compiles"])')" 1
echo "capture_hostile: PASS (pipeline files changed by capture: $changed of $nfiles)"
