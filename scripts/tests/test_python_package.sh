#!/bin/bash
# ctest python_package (issue 28 item 3): the nettwin Python package installs offline and its commands work.
#   bash scripts/tests/test_python_package.sh
# 1. pyproject.toml + scripts/nettwin are copied to a temporary directory (pip builds there, never in the tree)
#    and installed with `pip install --no-deps --no-build-isolation` into a venv made with
#    --system-site-packages (Scapy, setuptools and pip are Debian's; no index is used);
# 2. from outside the tree, with no PYTHONPATH: the installed package is the one imported; every console command
#    of pyproject.toml loads its main() (with NETTWIN_ROOT, which the tools reading repository files need, and
#    nettwin-re-check says so without it); three commands answer --help;
# 3. one real small run: nettwin-lb-gen -> nettwin-lb-ref -> nettwin-lb-check passes, and a damaged copy
#    (nettwin-common-corrupt-pcap) fails with exit 1;
# 4. every tool module (a main() under scripts/nettwin, tests aside) has a console command, every package
#    folder is in pyproject's packages, and every Lua dissector is installed (nettwin/dissectors);
# 5. no sys.path.insert is left and no scripts/*.py imports the package (no entry-point shim).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$T/src/scripts"
cp "$ROOT/pyproject.toml" "$T/src/"
cp "$ROOT/scripts/README.md" "$T/src/scripts/"
cp -r "$ROOT/scripts/nettwin" "$ROOT/scripts/dissectors" "$T/src/scripts/"
# the block descriptors and nt_pkg.sv (package data nettwin.rtl, pyproject.toml)
(cd "$ROOT" && for f in rtl/*/*_pkg.sv rtl/*/data/*.json; do mkdir -p "$T/src/$(dirname "$f")"; cp "$f" "$T/src/$f"; done)
find "$T/src" -name __pycache__ -prune -exec rm -rf {} +

"$PY" -m venv --without-pip --system-site-packages "$T/venv" || fail "cannot make a venv"
V="$T/venv/bin"
(cd "$T" && env -u PYTHONPATH "$V/python" -m pip install --no-deps --no-build-isolation --no-index -q "$T/src") \
    || fail "pip install --no-deps --no-build-isolation failed"
echo "ok: installed offline into $T/venv"

cd "$T"
unset PYTHONPATH
where=$("$V/python" -c "import nettwin.lb.gen as m; print(m.__file__)")
case "$where" in "$T/venv/"*) ;; *) fail "imported nettwin from $where, not the venv";; esac
# the tools that read files of the repository (vectors/, the Lua dissectors, rtl/common/nt_pkg.sv for
# nettwin.re.check) find it through NETTWIN_ROOT once installed; without it they say so
rc=0
msg=$("$V/nettwin-re-check" --help 2>&1) || rc=$?
if [ "$rc" = 0 ] || ! grep -q "set NETTWIN_ROOT" <<<"$msg"; then
    fail "nettwin-re-check without NETTWIN_ROOT: exit $rc: $msg"
fi
echo "ok: nettwin-re-check outside the tree asks for NETTWIN_ROOT"
n=$(NETTWIN_ROOT="$ROOT" "$V/python" - <<'EOF'
import sys
from importlib.metadata import entry_points
eps = [e for e in entry_points(group="console_scripts") if e.value.startswith("nettwin.")]
bad = []
for e in eps:
    try:
        if not callable(e.load()):
            bad.append(e.name)
    except Exception as ex:  # noqa: BLE001 -- reported
        bad.append("%s (%s)" % (e.name, ex))
if bad or not eps:
    sys.exit("console commands that do not load a main(): %s" % (", ".join(bad) or "none installed"))
print(len(eps))
EOF
) || fail "console commands"
echo "ok: $n console commands, each loads its main()"
for c in nettwin-lb-gen nettwin-rdma-check nettwin-regress; do
    [ -x "$V/$c" ] || fail "no $c in the venv"
    out=$("$V/$c" --help) || fail "$c --help exits $?"
    grep -q "usage: " <<<"$out" || fail "$c --help prints no usage"
done
echo "ok: nettwin-lb-gen, nettwin-rdma-check, nettwin-regress --help"
# every Lua dissector comes along as package data, and the installed paths.DISSECTORS_DIR is that copy
"$V/python" - "$ROOT" <<'EOF' || fail "the installed dissectors"
import glob, os, sys
from nettwin.common.paths import DISSECTORS_DIR
want = sorted(os.path.basename(p) for p in glob.glob(os.path.join(sys.argv[1], "scripts", "dissectors", "*.lua")))
got = sorted(os.path.basename(p) for p in glob.glob(os.path.join(DISSECTORS_DIR, "*.lua")))
if not DISSECTORS_DIR.startswith(sys.prefix) or want != got or not want:
    sys.exit("DISSECTORS_DIR %s has %s, the tree %s" % (DISSECTORS_DIR, got, want))
print("ok: %d Lua dissectors installed in %s" % (len(got), DISSECTORS_DIR))
EOF

"$V/nettwin-lb-gen" --seed 5 --packets 120 --out-dir "$T/lb" >/dev/null
"$V/nettwin-lb-ref" --tables "$T/lb/runsim.txt" --in "$T/lb/packets_in.pcap" --out "$T/lb/exp.pcap" \
    --stats "$T/lb/exp.json" >/dev/null
out=$("$V/nettwin-lb-check" --tables "$T/lb/runsim.txt" --in "$T/lb/packets_in.pcap" --out "$T/lb/exp.pcap" \
    --stats "$T/lb/exp.json") || fail "nettwin-lb-check on the reference's own output: $out"
echo "ok: ${out##*$'\n'}"
"$V/nettwin-common-corrupt-pcap" --in "$T/lb/exp.pcap" --out "$T/lb/bad.pcap" --mode flip-byte >/dev/null
rc=0
"$V/nettwin-lb-check" --tables "$T/lb/runsim.txt" --in "$T/lb/packets_in.pcap" --out "$T/lb/bad.pcap" \
    >/dev/null || rc=$?
[ "$rc" = 1 ] || fail "nettwin-lb-check on a damaged output exits $rc, not 1"
echo "ok: a damaged output fails (exit 1)"

"$PY" - "$ROOT" <<'EOF' || fail "tool modules without a console command"
import glob, os, re, sys
root = sys.argv[1]
toml = open(os.path.join(root, "pyproject.toml")).read()
targets = set(re.findall(r'^"?[\w-]+"?\s*=\s*"(nettwin\.[\w.]+):main"', toml, re.M))
listed = set(re.findall(r'"(nettwin(?:\.\w+)?)"', toml.split("packages = [", 1)[1].split("]", 1)[0]))
folders = ["nettwin"] + ["nettwin." + os.path.basename(os.path.dirname(q))
                         for q in glob.glob(os.path.join(root, "scripts", "nettwin", "*", "__init__.py"))]
missing = ["package %s (not in [tool.setuptools] packages)" % f for f in sorted(folders) if f not in listed]
for d, _, files in os.walk(os.path.join(root, "scripts", "nettwin")):
    for f in files:
        if f.endswith(".py") and not f.startswith("test_"):
            text = open(os.path.join(d, f)).read()
            if re.search(r"^def main\(", text, re.M):
                mod = os.path.relpath(os.path.join(d, f[:-3]), os.path.join(root, "scripts")).replace(os.sep, ".")
                if mod not in targets:
                    missing.append("console command for " + mod)
for m in sorted(missing):
    print("missing: %s" % m)
print("ok: %d console commands in pyproject.toml, every tool module has one" % len(targets))
sys.exit(1 if missing else 0)
EOF

cd "$ROOT"
hits=$(grep -rln "sys\.path\.insert" scripts bench tb --include='*.py' --include='*.sh' | grep -v "tests/test_python_package.sh" || true)
[ -z "$hits" ] || fail "sys.path.insert left in: $hits"
shims=$(grep -lE "^\s*(from|import) nettwin" scripts/*.py || true)
[ -z "$shims" ] || fail "scripts/*.py that import the package (entry-point shims): $shims"
echo "ok: no sys.path.insert, no entry-point shim"
echo "python_package: PASS"
