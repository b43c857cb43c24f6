#!/usr/bin/env bash
# tier: quick
# exec_slots.sh: with --jobs N every slot's exec compiler sees the same
# {output}, {workdir} and working directory (a private mount namespace per
# slot), so a compiler that writes those paths into its output is
# DETERMINISTIC at -j 2. Without the namespace (KDET_SLOT_NAMESPACE=off, the
# fallback where namespaces are not allowed) the same run varies and the
# summary says why. The path and cwd factors still vary paths on purpose, and
# no mount leaks to the host.
source "$(dirname "$0")/lib/common.bash"

# embed: writes the paths it was given and its cwd into {output}.
cat >"$T/embed" <<'EOF'
#!/bin/sh
if [ "$1" = --version ]; then echo "embed 1.0"; exit 0; fi
printf 'input=%s output=%s workdir=%s cwd=%s\n' "$1" "$2" "$3" "$PWD" >"$2"
cat "$1" >>"$2"
EOF
chmod +x "$T/embed"
echo 'kernel' >"$T/k.txt"
cmd="$T/embed {input} {output} {workdir}"

# The fallback first: it shows the check below can fail.
KDET_SLOT_NAMESPACE=off expect_exit 1 "$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 8 -j 2 --seed 1 --json "$T/off.json"
expect_output "NONDETERMINISTIC"
expect_output "slots     each slot has its own folder"
[[ $(json_get "$T/off.json" '["exec"]["slot_paths"]') == per-slot ]] || fail "JSON does not say per-slot"

"$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 2 -j 2 --json "$T/probe.json" >/dev/null 2>&1 || true
if [[ $(json_get "$T/probe.json" '["exec"]["slot_paths"]') != shared ]]; then
  skip "mount namespaces are not available here: $(json_get "$T/probe.json" '["exec"].get("slot_paths_reason")')"
fi
expect_exit 0 "$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 8 -j 2 --seed 1 --json "$T/on.json"
expect_output "NO VARIANCE SEEN in 8 runs"
grep -q "each slot has its own folder" "$T/out" && fail "the summary claims per-slot folders"
# -j 1 and -j 2 give the same output (one path for every slot).
"$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 2 -j 1 --out "$T/r1" >/dev/null
"$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 4 -j 2 --out "$T/r2" >/dev/null
a=$(cat "$T"/r1/variants/*/* 2>/dev/null | grep output= | sed 's/kdet-[^/]*/S/g')
b=$(cat "$T"/r2/variants/*/* 2>/dev/null | grep output= | sed 's/kdet-[^/]*/S/g')
[[ -n $a && $a == "$b" ]] || fail "-j 1 and -j 2 paths differ: '$a' vs '$b'"

# The factors that vary paths on purpose still do.
expect_exit 1 "$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 6 -j 2 --cwd vary
expect_exit 1 "$KDET" run "$T/k.txt" --unnamed natural --cmd "$cmd" -n 6 -j 2 --path vary

# The binds stayed in the workers' namespaces: no kdet folder is mounted on the host. The tests'
# own folders (kdet-e2e-NAME.*) are not kdet's: e2e.storage_full, which may run meanwhile, mounts
# small file systems in its folder on the host, and this check then failed.
if grep "/kdet-" /proc/self/mountinfo | grep -qv "/kdet-e2e-"; then
  fail "a kdet folder is mounted on the host: $(grep "/kdet-" /proc/self/mountinfo | grep -v "/kdet-e2e-")"
fi
echo "ok: exec slots"
