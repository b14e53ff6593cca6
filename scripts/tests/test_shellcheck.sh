#!/usr/bin/env bash
# Runs ShellCheck (all its checks, following sourced files) on every shell script of the repository: the
# ones git tracks, or every *.sh below the root when this is not a git checkout.
set -euo pipefail
cd "$(dirname "$0")/../.."
# (the root of a checkout itself: a copy unpacked inside another checkout, e.g. mutate.py's scratch tree
# under an ignored build directory, is not one)
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
  mapfile -t files < <(git ls-files '*.sh')
else
  mapfile -t files < <(find . -name '*.sh' -not -path './build*' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "shellcheck: no shell scripts found" >&2; exit 1; }
shellcheck -x "${files[@]}"
echo "shellcheck: ${#files[@]} scripts clean"
