#!/usr/bin/env bash
# Installs what nettwin needs from Debian's archive, only what is missing. Safe to re-run.
# Works as root (no sudo needed, and none on a minimal Debian) and as a user with sudo.
# The commands it runs are checked by scripts/tests/test_setup.sh with stub dpkg-query/apt-get/sudo.
set -euo pipefail
# slurm-wlm + munge: the one-node Slurm that ctest regress_slurm starts on localhost (scripts/slurm_local.sh)
pkgs=(g++ cmake make verilator libsystemc-dev python3-scapy python3-matplotlib tshark libpcap-dev
      libgtest-dev libgmock-dev zlib1g-dev yosys shellcheck clang libclang-rt-14-dev lcov slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
# As root the command runs as is; otherwise through sudo, which must keep DEBIAN_FRONTEND.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo DEBIAN_FRONTEND=noninteractive)
fi
# tshark's package asks whether non-root users may capture; noninteractive takes the default (no).
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
