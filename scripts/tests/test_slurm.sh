#!/usr/bin/env bash
# ctest regress_slurm: the regression and the soak on a real Slurm (nettwin/regress/test_slurm.py), on a
# one-node cluster that this script starts on localhost (scripts/slurm_local.sh: its own ports, config, munge
# key and state in a temporary directory) and stops on every way out (trap), with a watchdog in case this
# script is killed outright.
#
#   bash scripts/tests/test_slurm.sh BUILD_DIR
#
# Exit 77 (ctest SKIP_RETURN_CODE) with "skipped: ..." where Slurm cannot start: not root, or slurm-wlm / munge
# not installed (scripts/setup.sh installs them), or the daemons do not come up.
set -uo pipefail
SKIP=77
BUILD="$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)"
SCRIPTS="$(cd "$(dirname "$0")/.." && pwd)"
W="$(mktemp -d /tmp/nt_slurm_test.XXXXXX)"
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  bash "$SCRIPTS/slurm_local.sh" stop "$W/cluster" > /dev/null 2>&1
  rm -rf "$W"
}
trap cleanup EXIT
trap 'echo "test_slurm: interrupted" >&2; exit 130' INT TERM HUP

# the watchdog stops the daemons 600 s after the start even if this script is killed (ctest TIMEOUT 600;
# the Python part below is bounded at 540 s)
out="$(bash "$SCRIPTS/slurm_local.sh" start "$W/cluster" 600 2>&1)"
rc=$?
if [ "$rc" -ne 0 ]; then
  if [ "$rc" -eq 3 ]; then
    echo "skipped: ${out#slurm_local: }"
    exit $SKIP
  fi
  echo "$out"
  echo "test_slurm: FAIL: slurm_local.sh start exited $rc" >&2
  exit 1
fi
echo "$out"
# shellcheck disable=SC1091
. "$W/cluster/env"
export SLURM_CONF
cd "$SCRIPTS" || exit 1
# In the background in a process group of its own, so that a signal to this script is handled at once (the
# trap kills the whole group: timeout, the test and the nettwin.regress.cli / nettwin.regress.soak it runs) and not after the test.
setsid timeout 540 /usr/bin/python3 -m nettwin.regress.test_slurm "$BUILD" "$W/test" &
child=$!
trap 'echo "test_slurm: interrupted" >&2; kill -TERM -- "-$child" 2>/dev/null; exit 130' INT TERM HUP
wait "$child"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "--- slurmctld.log (tail)"; tail -20 "$W/cluster/slurmctld.log"
  echo "--- slurmd.log (tail)"; tail -20 "$W/cluster/slurmd.log"
fi
exit $rc
