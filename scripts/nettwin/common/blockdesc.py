"""A block's descriptor (rtl/<block>/data/<block>.json, docs/blockgen.md): its streams, sideband ports,
counters with their meaning and drop reasons, read by the generator (blockgen.py) and by the checkers, so
the counter list is written once.

    from nettwin.common import blockdesc
    d = blockdesc.load("reorder")
    blockdesc.stats_keys(d)     # the keys `nettwin reorder --stats` writes for the counters
    blockdesc.drop_reasons(d)   # ["malformed", "buffer_full"]

A number in a descriptor (a width, an array's `count`) is an integer or a parameter name of
rtl/common/nt_pkg.sv (`"LbDropReasons"`, also `"nt_pkg::LbDropReasons"`); `resolve` gives its value.
"""
import functools
import glob
import json
import os
import re

from nettwin.common.paths import DESCRIPTOR_RTL_DIR


def path(block):
    """rtl/<block>/data/<block>.json, or rtl/<dir>/data/<block>.json for a block whose RTL shares a folder
    (udplb in rtl/lb/; the descriptor then says "rtl_dir": "lb")."""
    own = os.path.join(DESCRIPTOR_RTL_DIR, block, "data", block + ".json")
    if os.path.exists(own):
        return own
    found = sorted(glob.glob(os.path.join(DESCRIPTOR_RTL_DIR, "*", "data", block + ".json")))
    return found[0] if found else own


GROUPS_PATH = os.path.join(DESCRIPTOR_RTL_DIR, "common", "data", "port_groups.json")


def load(block_or_path):
    p = block_or_path if block_or_path.endswith(".json") else path(block_or_path)
    if not os.path.exists(p):
        raise DescriptorError(f"no block descriptor {p} (an installed nettwin finds the repository through "
                              "NETTWIN_ROOT: set NETTWIN_ROOT to the repository)")
    with open(p) as f:
        d = json.load(f)
    expand(d, p)
    validate(d, p)
    return d


def expand(d, where, seen=()):
    """Resolves, in place, `{"include": "<block>"}` (that block's entries of the same side, each marked with
    "from": its block and "from_ns": its namespace) and `{"use": "<group>"}` (the shared group of
    rtl/common/data/port_groups.json, the entry's own keys overriding)."""
    groups = None
    for side in ("in", "out"):
        res = []
        for e in d.get(side, []):
            if "include" in e:
                other = e["include"]
                if other in seen or other == d.get("block"):
                    raise DescriptorError(f"{where}: include cycle through {other!r}")
                with open(path(other)) as f:
                    o = json.load(f)
                expand(o, path(other), seen + (d.get("block"),))
                rename = e.get("rename", {})  # C++ member names of the included entries: {old: new}
                for x in o.get(side, []):
                    x = dict(x)
                    for k in ("counters", "group", "field"):
                        if x.get(k) in rename:
                            x[k] = rename[x[k]]
                    for k in ("port", "packed", "stream"):
                        if k in x and "field" not in x and x[k] in rename:
                            x["field"] = rename[x[k]]
                    x.setdefault("from", o["block"])
                    x.setdefault("from_ns", o["namespace"])
                    x.setdefault("from_prefix", o["struct_prefix"])
                    res.append(x)
            elif "use" in e:
                if groups is None:
                    with open(GROUPS_PATH) as f:
                        groups = json.load(f)
                if e["use"] not in groups or e["use"] == "about":
                    raise DescriptorError(f"{where}: no shared port group {e['use']!r} in {GROUPS_PATH}")
                x = dict(groups[e["use"]])
                x.update({k: v for k, v in e.items() if k != "use"})
                res.append(x)
            else:
                res.append(e)
        if side in d:
            d[side] = res
@functools.lru_cache(maxsize=None)
def block_drop_reasons(block):
    """drop_reasons of a block's descriptor, read once: for the checkers, which call it when they first need
    the list (not at import, so a tool whose --help imports them starts without the repository)."""
    return tuple(drop_reasons(load(block)))


class DescriptorError(ValueError):
    pass


def counter_groups(d):
    """The `out` entries that hold counters, in order (a block built around another, e.g. naa around rdma,
    has that block's group first, marked "from", then its own)."""
    return [e for e in d["out"] if "counters" in e]


@functools.lru_cache(maxsize=None)
def sv_params():
    """{name: value} of every `localparam int unsigned Name = <literal>;` of rtl/common/nt_pkg.sv (the lines
    CMake turns into nt_params.h's params::kName)."""
    with open(os.path.join(DESCRIPTOR_RTL_DIR, "common", "nt_pkg.sv")) as f:
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r"localparam\s+int\s+unsigned\s+(\w+)\s*=\s*(\d+)\s*;", f.read())}


@functools.lru_cache(maxsize=None)
def pkg_param(name):
    """The value of `pkg::Name`, a `Name = <literal>` localparam of another package rtl/*/pkg.sv (rdma_pkg::
    NumDrops), or None."""
    pkg, _, n = name.partition("::")
    for f in sorted(glob.glob(os.path.join(DESCRIPTOR_RTL_DIR, "*", pkg + ".sv"))):
        with open(f) as fh:
            m = re.search(r"\b" + n + r"\s*=\s*(\d+)\s*[,;]", fh.read())
        if m:
            return int(m.group(1))
    return None


def resolve(x):
    """The value of a descriptor number: an int, an nt_pkg parameter name, or a product of them ("A*B")."""
    if isinstance(x, bool):
        raise DescriptorError(f"{x!r} is not a number")
    if isinstance(x, int):
        return x
    v = 1
    for part in str(x).split("*"):
        part = part.strip()
        if part.startswith("nt_pkg::"):
            part = part[len("nt_pkg::"):]
        if part.isdigit():
            v *= int(part)
        elif part in sv_params():
            v *= sv_params()[part]
        elif "::" in part and pkg_param(part) is not None:
            v *= pkg_param(part)
        else:
            raise DescriptorError(f"{x!r}: {part!r} is neither a number nor a parameter of rtl/common/nt_pkg.sv")
    return v


def count(c):
    """An array counter's element count (None for a scalar counter)."""
    return resolve(c["count"]) if "count" in c else None


def counter_width(cg, c):
    """A counter's element width: its own `width`, else its group's (a number or an nt_pkg name)."""
    return c.get("width", cg["width"])


def counters_group(d):
    """The block's own first counters group (every block has one)."""
    own = [e for e in counter_groups(d) if "from" not in e] or counter_groups(d)
    if not own:
        raise DescriptorError(f"{d['block']}: no counters group in `out`")
    return own[0]


def tops(d):
    """[(variant, rtl_top, tb_top)]: the block's RTL tops. One, with variant None, unless the descriptor has
    `variants` (several tops with the same ports and one model, e.g. vnic's encap and decap directions)."""
    if "variants" in d:
        return [(v["name"], v["rtl_top"], v["tb_top"]) for v in d["variants"]["list"]]
    return [(None, d["rtl_top"], d["tb_top"])]


def variants(d):
    """The variant names ([] for a block with one top)."""
    return [v for v, _, _ in tops(d) if v is not None]


def counters(d):
    return counters_group(d)["list"]


def reasons(c, variant=None):
    """[(index or None, reason)] of a drop counter: one for a scalar, every named index of an array. An array
    whose reasons differ per variant ({variant: [names]}, vnic): that variant's; with no variant given, every
    index some variant names (named as the first variant that names it: what the accounting sums)."""
    if "count" not in c:
        return [(None, c["reason"])]
    rs = c["reasons"]
    if isinstance(rs, dict):
        if variant is not None:
            rs = rs[variant]
        else:
            lists = list(rs.values())
            rs = [next((r[i] for r in lists if r[i]), None) for i in range(len(lists[0]))]
    return [(i, r) for i, r in enumerate(rs) if r]


def drop_reasons(d, variant=None):
    """Every drop reason of the block (of one variant), in the descriptor's order (an array's named indexes in
    index order)."""
    return [r for c in counters(d) if c["kind"] == "drop" for _, r in reasons(c, variant)]


def stats_keys(d):
    """Top-level keys of the stats JSON that the counters fill: each counter's `stats` name, then `drops`,
    then the tables of `stats_rows` (udplb's "instances")."""
    keys = [c["stats"] for c in counters(d) if c.get("stats") and not c.get("stats_row")]
    if drop_reasons(d):
        keys.append("drops")
    return keys + list(counters_group(d).get("stats_rows", {}))


def stats_row_columns(d, row):
    """The keys of one object of a `stats_rows` table: its index key, then each array's `stats` name."""
    return [counters_group(d)["stats_rows"][row]] + [c["stats"] for c in counters(d) if c.get("stats_row") == row]


ENTRY_KINDS = ("stream", "port", "group", "packed", "cfg", "counters")
KINDS = ("in", "out", "drop", "event", "gauge", "peak")


def validate(d, where):
    def fail(msg):
        raise DescriptorError(f"{where}: {msg}")

    for k in ("block", "namespace", "struct_prefix", "in", "out") + (() if "variants" in d else ("rtl_top", "tb_top")):
        if k not in d:
            fail(f"missing key {k!r}")
    for v in d.get("variants", {}).get("list", []):
        for k in ("name", "enumerator", "rtl_top", "tb_top"):
            if k not in v:
                fail(f"variant {v!r}: missing key {k!r}")
    names = set()
    for side in ("in", "out"):
        for e in d[side]:
            kinds = [k for k in ENTRY_KINDS if k in e]
            if len(kinds) != 1:
                fail(f"{side} entry {e!r} must have exactly one of {', '.join(ENTRY_KINDS)}")
            if "cfg" in e and side != "in":
                fail("the cfg (table-programming) port is an input")
            if "packed" in e and not (e.get("sv_type") and e.get("ctype")):
                fail(f"packed port {e['packed']!r} needs sv_type (the SV package's struct) and ctype (its C++ struct)")
    if not counter_groups(d):
        fail("no counters group in `out`")
    seen_kinds = set()
    rows_of = {r: set() for g in counter_groups(d) for r in g.get("stats_rows", {})}
    for g, c in [(g, c) for g in counter_groups(d) for c in g["list"]]:
        if c.get("kind") not in KINDS:
            fail(f"counter {c.get('name')!r}: kind must be one of {', '.join(KINDS)}")
        if g["prefix"] + c["name"] in names:
            fail(f"counter {g['prefix'] + c['name']!r} twice")
        names.add(g["prefix"] + c["name"])
        if not c.get("meaning"):
            fail(f"counter {c['name']!r} has no meaning")
        if "count" in c:
            n = count(c)
            if n < 1:
                fail(f"counter {c['name']!r}: count {c['count']!r} must be at least 1")
            if c["kind"] in ("in", "out"):
                fail(f"counter {c['name']!r}: an {c['kind']!r} counter is one number, not an array")
            if c["kind"] == "drop":
                rs = c.get("reasons")
                if isinstance(rs, dict):  # per variant
                    if sorted(rs) != sorted(variants(d)):
                        fail(f"drop counter array {c['name']!r}: `reasons` per variant needs one list for each of "
                             f"{', '.join(variants(d)) or '(no variants)'}")
                    lists = list(rs.values())
                else:
                    lists = [rs]
                for rs in lists:
                    if not isinstance(rs, list) or len(rs) != n:
                        fail(f"drop counter array {c['name']!r} needs `reasons`, one per index ({n}; null or \"\" "
                             f"for an index that is not a drop)")
                    if not any(rs) or "reason" in c:
                        fail(f"drop counter array {c['name']!r}: name its reasons in `reasons`, not `reason`")
            elif "reasons" in c:
                fail(f"counter {c['name']!r}: `reasons` only on a drop counter")
        elif c["kind"] == "drop" and not c.get("reason"):
            fail(f"drop counter {c['name']!r} has no reason")
        if c.get("stats_row"):
            rows = g.get("stats_rows", {})
            if c["stats_row"] not in rows or "count" not in c or not c.get("stats"):
                fail(f"counter {c['name']!r}: stats_row needs an array with a `stats` key and the row table "
                     f"in its group's `stats_rows` ({{table: index key}})")
            rows_of[c["stats_row"]].add(count(c))
        w = resolve(counter_width(g, c))
        if not 1 <= w <= 64:
            fail(f"counter {c['name']!r}: width {w} (a counter is 1 to 64 bits)")
        seen_kinds.add(c["kind"])
    for r, counts in rows_of.items():
        if len(counts) != 1:
            fail(f"stats_rows table {r!r}: its arrays must have one same count (have {sorted(counts)})")
    for v in variants(d) or [None]:
        dr = drop_reasons(d, v)
        dup = [r for r in set(dr) if dr.count(r) > 1]
        if dup:
            fail(f"drop reason(s) {', '.join(sorted(dup))} named twice")
    for k in ("in", "out"):
        if k not in seen_kinds:
            fail(f"no counter of kind {k!r} (packets_in = packets_out + drops needs both)")
