#!/usr/bin/env bash
# tier: quick
# kdet capture of command compiles named with --exec: a nondeterministic program
# run twice on one input is caught in the run itself (exit 1, its bundle named);
# a failing and a signal-killed program keep their status, seen by the pipeline
# and recorded; a program not listed is not recorded; bad --exec names exit 2.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
need_cmd python3 "runs the pipelines"
mkdir -p "$T/bin" "$T/w"
export PATH=$T/bin:$PATH
printf 'line one\nline two\n' >"$T/w/in.txt"
# randcc -o OUT IN: random bytes to OUT (a compiler that is not deterministic).
cat >"$T/bin/randcc" <<'SH'
#!/bin/sh
[ "$1" = -o ] || exit 2
head -c 64 /dev/urandom >"$2"
SH
chmod +x "$T/bin/randcc"
cp "$FAKES/fake_cc" "$T/bin/fake_cc"

# Same input, same options, two output paths: one bundle, two outputs, exit 1.
cd "$T/w"
expect_exit 1 "$KDET" capture --exec randcc --out "$T/r" --json "$T/r.json" -- sh -c 'randcc -o a.bin in.txt && randcc -o b.bin in.txt'
expect_eq "one bundle" "$(json_eval "$T/r.json" 'len(d["bundles"]), d["bundles"][0]["compiles"], d["bundles"][0]["nondeterministic"]')" "(1, 2, True)"
id=$(json_eval "$T/r.json" 'd["bundles"][0]["id"]')
expect_output "NONDETERMINISTIC +bundle $id \(exec, 2 compiles, $T/bin/randcc\)"
unpack_bundles "$T/r"
for f in a.bin b.bin; do
  h=$(json_eval "$T/r.json" "[c['output'] for c in d['compiles'] if c['exec']['args'][1] == '$f'][0]")
  expect_output "bin $h x1"
  cmp "$T/r/bundles/$id/outputs/$h.bin" "$f" || fail "stored output differs from $f"
done
expect_eq "options" "$(json_eval "$T/r/bundles/$id/bundle.json" 'd["options"], d["kind"]')" "(['-o', '{output}', '{input}'], 'exec')"
cmp "$T/r/bundles/$id/inputs/00-in.txt" in.txt || fail "input not copied"
# A command bundle replays as an exec template with the captured program: randcc varies again.
expect_exit 1 "$KDET" run "$T/r/bundles/$id" -n 4
expect_output "bundle    $id replayed with $T/bin/randcc"
expect_exit 2 "$KDET" run "$T/r/bundles/$id" --cmd 'cat {input}'
expect_output 'brings its own'

# A failing compile (exit 1) and one killed by SIGSEGV: the pipeline sees the
# statuses it would see without capture; each is recorded.
cat >"$T/st.py" <<'PY'
import subprocess, sys
rcs = [subprocess.run(["fake_cc", m, "in.txt", m + ".out"], stderr=subprocess.DEVNULL).returncode
       for m in ("fail", "crash", "echo")]
print("statuses", rcs)
PY
python3 "$T/st.py" >"$T/plain"
expect_eq "statuses without capture" "$(cat "$T/plain")" "statuses [1, -11, 0]"
expect_exit 0 "$KDET" capture --exec fake_cc --json "$T/s.json" -- python3 "$T/st.py"
expect_output "statuses \[1, -11, 0\]"
expect_eq "recorded statuses" "$(json_eval "$T/s.json" '[(c["exec"]["args"][0], c["exec"]["status"], c["result"]) for c in d["compiles"]]')" \
  "[('fail', 'exited 1', 1), ('crash', 'signaled 11', 139), ('echo', 'exited 0', 0)]"
# The same through a shell, and as the pipeline itself (kdet starts the shim).
expect_exit 0 "$KDET" capture --exec fake_cc -- sh -c 'fake_cc fail in.txt x.out; echo "rc=$?"'
expect_output '^rc=1$'
expect_exit 3 "$KDET" capture --exec fake_cc --json "$T/k.json" -- fake_cc crash in.txt x.out
expect_output 'the pipeline was killed by signal 11'
expect_eq "pipeline status" "$(json_eval "$T/k.json" 'd["pipeline"]["exit_code"], d["compiles"][0]["exec"]["status"]')" "(139, 'signaled 11')"

# A statically linked program that ends with _exit(3), its output differing each
# run: seen (the shim records from outside the program), status 3 both times, varies.
cat >"$T/st.c" <<'C'
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc != 4 || strcmp(argv[1], "-o") != 0) _exit(2);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, &ts, sizeof ts) != sizeof ts) _exit(2);
  _exit(3);
}
C
if cc -static -o "$T/bin/rand_static" "$T/st.c" 2>/dev/null; then
  expect_exit 1 "$KDET" capture --exec rand_static --json "$T/st.json" -- sh -c 'rand_static -o s1 in.txt; rand_static -o s2 in.txt; echo "rc=$?"'
  expect_output '^rc=3$'
  expect_eq "static program" "$(json_eval "$T/st.json" '[c["exec"]["status"] for c in d["compiles"]], d["bundles"][0]["nondeterministic"], len(d["bundles"][0]["outputs"])')" \
    "(['exited 3', 'exited 3'], True, 2)"
else
  echo "$NAME: note: no static libc here (cc -static failed); the static program part is left out"
fi

# Transparent: argv[0] as given (bash's exec -a), stdin, stdout and stderr reach the program.
cat >"$T/show.c" <<'C'
#include <signal.h>
#include <stdio.h>
int main(int argc, char** argv) {
  char line[64] = "";
  struct sigaction hup;
  sigaction(SIGHUP, NULL, &hup);
  if (argc > 1 && argv[1][0] == 'h') return hup.sa_handler == SIG_IGN ? 40 : 41;
  if (!fgets(line, sizeof line, stdin)) return 5;
  printf("argv0=%s argc=%d stdin=%s", argv[0], argc, line);
  fprintf(stderr, "to stderr\n");
  return 0;
}
C
if cc -o "$T/bin/show_argv0" "$T/show.c" 2>/dev/null; then
  echo "from stdin" >"$T/w/stdin.txt"
  "$KDET" capture --exec show_argv0 --json "$T/a.json" -- bash -c 'exec -a custom-name show_argv0 x y' <"$T/w/stdin.txt" >"$T/a.out" 2>"$T/a.err" ||
    fail "show_argv0 under capture failed"
  expect_eq "stdout" "$(cat "$T/a.out")" "argv0=custom-name argc=3 stdin=from stdin"
  grep -qx "to stderr" "$T/a.err" || fail "stderr did not pass"
  expect_eq "recorded argv0" "$(json_eval "$T/a.json" 'd["compiles"][0]["exec"]["argv0"], d["compiles"][0]["exec"]["args"]')" "('custom-name', ['x', 'y'])"
  # A long command line (beyond the wrappers' stack array): 3000 arguments pass and are recorded.
  expect_exit 0 "$KDET" capture --exec show_argv0 --json "$T/long.json" -- python3 -c \
    'import subprocess; print(subprocess.run(["show_argv0"] + ["a"] * 3000, input=b"x\n", capture_output=True).stdout.decode())'
  expect_output '^argv0=show_argv0 argc=3001 stdin=x$'
  expect_eq "long argv recorded" "$(json_eval "$T/long.json" 'len(d["compiles"][0]["exec"]["args"])')" 3000
  # A signal the caller ignores stays ignored in the program (nohup).
  expect_exit 0 "$KDET" capture --exec show_argv0 -- sh -c "trap '' HUP; show_argv0 hup; echo rc=\$?"
  expect_output '^rc=40$'
fi

# A caller that ignores SIGCHLD: the shim still sees the program's status.
cat >"$T/chld.py" <<'PY'
import os, signal
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    os.execvp("fake_cc", ["fake_cc", "fail", "in.txt", "c.out"])
_, st = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(st))
PY
expect_exit 0 "$KDET" capture --exec fake_cc --json "$T/chld.json" -- python3 "$T/chld.py"
expect_output '^child 1$'
expect_eq "status with SIGCHLD ignored" "$(json_eval "$T/chld.json" 'd["compiles"][0]["exec"]["status"]')" "exited 1"

# Every way Python starts a program: fork+exec (subprocess), posix_spawn (subprocess
# with close_fds=False), posix_spawnp, system() (a shell), and execvp in a forked child.
# fake_cc's output is positional (no -o), so its path is an option: five bundles.
cat >"$T/ways.py" <<'PY'
import os, subprocess
fake = os.path.realpath(os.popen("command -v fake_cc").read().strip())
subprocess.run(["fake_cc", "echo", "in.txt", "w1.out"])
subprocess.run([fake, "echo", "in.txt", "w2.out"], close_fds=False)
os.waitpid(os.posix_spawnp("fake_cc", ["fake_cc", "echo", "in.txt", "w3.out"], os.environ), 0)
os.system("fake_cc echo in.txt w4.out")
pid = os.fork()
if pid == 0:
    os.execvp("fake_cc", ["fake_cc", "echo", "in.txt", "w5.out"])
os.waitpid(pid, 0)
PY
expect_exit 0 "$KDET" capture --exec fake_cc --json "$T/ways.json" -- python3 "$T/ways.py"
expect_eq "every way is seen" "$(json_eval "$T/ways.json" 'sorted(c["exec"]["args"][2] for c in d["compiles"]), len(d["bundles"])')" \
  "(['w1.out', 'w2.out', 'w3.out', 'w4.out', 'w5.out'], 5)"
for i in 1 2 3 4 5; do cmp w1.out w$i.out || fail "w$i.out differs"; done

# Not listed: fake_cc runs, nothing is recorded as a compile (so no compile captured: 3).
expect_exit 3 "$KDET" capture --json "$T/n.json" -- sh -c 'fake_cc echo in.txt n.out'
[[ -s n.out ]] || fail "the unlisted program did not run"
expect_eq "nothing recorded" "$(json_eval "$T/n.json" 'len(d["compiles"])')" 0
expect_output 'warning +no compile was captured'

# A program killed by its caller (a timeout) takes the real program along.
export KDET_E2E_MARK=$NAME-$$
cat >"$T/to.py" <<'PY'
import subprocess
try:
    subprocess.run(["fake_cc", "hang", "in.txt", "h.out"], timeout=1)
except subprocess.TimeoutExpired:
    print("timed out")
PY
expect_exit 0 "$KDET" capture --exec fake_cc --json "$T/t.json" -- python3 "$T/to.py"
expect_output '^timed out$'
wait_no_pids 5 "fake_cc hang" || fail "fake_cc hang outlived its shim: $(test_pids 'fake_cc hang')"
# SIGKILL reached the shim, which cannot record after it: the compile is unfinished.
expect_eq "killed compile" "$(json_eval "$T/t.json" 'd["compiles"][0]["exec"]["status"], d["compiles"][0]["result"], d["bundles"][0]["unfinished"]')" "(None, None, 1)"

# Bad names: exit 2 naming the option.
expect_exit 2 "$KDET" capture --exec "" -- true
expect_output "--exec: an empty value is not valid"
for bad in "a/b" "x y" ".." "/usr/bin/ptxas"; do
  expect_exit 2 "$KDET" capture --exec "$bad" -- true
  expect_output "--exec '$bad': give a program's base name"
done
echo "$NAME: ok"
