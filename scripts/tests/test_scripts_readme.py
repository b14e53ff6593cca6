#!/usr/bin/python3
"""scripts/README.md names every script of the tree (issue 28 item 5: the scripts' map checked against the tree).

Each entry point (scripts/*.py, scripts/*.sh), each test (scripts/tests/*), each synthesis file (scripts/synth/*),
each dissector (scripts/dissectors/*.lua) and each block folder of the package (scripts/nettwin/<dir>/) must be
named in scripts/README.md; a file added without a line there fails ctest scripts_readme.
  /usr/bin/python3 scripts/tests/test_scripts_readme.py
"""
import glob
import os
import sys

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    readme = open(os.path.join(SCRIPTS, "README.md")).read()
    names = []
    for pattern in ("*.py", "*.sh", "tests/*", "synth/*", "dissectors/*.lua"):
        names += [os.path.basename(p) for p in glob.glob(os.path.join(SCRIPTS, pattern)) if os.path.isfile(p)]
    dirs = [os.path.basename(os.path.dirname(p)) + "/" for p in glob.glob(os.path.join(SCRIPTS, "nettwin", "*", ""))
            if not os.path.basename(os.path.dirname(p)).startswith("__")]
    missing = sorted(n for n in set(names + dirs) if n not in readme)
    for n in missing:
        print("scripts/README.md does not name %s" % n)
    print("scripts_readme: %d names checked, %d missing" % (len(set(names + dirs)), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
