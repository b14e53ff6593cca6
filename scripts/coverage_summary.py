#!/usr/bin/python3
"""Line and toggle coverage per block (rtl/<block>/ and rtl/common/) from a merged verilator_coverage file.

  /usr/bin/python3 scripts/coverage_summary.py merged.dat [--root REPO] [--uncovered] [--ranges]
                                                         [--signals BLOCK]

--uncovered lists every uncovered line or branch point; --ranges groups them into ranges of neighbouring
lines per file (the rows of docs/coverage-review.md); --signals BLOCK lists the signals of rtl/BLOCK/ with
bits that never toggled, most untoggled bits first (which buses the tests never drive).

Each point of a Verilator .dat line `C '<\\001key\\002value...>' count` carries its file (f), line (l)
and kind (page: v_line/..., v_branch/..., v_toggle/...). Line coverage counts the line and branch points.
A module instantiated in more than one place (rdma_top alone and inside naa_top; the 64 byte lanes of the RE
buffer) has one point per instance (hierarchy h); they are counted once, covered if any instance covered
it, so a block's figure is the coverage of its source lines, as genhtml shows them.
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


def by_file(missed):
    out = collections.defaultdict(list)
    for path, line, _, _ in missed:
        out[path].append(line)
    return out


def ranges(lines, gap=2):
    """Sorted (first, last, points) of lines no more than `gap` apart."""
    out = []
    for ln in sorted(lines):
        if out and ln - out[-1][1] <= gap:
            out[-1][1] = ln
            out[-1][2] += 1
        else:
            out.append([ln, ln, 1])
    return [tuple(r) for r in out]


def merged(path):
    """{(file, line, column, page, point): count summed over the instances (every field but h)}."""
    out = collections.Counter()
    for f, n in points(path):
        out[tuple(sorted((k, v) for k, v in f.items() if k != "h"))] += n
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dat")
    ap.add_argument("--root", default=".")
    ap.add_argument("--uncovered", action="store_true", help="list the uncovered line points")
    ap.add_argument("--ranges", action="store_true", help="the uncovered lines as ranges per file")
    ap.add_argument("--signals", metavar="BLOCK", help="signals of rtl/BLOCK/ with untoggled bits")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    tot = collections.defaultdict(lambda: [0, 0])
    missed = []
    sig = collections.defaultdict(lambda: [0, 0])  # (file, signal) -> [toggled bits, bits] of --signals
    for key, n in merged(a.dat).items():
        f = dict(key)
        path = os.path.relpath(os.path.abspath(f.get("f", "")), root)
        if not path.startswith("rtl/"):
            continue
        block = path.split("/")[1]
        page = f.get("page", "")
        kind = "toggle" if page.startswith("v_toggle") else "line"
        tot[(block, kind)][0] += n > 0
        tot[(block, kind)][1] += 1
        if kind == "toggle" and block == a.signals:
            s = sig[(os.path.basename(path), re.sub(r"\[\d+\]$", "", f.get("o", "")))]
            s[0] += n > 0
            s[1] += 1
        if kind == "line" and n == 0:
            missed.append((path, int(f.get("l", 0)), page.split("/")[0], f.get("o", "")))
    print(f"{'block':10} {'line':>18} {'toggle':>18}")
    for block in sorted({b for b, _ in tot}):
        cells = []
        for kind in ("line", "toggle"):
            c, t = tot.get((block, kind), (0, 0))
            cells.append(f"{c}/{t} {100.0 * c / t:5.1f}%" if t else "-")
        print(f"{block:10} {cells[0]:>18} {cells[1]:>18}")
    if a.uncovered:
        for path, line, page, what in sorted(set(missed)):
            print(f"{path}:{line}: {page} {what}")
    if a.signals:
        print(f"\n{'signals of rtl/' + a.signals + '/ with untoggled bits':60} {'untoggled':>9} {'bits':>6}")
        for (fn, name), (c, t) in sorted(sig.items(), key=lambda kv: (kv[1][0] - kv[1][1], kv[0])):
            if c < t:
                print(f"{fn + ': ' + name:60} {t - c:9} {t:6}")
    if a.ranges:
        print(f"\n{'uncovered lines':34} points")
        for path, lines in sorted(by_file(missed).items()):
            for lo, hi, n in ranges(lines):
                print(f"{path + ':' + (str(lo) if lo == hi else f'{lo}-{hi}'):34} {n}")


if __name__ == "__main__":
    main()
