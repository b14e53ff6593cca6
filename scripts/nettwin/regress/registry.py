"""The blocks the regression knows, in the order it runs and reports them. A new block adds its
`nettwin/<block>/runs.py` (API: nettwin/regress/run.py) and one line here."""
import importlib

BLOCKS = {
    "lb": "nettwin.lb.runs",
    "rdma": "nettwin.rdma.runs",
    "reorder": "nettwin.reorder.runs",
    "reroute": "nettwin.reroute.runs",  # ConWeave source ToR (docs/reroute.md)
    "cwloop": "nettwin.cwloop.runs",  # ConWeave closed loop: both ToRs + fabric model (docs/cwloop.md)
    "ejfat": "nettwin.re.runs",  # end to end: the lb-plan epoch switch and the closed loop through the RE
    "vnic": "nettwin.vnic.runs",
    "naa": "nettwin.naa.runs",
    "feedback": "nettwin.lb.feedback_runs",  # the control plane's closed loop: fill reports -> PID -> lb-plan
}


def block_module(name):
    return importlib.import_module(BLOCKS[name])
