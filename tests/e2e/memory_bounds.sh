#!/usr/bin/env bash
# tier: slow
# Bounded memory: a compiler's output is streamed to disk and hashed while read,
# capped by --max-output, and read only when it is a regular file; kdet diff
# refuses devices and summarises inputs past --max-size. Peak RSS (of kdet and
# every process it waited for, from /usr/bin/time) must not grow with output size.
source "$(dirname "$0")/lib/common.bash"
[[ -x /usr/bin/time ]] || skip "/usr/bin/time not installed (apt-get install time)"
GEN=$KDET_SOURCE_DIR/bench/memory_inputs.py
avail_mb=$(df -Pm "$T" | awk 'NR==2 {print $4}')
(( avail_mb > 2500 )) || skip "needs 2.5 GB free in $T (has ${avail_mb} MB)"

# A "compiler" that writes SIZE MiB of text to its output.
cat >"$T/big.sh" <<SH
#!/bin/sh
python3 "$GEN" write "\$2" "\$1" || exit 1
[ "\$3" = vary ] && echo "\$\$" >>"\$1"
exit 0
SH
chmod +x "$T/big.sh"
echo "input" >"$T/in.txt"

peak_kb() { grep -E 'Maximum resident set size' "$1" | awk '{print $NF}'; }

# 300 MiB outputs: recorded whole (size and hash), kept in --out, with peak RSS far below the output size.
set +e
/usr/bin/time -v -o "$T/time300" "$KDET" run "$T/in.txt" --cmd "$T/big.sh {output} 300" -n 2 \
  --out "$T/out300" --json "$T/r300.json" >"$T/out" 2>&1
rc=$?
set -e
[[ $rc == 0 ]] || { cat "$T/out"; fail "300 MiB outputs: exit $rc"; }
rss=$(peak_kb "$T/time300")
echo "peak RSS with 300 MiB outputs: $rss KiB"
(( rss < 200 * 1024 )) || fail "peak RSS $rss KiB with 300 MiB outputs (bound: 200 MiB)"
[[ $(json_get "$T/r300.json" '["variants"][0]["artifacts"][0]["size"]') == $((300 << 20)) ]] || fail "artifact size"
kept=$(echo "$T"/out300/variants/*/output)
[[ $(stat -c %s "$kept") == $((300 << 20)) ]] || fail "--out variant file size"
python3 "$GEN" write 300 "$T/expected"
cmp -s "$kept" "$T/expected" || fail "--out variant file content"
rm -f "$T/expected" "$kept"

# Two large variants: told apart by hash and size, their difference summarised, memory still bounded.
set +e
/usr/bin/time -v -o "$T/timevary" "$KDET" run "$T/in.txt" --cmd "$T/big.sh {output} 100 vary" -n 2 \
  --json "$T/vary.json" >"$T/out" 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || { cat "$T/out"; fail "two 100 MiB variants: exit $rc"; }
json_get "$T/vary.json" '["variants"][1]["difference"]' | grep -q 'too large for a detailed comparison' ||
  fail "difference of large variants"
(( $(peak_kb "$T/timevary") < 200 * 1024 )) || fail "two 100 MiB variants: peak RSS $(peak_kb "$T/timevary") KiB"

# --max-output: a larger output is the outcome output-too-large, recorded like any failure.
expect_exit 3 "$KDET" run "$T/in.txt" --cmd "$T/big.sh {output} 20" -n 2 --max-output 10M --json "$T/big.json"
expect_output 'output-too-large'
[[ $(json_get "$T/big.json" '["variants"][0]["status"]') == output-too-large ]] || fail "status output-too-large"
json_get "$T/big.json" '["variants"][0]["detail"]' | grep -q 'larger than --max-output (10.0 MiB' || fail "detail"
expect_exit 0 "$KDET" run "$T/in.txt" --cmd "$T/big.sh {output} 20" -n 1 --max-output 20M
# stdout as the artifact (no {output} in the template) has the same cap.
cat >"$T/out.sh" <<'SH'
#!/bin/sh
exec python3 -c 'import sys; sys.stdout.buffer.write(b"x" * (int(sys.argv[1]) << 20))' "$1"
SH
chmod +x "$T/out.sh"
expect_exit 3 "$KDET" run "$T/in.txt" --cmd "$T/out.sh 3" -n 1 --max-output 2M
expect_output 'stdout is larger than 2.0 MiB \(--max-output\)'
expect_exit 0 "$KDET" run "$T/in.txt" --cmd "$T/out.sh 2" -n 1 --max-output 2M --json "$T/so.json"
[[ $(json_get "$T/so.json" '["variants"][0]["artifacts"][0]["size"]') == $((2 << 20)) ]] || fail "stdout size"

# The same cap for cache compile: a failed compile (exit 3), nothing stored.
expect_exit 3 "$KDET" cache compile "$T/in.txt" --cmd "$T/big.sh {output} 20" --max-output 10M --dir "$T/cache"
expect_output 'larger than --max-output'
expect_exit 0 "$KDET" cache compile "$T/in.txt" --cmd "$T/big.sh {output} 2" --max-output 10M --dir "$T/cache" -o "$T/c.out"
[[ $(stat -c %s "$T/c.out") == $((2 << 20)) ]] || fail "cache compile output"
for bad in 0 -1 10X 99999999999999999999 18014398509481984T; do
  expect_exit 2 "$KDET" run "$T/in.txt" --cmd "$T/big.sh {output} 1" -n 1 --max-output "$bad"
  expect_output "--max-output"
done

# An {output} that is not a regular file is an outcome, never an endless read: a link to a
# private /dev/zero, a FIFO, a folder. (Private nodes: tests never aim at system paths.)
mknod "$T/zero" c 1 5 2>/dev/null || skip "mknod not permitted"
cat >"$T/link.sh" <<SH
#!/bin/sh
case "\$2" in
  zero) ln -s "$T/zero" "\$1" ;;
  fifo) mkfifo "\$1" ;;
  dir) mkdir "\$1" ;;
esac
SH
chmod +x "$T/link.sh"
for kind in zero fifo dir; do
  start=$(date +%s)
  expect_exit 3 timeout 60 "$KDET" run "$T/in.txt" --cmd "$T/link.sh {output} $kind" -n 2 --timeout 20 --json "$T/$kind.json"
  (( $(date +%s) - start < 30 )) || fail "$kind output: took too long"
  json_get "$T/$kind.json" '["variants"][0]["detail"]' | grep -q 'not a regular file' || fail "$kind: detail"
done

# kdet diff: devices and FIFOs are refused with exit 2 naming them; inputs past --max-size are
# compared by hash and size only, in bounded memory.
expect_exit 2 timeout 30 "$KDET" diff "$T/zero" "$T/in.txt"
expect_output "$T/zero: is a character device; kdet diff compares regular files"
mkfifo "$T/fifo"
expect_exit 2 timeout 30 "$KDET" diff "$T/in.txt" "$T/fifo"
expect_output 'is a FIFO'
python3 "$GEN" write 80 "$T/d1"
cp "$T/d1" "$T/d2"
expect_exit 0 "$KDET" diff "$T/d1" "$T/d2"
expect_output 'identical'
echo "one more line" >>"$T/d2"
set +e
/usr/bin/time -v -o "$T/timediff" "$KDET" diff "$T/d1" "$T/d2" --json "$T/d.json" >"$T/out" 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || { cat "$T/out"; fail "diff of 80 MiB inputs: exit $rc"; }
expect_output 'too large for a detailed comparison'
[[ $(json_get "$T/d.json" '["summary_only"]') == True ]] || fail "summary_only"
(( $(peak_kb "$T/timediff") < 64 * 1024 )) || fail "diff of 80 MiB inputs: peak RSS $(peak_kb "$T/timediff") KiB"
expect_exit 1 "$KDET" diff "$T/d1" "$T/d2" --max-size 100M
expect_output 'text differs: 1 hunk, \+1 -0 lines'
expect_exit 2 "$KDET" diff "$T/d1" "$T/d2" --max-size 0
expect_output '--max-size'

# A shuffled PTX diff stays bounded (line diff with capped work and output).
python3 "$GEN" ptx 5 1 "$T/a.ptx" "$T/b.ptx"
set +e
/usr/bin/time -v -o "$T/timeptx" "$KDET" diff "$T/a.ptx" "$T/b.ptx" >"$T/out" 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || { cat "$T/out"; fail "shuffled PTX: exit $rc"; }
expect_output 'differ by instruction order'
echo "peak RSS of a 5 MB shuffled PTX diff: $(peak_kb "$T/timeptx") KiB"
(( $(peak_kb "$T/timeptx") < 400 * 1024 )) || fail "shuffled PTX diff: peak RSS $(peak_kb "$T/timeptx") KiB"
echo "OK"
