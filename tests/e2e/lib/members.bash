# Two non-root members of one shared cache, for the cache's trust and bounds tests: the victim
# (uid 65532) and the attacker (uid 65533), both of group 65530, each with a folder of its own
# under $T ($T/v, $T/a). Sourced after common.bash; skips the test where that cannot be set up.
CC=$KDET_FAKES_DIR/fake_cc
[[ -x $CC ]] || skip "fake compilers not built (ninja kdet_test_fakes)"
[[ $(id -u) == 0 ]] || skip "needs root to act as two other uids"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
group=65530
victim=(setpriv --reuid 65532 --regid "$group" --clear-groups)
attacker=(setpriv --reuid 65533 --regid "$group" --clear-groups)
chmod 755 "$T"
for who in victim attacker; do
  declare -n ref=$who
  "${ref[@]}" "$KDET" --version >/dev/null 2>&1 || skip "the $who cannot run $KDET (a private folder above it)"
  "${ref[@]}" test -x "$CC" || skip "the $who cannot run $CC"
done
mkdir -p "$T/v" "$T/a"
chown 65532 "$T/v"
chown 65533 "$T/a"

# fresh NAME: a new shared cache folder $C (root's, the group's, 2775).
fresh() {
  C=$T/$1
  mkdir -p "$C"
  chgrp "$group" "$C"
  chmod 2775 "$C"
}
# as WHO FILE [FAKE_CC_ENV] [kdet cc options]: WHO compiles FILE (env mode) into $T/<who>/out.
as() {
  local who=$1 file=$2 env=${3:-} dir=v
  shift 3
  [[ $who == attacker ]] && dir=a
  declare -n run=$who
  env ${env:+FAKE_CC_ENV=$env} "${run[@]}" "$KDET" cc "$file" --dir "$C" -o "$T/$dir/out" "$@" \
    -- "$CC" env {input} {output}
}
