#!/usr/bin/env bash
# tier: quick
# One meaning of "default": a factor a scan manifest's [setting] does not name varies, as under
# kdet run, so a job the scan calls deterministic met what that compile meets under kdet run.
#  1. fake_cc path (its output names its input's path): kdet run varies it; so does a scan that
#     names no factor; naming path, or unnamed = "natural", holds it still.
#  2. The setting is printed at the start and in the summary, and kept in the JSON's meta.
#  3. A level that hangs the compiler (any TZ) costs a short probe per compiler, not the
#     timeout per run, and is named as left natural.
#  4. A bad unnamed value is an error naming the line; every factor of kdet run is a key.
source "$(dirname "$0")/lib/common.bash"
need_fakes fake_cc
cp "$EX/nvvm/llvm7/saxpy.ll" "$EX/nvvm/llvm7/row_softmax.ll" "$T/"
manifest() { # FILE MODE [SETTING-LINES...]
  local f=$1 mode=$2
  shift 2
  { echo 'inputs = ["*.ll"]'
    printf '[[compiler]]\nname = "cc"\nbackend = "exec"\ncommand = "%s %s {input} {output}"\noutput_ext = "ptx"\n' \
      "$FAKES/fake_cc" "$mode"
    printf '[budget]\nmax_runs = 8\n'
    if (($#)); then echo '[setting]'; printf '%s\n' "$@"; fi; } >"$f"
}
IN=$T/saxpy.ll
n_inputs=$(ls "$T"/*.ll | wc -l)

# 1. kdet run and the scan agree on the same compile.
expect_exit 1 "$KDET" run "$IN" --cmd "$FAKES/fake_cc path {input} {output}" -n 4
manifest "$T/vary.toml" path
expect_exit 1 "$KDET" scan "$T/vary.toml" --db "$T/vary.db" --json "$T/vary.json"
[[ $(json_eval "$T/vary.json" 'sum(j["status"] == "nondeterministic" for j in d["jobs"])') == "$n_inputs" ]] ||
  fail "every job of fake_cc path varies when path is not named"
manifest "$T/named.toml" path 'path = "fixed"'
expect_exit 0 "$KDET" scan "$T/named.toml" --db "$T/named.db" -q
manifest "$T/natural.toml" path 'unnamed = "natural"'
expect_exit 0 "$KDET" scan "$T/natural.toml" --db "$T/natural.db" --json "$T/natural.json" -q
[[ $(json_eval "$T/natural.json" 'd["meta"]["unnamed"]') == natural ]] || fail "meta.unnamed"

# 2. The setting, at the start, in the summary and in the JSON.
expect_exit 1 "$KDET" scan "$T/vary.toml" --db "$T/vary2.db" --json "$T/vary2.json"
expect_output 'kdet scan: setting: cc: every factor not named in \[setting\] varied: .*path=vary'
expect_output '^  setting: +cc: every factor not named in \[setting\] varied: .*cwd=vary'
[[ $(json_eval "$T/vary2.json" '"tmpdir=vary" in d["meta"]["defaults"]') == True ]] || fail "meta.defaults"
expect_exit 0 "$KDET" scan "$T/named.toml" --db "$T/named2.db"
[[ $(cat "$T/out") != *path=vary* ]] || fail "a named factor is not varied"

# 3. A compiler that hangs under any TZ: one short probe per compiler, then TZ natural.
cat >"$T/cc.sh" <<SH
#!/bin/sh
if [ -n "\${TZ:-}" ]; then exec sleep 1000; fi
cp "\$1" "\$2"
SH
chmod +x "$T/cc.sh"
{ echo 'inputs = ["*.ll"]'
  printf '[[compiler]]\nname = "tzhang"\nbackend = "exec"\ncommand = "%s {input} {output}"\noutput_ext = "ptx"\n' "$T/cc.sh"
  printf '[budget]\nmax_runs = 4\ntimeout = 60\n'; } >"$T/hang.toml"
start=$(date +%s)
expect_exit 0 "$KDET" scan "$T/hang.toml" --db "$T/hang.db"
(($(date +%s) - start < 30)) || fail "a level that hangs the compiler cost more than its probes"
expect_output 'tzhang: tz=vary breaks this compiler \(timed-out'

# 4. Bad values name their line; kdet run's newer factors are keys too.
manifest "$T/bad.toml" echo 'unnamed = "sometimes"'
expect_exit 2 "$KDET" scan "$T/bad.toml" --db "$T/bad.db"
expect_output 'bad.toml:[0-9]+: \[setting\] unnamed = "sometimes": must be "vary"'
[[ ! -e $T/bad.db ]] || fail "a bad manifest left a database"
manifest "$T/keys.toml" echo 'mtime = "fixed"' 'tz = "fixed"' 'home = "fixed"' 'cpus = "fixed"' 'hostname = "fixed"'
expect_exit 0 "$KDET" scan "$T/keys.toml" --db "$T/keys.db" -q
echo "$NAME: ok"
