#!/usr/bin/env bash
# tier: cuda
# The mtime factor on the real ptxas and nvJitLink of CUDA 13.0: both write the modification
# time and size of each file a PTX `.file` names into the cubin's line table. kdet run must call
# the compile nondeterministic when those times vary, deterministic when they are fixed, and
# deterministic at the natural level (the file does not change between runs); kdet explain must
# name the factor and the file and nothing else. The named file must stay byte- and
# metadata-identical: kdet varies the times on its own copies only.
source "$(dirname "$0")/lib/common.bash"
[[ -x /usr/local/cuda/bin/ptxas ]] || skip "ptxas not found under /usr/local/cuda"

mkdir -p "$T/src"
printf 'def kernel():\n    pass\n' >"$T/src/kernel.py"
touch -d @1234567890 "$T/src/kernel.py"
cat >"$T/k.ptx" <<EOF
.version 8.0
.target sm_90
.address_size 64

.file 1 "$T/src/kernel.py"

.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;

	.loc 1 1 0
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	.loc 1 2 0
	st.global.u32 	[%rd2], %r1;
	ret;
}
EOF
# Everything stat reports but the access time, which a reader may move (kdet reads with O_NOATIME).
meta() { stat -c '%s %Y.%y %Z.%z %i %a %u %g %h' "$1"; }
sum=$(sha256sum <"$T/src/kernel.py") # first: this read moves the access time (relatime)
before=$(meta "$T/src/kernel.py")
atime=$(stat -c %X "$T/src/kernel.py")
PTXAS='/usr/local/cuda/bin/ptxas -arch=sm_90 {input} -o {output}'

set +e
"$KDET" run "$T/k.ptx" --cmd "$PTXAS" -n 2 --mtime fixed --seed 1 >"$T/out" 2>&1
set -e
grep -q 'does not allow' "$T/out" && skip "no private mount namespace here: $(cat "$T/out")"

# Varied: every run another time, another cubin; the other factors are varied too (defaults).
expect_exit 1 "$KDET" run "$T/k.ptx" --cmd "$PTXAS" -n 6 --mtime vary --seed 7
expect_output 'NONDETERMINISTIC: 6 distinct outcomes in 6 runs'
# Fixed: deterministic, with every other factor varied (time too: libfaketime's stat faking is
# off while kdet holds the files' times).
expect_exit 0 "$KDET" run "$T/k.ptx" --cmd "$PTXAS" -n 8 --mtime fixed --seed 7
expect_output 'NO VARIANCE SEEN in 8 runs'
expect_output 'varied +.*time=vary'
# Natural, with the clock real: the file does not change, neither does the cubin.
expect_exit 0 "$KDET" run "$T/k.ptx" --cmd "$PTXAS" -n 8 --mtime real --time real --seed 7
expect_output 'NO VARIANCE SEEN in 8 runs'
# Natural with libfaketime's clock: it shifts the times stat reports, so time acts through them.
if [[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]]; then
  expect_exit 1 "$KDET" run "$T/k.ptx" --cmd "$PTXAS" -n 4 --mtime real --time vary --seed 7
  expect_output 'NONDETERMINISTIC'
fi

# explain names the factor and the file, and nothing unrelated.
expect_exit 1 "$KDET" explain "$T/k.ptx" --cmd "$PTXAS" --seed 11 --json "$T/ex.json"
expect_output "EXPLAINED: the cubin follows the modification time of $T/src/kernel.py; nothing else matters \(deterministic when mtime=fixed\)"
expect_eq necessary "$(json_get "$T/ex.json" '["necessary"]')" "['mtime']"
expect_eq cause "$(json_get "$T/ex.json" '["cause"]')" "['mtime']"

# With mtime left out, the time factor acts through the files (libfaketime shifts what stat
# reports under time=vary only): explain says so, and blames nothing unrelated.
if [[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ]]; then
  expect_exit 1 "$KDET" explain "$T/k.ptx" --cmd "$PTXAS" --seed 12 --skip mtime --json "$T/ex2.json"
  expect_output "EXPLAINED: varies with the time; nothing else matters \(deterministic when time=fixed\); time may act through the files' modification times"
  expect_eq "cause without mtime" "$(json_get "$T/ex2.json" '["cause"]')" "['time']"
fi

# A relative .file name is found in the compiler's working folder: under cwd=vary (explain's
# baseline) kdet puts its copy there, so the factor still shows.
sed "s#\"$T/src/kernel.py\"#\"src/kernel.py\"#" "$T/k.ptx" >"$T/rel.ptx"
grep -q '"src/kernel.py"' "$T/rel.ptx" || fail "rel.ptx names no relative file"
(cd "$T" && exec "$KDET" explain "$T/rel.ptx" --cmd "$PTXAS" --seed 13) >"$T/out" 2>&1 && fail "relative: explain exit 0"
expect_output "EXPLAINED: the cubin follows the modification time of $T/src/kernel.py; nothing else matters"

# nvJitLink (a library backend: the worker's own mount namespace) follows the same times.
if ls /usr/local/cuda/lib64/libnvJitLink.so* >/dev/null 2>&1; then
  expect_exit 1 "$KDET" run "$T/k.ptx" --backend nvjitlink -n 6 --mtime vary --seed 3 -- -arch=sm_90
  expect_output 'NONDETERMINISTIC: 6 distinct outcomes in 6 runs'
  expect_exit 0 "$KDET" run "$T/k.ptx" --backend nvjitlink -n 8 --mtime fixed --seed 3 -- -arch=sm_90
  expect_output 'NO VARIANCE SEEN in 8 runs'
fi

expect_eq "the named file's metadata" "$(meta "$T/src/kernel.py")" "$before"
expect_eq "the named file's access time" "$(stat -c %X "$T/src/kernel.py")" "$atime"
expect_eq "the named file's bytes" "$(sha256sum <"$T/src/kernel.py")" "$sum"
# Nothing of kdet's is left bound over the file on the host.
if grep -q " $T/src/kernel.py " /proc/self/mountinfo; then fail "a bind over the named file is left on the host"; fi
echo "ok: mtime on the real ptxas and nvJitLink"
