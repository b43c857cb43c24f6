#!/usr/bin/env bash
# tier: quick
# kdet capture starts a listed compiler command (here one named ptxas) as the pipeline would
# have started it, or leaves it alone, and says what it could not record:
#  1. a script without "#!", which the kernel cannot start (ENOEXEC) and a shell runs itself:
#     left to the shell, so it runs as without capture;
#  2. a PATH whose first "ptxas" is a folder: skipped as execvp skips it, so the real one runs,
#     under the shim, and is recorded;
#  2b. a "#!" script whose interpreter is missing, first on PATH: skipped, as execvp does;
#  2c. descriptors the caller hands in (7>file, bash's <(...)) reach the pipeline;
#  3. posix_spawn of "./ptxas" with a file action that changes the folder first: the program is
#     not known before the spawn, so the compile is named as not recorded, never silently lost
#     (exit 3: nothing was captured).
# In each, the pipeline's files are those of a run without capture.
source "$(dirname "$0")/lib/common.bash"
cd "$T"
mkdir -p bin nosb/bin dir/a/ptxas dir/b work
printf '#!/bin/sh\necho "ptxas ran: $*" >out.txt\n' >bin/ptxas
printf 'echo "script without #! ran: $*" >out.txt\n' >nosb/bin/ptxas
chmod +x bin/ptxas nosb/bin/ptxas
cp bin/ptxas dir/b/ptxas
cp bin/ptxas work/ptxas

# run_both NAME CMD...: the command in NAME-plain/ and under capture in NAME-cap/; their files
# must be equal, and the capture's JSON is NAME.json.
run_both() {
  local name=$1 rc
  shift
  mkdir "$name-plain" "$name-cap"
  (cd "$name-plain" && "$@") >/dev/null 2>&1 || fail "$name: the command fails without capture"
  (cd "$name-cap" && "$KDET" capture --out ../"$name-raw" --json ../"$name.json" -- "$@") \
    >"$name.out" 2>&1 && rc=0 || rc=$?
  ((rc == 0 || rc == 3)) || { cat "$name.out"; fail "$name: kdet capture exited $rc"; }
  diff -r "$name-plain" "$name-cap" >/dev/null || fail "$name: capture changed the pipeline's files: $(diff -r "$name-plain" "$name-cap")"
}

# 1. No "#!": sh gets ENOEXEC and runs the file as a script.
run_both nosb env PATH="$T/nosb/bin:$PATH" sh -c 'ptxas -o x.cubin in.ptx'
grep -q "script without #! ran" nosb-cap/out.txt || fail "nosb: the script did not run under capture"

# A posix_spawnp of ptxas that writes the child's wait status to status.txt.
SPAWNP='
import os
pid = os.posix_spawnp("ptxas", ["ptxas", "-o", "x.cubin", "in.ptx"], dict(os.environ))
_, st = os.waitpid(pid, 0)
open("status.txt", "w").write(str(st))'

# 2. A folder named ptxas first on PATH, then the program.
run_both pathdir env PATH="$T/dir/a:$T/dir/b:$PATH" python3 -c "$SPAWNP"
[[ $(cat pathdir-cap/status.txt) == 0 ]] || fail "pathdir: the spawn failed under capture"
expect_eq "pathdir: the compile recorded" "$(json_eval pathdir.json '[c["exec"]["argv0"] for c in d["compiles"]]')" "['ptxas']"

# 2b. A "#!" script whose interpreter is missing first on PATH: execve fails as if it were not
#     there, and execvp and posix_spawnp go on to the real one, which is recorded.
mkdir -p badint/a badint/b
printf '#!/nonexistent/interp\necho bad\n' >badint/a/ptxas
chmod +x badint/a/ptxas
cp bin/ptxas badint/b/ptxas
run_both badint env PATH="$T/badint/a:$T/badint/b:$PATH" python3 -c "$SPAWNP"
[[ $(cat badint-cap/status.txt) == 0 ]] || fail "badint: the spawn failed under capture"
expect_eq "badint: the real ptxas recorded" "$(json_eval badint.json '[c["exec"]["argv0"] for c in d["compiles"]]')" "['ptxas']"

# 2c. Descriptors the caller hands in (a make jobserver's pipe, bash's <(...)) reach the
#     pipeline as they are, under capture and under kdet exec.
rm -f fd7.txt fd8.txt
expect_exit 3 "$KDET" capture --out fd-raw -- sh -c 'echo seven >&7' 7>fd7.txt
[[ $(cat fd7.txt) == seven ]] || fail "capture: the pipeline lost its inherited descriptor 7"
expect_exit 0 "$KDET" exec --deterministic -- sh -c 'echo eight >&8' 8>fd8.txt
[[ $(cat fd8.txt) == eight ]] || fail "exec: the command lost its inherited descriptor 8"
expect_exit 3 "$KDET" capture --out sub-raw -- cat <(echo from-a-substitution)
expect_output "from-a-substitution"

# 3. posix_spawn("./ptxas") after a chdir file action.
if command -v cc >/dev/null; then
  cat >spawn.c <<'C'
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
extern char** environ;
int main(int argc, char** argv) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, argv[1]);
  char* args[] = {"./ptxas", "-o", "x.cubin", "in.ptx", NULL};
  pid_t pid;
  int st = 0;
  if (posix_spawn(&pid, "./ptxas", &fa, NULL, args, environ) != 0) return 2;
  waitpid(pid, &st, 0);
  return st == 0 ? 0 : 1;
}
C
  cc -o spawn spawn.c || fail "cannot build the spawn client"
  expect_exit 3 "$KDET" capture --out chdir-raw --json chdir.json -- ./spawn "$T/work"
  grep -q "ptxas ran" work/out.txt || fail "chdir: the program did not run"
  expect_eq "chdir: named as not recorded" "$(json_eval chdir.json '[n["kind"] + " " + n["text"] for n in d["notes"]]')" "['spawn-unresolved ./ptxas']"
  grep -q "spawned ./ptxas with file actions" "$T/out" || { cat "$T/out"; fail "chdir: the summary does not name it"; }
else
  echo "$NAME: note: no C compiler; the posix_spawn file-action case is skipped"
fi
echo "$NAME: ok"
