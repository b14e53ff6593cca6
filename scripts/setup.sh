#!/usr/bin/env bash
# Installs what nettwin needs from Debian's archive, only what is missing. Safe to re-run.
# Works as root (no sudo needed, and none on a minimal Debian) and as a user with sudo.
# The commands it runs are checked by scripts/tests/test_setup.sh with stub dpkg-query/apt-get/sudo.
set -euo pipefail
# slurm-wlm + munge: the one-node Slurm that ctest regress_slurm starts on localhost (scripts/slurm_local.sh)
pkgs=(g++ cmake make verilator libsystemc-dev python3-scapy python3-matplotlib tshark libpcap-dev
      libgtest-dev libgmock-dev zlib1g-dev yosys shellcheck clang libclang-rt-14-dev lcov slurm-wlm munge)
install_missing() {
  echo "setup: installing ${missing[*]}"
  # As root the command runs as is; otherwise through sudo, which must keep DEBIAN_FRONTEND.
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    as_root=(sudo DEBIAN_FRONTEND=noninteractive)
  fi
  # tshark's package asks whether non-root users may capture; noninteractive takes the default (no).
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# `make synth`'s Yosys: YoWASP's WebAssembly build from npm (Debian's yosys 0.23 cannot read the SV packages;
# docs/synthesis.md), pinned, into the project-local prefix .tools/yosys (gitignored), never globally.
# NT_YOSYS_PREFIX moves it (scripts/tests/test_setup.sh). Needs node + npm (installed above if missing).
YOSYS_NPM_VERSION=0.55.944
install_yosys() {
  local prefix="${NT_YOSYS_PREFIX:-$(cd "$(dirname "$0")/.." && pwd)/.tools/yosys}"
  local have
  have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$prefix/node_modules/@yowasp/yosys/package.json" 2>/dev/null || true)
  if [ "$have" = "$YOSYS_NPM_VERSION" ]; then
    echo "setup: @yowasp/yosys $have present"
    return 0
  fi
  echo "setup: installing @yowasp/yosys@$YOSYS_NPM_VERSION into $prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save "@yowasp/yosys@$YOSYS_NPM_VERSION"
}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node + npm for install_yosys; any install of them will do (Debian's, or one already on PATH)
command -v npm > /dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
else
  install_missing
fi
# Yosys is needed by `make synth` (NT_REQUIRE_YOSYS=1: a failed install fails setup) and by the ctest
# rtl_synth_elab, which skips without it; `make test` / `make regress` on a machine that cannot reach the npm
# registry go on with a warning instead of failing on a tool they do not need.
if ! install_yosys; then
  if [ "${NT_REQUIRE_YOSYS:-0}" = 1 ]; then
    echo "setup: @yowasp/yosys could not be installed; make synth needs it" >&2
    exit 1
  fi
  echo "setup: WARNING: @yowasp/yosys could not be installed (npm registry unreachable?): make synth and the" \
       "ctest rtl_synth_elab (skipped without it) need it" >&2
fi
