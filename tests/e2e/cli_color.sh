#!/usr/bin/env bash
# tier: quick
# Colour on a terminal: `kdet run` on a pseudo-terminal colours its verdict, and NO_COLOR
# (no-color.org) or TERM=dumb take every colour escape away; --color always brings it back.
source "$(dirname "$0")/lib/common.bash"

python3 -c 'import pty, os; os.openpty()' 2>/dev/null || skip "no pseudo-terminal here (python3 pty.openpty failed)"
printf 'kernel text\n' >"$T/k.txt"

# on_pty OUTFILE ENV... -- ARGS...: runs kdet with stdout and stderr on a fresh pseudo-terminal,
# with ENV added to the environment, and keeps every byte it wrote in OUTFILE; prints its exit code.
on_pty() {
  python3 - "$KDET" "$@" <<'PY'
import os, pty, subprocess, sys
kdet, out = sys.argv[1], sys.argv[2]
rest = sys.argv[3:]
sep = rest.index("--")
env = dict(os.environ)
env.pop("NO_COLOR", None)
env["TERM"] = "xterm"
for kv in rest[:sep]:
    k, v = kv.split("=", 1)
    env[k] = v
master, slave = pty.openpty()
p = subprocess.Popen([kdet] + rest[sep + 1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: every writer closed the terminal
        break
    if not chunk:
        break
    data += chunk
open(out, "wb").write(data)
print(p.wait())
PY
}

run_args=(run "$T/k.txt" --backend exec --cmd 'cat {input}' --runs 3)
sgr=$'\033\\[[0-9;]*m' # a colour (SGR) escape

# Without NO_COLOR the verdict is coloured: otherwise the checks below could not fail.
rc=$(on_pty "$T/plain" -- "${run_args[@]}")
[[ $rc == 0 ]] || { cat -v "$T/plain" >&2; fail "kdet run exited $rc on a terminal"; }
grep -q 'NO VARIANCE SEEN' "$T/plain" || { cat -v "$T/plain" >&2; fail "no verdict on the terminal"; }
grep -Eq "$sgr" "$T/plain" || { cat -v "$T/plain" >&2; fail "no colour on a terminal without NO_COLOR"; }

# NO_COLOR=1: the same report, not one colour escape.
rc=$(on_pty "$T/nocolor" NO_COLOR=1 -- "${run_args[@]}")
[[ $rc == 0 ]] || fail "kdet run exited $rc with NO_COLOR=1"
grep -q 'NO VARIANCE SEEN' "$T/nocolor" || { cat -v "$T/nocolor" >&2; fail "no verdict with NO_COLOR=1"; }
if grep -Eq "$sgr" "$T/nocolor"; then cat -v "$T/nocolor" >&2; fail "NO_COLOR=1 left colour escapes"; fi

# An empty NO_COLOR does not count (no-color.org): colour stays.
on_pty "$T/empty" NO_COLOR= -- "${run_args[@]}" >/dev/null
grep -Eq "$sgr" "$T/empty" || { cat -v "$T/empty" >&2; fail "an empty NO_COLOR turned colour off"; }

# --color always wins over NO_COLOR.
on_pty "$T/always" NO_COLOR=1 -- "${run_args[@]}" --color always >/dev/null
grep -Eq "$sgr" "$T/always" || { cat -v "$T/always" >&2; fail "--color always lost to NO_COLOR"; }

# TERM=dumb: no escape of any kind, neither colour nor the progress line's erase.
on_pty "$T/dumb" TERM=dumb -- "${run_args[@]}" >/dev/null
grep -q 'NO VARIANCE SEEN' "$T/dumb" || { cat -v "$T/dumb" >&2; fail "no verdict with TERM=dumb"; }
if grep -q $'\033' "$T/dumb"; then cat -v "$T/dumb" >&2; fail "TERM=dumb got escape codes"; fi

# --json - moves the text to stderr; NO_COLOR still holds there, and stdout's JSON is plain.
on_pty "$T/json" NO_COLOR=1 -- "${run_args[@]}" --json - >/dev/null
grep -q '"schema": "kdet.run/1"' "$T/json" || { cat -v "$T/json" >&2; fail "no JSON on the terminal"; }
if grep -Eq "$sgr" "$T/json"; then cat -v "$T/json" >&2; fail "NO_COLOR=1 with --json - left colour escapes"; fi

# --help of --color documents NO_COLOR.
"$KDET" run --help >"$T/help"
grep -q 'NO_COLOR' "$T/help" || fail "kdet run --help does not mention NO_COLOR"
echo "ok: cli colour"
