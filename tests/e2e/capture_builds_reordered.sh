#!/usr/bin/env bash
# tier: quick
# One module whose kernels come in another order in each build (llvmlite in-process, its
# kernels in the order of a Python set) is one kernel in every build, matched by the set of
# its entry names: input-differs (the pipeline's own module differs), never a kernel
# "compiled in build K only" per order (docs/CAPTURE.md, "Builds").
source "$(dirname "$0")/lib/common.bash"
CL=${KDET_BINARY_DIR:?}/tests/capture
need_fakes libfakenvvm.so
[[ -x $CL/capture_nvvm_client ]] || skip "capture clients not built (ninja kdet_capture_clients)"

# Build N writes its module with the five kernels in order N, then compiles it in-process.
cat >"$T/build.sh" <<EOF
n=\$(( \$(cat "$T/n" 2>/dev/null || echo 0) + 1 )); echo \$n >"$T/n"
case \$n in 1) order="k_c k_a k_e k_b k_d" ;; 2) order="k_a k_d k_b k_e k_c" ;; *) order="k_e k_b k_a k_c k_d" ;; esac
: >"$T/mod.ll"; i=0
for k in \$order; do printf 'define void @%s(float* %%x) {\n  ret void\n}\n' \$k >>"$T/mod.ll"; done
for k in \$order; do printf '!%d = !{void (float*)* @%s, !"kernel", i32 1}\n' \$i \$k >>"$T/mod.ll"; i=\$((i + 1)); done
exec "$CL/capture_nvvm_client" "$FAKES/libfakenvvm.so" 1 1 "$T/mod.ll" -- -fake-mode=echo
EOF
expect_exit 1 "$KDET" capture --builds 3 --out "$T/b" --json "$T/b.json" -- sh "$T/build.sh"
expect_output '1 of 1 kernel differs across 3 builds: 1 input-differs'
expect_eq "kernels" "$(json_eval "$T/b.json" '[(k["name"], k["status"], k["builds"]) for k in d["kernels"]]')" \
  "[('k_a, k_b, k_c, k_d, k_e', 'input-differs', [1, 2, 3])]"
expect_output 'note: its entries come in another order in build 2 \(k_a, k_d, k_b, k_e, k_c\) than in build 1 \(k_c, k_a, k_e, k_b, k_d\)'
# capture compare of two of the builds says the same.
expect_exit 1 "$KDET" capture compare "$T/b/build-3" "$T/b/build-1" --json "$T/c.json"
expect_eq "compare" "$(json_eval "$T/c.json" '[(k["name"], k["status"]) for k in d["kernels"]]')" \
  "[('k_a, k_b, k_c, k_d, k_e', 'input-differs')]"
echo "capture_builds_reordered: ok"
