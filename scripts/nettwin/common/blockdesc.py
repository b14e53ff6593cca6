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


def load(block_or_path):
    p = block_or_path if block_or_path.endswith(".json") else path(block_or_path)
    with open(p) as f:
        d = json.load(f)
    validate(d, p)
    return d


class DescriptorError(ValueError):
    pass


def counters_group(d):
    """The `out` entry that holds the counters (every block has one)."""
    for e in d["out"]:
        if "counters" in e:
            return e
    raise DescriptorError(f"{d['block']}: no counters group in `out`")


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
            kinds = [k for k in ("stream", "port", "group", "counters") if k in e]
            if len(kinds) != 1:
                fail(f"{side} entry {e!r} must have exactly one of stream, port, group, counters")
    cg = counters_group(d)
    seen_kinds = set()
    for c in cg["list"]:
        if c.get("kind") not in KINDS:
            fail(f"counter {c.get('name')!r}: kind must be one of {', '.join(KINDS)}")
        if c["name"] in names:
            fail(f"counter {c['name']!r} twice")
        names.add(c["name"])
        if not c.get("meaning"):
            fail(f"counter {c['name']!r} has no meaning")
        if c["kind"] == "drop" and not c.get("reason"):
            fail(f"drop counter {c['name']!r} has no reason")
        seen_kinds.add(c["kind"])
    for k in ("in", "out"):
        if k not in seen_kinds:
            fail(f"no counter of kind {k!r} (packets_in = packets_out + drops needs both)")
