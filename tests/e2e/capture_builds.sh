#!/usr/bin/env bash
# tier: cuda
# kdet capture --builds N and kdet capture compare: cold builds compared kernel by kernel.
# With real compilers (libNVVM and NVRTC through ctypes, ptxas, a captured generator) a
# pipeline of our own gives each of the four statuses; kernels are chained by content
# (libNVVM's PTX, written without its NUL, fed to ptxas), named by entry, matched across
# builds although a program name carries a temporary folder. Also: every known cache is a
# fresh empty folder at one path in each build, --warm keeps them, --clean runs before each
# build, a failing pipeline is exit 3 with its log kept, an interrupt keeps the builds done,
# capture compare of folders made apart, JUnit and HTML, and usage errors.
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
SRC=$KDET_SOURCE_DIR/tests/capture
need_fakes libfakenvvm.so
[[ -x $CL/capture_nvvm_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"
IN=$EX/nvvm/llvm7/saxpy.ll

# All the same: the echo fake in every build, exit 0; each build's folder and log kept.
expect_exit 0 "$KDET" capture --builds 2 --out "$T/echo" --json "$T/echo.json" -- \
  "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 2 "$IN" -- -fake-mode=echo
expect_output '0 of 1 kernel differ'
# No kernel differs: the bound, in the words every command uses, and that order matters.
expect_output 'bound     no variance seen in 2 builds: a kernel that varies in more than 78% of builds would have shown \(95% confidence\)'
expect_output 'note      a build-level rate depends on what each process compiled before a kernel'
expect_eq "echo kernel" "$(json_eval "$T/echo.json" '[(k["name"], k["status"]) for k in d["kernels"]]')" \
  "[('saxpy', 'same')]"
[[ -f $T/echo/build-1/pipeline.log && -f $T/echo/build-2/capture.json && -d $T/echo/build-2/bundles ]] ||
  fail "a build's folder lacks its log, capture.json or bundles"
# The last build's caches stay (files its compiles name are there for explain), and only its.
[[ -d $T/echo/caches/triton ]] || fail "the last build's caches were not kept"

# Cold caches: each known variable names an empty folder, the same path in every build.
cat >"$T/cold.sh" <<'EOF'
for v in TRITON_CACHE_DIR TORCHINDUCTOR_CACHE_DIR CUPY_CACHE_DIR CUDA_CACHE_PATH NUMBA_CACHE_DIR JAX_COMPILATION_CACHE_DIR; do
  d=$(printenv "$v") || { echo "$v unset"; exit 9; }
  [ -z "$(ls -A "$d")" ] || { echo "$v not empty"; exit 8; }
  touch "$d/left-by-build"
  echo "$v=$d" >>"$1"
done
echo cleaned-before >>"$1"
EOF
expect_exit 3 "$KDET" capture --builds 3 --out "$T/cold" --clean "echo clean >>$T/cold.log" -- sh "$T/cold.sh" "$T/cold.log"
expect_output 'no kernel was captured in 3 builds'
expect_eq "clean runs" "$(grep -c '^clean$' "$T/cold.log")" 3
expect_eq "distinct cache paths" "$(grep TRITON_CACHE_DIR= "$T/cold.log" | sort -u | wc -l)" 1
expect_eq "left in the kept caches" "$(find "$T/cold/caches" -name left-by-build | wc -l)" 6
# --warm leaves the variables alone: the pipeline's own (here unset) apply.
expect_exit 3 env -u TRITON_CACHE_DIR "$KDET" capture --builds 2 --warm --out "$T/warm" --json "$T/warm.json" -- sh "$T/cold.sh" "$T/warm.log"
expect_output 'FAILED +build 1: the pipeline exited 9'
expect_output 'TRITON_CACHE_DIR unset'
expect_eq "warm in JSON" "$(json_eval "$T/warm.json" 'd["warm"], d["caches"], len(d["failed_builds"])')" "(True, [], 2)"
[[ -s $T/warm/build-2/pipeline.log ]] || fail "the failed build's log was not kept"

# A pipeline that fails in one build only: exit 3 names it (even where kernels differ).
cat >"$T/fail2.sh" <<EOF
n=\$(( \$(cat "$T/fail2.n" 2>/dev/null || echo 0) + 1 )); echo \$n >"$T/fail2.n"
"$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo || exit
[ \$n != 2 ] || { echo "broken on purpose" >&2; exit 7; }
EOF
expect_exit 3 "$KDET" capture --builds 3 --out "$T/f2" --junit "$T/f2.xml" -- sh "$T/fail2.sh"
expect_output 'FAILED +build 2: the pipeline exited 7; its log .*/f2/build-2/pipeline.log'
expect_output 'broken on purpose'
grep -q '<error message="build 2: the pipeline exited 7' "$T/f2.xml" || fail "JUnit lacks the failed build"

# An interrupt during build 3 keeps builds 1 and 2 and compares them (exit 130).
cat >"$T/slow.sh" <<EOF
n=\$(( \$(cat "$T/slow.n" 2>/dev/null || echo 0) + 1 )); echo \$n >"$T/slow.n"
"$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo || exit
if [ \$n = 3 ]; then touch "$T/slow.started"; exec sleep 60; fi
EOF
set +e
"$KDET" capture --builds 3 --out "$T/int" --json "$T/int.json" -- sh "$T/slow.sh" >"$T/int.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [[ -e $T/slow.started ]] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
rc=$?
set -e
expect_eq "interrupted exit" "$rc" 130
expect_eq "interrupted JSON" "$(json_eval "$T/int.json" 'd["interrupted"], len(d["builds"]), d["kernels"][0]["status"]')" \
  "(True, 2, 'same')"

# Usage errors, before any build runs.
expect_exit 2 "$KDET" capture --builds 1 --out "$T/u1" -- true
expect_output '--builds 1: give 2 to 100 builds'
expect_exit 2 "$KDET" capture --builds 2 -- true
expect_output '--builds needs --out DIR'
expect_exit 2 "$KDET" capture --report-html "$T/j.html" --out "$T/u2" -- true
expect_output '--report-html is an option of kdet capture --builds N'
expect_exit 2 "$KDET" capture --builds 2 --out "$T/echo" -- true
expect_output 'already holds a capture'
expect_exit 2 "$KDET" capture compare "$T/echo/build-1"
expect_output 'holds one capture; give two or more'
expect_exit 2 "$KDET" capture compare "$T/nothing-here" "$T/echo"
expect_output 'nothing-here: not a folder'
expect_exit 2 "$KDET" capture --builds 0 --out "$T/u0" -- true
expect_output '--builds 0: give 2 to 100 builds'
expect_exit 2 "$KDET" capture compare "$T/echo/build-1" "$T/echo/build-1"
expect_output 'the same capture twice'
expect_exit 2 "$KDET" capture --builds 2 --out "$T/u3" --json - --junit - -- true
expect_output 'only --json may go to stdout'
# A plain capture keeps how its pipeline ended, so compare names a failed one (exit 3).
expect_exit 0 "$KDET" capture --out "$T/p1" -- "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$IN" -- -fake-mode=echo
printf '%s\n' "\"$CL/capture_nvvm_client\" \"$FAKES/libfakenvvm.so\" 1 1 \"$IN\" -- -fake-mode=echo" 'exit 7' >"$T/p2.sh"
set +e
"$KDET" capture --out "$T/p2" -- sh "$T/p2.sh" >/dev/null 2>&1
set -e
expect_exit 3 "$KDET" capture compare "$T/p1" "$T/p2"
expect_output 'capture 2 .*: the pipeline exited 7'

have_cuda || skip "CUDA (libNVVM, NVRTC, ptxas) not installed: the real-compiler statuses are not checked"
NVVM=$(ls /usr/local/cuda/lib64/libnvvm.so.* | head -1)
NVRTC=$(ls /usr/local/cuda/lib64/libnvrtc.so.[0-9]* | head -1)
expect_exit 1 "$KDET" capture --builds 3 --out "$T/real" --exec gen_ptx.py --json "$T/real.json" \
  --junit "$T/real.xml" --report-html "$T/real.html" -- \
  python3 "$SRC/builds_pipeline.py" "$T/work" "$T/counter" "$NVVM" "$NVRTC" /usr/local/cuda/bin/ptxas "$SRC/gen_ptx.py"
expect_output '4 of 6 kernels differ across 3 builds: 2 nondeterministic, 1 input-differs, 1 not-in-every-build'
# Every kernel's status, first varying stage and final-artifact flag.
got=$(json_eval "$T/real.json" 'sorted((k["name"], k["status"], (k["first_nondeterministic_stage"] or {}).get("program"), k["final_output_nondeterministic"], len(k["stages"])) for k in d["kernels"])')
expect_eq "kernels" "$got" "[('const_k', 'input-differs', 'libnvvm.so.4', True, 1), ('extra_k', 'not-in-every-build', None, False, 1), ('gen_k', 'nondeterministic', 'gen_ptx.py', False, 2), ('nvrtc_k', 'same', None, False, 1), ('saxpy', 'same', None, False, 2), ('stamp_k', 'nondeterministic', 'ptxas', True, 1)]"
# How each varying stage's outputs differ: a comment in the PTX, the named file's time in the cubin.
expect_eq "classes" "$(json_eval "$T/real.json" 'sorted((k["name"], k["first_nondeterministic_stage"]["output"], k["first_nondeterministic_stage"]["change"]) for k in d["kernels"] if k["status"] == "nondeterministic")')" \
  "[('gen_k', 'ptx', 'trivia'), ('stamp_k', 'cubin', 'metadata')]"
# saxpy's libNVVM compile and its ptxas compile are one kernel, in that order.
expect_eq "saxpy stages" "$(json_eval "$T/real.json" '[(s["kind"], s["program"]) for k in d["kernels"] if k["name"] == "saxpy" for s in k["stages"]]')" \
  "[('nvvm', 'libnvvm.so.4'), ('exec', 'ptxas')]"
# By plain equality of one hash: libNVVM's output (NUL included) is the PTX file ptxas read (the
# NUL left out); the bundle keeps libNVVM's bytes, NUL and all, under that hash.
saxpy=$(json_eval "$T/real.json" '[k for k in d["kernels"] if k["name"] == "saxpy"][0]["stages"]')
expect_eq "saxpy chain" "$(python3 -c 'import ast,sys; s=ast.literal_eval(sys.argv[1]); print(all(s[0]["builds"][b]["outputs"]["nvvm"][0] in s[1]["builds"][b]["inputs"] for b in range(3)))' "$saxpy")" "True"
B=$(json_eval "$T/real.json" '[k for k in d["kernels"] if k["name"] == "saxpy"][0]["stages"][0]["builds"][0]["bundle"]')
H=$(json_eval "$T/real.json" '[k for k in d["kernels"] if k["name"] == "saxpy"][0]["stages"][0]["builds"][0]["outputs"]["nvvm"][0]')
unpack_bundles "$T/real" "$B"
[[ $(tail -c 1 "$T/real/build-1/bundles/$B/outputs/$H.ptx" | od -An -tx1 | tr -d ' ') == 00 ]] || fail "saxpy's captured PTX lost libNVVM's NUL"
# The next command names a bundle that kdet explain takes.
nxt=$(json_eval "$T/real.json" '[k["next"] for k in d["kernels"] if k["name"] == "stamp_k"][0]')
[[ $nxt == "kdet explain $T/real/build-3/bundles/"* ]] && grep -q "^${nxt##*/} bundle.json " "$T/real/build-3/bundles/index" || fail "next: $nxt"
expect_output "input 1 \\(module\\) of build 1 and build 2: text differs"
expect_eq "junit" "$(grep -c '<testcase classname="kdet.builds' "$T/real.xml") $(grep -c '<failure' "$T/real.xml")" "6 4"
for k in saxpy stamp_k gen_k const_k nvrtc_k extra_k; do grep -q ">$k</td>" "$T/real.html" || fail "HTML lacks $k"; done

# The same comparison of the folders, made apart: the --builds folder, and two of its builds.
expect_exit 1 "$KDET" capture compare "$T/real" --json "$T/cmp.json"
expect_eq "compare = builds" "$(json_eval "$T/cmp.json" 'sorted((k["name"], k["status"]) for k in d["kernels"])')" \
  "$(json_eval "$T/real.json" 'sorted((k["name"], k["status"]) for k in d["kernels"])')"
expect_exit 1 "$KDET" capture compare "$T/real/build-1" "$T/real/build-3" --json "$T/cmp13.json"
expect_eq "builds 1 and 3" "$(json_eval "$T/cmp13.json" 'sorted((k["name"], k["status"]) for k in d["kernels"] if k["status"] != "same")')" \
  "[('const_k', 'input-differs'), ('gen_k', 'nondeterministic'), ('stamp_k', 'nondeterministic')]"
# nvcc runs cicc, ptxas and fatbinary itself: they are nvcc's kernel (known from the shim's
# record of its caller's ancestors), one kernel per nvcc run, nvcc last.
echo "cd '$T' && /usr/local/cuda/bin/nvcc -cubin -arch=sm_90 -o '$T/ws.cubin' '$EX/cuda/warp_scan.cu'" >"$T/nvcc.sh"
expect_exit 0 "$KDET" capture --builds 2 --out "$T/nv" --json "$T/nv.json" -- sh "$T/nvcc.sh"
expect_eq "nvcc kernel" "$(json_eval "$T/nv.json" '[(k["status"], [s["program"] for s in k["stages"]][-1], len(k["stages"]) >= 3) for k in d["kernels"]]')" \
  "[('same', 'nvcc', True)]"
echo "capture_builds: ok"
