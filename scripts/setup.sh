#!/usr/bin/env bash
# Installs what nettwin needs from Debian's archive, only what is missing. Safe to re-run.
set -euo pipefail
pkgs=(g++ cmake make verilator libsystemc-dev python3-scapy tshark libpcap-dev libgtest-dev libgmock-dev
      zlib1g-dev yosys)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# tshark's package asks whether non-root users may capture; noninteractive takes the default (no).
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo -E apt-get install -y -q --no-install-recommends "${missing[@]}"
