"""--report DIR: DIR/index.html with the summary, every run in its block's table, the failures with their
replay commands, and PNG plots (each block's own, plus throughput per run)."""
import html
import os

from nettwin.regress.registry import block_module
from nettwin.regress.results import failure_text, pad_rows, table_rows, totals
from nettwin.regress.run import Figure

CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1300px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; }
th { background: #f0f0f0; position: sticky; top: 0; }
td:nth-child(-n+3) { text-align: left; }
tr.FAIL td { background: #fdd; } td.ok { color: #070; } td.FAIL { color: #b00; font-weight: bold; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.5em; overflow-x: auto; font-size: 0.8em; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; max-width: 900px; }
.summary td:first-child { text-align: left; }
details { margin: 0.5em 0; }
"""


def _throughput(results, out_dir):
    """Input beats per cycle (offered load the design took) and simulated cycles per second, per run."""
    from nettwin.regress.plot import plt, save
    pts = [(i, r) for i, r in enumerate(results) if r.ok and isinstance(r.stats.get("cycles"), int)
           and r.stats["cycles"] > 0]
    if not pts:
        return []
    blocks = list(dict.fromkeys(r.run.block for r in results))
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(11, 6.5), sharex=True)
    speeds = [r.stats["cycles"] / max(r.seconds, 1e-3) / 1e3 for _, r in pts]
    for n, b in enumerate(blocks):
        sel = [(i, r) for i, r in pts if r.run.block == b]
        color = "C%d" % n
        beats = [(i, r.stats["in_beats"] / r.stats["cycles"]) for i, r in sel
                 if isinstance(r.stats.get("in_beats"), int)]
        ax1.scatter([i for i, _ in beats], [v for _, v in beats], s=10, color=color, label=b)
        ax2.scatter([i for i, _ in sel], [r.stats["cycles"] / max(r.seconds, 1e-3) / 1e3 for _, r in sel], s=10,
                    color=color, label=b)
    ax1.set_ylabel("input beats / cycle")
    ax1.set_ylim(bottom=0)
    ax1.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax2.set_ylabel("simulated kcycles / s\n(lockstep + checks)")
    ax2.set_xlabel("run (in list order: the tables below)")
    ax2.set_yscale("log")
    ax2.set_ylim(min(speeds) / 2, max(speeds) * 2)  # scatter's autoscale misses points on a log axis
    ax2.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    path = os.path.join(out_dir, "throughput.png")
    save(fig, path)
    return [Figure("Throughput per run", path,
                   "Top: input beats per cycle, the load each run put through the design (1.0 = line rate; "
                   "timed and latency-bound runs are lower by construction). Bottom: simulation speed, cycles "
                   "per wall second of the run including its independent checks.")]


def _table(header, rows, names):
    rows = pad_rows(header, rows)
    out = ["<table><tr>%s<th>run</th></tr>" % "".join("<th>%s</th>" % html.escape(h) for h in header)]
    for row, name in zip(rows, names):
        status = row[-2]
        cells = "".join('<td class="%s">%s</td>' % (html.escape(str(c)) if i == len(row) - 2 else "",
                                                     html.escape(str(c))) for i, c in enumerate(row))
        out.append('<tr class="%s" id="%s">%s<td>%s</td></tr>' % (status, html.escape(name), cells,
                                                                  html.escape(name)))
    out.append("</table>")
    return "\n".join(out)


def write_report(out_dir, results, blocks, meta):
    os.makedirs(out_dir, exist_ok=True)
    t = totals(results)
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>nettwin regression</title>",
             "<style>%s</style></head><body>" % CSS, "<h1>nettwin regression</h1>"]
    verdict = "PASSED" if t["failed"] == 0 else "FAILED"
    parts.append("<p><b>%s</b>: %d runs, %d passed, %d failed, %d packets. %s</p>" % (
        verdict, t["runs"], t["passed"], t["failed"], t["packets"],
        html.escape(", ".join("%s %s" % (k, v) for k, v in meta.items()))))
    parts.append("<table class='summary'><tr><th>block</th><th>runs</th><th>passed</th><th>failed</th>"
                 "<th>packets</th><th>seconds (sum)</th></tr>")
    for b in blocks:
        rs = [r for r in results if r.run.block == b]
        if rs:
            bt = totals(rs)
            parts.append("<tr><td><a href='#%s'>%s</a></td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>"
                         "<td>%.1f</td></tr>" % (b, b, bt["runs"], bt["passed"], bt["failed"], bt["packets"],
                                                 sum(r.seconds for r in rs)))
    parts.append("</table>")
    failed = [r for r in results if not r.ok]
    if failed:
        parts.append("<h2>Failures</h2>")
        for res in failed:
            parts.append("<h3><a href='#%s'>%s</a></h3><pre>%s</pre>" % (
                html.escape(res.run.name), html.escape(res.run.name), html.escape(failure_text(res))))
    figures = _throughput(results, out_dir)
    per_block = {}
    for b in blocks:
        rs = [r for r in results if r.run.block == b and r.ok]
        mod = block_module(b)
        per_block[b] = mod.plots(rs, out_dir) if rs and hasattr(mod, "plots") else []
    parts.append("<h2>Throughput</h2>")
    parts += [_figure(f, out_dir) for f in figures]
    for b in blocks:
        rs = [r for r in results if r.run.block == b]
        if not rs:
            continue
        mod = block_module(b)
        parts.append("<h2 id='%s'>%s</h2>" % (b, html.escape(mod.TITLE)))
        parts += [_figure(f, out_dir) for f in per_block[b]]
        parts.append(_table(mod.HEADER, table_rows(rs), [r.run.name for r in rs]))
    parts.append("</body></html>")
    path = os.path.join(out_dir, "index.html")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")
    return path


def _figure(fig, out_dir):
    rel = os.path.relpath(fig.path, out_dir)
    return "<figure><img src='%s' alt='%s'><figcaption><b>%s.</b> %s</figcaption></figure>" % (
        html.escape(rel), html.escape(fig.title), html.escape(fig.title), html.escape(fig.caption))
