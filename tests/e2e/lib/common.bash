# Sourced by every end-to-end test: strict mode, a private temp folder (kept
# when the test fails, so that its files can be read), a marker that scopes
# process checks to this test, and small assertion helpers that print what
# they expected and what they got.
set -euo pipefail
: "${KDET:?KDET must name the kdet binary}"
: "${KDET_SOURCE_DIR:?KDET_SOURCE_DIR must name the source tree}"
KDET_FAKES_DIR=${KDET_FAKES_DIR:-}
NAME=$(basename "$0" .sh)
EX=$KDET_SOURCE_DIR/examples
T=$(mktemp -d "${TMPDIR:-/tmp}/kdet-e2e-$NAME.XXXXXX")

# Everything this test starts inherits the marker (kdet passes its environment
# on to workers and compilers), so test_pids sees this test's processes alone,
# never those of another test running at the same time.
export KDET_E2E_MARK="$NAME-$$-${RANDOM}${RANDOM}"

# on_exit CMD: run CMD (a string, eval'd) when the test ends, before the temp
# folder goes; for what must be undone first (a mount, an immutable flag, a daemon).
E2E_CLEANUPS=()
on_exit() { E2E_CLEANUPS+=("$1"); }
e2e_finish() {
  local rc=$? c
  for c in "${E2E_CLEANUPS[@]}"; do eval "$c" || true; done
  if ((rc == 0 || rc == 77)) || [[ -n ${KDET_E2E_CLEAN:-} ]]; then
    rm -rf "$T"
  else
    echo "$NAME: exit $rc; its temp folder is kept: $T" >&2
  fi
}
trap e2e_finish EXIT
trap '[[ $- == *e* ]] && echo "$NAME: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR

fail() { echo "$NAME: FAIL: $*" >&2; exit 1; }
skip() { echo "$NAME: SKIP: $*"; exit 77; }

# need_fakes FILE...: skip the test unless each fake (tests/fakes/) is built;
# then $FAKES is their folder, as an absolute path.
need_fakes() {
  local f
  for f in "$@"; do
    [[ -n $KDET_FAKES_DIR && -e $KDET_FAKES_DIR/$f ]] || skip "fake $f not built in '$KDET_FAKES_DIR'"
  done
  FAKES=$(realpath "$KDET_FAKES_DIR")
}
# need_cmd PROGRAM WHY: skip the test when PROGRAM is absent.
need_cmd() { command -v "$1" >/dev/null || skip "$1 ($2) not installed"; }

# expect_exit CODE CMD...: runs CMD, captures stdout+stderr in $T/out, checks the exit code.
expect_exit() {
  local want=$1
  shift
  set +e
  "$@" >"$T/out" 2>&1
  local got=$?
  set -e
  if [[ $got != "$want" ]]; then
    cat "$T/out" >&2
    fail "expected exit $want, got $got: $*"
  fi
}

# expect_rc CODE CMD...: as expect_exit, with stdout in $T/out and stderr apart in $T/err.
expect_rc() {
  local want=$1
  shift
  set +e
  "$@" >"$T/out" 2>"$T/err"
  local got=$?
  set -e
  if [[ $got != "$want" ]]; then
    cat "$T/out" "$T/err" >&2
    fail "expected exit $want, got $got: $*"
  fi
}

# expect_output PATTERN: the last command's output matches the extended regex.
expect_output() {
  grep -Eq -- "$1" "$T/out" || {
    cat "$T/out" >&2
    fail "output does not match /$1/"
  }
}

# expect_eq WHAT GOT WANT: GOT equals WANT, or fail naming WHAT.
expect_eq() { [[ $2 == "$3" ]] || fail "$1: got '$2', want '$3'"; }

# True unless kdet was built with ASan or TSan: their allocators keep the heap at a fixed
# address, so in a sanitized worker ASLR no longer moves the heap blocks of a library fake.
heap_follows_aslr() { [[ ${KDET_SANITIZER:-} != *ASan* && ${KDET_SANITIZER:-} != *TSan* ]]; }
have_cuda() { [[ -x /usr/local/cuda/bin/ptxas ]] && ls /usr/local/cuda/lib64/libnvvm.so* >/dev/null 2>&1; }

# jq-free JSON field check through python3 (on every machine of this kind).
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d"+sys.argv[2]))' "$1" "$2"; }
# json_eval FILE EXPR: any Python expression over the document `d`.
json_eval() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# unpack_bundles DIR [ID]: writes the bundle folders DIR/bundles/ID/... (and DIR/build-K/bundles/ID
# under --builds) from the packed bundles (bundles/index, its pack), as --bundle-layout folders
# would have (only bundle ID, if given): for tests that read a bundle's files themselves.
unpack_bundles() {
  python3 - "$1" "${2:-}" <<'PY'
import glob, os, sys
for index in glob.glob(sys.argv[1] + "/bundles/index") + glob.glob(sys.argv[1] + "/build-*/bundles/index"):
    top = os.path.dirname(index)
    lines = open(index).read().splitlines()
    assert lines[0] == "kdet-bundle-index 1", index
    for line in lines[1:]:
        bid, rel, pack, off, size, _ = line.split(" ")
        if sys.argv[2] and bid != sys.argv[2]:
            continue
        with open(os.path.join(top, pack), "rb") as f:
            f.seek(int(off)); data = f.read(int(size))
        assert len(data) == int(size), (index, line)
        os.makedirs(os.path.dirname(os.path.join(top, bid, rel)), exist_ok=True)
        with open(os.path.join(top, bid, rel), "wb") as f:
            f.write(data)
PY
}
# sql DB QUERY: the rows of QUERY on the SQLite database DB, one a line, fields joined by |.
sql() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print("|".join(map(str,r))) for r in c.execute(sys.argv[2])]' "$1" "$2"; }

# flock_held FILE: whether some process holds an flock on FILE, read from /proc/locks. Taking the
# lock to see (flock -n FILE true) would hold it for a moment, and a kdet locking the file
# without waiting would find it in use then.
flock_held() {
  local ino
  ino=$(stat -L -c %i "$1" 2>/dev/null) || return 1
  grep -Eq "^[0-9]+: FLOCK +ADVISORY +WRITE +[0-9]+ [0-9a-f]+:[0-9a-f]+:$ino " /proc/locks
}

# test_pids [FILTER]: the live processes this test started: those whose environment
# carries its marker, and those whose command line holds $KDET_E2E_MARK (for a
# compiler run with a cleaned environment, e.g. `kdet exec --fix all`, put the
# marker in its argv). With FILTER, only those whose command line holds FILTER.
# Call it alone, not in a pipeline: the pipeline's other commands carry the marker too.
test_pids() {
  local p argv env cmd envs
  for p in /proc/[0-9]*; do
    [[ ${p#/proc/} == "$BASHPID" ]] && continue
    mapfile -d "" -t argv 2>/dev/null <"$p/cmdline" || continue
    printf -v cmd ' %s' "${argv[@]}"
    if [[ $cmd != *"$KDET_E2E_MARK"* ]]; then
      mapfile -d "" -t env 2>/dev/null <"$p/environ" || continue
      printf -v envs '\n%s' "${env[@]}"
      [[ $envs$'\n' == *$'\n'"KDET_E2E_MARK=$KDET_E2E_MARK"$'\n'* ]] || continue
    fi
    [[ -z ${1:-} || $cmd == *"$1"* ]] || continue
    echo "${p#/proc/}"
  done
  return 0
}

# wait_no_pids SECONDS [PATTERN]: wait until test_pids is empty; false if it never is.
wait_no_pids() {
  local i
  for ((i = 0; i < $1 * 10; i++)); do
    [[ -z $(test_pids "${2:-}") ]] && return 0
    sleep 0.1
  done
  [[ -z $(test_pids "${2:-}") ]]
}

# inductor_kernel: a real Inductor kernel's PTX (tests/data/inductor) as $T/k.ptx, its .file
# directives naming the two sources in $T/src ($SRC is the first's name; standard.py stands in
# for Triton's, by its size), both dated 1700000000. Sets SRC and CMD (ptxas as Triton runs it).
inductor_kernel() {
  local d=$KDET_SOURCE_DIR/tests/data/inductor
  SRC=cq32kd57vrsxmrwaa645pa4b7jm44xtgz6nn4kcpuoswza2xire3.py
  mkdir -p "$T/src"
  sed "s|@DIR@|$T/src|g" "$d/triton_per_fused_softmax.ptx" >"$T/k.ptx"
  cp "$d/$SRC" "$T/src/$SRC"
  head -c 16041 /dev/zero | tr '\0' '#' >"$T/src/standard.py"
  touch -d @1700000000 "$T/src/$SRC" "$T/src/standard.py"
  CMD=(--cmd "/usr/local/cuda/bin/ptxas -lineinfo -v --gpu-name=sm_90a {input} -o {output}" --output-ext cubin)
}
