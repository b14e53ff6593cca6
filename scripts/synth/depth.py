"""Logic levels from Yosys JSON netlists (`write_json` after synth_xilinx), per module and across the hierarchy.

A logic level is one LUT, MUXF or CARRY cell (docs/synthesis.md "How each figure is measured"); every other cell
(flip-flops, block RAM, URAM, LUTRAM, DSPs, boxed memories, a child module's instance) and every port cuts a
path. This is the measure of Yosys's `ltp w:* t:LUT* t:MUXF* t:CARRY*` (each cell one level, all its inputs to
all its outputs), computed here too because ltp names a path by whatever wire the bit's canonical name happens
to be (mostly ABC's), while the JSON gives every name a bit has and the RTL line (`src`) of the public ones; and
because the per-module netlists can be *stitched*: each instance's port bits joined to its parent's nets, so a
path that crosses module boundaries is followed through them (`stitched`), which a single module's figure cannot.
"""
import collections
import re

LOGIC = re.compile(r"^(LUT[1-6]|MUXF[789]|CARRY[48])$")
LOGIC_INV = re.compile(r"^(LUT[1-6]|MUXF[789]|CARRY[48]|INV)$")
_logic = LOGIC


def _is_logic(cell_type):
    return bool(_logic.match(cell_type))


class _Graph:
    """Bits (hashable keys) and logic cells; a cell reads input bits and drives output bits."""

    def __init__(self):
        self.parent = {}                       # union-find over bit keys (instance ports joined to their nets)
        self.cells = []                        # (name, inputs, outputs)
        self.names = collections.defaultdict(list)  # bit key -> [(name, src)]
        self.ltp_compatible = False
        self.out_ports = set()                 # the top's output port bits (path ends, as cuts are)
        # bit key -> [(cell type, cell, [output bit keys], pin)] of non-logic cells
        self.sinks = collections.defaultdict(list)
        self.sources = {}                      # bit key -> (cell type, RTL line) of the non-logic cell driving it

    def find(self, b):
        p = self.parent.setdefault(b, b)
        while p != b:
            self.parent[b] = self.parent.setdefault(p, p)
            b, p = p, self.parent[p]
        return b

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def add_module(self, modules, mod_name, path, depth=0):
        """Adds module `mod_name` as instance `path` (a tuple), recursing into children present in `modules`
        (the stitched view) or cutting at them (a child that is a blackbox or absent)."""
        mod = modules[mod_name]

        def key(bit):
            return ("c", bit) if isinstance(bit, str) else (path, bit)
        if not path:
            self.out_ports.update(key(b) for pt in mod.get("ports", {}).values() if pt["direction"] != "input"
                                  for b in pt["bits"])
        for net, nn in mod.get("netnames", {}).items():
            if nn.get("hide_name", 0):
                continue
            src = nn.get("attributes", {}).get("src", "")
            for i, bit in enumerate(nn["bits"]):
                if not isinstance(bit, str):
                    label = net if len(nn["bits"]) == 1 else f"{net}[{i + nn.get('offset', 0)}]"
                    self.names[key(bit)].append(("/".join(path + (label,)), src))
        for cname, cell in mod.get("cells", {}).items():
            ctype = cell["type"]
            dirs = cell.get("port_directions", {})
            if _is_logic(ctype):
                ins = [key(b) for p, bs in cell["connections"].items() if dirs.get(p) == "input" for b in bs]
                outs = [key(b) for p, bs in cell["connections"].items() if dirs.get(p) == "output" for b in bs]
                self.cells.append(("/".join(path + (cname,)), ins, outs, ctype))
            elif dirs and not (ctype in modules and modules[ctype].get("cells") is not None):
                # a cut (flip-flop, RAM, box, blackbox child): remembered to name a path's end by what it feeds
                outs = [key(b) for p, bs in cell["connections"].items() if dirs.get(p) == "output" for b in bs]
                csrc = cell.get("attributes", {}).get("src", "")
                for b in outs:
                    self.sources[b] = (ctype, csrc)
                # A flip-flop's clock enable and synchronous set / reset end timing paths as its D input does
                # (a path into the CE pin of a state register was counted by `longest` and missing from the
                # deep-path list: session 27); the clock and the asynchronous clear / preset do not.
                for p, bs in cell["connections"].items():
                    if dirs.get(p) == "input" and p not in ("C", "CLK", "CLR", "PRE"):
                        for b in bs:
                            self.sinks[key(b)].append((ctype, "/".join(path + (cname,)), outs, p))
            if _is_logic(ctype):
                pass
            elif ctype in modules and modules[ctype].get("cells") is not None and depth < 32 \
                    and not modules[ctype].get("attributes", {}).get("blackbox"):
                child = path + (cname,)
                self.add_module(modules, ctype, child, depth + 1)
                cports = modules[ctype]["ports"]
                for p, bs in cell["connections"].items():
                    if p not in cports:
                        continue
                    for pb, cb in zip(bs, cports[p]["bits"]):
                        self.union(key(pb), ("c", cb) if isinstance(cb, str) else (child, cb))

    def longest(self):
        """(levels, [cell names on the path], start bit, end bit) of the longest chain of logic cells."""
        driver = {}
        for i, c in enumerate(self.cells):
            for b in c[2]:
                driver[self.find(b)] = i
        ins = [[self.find(b) for b in c[1]] for c in self.cells]
        level = [0] * len(self.cells)
        pred = [None] * len(self.cells)        # (cell index or None, input bit) the level came from
        state = [0] * len(self.cells)          # 0 new, 1 on stack, 2 done
        for root in range(len(self.cells)):
            if state[root]:
                continue
            stack = [(root, 0)]
            state[root] = 1
            while stack:
                i, k = stack[-1]
                if k < len(ins[i]):
                    stack[-1] = (i, k + 1)
                    j = driver.get(ins[i][k])
                    if j is not None and state[j] == 0:
                        state[j] = 1
                        stack.append((j, 0))
                    continue
                # a cell fed by constants only is a constant (Yosys leaves some such CARRY cells): no level,
                # unless measuring as ltp does (`ltp_compatible`)
                const = not self.ltp_compatible and all(b[0] == "c" for b in ins[i])
                best, arg = (0 if const else 1), (None, ins[i][0] if ins[i] else None)
                for b in ins[i]:
                    j = driver.get(b)
                    if j is not None and state[j] == 2 and level[j] + 1 > best:
                        best, arg = level[j] + 1, (j, b)
                level[i], pred[i], state[i] = best, arg, 2
                stack.pop()
        self.level, self.pred, self.driver = level, pred, driver
        if not self.cells:
            return 0, [], None, None
        end = max(range(len(self.cells)), key=lambda i: level[i])
        path, start_bit = self._trace(end)
        # the last cell's outputs feed no logic (it is the deepest); name the one that reaches a cut or a port
        outs = [self.find(b) for b in self.cells[end][2]]
        used = [b for b in outs if self._is_endpoint(b)]
        end_bit = (used or outs or [None])[0]
        self.deepest_carries = self.carries(path)
        return level[end], [self.cells[i][0] for i in path], start_bit, end_bit

    def carries(self, path):
        """How many of a path's cells are CARRY cells (each counts one level, though a carry chain is much faster
        than a LUT and its net)."""
        return sum(1 for i in path if "carry" in self.cells[i][3].lower() and self.level[i] > 0)

    def _is_endpoint(self, b):
        return any(self.sinks.get(m) or m in self.out_ports for m in self._members(b))

    def _trace(self, end):
        """The cells of the longest path ending at cell `end` and the bit it starts from (a named one if any)."""
        path, i, start_bit = [], end, None
        while i is not None:
            path.append(i)
            j, b = self.pred[i]
            if j is None:
                start_bit = b
            i = j
        path.reverse()
        while len(path) > 1 and self.level[path[0]] == 0:   # constant cells start no path
            path.pop(0)
        first_ins = [self.find(b) for b in self.cells[path[0]][1] if b[0] != "c"]  # not the constants
        named = [b for b in first_ins if self.driver.get(b) is None and self._has_name(b)]
        driven = [b for b in first_ins if any(m in self.sources for m in self._members(b))]
        return path, (named or driven or first_ins or [start_bit])[0]

    def deep_paths(self, threshold):
        """Every path end (a bit that reaches a cut or a port) deeper than `threshold` levels, grouped by the
        start and end signal names without their bit index: [{levels (the deepest), bits, start, end}]."""
        groups = {}
        for i, (_, _, outs, _) in enumerate(self.cells):
            if self.level[i] <= threshold:
                continue
            for b in outs:
                rb = self.find(b)
                if not self._is_endpoint(rb):
                    continue
                _, sb = self._trace(i)
                st, en = self.describe(sb), self.describe(rb, sink=True)
                k = (re.sub(r"\[\d+\]", "[*]", st["signal"]), re.sub(r"\[\d+\]", "[*]", en["signal"]))
                g = groups.setdefault(k, {"levels": 0, "carry": 0, "bits": 0, "start": dict(st, signal=k[0]),
                                          "end": dict(en, signal=k[1])})
                g["bits"] += 1
                if self.level[i] > g["levels"]:
                    g["levels"], g["carry"] = self.level[i], self.carries(self._trace(i)[0])
        return sorted(groups.values(), key=lambda g: -g["levels"])

    def _has_name(self, bit):
        return any(self.find(b) == bit and self.names.get(b) for b in self._members(bit))

    def _members(self, bit):
        if not hasattr(self, "_groups"):
            self._groups = collections.defaultdict(list)
            for b in list(self.parent):
                self._groups[self.find(b)].append(b)
        return self._groups.get(self.find(bit), [bit])

    def describe(self, bit, sink=False):
        """The public names of a bit (the shortest first) and the RTL line of the first that has one; for a path's
        end without a name (a flip-flop's D input), the register it feeds (`sink`)."""
        if bit is None:
            return {"signal": "", "src": ""}
        d = self._describe(bit)
        if not sink and d["signal"] == "(internal)":
            for b in self._members(bit):
                if b in self.sources:
                    ctype, csrc = self.sources[b]
                    return {"signal": f"(unnamed {ctype} output)", "src": csrc}
        if sink and d["signal"] == "(internal)":
            for b in self._members(bit):
                for ctype, cname, outs, pin in self.sinks.get(b, []):
                    what = f"{ctype} {pin}" if pin in ("CE", "R", "S") else f"{ctype} input"
                    if outs:
                        q = self._describe(self.find(outs[0]))
                        if q["signal"] != "(internal)":
                            return dict(q, signal=f"{q['signal']} ({what})")
                    return {"signal": f"{cname} ({what})", "src": ""}
        return d

    def _describe(self, bit):
        group = self._members(bit)
        names = sorted((n for b in group for n in self.names.get(b, [])), key=lambda n: (n[0].count("$"), len(n[0])))
        if not names:
            return {"signal": "(internal)", "src": ""}
        src = next((s for _, s in names if s), "")
        return {"signal": names[0][0], "also": [n for n, _ in names[1:4]], "src": src}


def analyse(modules, top, stitched, threshold=12, inv=False, ltp_compatible=False):
    """Longest path of module `top`: alone (children cut) or stitched through every child in `modules`; and every
    path end deeper than `threshold` levels (`deep`). `inv`: INV cells count as a level too (Yosys emits them
    mostly for active-low resets; Vivado folds an inverter into its neighbouring LUT or flip-flop), instead of
    cutting the path as in ltp's selection. `ltp_compatible`: exactly ltp's measure (a cell fed only by
    constants counts a level too), for the cross-check against Yosys's own figure."""
    global _logic
    _logic = LOGIC_INV if inv else LOGIC
    g = _Graph()
    g.ltp_compatible = ltp_compatible
    if stitched:
        g.add_module(modules, top, ())
    else:
        alone = {top: modules[top]}
        g.add_module(alone, top, ())
    levels, cells, sb, eb = g.longest()
    return {"levels": levels, "carry": getattr(g, "deepest_carries", 0), "start": g.describe(sb),
            "end": g.describe(eb, sink=True), "cells": cells,
            "deep": g.deep_paths(threshold) if g.cells else []}
