#!/usr/bin/env bash
# tier: quick
# Reading a scan database leaves nothing beside it: `kdet scan --report`, `kdet compare`, the
# inputs of `kdet merge` and `kdet impact --db` remove the -wal and -shm their read-only opens
# made (they left both, and a new scan at that name, once the database was moved away, refused
# them as another database's). The -wal and -shm of a scan that writes the database, or of one
# killed, are its own and stay.
source "$(dirname "$0")/lib/common.bash"
mkdir "$T/tmp"
export TMPDIR=$T/tmp
cd "$T"
cp "$EX/nvvm/llvm7/saxpy.ll" .
# Copies its input; hangs (as long as ./hang exists) after saying it has started.
cat >cc.sh <<SH
#!/bin/sh
if [ "\$1" = "--version" ]; then echo "cc 1.0"; exit 0; fi
if [ -e "$T/hang" ]; then : >"$T/started"; exec sleep 1000; fi
cp "\$1" "\$2"
SH
chmod +x cc.sh
{ echo 'inputs = ["saxpy.ll"]'
  printf '[[compiler]]\nname = "cc"\nbackend = "exec"\ncommand = "%s {input} {output}"\noutput_ext = "ptx"\n' "$T/cc.sh"
  printf '[setting]\nunnamed = "natural"\n[budget]\nmax_runs = 4\ntimeout = 60\n'; } >m.toml

# nothing_beside DB WHAT: neither DB-wal nor DB-shm is there.
nothing_beside() {
  [[ ! -e $1-wal && ! -e $1-shm ]] || fail "$2 left $(ls "$1"-* | tr '\n' ' ')beside $1"
}

expect_exit 0 "$KDET" scan m.toml --db a.db -q
nothing_beside a.db "the scan"
cp a.db b.db
expect_exit 0 "$KDET" scan --report a.db -q
nothing_beside a.db "kdet scan --report"
expect_exit 0 "$KDET" scan --report a.db --json r.json --junit r.xml --report-html r.html
nothing_beside a.db "kdet scan --report with every report"
expect_exit 0 "$KDET" compare a.db b.db
nothing_beside a.db "kdet compare (A)"
nothing_beside b.db "kdet compare (B)"
expect_exit 0 "$KDET" merge all.db a.db b.db -q
nothing_beside a.db "kdet merge (an input)"
nothing_beside b.db "kdet merge (an input)"
nothing_beside all.db "kdet merge (its output)"
expect_exit 2 "$KDET" impact --db a.db --job nosuchjob
nothing_beside a.db "kdet impact --db"
# The database moved away after a report: a new scan at its name is not refused.
mv a.db moved.db
expect_exit 0 "$KDET" scan m.toml --db a.db -q
expect_exit 0 "$KDET" scan --report moved.db -q
nothing_beside moved.db "kdet scan --report of a moved database"

# A scan that writes the database keeps its -wal and -shm through a report, and so does one
# killed (its -wal may hold its last runs).
: >hang
"$KDET" scan m.toml --db c.db -q >c.out 2>&1 &
pid=$!
for ((i = 0; i < 600; i++)); do [[ -e started ]] && break; sleep 0.05; done
[[ -e started ]] || { cat c.out >&2; fail "the scan's compile did not start within 30 s"; }
[[ -e c.db-wal && -e c.db-shm ]] || fail "no -wal and -shm beside a database a scan writes"
expect_exit 0 "$KDET" scan --report c.db -q
[[ -e c.db-wal && -e c.db-shm ]] || fail "kdet scan --report removed a running scan's -wal or -shm"
"$KDET" compare c.db c.db >compare.out 2>&1 || true # its exit says the job is unfinished
[[ -e c.db-wal && -e c.db-shm ]] || fail "kdet compare removed a running scan's -wal or -shm"
kill -KILL $pid
set +e; wait $pid; set -e
for p in $(test_pids "sleep 1000"); do kill "$p" 2>/dev/null || true; done
wait_no_pids 5 || fail "the killed scan's compiler could not be stopped: $(test_pids)"
expect_exit 0 "$KDET" scan --report c.db -q
[[ -e c.db-wal && -e c.db-shm ]] || fail "kdet scan --report removed a killed scan's -wal or -shm"
rm hang
expect_exit 0 "$KDET" scan m.toml --db c.db -q
nothing_beside c.db "the resumed scan"
echo "$NAME: ok"
