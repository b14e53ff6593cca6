"""A block's descriptor (rtl/<block>/data/<block>.json, docs/blockgen.md): its streams, sideband ports,
counters with their meaning and drop reasons, read by the generator (blockgen.py) and by the checkers, so
the counter list is written once.

    from nettwin.common import blockdesc
    d = blockdesc.load("reorder")
    blockdesc.stats_keys(d)     # the keys `nettwin reorder --stats` writes for the counters
    blockdesc.drop_reasons(d)   # ["malformed", "buffer_full"]
"""
import json
import os

from nettwin.common.paths import ROOT_DIR


def path(block):
    return os.path.join(ROOT_DIR, "rtl", block, "data", block + ".json")


GROUPS_PATH = os.path.join(ROOT_DIR, "rtl", "common", "data", "port_groups.json")


def load(block_or_path):
    p = block_or_path if block_or_path.endswith(".json") else path(block_or_path)
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


class DescriptorError(ValueError):
    pass


def counter_groups(d):
    """The `out` entries that hold counters, in order (a block built around another, e.g. naa around rdma,
    has that block's group first, marked "from", then its own)."""
    return [e for e in d["out"] if "counters" in e]


def counters_group(d):
    """The block's own first counters group (every block has one)."""
    own = [e for e in counter_groups(d) if "from" not in e] or counter_groups(d)
    if not own:
        raise DescriptorError(f"{d['block']}: no counters group in `out`")
    return own[0]


def counters(d):
    return counters_group(d)["list"]


def drop_reasons(d):
    return [c["reason"] for c in counters(d) if c["kind"] == "drop"]


def stats_keys(d):
    """Top-level keys of the stats JSON that the counters fill: each counter's `stats` name, then `drops`."""
    keys = [c["stats"] for c in counters(d) if c.get("stats")]
    if drop_reasons(d):
        keys.append("drops")
    return keys


KINDS = ("in", "out", "drop", "event", "gauge", "peak")


def validate(d, where):
    def fail(msg):
        raise DescriptorError(f"{where}: {msg}")

    for k in ("block", "namespace", "struct_prefix", "rtl_top", "tb_top", "in", "out"):
        if k not in d:
            fail(f"missing key {k!r}")
    names = set()
    for side in ("in", "out"):
        for e in d[side]:
            kinds = [k for k in ("stream", "port", "group", "packed", "counters") if k in e]
            if len(kinds) != 1:
                fail(f"{side} entry {e!r} must have exactly one of stream, port, group, packed, counters")
            if "packed" in e and not (e.get("sv_type") and e.get("ctype")):
                fail(f"packed port {e['packed']!r} needs sv_type (the SV package's struct) and ctype (its C++ struct)")
    if not counter_groups(d):
        fail("no counters group in `out`")
    seen_kinds = set()
    for g, c in [(g, c) for g in counter_groups(d) for c in g["list"]]:
        if c.get("kind") not in KINDS:
            fail(f"counter {c.get('name')!r}: kind must be one of {', '.join(KINDS)}")
        if g["prefix"] + c["name"] in names:
            fail(f"counter {g['prefix'] + c['name']!r} twice")
        names.add(g["prefix"] + c["name"])
        if not c.get("meaning"):
            fail(f"counter {c['name']!r} has no meaning")
        if c["kind"] == "drop" and not c.get("reason"):
            fail(f"drop counter {c['name']!r} has no reason")
        seen_kinds.add(c["kind"])
    for k in ("in", "out"):
        if k not in seen_kinds:
            fail(f"no counter of kind {k!r} (packets_in = packets_out + drops needs both)")
