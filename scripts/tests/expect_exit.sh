# shellcheck shell=bash
# Shared by nettwin/lb/test_plan.sh, nettwin/re/test_scripts.sh and test_loop.sh: `expect RC PATTERN CMD...` runs CMD, which must exit RC and print
# PATTERN (a grep regex); anything else stops the test with `fail`. Needs $W, a scratch directory.
fail() { echo "$(basename "$0"): FAIL: $*" >&2; exit 1; }
expect() {
    local want="$1" pat="$2"; shift 2
    local rc=0
    "$@" >"$W/o.txt" 2>&1 || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$W/o.txt"; fail "expected exit $want from: $*  (got $rc)"; }
    grep -q -- "$pat" "$W/o.txt" || { cat "$W/o.txt"; fail "expected '$pat' from: $*"; }
    echo "  ok (exit $want): $(grep -m1 -- "$pat" "$W/o.txt" | cut -c1-150)"
}
