# Sourced (after common.bash) by the tests of `kdet scan`: manifests built on
# the fake libNVVM, and a scan stopped by a signal once it has stored N runs.

# nvvm_compiler NAME [MODE] [LIB]: a [[compiler]] table on the fake libNVVM
# (or LIB) in -fake-mode=MODE (echo, the fake's default, when MODE is empty).
nvvm_compiler() {
  printf '[[compiler]]\nname = "%s"\nbackend = "nvvm"\nlib = "%s"\n' "$1" "${3:-$FAKES/libfakenvvm.so}"
  [[ -z ${2:-} ]] || printf 'options = ["-fake-mode=%s"]\n' "$2"
}

# resume_manifest NAME SEED MAX_RUNS: a manifest of the llvm7 examples at -opt=0
# and -opt=3 on the fake libNVVM, first round 40 runs, long enough to be stopped.
resume_manifest() {
  printf 'name = "%s"\ninputs = ["%s/nvvm/llvm7/*.ll"]\n' "$1" "$EX"
  printf '[option_sets]\nO0 = ["-opt=0"]\nO3 = ["-opt=3"]\n'
  nvvm_compiler fake
  printf '[setting]\nseed = %s\n[budget]\nmax_runs = %s\nfirst_round = 40\n' "$2" "$3"
}

# stop_scan_at PID DB N SIG [POLL]: once the scan PID has stored N runs in DB (or
# has ended), sends it SIG and waits for it; its exit status is left in $rc.
stop_scan_at() {
  local pid=$1 db=$2 at=$3 sig=$4 poll=${5:-0.05} n i
  for ((i = 0; i < 600; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    n=$(sql "$db" "select count(*) from runs" 2>/dev/null || echo 0)
    ((n >= at)) && break
    sleep "$poll"
  done
  kill -"$sig" "$pid" 2>/dev/null || true
  wait "$pid" && rc=0 || rc=$?
}

# scan_runs DB: every run of DB as "job|index|seed|variant|status", sorted.
scan_runs() { sql "$1" "select job_id, idx, seed, variant, status from runs" | LC_ALL=C sort; }
