"""The regression's results as people and machines read them: summary tables, JUnit XML and JSON."""
import json
import xml.etree.ElementTree as ET


def table_rows(results):
    """(header, rows) of one block's summary table: the block's HEADER, its columns(stats) per run."""
    rows = []
    for res in results:
        r = res.run
        cells = r.columns(res.stats) if r.columns and res.stats else []
        rows.append([r.scenario, "-" if r.seed is None else r.seed, r.mode] + list(cells) +
                    [res.status, "%.1fs" % res.seconds])
    return rows


def pad_rows(header, rows):
    """Rows of a failed run have no stats cells: fill them with '-' so every row has the header's width."""
    out = []
    for row in rows:
        missing = len(header) - len(row)
        out.append(row[:3] + ["-"] * missing + row[3:] if missing > 0 else row)
    return out


def format_table(title, header, rows):
    rows = pad_rows(header, rows)
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = "  ".join("%-*s" % (w, h) for w, h in zip(widths, header)).rstrip()
    out = ["", title, line, "-" * len(line)]
    out += ["  ".join("%-*s" % (w, str(c)) for w, c in zip(widths, r)).rstrip() for r in rows]
    return "\n".join(out)


def totals(results):
    packets = sum(p for p in (r.measure()[0] for r in results) if isinstance(p, int))
    failed = sum(1 for r in results if not r.ok)
    return {"runs": len(results), "passed": len(results) - failed, "failed": failed, "packets": packets}


def failure_text(res):
    return "%s failed at %s\n%s\nreplay: %s" % (res.run.name, res.stage, res.report, res.replay)


def _scalar_props(stats, prefix=""):
    """A stats JSON flattened to name -> value for JUnit properties (lists left out: histograms)."""
    for k, v in stats.items():
        if isinstance(v, dict):
            yield from _scalar_props(v, prefix + k + ".")
        elif not isinstance(v, list):
            yield prefix + k, v


def write_junit(path, results, blocks):
    """One testsuite per block, one testcase per run (classname block.scenario), the run's stats as
    properties, the divergence report / checker output and the replay command as the failure."""
    root = ET.Element("testsuites", name="nettwin regression")
    t = totals(results)
    root.set("tests", str(t["runs"]))
    root.set("failures", str(t["failed"]))
    root.set("time", "%.3f" % sum(r.seconds for r in results))
    for block in blocks:
        rs = [r for r in results if r.run.block == block]
        if not rs:
            continue
        suite = ET.SubElement(root, "testsuite", name=block, tests=str(len(rs)),
                              failures=str(sum(1 for r in rs if not r.ok)), errors="0",
                              time="%.3f" % sum(r.seconds for r in rs))
        for res in rs:
            r = res.run
            case = ET.SubElement(suite, "testcase", classname=r.classname, name=res.run.name[len(r.classname) + 1:],
                                 time="%.3f" % res.seconds)
            props = ET.SubElement(case, "properties")
            packets, cycles = res.measure()
            for k, v in [("seed", "-" if r.seed is None else r.seed), ("engine", r.engine), ("mode", r.mode),
                         ("packets", packets), ("cycles", cycles)] + list(_scalar_props(res.stats, "stats.")):
                ET.SubElement(props, "property", name=k, value=str(v))
            if not res.ok:
                first = res.report.strip().splitlines()[0] if res.report.strip() else res.stage
                fail = ET.SubElement(case, "failure", message="%s: %s" % (res.stage, first), type=res.stage)
                fail.text = failure_text(res)
            ET.SubElement(case, "system-out").text = "replay: " + (res.replay or res.run.replay())
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def run_record(res):
    r = res.run
    packets, cycles = res.measure()
    rec = {"name": r.name, "block": r.block, "scenario": r.scenario, "seed": r.seed, "engine": r.engine,
           "mode": r.mode, "status": res.status, "seconds": round(res.seconds, 3), "packets": packets,
           "cycles": cycles, "command": r.command, "replay": res.replay or r.replay(), "stats": res.stats}
    if not res.ok:
        rec["failure"] = {"stage": res.stage, "report": res.report}
    if res.data:
        rec["data"] = res.data  # what the block's plots draw (a merge of shards draws them from this)
    return rec


def write_json(path, results, meta, head=None):
    """{"summary": totals and meta, "runs": one record per run} plus `head` (a shard's selection, commit, K/N)."""
    with open(path, "w") as f:
        json.dump(dict(head or {}, summary=dict(totals(results), **meta), runs=[run_record(r) for r in results]),
                  f, indent=1)
        f.write("\n")
