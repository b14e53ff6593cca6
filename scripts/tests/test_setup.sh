#!/usr/bin/env bash
# Checks the exact commands scripts/setup.sh runs, without installing anything: stub dpkg-query, apt-get,
# sudo and id come first on PATH and log what they are asked to do.
#
#   bash scripts/tests/test_setup.sh
#
# Cases: as root (no sudo on the box: the stub sudo fails if called) and as a user (through sudo), with
# some packages missing (among them slurm-wlm and munge, which ctest regress_slurm needs): `apt-get update` once, then `apt-get install -y` of exactly the missing ones,
# DEBIAN_FRONTEND=noninteractive seen by apt-get (the stub sudo clears the environment as sudo's
# env_reset does, so it must be passed on the command line); nothing run when nothing is missing; a
# failing apt-get update or install makes setup.sh fail.
set -euo pipefail
SETUP="$(cd "$(dirname "$0")/.." && pwd)/setup.sh"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
STUBS="$W/bin"
LOG="$W/log"
mkdir -p "$STUBS"

# dpkg-query -W -f='${Status}' PKG: installed unless PKG is in $W/missing.
cat > "$STUBS/dpkg-query" <<EOF
#!/usr/bin/env bash
pkg="\${*: -1}"
if grep -qxF -- "\$pkg" "$W/missing"; then
  echo "dpkg-query: no packages found matching \$pkg" >&2; exit 1
fi
printf 'install ok installed'
EOF
# apt-get: logs its arguments, whether sudo ran it and the DEBIAN_FRONTEND it sees; $W/apt_fail names
# the subcommand (update / install) that fails.
cat > "$STUBS/apt-get" <<EOF
#!/usr/bin/env bash
echo "apt-get \$* [via_sudo=\${STUB_VIA_SUDO:-0} DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-unset}]" >> "$LOG"
for a in "\$@"; do
  if [ -f "$W/apt_fail" ] && [ "\$a" = "\$(cat "$W/apt_fail")" ]; then echo "E: stub failure" >&2; exit 100; fi
done
EOF
# sudo VAR=VALUE... CMD...: logged, then CMD runs in an environment holding only PATH and the
# VAR=VALUE arguments (sudo's env_reset).  As root there is no sudo at all.
cat > "$STUBS/sudo" <<EOF
#!/usr/bin/env bash
if [ "\$(cat "$W/uid")" = 0 ]; then echo "bash: sudo: command not found" >&2; exit 127; fi
echo "sudo \$*" >> "$LOG"
exec env -i PATH="\$PATH" STUB_VIA_SUDO=1 "\$@"
EOF
# npm: logs its arguments to $W/npmlog and "installs" the package's package.json under --prefix (as npm would);
# $W/npm_fail makes it fail.
cat > "$STUBS/npm" <<EOF
#!/usr/bin/env bash
echo "npm \$*" >> "$W/npmlog"
if [ -f "$W/npm_fail" ]; then echo "npm ERR! stub failure" >&2; exit 1; fi
prefix=""; while [ \$# -gt 0 ]; do if [ "\$1" = --prefix ]; then prefix="\$2"; fi; shift; done
mkdir -p "\$prefix/node_modules/@yowasp/yosys"
printf '{\\n  "name": "@yowasp/yosys",\\n  "version": "0.55.944",\\n}\\n' > "\$prefix/node_modules/@yowasp/yosys/package.json"
EOF
cat > "$STUBS/id" <<EOF
#!/usr/bin/env bash
if [ "\${1:-}" = -u ]; then cat "$W/uid"; else echo "uid=\$(cat "$W/uid")"; fi
EOF
chmod +x "$STUBS"/*

fail() { echo "test_setup: FAIL: $*" >&2; exit 1; }
# run_setup UID MISSING...: runs setup.sh with the stubs, status in $rc, output in $W/out.
run_setup() {
  echo "$1" > "$W/uid"; shift
  printf '%s\n' "$@" > "$W/missing"
  : > "$LOG"
  rc=0
  env -u DEBIAN_FRONTEND NT_YOSYS_PREFIX="$W/yosys" PATH="$STUBS:$PATH" bash "$SETUP" > "$W/out" 2>&1 || rc=$?
}
# expect_log TEXT: the stubs' log is exactly TEXT.
expect_log() {
  if ! diff -u <(if [ -n "$1" ]; then printf '%s\n' "$1"; fi) "$LOG"; then
    cat "$W/out"; fail "$2: unexpected commands (- expected, + run)"
  fi
  echo "  ok: $2"
}
NI="DEBIAN_FRONTEND=noninteractive"
INSTALL="install -y -q --no-install-recommends"

echo "== as root, verilator and tshark missing"
run_setup 0 verilator tshark
[ "$rc" -eq 0 ] || { cat "$W/out"; fail "setup.sh exited $rc as root"; }
expect_log "apt-get update -q [via_sudo=0 $NI]
apt-get $INSTALL verilator tshark [via_sudo=0 $NI]" "root: update once, install only the missing, no sudo"
grep -q "setup: installing verilator tshark" "$W/out" || fail "root: no 'installing' line"

echo "== as a user, python3-scapy missing"
run_setup 1000 python3-scapy
[ "$rc" -eq 0 ] || { cat "$W/out"; fail "setup.sh exited $rc as a user"; }
expect_log "sudo $NI apt-get update -q
apt-get update -q [via_sudo=1 $NI]
sudo $NI apt-get $INSTALL python3-scapy
apt-get $INSTALL python3-scapy [via_sudo=1 $NI]" "user: through sudo, DEBIAN_FRONTEND passed through it"

echo "== as root, Slurm missing (ctest regress_slurm's one-node cluster: slurmctld, slurmd, munged)"
run_setup 0 slurm-wlm munge
[ "$rc" -eq 0 ] || { cat "$W/out"; fail "setup.sh exited $rc as root"; }
expect_log "apt-get update -q [via_sudo=0 $NI]
apt-get $INSTALL slurm-wlm munge [via_sudo=0 $NI]" "root: slurm-wlm and munge are in the list"

echo "== nothing missing"
for uid in 0 1000; do
  run_setup "$uid"
  [ "$rc" -eq 0 ] || fail "uid $uid: setup.sh exited $rc with nothing missing"
  expect_log "" "uid $uid: nothing run when every package is present"
  grep -q "all packages present" "$W/out" || fail "uid $uid: no 'all packages present' line"
done

echo "== @yowasp/yosys (make synth): installed once into the project-local prefix, pinned, then left alone"
rm -rf "$W/yosys"; : > "$W/npmlog"
run_setup 0
[ "$rc" -eq 0 ] || { cat "$W/out"; fail "setup.sh exited $rc installing yosys"; }
expected="npm install --prefix $W/yosys --no-audit --no-fund --no-save @yowasp/yosys@0.55.944"
[ "$(cat "$W/npmlog")" = "$expected" ] || { cat "$W/npmlog"; fail "yosys: expected exactly '$expected'"; }
echo "  ok: one pinned npm install into the prefix"
: > "$W/npmlog"
run_setup 1000
[ ! -s "$W/npmlog" ] || { cat "$W/npmlog"; fail "yosys: npm ran although 0.55.944 is present"; }
grep -q "@yowasp/yosys 0.55.944 present" "$W/out" || fail "yosys: no 'present' line"
echo "  ok: nothing run when the pinned version is present"
rm -rf "$W/yosys"; touch "$W/npm_fail"
export NT_REQUIRE_YOSYS=1
run_setup 0
unset NT_REQUIRE_YOSYS
[ "$rc" -ne 0 ] || { cat "$W/out"; fail "setup.sh exited 0 although npm install failed (make synth)"; }
echo "  ok: a failing npm install makes setup.sh fail for make synth (exit $rc)"
run_setup 0
[ "$rc" -eq 0 ] || { cat "$W/out"; fail "setup.sh exited $rc: a failed yosys install must only warn for make test"; }
grep -q "WARNING: @yowasp/yosys could not be installed" "$W/out" || { cat "$W/out"; fail "no warning"; }
rm -f "$W/npm_fail"
echo "  ok: without NT_REQUIRE_YOSYS a failing npm install is a warning (make test / regress go on)"

echo "== apt-get fails"
for step in update install; do
  for uid in 0 1000; do
    echo "$step" > "$W/apt_fail"
    run_setup "$uid" lcov
    [ "$rc" -ne 0 ] || { cat "$W/out"; fail "uid $uid: setup.sh exited 0 although apt-get $step failed"; }
    if [ "$step" = update ] && grep -q " install " "$LOG"; then fail "uid $uid: install ran after update failed"; fi
    echo "  ok: uid $uid: a failing apt-get $step makes setup.sh fail (exit $rc)"
  done
done
rm -f "$W/apt_fail"
echo "test_setup: PASS"
