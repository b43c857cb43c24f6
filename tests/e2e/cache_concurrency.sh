#!/usr/bin/env bash
# tier: slow threads
# cache_concurrency.sh: 8 `kdet cc` processes fill one cache at once, and
# processes killed with SIGKILL mid-write leave no half entry.
#  1. 8 writers x 4 inputs (deterministic fake_cc echo): 4 keys, 1 variant each, all hits after.
#  2. 8 writers of one input with fake_cc pid (each compile a new variant), all past their miss
#     before any compiles: all 8 variants kept.
#  3. 12 rounds: a 51 MiB artifact, the writer killed -9 at a random moment or as its store begins; afterwards every
#     lookup is a clean hit or a clean miss (never a damaged entry), output byte-identical.
# Env: KDET, KDET_FAKES_DIR. Exit 0 pass, 1 fail, 77 skipped (fake_cc absent).
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
fake=$FAKES/fake_cc

stats() { "$KDET" cache stats --dir "$1" --json -; }

# 1. Same keys from 8 processes at once.
for k in 1 2 3 4; do for i in $(seq 1 50); do echo "input $k line $i"; done >"$T/in$k.txt"; done
pids=()
for w in $(seq 1 8); do
  ( for k in 1 2 3 4; do
      "$KDET" cc "$T/in$k.txt" --dir "$T/c1" -q --verify-rate 1 -o "$T/w$w.$k.out" -- "$fake" echo {input} {output}
    done ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
stats "$T/c1" | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["keys"] == 4 and s["variants"] == 4 and s["keys_with_variants"] == 0 and s["damaged"] == 0, s'
for w in $(seq 1 8); do for k in 1 2 3 4; do cmp "$T/w1.$k.out" "$T/w$w.$k.out"; done; done
"$KDET" cache report --dir "$T/c1" >/dev/null

# 2. Eight different variants of one key written at once: none lost, each logged once.
# A writer that looks the key up after another has stored it gets a hit and stores nothing,
# so the compiler is gated: each writer reaches it only after its lookup missed, and none
# compiles (then stores) before all 8 have arrived. Ungated, a writer started late on a busy
# machine hit the first stored variant (7 variants, not 8).
mkdir "$T/gate"
cat >"$T/gated_cc" <<SH
#!/usr/bin/env bash
[[ \$1 == pid ]] || exec "$fake" "\$@"   # the --version probe: not a compile
mkdir "$T/gate/\$\$"
for ((i = 0; i < 12000; i++)); do
  n=("$T"/gate/*)
  ((\${#n[@]} >= 8)) && break
  sleep 0.005
done
exec "$fake" "\$@"
SH
chmod +x "$T/gated_cc"
pids=()
for w in $(seq 1 8); do
  "$KDET" cc "$T/in1.txt" --dir "$T/c2" -q -o "$T/p$w.out" -- "$T/gated_cc" pid {input} {output} 2>/dev/null &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
stats "$T/c2" | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["counters"]["miss"] == 8, s
assert s["keys"] == 1 and s["variants"] == 8 and s["damaged"] == 0, s'
log=$(ls "$T"/c2/v1/entries/*/*/log)
[[ $(grep -c '"event":"variant"' "$log") == 8 ]]
rc=0; "$KDET" cache report --dir "$T/c2" >/dev/null || rc=$?
[[ $rc == 1 ]]

# 3. kill -9 during writes of a large artifact.
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1500000): f.write("mov.u32 %%r%d, %d;\n" % (i, i * 7))' "$T/big.txt"
"$fake" echo "$T/big.txt" "$T/big.expected"
mid_write=0
for round in $(seq 1 12); do
  rm -rf "$T/c3"
  setsid "$KDET" cc "$T/big.txt" --dir "$T/c3" -q -o "$T/ignored.out" -- "$fake" echo {input} {output} &
  pid=$!
  if ((round % 2)); then
    sleep "$((RANDOM % 2)).$((RANDOM % 10))$((RANDOM % 10))"   # anywhere in the ~1.6 s miss
  else
    # Wait for the staging folder to appear (the store has begun), then kill.
    for _ in $(seq 1 400); do [[ -n $(ls -A "$T/c3/v1/tmp" 2>/dev/null) ]] && break; sleep 0.005; done
  fi
  kill -9 -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [[ -n $(ls -A "$T/c3/v1/tmp" 2>/dev/null) ]] && mid_write=$((mid_write + 1))
  # Whatever the moment, the cache holds the whole entry or none of it.
  "$KDET" cc "$T/big.txt" --dir "$T/c3" -q --verify-rate 0 -o "$T/after.out" --json "$T/after.json" \
    -- "$fake" echo {input} {output} 2>"$T/after.err"
  ! grep -q damaged "$T/after.err"
  cmp "$T/big.expected" "$T/after.out"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; assert r in ("hit","miss"), r' "$T/after.json"
  "$KDET" cache gc --dir "$T/c3" --max-size 1G --staging-age 0 >/dev/null
  [[ -z $(ls -A "$T/c3/v1/tmp") ]]
done
echo "cache_concurrency: $mid_write of 12 kills left a staging folder (killed mid-write)"
echo "cache_concurrency: PASS"
