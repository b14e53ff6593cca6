# Shared by the CLI tests: `check NAME EXIT TEXT CMD...` runs CMD and passes if it exits with EXIT and its
# output contains TEXT; counts into $pass / $fail.
pass=0
fail=0
check() {
  local name=$1 want=$2 text=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL $name: exit $rc (want $want), output:"
    echo "$out" | head -5
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
