# Sourced by the end-to-end tests: strict mode, a private temp folder, and
# small assertion helpers that print what they expected and what they got.
set -euo pipefail
: "${KDET:?KDET must name the kdet binary}"
: "${KDET_SOURCE_DIR:?KDET_SOURCE_DIR must name the source tree}"
KDET_FAKES_DIR=${KDET_FAKES_DIR:-}
EX=$KDET_SOURCE_DIR/examples
T=$(mktemp -d "${TMPDIR:-/tmp}/kdet-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap '[[ $- == *e* ]] && echo "FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# expect_exit CODE CMD...: runs CMD, captures stdout+stderr in $T/out, checks the exit code.
expect_exit() {
  local want=$1; shift
  set +e
  "$@" >"$T/out" 2>&1
  local got=$?
  set -e
  if [[ $got != "$want" ]]; then
    cat "$T/out" >&2
    fail "expected exit $want, got $got: $*"
  fi
}

# expect_output PATTERN: the last command's output matches the extended regex.
expect_output() {
  grep -Eq -- "$1" "$T/out" || { cat "$T/out" >&2; fail "output does not match /$1/"; }
}

have_cuda() { [[ -x /usr/local/cuda/bin/ptxas ]] && ls /usr/local/cuda/lib64/libnvvm.so* >/dev/null 2>&1; }

# jq-free JSON field check through python3 (on every machine of this kind).
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$1" "$2"; }
# json_eval FILE EXPR: any Python expression over the document `d`.
json_eval() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
