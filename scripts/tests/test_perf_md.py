#!/usr/bin/python3
"""docs/PERF.md stays a page of current figures (issue 28 item 5), and what cites it still finds its place.

Checks (ctest perf_md):
- docs/PERF.md has at most MAX_LINES lines (history goes to docs/perf-history.md, not here);
- every section name quoted after "PERF.md" in a tracked file (`docs/PERF.md "Fuzzing"`, `docs/PERF.md,
  "RTL coverage"`, `docs/PERF.md ("OPA VNIC")`) is part of a heading of docs/PERF.md;
- every relative link and image in docs/PERF.md and docs/perf-history.md names an existing file.
  /usr/bin/python3 scripts/tests/test_perf_md.py
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_LINES = 400
CITE = re.compile(r'PERF\.md,?\s*\(?"([^"\n]+)"')
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files"], check=True, capture_output=True, text=True).stdout
        return [f for f in out.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):  # not a checkout (a source archive): walk the tree
        found = []
        for d, dirs, files in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
            found += [os.path.relpath(os.path.join(d, f), ROOT) for f in files]
        return found


def main():
    problems = []
    perf_path = os.path.join(ROOT, "docs", "PERF.md")
    with open(perf_path) as f:
        perf = f.read()
    lines = perf.count("\n")
    if lines > MAX_LINES:
        problems.append("docs/PERF.md has %d lines (at most %d: move superseded figures to docs/perf-history.md)"
                        % (lines, MAX_LINES))
    headings = [ln.lstrip("#").strip() for ln in perf.splitlines() if ln.startswith("#")]

    cited = 0
    for rel in tracked_files():
        # the two pages themselves, and this file (its docstring quotes examples)
        if rel in ("docs/PERF.md", "docs/perf-history.md", "scripts/tests/test_perf_md.py"):
            continue
        path = os.path.join(ROOT, rel)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        for m in CITE.finditer(text):
            cited += 1
            name = m.group(1)
            if not any(name in h for h in headings):
                line = text.count("\n", 0, m.start()) + 1
                problems.append('%s:%d cites docs/PERF.md "%s", which is no heading of docs/PERF.md'
                                % (rel, line, name))

    for doc in ("PERF.md", "perf-history.md"):
        with open(os.path.join(ROOT, "docs", doc)) as f:
            text = f.read()
        for m in LINK.finditer(text):
            target = m.group(1)
            if "://" in target:
                continue
            if not os.path.exists(os.path.join(ROOT, "docs", target)):
                problems.append("docs/%s links to %s, which does not exist" % (doc, target))

    for p in problems:
        print(p)
    print("perf_md: %d lines, %d headings, %d citations checked, %d problems" % (lines, len(headings), cited,
                                                                               len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
