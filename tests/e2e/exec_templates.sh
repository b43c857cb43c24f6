#!/usr/bin/env bash
# tier: quick
# exec_templates.sh: exec command templates are checked and never reach a shell.
# - an unknown {placeholder} is exit 2 naming it and the valid ones (run, explain,
#   cache compile, cc, scan manifest);
# - no {output}: stdout is the artifact and the summary/JSON say so;
# - a run that leaves no output (no file, an empty file, empty stdout) is the
#   outcome no-output: never DETERMINISTIC, never cached;
# - kdet cc with the build's own "-o FILE" caches the real output, not 0 bytes;
# - a file named 'x;touch PWNED;.ll' runs nothing (run and scan), and a shell
#   script with a placeholder inside is refused with the positional spelling;
# - an exec compiler is asked --version once per invocation.
source "$(dirname "$0")/lib/common.bash"

B=$T/bin
mkdir -p "$B"
# upper: {input} -> {output}, upper-cased; counts its --version calls.
cat >"$B/upper" <<'EOF'
#!/bin/sh
if [ "$1" = --version ]; then echo x >>"${VCOUNT:-/nonexistent}"; echo "upper version 1.2"; exit 0; fi
in=$1; out=
[ "$2" = -o ] && out=$3
if [ -n "$out" ]; then tr a-z A-Z <"$in" >"$out"; else tr a-z A-Z <"$in"; fi
EOF
# silent: exits 0 and writes nothing.
printf '#!/bin/sh\nexit 0\n' >"$B/silent"
# varies: a different stdout each run (to prove a typo cannot hide it).
printf '#!/bin/sh\nif [ "$1" = --version ]; then echo v 1; exit 0; fi\necho $$ > "$2" 2>/dev/null; echo $$\n' >"$B/varies"
chmod +x "$B"/*
export VCOUNT=$T/vcount
echo 'hello kernel' >"$T/k.txt"

# 1. Unknown placeholders are usage errors everywhere a template is accepted.
expect_exit 2 "$KDET" run "$T/k.txt" --cmd "$B/varies {input} {outptu}" -n 4
expect_output "unknown placeholder \{outptu\}"
expect_output "\{input\}, \{output\}, \{workdir\}"
expect_exit 2 "$KDET" explain "$T/k.txt" --cmd "$B/varies {inptu}" -n 4
expect_output "unknown placeholder \{inptu\}"
expect_exit 2 "$KDET" cache compile "$T/k.txt" --dir "$T/cache" --cmd "$B/upper {input} -o {out}" -o "$T/o"
expect_output "unknown placeholder \{out\}"
expect_exit 2 "$KDET" cc "$T/k.txt" -o "$T/o" --dir "$T/cache" -- "$B/upper" "{input}" -o "{ouput}"
expect_output "unknown placeholder \{ouput\}"
[[ ! -e $T/o ]] || fail "a usage error wrote the output"
cat >"$T/bad.toml" <<TOML
inputs = ["$T/k.txt"]
[[compiler]]
name = "u"
backend = "exec"
command = "$B/upper {input} -o {output} --arch {tagret}"
TOML
expect_exit 2 "$KDET" scan "$T/bad.toml" --db "$T/bad.db"
expect_output "bad.toml:[0-9]+: .*unknown placeholder \{tagret\}.*\{target\}"
# ${HOME} (shell syntax) and {} (find) are not placeholders.
expect_exit 0 "$KDET" run "$T/k.txt" --cmd "$B/upper {input} -o {output} \${HOME} {} {1}" -n 2

# 2. No {output}: stdout is the artifact, and the run says so.
expect_exit 0 "$KDET" run "$T/k.txt" --cmd "$B/upper {input}" -n 3 --json "$T/s.json"
expect_output "artifact  the command's stdout"
[[ $(json_get "$T/s.json" '["exec"]["artifact"]') == stdout ]] || fail "JSON exec.artifact is not stdout"
[[ $(json_get "$T/s.json" '["variants"][0]["artifacts"][0]["name"]') == stdout ]] || fail "artifact name"
expect_exit 0 "$KDET" run "$T/k.txt" --cmd "$B/upper {input} -o {output}" -n 3 --json "$T/f.json"
[[ $(json_get "$T/f.json" '["exec"]["artifact"]') == output-file ]] || fail "JSON exec.artifact is not output-file"

# 3. No output is an outcome, not an artifact: two empty runs are not "deterministic".
expect_exit 3 "$KDET" run "$T/k.txt" --cmd "$B/silent {input}" -n 2 --json "$T/n.json"
expect_output "FAILED"
[[ $(json_get "$T/n.json" '["variants"][0]["status"]') == no-output ]] || fail "empty stdout is not no-output"
expect_exit 3 "$KDET" run "$T/k.txt" --cmd "$B/silent {input} -o {output}" -n 2 --json "$T/n2.json"
[[ $(json_get "$T/n2.json" '["variants"][0]["status"]') == no-output ]] || fail "missing {output} is not no-output"
expect_exit 3 "$KDET" run "$T/k.txt" --cmd "sh -c ': > \"\$1\"' sh {output}" -n 2
expect_output "empty"

# 4. kdet cc with the build's own command line caches the compiler's real output.
cd "$T"
rm -f "$VCOUNT"
expect_exit 0 "$KDET" cc k.txt -o k.out --dir "$T/cache" --verify-rate 0 -- "$B/upper" k.txt -o k.out
[[ $(cat k.out) == "HELLO KERNEL" ]] || fail "kdet cc wrote '$(cat k.out)', not the compiler's output"
[[ $(wc -l <"$VCOUNT") == 1 ]] || fail "a cache miss asked --version $(wc -l <"$VCOUNT") times, not once"
rm -f k.out "$VCOUNT"
expect_exit 0 "$KDET" cc k.txt -o k.out --dir "$T/cache" --verify-rate 0 --json "$T/cc.json" -- "$B/upper" k.txt -o k.out
[[ $(json_get "$T/cc.json" '["result"]') == hit ]] || fail "second kdet cc was not a hit"
[[ $(cat k.out) == "HELLO KERNEL" ]] || fail "the hit served '$(cat k.out)'"
[[ ! -e $VCOUNT ]] || fail "a hit with a known compiler asked --version"
# A compiler that writes somewhere kdet cannot see: exit 3, no 0-byte file, nothing stored.
rm -f k.out
expect_exit 3 "$KDET" cc k.txt -o k.out --dir "$T/cache2" -- "$B/upper" k.txt -o elsewhere.out
expect_output "printed nothing on stdout"
[[ ! -e k.out ]] || fail "kdet cc wrote a file for a compile that produced nothing"
[[ $("$KDET" cache stats --dir "$T/cache2" --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["keys"])') == 0 ]] ||
  fail "an empty output was stored"
if [[ -x /usr/local/cuda/bin/ptxas ]]; then
  # The reported case, with the real ptxas.
  cp "$EX/ptx/saxpy.ptx" k.ptx
  PATH=/usr/local/cuda/bin:$PATH expect_exit 0 "$KDET" cc k.ptx -o k.cubin --dir "$T/cache3" -- ptxas -arch=sm_90 k.ptx -o k.cubin
  /usr/local/cuda/bin/ptxas -arch=sm_90 k.ptx -o direct.cubin
  [[ -s k.cubin ]] && cmp -s <(head -c 4 k.cubin) <(printf '\177ELF') || fail "kdet cc ptxas gave no cubin"
  [[ $(stat -c %s k.cubin) == $(stat -c %s direct.cubin) ]] || fail "kdet cc's cubin differs in size from ptxas's"
else
  echo "note: /usr/local/cuda/bin/ptxas absent, real-ptxas kdet cc case not run"
fi

# 5. --version once per kdet run, not once per worker.
rm -f "$VCOUNT"
expect_exit 0 "$KDET" run "$T/k.txt" --cmd "$B/upper {input} -o {output}" -n 6 -j 2
[[ $(wc -l <"$VCOUNT") == 1 ]] || fail "kdet run asked --version $(wc -l <"$VCOUNT") times"

# 6. File names never reach a shell.
D=$T/d
mkdir -p "$D"
cp "$T/k.txt" "$D/x;touch PWNED;.ll"
cd "$D"
expect_exit 2 "$KDET" run "$D/x;touch PWNED;.ll" --cmd "sh -c 'cat {input} > {output}'" -n 2
expect_output "positional parameters"
expect_output "sh -c 'cat \"\\\$1\" > \"\\\$2\"' sh"
for t in "env LC_ALL=C bash -c 'cat {input}'" "bash -o pipefail -ec 'cat \"{input}\"'" "/bin/dash -c 'x {workdir}'" \
  "python3 -c 'print(open(\"{input}\").read())'"; do
  expect_exit 2 "$KDET" run "$D/x;touch PWNED;.ll" --cmd "$t" -n 2
done
expect_exit 0 "$KDET" run "$D/x;touch PWNED;.ll" --cmd "sh -c 'cat \"\$1\" > \"\$2\"' sh {input} {output}" -n 3
expect_exit 0 "$KDET" run "$D/x;touch PWNED;.ll" --cmd "cat {input}" -n 2
cat >"$T/sh.toml" <<TOML
inputs = ["$D/*.ll"]
[[compiler]]
name = "viash"
backend = "exec"
command = "sh -c 'cat \"\$1\" > \"\$2\"' sh {input} {output}"
[budget]
max_runs = 4
first_round = 4
TOML
expect_exit 0 "$KDET" scan "$T/sh.toml" --db "$T/sh.db" --jobs 1 -q
sed -i "s|command = .*|command = \"sh -c 'cat {input} > {output}'\"|" "$T/sh.toml"
expect_exit 2 "$KDET" scan "$T/sh.toml" --db "$T/sh2.db" --jobs 1 -q
expect_output "positional parameters"
# A scan {target} becomes a compiler argument: a target name, never any text (blanks, quotes,
# ';' or a leading '-' are refused, naming the line, before anything runs).
for bad in 'a b;touch PWNED' "c'd" '-o/tmp/x' ''; do
  printf 'inputs = ["%s"]\ntargets = ["80", "%s"]\n[[compiler]]\nname = "argc"\nbackend = "exec"\ncommand = "cp {input} {output} {target}"\n' \
    "$T/k.txt" "$bad" >"$T/tg.toml"
  expect_exit 2 "$KDET" scan "$T/tg.toml" --db "$T/tg.db" --jobs 1 -q
  expect_output 'tg.toml:2: manifest.targets'
  [[ ! -e $T/tg.db ]] || fail "a refused manifest left a database"
done
cd "$T"
[[ -z $(find "$T" -name PWNED) ]] || fail "a file name was executed: $(find "$T" -name PWNED)"
echo "ok: exec templates"
