#!/usr/bin/env bash
# tier: quick
# python_stage_failures.sh: a Python stage that raises is a failed run with its traceback's last
# line; one that hangs is timed out; one that crashes the interpreter is a crash with its signal;
# a FILE or FUNCTION that cannot be imported, and a bad --py or --python, are usage errors
# (exit 2) naming what failed, before any run.
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
[[ -x $PY ]] || skip "/usr/bin/python3 is not installed"
D=$KDET_SOURCE_DIR/tests/data/python_stages
W=$D/words.txt

expect_exit 3 "$KDET" run "$W" --py "$D/raises.py:compile" --python "$PY" -n 4 --json "$T/r.json"
expect_output 'ValueError: bad kernel: 84 bytes'
[[ $(json_eval "$T/r.json" 'd["variants"][0]["status"]') == compile-error ]] || fail "status of a raise"

expect_exit 3 "$KDET" run "$W" --py "$D/hangs.py:compile" --python "$PY" --process same --timeout 1 -n 2 \
  --unnamed natural --json "$T/h.json"
[[ $(json_eval "$T/h.json" 'd["variants"][0]["status"]') == timed-out ]] || fail "status of a hang"
wait_no_pids 10 hangs.py || fail "a hung interpreter outlived kdet: $(test_pids hangs.py)"

expect_exit 3 "$KDET" run "$W" --py "$D/crashes.py:compile" --python "$PY" --process same -n 2 \
  --unnamed natural --json "$T/c.json"
[[ $(json_eval "$T/c.json" 'd["variants"][0]["status"]') == crashed ]] || fail "status of a crash"
[[ $(json_eval "$T/c.json" 'd["variants"][0]["detail"]') == *"signal 11 (SIGSEGV)"* ]] || fail "signal of a crash"
# Python's fault handler wrote the stage's stack into the log.
[[ $(json_eval "$T/c.json" 'd["records"][0]["log"]') == *"Fatal Python error: Segmentation fault"* ]] ||
  fail "no Python stack in the crashed run's log"

expect_exit 2 "$KDET" run "$W" --py "$D/bad_import.py:compile" --python "$PY" -n 2
expect_output "cannot import .*bad_import\.py: ModuleNotFoundError: No module named 'kdet_no_such_module'"
expect_exit 2 "$KDET" run "$W" --py "$D/raises.py:no_such_function" --python "$PY" -n 2
expect_output "raises\.py has no function 'no_such_function'"
expect_exit 2 "$KDET" run "$W" --py "$D/missing.py:compile" --python "$PY" -n 2
expect_output "--py .*missing\.py:compile: file .*missing\.py: No such file or directory"
expect_exit 2 "$KDET" run "$W" --py "$D/raises.py" -n 2
expect_output "--py .*: expected FILE\.py:FUNCTION"
expect_exit 2 "$KDET" run "$W" --py "$D/raises.py:compile" --python kdet-no-such-python -n 2
expect_output "--python kdet-no-such-python: interpreter 'kdet-no-such-python' not found in PATH"
expect_exit 2 "$KDET" run "$W" --py "$D/raises.py:compile" --lib /dev/null -n 2
expect_output "--lib is not for a Python stage"
echo "ok: python stage failures"
