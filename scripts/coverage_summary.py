#!/usr/bin/python3
"""Line and toggle coverage per block (rtl/<block>/ and rtl/common/) from a merged verilator_coverage file.

  /usr/bin/python3 scripts/coverage_summary.py merged.dat [--root REPO] [--uncovered]

Each point of a Verilator .dat line `C '<\\001key\\002value...>' count` carries its file (f), line (l)
and kind (page: v_line/..., v_branch/..., v_toggle/...). Line coverage counts the line and branch points.
"""
import argparse
import collections
import os
import re


def points(path):
    for raw in open(path, encoding="latin-1"):
        m = re.match(r"C '(.*)' (\d+)\s*$", raw)
        if not m:
            continue
        fields = dict(kv.split("\x02", 1) for kv in m.group(1).split("\x01") if "\x02" in kv)
        yield fields, int(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dat")
    ap.add_argument("--root", default=".")
    ap.add_argument("--uncovered", action="store_true", help="list the uncovered line points")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    tot = collections.defaultdict(lambda: [0, 0])
    missed = []
    for f, n in points(a.dat):
        path = os.path.relpath(os.path.abspath(f.get("f", "")), root)
        if not path.startswith("rtl/"):
            continue
        block = path.split("/")[1]
        page = f.get("page", "")
        kind = "toggle" if page.startswith("v_toggle") else "line"
        tot[(block, kind)][0] += n > 0
        tot[(block, kind)][1] += 1
        if kind == "line" and n == 0:
            missed.append(f"{path}:{f.get('l', '?')}: {page} {f.get('o', '')}")
    print(f"{'block':10} {'line':>18} {'toggle':>18}")
    for block in sorted({b for b, _ in tot}):
        cells = []
        for kind in ("line", "toggle"):
            c, t = tot.get((block, kind), (0, 0))
            cells.append(f"{c}/{t} {100.0 * c / t:5.1f}%" if t else "-")
        print(f"{block:10} {cells[0]:>18} {cells[1]:>18}")
    if a.uncovered:
        print("\n".join(sorted(missed)))


if __name__ == "__main__":
    main()
