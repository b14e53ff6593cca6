"""What a regression run is: the API every block's runs.py speaks (see scripts/README.md, "Regression").

A block module `nettwin.<block>.runs` exposes
    TITLE: str                       heading of its summary table
    runs(opts) -> list[Run]          its runs in a fixed order (pure declaration: nothing is generated or run)
    HEADER: list[str]                its table's columns (scenario, seed, mode, columns(stats)..., result, time)
    plots(results, out_dir) -> list[Figure]   (optional) PNGs for the HTML report
    summary(results) -> str          (optional) a line under its table
and is listed once in nettwin/regress/registry.py.
"""
import json
import os
import shlex
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

from nettwin.common import paths

PY = paths.PY  # the interpreter that has Scapy


def quote(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def shell_line(cmd):
    """cmd for a shell; a tool module ([PY, "-m", "nettwin...", ...]) gets the PYTHONPATH that finds this copy
    of the package, so the line works pasted into any shell, in any directory."""
    if len(cmd) >= 3 and cmd[1] == "-m" and str(cmd[2]).startswith("nettwin."):
        return "PYTHONPATH=%s %s" % (shlex.quote(paths.PACKAGE_PARENT), quote(cmd))
    return quote(cmd)


@dataclass
class Vector:
    """Input files several runs share. Made once per regression by the first run that needs it (the other runs
    wait for it), with deterministic commands, so a parallel run sees the same bytes as a serial one."""
    key: str                     # unique within the regression, e.g. "lb/rand3"
    commands: List[List[str]]    # run in order; all must exit 0


@dataclass
class Run:
    """One nettwin invocation plus its independent checks.

    `command` is the nettwin command; it must exit 0. `checks` (name, command) run after it, in order, only when
    it passed, and must exit 0 too. `stats` is the JSON file the command writes (None: the command prints the
    JSON on stdout). `accept(stats)` may add a pass condition (returns a failure message or None). `columns(stats)`
    gives the block's summary-table cells for this run, `measure(stats)` its (packets, cycles), and
    `extract(run, stats)` (optional, called for --report and --json) the data its block's plots need: plain JSON
    data (dicts, lists, numbers, strings), since a shard's JSON carries it to `--merge`, which draws the plots
    from it on another machine.
    """
    block: str
    scenario: str
    seed: Optional[int]
    mode: str                                  # stimulus mode, e.g. b2b, gaps+bp, mem900+bp
    command: List[str]
    engine: str = "lockstep"
    vector: Optional[Vector] = None
    checks: List[Tuple[str, List[str]]] = field(default_factory=list)
    stats: Optional[str] = None
    outputs: List[str] = field(default_factory=list)  # removed before the run: never read an old run's output
    accept: Optional[Callable[[dict], Optional[str]]] = None
    columns: Optional[Callable[[dict], list]] = None
    measure: Optional[Callable[[dict], Tuple[object, object]]] = None
    extract: Optional[Callable[["Run", dict], dict]] = None
    timeout: int = 600                         # seconds per command; the tool has its own hang detection

    @property
    def name(self):
        seed = "" if self.seed is None else ".s%d" % self.seed
        return "%s.%s%s.%s" % (self.block, self.scenario, seed, self.mode)

    @property
    def classname(self):
        return "%s.%s" % (self.block, self.scenario)

    def replay(self, stage=None):
        """One shell line that redoes this run from nothing up to `stage` (generate, run, stats or a check's
        name; None: everything): make the vector, run nettwin, run the checks."""
        cmds = list(self.vector.commands) if self.vector else []
        if stage != "generate":
            cmds.append(self.command)
            for name, chk in self.checks:
                if stage in ("run", "stats"):
                    break
                cmds.append(chk)
                if name == stage:
                    break
        return " && ".join(shell_line(c) for c in cmds)


@dataclass
class Result:
    run: Run
    ok: bool
    seconds: float
    stage: str = ""          # where it failed: generate, run, stats, or the check's name
    report: str = ""         # the failure text: divergence report, checker output, ...
    replay: str = ""
    stats: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)   # run.extract's output, for the plots

    @property
    def status(self):
        return "ok" if self.ok else "FAIL"

    def measure(self):
        if self.run.measure:
            return self.run.measure(self.stats)
        return self.stats.get("packets_in", "-"), self.stats.get("cycles", "-")


@dataclass
class Figure:
    title: str
    path: str               # PNG written by the block's plots()
    caption: str = ""


def read_json(path):
    """The stats a command wrote, or {} if there are none (a failed run)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def sum_drops(st):
    return sum(st.get("drops", {}).values()) if st else "-"


def tag(mode):
    """A stimulus mode as a file-name part."""
    return mode.replace("+", "_")


def stats_ok(st):
    """The common lockstep pass condition on a stats JSON: no divergence and packets conserved."""
    if not st:
        return "no readable stats JSON"
    if st.get("mismatches") != 0 or st.get("conservation_ok") is not True:
        return "mismatches %s, conservation_ok %s" % (st.get("mismatches"), st.get("conservation_ok"))
    return None


class Options:
    """What a block's runs(opts) may read. Attributes: root, scripts (the scripts/ directory), work (output
    directory), nettwin (binary path), quick (small ctest-sized run), packets (LB packets per random vector, or
    None), and seeds(default_count) -> the seed list."""

    def __init__(self, root, work, nettwin, quick=False, seeds=None, first_seed=1, packets=None):
        self.root, self.work, self.nettwin = root, work, nettwin
        self.scripts = os.path.join(root, "scripts")
        self.quick, self.packets = quick, packets
        self._seeds, self._first = seeds, first_seed

    def seeds(self, default_count):
        n = self._seeds if self._seeds is not None else default_count
        return list(range(self._first, self._first + n))
